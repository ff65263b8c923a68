// The Lore app for Zapier (zapier-platform-core): API-key authentication, seven REST-hook
// triggers, the hidden triggers behind their dropdowns, and three actions. See README.md.
'use strict';

const authentication = require('./authentication');
const { addApiKey, loreErrors } = require('./lore');
const lists = require('./triggers/lists');
const {
  newFormResponse,
  sourceReady,
  newLead,
  newRating,
  handoffRequested,
  testRunCompleted,
  actionCalled,
} = require('./triggers/events');
const addKnowledgeSource = require('./creates/knowledge');
const ask = require('./creates/ask');
const submitFormResponse = require('./creates/forms');

const triggers = [
  lists.form,
  lists.formToAnswer,
  lists.chatbot,
  lists.mind,
  lists.mindOrChatbot,
  newFormResponse,
  sourceReady,
  newLead,
  newRating,
  handoffRequested,
  testRunCompleted,
  actionCalled,
];
const creates = [addKnowledgeSource, ask, submitFormResponse];

module.exports = {
  version: require('./package.json').version,
  platformVersion: require('zapier-platform-core').version,
  authentication,
  beforeRequest: [addApiKey],
  afterResponse: [loreErrors],
  triggers: Object.fromEntries(triggers.map((t) => [t.key, t])),
  creates: Object.fromEntries(creates.map((c) => [c.key, c])),
};
