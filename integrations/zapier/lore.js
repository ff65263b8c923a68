// What every part of the app shares: URLs, the key on every request, Lore's errors as Zapier
// errors, envelopes turned into the items Zapier shows (each with the `id` Zapier needs), and the
// Mind or chatbot an id names.
'use strict';

const url = (bundle, path) => `${String(bundle.authData.baseUrl || '').replace(/\/+$/, '')}${path}`;

const addApiKey = (request, z, bundle) => {
  if (bundle.authData && bundle.authData.apiKey) {
    request.headers = request.headers || {};
    request.headers.Authorization = `Bearer ${bundle.authData.apiKey}`;
  }
  return request;
};

// Lore answers errors as {status: "error", error: {code, message}}: shown to the Zap's owner as
// the message, with the code. (A 429 never gets here: zapier-platform-core turns it into a
// ThrottledError with Lore's Retry-After first, and Zapier tries the step again later.)
const loreErrors = (response, z) => {
  if (response.status < 400) return response;
  let error = {};
  try {
    error = JSON.parse(response.content).error || {};
  } catch (e) {
    // not JSON: the status says enough
  }
  let message = error.message || `Lore answered ${response.status}`;
  // A failed first answer keeps the question in a new conversation (docs/api.md §17): say which,
  // so that the step can be retried there instead of opening another.
  const kept = error.details && error.details.conversationId;
  if (kept) message = `${message} (the question is kept in conversation ${kept})`;
  if (response.status === 401) throw new z.errors.Error(message, 'AuthenticationError', response.status);
  throw new z.errors.Error(message, error.code || 'LoreError', response.status);
};

// What an error thrown above says: z.errors.Error carries `{message, code, status}` as JSON in
// its message; any other error is its message.
const errorParts = (e) => {
  try {
    const parts = JSON.parse(e.message);
    if (parts && typeof parts.message === 'string') return parts;
  } catch (ignored) {
    // a plain message
  }
  return { message: e.message, code: undefined, status: undefined };
};

// An event envelope as a Zapier item: the envelope's members, `id` (the eventId, for Zapier's
// de-duplication), and for form responses `answers` (field key → value) for easy mapping.
const item = (envelope) => {
  const out = Object.assign({ id: envelope.eventId }, envelope);
  const fields = envelope.data && Array.isArray(envelope.data.fields) ? envelope.data.fields : null;
  if (fields) {
    out.answers = {};
    for (const field of fields) out.answers[field.key] = field.value;
  }
  return out;
};

// A Mind or a chatbot, from the id a dropdown (or a mapped value) gives: Lore's ids say what they
// name (`mind_…`, `cb_…`, docs/api.md §1). `path` is the base of its routes, `narrow` the member
// that narrows a subscription or a sample to it. Anything else is refused before any request.
const owner = (z, value) => {
  const id = String(value || '').trim();
  const kinds = [
    { prefix: 'mind_', kind: 'mind', base: '/api/v1/minds/', member: 'mindId' },
    { prefix: 'cb_', kind: 'chatbot', base: '/api/v1/chatbots/', member: 'chatbotId' },
  ];
  const found = kinds.find((k) => id.startsWith(k.prefix) && id.length > k.prefix.length);
  if (!found) {
    throw new z.errors.Error(
      `"${id}" names no Mind or chatbot: choose one from the list (Mind ids start with mind_, chatbot ids with cb_).`,
      'InvalidMindOrChatbot',
      400,
    );
  }
  return { kind: found.kind, id, path: `${found.base}${encodeURIComponent(id)}`, narrow: { [found.member]: id } };
};

// A REST-hook trigger of one Lore event: subscribe, unsubscribe, the delivered envelope, and
// the sample endpoint's envelopes for performList. `narrow(inputData, z)` gives the members
// (`formId`, `chatbotId`, `mindId`) that limit the subscription and the samples.
const hookOperation = ({ event, narrow, sample }) => ({
  type: 'hook',
  performSubscribe: async (z, bundle) => {
    const body = Object.assign({ hookUrl: bundle.targetUrl, event }, narrow(bundle.inputData || {}, z));
    const response = await z.request({
      url: url(bundle, '/api/integrations/webhooks/triggers/subscribe'),
      method: 'POST',
      body,
    });
    return response.data;
  },
  performUnsubscribe: async (z, bundle) => {
    const id = bundle.subscribeData.id || bundle.subscribeData.hookId;
    const response = await z.request({
      url: url(bundle, `/api/integrations/webhooks/triggers/subscribe/${encodeURIComponent(id)}`),
      method: 'DELETE',
    });
    return response.data;
  },
  perform: async (z, bundle) => [item(bundle.cleanedRequest)],
  performList: async (z, bundle) => {
    const params = Object.assign({ event }, narrow(bundle.inputData || {}, z));
    const response = await z.request({ url: url(bundle, '/api/integrations/webhooks/triggers/sample'), params });
    return response.data.map(item);
  },
  sample: item(sample),
});

module.exports = { url, addApiKey, loreErrors, errorParts, item, owner, hookOperation };
