// Submit Form Response: answers one Lore form (`POST /api/v1/forms/{formId}/responses`, docs/api.md
// §11), which stores the response and sends its `form_response` event like any other. The form's
// fields become the step's fields (read from `GET /api/v1/forms/{formId}`), typed as Lore checks
// them; each answer is sent as the JSON type its field takes (numbers and ratings as numbers,
// checkboxes as a list, dates as YYYY-MM-DD). Lore's validation message names any answer it
// refuses (`values.<key>: …`).
'use strict';

const { url } = require('../lore');

// Answers are input fields `answer_<field key>`: never the same as `formId`, whatever the keys.
const PREFIX = 'answer_';

const getForm = async (z, bundle, formId) =>
  (await z.request({ url: url(bundle, `/api/v1/forms/${encodeURIComponent(formId)}`) })).data.form;

// One input field per form field (system fields are Lore's own).
const answerField = (field) => {
  const input = { key: `${PREFIX}${field.key}`, label: field.label, required: Boolean(field.required) };
  const options = Array.isArray(field.options) ? field.options : null;
  switch (field.type) {
    case 'long_text':
      return Object.assign(input, { type: 'text' });
    case 'number':
      return Object.assign(input, { type: 'number' });
    case 'rating':
      return Object.assign(input, { type: 'integer', helpText: `A whole number from 1 to ${field.max || 5}.` });
    case 'date':
      return Object.assign(input, { type: 'datetime', helpText: 'A day; sent as YYYY-MM-DD.' });
    case 'email':
      return Object.assign(input, { helpText: 'An e-mail address.' });
    case 'phone':
      return Object.assign(input, { helpText: '7 to 15 digits, optionally with a leading +, spaces, -, ., ( and ).' });
    case 'dropdown':
    case 'multiple_choice':
      return Object.assign(input, options ? { choices: options } : {}, { helpText: 'One of the options, exactly.' });
    case 'checkboxes':
      return Object.assign(input, { list: true }, options ? { choices: options } : {}, { helpText: 'Any of the options, each once.' });
    case 'file':
    case 'signature':
      return Object.assign(input, { helpText: 'The address (http or https) of the file.' });
    default:
      return input;
  }
};

const answerFields = async (z, bundle) => {
  const formId = bundle.inputData.formId;
  if (!formId) return [];
  const form = await getForm(z, bundle, formId);
  return form.fields.filter((f) => f.type !== 'system').map(answerField);
};

const blank = (v) => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);

// A Zapier value as the JSON Lore expects for the field's type. What cannot be converted goes
// as it is, for Lore to refuse with the field's name.
const asJson = (type, value) => {
  switch (type) {
    case 'number':
    case 'rating': {
      if (typeof value !== 'string') return value;
      const n = Number(value.trim());
      return value.trim() !== '' && Number.isFinite(n) ? n : value;
    }
    case 'checkboxes':
      if (Array.isArray(value)) return value.map((v) => String(v).trim()).filter((v) => v !== '');
      return String(value)
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '');
    case 'date': {
      // Zapier's dates are ISO 8601 in the Zap's time zone: the day is their first ten characters.
      const day = /^(\d{4}-\d{2}-\d{2})/.exec(String(value).trim());
      return day ? day[1] : value;
    }
    default:
      return value;
  }
};

const perform = async (z, bundle) => {
  const input = bundle.inputData;
  if (!input.formId || input.formId === 'all') {
    throw new z.errors.Error('Choose one form: a response answers one form.', 'InvalidForm', 400);
  }
  const form = await getForm(z, bundle, input.formId);
  const types = Object.fromEntries(form.fields.map((f) => [f.key, f.type]));
  const values = {};
  for (const [key, value] of Object.entries(input)) {
    if (!key.startsWith(PREFIX) || blank(value)) continue;
    const field = key.slice(PREFIX.length);
    values[field] = asJson(types[field], value);
  }
  const response = await z.request({
    url: url(bundle, `/api/v1/forms/${encodeURIComponent(form.id)}/responses`),
    method: 'POST',
    body: { values },
  });
  return Object.assign({}, response.data.response, { formName: form.name, answers: values });
};

module.exports = {
  key: 'submit_form_response',
  noun: 'Form Response',
  display: {
    label: 'Submit Form Response',
    description:
      'Answers a Lore form. The response is stored and sent to the form\'s webhooks (and New Form Response triggers) like any other.',
  },
  operation: {
    inputFields: [
      {
        key: 'formId',
        label: 'Form',
        dynamic: 'form_to_answer.id.name',
        required: true,
        altersDynamicFields: true,
        helpText: 'The form to answer; its fields appear below once it is chosen.',
      },
      answerFields,
    ],
    perform,
    sample: {
      id: 'resp_01jq3z5v7b8c9d0e1f2g3h4j5k',
      formId: 'form_01jq3z5v7b8c9d0e1f2g3h4j5k',
      createdAt: '2026-05-01T12:00:00.123Z',
      formName: 'Contact us',
      answers: { name: 'Ada', email: 'jane.doe@example.com' },
    },
    outputFields: [
      { key: 'id', label: 'Response ID' },
      { key: 'formId', label: 'Form ID' },
      { key: 'formName', label: 'Form name' },
      { key: 'createdAt', label: 'Submitted at' },
    ],
  },
};
