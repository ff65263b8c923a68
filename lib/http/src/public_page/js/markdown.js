// The Markdown of answers, parsed into a small tree that render.js turns into elements (text
// always as text: nothing here is ever HTML). Pure: no DOM, so that node's tests can import it
// (tests/js/chat_markdown.test.mjs).
//
// Blocks: paragraphs (single line breaks kept), "-"/"*" and "1." lists, ``` fenced code.
// Inline: `code`, [text](http(s) URL), **bold**, *emphasis*, and the [n] citation markers.
// Anything else stays literal text.
//
// Blocks:  {type: "p", lines: [string]}
//          {type: "list", ordered: bool, start: number, items: [[string]]}  (each item its lines)
//          {type: "code", text: string}
// Inline:  {type: "text", text} {type: "code", text} {type: "link", text, href}
//          {type: "strong" | "em", children: [inline]} {type: "cite", n: string}

const INLINE = /`([^`\n]+)`|\[([^\]\n]+)\]\(([^()\s]+)\)|\*\*(?=\S)([^*]*?\S)\*\*|\*(?=[^\s*])([^*\n]*?[^\s*])\*|\[(\d+)\]/g;
const BULLET = /^\s{0,3}[-*]\s+(.*)$/;
const NUMBERED = /^\s{0,3}(\d{1,9})[.)]\s+(.*)$/;
const FENCE = /^\s{0,3}```/;
// Emphasis inside emphasis is parsed this deep; deeper, it is the inner text as written.
const DEPTH = 3;

// Whether `s` is an absolute http: or https: URL: the only links an answer may carry.
export function httpUrl(s) {
  if (typeof s !== "string") return false;
  try {
    const u = new URL(s);
    return u.protocol === "https:" || u.protocol === "http:";
  } catch (e) {
    return false;
  }
}

// The inline nodes of one line. `known`: the citation numbers to link ({"1": true}); any other
// [n] stays text.
export function parseInline(text, known, depth = 0) {
  const out = [];
  const re = new RegExp(INLINE.source, "g");
  let last = 0;
  let m;
  while ((m = re.exec(text))) {
    if (m.index > last) out.push({ type: "text", text: text.slice(last, m.index) });
    last = re.lastIndex;
    if (m[1] !== undefined) {
      out.push({ type: "code", text: m[1] });
    } else if (m[2] !== undefined) {
      out.push(httpUrl(m[3]) ? { type: "link", text: m[2], href: m[3] } : { type: "text", text: m[0] });
    } else if (m[4] !== undefined || m[5] !== undefined) {
      const inner = m[4] !== undefined ? m[4] : m[5];
      const children = depth < DEPTH ? parseInline(inner, known, depth + 1) : [{ type: "text", text: inner }];
      out.push({ type: m[4] !== undefined ? "strong" : "em", children });
    } else if (m[6] !== undefined) {
      out.push(known && known[m[6]] ? { type: "cite", n: m[6] } : { type: "text", text: m[0] });
    }
  }
  if (last < text.length) out.push({ type: "text", text: text.slice(last) });
  return out;
}

// The blocks of a whole answer, also while it is still arriving (an open fence runs to the end).
export function parseBlocks(text) {
  const rows = text.replace(/\r\n?/g, "\n").split("\n");
  const blocks = [];
  let i = 0;
  while (i < rows.length) {
    const row = rows[i];
    if (!row.trim()) {
      i++;
      continue;
    }
    if (FENCE.test(row)) {
      const code = [];
      i++;
      while (i < rows.length && !FENCE.test(rows[i])) code.push(rows[i++]);
      i++; // the closing fence (absent while the answer is still arriving)
      blocks.push({ type: "code", text: code.join("\n") });
      continue;
    }
    const bullet = BULLET.exec(row);
    const numbered = !bullet && NUMBERED.exec(row);
    if (bullet || numbered) {
      const ordered = !!numbered;
      const list = { type: "list", ordered, start: ordered ? parseInt(numbered[1], 10) : 1, items: [] };
      while (i < rows.length) {
        const b = BULLET.exec(rows[i]);
        const n = !b && NUMBERED.exec(rows[i]);
        if (ordered ? !n : !b) break;
        const itemLines = [ordered ? n[2] : b[1]];
        i++;
        // Continuation lines (indented, not a new item) stay in the item.
        while (i < rows.length && /^\s{2,}\S/.test(rows[i]) && !BULLET.test(rows[i]) && !NUMBERED.test(rows[i])) {
          itemLines.push(rows[i].trim());
          i++;
        }
        list.items.push(itemLines);
      }
      blocks.push(list);
      continue;
    }
    const para = [];
    while (i < rows.length && rows[i].trim() && !FENCE.test(rows[i]) && !BULLET.test(rows[i]) && !NUMBERED.test(rows[i])) {
      para.push(rows[i]);
      i++;
    }
    blocks.push({ type: "p", lines: para });
  }
  return blocks;
}

// Plain text (a welcome message) as paragraphs of lines: blank lines part paragraphs, single
// line breaks stay; nothing is Markdown.
export function plainParagraphs(text) {
  const out = [];
  for (const part of String(text || "").replace(/\r\n?/g, "\n").split(/\n{2,}/)) {
    const trimmed = part.trim();
    if (trimmed) out.push(trimmed.split("\n"));
  }
  return out;
}
