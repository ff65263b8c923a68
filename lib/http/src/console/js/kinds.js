// Chatbots and Minds share one set of views: what differs between them (their API paths, the
// names of their fields, their public page's prefix) is here. Pure: no DOM, so that node's
// tests can import it (tests/js/console_routes.test.mjs).

export const kinds = {
  chatbot: {
    plural: "Chatbots",
    list: "/api/v1/chatbots",
    member: "chatbots",
    one: "chatbot",
    base: (id) => `/api/v1/chatbots/${id}`,
    sources: (id) => `/api/v1/chatbots/${id}/sources`,
    process: (id, sid) => `/api/v1/chatbots/${id}/sources/${sid}/process`,
    chunks: (id, sid) => `/api/v1/chatbots/${id}/sources/${sid}/chunks`,
    search: (id) => `/api/v1/chatbots/${id}/knowledge/search`,
    instructions: "descriptor",
    failed: "error",
    page: "c",
  },
  mind: {
    plural: "Minds",
    list: "/api/v1/minds",
    member: "minds",
    one: "mind",
    base: (id) => `/api/v1/minds/${id}`,
    sources: (id) => `/api/v1/minds/${id}/knowledge`,
    process: (id, sid) => `/api/v1/minds/${id}/knowledge/${sid}/reprocess`,
    chunks: (id, sid) => `/api/v1/minds/${id}/knowledge/${sid}/chunks`,
    search: (id) => `/api/v1/minds/${id}/knowledge/search`,
    instructions: "systemPrompt",
    failed: "failed",
    page: "m",
  },
};

/** Whether a source in this status is still being worked on (its view polls until it is not). */
export const busy = (status) => status === "pending" || status === "processing" || status === "transcribing";
