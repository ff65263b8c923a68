// The conversation on the page (#log): the visitor's questions, answers as they are written
// (Markdown, their sources, a speaker button), the owner's actions the model called while
// writing one (a line each: "Checking lookup order…", then "Checked lookup order"), a person's
// replies after a hand-off, and the latest message kept in view above the message box while the
// visitor has not scrolled away.

import { el, outLink, paragraphs, renderAnswer } from "./render.js";
import { readEvents } from "./transport.js";
import { httpUrl } from "./markdown.js";

export class Log {
  // env: {log, composer (elements), session, texts, showSources, speaker (adds a speaker
  // button: speaker(tools, messageId)), onNobodyAnswers (a question stored without an answer:
  // the conversation is with a person)}.
  constructor(env) {
    Object.assign(this, env);
    // Calls of actions are announced here, politely: the answer they belong to is aria-busy
    // while it is written, and a live region inside it would stay silent.
    this.announcer = el("p", "visually-hidden");
    this.announcer.id = "action-status";
    this.announcer.setAttribute("role", "status");
    this.announcer.setAttribute("aria-live", "polite");
    if (this.log.parentNode) this.log.parentNode.insertBefore(this.announcer, this.log.nextSibling);
    // The visitor scrolling away stops the following until the next question.
    window.addEventListener("wheel", (e) => {
      if (e.deltaY < 0) this.session.following = false;
    }, { passive: true });
    window.addEventListener("touchmove", () => { this.session.following = false; }, { passive: true });
  }

  // The log itself when it scrolls (the embedded chat), else null (the page scrolls).
  scroller() {
    const style = window.getComputedStyle(this.log);
    if ((style.overflowY === "auto" || style.overflowY === "scroll") && this.log.scrollHeight > this.log.clientHeight) {
      return this.log;
    }
    return null;
  }

  reveal(li) {
    if (!li || !li.isConnected) return;
    const box = li.getBoundingClientRect();
    const own = this.scroller();
    if (own) {
      const area = own.getBoundingClientRect();
      const down = box.bottom - area.bottom + 8;
      if (down > 0) own.scrollTop += down;
      return;
    }
    // The page scrolls; the composer sticks to the bottom of the viewport and covers what is under it.
    let limit = window.innerHeight;
    if (!this.composer.hidden) {
      const c = this.composer.getBoundingClientRect();
      if (c.top < limit && c.bottom >= limit - 2) limit = c.top;
    }
    const by = box.bottom - limit + 8;
    if (by > 0) window.scrollBy(0, by);
  }

  follow(li) {
    if (this.session.following) this.reveal(li);
  }

  add(role, text) {
    const li = el("li", "msg " + role);
    const bubble = el("div", "bubble", text);
    bubble.dir = "auto"; // a message reads in its own direction, whatever the page's
    li.appendChild(bubble);
    this.log.appendChild(li);
    this.reveal(li);
    return { li, bubble };
  }

  // A message written by a person of the owner's team (hand-off).
  addAgent(text) {
    const li = el("li", "msg agent");
    li.appendChild(el("span", "who", this.texts.t("agent")));
    const bubble = el("div", "bubble", text);
    bubble.dir = "auto";
    li.appendChild(bubble);
    this.log.appendChild(li);
    return li;
  }

  addWelcome(text) {
    const li = el("li", "msg assistant welcome");
    const bubble = el("div", "bubble");
    bubble.dir = "auto";
    paragraphs(bubble, text);
    li.appendChild(bubble);
    this.log.appendChild(li);
  }

  // The passages an answer cites, in a <details> under it (when sources are shown).
  sources(tools, citations, key) {
    if (!this.showSources || !citations.length) return null;
    const details = el("details", "sources");
    details.appendChild(el("summary", null, this.texts.plural("sources", citations.length)));
    const list = el("ol");
    for (const c of citations) {
      const item = el("li");
      item.id = key + "-" + c.index;
      item.appendChild(el("span", "name", "[" + c.index + "] " + (c.sourceName || "")));
      if (httpUrl(c.url)) {
        item.appendChild(document.createTextNode(" "));
        item.appendChild(outLink(this.texts.t("source.page"), c.url, null));
      }
      if (c.quote) item.appendChild(el("blockquote", null, c.quote));
      list.appendChild(item);
    }
    details.appendChild(list);
    tools.appendChild(details);
    return details;
  }

  // ---- Actions: a line in the answer's bubble per call, above its text. An action's name is
  // the owner's (lookup_order: "lookup order"); its arguments and what it answered are never
  // shown. ----

  actionText(key, name) {
    const action = String(name || "").replace(/_/g, " ").replace(/\s+/g, " ").trim();
    return this.texts.t(key, { action });
  }

  // The lines of `answer`, made on the first call; kept above the text the bubble is redrawn with.
  actionLines(answer) {
    if (!answer.actions) {
      answer.actions = el("div", "actions");
      answer.actions.setAttribute("data-actions", "");
    }
    if (answer.actions.parentNode !== answer.bubble) answer.bubble.insertBefore(answer.actions, answer.bubble.firstChild);
    return answer.actions;
  }

  keepActions(answer) {
    if (answer.actions && answer.actions.firstChild) this.actionLines(answer);
  }

  // A call's line, as it ended ({name, status}): ok, else failed (error, timeout, invalid).
  endedLine(line, call) {
    const ok = call.status === "ok";
    line.className = "action " + (ok ? "ok" : "failed");
    line.setAttribute("data-status", String(call.status || ""));
    line.textContent = this.actionText(ok ? "action.done" : "action.failed", call.name);
    return line;
  }

  // `event: action_started` ({name}): the model calls an action now.
  actionStarted(answer, started) {
    const line = el("p", "action running", this.actionText("action.running", started.name));
    line.setAttribute("data-name", String(started.name || ""));
    this.actionLines(answer).appendChild(line);
    answer.bubble.classList.remove("typing"); // the line says what is happening
    this.announce(line.textContent);
    this.follow(answer.li);
  }

  // `event: action` ({name, status, …}): a call ended (its line was started, or is new: a call
  // refused before it was made has no start).
  actionEnded(answer, call, hasText) {
    const lines = this.actionLines(answer);
    let line = null;
    for (const p of lines.querySelectorAll("p.action.running")) {
      if (p.getAttribute("data-name") === String(call.name || "")) {
        line = p;
        break;
      }
    }
    if (!line) line = lines.appendChild(el("p"));
    this.endedLine(line, call);
    if (!hasText && !lines.querySelector("p.action.running")) answer.bubble.classList.add("typing");
    this.announce(line.textContent);
    this.follow(answer.li);
  }

  // The calls of a complete message (`message.actions`), in place of the lines drawn so far.
  showActions(answer, calls) {
    if (!Array.isArray(calls) || !calls.length) {
      // None listed: a line still "checking" is over.
      if (answer.actions) for (const p of answer.actions.querySelectorAll("p.action.running")) p.remove();
      this.keepActions(answer);
      return;
    }
    const lines = this.actionLines(answer);
    lines.textContent = "";
    for (const call of calls) lines.appendChild(this.endedLine(el("p"), call || {}));
  }

  announce(text) {
    this.announcer.textContent = text;
  }

  // The answer `answer` ({li, bubble}) complete as `message` says.
  finish(answer, message) {
    message = message || {};
    if (message.role && message.role !== "assistant") {
      // Nobody answers now (a conversation handed to a person): the question is stored, and the
      // person's replies are polled for.
      answer.li.remove();
      this.onNobodyAnswers();
      return;
    }
    const citations = this.showSources ? message.citations || [] : [];
    answer.bubble.classList.remove("typing");
    answer.li.setAttribute("aria-busy", "false");
    answer.li.setAttribute("data-message-id", message.id || "");
    renderAnswer(answer.bubble, message.content || "", citations, message.id, this.texts);
    this.showActions(answer, message.actions);
    const tools = el("div", "tools");
    const details = this.sources(tools, citations, message.id);
    this.speaker(tools, message.id);
    if (tools.firstChild) answer.li.appendChild(tools);
    if (details) {
      // A marker opens the list of sources it points into.
      for (const marker of answer.bubble.querySelectorAll("a.marker")) {
        marker.addEventListener("click", () => { details.open = true; });
      }
    }
  }

  // An answer streamed as events (`res`), drawn as it is written; resolves once complete, and
  // fails with the stream's error (transport.streamError) when it ends without one.
  stream(res, answer, transport) {
    let text = "";
    let citations = [];
    let done = null;
    let failed = null;
    let frame = 0;
    const paint = () => {
      frame = 0;
      if (done) return;
      answer.bubble.classList.remove("typing");
      renderAnswer(answer.bubble, text, citations, "pending", this.texts);
      this.keepActions(answer);
      this.follow(answer.li);
    };
    return readEvents(res, (name, value) => {
      if (name === "citations") {
        citations = this.showSources ? value.citations || [] : [];
      } else if (name === "delta") {
        text += value.text || "";
        // Rendered once a frame at most (a hidden tab gets no frames: then at once).
        if (window.requestAnimationFrame && !document.hidden) {
          if (!frame) frame = window.requestAnimationFrame(paint);
        } else {
          paint();
        }
      } else if (name === "action_started") {
        if (value.name) this.actionStarted(answer, value);
      } else if (name === "action") {
        if (value.action) this.actionEnded(answer, value.action, !!text);
      } else if (name === "done") {
        done = value.message;
      } else if (name === "error") {
        failed = value.error;
      }
    }).then(() => {
      if (frame && window.cancelAnimationFrame) window.cancelAnimationFrame(frame);
      frame = 0;
      if (failed || !done) throw transport.streamError(failed);
      this.finish(answer, done);
    });
  }

  // The messages of a conversation read again (an earlier visit's), in place of the log's.
  show(messages) {
    this.log.textContent = "";
    let last = null;
    for (const m of messages.map((x) => x || {})) {
      if (m.role === "user") {
        last = this.add("user", m.content || "").li;
      } else if (m.role === "agent") {
        last = this.addAgent(m.content || "");
        if (m.id) this.session.seenAgents[m.id] = true;
      } else if (m.role === "assistant" && m.generatedBy === "welcome") {
        this.addWelcome(m.content || "");
      } else if (m.role === "assistant") {
        const answer = this.add("assistant", "");
        this.finish(answer, m);
        last = answer.li;
      }
    }
    if (last) this.reveal(last);
  }
}
