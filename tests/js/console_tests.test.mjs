// What the console says about answer tests and how it orders a run's results
// (lib/http/src/console/js/testwords.js). Run by scripts/js-test.sh (node --test).
import test from "node:test";
import assert from "node:assert/strict";
import { checkWords, draftFromAnswer, draftFromQuestion, isRegression, orderResults, previousWords, runWords, testBody } from "../../lib/http/src/console/js/testwords.js";

test("a test's checks in words, sources by their names", () => {
  const t = { expectedSourceIds: ["src_1", "src_2"], mustContain: ["14 days"], mustNotContain: ["Italy"], expectAnswered: true };
  assert.deepEqual(checkWords(t, { src_1: "returns.md" }), ["cites one of returns.md, src_2", "says “14 days”", "never says “Italy”", "answered"]);
  assert.deepEqual(checkWords({ expectedSourceIds: ["src_1"], expectAnswered: false }, { src_1: "a" }), ["cites a", "not answered"]);
});

test("a form becomes a test's body: lines, unique sources, answered by default", () => {
  assert.deepEqual(testBody({ question: "  Refunds? ", sourceIds: ["s", "s"], mustContain: "14 days\n\n  paid \n", mustNotContain: "" }), {
    question: "Refunds?",
    expectedSourceIds: ["s"],
    mustContain: ["14 days", "paid"],
    mustNotContain: [],
    expectAnswered: true,
  });
  assert.equal(testBody({ question: "q", expectAnswered: false }).expectAnswered, false);
});

test("failed results first, regressions before other failures, in run order", () => {
  const r = [
    { testId: "a", passed: true, previousPassed: true },
    { testId: "b", passed: false, previousPassed: false },
    { testId: "c", passed: false, previousPassed: true },
    { testId: "d", passed: false, previousPassed: null },
  ];
  assert.deepEqual(orderResults(r).map((x) => x.testId), ["c", "b", "d", "a"]);
  assert.deepEqual(r.map(isRegression), [false, false, true, false]);
  assert.deepEqual([true, false, null].map(previousWords), ["passed", "failed", "no earlier run"]);
});

test("a run in words", () => {
  assert.equal(runWords(null), "No run yet.");
  assert.equal(runWords({ status: "queued", total: 3, passed: 0, failed: 0 }), "Queued: 3 tests to run.");
  assert.equal(runWords({ status: "running", total: 3, passed: 1, failed: 1 }), "Running: 2 of 3 tests done.");
  assert.equal(runWords({ status: "done", total: 3, passed: 2, failed: 1, regressions: 1 }), "Done: 2 passed, 1 failed, 1 regression (3 tests).");
  assert.equal(runWords({ status: "done", total: 2, passed: 2, failed: 0, regressions: 0 }), "Done: 2 passed, 0 failed (2 tests).");
});

test("an answer becomes a test with its question and cited sources; a question with what it must say", () => {
  const messages = [
    { id: "w", role: "assistant", generatedBy: "welcome", content: "Hi" },
    { id: "q", role: "user", content: "Refunds?" },
    { id: "a", role: "assistant", content: "14 days [1][2]", citations: [{ sourceId: "s1" }, { sourceId: "s1" }, { sourceId: "s2" }] },
  ];
  assert.deepEqual(draftFromAnswer(messages, "a"), { question: "Refunds?", expectedSourceIds: ["s1", "s2"], mustContain: [], mustNotContain: [], expectAnswered: true });
  assert.equal(draftFromAnswer(messages, "w"), null);
  assert.deepEqual(draftFromQuestion("Italy?", "Not yet.").mustContain, ["Not yet."]);
  assert.deepEqual(draftFromQuestion("Italy?").mustContain, []);
  assert.deepEqual(draftFromQuestion("q", `First line\nSecond`).mustContain, ["First line"]);
  assert.equal(draftFromQuestion("q", "x".repeat(300)).mustContain[0].length, 200);
});
