// What the console says about answer tests (docs/api.md §21) and how it orders their results:
// the checks a test has, a run's progress, regressions, the test an answer or a question becomes.
// Pure: no DOM, so that node's tests can import it (tests/js/console_tests.test.mjs).

/** Lines of a textarea, trimmed, without empty ones. */
const lines = (text) => String(text || "").split("\n").map((l) => l.trim()).filter(Boolean);

/** The checks a test has, in words ("cites returns.md", "says “14 days”", "never says “Italy”",
 * "answered"). `names`: {sourceId: name} of the owner's sources (an unknown id shows as is). */
export function checkWords(test, names) {
  const out = [];
  const ids = test.expectedSourceIds || [];
  if (ids.length) out.push(`cites ${ids.length > 1 ? "one of " : ""}${ids.map((id) => (names && names[id]) || id).join(", ")}`);
  for (const s of test.mustContain || []) out.push(`says “${s}”`);
  for (const s of test.mustNotContain || []) out.push(`never says “${s}”`);
  out.push(test.expectAnswered === false ? "not answered" : "answered");
  return out;
}

/** The body of a test's POST or PATCH from its form's values. */
export function testBody({ question, sourceIds, mustContain, mustNotContain, expectAnswered }) {
  return {
    question: String(question || "").trim(),
    expectedSourceIds: [...new Set(sourceIds || [])],
    mustContain: lines(mustContain),
    mustNotContain: lines(mustNotContain),
    expectAnswered: expectAnswered !== false,
  };
}

/** Whether a result is a regression: it failed, and passed in the test's previous run. */
export const isRegression = (r) => r.passed === false && r.previousPassed === true;

/** A run's results, failed first (regressions before the other failures), each group in the
 * run's order. */
export function orderResults(results) {
  const rank = (r) => (isRegression(r) ? 0 : r.passed ? 2 : 1);
  return (results || []).map((r, i) => [r, i]).sort((a, b) => rank(a[0]) - rank(b[0]) || a[1] - b[1]).map(([r]) => r);
}

/** A test's result in its previous run, in words. */
export const previousWords = (p) => (p === true ? "passed" : p === false ? "failed" : "no earlier run");

/** A run, in words: its progress while it goes, its outcome once done. */
export function runWords(run) {
  if (!run) return "No run yet.";
  const done = (run.passed || 0) + (run.failed || 0);
  if (run.status === "queued") return `Queued: ${run.total} tests to run.`;
  if (run.status === "running") return `Running: ${done} of ${run.total} tests done.`;
  const regressions = run.regressions ? `, ${run.regressions} ${run.regressions === 1 ? "regression" : "regressions"}` : "";
  return `Done: ${run.passed} passed, ${run.failed} failed${regressions} (${run.total} tests).`;
}

/** The test an assistant message of a transcript becomes: its question (the visitor message just
 * before it) and the sources it cites. null for a message that answers no question. */
export function draftFromAnswer(messages, messageId) {
  const i = (messages || []).findIndex((m) => m.id === messageId);
  const before = i > 0 ? messages[i - 1] : null;
  if (!before || before.role !== "user") return null;
  const m = messages[i];
  const ids = [...new Set((m.citations || []).map((c) => c.sourceId).filter(Boolean))].slice(0, 10);
  return { question: before.content.slice(0, 1000), expectedSourceIds: ids, mustContain: [], mustNotContain: [], expectAnswered: true };
}

/** The test a question becomes (an unanswered one, a corrected one): it must be answered, and, for
 * a correction, say what the correction says when `contains` is given. */
export const draftFromQuestion = (question, contains) => ({
  question: String(question || "").slice(0, 1000),
  expectedSourceIds: [],
  // The first line, at most 200 characters: still words the answer holds verbatim.
  mustContain: contains && String(contains).trim() ? [String(contains).trim().split("\n")[0].trim().slice(0, 200)] : [],
  mustNotContain: [],
  expectAnswered: true,
});
