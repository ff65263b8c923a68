// The Lore console (docs/console.md): an owner's view of chatbots, Minds, their knowledge, search
// and conversations, on the public API alone. The API key lives in this tab's sessionStorage and
// is sent as `Authorization: Bearer`; signing out (or a 401) forgets it. No framework: views are
// functions that draw into <main> with the `el` helper (text always as text nodes, never HTML).

const KEY = "lore.console.key";
const app = document.getElementById("app");
let session = null; // {key, workspace, scopes}
let timers = []; // polling of the current view, cleared when the view changes

// ---- DOM ------------------------------------------------------------------------------------

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "class") node.className = v;
    else if (v === true) node.setAttribute(k, "");
    else node.setAttribute(k, String(v));
  }
  return fill(node, ...children);
}

/** Replaces `node`'s children, skipping null/false and flattening arrays as `el` does. */
function fill(node, ...children) {
  node.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false).map((c) => (c instanceof Node ? c : document.createTextNode(String(c)))));
  return node;
}

let uid = 0;
/** A labelled form control: the label names it for screen readers. */
function field(label, control, hint) {
  const id = control.id || `f${++uid}`;
  control.id = id;
  const hintNode = hint ? el("span", { class: "hint", id: `${id}-hint` }, hint) : null;
  if (hintNode) control.setAttribute("aria-describedby", hintNode.id);
  return el("div", { class: "field" }, el("label", { for: id }, label), control, hintNode);
}

function announce(message, kind = "ok") {
  const region = document.getElementById(kind === "error" ? "alerts" : "status");
  if (!region) return;
  region.textContent = "";
  // A fresh text node so that assistive technology reads a repeated message again.
  region.append(el("p", { class: kind }, message));
}

function when(iso) {
  if (!iso) return "—";
  const d = new Date(iso);
  return d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

function bytes(n) {
  if (n === null || n === undefined) return "—";
  const units = ["B", "KB", "MB", "GB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n.toFixed(i ? 1 : 0)} ${units[i]}`;
}

/** What people call a file of this media type. */
const FILE_KINDS = {
  "application/pdf": "PDF",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "Word",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "Excel",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "PowerPoint",
  "application/vnd.oasis.opendocument.text": "ODT",
  "application/vnd.oasis.opendocument.spreadsheet": "ODS",
  "application/epub+zip": "EPUB",
  "application/rtf": "RTF",
  "text/rtf": "RTF",
  "text/csv": "CSV",
  "text/tab-separated-values": "TSV",
  "text/html": "HTML",
  "text/markdown": "Markdown",
  "text/plain": "text",
  "audio/mpeg": "MP3",
  "audio/wav": "WAV",
  "audio/mp4": "M4A",
  "audio/ogg": "Ogg",
};
function fileKind(mime) {
  return FILE_KINDS[mime.split(";")[0].trim().toLowerCase()] || mime.split("/").pop();
}

/** `text` with every occurrence of the query's words marked. */
function marked(text, query) {
  const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}_]{2,}/gu) || [])];
  if (!words.length) return [text];
  const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const re = new RegExp(`(${escaped.join("|")})`, "giu");
  return text.split(re).map((part, i) => (i % 2 ? el("mark", {}, part) : part));
}

// ---- Languages (docs/api.md §20) ------------------------------------------------------------

let languageList = null; // a promise of GET /api/v1/languages' list, fetched once a session
function languages() {
  languageList ||= api("GET", "/api/v1/languages").then(
    (d) => d.languages,
    (e) => {
      languageList = null; // asked again next time
      throw e;
    },
  );
  return languageList;
}

/** A language's name as its speakers write it ("fr" → Français), marked with its `lang`; the
 * code itself when `list` does not know it. */
const languageName = (code, list) => el("span", { lang: code }, (list.find((l) => l.code === code) || { name: code }).name);

const AUTO_LANGUAGE = "Automatic (each visitor's language)";

// ---- API ------------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, body) {
    const e = (body && body.error) || {};
    super(e.message || `The request failed (${status}).`);
    this.status = status;
    this.code = e.code || "error";
  }
}

async function api(method, path, body, key = session && session.key) {
  const headers = { Authorization: `Bearer ${key}`, Accept: "application/json" };
  const init = { method, headers };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  const data = await res.json().catch(() => null);
  if (res.status === 401 && session) {
    signOut("Your key was refused (revoked or expired): signed out.");
    throw new ApiError(401, data);
  }
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

/** A multipart upload with progress, through XMLHttpRequest (fetch reports no upload progress). */
function upload(path, form, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", path);
    xhr.setRequestHeader("Authorization", `Bearer ${session.key}`);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.addEventListener("progress", (e) => e.lengthComputable && onProgress(e.loaded / e.total));
    xhr.addEventListener("load", () => {
      let data = null;
      try {
        data = JSON.parse(xhr.responseText);
      } catch (_) {
        /* not JSON */
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(data);
      else reject(new ApiError(xhr.status, data));
    });
    xhr.addEventListener("error", () => reject(new ApiError(0, null)));
    xhr.send(form);
  });
}

/** Runs `action`, announcing its failure; returns its result or undefined. */
async function attempt(action) {
  try {
    return await action();
  } catch (e) {
    if (e.status !== 401) announce(e.message, "error");
    return undefined;
  }
}

// ---- Owners: chatbots and Minds share one set of views ---------------------------------------

const kinds = {
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

const busy = (status) => status === "pending" || status === "processing" || status === "transcribing";

// ---- Views ----------------------------------------------------------------------------------

function signInView(message) {
  document.title = "Sign in · Lore console";
  const key = el("input", { type: "password", autocomplete: "off", spellcheck: "false", required: true });
  const form = el(
    "form",
    { class: "card signin", "aria-labelledby": "signin-title" },
    el("h1", { id: "signin-title" }, "Lore console"),
    el("p", {}, "Sign in with an API key of your workspace. It is kept in this tab only and forgotten when you sign out or close it."),
    field("API key", key),
    el("button", { type: "submit", class: "primary" }, "Sign in"),
    el("div", { id: "alerts", role: "alert" }, message ? el("p", { class: "error" }, message) : null),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const who = await api("GET", "/api/integrations/webhooks/auth/verify", undefined, key.value.trim());
      sessionStorage.setItem(KEY, key.value.trim());
      session = { key: key.value.trim(), workspace: who.workspace, scopes: who.key.scopes };
      if (!location.hash || location.hash === "#/") location.hash = "#/chatbots";
      route();
    } catch (err) {
      announce(err.status === 401 ? "That key was not accepted." : err.message, "error");
      key.focus();
    }
  });
  fill(app, el("main", { id: "main", class: "narrow" }, form));
  key.focus();
}

function signOut(message) {
  sessionStorage.removeItem(KEY);
  session = null;
  history.replaceState(null, "", "#/");
  signInView(message);
}

function layout(title, ...content) {
  document.title = `${title} · Lore console`;
  const here = location.hash;
  const link = (href, text) =>
    el("a", { href, "aria-current": here.startsWith(href) ? "page" : null }, text);
  const main = el(
    "main",
    { id: "main", tabindex: "-1" },
    el("div", { id: "alerts", role: "alert" }),
    el("div", { id: "status", role: "status", "aria-live": "polite" }),
    ...content,
  );
  fill(app, 
    el("a", { href: "#main", class: "skip" }, "Skip to content"),
    el(
      "header",
      { class: "top" },
      el("span", { class: "brand" }, "Lore"),
      el("nav", { "aria-label": "Sections" }, link("#/chatbots", "Chatbots"), link("#/minds", "Minds"), link("#/webhooks", "Webhooks"), link("#/workspace", "Workspace")),
      el("span", { class: "who" }, session.workspace.name),
      el("button", { type: "button", onclick: () => signOut("Signed out.") }, "Sign out"),
    ),
    main,
  );
  return main;
}

async function listView(kind) {
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

async function ownerView(kind, id) {
  const k = kinds[kind];
  const data = await attempt(() => api("GET", k.base(id)));
  if (!data) return layout("Not found", el("h1", {}, "Not found"), el("p", {}, el("a", { href: `#/${kind}s` }, `Back to ${k.plural}`)));
  const owner = data[k.one];
  const main = layout(
    owner.name,
    el("p", { class: "crumbs" }, el("a", { href: `#/${kind}s` }, k.plural), " / ", owner.name),
    el("h1", {}, owner.name),
  );
  main.append(
    sourcesSection(kind, id),
    searchSection(kind, id),
    settingsSection(kind, owner),
    conversationsSection(kind, id),
    analyticsSection(kind, id),
    correctionsSection(kind, id),
  );
}

function sourcesSection(kind, id) {
  const k = kinds[kind];
  const list = el("div", {}, "Loading…");
  const section = el("section", { "aria-labelledby": "sources-h" }, el("h2", { id: "sources-h" }, "Knowledge"));

  async function refresh() {
    const data = await attempt(() => api("GET", `${k.sources(id)}?limit=100`));
    if (!data) return;
    const sources = data.sources;
    if (!sources.length) fill(list, el("p", { class: "empty" }, "No sources yet: upload a file, add a website or paste text below."));
    else fill(list, sourcesTable(sources));
    if (sources.some((s) => busy(s.status))) timers.push(setTimeout(refresh, 1000));
  }

  function sourcesTable(sources) {
    return el(
      "table",
      { class: "sources" },
      el("caption", { class: "sr" }, "Sources"),
      el("thead", {}, el("tr", {}, ["Name", "Type", "Status", "Chunks", "Size", "Updated", "Actions"].map((h) => el("th", { scope: "col" }, h)))),
      el(
        "tbody",
        {},
        sources.map((s) =>
          el(
            "tr",
            { "data-source": s.id },
            el("th", { scope: "row" }, s.name, Object.keys(s.metadata || {}).length ? el("div", { class: "tags" }, Object.entries(s.metadata).map(([key, v]) => el("span", { class: "tag" }, `${key}: ${v}`))) : null),
            el("td", { "data-label": "Type" }, s.mimeType ? `${s.type} (${fileKind(s.mimeType)})` : s.type),
            el("td", { "data-label": "Status" }, statusCell(s)),
            el("td", { class: "num", "data-label": "Chunks" }, s.chunkCount),
            el("td", { class: "num", "data-label": "Size" }, bytes(s.sizeBytes)),
            el("td", { "data-label": "Updated" }, when(s.updatedAt)),
            el(
              "td",
              { class: "actions" },
              s.status === "ready" ? el("a", { href: `#/${kind}s/${id}/sources/${s.id}` }, "Chunks") : null,
              !busy(s.status) || s.status === "pending"
                ? el("button", { type: "button", onclick: () => act("POST", k.process(id, s.id), `Processing ${s.name}.`) }, s.status === "pending" ? "Process" : "Process again")
                : null,
              !busy(s.status) || s.status === "pending"
                ? el("button", { type: "button", class: "danger", onclick: () => confirm(`Delete ${s.name}?`) && act("DELETE", `${k.sources(id)}/${s.id}`, `Deleted ${s.name}.`) }, "Delete")
                : null,
            ),
          ),
        ),
      ),
    );
  }

  function statusCell(s) {
    const label = el("span", { class: `badge ${s.status}` }, s.status);
    if (busy(s.status) && s.progress && s.progress.total) {
      return [label, " ", el("progress", { max: s.progress.total, value: s.progress.done, "aria-label": `${s.progress.stage}` }), ` ${s.progress.stage}`];
    }
    if (s.error) return [label, el("span", { class: "why" }, s.error.replace(/^[a-z_]+:\s*/, ""))];
    return label;
  }

  async function act(method, path, message) {
    if (await attempt(() => api(method, path))) {
      announce(message);
      refresh();
    }
  }

  async function created(made, name) {
    if (!made) return;
    const s = made.source;
    // A chatbot source waits for `process`; a Mind's is queued at once.
    if (kind === "chatbot" && s.status === "pending") await attempt(() => api("POST", k.process(id, s.id)));
    announce(`Added ${name}; processing.`);
    refresh();
  }

  // Files, with progress.
  const files = el("input", { type: "file", multiple: true });
  const progress = el("ul", { class: "uploads", "aria-live": "polite" });
  const uploadForm = el("form", { class: "card" }, el("h3", {}, "Upload files"), field("Files", files, "PDF, DOCX, ODT, RTF, TXT, Markdown, HTML, CSV/TSV, XLSX/ODS, PPTX, EPUB"), el("button", { type: "submit" }, "Upload"), progress);
  uploadForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    for (const file of files.files) {
      const bar = el("progress", { max: 1, value: 0, "aria-label": `Uploading ${file.name}` });
      const item = el("li", {}, `${file.name} `, bar);
      progress.append(item);
      const form = new FormData();
      form.append("file", file, file.name);
      try {
        let made;
        if (kind === "chatbot") {
          made = await upload(k.sources(id), form, (p) => (bar.value = p));
        } else {
          const up = await upload(`${k.base(id)}/knowledge/upload`, form, (p) => (bar.value = p));
          const type = up.category === "audio" ? "podcast" : "document";
          made = await api("POST", k.sources(id), { type, name: file.name, fileUrl: up.fileUrl });
        }
        fill(item, `${file.name}: uploaded`);
        await created(made, file.name);
      } catch (err) {
        fill(item, `${file.name}: ${err.message}`);
        announce(`${file.name}: ${err.message}`, "error");
      }
    }
    files.value = "";
  });

  // A website.
  const url = el("input", { type: "url", required: true, placeholder: "https://example.com/docs" });
  const depth = el("input", { type: "number", min: 1, max: 5, value: 1 });
  const every = el("input", { type: "number", min: 1, max: 8760, placeholder: "off" });
  const urlForm = el("form", { class: "card" }, el("h3", {}, "Add a website"), field("Address", url), field("Crawl depth", depth, "1 is the page alone; up to 5"), field("Refresh every (hours)", every, "Empty: only when you ask"), el("button", { type: "submit" }, "Add website"));
  urlForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = { type: "url", url: url.value.trim(), crawlDepth: Number(depth.value) || 1 };
    if (every.value) body.refreshIntervalHours = Number(every.value);
    await created(await attempt(() => api("POST", k.sources(id), body)), body.url);
    url.value = "";
  });

  // Text.
  const textName = el("input", { type: "text", required: true, maxlength: 200 });
  const content = el("textarea", { rows: 5, required: true, maxlength: 100000 });
  const textForm = el("form", { class: "card" }, el("h3", {}, "Add text"), field("Name", textName), field("Text", content), el("button", { type: "submit" }, "Add text"));
  textForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = { type: "text", name: textName.value.trim(), content: content.value };
    await created(await attempt(() => api("POST", k.sources(id), body)), body.name);
    textName.value = "";
    content.value = "";
  });

  section.append(list, el("div", { class: "grid" }, uploadForm, urlForm, textForm));
  refresh();
  return section;
}

function searchSection(kind, id) {
  const k = kinds[kind];
  const query = el("input", { type: "search", required: true });
  const mode = el("select", {}, ["hybrid", "semantic", "keyword"].map((m) => el("option", { value: m }, m)));
  const topK = el("input", { type: "number", min: 1, max: 50, value: 5 });
  const key = el("input", { type: "text", placeholder: "language", class: "filter-key" });
  const op = el("select", { class: "filter-op" }, [["eq", "="], ["ne", "≠"], ["gt", ">"], ["gte", "≥"], ["lt", "<"], ["lte", "≤"], ["in", "one of"], ["nin", "none of"]].map(([v, t]) => el("option", { value: v }, t)));
  const value = el("input", { type: "text", placeholder: "en", class: "filter-value" });
  const results = el("ol", { class: "results", "aria-live": "polite" });
  const form = el(
    "form",
    { class: "card inline", role: "search" },
    field("Question or words", query),
    field("Mode", mode),
    field("Results", topK),
    field("Metadata key", key, "Optional filter"),
    field("Comparison", op),
    field("Value", value, "Lists: comma-separated"),
    el("button", { type: "submit", class: "primary" }, "Search"),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const q = query.value.trim();
    const body = { query: q, mode: mode.value, topK: Number(topK.value) || 5 };
    if (key.value.trim()) {
      const list = op.value === "in" || op.value === "nin";
      body.filter = { type: op.value, key: key.value.trim(), value: list ? value.value.split(",").map((v) => typedValue(v.trim())).filter((v) => v !== "") : typedValue(value.value.trim()) };
    }
    const data = await attempt(() => api("POST", k.search(id), body));
    if (!data) return;
    announce(`${data.results.length} results in ${Math.round(data.tookMs)} ms.`);
    fill(results, 
      ...data.results.map((r) =>
        el(
          "li",
          { class: "card" },
          el("div", { class: "meta" }, el("strong", {}, r.sourceName), ` · chunk ${r.position + 1} · score `, el("span", { class: "score" }, r.score.toFixed(3)), r.url ? [" · ", el("a", { href: r.url, rel: "noreferrer noopener", target: "_blank" }, r.url)] : null),
          el("p", { class: "chunk" }, marked(r.content, q)),
        ),
      ),
    );
    if (!data.results.length) fill(results, el("li", { class: "empty" }, "Nothing found."));
  });
  return el("section", { "aria-labelledby": "search-h" }, el("h2", { id: "search-h" }, "Search playground"), form, results);
}

/** Lines of a textarea, trimmed, without empty ones. */
const lines = (area) => area.value.split("\n").map((l) => l.trim()).filter(Boolean);

/** `#rgb` as `#rrggbb` (what a colour input takes). */
function fullHex(colour, fallback) {
  if (!colour) return fallback;
  return colour.length === 4 ? `#${[...colour.slice(1)].map((c) => c + c).join("")}` : colour;
}

function settingsSection(kind, owner) {
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
    origins: input({ tag: "textarea", rows: 2, placeholder: "https://www.example.com" }, (owner.allowedOrigins || []).join("\n")),
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
  const option = (box, label) => el("div", { class: "check" }, box, el("label", { for: box.id || (box.id = `f${++uid}`) }, label));
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
    mind ? [el("h3", {}, "Voice"), option(c.voice, "Spoken answers"), el("div", { class: "row" }, field("Voice", c.voiceId), field("Speed", c.voiceSpeed))] : null,
    el("h3", {}, "Embedding"),
    field("Sites that may embed the chat", c.origins, "One origin a line, e.g. https://www.example.com"),
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
      suggestedQuestions: lines(c.questions),
      showSources: c.showSources.checked,
      collectEmailBeforeChat: c.collectEmail.checked,
      handoffEnabled: c.handoff.checked,
      identityVerification: c.identity.checked,
      correctionThreshold: Number(c.threshold.value),
      knowledgeFilter: filter,
      allowedOrigins: lines(c.origins),
      language: c.language.value,
    };
    if (themeTouched) body.theme = { primaryColor: c.primary.value, backgroundColor: c.background.value, fontFamily: c.font.value.trim() || null, mode: c.mode.value };
    if (mind) {
      Object.assign(body, {
        headline: c.headline.value.trim() || null,
        bio: c.bio.value.trim() || null,
        expertiseAreas: lines(c.expertise),
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

  const published = el("p", {});
  const snippet = el("textarea", { rows: 2, readonly: true, class: "code snippet" });
  const toggle = el("button", { type: "button" });
  const copy = el("button", { type: "button" }, "Copy snippet");
  copy.addEventListener("click", async () => {
    snippet.select();
    try {
      await navigator.clipboard.writeText(snippet.value);
      announce("Snippet copied.");
    } catch (_) {
      announce("Select the snippet and copy it with your keyboard.", "error");
    }
  });
  let isPublished = owner.isPublished;
  const draw = (url) => {
    toggle.textContent = isPublished ? "Unpublish" : "Publish";
    fill(published, isPublished ? ["Published at ", el("a", { href: url, target: "_blank", rel: "noopener" }, url)] : "Not published: visitors cannot reach the chat.");
    const origin = new URL(url, location.href).origin;
    snippet.value = `<script src="${origin}/widget.js" data-${kind}="${owner.slug}" async></script>`;
  };
  let publicUrl = owner.publicUrl || `${location.origin}/${k.page}/${owner.slug}`;
  toggle.addEventListener("click", async () => {
    const done = await attempt(() => api("POST", `${k.base(owner.id)}/publish`, { isPublished: !isPublished }));
    if (!done) return;
    const now = done[k.one];
    isPublished = now.isPublished;
    publicUrl = now.publicUrl || publicUrl;
    draw(publicUrl);
    announce(isPublished ? (done.warning ? `Published. ${done.warning}` : "Published.") : "Unpublished.");
  });
  draw(publicUrl);
  const identitySecret = el("div", { "aria-live": "polite" });
  const newSecret = el("button", { type: "button" }, "New identity secret");
  newSecret.addEventListener("click", async () => {
    const made = await attempt(() => api("POST", `${k.base(owner.id)}/identity-secret`));
    if (made) showSecret(identitySecret, made.identitySecret, "Identity secret (sign visitors' user ids with it on your server)");
  });
  const publish = el(
    "div",
    { class: "card" },
    el("h3", {}, "Publishing"),
    published,
    toggle,
    field("Widget snippet", snippet, "Paste it into your site's HTML; add the site below first."),
    copy,
    el("h3", {}, "Identity verification"),
    el("p", { class: "hint" }, "A new secret replaces the old one at once."),
    newSecret,
    identitySecret,
  );
  return el("section", { "aria-labelledby": "settings-h" }, el("h2", { id: "settings-h" }, "Settings"), el("div", { class: "grid settings-grid" }, form, el("div", {}, preview.node, publish)));
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
    const questions = lines(c.questions).slice(0, 4);
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

function conversationsSection(kind, id) {
  const k = kinds[kind];
  const body = el("div", {}, "Loading…");
  const exportAs = (format) =>
    el("button", { type: "button", onclick: () => download(`${k.base(id)}/conversations/export?format=${format}`, `conversations-${id}.${format}`) }, `Export ${format.toUpperCase()}`);
  const section = el("section", { "aria-labelledby": "conv-h" }, el("h2", { id: "conv-h" }, "Conversations"), el("div", { class: "row" }, exportAs("jsonl"), exportAs("csv")), body);
  const item = (c) =>
    el(
      "li",
      {},
      el("a", { href: `#/${kind}s/${id}/conversations/${c.id}` }, `${when(c.createdAt)} · ${c.messageCount} messages · ${c.channel}`),
      c.visitor && c.visitor.email ? ` · ${c.visitor.email}` : "",
      c.status === "handoff" ? [" ", el("span", { class: "badge handoff" }, "waiting for a person")] : null,
    );
  attempt(() => api("GET", `${k.base(id)}/conversations?limit=100`)).then((data) => {
    if (!data) return fill(body, el("p", { class: "empty" }, "Conversations need a key with conversations:read."));
    if (!data.conversations.length) return fill(body, el("p", { class: "empty" }, "No conversations yet."));
    const waiting = data.conversations.filter((c) => c.status === "handoff");
    fill(body, 
      waiting.length ? [el("h3", {}, `Waiting for a person (${waiting.length})`), el("ul", { class: "plain inbox" }, waiting.map(item))] : null,
      el("h3", {}, "Latest"),
      el("ul", { class: "plain" }, data.conversations.slice(0, 20).map(item)),
    );
  });
  return section;
}

/** Fetches `path` with the key and saves it as `name` (a link cannot carry the key). */
async function download(path, name) {
  try {
    const res = await fetch(path, { headers: { Authorization: `Bearer ${session.key}` } });
    if (!res.ok) throw new ApiError(res.status, await res.json().catch(() => null));
    const url = URL.createObjectURL(await res.blob());
    const a = el("a", { href: url, download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    announce(`Downloaded ${name}.`);
  } catch (e) {
    announce(e.message, "error");
  }
}

function analyticsSection(kind, id) {
  const k = kinds[kind];
  const body = el("div", {}, "Loading…");
  attempt(() => api("GET", `${k.base(id)}/analytics`)).then((data) => {
    if (!data) return fill(body, el("p", { class: "empty" }, "Analytics need a key with conversations:read."));
    const a = data.analytics;
    const t = a.totals;
    const figure = (label, value) => el("div", { class: "figure" }, el("span", { class: "value" }, value), el("span", { class: "label" }, label));
    fill(body, 
      el("p", { class: "meta" }, `${a.from} to ${a.to} (UTC)`),
      el(
        "div",
        { class: "figures" },
        figure("conversations", t.conversations),
        figure("questions", t.messages),
        figure("answered", t.answered),
        figure("unanswered", t.unanswered),
        figure("rated up", t.ratingsUp),
        figure("rated down", t.ratingsDown),
        figure("leads", t.leads),
      ),
      chart(a.days),
      el("div", { class: "grid" },
        el("div", { class: "card" }, el("h3", {}, "Most cited sources"),
          a.topSources.length ? el("ol", {}, a.topSources.map((x) => el("li", {}, `${x.sourceName}: ${x.citations}`))) : el("p", { class: "empty" }, "No citations yet.")),
        el("div", { class: "card" }, el("h3", {}, "Unanswered questions"),
          a.unansweredQuestions.length
            ? el("ul", { class: "plain" }, a.unansweredQuestions.map((q) => el("li", {}, el("q", {}, q.question), " ", el("a", { href: `#/${kind}s/${id}/conversations/${q.conversationId}` }, "Correct this"))))
            : el("p", { class: "empty" }, "None: every question was answered from the knowledge."))),
    );
  });
  return el("section", { "aria-labelledby": "analytics-h" }, el("h2", { id: "analytics-h" }, "Analytics"), body);
}

/** A bar chart of conversations per day, with answered and unanswered answers in a table for
 * screen readers (the drawing is hidden from them). */
function chart(days) {
  const NS = "http://www.w3.org/2000/svg";
  const w = 600, h = 120, gap = 2;
  const max = Math.max(1, ...days.map((d) => d.conversations));
  const bar = w / Math.max(1, days.length);
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${h + 16}`);
  svg.setAttribute("class", "chart");
  svg.setAttribute("aria-hidden", "true");
  days.forEach((d, i) => {
    const r = document.createElementNS(NS, "rect");
    const height = Math.round((d.conversations / max) * h);
    r.setAttribute("x", String(i * bar + gap / 2));
    r.setAttribute("y", String(h - height));
    r.setAttribute("width", String(Math.max(1, bar - gap)));
    r.setAttribute("height", String(height));
    r.setAttribute("class", "bar");
    const title = document.createElementNS(NS, "title");
    title.textContent = `${d.date}: ${d.conversations} conversations`;
    r.append(title);
    svg.append(r);
  });
  for (const [i, anchor] of [[0, "start"], [days.length - 1, "end"]]) {
    if (!days[i]) continue;
    const label = document.createElementNS(NS, "text");
    label.setAttribute("x", String(anchor === "start" ? 0 : w));
    label.setAttribute("y", String(h + 14));
    label.setAttribute("text-anchor", anchor);
    label.setAttribute("class", "axis");
    label.textContent = days[i].date;
    svg.append(label);
  }
  const active = days.filter((d) => d.conversations || d.messages);
  const table = el(
    "table",
    { class: "sr" },
    el("caption", {}, "Conversations per day"),
    el("thead", {}, el("tr", {}, ["Day", "Conversations", "Answered", "Unanswered"].map((x) => el("th", { scope: "col" }, x)))),
    el("tbody", {}, active.map((d) => el("tr", {}, el("td", {}, d.date), el("td", {}, d.conversations), el("td", {}, d.answered), el("td", {}, d.unanswered)))),
  );
  return el("figure", { class: "card" }, el("figcaption", {}, "Conversations per day"), svg, table);
}

function correctionsSection(kind, id) {
  const k = kinds[kind];
  const body = el("div", {}, "Loading…");
  const load = async () => {
    const data = await attempt(() => api("GET", `${k.base(id)}/corrections?limit=100`));
    if (!data) return fill(body, el("p", { class: "empty" }, "Corrections need a key with conversations:read."));
    if (!data.corrections.length) return fill(body, el("p", { class: "empty" }, "No corrections: correct an answer from its conversation."));
    fill(body, 
      el(
        "ul",
        { class: "cards" },
        data.corrections.map((c) =>
          el(
            "li",
            { class: "card" },
            el("div", { class: "meta" }, "When asked ", el("q", {}, c.question)),
            el("p", {}, c.content),
            el("button", { type: "button", class: "danger", onclick: async () => { if (await attempt(() => api("DELETE", `${k.base(id)}/corrections/${c.id}`))) { announce("Correction deleted."); load(); } } }, "Delete correction"),
          ),
        ),
      ),
    );
  };
  load();
  return el("section", { "aria-labelledby": "corr-h" }, el("h2", { id: "corr-h" }, "Corrections"), body);
}

async function transcriptView(kind, id, conversationId) {
  const k = kinds[kind];
  const path = `${k.base(id)}/conversations/${conversationId}`;
  const main = layout("Conversation", el("p", { class: "crumbs" }, el("a", { href: `#/${kind}s/${id}` }, "Back"), " / conversation"), el("h1", {}, "Conversation"));
  const holder = el("div", {});
  main.append(holder);
  const draw = async () => {
    const data = await attempt(() => api("GET", path));
    if (!data) return;
    const c = data.conversation;
    const handoff = c.status === "handoff";
    fill(holder, 
      el("p", { class: "meta" }, `${c.channel} · started ${when(c.createdAt)}`, c.visitor && c.visitor.email ? ` · ${c.visitor.email}` : "", handoff ? [" · ", el("span", { class: "badge handoff" }, "waiting for a person")] : ""),
      el("ol", { class: "transcript" }, data.messages.map((m) => message(m))),
      handoff ? replyForm() : null,
    );
  };
  const message = (m) => {
    const who = { user: "Visitor", assistant: "Answer", agent: "You (agent)" }[m.role] || m.role;
    const li = el(
      "li",
      { class: `msg ${m.role}` },
      el("div", { class: "meta" }, who, " · ", when(m.createdAt), m.generatedBy === "correction" ? " · your correction" : "", m.answered === false ? " · not answered from the knowledge" : "", m.feedback ? ` · rated ${m.feedback.rating}${m.feedback.comment ? `: “${m.feedback.comment}”` : ""}` : ""),
      el("p", {}, m.content),
      m.citations && m.citations.length
        ? el("ul", { class: "cites" }, m.citations.map((ct) => el("li", {}, `[${ct.index}] ${ct.sourceName}: `, el("q", {}, ct.quote))))
        : null,
    );
    if (m.role === "assistant" && m.generatedBy !== "welcome") {
      const rate = (rating) => async () => {
        if (await attempt(() => api("POST", `${path}/messages/${m.id}/feedback`, { rating }))) {
          announce(`Rated ${rating}.`);
          draw();
        }
      };
      const fix = el("textarea", { rows: 3, maxlength: 4000 });
      fix.value = m.content;
      const fixForm = el("form", { class: "correct", hidden: true }, field("Your answer to this question", fix, "Asked again (or something close), this is answered as written."), el("button", { type: "submit", class: "primary" }, "Save correction"));
      fixForm.addEventListener("submit", async (e) => {
        e.preventDefault();
        if (await attempt(() => api("PUT", `${path}/messages/${m.id}/correction`, { content: fix.value.trim() }))) {
          announce("Correction saved: the next time this is asked, it is the answer.");
          fixForm.hidden = true;
        }
      });
      li.append(
        el(
          "div",
          { class: "row" },
          el("button", { type: "button", class: "rate-up", onclick: rate("up") }, "Good answer"),
          el("button", { type: "button", class: "rate-down", onclick: rate("down") }, "Bad answer"),
          el("button", { type: "button", onclick: () => { fixForm.hidden = !fixForm.hidden; if (!fixForm.hidden) fix.focus(); } }, "Correct this answer"),
        ),
        fixForm,
      );
    }
    return li;
  };
  const replyForm = () => {
    const text = el("textarea", { rows: 3, required: true, maxlength: 4000 });
    const form = el("form", { class: "card" }, el("h2", {}, "Reply as a person"), field("Your reply", text, "The visitor sees it in the chat."), el("div", { class: "row" }, el("button", { type: "submit", class: "primary" }, "Send reply"), el("button", { type: "button", onclick: async () => { if (await attempt(() => api("POST", `${path}/resume`))) { announce("Handed back: the assistant answers again."); draw(); } } }, "Hand back to the assistant")));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      if (await attempt(() => api("POST", `${path}/messages`, { content: text.value.trim(), role: "agent" }))) {
        announce("Reply sent.");
        draw();
      }
    });
    return form;
  };
  await draw();
}

/** A typed metadata value from what was typed: `true`/`false`, a number, else the text. */
const typedValue = (raw) => (raw === "true" ? true : raw === "false" ? false : raw !== "" && !Number.isNaN(Number(raw)) ? Number(raw) : raw);

/** `key = value` lines from metadata; numbers and true/false stay typed. */
const metadataLines = (m) => Object.entries(m || {}).map(([key, v]) => `${key} = ${v}`).join("\n");
function parseMetadata(text) {
  const out = {};
  for (const line of text.split("\n").map((l) => l.trim()).filter(Boolean)) {
    const at = line.indexOf("=");
    if (at < 1) throw new Error(`"${line}" is not key = value`);
    const key = line.slice(0, at).trim();
    const raw = line.slice(at + 1).trim();
    out[key] = typedValue(raw);
  }
  return out;
}

/** The source's name, address, languages (`langs`: their names, as nodes) and metadata, the
 * metadata editable. */
function metadataForm(path, s, langs) {
  const area = el("textarea", { rows: 3, class: "code", placeholder: "product = kettle\naudience = customers" });
  area.value = metadataLines(s.metadata);
  const every = el("input", { type: "number", min: 1, max: 8760, placeholder: "only when asked" });
  if (s.refreshIntervalHours) every.value = s.refreshIntervalHours;
  const form = el(
    "form",
    { class: "card", "aria-label": "Metadata" },
    el("h2", {}, s.name),
    s.url ? el("p", { class: "meta" }, s.url) : null,
    langs.length ? el("p", { class: "languages" }, langs.length > 1 ? "Languages: " : "Language: ", langs.map((name, i) => [i ? ", " : "", name])) : null,
    field("Metadata", area, "One key = value a line (up to 16); numbers and true/false are kept as such. Search and answers can filter on them."),
    s.type === "url" ? field("Refresh every (hours)", every, s.nextRefreshAt ? `Next refresh ${when(s.nextRefreshAt)}` : "Empty: only when you ask") : null,
    el("button", { type: "submit", class: "primary" }, "Save"),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    let metadata;
    try {
      metadata = parseMetadata(area.value);
    } catch (err) {
      return announce(err.message, "error");
    }
    const body = { metadata };
    if (s.type === "url") body.refreshIntervalHours = every.value ? Number(every.value) : null;
    if (await attempt(() => api("PATCH", path, body))) announce("Metadata saved.");
  });
  return form;
}

async function chunksView(kind, id, sourceId) {
  const k = kinds[kind];
  const main = layout("Chunks", el("p", { class: "crumbs" }, el("a", { href: `#/${kind}s/${id}` }, "Back"), " / chunks"), el("h1", {}, "Chunks"));
  const list = el("ol", { class: "chunks" });
  const metadata = el("div", {});
  main.append(metadata, el("h2", {}, "Chunks"), el("p", {}, "What search reads of this source. Disable a chunk to keep it out of search and answers; edit its text to correct it (it is embedded again)."), list);
  const [source, known] = await Promise.all([attempt(() => api("GET", `${k.sources(id)}/${sourceId}`)), languages().catch(() => [])]);
  if (source) fill(metadata, metadataForm(`${k.sources(id)}/${sourceId}`, source.source, (source.source.languages || []).map((code) => languageName(code, known))));
  const data = await attempt(() => api("GET", `${k.chunks(id, sourceId)}?limit=100`));
  if (!data) return;
  for (const c of data.chunks) {
    const text = el("textarea", { rows: 6 });
    text.value = c.text;
    const enabled = el("input", { type: "checkbox", checked: c.enabled });
    const save = el("button", { type: "button" }, "Save text");
    save.addEventListener("click", async () => {
      if (await attempt(() => api("PATCH", `${k.chunks(id, sourceId)}/${c.id}`, { text: text.value }))) announce(`Chunk ${c.position + 1} saved.`);
    });
    enabled.addEventListener("change", async () => {
      const ok = await attempt(() => api("PATCH", `${k.chunks(id, sourceId)}/${c.id}`, { enabled: enabled.checked }));
      if (ok) announce(`Chunk ${c.position + 1} ${enabled.checked ? "enabled" : "disabled"}.`);
      else enabled.checked = !enabled.checked;
    });
    list.append(
      el(
        "li",
        { class: "card" },
        el("div", { class: "meta" }, `Chunk ${c.position + 1} · ${c.tokens} tokens`, c.language ? [" · ", languageName(c.language, known)] : "", c.headingPath.length ? ` · ${c.headingPath.join(" › ")}` : "", c.edited ? " · edited" : ""),
        field(`Text of chunk ${c.position + 1}`, text),
        el("div", { class: "row" }, el("label", {}, enabled, " In search"), save),
      ),
    );
  }
  if (data.pagination.total > data.chunks.length) main.append(el("p", {}, `Showing the first ${data.chunks.length} of ${data.pagination.total} chunks.`));
}

// ---- Webhooks -------------------------------------------------------------------------------

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
];

async function webhooksView() {
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

/** A secret shown once, with a copy button. */
function showSecret(holder, secret, label) {
  const box = el("input", { type: "text", readonly: true, class: "code", value: secret });
  fill(holder, el("div", { class: "secret" }, field(label, box, "Shown once: copy it to your receiver now."), el("button", { type: "button", onclick: async () => { box.select(); try { await navigator.clipboard.writeText(secret); announce("Secret copied."); } catch (_) { announce("Select the secret and copy it with your keyboard.", "error"); } } }, "Copy secret")));
}

async function hookView(hookId) {
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
    if (data.deliveries.some((d) => d.status === "pending")) timers.push(setTimeout(load, 1500));
  }
  load();
}

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
  layout("Workspace", el("h1", {}, `Workspace ${session.workspace.name}`), el("h2", {}, "Usage"), usage, keys);
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
  if (!session.scopes.includes("workspace:admin")) {
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
  timers.forEach(clearTimeout);
  timers = [];
  if (!session) return signInView();
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  if (parts[0] === "webhooks") return parts[1] ? hookView(parts[1]) : webhooksView();
  if (parts[0] === "workspace") return workspaceView();
  const kind = { chatbots: "chatbot", minds: "mind" }[parts[0]];
  if (!kind) {
    location.hash = "#/chatbots";
    return;
  }
  if (parts.length === 1) return listView(kind);
  if (parts.length === 2) return ownerView(kind, parts[1]);
  if (parts[2] === "sources" && parts[3]) return chunksView(kind, parts[1], parts[3]);
  if (parts[2] === "conversations" && parts[3]) return transcriptView(kind, parts[1], parts[3]);
  location.hash = `#/${parts[0]}`;
}

window.addEventListener("hashchange", () => {
  route();
  const main = document.getElementById("main");
  if (main) main.focus({ preventScroll: true });
});

(async function start() {
  const key = sessionStorage.getItem(KEY);
  if (!key) return signInView();
  try {
    const who = await api("GET", "/api/integrations/webhooks/auth/verify", undefined, key);
    session = { key, workspace: who.workspace, scopes: who.key.scopes };
    route();
  } catch (_) {
    sessionStorage.removeItem(KEY);
    signInView("Your key is no longer accepted: sign in again.");
  }
})();
