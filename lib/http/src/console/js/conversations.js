// A chatbot's or Mind's conversations (those waiting for a person first, exports), and one
// conversation's transcript: rate and correct answers, reply as a person, hand back. A conversation
// held on Slack, Telegram or WhatsApp says so, and the transcript warns when a message did not reach it.

import { api, attempt, download } from "./api.js";
import { announce, el, field, fill } from "./dom.js";
import { when } from "./format.js";
import { kinds } from "./kinds.js";
import { markdown, plain } from "./markup.js";
import { layout } from "./shell.js";
import { addAsTestButton } from "./tests.js";
import { callLines } from "./actions.js";
import { channelName, onPlatform } from "./channels.js";
import { draftFromAnswer } from "./testwords.js";
import { author, correctedAnswers, firstQuestion, handoffReasonWords, ratingWords, statusWords, visitorParts } from "./words.js";

/** A conversation's platform as a badge ("Slack"), or null when it is not held on one. */
const channelBadge = (c) => (onPlatform(c.channel) ? el("span", { class: "badge channel" }, channelName(c.channel)) : null);

export function conversationsSection(kind, id) {
  const k = kinds[kind];
  const body = el("div", {}, "Loading…");
  const exportAs = (format) =>
    el("button", { type: "button", onclick: () => download(`${k.base(id)}/conversations/export?format=${format}`, `conversations-${id}.${format}`) }, `Export ${format.toUpperCase()}`);
  const section = el("section", { "aria-labelledby": "conv-h" }, el("h2", { id: "conv-h" }, "Conversations"), el("div", { class: "row" }, exportAs("jsonl"), exportAs("csv")), body);
  const item = (c) => {
    // The list carries no messages: the first question is read when the owner opens it.
    const asked = firstQuestion(c, null);
    const question = el("p", { class: "question" }, asked ? el("q", {}, asked) : null);
    const more = asked ? null : el("details", {}, el("summary", {}, "First question"), question);
    if (more) {
      more.addEventListener("toggle", async () => {
        if (!more.open || more.dataset.loaded) return;
        more.dataset.loaded = "1";
        fill(question, "Loading…");
        const data = await attempt(() => api("GET", `${k.base(id)}/conversations/${c.id}`));
        const q = data && firstQuestion(data.conversation, data.messages);
        fill(question, q ? el("q", {}, q) : el("span", { class: "empty" }, data ? "No question yet." : "Could not be read."));
      });
    }
    return el(
      "li",
      { class: "conv", "data-conversation": c.id },
      el("a", { href: `#/${kind}s/${id}/conversations/${c.id}`, class: "visitor" }, visitorParts(c.visitor).join(" · ")),
      " ",
      el("span", { class: `badge ${c.status === "handoff" ? "handoff" : "open"}` }, statusWords(c.status)),
      channelBadge(c) ? [" ", channelBadge(c)] : null,
      handoffReasonWords(c) ? el("p", { class: "reason" }, el("span", { class: "label" }, "Reason: "), handoffReasonWords(c)) : null,
      el("div", { class: "meta" }, `${when(c.createdAt)} · ${c.messageCount} messages · ${channelName(c.channel)}`),
      asked ? question : more,
    );
  };
  attempt(() => api("GET", `${k.base(id)}/conversations?limit=100`)).then((data) => {
    if (!data) return fill(body, el("p", { class: "empty" }, "Conversations need a key with conversations:read."));
    if (!data.conversations.length) return fill(body, el("p", { class: "empty" }, "No conversations yet."));
    const waiting = data.conversations.filter((c) => c.status === "handoff");
    fill(body,
      waiting.length ? [el("h3", {}, `Waiting for a person (${waiting.length})`), el("ul", { class: "plain convs inbox" }, waiting.map(item))] : null,
      el("h3", {}, "Latest"),
      el("ul", { class: "plain convs" }, data.conversations.slice(0, 20).map(item)),
    );
  });
  return section;
}

export async function transcriptView(kind, id, conversationId) {
  const k = kinds[kind];
  const path = `${k.base(id)}/conversations/${conversationId}`;
  const main = layout("Conversation", el("p", { class: "crumbs" }, el("a", { href: `#/${kind}s/${id}/conversations` }, "Conversations"), " / one conversation"), el("h1", {}, "Conversation"));
  const holder = el("div", {});
  main.append(holder);
  const transcript = el("ol", { class: "transcript" });
  // The messages on screen, and the corrections that answer their questions now.
  let messages = [];
  let corrected = {};
  const render = (focus) => {
    fill(transcript, messages.map((m) => message(m)));
    if (focus) {
      const target = transcript.querySelector(`li[data-message="${focus.id}"] ${focus.selector}`);
      if (target) target.focus();
    }
  };
  const draw = async () => {
    const [data, fixes] = await Promise.all([attempt(() => api("GET", path)), attempt(() => api("GET", `${k.base(id)}/corrections?limit=100`))]);
    if (!data) return;
    const c = data.conversation;
    const handoff = c.status === "handoff";
    const reason = handoffReasonWords(c);
    messages = data.messages;
    corrected = correctedAnswers(messages, fixes ? fixes.corrections : []);
    render();
    fill(holder,
      el("p", { class: "visitor" }, visitorParts(c.visitor).join(" · "), " ", el("span", { class: `badge ${handoff ? "handoff" : "open"}` }, statusWords(c.status)), channelBadge(c) ? [" ", channelBadge(c)] : null),
      c.channelError
        ? el("p", { class: "channel-warning" }, el("strong", {}, `⚠ A message did not reach ${channelName(c.channel)}`), ` (${when(c.channelError.at)}): `, c.channelError.message)
        : null,
      reason ? el("p", { class: "reason" }, el("span", { class: "label" }, "Why they asked for a person: "), reason) : null,
      el("p", { class: "meta" }, `${channelName(c.channel)} · started ${when(c.createdAt)} · ${c.messageCount} messages`),
      transcript,
      handoff ? replyForm() : null,
    );
  };
  const message = (m) => {
    const welcome = m.generatedBy === "welcome";
    const key = `cite-${m.id}`;
    const rating = ratingWords(m.feedback);
    const fixed = corrected[m.id];
    const li = el(
      "li",
      { class: `msg ${m.role}${welcome ? " welcome" : ""}${fixed ? " corrected" : ""}`, "data-message": m.id },
      el("div", { class: "meta" }, el("strong", {}, author(m)), " · ", when(m.createdAt), m.answered === false ? " · not answered from the knowledge" : "", rating ? [" · ", el("span", { class: `badge rating ${m.feedback.rating}` }, rating)] : ""),
      el("div", { class: "text" }, m.role === "assistant" && !welcome ? markdown(m.content, m.citations, key) : plain(m.content)),
      callLines(m),
      fixed ? el("div", { class: "fixed-note" }, el("strong", {}, "Corrected"), " — visitors now get your answer: ", el("q", {}, fixed.content)) : null,
      m.citations && m.citations.length
        ? el("ol", { class: "cites", "aria-label": "Sources cited" }, m.citations.map((ct) => el("li", { id: `${key}-${ct.index}` }, `[${ct.index}] ${ct.sourceName}: `, el("q", {}, ct.quote))))
        : null,
    );
    if (m.role === "assistant" && m.generatedBy !== "welcome") {
      const rate = (rating) => async () => {
        const done = await attempt(() => api("POST", `${path}/messages/${m.id}/feedback`, { rating }));
        if (done) {
          messages = messages.map((x) => (x.id === m.id ? { ...x, feedback: done.message.feedback } : x));
          render({ id: m.id, selector: `button.rate-${rating}` });
          announce(`Rated ${rating === "up" ? "a good answer" : "a bad answer"}: the answer shows it.`);
        }
      };
      const fix = el("textarea", { rows: 3, maxlength: 4000 });
      fix.value = fixed ? fixed.content : m.content;
      const fixForm = el("form", { class: "correct", hidden: true }, field("Your answer to this question", fix, "Asked again (or something close), this is answered as written."), el("button", { type: "submit", class: "primary" }, "Save correction"));
      fixForm.addEventListener("submit", async (e) => {
        e.preventDefault();
        const saved = await attempt(() => api("PUT", `${path}/messages/${m.id}/correction`, { content: fix.value.trim() }));
        if (saved) {
          // Every answer to that question in this transcript is corrected now.
          corrected = correctedAnswers(messages, [...Object.values(corrected), saved.correction]);
          render({ id: m.id, selector: "button.correct-toggle" });
          announce("Corrected — visitors now get your answer when they ask this again.");
        }
      });
      li.append(
        el(
          "div",
          { class: "row" },
          el("button", { type: "button", class: "rate-up", "aria-pressed": String(m.feedback?.rating === "up"), onclick: rate("up") }, "Good answer"),
          el("button", { type: "button", class: "rate-down", "aria-pressed": String(m.feedback?.rating === "down"), onclick: rate("down") }, "Bad answer"),
          draftFromAnswer(messages, m.id) ? addAsTestButton(kind, id, () => draftFromAnswer(messages, m.id)) : null,
          el("button", { type: "button", class: "correct-toggle", "aria-expanded": "false", onclick: (e) => { fixForm.hidden = !fixForm.hidden; e.currentTarget.setAttribute("aria-expanded", String(!fixForm.hidden)); if (!fixForm.hidden) fix.focus(); } }, fixed ? "Change the correction" : "Correct this answer"),
        ),
        fixForm,
      );
    }
    return li;
  };
  const replyForm = () => {
    const text = el("textarea", { rows: 3, required: true, maxlength: 4000 });
    const form = el("form", { class: "card" }, el("h2", {}, "Reply as a person"), field("Your reply", text, "The visitor sees it in the chat."), el("div", { class: "row" }, el("button", { type: "submit", class: "primary" }, "Send reply"), el("button", { type: "button", onclick: async () => { if (await attempt(() => api("POST", `${path}/resume`))) { announce("Handed back: the assistant answers again."); draw(); } } }, "Hand back to the assistant")));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      if (await attempt(() => api("POST", `${path}/messages`, { content: text.value.trim(), role: "agent" }))) {
        announce("Reply sent.");
        draw();
      }
    });
    return form;
  };
  await draw();
}

