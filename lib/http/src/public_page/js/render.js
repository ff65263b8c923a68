// Elements of the chat, made from text: `el`, the Markdown tree of markdown.js as elements, plain
// paragraphs, and the status line. Text goes in as text (textContent, text nodes), never as
// HTML, and the only links are http(s) ones markdown.js let through.

import { parseBlocks, parseInline, plainParagraphs } from "./markdown.js";

export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
}

// A link out of the page: a new tab that learns nothing of it.
export function outLink(text, href, cls) {
  const a = el("a", cls, text);
  a.href = href;
  a.rel = "noopener noreferrer nofollow";
  a.target = "_blank";
  return a;
}

// ctx: {key: the answer's id (the markers' targets), label: n → the marker's accessible name}.
function inline(parent, nodes, ctx) {
  for (const node of nodes) {
    if (node.type === "text") {
      parent.appendChild(document.createTextNode(node.text));
    } else if (node.type === "code") {
      parent.appendChild(el("code", null, node.text));
    } else if (node.type === "link") {
      parent.appendChild(outLink(node.text, node.href, "link"));
    } else if (node.type === "strong" || node.type === "em") {
      const e = el(node.type);
      inline(e, node.children, ctx);
      parent.appendChild(e);
    } else if (node.type === "cite") {
      const sup = el("sup");
      const marker = el("a", "marker", "[" + node.n + "]");
      marker.href = "#" + ctx.key + "-" + node.n;
      marker.setAttribute("aria-label", ctx.label(node.n));
      sup.appendChild(marker);
      parent.appendChild(sup);
    }
  }
}

function lines(parent, list, ctx) {
  list.forEach((line, i) => {
    if (i) parent.appendChild(el("br"));
    inline(parent, parseInline(line, ctx.known, 0), ctx);
  });
}

// `text` as Markdown into `target`; ctx.known: the citation numbers to link.
export function markdown(target, text, ctx) {
  for (const block of parseBlocks(text)) {
    if (block.type === "code") {
      const pre = el("pre");
      pre.appendChild(el("code", null, block.text));
      target.appendChild(pre);
    } else if (block.type === "list") {
      const list = el(block.ordered ? "ol" : "ul");
      if (block.ordered && block.start !== 1) list.start = block.start;
      for (const itemLines of block.items) {
        const item = el("li");
        lines(item, itemLines, ctx);
        list.appendChild(item);
      }
      target.appendChild(list);
    } else {
      const p = el("p");
      lines(p, block.lines, ctx);
      target.appendChild(p);
    }
  }
}

// The answer's text, rendered, with its [n] markers linked to the passages they name (those of
// `citations`, which is empty when sources are not shown).
export function renderAnswer(bubble, text, citations, key, texts) {
  const known = {};
  for (const c of citations) known[c.index] = true;
  const fresh = document.createDocumentFragment();
  markdown(fresh, text, { known, key, label: (n) => texts.t("source.label", { n }) });
  bubble.textContent = "";
  bubble.appendChild(fresh);
  bubble.classList.add("md");
}

// Plain text as paragraphs with their line breaks.
export function paragraphs(bubble, text) {
  for (const ls of plainParagraphs(text)) {
    const p = el("p");
    ls.forEach((line, j) => {
      if (j) p.appendChild(el("br"));
      p.appendChild(document.createTextNode(line));
    });
    bubble.appendChild(p);
  }
}

// The status line under the chat: a text, possibly an error with a "Try again" button. Its
// `kind` is "passing" (a failure the next question clears), "speech" (a spoken answer's) or null.
export class StatusLine {
  constructor(node, texts) {
    this.node = node;
    this.texts = texts;
    this.kind = null;
  }

  set(text, isError, retry, kind) {
    this.node.textContent = text || "";
    this.node.className = isError ? "status error" : "status";
    this.kind = text ? kind || null : null;
    if (retry) {
      const b = el("button", "retry", this.texts.t("retry"));
      b.type = "button";
      b.addEventListener("click", () => {
        this.set("");
        retry();
      });
      this.node.appendChild(b);
    }
  }
}
