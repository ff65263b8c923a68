// The Lore console (docs/console.md): an owner's view of chatbots, Minds, their knowledge, search
// and conversations, on the public API alone. The API key is exchanged once for a session cookie
// no script can read (api.js); signing out (or a 401) ends the session. No framework: views are
// functions that draw into <main> with the `el` helper (text always as text nodes, never HTML).
//
// This module starts the console and routes (#/… → a view); it holds the workspace's view (usage
// against limits, and keys). The others: state.js (who is signed in), api.js, dom.js,
// format.js, kinds.js, router.js, shell.js (sign-in and layout), and one module per view or
// part of one: owners.js, sources.js, search.js, settings.js, conversations.js, analytics.js,
// chunks.js, webhooks.js, privacy.js; words.js (what is said of conversations and the widget, pure) and
// markup.js (answers' Markdown, with the chat page's markdown.js).

import { api, attempt, onRefused } from "./api.js";
import { announce, el, field, fill, showSecret } from "./dom.js";
import { bytes, when } from "./format.js";
import { parseRoute } from "./router.js";
import { SIGNED_IN, layout, onSignedIn, resume, signInView, signOut } from "./shell.js";
import { can, clearTimers, state } from "./state.js";
import { listView, ownerView } from "./owners.js";
import { chunksView } from "./chunks.js";
import { transcriptView } from "./conversations.js";
import { hookView, webhooksView } from "./webhooks.js";
import { privacyView } from "./privacy.js";

// ---- Workspace: usage against limits, and keys ------------------------------------------------

const SCOPES = [
  ["chatbot:read", "read chatbots"],
  ["chatbot:write", "create, change and delete chatbots"],
  ["knowledge:read", "read chatbot sources and chunks"],
  ["knowledge:write", "add, change and process chatbot sources"],
  ["knowledge:search", "search chatbot knowledge"],
  ["minds:read", "read Minds, their sources, search them"],
  ["minds:write", "create, change and publish Minds and their sources"],
  ["forms:read", "read forms and responses"],
  ["forms:write", "create forms, submit responses"],
  ["webhooks:write", "manage webhook subscriptions and deliveries"],
  ["chat:write", "hold conversations"],
  ["conversations:read", "read conversations (visitors' e-mail addresses)"],
  ["workspace:admin", "manage keys (can make a key with any scope)"],
];

async function workspaceView() {
  const usage = el("div", {}, "Loading…");
  const keys = el("section", { "aria-labelledby": "keys-title" });
  layout("Workspace", el("h1", {}, `Workspace ${state.session.workspace.name}`), el("h2", {}, "Usage"), usage, keys);
  const data = await attempt(() => api("GET", "/api/v1/workspace"));
  if (data) {
    const { limits: l, usage: u } = data;
    const meter = (label, used, limit, show = (n) => n) =>
      el(
        "div",
        { class: "usage" },
        el("span", { class: "label" }, label),
        el("meter", { min: 0, max: limit, value: Math.min(used, limit), high: limit * 0.8, optimum: 0, "aria-label": `${label}: ${show(used)} of ${show(limit)}` }),
        el("span", { class: "num" }, `${show(used)} of ${show(limit)}`),
      );
    fill(
      usage,
      el(
        "div",
        { class: "card" },
        meter("Storage", u.storageBytes, l.storageQuotaBytes, bytes),
        meter("Minds", u.minds, l.mindsLimit),
        meter("Mind sources", u.mindSources, l.sourcesLimit),
        meter("Active keys", u.activeKeys, l.keysLimit),
        meter("Webhook subscriptions", u.webhooks, l.webhooksLimit),
        el("p", { class: "meta" }, `${u.chatbots} chatbots · at most ${l.mindSourceLimit} sources per Mind · ${l.rateLimitPerMinute} requests a minute per key`),
      ),
    );
  }
  if (!can("workspace:admin")) {
    fill(keys, el("h2", { id: "keys-title" }, "Keys"), el("p", { class: "empty" }, "Managing keys needs a key with workspace:admin (the CLI's `lore keys create --scopes all` makes one)."));
    return;
  }
  keysSection(keys);
}

function keysSection(holder) {
  const name = el("input", { type: "text", maxlength: 100, placeholder: "Zapier" });
  const boxes = SCOPES.map(([scope, what]) => {
    const box = el("input", { type: "checkbox", value: scope, id: `scope-${scope.replace(":", "-")}` });
    return el("div", { class: "check" }, box, el("label", { for: box.id }, el("code", {}, scope), ` ${what}`));
  });
  const secret = el("div", { "aria-live": "polite" });
  const form = el(
    "form",
    { class: "card", "aria-label": "New key" },
    el("h3", {}, "Make a key"),
    field("Name", name),
    el("fieldset", { class: "scopes" }, el("legend", {}, "Scopes"), boxes),
    el("button", { type: "submit", class: "primary" }, "Make key"),
    secret,
  );
  const list = el("div", {}, "Loading…");
  fill(holder, el("h2", { id: "keys-title" }, "Keys"), form, list);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const scopes = boxes.map((b) => b.querySelector("input")).filter((b) => b.checked).map((b) => b.value);
    if (!scopes.length) return announce("Choose at least one scope.", "error");
    const body = { scopes };
    if (name.value.trim()) body.name = name.value.trim();
    const made = await attempt(() => api("POST", "/api/v1/keys", body));
    if (!made) return;
    showSecret(secret, made.secret, `Key "${made.key.name}"`);
    announce("Key made. Copy it now: it is not shown again.");
    name.value = "";
    boxes.forEach((b) => (b.querySelector("input").checked = false));
    load();
  });
  async function revoke(k) {
    const own = k.isCurrent ? " It is the key you are signed in with: you will be signed out." : "";
    if (!confirm(`Revoke "${k.name}"? Every client using it is refused from now on.${own}`)) return;
    const done = await attempt(() => api("DELETE", `/api/v1/keys/${k.id}`));
    if (!done) return;
    if (done.key.isCurrent) return signOut("You revoked the key you signed in with: signed out.");
    announce(`Revoked "${k.name}".`);
    load();
  }
  async function load() {
    const data = await attempt(() => api("GET", "/api/v1/keys?limit=100"));
    if (!data) return;
    fill(
      list,
      el(
        "table",
        { class: "keys" },
        el("caption", { class: "sr" }, "Keys"),
        el("thead", {}, el("tr", {}, ["Name", "Scopes", "Created", "Status", ""].map((h) => el("th", { scope: "col" }, h)))),
        el(
          "tbody",
          {},
          data.keys.map((k) =>
            el(
              "tr",
              { "data-key": k.id },
              el("th", { scope: "row" }, k.name, k.isCurrent ? el("span", { class: "badge ready" }, "this key") : null),
              el("td", { "data-label": "Scopes" }, el("span", { class: "scopes" }, k.scopes.join(", "))),
              el("td", { "data-label": "Created" }, when(k.createdAt)),
              el("td", { "data-label": "Status" }, k.revokedAt ? el("span", { class: "badge failed" }, `revoked ${when(k.revokedAt)}`) : el("span", { class: "badge ready" }, "active")),
              el("td", {}, k.revokedAt ? null : el("button", { type: "button", class: "danger", "aria-label": `Revoke ${k.name}`, onclick: () => revoke(k) }, "Revoke")),
            ),
          ),
        ),
      ),
    );
  }
  load();
}

// ---- Routing --------------------------------------------------------------------------------

function route() {
  clearTimers();
  if (!state.session) return signInView();
  const r = parseRoute(location.hash);
  switch (r.view) {
    case "webhooks":
      return webhooksView();
    case "hook":
      return hookView(r.hookId);
    case "workspace":
      return workspaceView();
    case "privacy":
      return privacyView();
    case "list":
      return listView(r.kind);
    case "owner":
      return ownerView(r.kind, r.id, r.section);
    case "chunks":
      return chunksView(r.kind, r.id, r.sourceId);
    case "transcript":
      return transcriptView(r.kind, r.id, r.conversationId);
    default:
      location.hash = r.to;
  }
}

onSignedIn(route);
onRefused(signOut);

window.addEventListener("hashchange", () => {
  route();
  const main = document.getElementById("main");
  if (main) main.focus({ preventScroll: true });
});

// A session of this browser may be open already (a reload, another tab): ask who it is.
(async function start() {
  try {
    resume(await api("GET", "/api/integrations/webhooks/auth/verify"));
  } catch (e) {
    const ended = sessionStorage.getItem(SIGNED_IN) && e.status === 401;
    sessionStorage.removeItem(SIGNED_IN);
    signInView(ended ? "Your session ended (its key was revoked, or 8 hours passed): sign in again." : e.status === 401 ? undefined : e.message);
  }
})();
