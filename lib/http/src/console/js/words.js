// What the console says about a conversation and about the widget: who wrote, what they asked
// first, who wrote each message, what still keeps the widget off other sites. Pure: no DOM, so
// that node's tests can import it (tests/js/console_words.test.mjs).

/** Who a conversation is with, as parts to join with " · ": the visitor's name, e-mail address
 * and verified user id when present; "Anonymous visitor" when none is. */
export function visitorParts(visitor) {
  const v = visitor || {};
  const parts = [v.name, v.email, v.userId ? `user ${v.userId}` : null].map((p) => (typeof p === "string" ? p.trim() : p)).filter(Boolean);
  return parts.length ? parts : ["Anonymous visitor"];
}

/** The first question of a conversation: the list item's own field when it carries one, else
 * the first visitor message of `messages` (null when there is none yet). */
export function firstQuestion(conversation, messages) {
  const own = conversation && (conversation.firstQuestion || conversation.firstMessage);
  if (typeof own === "string" && own.trim()) return own.trim();
  const first = (messages || []).find((m) => m.role === "user" && m.content && m.content.trim());
  return first ? first.content.trim() : null;
}

/** A conversation's status in words. */
export const statusWords = (status) => (status === "handoff" ? "waiting for a person" : status === "open" ? "open" : String(status || "open"));

/** Who wrote a message of a transcript. */
export function author(m) {
  if (m.role === "assistant") return m.generatedBy === "welcome" ? "Welcome" : m.generatedBy === "correction" ? "Answer (your correction)" : "Answer";
  return { user: "Visitor", agent: "You (agent)" }[m.role] || m.role;
}

/** A rating in words ("rated up", "rated down: “too long”"); "" for none. */
export function ratingWords(feedback) {
  if (!feedback || !feedback.rating) return "";
  return `rated ${feedback.rating}${feedback.comment ? `: “${feedback.comment}”` : ""}`;
}

/** What still keeps the widget from showing on a site: [] when nothing does. */
export function widgetBlockers(isPublished, origins) {
  const out = [];
  if (!isPublished) out.push("it is not published (visitors cannot reach the chat)");
  if (!origins || !origins.length) out.push("no site is allowed to embed it (every site refuses the widget until you add it below)");
  return out;
}

/** Why a visitor asked for a person, in words ("“No answer about Italy”"); "" when they gave no
 * reason or the conversation is not waiting for one. */
export function handoffReasonWords(conversation) {
  const c = conversation || {};
  const why = typeof c.handoffReason === "string" ? c.handoffReason.trim() : "";
  return c.status === "handoff" && why ? `“${why}”` : "";
}

/** What the unanswered questions of a range say: none asked yet is not "all answered". `totals`:
 * the analytics' totals; `listed`: how many unanswered questions the report lists. */
export function unansweredSummary(totals, listed) {
  const t = totals || {};
  const answers = (t.answered || 0) + (t.unanswered || 0);
  if (!t.messages && !answers) return "No questions yet in this range.";
  if (!t.unanswered) return `None: all ${answers} ${answers === 1 ? "question was" : "questions were"} answered from the knowledge.`;
  if (!listed) return `${t.unanswered} unanswered, in conversations since deleted.`;
  return "";
}

/** A question as corrections compare it (docs/api.md §19): lower case, runs of white space as
 * one space, trimmed. */
export const foldQuestion = (q) => String(q || "").toLowerCase().replace(/\s+/g, " ").trim();

/** The corrections that answer a transcript's assistant messages now: {messageId: correction}
 * for each answer whose question (the visitor message just before it) a correction has. */
export function correctedAnswers(messages, corrections) {
  const byQuestion = new Map((corrections || []).map((c) => [foldQuestion(c.question), c]));
  const out = {};
  (messages || []).forEach((m, i) => {
    const before = messages[i - 1];
    if (m.role !== "assistant" || m.generatedBy === "welcome" || !before || before.role !== "user") return;
    const c = byQuestion.get(foldQuestion(before.content));
    if (c) out[m.id] = c;
  });
  return out;
}
