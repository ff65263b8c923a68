// The workspace's privacy page (docs/api.md §22): a person's conversations erased (after a
// confirmation that names them, then the counts deleted, from the erase's answer) or exported
// as a JSON download, and the audit log — who changed keys, assistants, sources, webhooks, who
// erased and who exported — with its action filter and "More" paging. Everything the API
// answers is shown as text (`el`), never as HTML.

import { api, attempt, download } from "./api.js";
import { announce, el, field, fill } from "./dom.js";
import { when } from "./format.js";
import { layout } from "./shell.js";
import { can } from "./state.js";

/** The audit log's actions, as the API names them (GET /api/v1/audit?action=…). */
export const AUDIT_ACTIONS = [
  "key.created",
  "key.revoked",
  "chatbot.created",
  "chatbot.updated",
  "chatbot.deleted",
  "chatbot.published",
  "mind.created",
  "mind.updated",
  "mind.deleted",
  "mind.published",
  "source.deleted",
  "identity_secret.created",
  "webhook.subscribed",
  "webhook.unsubscribed",
  "webhook.secret_rotated",
  "privacy.erased",
  "conversation.exported",
];

const PAGE = 50;

/** An entry's details as one line of text: `name: Support · fields: welcomeMessage, theme`. */
export const detailsText = (details) =>
  Object.entries(details || {})
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(", ") : typeof v === "object" && v !== null ? JSON.stringify(v) : v}`)
    .join(" · ");

/** The query naming a person: `email=…` or `userId=…`. */
const personQuery = (by, value) => `${by}=${encodeURIComponent(value)}`;

export function privacyView() {
  const main = layout("Privacy", el("h1", {}, "Privacy"), el("p", {}, "A person's conversations across every chatbot and Mind of this workspace, exported or erased on their request, and the workspace's audit log (kept 365 days)."));
  if (!can("workspace:admin")) {
    main.append(el("p", { class: "empty" }, "The privacy page needs a key with workspace:admin."));
    return;
  }
  main.append(personSection(), auditSection());
}

function personSection() {
  const by = el("select", {}, el("option", { value: "email" }, "E-mail address"), el("option", { value: "userId" }, "Verified user id"));
  const who = el("input", { type: "text", required: true, autocomplete: "off", spellcheck: "false", placeholder: "ada@example.com" });
  const result = el("div", { "aria-live": "polite", class: "erased" });
  const person = () => ({ by: by.value, value: who.value.trim() });
  const exportButton = el("button", { type: "button", onclick: async () => {
    const p = person();
    if (!p.value) return announce("Name the person first.", "error");
    await download(`/api/v1/privacy/export?${personQuery(p.by, p.value)}`, "lore-person-export.json");
  } }, "Export as JSON");
  const form = el(
    "form",
    { class: "card", "aria-labelledby": "person-title" },
    el("h2", { id: "person-title" }, "A person's data"),
    el("p", { class: "meta" }, "Their conversations are found by the e-mail address they gave (in any case) or the user id your site verified."),
    el("div", { class: "row" }, field("Find them by", by), field("Who", who)),
    el("div", { class: "row" }, exportButton, el("button", { type: "submit", class: "danger" }, "Erase…")),
    result,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const p = person();
    if (!p.value) return announce("Name the person first.", "error");
    // Nothing is read before asking: an export would be audited as one. The counts come with
    // the erase's answer.
    const named = p.by === "email" ? `the e-mail address ${p.value}` : `the user id ${p.value}`;
    if (!confirm(`Erase everything Lore keeps about ${named}? Every conversation of this person across every chatbot and Mind of the workspace is deleted, with its messages, and this cannot be undone.`)) return;
    const done = await attempt(() => api("POST", "/api/v1/privacy/erase", { [p.by]: p.value }));
    if (!done) return;
    const said = `Erased ${done.erased.conversations} conversation${done.erased.conversations === 1 ? "" : "s"} and ${done.erased.messages} message${done.erased.messages === 1 ? "" : "s"} of ${p.value}.`;
    fill(result, el("p", { class: "done" }, said));
    announce(said);
    who.value = "";
    document.dispatchEvent(new CustomEvent("lore:audit-changed"));
  });
  return form;
}

function auditSection() {
  const filter = el("select", {}, el("option", { value: "" }, "Every action"), AUDIT_ACTIONS.map((a) => el("option", { value: a }, a)));
  const body = el("tbody", {});
  const summary = el("p", { class: "meta", "aria-live": "polite" });
  const more = el("button", { type: "button", hidden: true }, "More");
  const table = el(
    "table",
    { class: "audit" },
    el("caption", { class: "sr" }, "Audit log, newest first"),
    el("thead", {}, el("tr", {}, ["When", "Action", "Target", "Key", "Details"].map((h) => el("th", { scope: "col" }, h)))),
    body,
  );
  let page = 0;
  let shown = 0;
  async function load(next) {
    page = next ? page + 1 : 1;
    const action = filter.value ? `&action=${encodeURIComponent(filter.value)}` : "";
    const data = await attempt(() => api("GET", `/api/v1/audit?limit=${PAGE}&page=${page}${action}`));
    if (!data) return;
    const rows = data.entries.map((e) =>
      el(
        "tr",
        { "data-audit": e.id },
        el("td", { "data-label": "When" }, when(e.at)),
        el("th", { scope: "row", "data-label": "Action" }, el("code", {}, e.action)),
        el("td", { "data-label": "Target" }, el("code", {}, e.targetId)),
        el("td", { "data-label": "Key" }, e.keyId ? el("code", {}, e.keyId) : "CLI or Lore"),
        el("td", { "data-label": "Details", class: "details" }, detailsText(e.details)),
      ),
    );
    if (next) body.append(...rows);
    else fill(body, rows);
    shown = next ? shown + rows.length : rows.length;
    const total = data.pagination.total;
    summary.textContent = total ? `${shown} of ${total} entries.` : "No entries.";
    more.hidden = shown >= total;
  }
  filter.addEventListener("change", () => load(false));
  more.addEventListener("click", () => load(true));
  document.addEventListener("lore:audit-changed", () => load(false));
  load(false);
  return el("section", { "aria-labelledby": "audit-title" }, el("h2", { id: "audit-title" }, "Audit log"), el("div", { class: "row" }, field("Action", filter)), table, summary, more);
}
