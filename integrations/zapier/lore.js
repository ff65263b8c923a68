// What every part of the app shares: URLs, the key on every request, Lore's errors as Zapier
// errors, and envelopes turned into the items Zapier shows (each with the `id` Zapier needs).
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
// the message, with the code.
const loreErrors = (response, z) => {
  if (response.status < 400) return response;
  let error = {};
  try {
    error = JSON.parse(response.content).error || {};
  } catch (e) {
    // not JSON: the status says enough
  }
  const message = error.message || `Lore answered ${response.status}`;
  if (response.status === 401) throw new z.errors.Error(message, 'AuthenticationError', response.status);
  throw new z.errors.Error(message, error.code || 'LoreError', response.status);
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

// A REST-hook trigger of one Lore event: subscribe, unsubscribe, the delivered envelope, and
// the sample endpoint's envelopes for performList.
const hookOperation = ({ event, narrow, sample }) => ({
  type: 'hook',
  performSubscribe: async (z, bundle) => {
    const body = Object.assign({ hookUrl: bundle.targetUrl, event }, narrow(bundle.inputData || {}));
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
    const params = Object.assign({ event }, narrow(bundle.inputData || {}));
    const response = await z.request({ url: url(bundle, '/api/integrations/webhooks/triggers/sample'), params });
    return response.data.map(item);
  },
  sample: item(sample),
});

module.exports = { url, addApiKey, loreErrors, item, hookOperation };
