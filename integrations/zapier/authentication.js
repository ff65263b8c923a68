// API-key authentication: the Lore server's address and a key with the scopes the triggers
// (forms:read, webhooks:write, chatbot:read, minds:read) and the actions (knowledge:write,
// minds:write, chat:write, forms:write) use. Zapier's "test" call is Lore's verify route.
'use strict';

const { url } = require('./lore');

module.exports = {
  type: 'custom',
  fields: [
    {
      key: 'baseUrl',
      label: 'Lore server URL',
      required: true,
      type: 'string',
      helpText: 'Where your Lore API is served, e.g. `https://api.example.com` (no path).',
    },
    {
      key: 'apiKey',
      label: 'API key',
      required: true,
      type: 'password',
      helpText:
        'A Lore API key (`lore_sk_…`). Triggers need the scopes forms:read, webhooks:write, chatbot:read and minds:read; ' +
        'the actions also knowledge:write and minds:write (Add Knowledge Source), chat:write (Ask a Mind or Chatbot) ' +
        'and forms:write (Submit Form Response).',
    },
  ],
  test: async (z, bundle) => {
    const response = await z.request({ url: url(bundle, '/api/integrations/webhooks/auth/verify') });
    return response.data;
  },
  connectionLabel: '{{workspace.name}}',
};
