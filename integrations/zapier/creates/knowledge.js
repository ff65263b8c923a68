// Add Knowledge Source: a text or a web page (URL) added to a chatbot or a Mind, and processing
// started. A chatbot's source is created (`POST …/sources`) and then queued (`POST
// …/sources/{id}/process`); a Mind queues its new source itself (`POST …/knowledge`, docs/api.md
// §6 and §9). The answer is the source as Lore returns it, usually `processing`: the Knowledge
// Source Ready trigger (chatbots) or the source's detail says when it is `ready`.
'use strict';

const { url, owner, errorParts } = require('../lore');

// Which fields a type needs: the text, or the address and how deep to follow its links.
const byType = (z, bundle) =>
  bundle.inputData.type === 'url'
    ? [
        { key: 'url', label: 'URL', required: true, helpText: 'The web page to read, http(s).' },
        {
          key: 'crawlDepth',
          label: 'Crawl depth',
          type: 'integer',
          required: false,
          helpText:
            '1 (the default) reads the page itself; 2 to 5 also follow links to pages of the same site, up to that many hops minus one.',
        },
      ]
    : [{ key: 'content', label: 'Text', type: 'text', required: true, helpText: 'The text itself (at most 100,000 characters).' }];

const perform = async (z, bundle) => {
  const input = bundle.inputData;
  const target = owner(z, input.mindOrChatbotId);
  const type = input.type || 'text';
  const body = { type };
  if (input.name) body.name = input.name;
  if (type === 'url') {
    body.url = input.url;
    if (input.crawlDepth !== undefined && input.crawlDepth !== null && input.crawlDepth !== '') {
      body.crawlDepth = Number(input.crawlDepth);
    }
  } else {
    body.content = input.content;
  }

  if (target.kind === 'mind') {
    const created = await z.request({ url: url(bundle, `${target.path}/knowledge`), method: 'POST', body });
    return created.data.source;
  }
  const created = await z.request({ url: url(bundle, `${target.path}/sources`), method: 'POST', body });
  const source = created.data.source;
  try {
    const queued = await z.request({
      url: url(bundle, `${target.path}/sources/${encodeURIComponent(source.id)}/process`),
      method: 'POST',
    });
    return queued.data.source;
  } catch (e) {
    // The source exists: say which, so that nobody adds it twice to retry.
    const { message, code, status } = errorParts(e);
    throw new z.errors.Error(
      `The source ${source.id} was added but processing did not start: ${message}`,
      code || 'ProcessingNotStarted',
      status,
    );
  }
};

module.exports = {
  key: 'add_knowledge_source',
  noun: 'Knowledge Source',
  display: {
    label: 'Add Knowledge Source',
    description:
      'Adds a text or a web page to the knowledge of a chatbot or a Mind, and starts processing it (it can be searched once ready).',
  },
  operation: {
    inputFields: [
      { key: 'mindOrChatbotId', label: 'Mind or chatbot', dynamic: 'mind_or_chatbot.id.name', required: true, helpText: 'Whose knowledge the source joins.' },
      {
        key: 'type',
        label: 'Type',
        required: true,
        default: 'text',
        choices: { text: 'Text', url: 'Web page (URL)' },
        altersDynamicFields: true,
        helpText: 'A text you give here, or a web page Lore reads (and, with a crawl depth, the pages it links to).',
      },
      { key: 'name', label: 'Name', required: false, helpText: 'Shown in citations. Default: "Untitled text" for a text, the URL for a web page.' },
      byType,
    ],
    perform,
    sample: {
      id: 'src_01jq3z5v7b8c9d0e1f2g3h4j5k',
      chatbotId: 'cb_01jq3z5v7b8c9d0e1f2g3h4j5k',
      type: 'text',
      name: 'Refund policy',
      status: 'processing',
      createdAt: '2026-05-01T12:00:00.123Z',
      updatedAt: '2026-05-01T12:00:00.456Z',
      processedAt: null,
      chunkCount: 0,
      sizeBytes: 38,
      error: null,
      contentHash: null,
      progress: { stage: 'queued', done: 0, total: 0 },
      content: 'Refunds are paid within fourteen days.',
    },
    outputFields: [
      { key: 'id', label: 'Source ID' },
      { key: 'chatbotId', label: 'Chatbot ID' },
      { key: 'mindId', label: 'Mind ID' },
      { key: 'type', label: 'Type' },
      { key: 'name', label: 'Name' },
      { key: 'status', label: 'Status' },
      { key: 'url', label: 'URL' },
      { key: 'createdAt', label: 'Created at' },
    ],
  },
};
