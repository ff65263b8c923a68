// The search playground: a question or words against the knowledge, in any mode, with an
// optional metadata filter; the passages found, with the query's words marked.

import { api, attempt } from "./api.js";
import { announce, el, field, fill, marked } from "./dom.js";
import { typedValue } from "./format.js";
import { kinds } from "./kinds.js";

export function searchSection(kind, id) {
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
    // The metadata filter is seldom needed: folded away until asked for.
    el("details", { class: "filters" }, el("summary", {}, "Filter by metadata"), el("div", { class: "filter-fields" }, field("Metadata key", key, "Optional filter"), field("Comparison", op), field("Value", value, "Lists: comma-separated"))),
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

