// A chatbot's or Mind's conversations (those waiting for a person first, exports), and one
// conversation's transcript: rate and correct answers, reply as a person, hand back.

import { api, attempt, download } from "./api.js";
import { announce, el, field, fill } from "./dom.js";
import { when } from "./format.js";
import { kinds } from "./kinds.js";
import { layout } from "./shell.js";

export function conversationsSection(kind, id) {
  const k = kinds[kind];
  const body = el("div", {}, "Loading…");
  const exportAs = (format) =>
    el("button", { type: "button", onclick: () => download(`${k.base(id)}/conversations/export?format=${format}`, `conversations-${id}.${format}`) }, `Export ${format.toUpperCase()}`);
  const section = el("section", { "aria-labelledby": "conv-h" }, el("h2", { id: "conv-h" }, "Conversations"), el("div", { class: "row" }, exportAs("jsonl"), exportAs("csv")), body);
  const item = (c) =>
    el(
      "li",
      {},
      el("a", { href: `#/${kind}s/${id}/conversations/${c.id}` }, `${when(c.createdAt)} · ${c.messageCount} messages · ${c.channel}`),
      c.visitor && c.visitor.email ? ` · ${c.visitor.email}` : "",
      c.status === "handoff" ? [" ", el("span", { class: "badge handoff" }, "waiting for a person")] : null,
    );
  attempt(() => api("GET", `${k.base(id)}/conversations?limit=100`)).then((data) => {
    if (!data) return fill(body, el("p", { class: "empty" }, "Conversations need a key with conversations:read."));
    if (!data.conversations.length) return fill(body, el("p", { class: "empty" }, "No conversations yet."));
    const waiting = data.conversations.filter((c) => c.status === "handoff");
    fill(body, 
      waiting.length ? [el("h3", {}, `Waiting for a person (${waiting.length})`), el("ul", { class: "plain inbox" }, waiting.map(item))] : null,
      el("h3", {}, "Latest"),
      el("ul", { class: "plain" }, data.conversations.slice(0, 20).map(item)),
    );
  });
  return section;
}


export async function transcriptView(kind, id, conversationId) {
  const k = kinds[kind];
  const path = `${k.base(id)}/conversations/${conversationId}`;
  const main = layout("Conversation", el("p", { class: "crumbs" }, el("a", { href: `#/${kind}s/${id}` }, "Back"), " / conversation"), el("h1", {}, "Conversation"));
  const holder = el("div", {});
  main.append(holder);
  const draw = async () => {
    const data = await attempt(() => api("GET", path));
    if (!data) return;
    const c = data.conversation;
    const handoff = c.status === "handoff";
    fill(holder, 
      el("p", { class: "meta" }, `${c.channel} · started ${when(c.createdAt)}`, c.visitor && c.visitor.email ? ` · ${c.visitor.email}` : "", handoff ? [" · ", el("span", { class: "badge handoff" }, "waiting for a person")] : ""),
      el("ol", { class: "transcript" }, data.messages.map((m) => message(m))),
      handoff ? replyForm() : null,
    );
  };
  const message = (m) => {
    const who = { user: "Visitor", assistant: "Answer", agent: "You (agent)" }[m.role] || m.role;
    const li = el(
      "li",
      { class: `msg ${m.role}` },
      el("div", { class: "meta" }, who, " · ", when(m.createdAt), m.generatedBy === "correction" ? " · your correction" : "", m.answered === false ? " · not answered from the knowledge" : "", m.feedback ? ` · rated ${m.feedback.rating}${m.feedback.comment ? `: “${m.feedback.comment}”` : ""}` : ""),
      el("p", {}, m.content),
      m.citations && m.citations.length
        ? el("ul", { class: "cites" }, m.citations.map((ct) => el("li", {}, `[${ct.index}] ${ct.sourceName}: `, el("q", {}, ct.quote))))
        : null,
    );
    if (m.role === "assistant" && m.generatedBy !== "welcome") {
      const rate = (rating) => async () => {
        if (await attempt(() => api("POST", `${path}/messages/${m.id}/feedback`, { rating }))) {
          announce(`Rated ${rating}.`);
          draw();
        }
      };
      const fix = el("textarea", { rows: 3, maxlength: 4000 });
      fix.value = m.content;
      const fixForm = el("form", { class: "correct", hidden: true }, field("Your answer to this question", fix, "Asked again (or something close), this is answered as written."), el("button", { type: "submit", class: "primary" }, "Save correction"));
      fixForm.addEventListener("submit", async (e) => {
        e.preventDefault();
        if (await attempt(() => api("PUT", `${path}/messages/${m.id}/correction`, { content: fix.value.trim() }))) {
          announce("Correction saved: the next time this is asked, it is the answer.");
          fixForm.hidden = true;
        }
      });
      li.append(
        el(
          "div",
          { class: "row" },
          el("button", { type: "button", class: "rate-up", onclick: rate("up") }, "Good answer"),
          el("button", { type: "button", class: "rate-down", onclick: rate("down") }, "Bad answer"),
          el("button", { type: "button", onclick: () => { fixForm.hidden = !fixForm.hidden; if (!fixForm.hidden) fix.focus(); } }, "Correct this answer"),
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

