// Webhooks: subscribing a receiver to an event, the subscriptions, and one subscription's
// health, actions (test, replay, rotate the secret, unsubscribe) and deliveries (polled while
// any is pending).

import { api, attempt } from "./api.js";
import { announce, el, field, fill, showSecret } from "./dom.js";
import { when } from "./format.js";
import { layout } from "./shell.js";
import { later } from "./state.js";

const HOOKS = "/api/integrations/webhooks";
const EVENTS = [
  "form_response",
  "knowledge.source.*",
  "knowledge.source.created",
  "knowledge.source.ready",
  "knowledge.source.error",
  "knowledge.source.deleted",
  "knowledge.source.refreshed",
  "mind.lead.captured",
  "chatbot.lead.captured",
  "message.rated",
  "conversation.handoff_requested",
  "privacy.visitor.erased",
  "tests.run.completed",
  "conversation.action.called",
];

export async function webhooksView() {
  const url = el("input", { type: "url", required: true, placeholder: "https://hooks.example.com/lore" });
  const event = el("select", {}, EVENTS.map((e) => el("option", { value: e }, e)));
  const secret = el("div", { "aria-live": "polite" });
  const form = el("form", { class: "card", "aria-label": "New subscription" }, el("h2", {}, "Subscribe"), field("Receiver address", url), field("Event", event), el("button", { type: "submit", class: "primary" }, "Subscribe"), secret);
  const list = el("div", {}, "Loading…");
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const made = await attempt(() => api("POST", `${HOOKS}/triggers/subscribe`, { hookUrl: url.value.trim(), event: event.value }));
    if (!made) return;
    showSecret(secret, made.secret, "Signing secret");
    announce("Subscribed.");
    url.value = "";
    load();
  });
  layout("Webhooks", el("h1", {}, "Webhooks"), el("p", {}, "Signed deliveries of this workspace's events to your receivers (Standard Webhooks), retried on failure."), form, el("h2", {}, "Subscriptions"), list);
  async function load() {
    const data = await attempt(() => api("GET", `${HOOKS}/triggers/subscribe?limit=100`));
    if (!data) return fill(list, el("p", { class: "empty" }, "Webhooks need a key with webhooks:write."));
    if (!data.hooks.length) return fill(list, el("p", { class: "empty" }, "No subscriptions yet."));
    fill(
      list,
      el(
        "table",
        { class: "hooks" },
        el("caption", { class: "sr" }, "Subscriptions"),
        el("thead", {}, el("tr", {}, ["Receiver", "Event", "Status", "Failures in a row", "Created"].map((h) => el("th", { scope: "col" }, h)))),
        el(
          "tbody",
          {},
          data.hooks.map((h) =>
            el(
              "tr",
              { "data-hook": h.hookId },
              el("th", { scope: "row" }, el("a", { href: `#/webhooks/${h.hookId}` }, h.hookUrl)),
              el("td", { "data-label": "Event" }, h.event),
              el("td", { "data-label": "Status" }, el("span", { class: `badge ${h.status === "active" ? "ready" : "failed"}` }, h.status)),
              el("td", { class: "num", "data-label": "Failures in a row" }, h.consecutiveFailures),
              el("td", { "data-label": "Created" }, when(h.createdAt)),
            ),
          ),
        ),
      ),
    );
  }
  load();
}


export async function hookView(hookId) {
  const main = layout("Subscription", el("p", { class: "crumbs" }, el("a", { href: "#/webhooks" }, "Webhooks"), " / subscription"), el("h1", {}, "Subscription"));
  const health = el("div", {}, "Loading…");
  const secret = el("div", { "aria-live": "polite" });
  const deliveries = el("div", {}, "Loading…");
  const action = (label, method, path, body, done) =>
    el("button", { type: "button", onclick: async () => { const r = await attempt(() => api(method, path, body)); if (r) { done(r); load(); } } }, label);
  const base = `${HOOKS}/triggers/subscribe/${hookId}`;
  const actions = el(
    "div",
    { class: "row" },
    action("Send a test event", "POST", `${base}/test`, undefined, () => announce("Test event sent.")),
    action("Replay failed deliveries (last 24 h)", "POST", `${base}/replay`, { since: new Date(Date.now() - 864e5).toISOString() }, (r) => announce(`${r.replayed} deliveries sent again.`)),
    action("Rotate secret", "POST", `${base}/rotate-secret`, undefined, (r) => showSecret(secret, r.secret, `New secret (the old one signs too until ${when(r.previousSecretExpiresAt)})`)),
    el("button", { type: "button", class: "danger", onclick: async () => { if (confirm("Unsubscribe? Deliveries stop at once.") && (await attempt(() => api("DELETE", base)))) { announce("Unsubscribed."); location.hash = "#/webhooks"; } } }, "Unsubscribe"),
  );
  main.append(health, actions, secret, el("h2", {}, "Deliveries"), deliveries);
  async function load() {
    const h = await attempt(() => api("GET", base));
    if (!h) return fill(health, el("p", {}, "This subscription no longer exists."));
    const k = h.hook;
    fill(
      health,
      el(
        "dl",
        { class: "facts" },
        el("dt", {}, "Receiver"), el("dd", {}, k.hookUrl),
        el("dt", {}, "Event"), el("dd", {}, k.event),
        el("dt", {}, "Status"), el("dd", {}, el("span", { class: `badge ${k.status === "active" ? "ready" : "failed"}` }, k.status)),
        el("dt", {}, "Last success"), el("dd", {}, when(k.lastSuccessAt)),
        el("dt", {}, "Last failure"), el("dd", {}, when(k.lastFailureAt)),
        el("dt", {}, "Being attempted"), el("dd", {}, k.pendingDeliveries),
      ),
    );
    const data = await attempt(() => api("GET", `${HOOKS}/deliveries?hookId=${hookId}&limit=50`));
    if (!data) return;
    if (!data.deliveries.length) return fill(deliveries, el("p", { class: "empty" }, "No deliveries yet."));
    fill(
      deliveries,
      el(
        "ol",
        { class: "cards" },
        data.deliveries.map((d) =>
          el(
            "li",
            { class: "card", "data-delivery": d.id },
            el("div", { class: "meta" }, `${d.eventType} · ${when(d.createdAt)} · `, el("span", { class: `badge ${d.status === "succeeded" ? "ready" : d.status}` }, d.status), d.nextAttemptAt ? ` · next attempt ${when(d.nextAttemptAt)}` : ""),
            el("ol", { class: "attempts" }, d.attempts.map((a) => el("li", {}, `${when(a.at)}: ${a.statusCode ?? "no answer"}${a.error ? ` (${a.error})` : ""}, ${a.durationMs} ms`))),
            action("Redeliver", "POST", `${HOOKS}/deliveries/${d.id}/redeliver`, undefined, () => announce("Sent again.")),
          ),
        ),
      ),
    );
    if (data.deliveries.some((d) => d.status === "pending")) later(load, 1500);
  }
  load();
}
