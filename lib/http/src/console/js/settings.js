// A chatbot's or Mind's settings (profile, look, answers and visitors, voice, privacy) with a
// preview of its public chat drawn as they change; and its Publish section: publishing, the
// sites that may embed the widget next to its snippet, and the identity-verification secret.

import { AUTO_LANGUAGE, api, attempt, languages } from "./api.js";
import { announce, el, field, fill, newId, showSecret } from "./dom.js";
import { fullHex, nonEmptyLines } from "./format.js";
import { kinds } from "./kinds.js";
import { widgetBlockers } from "./words.js";

export function settingsSection(kind, owner) {
  const k = kinds[kind];
  const mind = kind === "mind";
  const theme = owner.theme || {};
  const input = (attrs, value) => {
    const node = el(attrs.tag || "input", { ...attrs, tag: null });
    if (value !== undefined && value !== null) node.value = value;
    return node;
  };
  const tick = (value) => el("input", { type: "checkbox", checked: !!value });
  const c = {
    name: input({ type: "text", maxlength: 100, required: true }, owner.name),
    instructions: input({ tag: "textarea", rows: 4 }, owner[k.instructions] || ""),
    headline: mind ? input({ type: "text", maxlength: 200 }, owner.headline || "") : null,
    bio: mind ? input({ tag: "textarea", rows: 3 }, owner.bio || "") : null,
    welcome: input({ tag: "textarea", rows: 2 }, owner.welcomeMessage || ""),
    questions: input({ tag: "textarea", rows: 3 }, (owner.suggestedQuestions || []).join("\n")),
    expertise: mind ? input({ tag: "textarea", rows: 2 }, (owner.expertiseAreas || []).join("\n")) : null,
    temperature: mind ? input({ type: "number", min: 0, max: 2, step: 0.1 }, owner.temperature) : null,
    primary: input({ type: "color" }, fullHex(theme.primaryColor, "#4f46e5")),
    background: input({ type: "color" }, fullHex(theme.backgroundColor, "#ffffff")),
    font: input({ type: "text", maxlength: 200, placeholder: "Inter, sans-serif" }, theme.fontFamily || ""),
    mode: el("select", {}, ["light", "dark", "auto"].map((m) => el("option", { value: m, selected: (theme.mode || "light") === m }, m))),
    showSources: tick(owner.showSources),
    collectEmail: tick(owner.collectEmailBeforeChat),
    handoff: tick(owner.handoffEnabled),
    identity: tick(owner.identityVerification),
    threshold: input({ type: "number", min: 0.5, max: 1, step: 0.01 }, owner.correctionThreshold),
    // Automatic and the current language until the list arrives.
    language: el("select", {}, el("option", { value: "auto" }, AUTO_LANGUAGE), owner.language && owner.language !== "auto" ? el("option", { value: owner.language, selected: true }, owner.language) : null),
    voice: mind ? tick(owner.voiceEnabled) : null,
    voiceId: mind ? input({ type: "text", maxlength: 100 }, owner.voiceId || "") : null,
    voiceSpeed: mind ? input({ type: "number", min: 0.25, max: 4, step: 0.05 }, owner.voiceSpeed) : null,
    filter: input({ tag: "textarea", rows: 2, class: "code", placeholder: '{"type": "eq", "key": "lang", "value": "en"}' }, owner.knowledgeFilter ? JSON.stringify(owner.knowledgeFilter) : ""),
    retention: input({ type: "number", min: 1, max: 3650, step: 1, placeholder: "Keep" }, owner.retentionDays),
    redact: tick(owner.redactPersonalData),
    testsOnChange: tick(owner.runTestsOnChange),
  };
  attempt(languages).then((list) => {
    if (!list) return;
    const current = c.language.value;
    fill(c.language, el("option", { value: "auto" }, AUTO_LANGUAGE), list.map((l) => el("option", { value: l.code, lang: l.code }, l.name)));
    c.language.value = list.some((l) => l.code === current) ? current : "auto";
  });
  // The theme is sent only once the owner touches it: an untouched theme stays "the default".
  let themeTouched = false;
  for (const t of [c.primary, c.background, c.font, c.mode]) t.addEventListener("input", () => (themeTouched = true));
  const option = (box, label) => el("div", { class: "check" }, box, el("label", { for: box.id || (box.id = newId()) }, label));
  const form = el(
    "form",
    { class: "card settings", "aria-label": "Settings" },
    el("h3", {}, "Profile"),
    field("Name", c.name),
    mind ? field("Headline", c.headline) : null,
    mind ? field("Bio", c.bio) : null,
    field(mind ? "System prompt" : "Instructions", c.instructions),
    field("Welcome message", c.welcome),
    field("Suggested questions", c.questions, "One a line, up to 4"),
    mind ? field("Expertise areas", c.expertise, "One a line, up to 10") : null,
    mind ? field("Temperature", c.temperature, "0 (focused) to 2 (free)") : null,
    el("h3", {}, "Look"),
    el("div", { class: "row" }, field("Main colour", c.primary), field("Background", c.background), field("Colours", c.mode)),
    field("Font", c.font, "Font names separated by commas"),
    el("h3", {}, "Answers and visitors"),
    field("Language", c.language, "Answers and the public page use this language; Automatic follows each visitor."),
    option(c.showSources, "Show visitors the passages answers cite"),
    option(c.collectEmail, "Ask for an e-mail address before the chat"),
    option(c.handoff, "Offer “talk to a person”"),
    option(c.identity, "Only visitors with a signed user id (identity verification)"),
    field("Correction match", c.threshold, "How close a question must be to a corrected one (0.5 to 1)"),
    field("Answer only from sources matching", c.filter, "A metadata filter as JSON; empty: every source"),
    option(c.testsOnChange, "Run every answer test after the sources change (at most once per 5 minutes)"),
    mind ? [el("h3", {}, "Voice"), option(c.voice, "Spoken answers"), el("div", { class: "row" }, field("Voice", c.voiceId), field("Speed", c.voiceSpeed))] : null,
    el("h3", {}, "Privacy"),
    field("Delete conversations after (days)", c.retention, "1 to 3650 days after the last message; empty: keep them"),
    option(c.redact, "Hide e-mail addresses, card numbers, IBANs and phone numbers in messages"),
    el("button", { type: "submit", class: "primary" }, "Save settings"),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    let filter = null;
    if (c.filter.value.trim()) {
      try {
        filter = JSON.parse(c.filter.value);
      } catch (_) {
        c.filter.focus();
        return announce("The source filter is not valid JSON.", "error");
      }
    }
    const body = {
      name: c.name.value.trim(),
      [k.instructions]: c.instructions.value,
      welcomeMessage: c.welcome.value.trim() || null,
      suggestedQuestions: nonEmptyLines(c.questions.value),
      showSources: c.showSources.checked,
      collectEmailBeforeChat: c.collectEmail.checked,
      handoffEnabled: c.handoff.checked,
      identityVerification: c.identity.checked,
      correctionThreshold: Number(c.threshold.value),
      knowledgeFilter: filter,
      language: c.language.value,
      retentionDays: c.retention.value.trim() ? Number(c.retention.value) : null,
      redactPersonalData: c.redact.checked,
      runTestsOnChange: c.testsOnChange.checked,
    };
    if (themeTouched) body.theme = { primaryColor: c.primary.value, backgroundColor: c.background.value, fontFamily: c.font.value.trim() || null, mode: c.mode.value };
    if (mind) {
      Object.assign(body, {
        headline: c.headline.value.trim() || null,
        bio: c.bio.value.trim() || null,
        expertiseAreas: nonEmptyLines(c.expertise.value),
        temperature: Number(c.temperature.value),
        voiceEnabled: c.voice.checked,
        voiceSpeed: Number(c.voiceSpeed.value),
      });
      if (c.voiceId.value.trim()) body.voiceId = c.voiceId.value.trim();
    }
    if (await attempt(() => api("PATCH", k.base(owner.id), body))) announce("Settings saved.");
  });
  const preview = previewCard(owner, c);
  form.addEventListener("input", () => preview.draw());
  form.addEventListener("change", () => preview.draw());

  return el("section", { "aria-labelledby": "settings-h" }, el("h2", { id: "settings-h" }, "Settings"), el("div", { class: "grid settings-grid" }, form, el("div", {}, preview.node)));
}

/** Publishing: publish or unpublish, the sites that may embed the widget (saved with the same
 * PATCH as the settings), what still keeps the widget off them, the snippet, and the identity
 * secret. */
export function publishSection(kind, owner) {
  const k = kinds[kind];
  let isPublished = owner.isPublished;
  let origins = owner.allowedOrigins || [];
  let publicUrl = owner.publicUrl || `${location.origin}/${k.page}/${owner.slug}`;
  const published = el("p", { class: "published" });
  const blockers = el("div", { class: "blockers", id: "widget-state" });
  const toggle = el("button", { type: "button", class: "primary" });
  const snippet = el("textarea", { rows: 2, readonly: true, class: "code snippet" });
  const copy = el("button", { type: "button" }, "Copy snippet");
  const sites = el("textarea", { rows: 3, placeholder: "https://www.example.com", spellcheck: "false" });
  sites.value = origins.join("\n");
  const draw = () => {
    toggle.textContent = isPublished ? "Unpublish" : "Publish";
    fill(published, isPublished ? ["Published at ", el("a", { href: publicUrl, target: "_blank", rel: "noopener" }, publicUrl)] : "Not published: visitors cannot reach the chat.");
    const why = widgetBlockers(isPublished, origins);
    fill(blockers, why.length
      ? el("div", { class: "blocked" }, el("strong", {}, "The widget does not work yet"), why.length > 1 ? [":", el("ul", {}, why.map((w) => el("li", {}, w)))] : `: ${why[0]}.`)
      : el("p", { class: "ready-note" }, `The widget works on ${origins.length === 1 ? origins[0] : `these ${origins.length} sites`}.`));
    const origin = new URL(publicUrl, location.href).origin;
    snippet.value = `<script src="${origin}/widget.js" data-${kind}="${owner.slug}" async></script>`;
  };
  toggle.addEventListener("click", async () => {
    const done = await attempt(() => api("POST", `${k.base(owner.id)}/publish`, { isPublished: !isPublished }));
    if (!done) return;
    const now = done[k.one];
    isPublished = now.isPublished;
    publicUrl = now.publicUrl || publicUrl;
    draw();
    const still = widgetBlockers(isPublished, origins);
    if (!isPublished) announce("Unpublished: visitors cannot reach the chat.");
    else announce(`Published: the public page is open.${done.warning ? ` ${done.warning}` : ""}${still.length ? ` The widget does not work yet: ${still.join("; ")}.` : ""}`);
  });
  copy.addEventListener("click", async () => {
    snippet.select();
    try {
      await navigator.clipboard.writeText(snippet.value);
      announce("Snippet copied.");
    } catch (_) {
      announce("Select the snippet and copy it with your keyboard.", "error");
    }
  });
  const sitesForm = el(
    "form",
    { class: "sites", "aria-label": "Sites that may embed the chat" },
    field("Sites that may embed the chat", sites, "One origin a line, e.g. https://www.example.com: the widget runs on these sites only."),
    el("button", { type: "submit" }, "Save sites"),
  );
  sitesForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const wanted = nonEmptyLines(sites.value);
    const done = await attempt(() => api("PATCH", k.base(owner.id), { allowedOrigins: wanted }));
    if (!done) return;
    origins = (done[k.one] && done[k.one].allowedOrigins) || wanted;
    sites.value = origins.join("\n");
    draw();
    const still = widgetBlockers(isPublished, origins);
    announce(`Sites saved.${still.length ? ` The widget does not work yet: ${still.join("; ")}.` : ""}`);
  });
  draw();
  const identitySecret = el("div", { "aria-live": "polite" });
  const newSecret = el("button", { type: "button" }, "New identity secret");
  newSecret.addEventListener("click", async () => {
    const made = await attempt(() => api("POST", `${k.base(owner.id)}/identity-secret`));
    if (made) showSecret(identitySecret, made.identitySecret, "Identity secret (sign visitors' user ids with it on your server)");
  });
  return el(
    "section",
    { "aria-labelledby": "publish-h" },
    el("h2", { id: "publish-h" }, "Publish"),
    el("div", { class: "card" }, el("h3", {}, "Public page"), published, toggle),
    el(
      "div",
      { class: "card" },
      el("h3", {}, "Widget on your site"),
      blockers,
      sitesForm,
      field("Widget snippet", snippet, "Paste this line into the HTML of every page of those sites: it adds a chat button that opens this chat."),
      copy,
    ),
    el(
      "div",
      { class: "card" },
      el("h3", {}, "Identity verification"),
      el("p", { class: "hint" }, "For visitors signed in on your site (the setting is under Settings). A new secret replaces the old one at once."),
      newSecret,
      identitySecret,
    ),
  );
}

/** A small picture of the public chat as the settings would make it, redrawn as they change. */
function previewCard(owner, c) {
  const node = el("div", { class: "card preview", "aria-label": "Preview of the chat", role: "img" });
  function draw() {
    const mode = c.mode.value === "auto" ? (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light") : c.mode.value;
    const background = mode === "dark" && c.background.value.toLowerCase() === "#ffffff" ? "#111827" : c.background.value;
    node.style.setProperty("--p-primary", c.primary.value);
    node.style.setProperty("--p-background", background);
    node.style.setProperty("--p-text", mode === "dark" ? "#f3f4f6" : "#111827");
    node.style.fontFamily = c.font.value.trim() || "";
    const name = c.name.value.trim() || owner.name;
    const questions = nonEmptyLines(c.questions.value).slice(0, 4);
    fill(
      node,
      el("div", { class: "p-band" }),
      el("div", { class: "p-avatar" }, name.slice(0, 1).toUpperCase()),
      el("div", { class: "p-name" }, name),
      c.headline && c.headline.value.trim() ? el("div", { class: "p-headline" }, c.headline.value.trim()) : null,
      c.welcome.value.trim() ? el("div", { class: "p-bubble" }, c.welcome.value.trim()) : null,
      questions.length ? el("div", { class: "p-questions" }, questions.map((q) => el("span", { class: "p-question" }, q))) : null,
      c.collectEmail.checked ? el("div", { class: "p-gate" }, "E-mail address before the chat") : el("div", { class: "p-composer" }, `Ask ${name} something`),
      c.handoff.checked ? el("div", { class: "p-handoff" }, "Talk to a person") : null,
    );
  }
  draw();
  return { node, draw };
}
