// An answer's Markdown as the visitor's page shows it: the chat page's own parser (markdown.js,
// lib/http/src/public_page/js/markdown.js, served in the console's set too) turned into elements
// with `el`, so text stays text and the only links are the http(s) ones the parser lets through.
// `[n]` markers link to the citation of that number in the transcript.

import { parseBlocks, parseInline, plainParagraphs } from "./markdown.js";
import { el } from "./dom.js";

function inline(nodes, ctx) {
  return nodes.map((node) => {
    if (node.type === "text") return node.text;
    if (node.type === "code") return el("code", {}, node.text);
    if (node.type === "link") return el("a", { href: node.href, rel: "noopener noreferrer nofollow", target: "_blank" }, node.text);
    if (node.type === "strong" || node.type === "em") return el(node.type, {}, inline(node.children, ctx));
    if (node.type === "cite") return el("sup", {}, el("a", { href: `#${ctx.key}-${node.n}`, class: "marker", "aria-label": `source ${node.n}` }, `[${node.n}]`));
    return null;
  });
}

const lines = (list, ctx) => list.map((line, i) => [i ? el("br", {}) : null, inline(parseInline(line, ctx.known, 0), ctx)]);

/** `text` as Markdown: block elements. `citations`: the message's ({index}), whose markers are
 * linked to `#{key}-{index}`. */
export function markdown(text, citations, key) {
  const known = {};
  for (const c of citations || []) known[String(c.index)] = true;
  const ctx = { key, known };
  return parseBlocks(text || "").map((block) => {
    if (block.type === "code") return el("pre", {}, el("code", {}, block.text));
    if (block.type === "list") return el(block.ordered ? "ol" : "ul", { start: block.ordered && block.start !== 1 ? block.start : null }, block.items.map((item) => el("li", {}, lines(item, ctx))));
    return el("p", {}, lines(block.lines, ctx));
  });
}

/** Plain text (a welcome message, a visitor's words) as paragraphs of lines: nothing is Markdown. */
export const plain = (text) => plainParagraphs(text).map((ls) => el("p", {}, ls.map((l, i) => [i ? el("br", {}) : null, l])));
