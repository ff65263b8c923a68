// A chatbot's or Mind's answer tests (docs/api.md §21): pinned questions and what their answers
// must be, a form to add or change one, "Run all" with the run followed until it is done, and the
// latest run's results, failed tests (regressions first) on top. Other views hand a test over to
// add with `addAsTest` (an answer of a transcript, an unanswered question, a correction).

import { api, attempt } from "./api.js";
import { announce, el, field, fill, newId } from "./dom.js";
import { when } from "./format.js";
import { kinds } from "./kinds.js";
import { sectionHref } from "./router.js";
import { later, pollDelay } from "./state.js";
import { checkWords, isRegression, orderResults, previousWords, runWords, testBody } from "./testwords.js";

/** A test handed over by another view, to open the form with (taken once). */
let handed = null;

/** Opens the Tests section of `kind`/`id` with the form filled from `draft` ({question,
 * expectedSourceIds, mustContain, mustNotContain, expectAnswered}), for the owner to check and add. */
export function addAsTest(kind, id, draft) {
  handed = { kind, id, draft };
  location.hash = sectionHref(kind, id, "tests");
}

/** A button that hands `draft()` over to the Tests section. */
export const addAsTestButton = (kind, id, draft, label = "Add as test") =>
  el("button", { type: "button", class: "add-test", onclick: () => addAsTest(kind, id, draft()) }, label);

/** How long a run is followed at most between two readings (its progress shows at least this often). */
const RUN_POLL_MAX_MS = 5000;

export function testsSection(kind, id) {
  const k = kinds[kind];
  const base = k.base(id);
  const names = {}; // sourceId → name, for the checks in words
  let sources = [];
  let tests = [];
  let editing = null; // the test being changed, or null when adding

  // ---- the form ------------------------------------------------------------------------------
  const question = el("textarea", { rows: 2, maxlength: 1000, required: true });
  const sourceBox = el("fieldset", { class: "expected" }, el("legend", {}, "Expected sources"), el("p", { class: "hint" }, "Loading…"));
  const contains = el("textarea", { rows: 2 });
  const notContains = el("textarea", { rows: 2 });
  const answered = el("input", { type: "checkbox", checked: true, id: newId() });
  const formTitle = el("h3", {}, "Add a test");
  const submit = el("button", { type: "submit", class: "primary" }, "Add test");
  const cancel = el("button", { type: "button", hidden: true, onclick: () => reset() }, "Cancel");
  const form = el(
    "form",
    { class: "card test-form", "aria-label": "Answer test" },
    formTitle,
    field("Question", question, "Asked as a visitor's first question, up to 1,000 characters."),
    sourceBox,
    el("div", { class: "grid" },
      field("Must contain", contains, "One phrase a line (case does not matter); at most 10."),
      field("Must not contain", notContains, "One phrase a line; at most 10.")),
    el("div", { class: "check" }, answered, el("label", { for: answered.id }, "Expect it answered from the knowledge")),
    el("div", { class: "row" }, submit, cancel),
  );

  const chosen = () => Array.from(sourceBox.querySelectorAll("input[type=checkbox]:checked")).map((b) => b.value);
  /** Every source, page by page: a test may expect any of them (a chatbot has no source cap,
   * and one missing here would read as deleted and be dropped on save). */
  async function loadSources() {
    const all = [];
    for (let page = 1; ; page++) {
      const data = await attempt(() => api("GET", `${k.sources(id)}?limit=100&page=${page}`));
      if (!data) break;
      all.push(...data.sources);
      if (page >= data.pagination.totalPages) break;
    }
    sources = all;
    for (const s of sources) names[s.id] = s.name;
  }

  function drawSources(selected) {
    const picked = new Set(selected || []);
    // An expected source deleted since: said, and left out when the test is saved.
    const gone = [...picked].filter((sid) => !sources.some((s) => s.id === sid));
    const goneNote = gone.length ? el("p", { class: "hint gone" }, `No longer in the knowledge, left out when you save: ${gone.map((sid) => names[sid] || sid).join(", ")}.`) : null;
    if (!sources.length) return fill(sourceBox, el("legend", {}, "Expected sources"), el("p", { class: "hint" }, "No sources yet: add knowledge first, or leave this unchecked."), goneNote);
    fill(sourceBox,
      el("legend", {}, "Expected sources"),
      el("p", { class: "hint" }, "The answer must cite at least one of those chosen (none chosen: not checked)."),
      goneNote,
      sources.map((s) => {
        const box = el("input", { type: "checkbox", value: s.id, id: newId(), checked: picked.has(s.id) });
        return el("div", { class: "check" }, box, el("label", { for: box.id }, s.name));
      }));
  }

  function fillForm(t, title) {
    question.value = t.question || "";
    contains.value = (t.mustContain || []).join("\n");
    notContains.value = (t.mustNotContain || []).join("\n");
    answered.checked = t.expectAnswered !== false;
    drawSources(t.expectedSourceIds);
    formTitle.textContent = title;
  }

  function reset() {
    editing = null;
    fillForm({}, "Add a test");
    submit.textContent = "Add test";
    cancel.hidden = true;
  }

  async function edit(t) {
    editing = t;
    await loadSources(); // the knowledge may have changed since the section was opened
    fillForm(t, "Change the test");
    submit.textContent = "Save test";
    cancel.hidden = false;
    form.scrollIntoView({ block: "start" });
    question.focus();
  }

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = testBody({ question: question.value, sourceIds: chosen(), mustContain: contains.value, mustNotContain: notContains.value, expectAnswered: answered.checked });
    const done = editing
      ? await attempt(() => api("PATCH", `${base}/tests/${editing.id}`, body))
      : await attempt(() => api("POST", `${base}/tests`, body));
    if (!done) return;
    announce(editing ? "Test saved." : "Test added: run the tests to see it pass or fail.");
    reset();
    loadTests();
  });

  // ---- the list --------------------------------------------------------------------------------
  const list = el("div", {}, "Loading…");
  async function loadTests() {
    const all = [];
    for (let page = 1; page <= 5; page++) {
      const data = await attempt(() => api("GET", `${base}/tests?limit=100&page=${page}`));
      if (!data) return fill(list, el("p", { class: "empty" }, "Tests need a key with conversations:read."));
      all.push(...data.tests);
      if (page >= data.pagination.totalPages) break;
    }
    tests = all;
    if (!tests.length) return fill(list, el("p", { class: "empty" }, "No tests yet: add one below, or use “Add as test” on an answer of a conversation, an unanswered question or a correction."));
    fill(list, el(
      "table",
      { class: "tests" },
      el("caption", { class: "sr" }, "Answer tests"),
      el("thead", {}, el("tr", {}, ["Question", "Checks", "Last result", "Actions"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, tests.map((t) => el(
        "tr",
        { "data-test": t.id },
        el("th", { scope: "row" }, t.question),
        el("td", { "data-label": "Checks" }, el("ul", { class: "checks" }, checkWords(t, names).map((w) => el("li", {}, w)))),
        el("td", { "data-label": "Last result" }, t.lastResult ? el("span", { class: `badge ${t.lastResult.passed ? "ready" : "failed"}` }, t.lastResult.passed ? "passed" : "failed") : el("span", { class: "badge pending" }, "not run yet")),
        el("td", {}, el("div", { class: "test-actions" },
          el("button", { type: "button", "aria-label": `Edit the test “${t.question.slice(0, 60)}”`, onclick: () => edit(t) }, "Edit"),
          el("button", { type: "button", class: "danger", "aria-label": `Delete the test “${t.question.slice(0, 60)}”`, onclick: () => remove(t) }, "Delete"))),
      ))),
    ));
  }

  async function remove(t) {
    if (!confirm(`Delete the test “${t.question}”?`)) return;
    if (await attempt(() => api("DELETE", `${base}/tests/${t.id}`))) {
      announce("Test deleted.");
      if (editing && editing.id === t.id) reset();
      loadTests();
    }
  }

  // ---- runs ------------------------------------------------------------------------------------
  const runLine = el("p", { class: "run-status", role: "status", "aria-live": "polite" }, "");
  const runAll = el("button", { type: "button", class: "primary run-all", onclick: () => start() }, "Run all");
  const results = el("div", { class: "results-holder" });
  let following = null; // the run being followed
  let failures = 0;

  async function start() {
    try {
      const made = await api("POST", `${base}/test-runs`, {});
      announce("Run started: its results show here when it ends.");
      follow(made.run.id);
    } catch (e) {
      if (e.code === "run_in_progress") {
        announce("A run is already going: its results show here when it ends.");
        const latest = await attempt(() => api("GET", `${base}/test-runs?limit=1`));
        if (latest && latest.runs[0]) follow(latest.runs[0].id);
      } else if (e.status !== 401) announce(e.message, "error");
    }
  }

  function follow(runId) {
    following = runId;
    failures = 0;
    runAll.disabled = true;
    read(runId);
  }

  async function read(runId) {
    if (following !== runId) return;
    let data;
    try {
      data = await api("GET", `${base}/test-runs/${runId}`);
    } catch (e) {
      if (e.status === 401 || following !== runId) return;
      if (e.status === 404) {
        following = null;
        runAll.disabled = false;
        return announce(e.message, "error");
      }
      failures++;
      later(() => read(runId), Math.min(pollDelay(failures), RUN_POLL_MAX_MS * 3));
      return;
    }
    failures = 0;
    runLine.textContent = runWords(data.run);
    if (data.run.status !== "done") {
      // A second, then slower while the run takes long, at most RUN_POLL_MAX_MS between readings.
      later(() => read(runId), Math.min(1000 + 250 * (data.run.passed + data.run.failed), RUN_POLL_MAX_MS));
      return;
    }
    following = null;
    runAll.disabled = false;
    showResults(data.run, data.results);
    loadTests();
  }

  function showResults(run, rows) {
    const ordered = orderResults(rows);
    fill(results,
      el("h3", {}, `Results of the run of ${when(run.startedAt)}`),
      el("table", { class: "test-results" },
        el("caption", { class: "sr" }, "Results of the latest run, failed tests first"),
        el("thead", {}, el("tr", {}, ["Test", "Result", "Previous run", "What failed"].map((h) => el("th", { scope: "col" }, h)))),
        el("tbody", {}, ordered.map((r) => {
          const regression = isRegression(r);
          const failed = (r.checks || []).filter((c) => !c.passed);
          return el(
            "tr",
            { class: `${r.passed ? "passed" : "failed"}${regression ? " regression" : ""}`, "data-result": r.testId },
            el("th", { scope: "row" }, r.question),
            el("td", { "data-label": "Result" },
              el("span", { class: `badge ${r.passed ? "ready" : "failed"}` }, r.passed ? "passed" : "failed"),
              regression ? el("strong", { class: "regression-note" }, " ▼ Regression: it passed the run before") : null),
            el("td", { "data-label": "Previous run" }, previousWords(r.previousPassed)),
            el("td", { "data-label": "What failed" },
              failed.length ? el("ul", { class: "checks" }, failed.map((c) => el("li", {}, el("strong", {}, `${c.check}: `), c.detail))) : "—",
              el("details", {}, el("summary", {}, "The answer"), el("p", { class: "answer" }, r.answer))),
          );
        }))),
    );
  }

  async function latestRun() {
    const data = await attempt(() => api("GET", `${base}/test-runs?limit=1`));
    if (!data) return;
    const run = data.runs[0];
    runLine.textContent = runWords(run);
    if (!run) return;
    if (run.status !== "done") return follow(run.id);
    const full = await attempt(() => api("GET", `${base}/test-runs/${run.id}`));
    if (full) showResults(full.run, full.results);
  }

  // ---- start -----------------------------------------------------------------------------------
  (async () => {
    await loadSources();
    const given = handed && handed.kind === kind && handed.id === id ? handed.draft : null;
    handed = null;
    if (given) {
      fillForm(given, "Add a test");
      announce("Check the test below, then add it.");
      form.scrollIntoView({ block: "start" });
      question.focus();
    } else drawSources([]);
    loadTests();
    latestRun();
  })();

  return el(
    "section",
    { "aria-labelledby": "tests-h" },
    el("h2", { id: "tests-h" }, "Answer tests"),
    el("p", { class: "hint" }, "Questions whose answers you want to keep right: run them after changing knowledge or settings, and see what broke."),
    el("div", { class: "row" }, runAll, runLine),
    results,
    el("h3", {}, "Tests"),
    list,
    form,
  );
}
