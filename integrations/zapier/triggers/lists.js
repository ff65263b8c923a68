// Hidden triggers that fill the dropdowns: forms to narrow a trigger (with Lore's "All forms"
// entry, id "all"), forms to answer (real forms only), chatbots, Minds, and Minds and chatbots
// together (for the triggers and actions that work with either).
'use strict';

const { url } = require('../lore');

const hidden = (key, noun, perform, sample, label = `List of ${noun}s`) => ({
  key,
  noun,
  display: { label, description: `The ${noun.toLowerCase()}s to choose from.`, hidden: true },
  operation: { perform, sample },
});

// The first 100, newest first: a dropdown, not an export.
const first100 = async (z, bundle, path, member) =>
  (await z.request({ url: url(bundle, path), params: { page: 1, limit: 100 } })).data[member];

const listed = (path, member) => async (z, bundle) =>
  (await first100(z, bundle, path, member)).map((x) => ({ id: x.id, name: x.name }));

module.exports = {
  form: hidden(
    'form',
    'Form',
    async (z, bundle) => (await z.request({ url: url(bundle, '/api/integrations/webhooks/actions/forms') })).data,
    { id: 'all', name: 'All forms' },
  ),
  // A response goes to one form: no "All forms" here.
  formToAnswer: hidden(
    'form_to_answer',
    'Form',
    listed('/api/v1/forms', 'forms'),
    { id: 'form_01jq3z5v7b8c9d0e1f2g3h4j5k', name: 'Contact us' },
    'List of Forms to Answer',
  ),
  chatbot: hidden('chatbot', 'Chatbot', listed('/api/v1/chatbots', 'chatbots'), { id: 'cb_01jq3z5v7b8c9d0e1f2g3h4j5k', name: 'Support bot' }),
  mind: hidden('mind', 'Mind', listed('/api/v1/minds', 'minds'), { id: 'mind_01jq3z5v7b8c9d0e1f2g3h4j5k', name: 'Ada Lovelace' }),
  // Minds first, then chatbots, each labelled with what it is (the id says it too: lore.js owner).
  mindOrChatbot: hidden(
    'mind_or_chatbot',
    'Mind or Chatbot',
    async (z, bundle) => {
      const [minds, chatbots] = await Promise.all([
        first100(z, bundle, '/api/v1/minds', 'minds'),
        first100(z, bundle, '/api/v1/chatbots', 'chatbots'),
      ]);
      return [
        ...minds.map((m) => ({ id: m.id, name: `${m.name} (Mind)` })),
        ...chatbots.map((c) => ({ id: c.id, name: `${c.name} (chatbot)` })),
      ];
    },
    { id: 'mind_01jq3z5v7b8c9d0e1f2g3h4j5k', name: 'Ada Lovelace (Mind)' },
    'List of Minds and Chatbots',
  ),
};
