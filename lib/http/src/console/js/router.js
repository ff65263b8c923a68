// The console's addresses (#/…) and the views they name. Pure: no DOM, so that node's tests can
// import it (tests/js/console_routes.test.mjs).
//
//   #/chatbots, #/minds                          the list
//   #/chatbots/{id}, #/minds/{id}                one chatbot or Mind: its first section
//   #/{kind}s/{id}/{section}                     one of its SECTIONS (settings, publish, …)
//   #/{kind}s/{id}/sources/{sourceId}            a source's chunks
//   #/{kind}s/{id}/conversations/{id}            a conversation
//   #/webhooks, #/webhooks/{hookId}              subscriptions, one subscription
//   #/workspace                                  usage and keys
//   #/privacy                                    a person erased or exported, the audit log

/** The sections of a chatbot's or Mind's page, in the order of its navigation: [path, title].
 * The first is the one `#/{kind}s/{id}` opens. */
export const SECTIONS = [
  ["knowledge", "Knowledge"],
  ["search", "Search"],
  ["settings", "Settings"],
  ["publish", "Publish"],
  ["conversations", "Conversations"],
  ["analytics", "Analytics"],
  ["tests", "Tests"],
  ["actions", "Actions"],
  ["channels", "Channels"],
];

/** The address of a section of a chatbot's or Mind's page. */
export const sectionHref = (kind, id, section) => `#/${kind}s/${id}/${section}`;

/** The view `hash` names: {view, …its parameters}, or {view: "redirect", to} for an address
 * that names none (the console goes there instead). */
export function parseRoute(hash) {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  if (parts[0] === "webhooks") return parts[1] ? { view: "hook", hookId: parts[1] } : { view: "webhooks" };
  if (parts[0] === "workspace") return { view: "workspace" };
  if (parts[0] === "privacy") return { view: "privacy" };
  const kind = { chatbots: "chatbot", minds: "mind" }[parts[0]];
  if (!kind) return { view: "redirect", to: "#/chatbots" };
  if (parts.length === 1) return { view: "list", kind };
  if (parts.length === 2) return { view: "owner", kind, id: parts[1], section: SECTIONS[0][0] };
  if (parts.length === 3 && SECTIONS.some(([s]) => s === parts[2])) return { view: "owner", kind, id: parts[1], section: parts[2] };
  if (parts.length === 3) return { view: "redirect", to: `#/${parts[0]}/${parts[1]}` };
  if (parts[2] === "sources" && parts[3]) return { view: "chunks", kind, id: parts[1], sourceId: parts[3] };
  if (parts[2] === "conversations" && parts[3]) return { view: "transcript", kind, id: parts[1], conversationId: parts[3] };
  return { view: "redirect", to: `#/${parts[0]}` };
}
