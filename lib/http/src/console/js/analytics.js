// A chatbot's or Mind's analytics (totals, conversations per day as a chart with a table for
// screen readers, most cited sources, unanswered questions) and its corrections.

import { api, attempt } from "./api.js";
import { announce, el, fill } from "./dom.js";
import { kinds } from "./kinds.js";
import { unansweredSummary } from "./words.js";
import { addAsTestButton } from "./tests.js";
import { draftFromQuestion } from "./testwords.js";

export function analyticsSection(kind, id) {
  const k = kinds[kind];
  const body = el("div", {}, "Loading…");
  attempt(() => api("GET", `${k.base(id)}/analytics`)).then((data) => {
    if (!data) return fill(body, el("p", { class: "empty" }, "Analytics need a key with conversations:read."));
    const a = data.analytics;
    const t = a.totals;
    const figure = (label, value) => el("div", { class: "figure" }, el("span", { class: "value" }, value), el("span", { class: "label" }, label));
    fill(body, 
      el("p", { class: "meta" }, `${a.from} to ${a.to} (UTC)`),
      !t.messages && !t.answered && !t.unanswered ? el("p", { class: "empty no-questions" }, "No questions yet in this range: once visitors ask, what was answered and what was not shows here.") : null,
      el(
        "div",
        { class: "figures" },
        figure("conversations", t.conversations),
        figure("questions", t.messages),
        figure("answered", t.answered),
        figure("unanswered", t.unanswered),
        figure("rated up", t.ratingsUp),
        figure("rated down", t.ratingsDown),
        figure("leads", t.leads),
      ),
      chart(a.days),
      el("div", { class: "grid" },
        el("div", { class: "card" }, el("h3", {}, "Most cited sources"),
          a.topSources.length ? el("ol", {}, a.topSources.map((x) => el("li", {}, `${x.sourceName}: ${x.citations}`))) : el("p", { class: "empty" }, "No citations yet.")),
        el("div", { class: "card" }, el("h3", {}, "Unanswered questions"),
          a.unansweredQuestions.length
            ? el("ul", { class: "plain unanswered" }, a.unansweredQuestions.map((q) => el("li", {}, el("q", {}, q.question), " ", el("a", { href: `#/${kind}s/${id}/conversations/${q.conversationId}` }, "Correct this"), " ", addAsTestButton(kind, id, () => draftFromQuestion(q.question)))))
            : el("p", { class: "empty unanswered-summary" }, unansweredSummary(t, 0)))),
    );
  });
  return el("section", { "aria-labelledby": "analytics-h" }, el("h2", { id: "analytics-h" }, "Analytics"), body);
}

/** A bar chart of conversations per day, with answered and unanswered answers in a table for
 * screen readers (the drawing is hidden from them). */
function chart(days) {
  const NS = "http://www.w3.org/2000/svg";
  const w = 600, h = 120, gap = 2;
  const max = Math.max(1, ...days.map((d) => d.conversations));
  const bar = w / Math.max(1, days.length);
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${h + 16}`);
  svg.setAttribute("class", "chart");
  svg.setAttribute("aria-hidden", "true");
  days.forEach((d, i) => {
    const r = document.createElementNS(NS, "rect");
    const height = Math.round((d.conversations / max) * h);
    r.setAttribute("x", String(i * bar + gap / 2));
    r.setAttribute("y", String(h - height));
    r.setAttribute("width", String(Math.max(1, bar - gap)));
    r.setAttribute("height", String(height));
    r.setAttribute("class", "bar");
    const title = document.createElementNS(NS, "title");
    title.textContent = `${d.date}: ${d.conversations} conversations`;
    r.append(title);
    svg.append(r);
  });
  for (const [i, anchor] of [[0, "start"], [days.length - 1, "end"]]) {
    if (!days[i]) continue;
    const label = document.createElementNS(NS, "text");
    label.setAttribute("x", String(anchor === "start" ? 0 : w));
    label.setAttribute("y", String(h + 14));
    label.setAttribute("text-anchor", anchor);
    label.setAttribute("class", "axis");
    label.textContent = days[i].date;
    svg.append(label);
  }
  const active = days.filter((d) => d.conversations || d.messages);
  const table = el(
    "table",
    { class: "sr" },
    el("caption", {}, "Conversations per day"),
    el("thead", {}, el("tr", {}, ["Day", "Conversations", "Answered", "Unanswered"].map((x) => el("th", { scope: "col" }, x)))),
    el("tbody", {}, active.map((d) => el("tr", {}, el("td", {}, d.date), el("td", {}, d.conversations), el("td", {}, d.answered), el("td", {}, d.unanswered)))),
  );
  return el("figure", { class: "card" }, el("figcaption", {}, "Conversations per day"), svg, table);
}

export function correctionsSection(kind, id) {
  const k = kinds[kind];
  const body = el("div", {}, "Loading…");
  const load = async () => {
    const data = await attempt(() => api("GET", `${k.base(id)}/corrections?limit=100`));
    if (!data) return fill(body, el("p", { class: "empty" }, "Corrections need a key with conversations:read."));
    if (!data.corrections.length) return fill(body, el("p", { class: "empty" }, "No corrections: correct an answer from its conversation."));
    fill(body, 
      el(
        "ul",
        { class: "cards" },
        data.corrections.map((c) =>
          el(
            "li",
            { class: "card" },
            el("div", { class: "meta" }, "When asked ", el("q", {}, c.question)),
            el("p", {}, c.content),
            el("div", { class: "row" },
              addAsTestButton(kind, id, () => draftFromQuestion(c.question, c.content)),
              el("button", { type: "button", class: "danger", onclick: async () => { if (await attempt(() => api("DELETE", `${k.base(id)}/corrections/${c.id}`))) { announce("Correction deleted."); load(); } } }, "Delete correction")),
          ),
        ),
      ),
    );
  };
  load();
  return el("section", { "aria-labelledby": "corr-h" }, el("h2", { id: "corr-h" }, "Corrections"), body);
}
