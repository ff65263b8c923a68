// "Talk to a person" (data-handoff="true"): the owner's team answers in this conversation. While
// a person has it and the page is shown, the conversation is read every 3 s, slower (up to 30 s)
// while nothing new comes, faster again when a reply arrives or the visitor writes; their
// replies are added to the log.

import { el } from "./render.js";
import { POLL_FIRST, nextPollDelay } from "./state.js";

export class Handoff {
  // env: {session, texts, transport, log (a Log), status (a StatusLine), offered (the owner
  // offers it), bar (where its button goes)}.
  constructor(env) {
    Object.assign(this, env);
    this.delay = POLL_FIRST;
    this.timer = 0;
    this.polling = false; // a read is on its way
    const person = el("button", "restart handoff", this.texts.t("handoff"));
    person.setAttribute("data-i18n", "handoff");
    person.type = "button";
    person.id = "handoff";
    person.hidden = true;
    this.bar.appendChild(person);
    this.button = person;
    person.addEventListener("click", () => this.ask());
    document.addEventListener("visibilitychange", () => {
      if (document.hidden) {
        this.unwatch();
      } else if (this.session.handedOff) {
        // Back on the page: look at once, then at the first pace again.
        this.delay = POLL_FIRST;
        this.poll();
      }
    });
  }

  // A conversation is open: the button shows when offered and no person has it yet.
  opened() {
    this.button.hidden = !this.offered || this.session.handedOff;
  }

  // The answer of a question was "nobody answers now": a person has the conversation.
  nobodyAnswers() {
    if (!this.session.handedOff) {
      this.session.handedOff = true;
      this.button.hidden = true;
    }
  }

  ask() {
    const s = this.session;
    if (!s.conversation || s.handedOff) return;
    this.button.disabled = true;
    const mine = s.epoch;
    this.transport
      .handoff(s.conversation)
      .then((body) => {
        if (mine !== s.epoch) return;
        s.handedOff = !!(body && body.conversation && body.conversation.status === "handoff");
        this.button.hidden = s.handedOff;
        this.status.set(s.handedOff ? this.texts.t("handoff.started") : "");
        if (s.handedOff) this.watch();
      })
      .catch((err) => {
        if (mine !== s.epoch) return;
        this.status.set(err && err.fromServer ? err.message : this.texts.t("error.connection"), true, null, "passing");
      })
      .then(() => {
        this.button.disabled = false;
      });
  }

  watch() {
    this.delay = POLL_FIRST;
    this.schedule();
  }

  unwatch() {
    if (this.timer) window.clearTimeout(this.timer);
    this.timer = 0;
  }

  schedule() {
    this.unwatch();
    if (!this.session.handedOff || !this.session.conversation || document.hidden) return;
    this.timer = window.setTimeout(() => this.poll(), this.delay);
  }

  poll() {
    const s = this.session;
    this.timer = 0;
    if (!s.handedOff || !s.conversation || document.hidden || this.polling) return;
    this.polling = true;
    const mine = s.epoch;
    this.transport
      .read(s.conversation)
      .then((res) => {
        if (res.status === 429) {
          this.delay = nextPollDelay(this.delay, "limited", Number(res.headers.get("Retry-After")) * 1000);
          return null;
        }
        if (!res.ok) {
          this.delay = nextPollDelay(this.delay, "failed");
          return null;
        }
        return res.json();
      })
      .then((body) => {
        if (mine !== s.epoch || !body || !body.conversation) return;
        let fresh = false;
        for (const m of (body.messages || []).map((x) => x || {})) {
          if (m.role === "agent" && m.id && !s.seenAgents[m.id]) {
            s.seenAgents[m.id] = true;
            const li = this.log.addAgent(m.content || "");
            li.setAttribute("data-message-id", m.id);
            this.log.follow(li);
            fresh = true;
          }
        }
        if (body.conversation.status !== "handoff") {
          // Handed back: the Mind or chatbot answers again.
          s.handedOff = false;
          this.button.hidden = !this.offered;
          this.status.set("");
        }
        this.delay = nextPollDelay(this.delay, fresh ? "fresh" : "same");
      })
      .catch(() => {
        this.delay = nextPollDelay(this.delay, "failed");
      })
      .then(() => {
        this.polling = false;
        if (mine === s.epoch) this.schedule();
      });
  }
}
