// The list of chatbots or Minds (with a form to make one), and one chatbot's or Mind's page in
// sections (router.js SECTIONS, each at its own address, with a navigation between them):
// knowledge, search playground, settings, publishing, conversations with corrections, analytics,
// tests, actions, channels.

import { api, attempt } from "./api.js";
import { el, field } from "./dom.js";
import { kinds } from "./kinds.js";
import { layout } from "./shell.js";
import { sourcesSection } from "./sources.js";
import { searchSection } from "./search.js";
import { publishSection, settingsSection } from "./settings.js";
import { SECTIONS, sectionHref } from "./router.js";
import { conversationsSection } from "./conversations.js";
import { analyticsSection, correctionsSection } from "./analytics.js";
import { testsSection } from "./tests.js";
import { actionsSection } from "./actions.js";
import { channelsSection } from "./channels.js";

export async function listView(kind) {
  const k = kinds[kind];
  const table = el("div", { class: "loading" }, "Loading…");
  const name = el("input", { type: "text", maxlength: 100, required: true });
  const create = el(
    "form",
    { class: "card inline", "aria-label": `New ${k.one}` },
    field("Name", name),
    el("button", { type: "submit", class: "primary" }, `Create ${k.one}`),
  );
  create.addEventListener("submit", async (e) => {
    e.preventDefault();
    const made = await attempt(() => api("POST", k.list, { name: name.value.trim() }));
    if (made) location.hash = `#/${kind}s/${made[k.one].id}`;
  });
  layout(k.plural, el("h1", {}, k.plural), create, table);
  const data = await attempt(() => api("GET", `${k.list}?limit=100`));
  if (!data) return;
  const items = data[k.member];
  if (!items.length) {
    table.replaceWith(el("p", { class: "empty" }, `No ${k.plural.toLowerCase()} yet: create one above.`));
    return;
  }
  table.replaceWith(
    el(
      "table",
      {},
      el("caption", { class: "sr" }, k.plural),
      el("thead", {}, el("tr", {}, ["Name", "Slug", "Sources", "Conversations", "Published"].map((h) => el("th", { scope: "col" }, h)))),
      el(
        "tbody",
        {},
        items.map((it) =>
          el(
            "tr",
            {},
            el("th", { scope: "row" }, el("a", { href: `#/${kind}s/${it.id}` }, it.name)),
            el("td", { "data-label": "Slug" }, it.slug),
            el("td", { class: "num", "data-label": "Sources" }, it.sourceCount ?? it.knowledgeSourceCount ?? "—"),
            el("td", { class: "num", "data-label": "Conversations" }, it.conversationCount ?? "—"),
            el("td", { "data-label": "Published" }, it.isPublished ? "Yes" : "No"),
          ),
        ),
      ),
    ),
  );
}

export async function ownerView(kind, id, section) {
  const k = kinds[kind];
  const data = await attempt(() => api("GET", k.base(id)));
  if (!data) return layout("Not found", el("h1", {}, "Not found"), el("p", {}, el("a", { href: `#/${kind}s` }, `Back to ${k.plural}`)));
  const owner = data[k.one];
  const title = SECTIONS.find(([s]) => s === section)[1];
  const main = layout(
    `${title} · ${owner.name}`,
    el("p", { class: "crumbs" }, el("a", { href: `#/${kind}s` }, k.plural), " / ", owner.name),
    el("h1", {}, owner.name),
    el(
      "nav",
      { class: "tabs", "aria-label": `Sections of ${owner.name}` },
      el("ul", {}, SECTIONS.map(([s, name]) => el("li", {}, el("a", { href: sectionHref(kind, id, s), "aria-current": s === section ? "page" : null }, name)))),
    ),
  );
  const draw = {
    knowledge: () => [sourcesSection(kind, id)],
    search: () => [searchSection(kind, id)],
    settings: () => [settingsSection(kind, owner)],
    publish: () => [publishSection(kind, owner)],
    conversations: () => [conversationsSection(kind, id), correctionsSection(kind, id)],
    analytics: () => [analyticsSection(kind, id)],
    tests: () => [testsSection(kind, id)],
    actions: () => [actionsSection(kind, id)],
    channels: () => [channelsSection(kind, id)],
  }[section];
  main.append(...draw());
}
