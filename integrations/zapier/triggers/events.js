// The three REST-hook triggers: New Form Response, Knowledge Source Ready and New Lead.
'use strict';

const { hookOperation } = require('../lore');

// Only the narrowing the user chose: an empty dropdown means "all".
const only = (name) => (input) => (input[name] ? { [name]: input[name] } : {});

const newFormResponse = {
  key: 'new_form_response',
  noun: 'Form Response',
  display: {
    label: 'New Form Response',
    description: 'Triggers when a Lore form is answered (directly, through an embed, or by a chatbot).',
  },
  operation: Object.assign(
    {
      inputFields: [
        { key: 'formId', label: 'Form', dynamic: 'form.id.name', required: false, helpText: 'Leave empty, or choose "All forms", for every form.' },
      ],
    },
    hookOperation({
      event: 'form_response',
      narrow: only('formId'),
      sample: {
        eventType: 'form_response',
        eventId: 'evt_01jq3z5v7b8c9d0e1f2g3h4j5k',
        createdAt: '2026-05-01T12:00:00.123Z',
        data: {
          formId: 'form_01jq3z5v7b8c9d0e1f2g3h4j5k',
          formName: 'Contact us',
          responseId: 'resp_01jq3z5v7b8c9d0e1f2g3h4j5k',
          fields: [{ key: 'email', label: 'E-mail', type: 'email', value: 'jane.doe@example.com' }],
        },
        metadata: { source: 'direct' },
      },
    }),
  ),
};

const sourceReady = {
  key: 'knowledge_source_ready',
  noun: 'Knowledge Source',
  display: {
    label: 'Knowledge Source Ready',
    description: 'Triggers when a knowledge source of a chatbot has been processed and can be searched.',
  },
  operation: Object.assign(
    {
      inputFields: [
        { key: 'chatbotId', label: 'Chatbot', dynamic: 'chatbot.id.name', required: false, helpText: 'Leave empty for every chatbot.' },
      ],
    },
    hookOperation({
      event: 'knowledge.source.ready',
      narrow: only('chatbotId'),
      sample: {
        eventType: 'knowledge.source.ready',
        eventId: 'evt_01jq3z5v7b8c9d0e1f2g3h4j5k',
        createdAt: '2026-05-01T12:00:00.123Z',
        data: {
          sourceId: 'src_01jq3z5v7b8c9d0e1f2g3h4j5k',
          sourceName: 'Refund policy',
          sourceType: 'text',
          chatbotId: 'cb_01jq3z5v7b8c9d0e1f2g3h4j5k',
          status: 'ready',
          chunkCount: 3,
        },
        metadata: {},
      },
    }),
  ),
};

const newLead = {
  key: 'new_lead',
  noun: 'Lead',
  display: {
    label: 'New Lead',
    description: 'Triggers when a visitor leaves their e-mail address to chat with one of your published Minds.',
  },
  operation: Object.assign(
    {
      inputFields: [
        { key: 'mindId', label: 'Mind', dynamic: 'mind.id.name', required: false, helpText: 'Leave empty for every Mind.' },
      ],
    },
    hookOperation({
      event: 'mind.lead.captured',
      narrow: only('mindId'),
      sample: {
        eventType: 'mind.lead.captured',
        eventId: 'evt_01jq3z5v7b8c9d0e1f2g3h4j5k',
        createdAt: '2026-05-01T12:00:00.123Z',
        data: {
          mindId: 'mind_01jq3z5v7b8c9d0e1f2g3h4j5k',
          conversationId: 'conv_01jq3z5v7b8c9d0e1f2g3h4j5k',
          email: 'visitor@example.com',
          name: 'Ada Lovelace',
        },
        metadata: {},
      },
    }),
  ),
};

module.exports = { newFormResponse, sourceReady, newLead };
