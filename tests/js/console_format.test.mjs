// How the console writes values (lib/http/src/console/js/format.js).
// Run by scripts/js-test.sh (node --test).
import test from "node:test";
import assert from "node:assert/strict";
import {
  bytes, fileKind, fullHex, markParts, metadataLines, nonEmptyLines, parseMetadata, typedValue, when,
} from "../../lib/http/src/console/js/format.js";

test("dates in the reader's locale and zone; none is a dash", () => {
  assert.equal(when("2026-01-02T03:04:05Z", "en-US", "UTC"), "Jan 2, 2026, 3:04 AM");
  assert.equal(when("2026-01-02T03:04:05Z", "en-GB", "Asia/Tokyo"), "2 Jan 2026, 12:04");
  assert.equal(when(null), "—");
  assert.equal(when(""), "—");
});

test("sizes in B, KB, MB and GB", () => {
  assert.deepEqual([0, 1023, 1024, 1536, 5 * 1024 ** 2, 3.25 * 1024 ** 3, 2048 * 1024 ** 3].map((n) => bytes(n)),
    ["0 B", "1023 B", "1.0 KB", "1.5 KB", "5.0 MB", "3.3 GB", "2048.0 GB"]);
  assert.equal(bytes(null), "—");
  assert.equal(bytes(undefined), "—");
});

test("file kinds by media type, parameters and case ignored; unknown ones by their subtype", () => {
  assert.equal(fileKind("application/pdf"), "PDF");
  assert.equal(fileKind("Text/Plain; charset=utf-8"), "text");
  assert.equal(fileKind("application/vnd.openxmlformats-officedocument.wordprocessingml.document"), "Word");
  assert.equal(fileKind("image/webp"), "webp");
});

test("the query's words are found in any case, each once, special characters literal", () => {
  assert.deepEqual(markParts("Refunds are paid. REFUNDS!", "refunds paid"), ["", "Refunds", " are ", "paid", ". ", "REFUNDS", "!"]);
  assert.deepEqual(markParts("a+b costs $5 (a+b)", "a+b (x)"), ["a+b costs $5 (a+b)"], "one-letter words are not marked");
  assert.deepEqual(markParts("price: 1.5 or 105", "1.5"), ["price: 1.5 or 105"], "1 and 5 are too short; '.' is no wildcard");
  assert.deepEqual(markParts("Zürich café", "ZÜRICH"), ["", "Zürich", " café"]);
  assert.deepEqual(markParts("text", "?"), ["text"]);
});

test("a textarea's lines, trimmed, without empty ones", () => {
  assert.deepEqual(nonEmptyLines("  one \n\n two\n   \nthree"), ["one", "two", "three"]);
  assert.deepEqual(nonEmptyLines(""), []);
});

test("colours: #rgb is widened, others kept, none is the fallback", () => {
  assert.equal(fullHex("#0a7", "#000000"), "#00aa77");
  assert.equal(fullHex("#4f46e5", "#000000"), "#4f46e5");
  assert.equal(fullHex(null, "#ffffff"), "#ffffff");
});

test("metadata values keep their type: booleans, numbers, else text", () => {
  assert.deepEqual(["true", "false", "42", "-1.5", "", "1e3", "abc", "True", " 7 "].map(typedValue),
    [true, false, 42, -1.5, "", 1000, "abc", "True", 7]);
});

test("metadata as key = value lines, and back", () => {
  const m = parseMetadata("product = kettle\n\n  year=2024 \nurl = https://x.example/?a=b\nnew = true");
  assert.deepEqual(m, { product: "kettle", year: 2024, url: "https://x.example/?a=b", new: true });
  assert.equal(metadataLines(m), "product = kettle\nyear = 2024\nurl = https://x.example/?a=b\nnew = true");
  assert.deepEqual(parseMetadata(metadataLines(m)), m);
  assert.throws(() => parseMetadata("no equals sign"), /"no equals sign" is not key = value/);
  assert.throws(() => parseMetadata("= value"), /is not key = value/);
  assert.equal(metadataLines(null), "");
});
