// Ask a Mind or Chatbot: a question in a new conversation (`POST …/conversations` with `message`)
// or, given a conversation id, in that one (`POST …/conversations/{id}/messages`), answered at
// once (docs/api.md §17). The result is the answer with its citations made easy to map: the text
// with and without its [n] markers, the cited sources and URLs as lists and as one text, the
// citations as line items, and the conversation id to continue with.
'use strict';

const { url, owner } = require('../lore');

const distinct = (values) => [...new Set(values.filter((v) => typeof v === 'string' && v.length > 0))];

// The answer as a Zapier item. `message` is the assistant's answer, or, in a conversation a
// person has taken over (hand-off), the stored question that nobody answers here.
const result = (target, question, conversationId, message) => {
  const citations = (message.citations || []).map((c) => ({
    index: c.index,
    sourceId: c.sourceId,
    sourceName: c.sourceName,
    sourceType: c.sourceType,
    url: c.url === undefined ? null : c.url,
    quote: c.quote,
  }));
  const indexes = new Set(citations.map((c) => c.index));
  const answered = message.role !== 'user';
  const content = answered ? message.content : '';
  // Only the markers that name a citation: "[2019]" in the text stays.
  const plain = content
    .replace(/[ \t]*\[(\d+)\]/g, (marker, n) => (indexes.has(Number(n)) ? '' : marker))
    .trim();
  return {
    id: message.id,
    conversationId,
    [target.kind === 'mind' ? 'mindId' : 'chatbotId']: target.id,
    question,
    answer: content,
    answerText: plain,
    // Lore's own flag (false: nothing in the knowledge matched); older servers: cited or not.
    answered: answered && (typeof message.answered === 'boolean' ? message.answered : citations.length > 0),
    waitingForPerson: !answered,
    generatedBy: message.generatedBy === undefined ? null : message.generatedBy,
    model: message.model === undefined ? null : message.model,
    createdAt: message.createdAt,
    citationCount: citations.length,
    citationSources: distinct(citations.map((c) => c.sourceName)).join(', '),
    citationUrls: distinct(citations.map((c) => c.url)).join('\n'),
    citationsText: citations
      .map((c) => `[${c.index}] ${c.sourceName}${c.url ? ` (${c.url})` : ''}: "${c.quote}"`)
      .join('\n'),
    citations,
  };
};

const perform = async (z, bundle) => {
  const input = bundle.inputData;
  const target = owner(z, input.mindOrChatbotId);
  const question = String(input.question || '');
  const conversationId = String(input.conversationId || '').trim();
  if (conversationId) {
    const response = await z.request({
      url: url(bundle, `${target.path}/conversations/${encodeURIComponent(conversationId)}/messages`),
      method: 'POST',
      body: { content: question },
    });
    return result(target, question, conversationId, response.data.message);
  }
  const response = await z.request({
    url: url(bundle, `${target.path}/conversations`),
    method: 'POST',
    body: { message: question },
  });
  // [welcome message?, question, answer]: the answer is the last one.
  const { conversation, messages } = response.data;
  return result(target, question, conversation.id, messages[messages.length - 1]);
};

module.exports = {
  key: 'ask',
  noun: 'Answer',
  display: {
    label: 'Ask a Mind or Chatbot',
    description:
      'Asks a Mind or chatbot a question and returns its answer, with the sources it cites and the conversation id to ask a follow-up in.',
  },
  operation: {
    inputFields: [
      { key: 'mindOrChatbotId', label: 'Mind or chatbot', dynamic: 'mind_or_chatbot.id.name', required: true, helpText: 'Who answers, from their own knowledge.' },
      { key: 'question', label: 'Question', type: 'text', required: true, helpText: '1 to 4,000 characters.' },
      {
        key: 'conversationId',
        label: 'Conversation ID',
        required: false,
        helpText:
          'To continue a conversation (a follow-up such as "and to Germany?" is understood in context), the **Conversation ID** of an earlier answer. Leave empty to start a new conversation.',
      },
    ],
    perform,
    sample: {
      id: 'msg_01jq3z5v7b8c9d0e1f2g3h4j5m',
      conversationId: 'conv_01jq3z5v7b8c9d0e1f2g3h4j5k',
      chatbotId: 'cb_01jq3z5v7b8c9d0e1f2g3h4j5k',
      question: 'When are refunds paid?',
      answer: 'From what I know: Refunds are paid within fourteen days. [1]',
      answerText: 'From what I know: Refunds are paid within fourteen days.',
      answered: true,
      waitingForPerson: false,
      generatedBy: 'extractive',
      model: null,
      createdAt: '2026-05-01T12:00:00.123Z',
      citationCount: 1,
      citationSources: 'Refund policy',
      citationUrls: '',
      citationsText: '[1] Refund policy: "Refunds are paid within fourteen days."',
      citations: [
        {
          index: 1,
          sourceId: 'src_01jq3z5v7b8c9d0e1f2g3h4j5k',
          sourceName: 'Refund policy',
          sourceType: 'text',
          url: null,
          quote: 'Refunds are paid within fourteen days.',
        },
      ],
    },
    outputFields: [
      { key: 'id', label: 'Answer message ID' },
      { key: 'conversationId', label: 'Conversation ID' },
      { key: 'mindId', label: 'Mind ID' },
      { key: 'chatbotId', label: 'Chatbot ID' },
      { key: 'question', label: 'Question' },
      { key: 'answer', label: 'Answer (with [n] citation markers)' },
      { key: 'answerText', label: 'Answer text (without markers)' },
      { key: 'answered', label: 'Answered from knowledge', type: 'boolean' },
      { key: 'waitingForPerson', label: 'Waiting for a person (hand-off)', type: 'boolean' },
      { key: 'generatedBy', label: 'Generated by' },
      { key: 'citationCount', label: 'Number of citations', type: 'integer' },
      { key: 'citationSources', label: 'Cited sources' },
      { key: 'citationUrls', label: 'Cited URLs' },
      { key: 'citationsText', label: 'Citations (text)' },
      { key: 'citations[]index', label: 'Citation number' },
      { key: 'citations[]sourceName', label: 'Citation source name' },
      { key: 'citations[]sourceId', label: 'Citation source ID' },
      { key: 'citations[]url', label: 'Citation URL' },
      { key: 'citations[]quote', label: 'Citation quote' },
    ],
  },
};
