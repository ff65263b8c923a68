// The Zapier app against a real `lore serve` (LORE_URL, LORE_KEY; started by
// scripts/zapier-test.sh with private addresses allowed, so that hooks can reach the local
// receiver below). Every call goes through zapier-platform-core's createAppTester, as Zapier runs
// the app; Lore itself is set up with plain HTTP. Every wait polls with a deadline.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const zapier = require('zapier-platform-core');
const App = require('../index');

const appTester = zapier.createAppTester(App);
const authData = { baseUrl: process.env.LORE_URL, apiKey: process.env.LORE_KEY };

async function lore(method, path, body) {
  const response = await fetch(`${process.env.LORE_URL}${path}`, {
    method,
    headers: { Authorization: `Bearer ${process.env.LORE_KEY}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function waitFor(what, probe, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// Zapier's side of a REST hook: the URL Lore delivers to.
const received = [];
const receiver = http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    received.push({ path: req.url, headers: req.headers, body: JSON.parse(body) });
    res.writeHead(200).end();
  });
});
let receiverUrl;
test.before(async () => {
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${receiver.address().port}`;
});
test.after(() => receiver.close());

const delivery = (path, eventType) =>
  waitFor(`a ${eventType} delivery to ${path}`, () =>
    received.find((r) => r.path === path && r.body.eventType === eventType),
  );

test('the app definition passes Zapier schema validation', async () => {
  const errors = await new Promise((resolve, reject) =>
    zapier.createAppHandler(App)({ command: 'validate' }, {}, (err, out) => (err ? reject(err) : resolve(out.results))),
  );
  assert.deepEqual(errors, []);
});

test('authentication: the verify call names the workspace; a wrong key is refused', async () => {
  const verified = await appTester(App.authentication.test, { authData });
  assert.equal(verified.workspace.name, 'default');
  await assert.rejects(
    appTester(App.authentication.test, { authData: { ...authData, apiKey: 'lore_sk_wrong' } }),
    (e) => /key/i.test(e.message),
  );
});

test('New Form Response: dropdown, subscribe, delivery, perform, performList, unsubscribe', async () => {
  const form = (await lore('POST', '/api/v1/forms', {
    name: 'Contact us',
    fields: [{ key: 'name', label: 'Name', type: 'short_text', required: true }],
  })).form;
  const choices = await appTester(App.triggers.form.operation.perform, { authData });
  assert.deepEqual(choices[0], { id: 'all', name: 'All forms' });
  assert.ok(choices.some((c) => c.id === form.id && c.name === 'Contact us'));
  assert.ok(choices.every((c) => typeof c.id === 'string' && c.id.length > 0), 'every choice has an id');

  const op = App.triggers.new_form_response.operation;
  const bundle = { authData, targetUrl: `${receiverUrl}/forms`, inputData: { formId: form.id } };
  const hook = await appTester(op.performSubscribe, bundle);
  assert.equal(hook.formId, form.id);
  assert.equal(hook.event, 'form_response');
  await lore('POST', `/api/v1/forms/${form.id}/responses`, { values: { name: 'Ada' } });
  const got = await delivery('/forms', 'form_response');
  const [item] = await appTester(op.perform, { authData, cleanedRequest: got.body });
  assert.equal(item.id, got.body.eventId);
  assert.equal(item.answers.name, 'Ada');
  assert.equal(item.data.formId, form.id);

  const listed = await appTester(op.performList, { authData, inputData: { formId: form.id } });
  assert.equal(listed[0].answers.name, 'Ada', 'performList shows the latest real response');
  assert.ok(listed.every((x) => x.id === x.eventId));
  const all = await appTester(op.performList, { authData, inputData: { formId: 'all' } });
  assert.ok(all.length >= 1 && all.every((x) => x.eventType === 'form_response'));

  const gone = await appTester(op.performUnsubscribe, { authData, subscribeData: hook });
  assert.equal(gone.deleted, true);
  await assert.rejects(appTester(op.performUnsubscribe, { authData, subscribeData: hook }), /not found/i);
});

test('Knowledge Source Ready: chatbot dropdown, subscribe, delivery, perform, performList', async () => {
  const bot = (await lore('POST', '/api/v1/chatbots', { name: 'Support bot' })).chatbot;
  const bots = await appTester(App.triggers.chatbot.operation.perform, { authData });
  assert.ok(bots.some((b) => b.id === bot.id && b.name === 'Support bot'));

  const op = App.triggers.knowledge_source_ready.operation;
  const hook = await appTester(op.performSubscribe, {
    authData,
    targetUrl: `${receiverUrl}/sources`,
    inputData: { chatbotId: bot.id },
  });
  assert.equal(hook.event, 'knowledge.source.ready');
  const source = (await lore('POST', `/api/v1/chatbots/${bot.id}/sources`, {
    type: 'text',
    name: 'Refund policy',
    content: 'Refunds are paid within fourteen days.',
  })).source;
  await lore('POST', `/api/v1/chatbots/${bot.id}/sources/${source.id}/process`);
  const got = await delivery('/sources', 'knowledge.source.ready');
  const [item] = await appTester(op.perform, { authData, cleanedRequest: got.body });
  assert.equal(item.id, got.body.eventId);
  assert.equal(item.data.sourceId, source.id);
  assert.equal(item.data.status, 'ready');
  const listed = await appTester(op.performList, { authData, inputData: { chatbotId: bot.id } });
  assert.equal(listed[0].data.sourceId, source.id);
  assert.ok(listed[0].id);
  await appTester(op.performUnsubscribe, { authData, subscribeData: hook });
});

test('New Lead: Mind dropdown, subscribe, a visitor leaves an address, perform, performList', async () => {
  const mind = (await lore('POST', '/api/v1/minds', { name: 'Ada Lovelace' })).mind;
  await lore('PATCH', `/api/v1/minds/${mind.id}`, { collectEmailBeforeChat: true });
  await lore('POST', `/api/v1/minds/${mind.id}/publish`, { isPublished: true });
  const minds = await appTester(App.triggers.mind.operation.perform, { authData });
  assert.ok(minds.some((m) => m.id === mind.id));

  const op = App.triggers.new_lead.operation;
  const hook = await appTester(op.performSubscribe, {
    authData,
    targetUrl: `${receiverUrl}/leads`,
    inputData: { mindId: mind.id },
  });
  assert.equal(hook.event, 'mind.lead.captured');
  const opened = await fetch(`${process.env.LORE_URL}/m/${mind.slug}/conversations`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ visitor: { email: 'vera@example.com', name: 'Vera' } }),
  });
  assert.equal(opened.status, 201);
  const got = await delivery('/leads', 'mind.lead.captured');
  const [item] = await appTester(op.perform, { authData, cleanedRequest: got.body });
  assert.equal(item.id, got.body.eventId);
  assert.deepEqual([item.data.mindId, item.data.email, item.data.name], [mind.id, 'vera@example.com', 'Vera']);
  const listed = await appTester(op.performList, { authData, inputData: { mindId: mind.id } });
  assert.equal(listed[0].data.mindId, mind.id);
  assert.ok(listed[0].id);
  await appTester(op.performUnsubscribe, { authData, subscribeData: hook });
});
