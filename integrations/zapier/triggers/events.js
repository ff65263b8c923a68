// The REST-hook triggers: New Form Response, Knowledge Source Ready, New Lead, New Rating,
// Hand-off Requested, Test Run Completed and Action Called.
'use strict';

const { hookOperation, owner } = require('../lore');

// Only the narrowing the user chose: an empty dropdown means "all".
const only = (name) => (input) => (input[name] ? { [name]: input[name] } : {});

// One dropdown of Minds and chatbots narrows to either: `mindId` or `chatbotId` by the id's kind.
const byMindOrChatbot = (input, z) => (input.mindOrChatbotId ? owner(z, input.mindOrChatbotId).narrow : {});
const mindOrChatbotField = {
  key: 'mindOrChatbotId',
  label: 'Mind or chatbot',
  dynamic: 'mind_or_chatbot.id.name',
  required: false,
  helpText: 'Leave empty for every Mind and chatbot.',
};

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

const newRating = {
  key: 'new_rating',
  noun: 'Rating',
  display: {
    label: 'New Rating',
    description:
      'Triggers when an answer of a Mind or chatbot is rated thumbs up or down (by a visitor, or through the API). A new rating of the same answer triggers again.',
  },
  operation: Object.assign(
    { inputFields: [mindOrChatbotField] },
    hookOperation({
      event: 'message.rated',
      narrow: byMindOrChatbot,
      sample: {
        eventType: 'message.rated',
        eventId: 'evt_01jq3z5v7b8c9d0e1f2g3h4j5k',
        createdAt: '2026-05-01T12:00:00.123Z',
        data: {
          chatbotId: 'cb_01jq3z5v7b8c9d0e1f2g3h4j5k',
          conversationId: 'conv_01jq3z5v7b8c9d0e1f2g3h4j5k',
          messageId: 'msg_01jq3z5v7b8c9d0e1f2g3h4j5k',
          rating: 'down',
          comment: 'The refund period is wrong.',
        },
        metadata: {},
      },
    }),
  ),
};

const handoffRequested = {
  key: 'handoff_requested',
  noun: 'Hand-off',
  display: {
    label: 'Hand-off Requested',
    description:
      'Triggers when a conversation with a Mind or chatbot is handed to a person ("Talk to a person", or through the API). Reply with the conversation id through the Lore API.',
  },
  operation: Object.assign(
    { inputFields: [mindOrChatbotField] },
    hookOperation({
      event: 'conversation.handoff_requested',
      narrow: byMindOrChatbot,
      sample: {
        eventType: 'conversation.handoff_requested',
        eventId: 'evt_01jq3z5v7b8c9d0e1f2g3h4j5k',
        createdAt: '2026-05-01T12:00:00.123Z',
        data: {
          mindId: 'mind_01jq3z5v7b8c9d0e1f2g3h4j5k',
          conversationId: 'conv_01jq3z5v7b8c9d0e1f2g3h4j5k',
          visitor: { email: 'visitor@example.com', name: 'Ada Lovelace', userId: null },
          reason: 'I would like to talk to a person.',
        },
        metadata: {},
      },
    }),
  ),
};

const testRunCompleted = {
  key: 'test_run_completed',
  noun: 'Test Run',
  display: {
    label: 'Test Run Completed',
    description:
      'Triggers when a run of the answer tests of a Mind or chatbot finishes, with how many passed, failed and regressed (passed last time, failed now).',
  },
  operation: Object.assign(
    { inputFields: [mindOrChatbotField] },
    hookOperation({
      event: 'tests.run.completed',
      narrow: byMindOrChatbot,
      sample: {
        eventType: 'tests.run.completed',
        eventId: 'evt_01jq3z5v7b8c9d0e1f2g3h4j5k',
        createdAt: '2026-05-01T12:00:00.123Z',
        data: {
          chatbotId: 'cb_01jq3z5v7b8c9d0e1f2g3h4j5k',
          runId: 'run_01jq3z5v7b8c9d0e1f2g3h4j5k',
          total: 12,
          passed: 10,
          failed: 2,
          regressions: 1,
        },
        metadata: {},
      },
    }),
  ),
};

const actionCalled = {
  key: 'action_called',
  noun: 'Action Call',
  display: {
    label: 'Action Called',
    description:
      'Triggers when a Mind or chatbot calls one of its actions (an HTTP endpoint of yours) while answering a question, with whether the call succeeded.',
  },
  operation: Object.assign(
    { inputFields: [mindOrChatbotField] },
    hookOperation({
      event: 'conversation.action.called',
      narrow: byMindOrChatbot,
      sample: {
        eventType: 'conversation.action.called',
        eventId: 'evt_01jq3z5v7b8c9d0e1f2g3h4j5k',
        createdAt: '2026-05-01T12:00:00.123Z',
        data: {
          chatbotId: 'cb_01jq3z5v7b8c9d0e1f2g3h4j5k',
          conversationId: 'conv_01jq3z5v7b8c9d0e1f2g3h4j5k',
          messageId: 'msg_01jq3z5v7b8c9d0e1f2g3h4j5k',
          actionId: 'act_01jq3z5v7b8c9d0e1f2g3h4j5k',
          name: 'lookup_order',
          status: 'ok',
        },
        metadata: {},
      },
    }),
  ),
};

module.exports = { newFormResponse, sourceReady, newLead, newRating, handoffRequested, testRunCompleted, actionCalled };
