// API-key authentication: the Lore server's address and a key with the scopes forms:read,
// webhooks:write, chatbot:read and minds:read. Zapier's "test" call is Lore's verify route.
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
        'A Lore API key (`lore_sk_…`) with the scopes forms:read, webhooks:write, chatbot:read and minds:read.',
    },
  ],
  test: async (z, bundle) => {
    const response = await z.request({ url: url(bundle, '/api/integrations/webhooks/auth/verify') });
    return response.data;
  },
  connectionLabel: '{{workspace.name}}',
};
