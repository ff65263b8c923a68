// What the console says about conversations and the widget (lib/http/src/console/js/words.js).
// Run by scripts/js-test.sh (node --test).
import test from "node:test";
import assert from "node:assert/strict";
import { author, firstQuestion, ratingWords, statusWords, visitorParts, widgetBlockers } from "../../lib/http/src/console/js/words.js";

test("a conversation is with the visitor's name, address and verified id, or an anonymous visitor", () => {
  assert.deepEqual(visitorParts({ name: "Vera", email: "vera@example.com", userId: null }), ["Vera", "vera@example.com"]);
  assert.deepEqual(visitorParts({ name: null, email: "a@b.c", userId: "u_42" }), ["a@b.c", "user u_42"]);
  assert.deepEqual(visitorParts({ name: "  ", email: null }), ["Anonymous visitor"]);
  assert.deepEqual(visitorParts(null), ["Anonymous visitor"]);
});

test("the first question: the list item's own when it has one, else the first visitor message", () => {
  const messages = [
    { role: "assistant", generatedBy: "welcome", content: "Hello!" },
    { role: "user", content: "  When are refunds paid?\n" },
    { role: "assistant", content: "Within 14 days [1]." },
    { role: "user", content: "And shipping?" },
  ];
  assert.equal(firstQuestion({ id: "c" }, messages), "When are refunds paid?");
  assert.equal(firstQuestion({ firstQuestion: "Own" }, messages), "Own");
  assert.equal(firstQuestion({ id: "c" }, [{ role: "assistant", content: "Hello!" }]), null);
  assert.equal(firstQuestion({ id: "c" }, null), null);
});

test("statuses, authors and ratings in words", () => {
  assert.deepEqual(["open", "handoff"].map(statusWords), ["open", "waiting for a person"]);
  assert.equal(author({ role: "assistant", generatedBy: "welcome" }), "Welcome");
  assert.equal(author({ role: "assistant", generatedBy: "llm" }), "Answer");
  assert.equal(author({ role: "assistant", generatedBy: "correction" }), "Answer (your correction)");
  assert.deepEqual([author({ role: "user" }), author({ role: "agent" })], ["Visitor", "You (agent)"]);
  assert.equal(ratingWords({ rating: "down", comment: "too long" }), "rated down: “too long”");
  assert.equal(ratingWords({ rating: "up" }), "rated up");
  assert.equal(ratingWords(null), "");
});

test("the widget is blocked until published and a site is allowed", () => {
  assert.equal(widgetBlockers(false, []).length, 2);
  const [only] = widgetBlockers(true, []);
  assert.match(only, /no site is allowed/);
  assert.match(widgetBlockers(false, ["https://shop.example"])[0], /not published/);
  assert.deepEqual(widgetBlockers(true, ["https://shop.example"]), []);
  assert.deepEqual(widgetBlockers(true, null).length, 1);
});
