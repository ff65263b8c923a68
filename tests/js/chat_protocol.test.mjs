// The chat page's reading of the visitor routes (lib/http/src/public_page/js/protocol.js):
// server-sent events in pieces, and error envelopes as the visitor's messages.
// Run by scripts/js-test.sh (node --test).
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Texts } from "../../lib/http/src/public_page/js/i18n.js";
import { apiError, eventParser, retryable } from "../../lib/http/src/public_page/js/protocol.js";

const catalogue = (code) =>
  JSON.parse(readFileSync(new URL(`../../lib/http/src/public_page/i18n/${code}.json`, import.meta.url), "utf8"));

function collect() {
  const events = [];
  return { events, feed: eventParser((name, data) => events.push([name, data])) };
}

test("events split across pieces are put together; CRLF separates them too", () => {
  const { events, feed } = collect();
  feed('event: citations\ndata: {"citations":[{"index":1}]}\n\nevent: del', false);
  feed('ta\ndata: {"text":"Hel', false);
  feed('lo"}\r\n\r\nevent: done\ndata: {"message":{"id":"m1"}}', false);
  assert.deepEqual(events.map((e) => e[0]), ["citations", "delta"]);
  assert.deepEqual(events[1][1], { text: "Hello" });
  feed("", true);
  assert.deepEqual(events[2], ["done", { message: { id: "m1" } }]);
});

test("data lines join with newlines; an event without a name is a message; malformed data is skipped", () => {
  const { events, feed } = collect();
  feed('data: {"a":\ndata: 1}\n\nevent: delta\ndata: not json\n\n: a comment\n\nevent: x\n\n', true);
  assert.deepEqual(events, [["message", { a: 1 }]]);
});

test("an English page shows the server's message; others their own text for the code", () => {
  const en = new Texts(catalogue("en"), "en", "");
  const fr = new Texts(catalogue("fr"), "fr", "");
  const error = { code: "conversation_full", message: "server words" };
  assert.equal(apiError(error, 409, null, en).message, en.t("error.conversation_full"));
  const unknown = { code: "something_new", message: "The server says why." };
  assert.equal(apiError(unknown, 400, null, en).message, "The server says why.");
  assert.equal(apiError(unknown, 400, null, fr).message, fr.t("error.generic", { status: "400" }));
  assert.equal(apiError(null, 404, null, fr).message, fr.t("error.not_found"));
  const err = apiError(unknown, 400, null, en);
  assert.deepEqual([err.code, err.status, err.fromServer, err.passing], ["something_new", 400, true, false]);
});

test("rate limits say how long to wait, from Retry-After or the envelope", () => {
  const en = new Texts(catalogue("en"), "en", "");
  const limited = { code: "rate_limited", message: "x", details: { retryAfter: 7 } };
  assert.equal(apiError(limited, 429, "12", en).message, "Too many messages for now. Try again in 12 s.");
  assert.equal(apiError(limited, 429, null, en).message, "Too many messages for now. Try again in 7 s.");
  assert.equal(apiError({ code: "rate_limited" }, 429, null, en).message, "Too many messages for now.");
  assert.equal(apiError(limited, 429, null, en).passing, true);
});

test("what may be tried again: a failed model, a rate limit, a lost connection", () => {
  const en = new Texts({}, "en", "");
  assert.equal(retryable(apiError({ code: "generation_failed" }, 502, null, en)), true);
  assert.equal(retryable(apiError({ code: "rate_limited" }, 429, null, en)), true);
  assert.equal(retryable(new TypeError("Failed to fetch")), true);
  assert.equal(retryable(apiError({ code: "conversation_full" }, 409, null, en)), false);
});
