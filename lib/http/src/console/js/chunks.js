// A source's page: its name, address, languages and metadata (editable), and its chunks, each
// editable and able to be kept out of search.

import { api, attempt, languageName, languages } from "./api.js";
import { announce, el, field, fill } from "./dom.js";
import { metadataLines, parseMetadata, when } from "./format.js";
import { kinds } from "./kinds.js";
import { layout } from "./shell.js";

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

export async function chunksView(kind, id, sourceId) {
  const k = kinds[kind];
  const main = layout("Chunks", el("p", { class: "crumbs" }, el("a", { href: `#/${kind}s/${id}/knowledge` }, "Knowledge"), " / chunks"), el("h1", {}, "Chunks"));
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
