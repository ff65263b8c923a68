// The Lore app for Zapier (zapier-platform-core): API-key authentication, three REST-hook
// triggers and the hidden triggers behind their dropdowns. See README.md.
'use strict';

const authentication = require('./authentication');
const { addApiKey, loreErrors } = require('./lore');
const lists = require('./triggers/lists');
const { newFormResponse, sourceReady, newLead } = require('./triggers/events');

const triggers = [lists.form, lists.chatbot, lists.mind, newFormResponse, sourceReady, newLead];

module.exports = {
  version: require('./package.json').version,
  platformVersion: require('zapier-platform-core').version,
  authentication,
  beforeRequest: [addApiKey],
  afterResponse: [loreErrors],
  triggers: Object.fromEntries(triggers.map((t) => [t.key, t])),
};
