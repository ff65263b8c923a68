// The Zapier app against a real `lore serve` (LORE_URL, LORE_KEY; started by
// scripts/zapier-test.sh with private addresses allowed, so that hooks and URL sources can reach
// the local receiver below). Every call goes through zapier-platform-core's createAppTester, as Zapier runs
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

// A web page for URL sources (GET /pages/…; no robots.txt: everything may be read).
const pages = {
  '/pages/shipping':
    '<!doctype html><html><head><title>Shipping</title></head><body><main><h1>Shipping</h1>' +
    '<p>Parcels abroad are shipped within five working days.</p>' +
    '<p>Tracking numbers are sent by e-mail once a parcel leaves the warehouse.</p></main></body></html>',
};

// Zapier's side of a REST hook: the URL Lore delivers to (POST), and the pages above (GET).
const received = [];
const receiver = http.createServer((req, res) => {
  if (req.method === 'GET') {
    const page = pages[req.url];
    if (page === undefined) return res.writeHead(404).end();
    return res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page);
  }
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    received.push({ path: req.url, headers: req.headers, body: JSON.parse(body), raw: body });
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

// An action's or trigger's refusal as the Zap's owner sees it: Lore's message and code
// (z.errors.Error carries them as JSON in its message).
const refusedWith = (message, code) => (e) => {
  const parts = JSON.parse(e.message);
  assert.equal(parts.message, message);
  if (code) assert.equal(parts.code, code);
  return true;
};

// A source's detail (chatbot or Mind) polled until it is ready; an error or failure ends the wait.
const readySource = (path) =>
  waitFor(
    `${path} to be ready`,
    async () => {
      const { source } = await lore('GET', path);
      assert.ok(!['error', 'failed'].includes(source.status), `${path} failed: ${source.error}`);
      return source.status === 'ready' && source;
    },
    60000,
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

test('Minds and chatbots dropdown: both kinds, labelled; an id of another kind is refused', async () => {
  const mind = (await lore('POST', '/api/v1/minds', { name: 'Grace Hopper' })).mind;
  const bot = (await lore('POST', '/api/v1/chatbots', { name: 'Billing bot' })).chatbot;
  const choices = await appTester(App.triggers.mind_or_chatbot.operation.perform, { authData });
  assert.ok(choices.some((c) => c.id === mind.id && c.name === 'Grace Hopper (Mind)'));
  assert.ok(choices.some((c) => c.id === bot.id && c.name === 'Billing bot (chatbot)'));
  await assert.rejects(
    appTester(App.triggers.new_rating.operation.performSubscribe, {
      authData,
      targetUrl: `${receiverUrl}/never`,
      inputData: { mindOrChatbotId: 'form_01jq3z5v7b8c9d0e1f2g3h4j5k' },
    }),
    refusedWith(
      '"form_01jq3z5v7b8c9d0e1f2g3h4j5k" names no Mind or chatbot: choose one from the list (Mind ids start with mind_, chatbot ids with cb_).',
    ),
  );
});

test('New Rating: subscribe narrowed to a chatbot, a real rating, perform, performList, unsubscribe', async () => {
  const bot = (await lore('POST', '/api/v1/chatbots', { name: 'Rated bot' })).chatbot;
  const mind = (await lore('POST', '/api/v1/minds', { name: 'Unrated Mind' })).mind;
  const op = App.triggers.new_rating.operation;
  const hook = await appTester(op.performSubscribe, {
    authData,
    targetUrl: `${receiverUrl}/ratings`,
    inputData: { mindOrChatbotId: bot.id },
  });
  assert.deepEqual([hook.event, hook.chatbotId, hook.mindId], ['message.rated', bot.id, null]);

  // The Mind's answer is rated first: the hook, narrowed to the chatbot, must not get it.
  const other = await lore('POST', `/api/v1/minds/${mind.id}/conversations`, { message: 'Hello there?' });
  const otherAnswer = other.messages[other.messages.length - 1];
  await lore('POST', `/api/v1/minds/${mind.id}/conversations/${other.conversation.id}/messages/${otherAnswer.id}/feedback`, {
    rating: 'up',
  });
  const opened = await lore('POST', `/api/v1/chatbots/${bot.id}/conversations`, { message: 'When are refunds paid?' });
  const answer = opened.messages[opened.messages.length - 1];
  assert.equal(answer.role, 'assistant');
  const rated = await lore(
    'POST',
    `/api/v1/chatbots/${bot.id}/conversations/${opened.conversation.id}/messages/${answer.id}/feedback`,
    { rating: 'down', comment: 'Not what I asked.' },
  );
  assert.equal(rated.message.feedback.rating, 'down');

  const got = await delivery('/ratings', 'message.rated');
  const [item] = await appTester(op.perform, { authData, cleanedRequest: got.body });
  assert.equal(item.id, got.body.eventId);
  assert.deepEqual(item.data, {
    chatbotId: bot.id,
    conversationId: opened.conversation.id,
    messageId: answer.id,
    rating: 'down',
    comment: 'Not what I asked.',
  });
  assert.ok(
    received.filter((r) => r.path === '/ratings').every((r) => r.body.data.chatbotId === bot.id),
    'only the chatbot’s ratings reach the narrowed hook',
  );

  const listed = await appTester(op.performList, { authData, inputData: { mindOrChatbotId: bot.id } });
  assert.ok(listed.length >= 1);
  assert.deepEqual([listed[0].eventType, listed[0].data.chatbotId, listed[0].id], ['message.rated', bot.id, listed[0].eventId]);
  assert.ok(['up', 'down'].includes(listed[0].data.rating));
  const all = await appTester(op.performList, { authData, inputData: {} });
  assert.ok(all.length >= 1 && all.every((x) => x.eventType === 'message.rated' && x.id));

  const gone = await appTester(op.performUnsubscribe, { authData, subscribeData: hook });
  assert.equal(gone.deleted, true);
});

test('Hand-off Requested: subscribe narrowed to a Mind, a real hand-off, perform, performList, unsubscribe', async () => {
  const mind = (await lore('POST', '/api/v1/minds', { name: 'Support Mind' })).mind;
  const op = App.triggers.handoff_requested.operation;
  const hook = await appTester(op.performSubscribe, {
    authData,
    targetUrl: `${receiverUrl}/handoffs`,
    inputData: { mindOrChatbotId: mind.id },
  });
  assert.deepEqual([hook.event, hook.mindId, hook.chatbotId], ['conversation.handoff_requested', mind.id, null]);

  const opened = await lore('POST', `/api/v1/minds/${mind.id}/conversations`, {
    message: 'My parcel never arrived.',
    visitor: { email: 'vera@example.com', name: 'Vera' },
  });
  const conversationId = opened.conversation.id;
  const handed = await lore('POST', `/api/v1/minds/${mind.id}/conversations/${conversationId}/handoff`, {
    reason: 'I want to speak to someone.',
  });
  assert.equal(handed.conversation.status, 'handoff');

  const got = await delivery('/handoffs', 'conversation.handoff_requested');
  const [item] = await appTester(op.perform, { authData, cleanedRequest: got.body });
  assert.equal(item.id, got.body.eventId);
  assert.deepEqual(item.data, {
    mindId: mind.id,
    conversationId,
    visitor: { email: 'vera@example.com', name: 'Vera', userId: null },
    reason: 'I want to speak to someone.',
  });

  const listed = await appTester(op.performList, { authData, inputData: { mindOrChatbotId: mind.id } });
  assert.ok(listed.length >= 1);
  assert.deepEqual(
    [listed[0].eventType, listed[0].data.mindId, listed[0].id],
    ['conversation.handoff_requested', mind.id, listed[0].eventId],
  );
  assert.ok(typeof listed[0].data.conversationId === 'string');

  const gone = await appTester(op.performUnsubscribe, { authData, subscribeData: hook });
  assert.equal(gone.deleted, true);
});

test('Test Run Completed: subscribe narrowed to a chatbot, a real run, perform, performList, unsubscribe', async () => {
  const bot = (await lore('POST', '/api/v1/chatbots', { name: 'Tested bot' })).chatbot;
  const op = App.triggers.test_run_completed.operation;
  const hook = await appTester(op.performSubscribe, {
    authData,
    targetUrl: `${receiverUrl}/test-runs`,
    inputData: { mindOrChatbotId: bot.id },
  });
  assert.deepEqual([hook.event, hook.chatbotId, hook.mindId], ['tests.run.completed', bot.id, null]);

  await lore('POST', `/api/v1/chatbots/${bot.id}/tests`, { question: 'Do you repair bicycles?', expectAnswered: false });
  const started = await lore('POST', `/api/v1/chatbots/${bot.id}/test-runs`, {});
  const got = await delivery('/test-runs', 'tests.run.completed');
  const [item] = await appTester(op.perform, { authData, cleanedRequest: got.body });
  assert.equal(item.id, got.body.eventId);
  assert.deepEqual(item.data, { chatbotId: bot.id, runId: started.run.id, total: 1, passed: 1, failed: 0, regressions: 0 });

  const listed = await appTester(op.performList, { authData, inputData: { mindOrChatbotId: bot.id } });
  assert.deepEqual([listed[0].eventType, listed[0].data.chatbotId], ['tests.run.completed', bot.id]);

  const gone = await appTester(op.performUnsubscribe, { authData, subscribeData: hook });
  assert.equal(gone.deleted, true);
});

test('Action Called: subscribe narrowed to a chatbot, perform, performList, unsubscribe; an action calling a Catch Hook', async () => {
  const bot = (await lore('POST', '/api/v1/chatbots', { name: 'Order bot' })).chatbot;
  const op = App.triggers.action_called.operation;
  const hook = await appTester(op.performSubscribe, {
    authData,
    targetUrl: `${receiverUrl}/action-calls`,
    inputData: { mindOrChatbotId: bot.id },
  });
  assert.deepEqual([hook.event, hook.chatbotId, hook.mindId], ['conversation.action.called', bot.id, null]);

  // The samples Zapier shows while the Zap is built: a made-up call of this chatbot's.
  const listed = await appTester(op.performList, { authData, inputData: { mindOrChatbotId: bot.id } });
  assert.equal(listed.length, 1);
  assert.equal(listed[0].id, listed[0].eventId);
  assert.equal(listed[0].eventType, 'conversation.action.called');
  const { data } = listed[0];
  assert.deepEqual([data.chatbotId, data.mindId, data.name, data.status], [bot.id, undefined, 'lookup_order', 'ok']);
  for (const key of ['conversationId', 'messageId', 'actionId']) assert.equal(typeof data[key], 'string', key);
  // A delivery is the same envelope: perform passes it on with its id.
  const [item] = await appTester(op.perform, { authData, cleanedRequest: listed[0] });
  assert.deepEqual([item.id, item.data], [listed[0].eventId, data]);
  const mind = (await lore('POST', '/api/v1/minds', { name: 'Order Mind' })).mind;
  const ofMind = await appTester(op.performList, { authData, inputData: { mindOrChatbotId: mind.id } });
  assert.deepEqual([ofMind[0].data.mindId, ofMind[0].data.chatbotId], [mind.id, undefined]);

  const gone = await appTester(op.performUnsubscribe, { authData, subscribeData: hook });
  assert.equal(gone.deleted, true);

  // The README's how-to: an action whose URL is a Zapier "Catch Hook" gets the model's arguments
  // as its JSON body, signed with the action's signing secret (Standard Webhooks).
  const created = await lore('POST', `/api/v1/chatbots/${bot.id}/actions`, {
    name: 'lookup_order',
    description: 'Looks up an order by its number.',
    url: `${receiverUrl}/catch-hook`,
    parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
  });
  assert.match(created.signingSecret, /^whsec_/);
  const tested = await lore('POST', `/api/v1/chatbots/${bot.id}/actions/${created.action.id}/test`, {
    arguments: { orderId: '10042' },
  });
  assert.deepEqual([tested.result.status, tested.result.httpStatus], ['ok', 200]);
  const caught = await waitFor('the Catch Hook call', () => received.find((r) => r.path === '/catch-hook'));
  assert.deepEqual(caught.body, { orderId: '10042' });
  const crypto = require('node:crypto');
  const key = Buffer.from(created.signingSecret.slice('whsec_'.length), 'base64');
  const signed = `${caught.headers['webhook-id']}.${caught.headers['webhook-timestamp']}.${caught.raw}`;
  const expected = crypto.createHmac('sha256', key).update(signed).digest('base64');
  const signatures = caught.headers['webhook-signature'].split(' ').map((s) => s.split(',')[1]);
  assert.ok(signatures.includes(expected), `signed with the action's secret: ${caught.headers['webhook-signature']}`);
});

test('Add Knowledge Source: a text and a web page to a chatbot, a text to a Mind, each processed to ready', async () => {
  const create = App.creates.add_knowledge_source.operation;
  const fieldsFor = async (type) =>
    (await appTester(create.inputFields[3], { authData, inputData: { type } })).map((f) => f.key);
  assert.deepEqual(await fieldsFor('text'), ['content']);
  assert.deepEqual(await fieldsFor('url'), ['url', 'crawlDepth']);

  const bot = (await lore('POST', '/api/v1/chatbots', { name: 'Knowledge bot' })).chatbot;
  const text = await appTester(create.perform, {
    authData,
    inputData: { mindOrChatbotId: bot.id, type: 'text', name: 'Refund policy', content: 'Refunds are paid within fourteen days.' },
  });
  assert.deepEqual([text.chatbotId, text.type, text.name], [bot.id, 'text', 'Refund policy']);
  assert.ok(['processing', 'ready'].includes(text.status), `processing started: ${text.status}`);
  const textReady = await readySource(`/api/v1/chatbots/${bot.id}/sources/${text.id}`);
  assert.ok(textReady.chunkCount >= 1);

  const pageUrl = `${receiverUrl}/pages/shipping`;
  const page = await appTester(create.perform, {
    authData,
    inputData: { mindOrChatbotId: bot.id, type: 'url', url: pageUrl, crawlDepth: '1' },
  });
  assert.deepEqual([page.type, page.url, page.name, page.crawlDepth], ['url', pageUrl, pageUrl, 1]);
  const pageReady = await readySource(`/api/v1/chatbots/${bot.id}/sources/${page.id}`);
  assert.ok(pageReady.chunkCount >= 1 && pageReady.pagesCrawled === 1, JSON.stringify(pageReady));
  const found = await lore('POST', `/api/v1/chatbots/${bot.id}/knowledge/search`, { query: 'parcels abroad' });
  assert.equal(found.results[0].sourceId, page.id);

  const mind = (await lore('POST', '/api/v1/minds', { name: 'Knowing Mind' })).mind;
  const bio = await appTester(create.perform, {
    authData,
    inputData: { mindOrChatbotId: mind.id, type: 'text', name: 'Biography', content: 'Ada wrote the first program in 1843.' },
  });
  assert.deepEqual([bio.mindId, bio.type, bio.name], [mind.id, 'text', 'Biography']);
  const bioReady = await readySource(`/api/v1/minds/${mind.id}/knowledge/${bio.id}`);
  assert.ok(bioReady.chunkCount >= 1);

  await assert.rejects(
    appTester(create.perform, {
      authData,
      inputData: { mindOrChatbotId: 'cb_01jq3z5v7b8c9d0e1f2g3h4j5k', type: 'text', content: 'Lost words.' },
    }),
    refusedWith('chatbot not found', 'not_found'),
  );
});

test('Ask a Mind or Chatbot: a new conversation, a follow-up in it, a hand-off, a Mind; an unknown Mind', async () => {
  const bot = (await lore('POST', '/api/v1/chatbots', { name: 'Answering bot' })).chatbot;
  const pageUrl = `${receiverUrl}/pages/shipping`;
  for (const body of [
    { type: 'text', name: 'Refund policy', content: 'Refunds are paid within fourteen days.' },
    { type: 'url', name: 'Shipping page', url: pageUrl },
  ]) {
    const { source } = await lore('POST', `/api/v1/chatbots/${bot.id}/sources`, body);
    await lore('POST', `/api/v1/chatbots/${bot.id}/sources/${source.id}/process`);
    await readySource(`/api/v1/chatbots/${bot.id}/sources/${source.id}`);
  }
  const ask = App.creates.ask.operation.perform;

  const first = await appTester(ask, {
    authData,
    inputData: { mindOrChatbotId: bot.id, question: 'How long until parcels abroad are shipped?' },
  });
  assert.match(first.conversationId, /^conv_/);
  assert.match(first.id, /^msg_/);
  assert.equal(first.chatbotId, bot.id);
  assert.match(first.answer, /five working days[\s\S]*\[1\]/);
  assert.match(first.answerText, /five working days/);
  assert.doesNotMatch(first.answerText, /\[\d+\]/);
  assert.deepEqual([first.answered, first.waitingForPerson, first.generatedBy], [true, false, 'extractive']);
  assert.equal(first.citationCount, first.citations.length);
  assert.deepEqual(
    [first.citations[0].index, first.citations[0].sourceName, first.citations[0].url],
    [1, 'Shipping page', pageUrl],
  );
  assert.match(first.citations[0].quote, /five working days/);
  assert.equal(first.citationSources, 'Shipping page');
  assert.equal(first.citationUrls, pageUrl);
  assert.ok(first.citationsText.startsWith(`[1] Shipping page (${pageUrl}): "`), first.citationsText);

  const followUp = await appTester(ask, {
    authData,
    inputData: { mindOrChatbotId: bot.id, question: 'When are refunds paid?', conversationId: first.conversationId },
  });
  assert.equal(followUp.conversationId, first.conversationId);
  assert.match(followUp.answerText, /fourteen days/);
  assert.equal(followUp.citations[0].sourceName, 'Refund policy');
  assert.equal(followUp.citationUrls, '');
  const stored = await lore('GET', `/api/v1/chatbots/${bot.id}/conversations/${first.conversationId}`);
  assert.equal(stored.conversation.messageCount, 4);
  assert.deepEqual(
    stored.messages.map((m) => [m.role, m.id]).filter(([role]) => role === 'assistant'),
    [['assistant', first.id], ['assistant', followUp.id]],
  );

  // A person has the conversation: the question is stored and nobody answers it here.
  await lore('POST', `/api/v1/chatbots/${bot.id}/conversations/${first.conversationId}/handoff`, {});
  const waiting = await appTester(ask, {
    authData,
    inputData: { mindOrChatbotId: bot.id, question: 'Anyone there?', conversationId: first.conversationId },
  });
  assert.deepEqual(
    [waiting.waitingForPerson, waiting.answered, waiting.answer, waiting.citationCount],
    [true, false, '', 0],
  );

  // A Mind with a welcome message: the answer is the last message, not the welcome.
  const mind = (await lore('POST', '/api/v1/minds', { name: 'Welcoming Mind' })).mind;
  await lore('PATCH', `/api/v1/minds/${mind.id}`, { welcomeMessage: 'Welcome! Ask me anything.' });
  const fromMind = await appTester(ask, { authData, inputData: { mindOrChatbotId: mind.id, question: 'What is the capital of Peru?' } });
  assert.equal(fromMind.mindId, mind.id);
  assert.equal(fromMind.answer, "I don't have anything in my knowledge about that yet.");
  assert.deepEqual([fromMind.answered, fromMind.citationCount, fromMind.generatedBy], [false, 0, 'extractive']);
  const mindConversation = await lore('GET', `/api/v1/minds/${mind.id}/conversations/${fromMind.conversationId}`);
  assert.deepEqual(mindConversation.messages.map((m) => m.generatedBy), ['welcome', null, 'extractive']);

  await assert.rejects(
    appTester(ask, { authData, inputData: { mindOrChatbotId: 'mind_01jq3z5v7b8c9d0e1f2g3h4j5k', question: 'Hello?' } }),
    refusedWith('mind not found', 'not_found'),
  );
});

test('Submit Form Response: the form’s fields as typed inputs, a stored response; a refused answer', async () => {
  const form = (await lore('POST', '/api/v1/forms', {
    name: 'Order',
    fields: [
      { key: 'name', label: 'Name', type: 'short_text', required: true },
      { key: 'email', label: 'E-mail', type: 'email' },
      { key: 'size', label: 'Size', type: 'dropdown', options: ['S', 'M', 'L'] },
      { key: 'extras', label: 'Extras', type: 'checkboxes', options: ['gift wrap', 'express'] },
      { key: 'count', label: 'How many', type: 'number' },
      { key: 'stars', label: 'Stars', type: 'rating', max: 10 },
      { key: 'day', label: 'Delivery day', type: 'date' },
      { key: 'notes', label: 'Notes', type: 'long_text' },
    ],
  })).form;
  const choices = await appTester(App.triggers.form_to_answer.operation.perform, { authData });
  assert.ok(choices.some((c) => c.id === form.id && c.name === 'Order'));
  assert.ok(choices.every((c) => c.id !== 'all'), 'no "All forms" entry: a response answers one form');

  const op = App.creates.submit_form_response.operation;
  const fields = await appTester(op.inputFields[1], { authData, inputData: { formId: form.id } });
  const byKey = Object.fromEntries(fields.map((f) => [f.key, f]));
  assert.deepEqual(Object.keys(byKey), ['name', 'email', 'size', 'extras', 'count', 'stars', 'day', 'notes'].map((k) => `answer_${k}`));
  assert.deepEqual([byKey.answer_name.label, byKey.answer_name.required], ['Name', true]);
  assert.deepEqual(byKey.answer_size.choices, ['S', 'M', 'L']);
  assert.deepEqual([byKey.answer_extras.list, byKey.answer_extras.choices], [true, ['gift wrap', 'express']]);
  assert.deepEqual(
    [byKey.answer_count.type, byKey.answer_stars.type, byKey.answer_day.type, byKey.answer_notes.type],
    ['number', 'integer', 'datetime', 'text'],
  );
  assert.deepEqual(await appTester(op.inputFields[1], { authData, inputData: {} }), []);

  // As Zapier sends them: mostly strings, a list, a date-time in the Zap's time zone.
  const submitted = await appTester(op.perform, {
    authData,
    inputData: {
      formId: form.id,
      answer_name: 'Ada',
      answer_email: 'ada@example.com',
      answer_size: 'M',
      answer_extras: ['gift wrap', 'express'],
      answer_count: '3.5',
      answer_stars: '9',
      answer_day: '2026-05-01T00:00:00+02:00',
      answer_notes: '',
    },
  });
  assert.match(submitted.id, /^resp_/);
  assert.deepEqual([submitted.formId, submitted.formName], [form.id, 'Order']);
  const expected = {
    name: 'Ada',
    email: 'ada@example.com',
    size: 'M',
    extras: ['gift wrap', 'express'],
    count: 3.5,
    stars: 9,
    day: '2026-05-01',
  };
  const { responses } = await lore('GET', `/api/v1/forms/${form.id}/responses`);
  assert.equal(responses.length, 1);
  assert.deepEqual([responses[0].id, responses[0].source, responses[0].values], [submitted.id, 'direct', expected]);

  // Checkboxes typed as one comma-separated text work too.
  const second = await appTester(op.perform, {
    authData,
    inputData: { formId: form.id, answer_name: 'Grace', answer_extras: 'express, gift wrap' },
  });
  const after = (await lore('GET', `/api/v1/forms/${form.id}/responses`)).responses;
  assert.deepEqual([after[0].id, after[0].values], [second.id, { name: 'Grace', extras: ['express', 'gift wrap'] }]);

  await assert.rejects(
    appTester(op.perform, { authData, inputData: { formId: form.id, answer_name: 'Eve', answer_email: 'not an address' } }),
    refusedWith('values.email: must be an e-mail address (name@example.com)', 'validation_error'),
  );
  assert.equal((await lore('GET', `/api/v1/forms/${form.id}/responses`)).pagination.total, 2, 'nothing stored');
});
