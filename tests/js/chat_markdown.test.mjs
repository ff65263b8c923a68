// The chat page's Markdown (lib/http/src/public_page/js/markdown.js): what an answer may make of
// its text. Run by scripts/js-test.sh (node --test).
import test from "node:test";
import assert from "node:assert/strict";
import { httpUrl, parseBlocks, parseInline, plainParagraphs } from "../../lib/http/src/public_page/js/markdown.js";

const text = (t) => ({ type: "text", text: t });

test("markup stays text: no element comes from what an answer writes", () => {
  const html = '<script>alert(1)</script> and <img src=x onerror="alert(2)">';
  assert.deepEqual(parseInline(html, {}), [text(html)]);
  assert.deepEqual(parseBlocks(html), [{ type: "p", lines: [html] }]);
});

test("only http and https links are links; others stay as written", () => {
  assert.deepEqual(parseInline("see [the docs](https://example.com/a?b=1)", {}), [
    text("see "),
    { type: "link", text: "the docs", href: "https://example.com/a?b=1" },
  ]);
  assert.deepEqual(parseInline("[plain](http://example.com)", {})[0].type, "link");
  for (const bad of ["javascript:alert(1)", "data:text/html,x", "vbscript:x", "/relative", "example.com"]) {
    assert.deepEqual(parseInline(`[click](${bad})`, {}), [text(`[click](${bad})`)], bad);
  }
  assert.equal(httpUrl("HTTPS://EXAMPLE.COM"), true);
  assert.equal(httpUrl("ftp://example.com"), false);
  assert.equal(httpUrl(undefined), false);
});

test("inline code, bold and emphasis; code keeps what is inside it literal", () => {
  assert.deepEqual(parseInline("a `**not bold**` b", {}), [text("a "), { type: "code", text: "**not bold**" }, text(" b")]);
  assert.deepEqual(parseInline("**bold** and *em*", {}), [
    { type: "strong", children: [text("bold")] },
    text(" and "),
    { type: "em", children: [text("em")] },
  ]);
  assert.deepEqual(parseInline("2 * 3 * 4", {}), [text("2 * 3 * 4")], "lone stars are not emphasis");
  assert.deepEqual(parseInline("** not bold **", {}), [text("** not bold **")]);
});

test("inside bold: links, code and markers; markup still text", () => {
  assert.deepEqual(parseInline("**see [docs](https://x.example) `<b>` [1] <i>**", { 1: true }), [
    {
      type: "strong",
      children: [
        text("see "),
        { type: "link", text: "docs", href: "https://x.example" },
        text(" "),
        { type: "code", text: "<b>" },
        text(" "),
        { type: "cite", n: "1" },
        text(" <i>"),
      ],
    },
  ]);
  assert.deepEqual(parseInline("*[x](javascript:alert(1))*", {}), [
    { type: "em", children: [text("[x](javascript:alert(1))")] },
  ]);
});

test("[n] is a citation marker only for a passage the answer cites", () => {
  assert.deepEqual(parseInline("Paid in 14 days [1][2].", { 1: true }), [
    text("Paid in 14 days "),
    { type: "cite", n: "1" },
    text("[2]"),
    text("."),
  ]);
  assert.deepEqual(parseInline("[1]", null), [text("[1]")], "no sources shown: no markers");
});

test("fenced code is one block, literal, also while the answer is still arriving", () => {
  assert.deepEqual(parseBlocks("Run:\n```\n<b>x</b>\n- not a list\n```\nDone."), [
    { type: "p", lines: ["Run:"] },
    { type: "code", text: "<b>x</b>\n- not a list" },
    { type: "p", lines: ["Done."] },
  ]);
  assert.deepEqual(parseBlocks("```js\nlet a = 1;"), [{ type: "code", text: "let a = 1;" }]);
});

test("lists: bullets, numbers with their start, continuation lines", () => {
  assert.deepEqual(parseBlocks("- one\n  more of one\n* two\n\n3. three\n4) four"), [
    { type: "list", ordered: false, start: 1, items: [["one", "more of one"], ["two"]] },
    { type: "list", ordered: true, start: 3, items: [["three"], ["four"]] },
  ]);
});

test("paragraphs part at blank lines and keep their line breaks; CRLF is a line break", () => {
  assert.deepEqual(parseBlocks("a\r\nb\n\n\nc"), [
    { type: "p", lines: ["a", "b"] },
    { type: "p", lines: ["c"] },
  ]);
  assert.deepEqual(plainParagraphs("Hi *there*\nsecond\n\n  \n\nthird  "), [["Hi *there*", "second"], ["third"]]);
  assert.deepEqual(plainParagraphs(null), []);
});
