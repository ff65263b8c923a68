// A chatbot's or Mind's knowledge: its sources with their status (polled while any is being
// worked on), and forms to upload files (with progress), add a website or paste text.

import { api, attempt, upload } from "./api.js";
import { announce, el, field, fill } from "./dom.js";
import { bytes, fileKind, when } from "./format.js";
import { busy, kinds } from "./kinds.js";
import { later, pollDelay } from "./state.js";

export function sourcesSection(kind, id) {
  const k = kinds[kind];
  const list = el("div", {}, "Loading…");
  const section = el("section", { "aria-labelledby": "sources-h" }, el("h2", { id: "sources-h" }, "Knowledge"));

  // One reading of the list at a time decides what is shown: every action asks for a fresh one,
  // and an answer that is no longer the latest asked for is dropped (it would put back a source's
  // "processing" after a later answer said "ready"). While a source is worked on, the list is
  // read again every POLL_MS; a failed reading (429, the network) is tried again, more slowly,
  // rather than leaving the last status on screen for good.
  let asked = 0;
  let next = null;
  let failures = 0;
  async function refresh() {
    clearTimeout(next);
    const n = ++asked;
    let data;
    try {
      data = await api("GET", `${k.sources(id)}?limit=100`);
    } catch (e) {
      if (n !== asked || e.status === 401) return;
      if (e.status === 403 || e.status === 404) return announce(e.message, "error");
      if (++failures === 1) announce(`The sources could not be read (${e.message}); trying again.`, "error");
      next = later(refresh, pollDelay(failures));
      return;
    }
    if (n !== asked) return;
    failures = 0;
    const sources = data.sources;
    if (!sources.length) fill(list, el("p", { class: "empty" }, "No sources yet: upload a file, add a website or paste text below."));
    else fill(list, sourcesTable(sources));
    if (sources.some((s) => busy(s.status))) next = later(refresh, pollDelay(0));
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
