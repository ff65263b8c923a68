// Hidden triggers that fill the dropdowns: forms (with Lore's "All forms" entry, id "all"),
// chatbots and Minds.
'use strict';

const { url } = require('../lore');

const hidden = (key, noun, perform, sample) => ({
  key,
  noun,
  display: { label: `List of ${noun}s`, description: `The ${noun.toLowerCase()}s to choose from.`, hidden: true },
  operation: { perform, sample },
});

const listed = (path, member) => async (z, bundle) => {
  // The first 100, newest first: a dropdown, not an export.
  const response = await z.request({ url: url(bundle, path), params: { page: 1, limit: 100 } });
  return response.data[member].map((x) => ({ id: x.id, name: x.name }));
};

module.exports = {
  form: hidden(
    'form',
    'Form',
    async (z, bundle) => (await z.request({ url: url(bundle, '/api/integrations/webhooks/actions/forms') })).data,
    { id: 'all', name: 'All forms' },
  ),
  chatbot: hidden('chatbot', 'Chatbot', listed('/api/v1/chatbots', 'chatbots'), { id: 'cb_01jq3z5v7b8c9d0e1f2g3h4j5k', name: 'Support bot' }),
  mind: hidden('mind', 'Mind', listed('/api/v1/minds', 'minds'), { id: 'mind_01jq3z5v7b8c9d0e1f2g3h4j5k', name: 'Ada Lovelace' }),
};
