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

test("a hand-off's reason, only while a person has the conversation", async () => {
  const { handoffReasonWords } = await import("../../lib/http/src/console/js/words.js");
  assert.equal(handoffReasonWords({ status: "handoff", handoffReason: " No answer about Italy " }), "“No answer about Italy”");
  assert.equal(handoffReasonWords({ status: "handoff", handoffReason: null }), "");
  assert.equal(handoffReasonWords({ status: "open", handoffReason: "old" }), "");
  assert.equal(handoffReasonWords(null), "");
});

test("analytics tell no questions from every question answered", async () => {
  const { unansweredSummary } = await import("../../lib/http/src/console/js/words.js");
  assert.equal(unansweredSummary({ messages: 0, answered: 0, unanswered: 0 }, 0), "No questions yet in this range.");
  assert.equal(unansweredSummary({ messages: 3, answered: 3, unanswered: 0 }, 0), "None: all 3 questions were answered from the knowledge.");
  assert.equal(unansweredSummary({ messages: 1, answered: 1, unanswered: 0 }, 0), "None: all 1 question was answered from the knowledge.");
  assert.equal(unansweredSummary({ messages: 2, answered: 1, unanswered: 1 }, 1), "");
  assert.equal(unansweredSummary({ messages: 2, answered: 1, unanswered: 1 }, 0), "1 unanswered, in conversations since deleted.");
});

test("a transcript's answers a correction now replaces, by their folded question", async () => {
  const { correctedAnswers, foldQuestion } = await import("../../lib/http/src/console/js/words.js");
  assert.equal(foldQuestion("  Do you ship\n to  ITALY? "), "do you ship to italy?");
  const messages = [
    { id: "w", role: "assistant", generatedBy: "welcome", content: "Hi" },
    { id: "q1", role: "user", content: "Do you ship to Italy?" },
    { id: "a1", role: "assistant", generatedBy: "extractive", content: "We ship to France [1]." },
    { id: "q2", role: "user", content: "Refunds?" },
    { id: "a2", role: "assistant", generatedBy: "extractive", content: "14 days [1]." },
  ];
  const c = { id: "corr_1", question: "do you ship to  italy?", content: "Not yet." };
  assert.deepEqual(correctedAnswers(messages, [c]), { a1: c });
  assert.deepEqual(correctedAnswers(messages, []), {});
});
