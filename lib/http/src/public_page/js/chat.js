// The chat of a published Mind's or chatbot's page (GET /m/{slug}, GET /c/{slug}, and the same
// page framed by widget.js with ?embed=1): ES modules without dependencies, served next to the
// page (…/{slug}/assets/) and loaded by the page's one script under its CSP nonce. It talks to
// the visitor routes under data-endpoint (else the page's own path): POST …/conversations,
// GET …/conversations/{id}, POST …/conversations/{id}/messages, GET …/speech,
// POST …/conversations/{id}/handoff (data-handoff="true": "Talk to a person"; while a person has
// the conversation, its replies are read back by polling the conversation).
// Everything the server sends is inserted as text (textContent, text nodes, elements made with
// createElement), never as HTML, and only http(s) links are made: a Mind's fields, its sources
// and the model's answers are untrusted.
//
// This module wires the others together and holds the conversation's flow: questions sent one
// after the other, the e-mail gate, "New conversation", and the conversation of an earlier
// visit shown again. The modules: i18n.js and language.js (fixed texts), markdown.js and
// render.js (answers as elements), protocol.js and transport.js (the visitor routes), state.js
// (the session and its rules), log.js (the conversation on the page), speaker.js, handoff.js,
// composer.js.

import { Texts, wantedLanguage } from "./i18n.js";
import { showLanguage } from "./language.js";
import { StatusLine, el } from "./render.js";
import { retryable } from "./protocol.js";
import { Transport, canStream } from "./transport.js";
import {
  LIMIT, Kept, endpointOf, keptFor, newSession, openingBody, parseIdentity, restarted, storeKeyOf, waiting,
} from "./state.js";
import { Log } from "./log.js";
import { speakerFor } from "./speaker.js";
import { Handoff } from "./handoff.js";
import { ownDirection, setUpComposer } from "./composer.js";

const root = document.getElementById("chat");
if (root) start(root);

function start(root) {
  const unsupported = document.getElementById("unsupported");
  if (!window.fetch || !window.JSON || !window.Promise) {
    unsupported.hidden = false;
    return;
  }
  const byId = (id) => document.getElementById(id);

  // ---- Fixed texts in the visitor's language. ----
  let catalogue = {};
  try {
    catalogue = JSON.parse(byId("lore-texts").textContent) || {};
  } catch (e) {
    /* no catalogue: the keys are shown, the page's own texts stay */
  }
  const texts = new Texts(catalogue, document.documentElement.lang || "en", root.getAttribute("data-name") || "");
  const t = (key, values) => texts.t(key, values);
  const languages = (root.getAttribute("data-languages") || "en").split(" ");
  const preferred = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language];
  // Resolves once shown, or at once when nothing is to change; a failure keeps the page's texts.
  const languageShown = showLanguage(
    texts,
    wantedLanguage(root.getAttribute("data-language"), location.search, preferred, languages),
  );

  // ---- Settings, elements and state. ----
  const showSources = root.getAttribute("data-show-sources") === "true";
  const gated = root.getAttribute("data-email-gate") === "true";
  const embed = document.body.classList.contains("embed");
  const endpoint = endpointOf(root.getAttribute("data-endpoint"), location.pathname);
  const log = byId("log");
  const composer = byId("composer");
  const input = byId("message");
  const questions = byId("questions");
  const gate = byId("gate");
  const email = byId("gate-email");
  const s = newSession();
  let welcomeTemplate = log.querySelector("li.welcome");
  welcomeTemplate = welcomeTemplate ? welcomeTemplate.cloneNode(true) : null;
  // Identity (from the widget, in the fragment: never sent to a server) and storage.
  const identity = parseIdentity(location.hash);
  const kept = new Kept(storeKeyOf(root.getAttribute("data-kind"), root.getAttribute("data-slug"), endpoint, location.href),
    () => window.localStorage);
  const status = new StatusLine(byId("status"), texts);
  const transport = new Transport(endpoint + "/conversations", s, texts);
  let handoff = null; // made once its place (the bar) is
  const messages = new Log({
    log,
    composer,
    session: s,
    texts,
    showSources,
    speaker: speakerFor({ voice: root.getAttribute("data-voice") === "true", session: s, texts, transport, status }),
    onNobodyAnswers: () => handoff.nobodyAnswers(),
  });

  function setBusy(on) {
    s.busy = on;
    root.setAttribute("aria-busy", on ? "true" : "false");
  }

  function opened(id) {
    root.setAttribute("data-conversation", id);
    restart.hidden = false;
    handoff.opened();
  }

  function open() {
    const body = openingBody(s.visitor, identity);
    s.conversation = null;
    const mine = s.epoch;
    return transport.open(body).then((answer) => {
      if (mine !== s.epoch) throw new Error("stale");
      s.conversation = { id: answer.conversation.id, token: answer.visitorToken };
      kept.write(s.conversation, identity);
      opened(answer.conversation.id);
    });
  }

  function answerTo(text, answer) {
    const stream = canStream();
    root.setAttribute("data-transport", stream ? "stream" : "json");
    return transport.ask(s.conversation, text, stream).then((res) => {
      const type = res.headers.get("Content-Type") || "";
      if (type.indexOf("text/event-stream") === 0) return messages.stream(res, answer, transport);
      return res.json().then((body) => messages.finish(answer, body.message));
    });
  }

  // ---- Questions: sent one after the other; one typed meanwhile waits its turn. ----
  function pending(item, on) {
    item.mine.li.classList.toggle("pending", on);
    const note = item.mine.li.querySelector(".note");
    if (on && !note) {
      item.mine.li.appendChild(el("span", "note", t("waiting")));
    } else if (!on && note) {
      note.remove();
    }
  }

  function pump() {
    if (waiting(s, gated) || !s.queue.length) return;
    run(s.queue.shift());
  }

  function submit(text) {
    text = (text || "").trim();
    if (!text) return false;
    if (text.length > LIMIT) {
      status.set(t("too_long", { limit: texts.number(LIMIT) }), true);
      return false;
    }
    if (status.kind) status.set("");
    questions.hidden = true;
    s.following = true;
    const item = { text, mine: messages.add("user", text) };
    s.queue.push(item);
    if (waiting(s, gated)) pending(item, true);
    pump();
    return true;
  }

  function run(item) {
    const mine = item.mine;
    setBusy(true);
    pending(item, false);
    mine.li.classList.remove("unanswered");
    log.appendChild(mine.li); // a question tried again moves down to where its answer comes
    const answer = messages.add("assistant", "");
    answer.bubble.classList.add("typing");
    answer.li.setAttribute("aria-busy", "true");
    // Queued questions stay below the answer being written.
    for (const queued of s.queue) log.appendChild(queued.mine.li);
    const mineEpoch = s.epoch;
    const ready = s.conversation ? Promise.resolve() : open();
    ready
      .then(() => answerTo(item.text, answer))
      .then(() => {
        if (mineEpoch !== s.epoch) return;
        setBusy(false);
        messages.follow(answer.li);
        if (s.handedOff) handoff.watch();
        pump();
      })
      .catch((err) => {
        if (mineEpoch !== s.epoch) return;
        setBusy(false);
        answer.li.remove();
        mine.li.classList.add("unanswered");
        if (err.code === "conversation_full") {
          s.conversation = null;
          kept.forget();
        }
        const retry = retryable(err)
          ? () => {
              s.queue.unshift(item);
              if (s.busy) pending(item, true);
              else pump();
            }
          : null;
        if (!retry) {
          // Nothing to wait for: the questions behind it are not sent either.
          for (const queued of s.queue) {
            pending(queued, false);
            queued.mine.li.classList.add("unanswered");
          }
          s.queue = [];
        }
        status.set(err.fromServer ? err.message : t("error.connection"), true, retry,
          !err.fromServer || err.passing ? "passing" : null);
      });
  }

  // ---- The composer, and the suggested questions: before the e-mail gate too; one chosen
  // there is sent once it is passed. ----
  setUpComposer(composer, input, texts, submit);
  ownDirection(email);
  ownDirection(byId("gate-name"));
  for (const button of questions.querySelectorAll("button")) {
    button.addEventListener("click", (e) => {
      submit(e.currentTarget.textContent);
      if (gated && !s.conversation && !s.visitor && !gate.hidden) email.focus();
    });
  }

  // ---- "New conversation". ----
  const restart = el("button", "restart", t("restart"));
  restart.setAttribute("data-i18n", "restart");
  restart.type = "button";
  restart.id = "restart";
  restart.hidden = true;
  const bar = el("div", "chat-bar");
  bar.appendChild(restart);
  root.insertBefore(bar, root.firstChild);
  restart.addEventListener("click", () => {
    kept.forget();
    Object.assign(s, restarted(s));
    handoff.unwatch();
    handoff.button.hidden = true;
    setBusy(false);
    restart.hidden = true;
    root.removeAttribute("data-conversation");
    log.textContent = "";
    if (welcomeTemplate) log.appendChild(welcomeTemplate.cloneNode(true));
    status.set("");
    begin();
    (gated ? email : input).focus();
  });

  // ---- "Talk to a person" (hand-off). ----
  handoff = new Handoff({
    session: s,
    texts,
    transport,
    log: messages,
    status,
    offered: root.getAttribute("data-handoff") === "true",
    bar,
  });

  function startChat() {
    gate.hidden = true;
    composer.hidden = false;
    questions.hidden = questions.querySelectorAll("button").length === 0 || !!log.querySelector("li.msg.user");
  }

  // ---- The e-mail gate. ----
  const visitorName = byId("gate-name");
  const gateError = byId("gate-error");
  const gateStart = byId("gate-start");
  gate.addEventListener("submit", (e) => {
    e.preventDefault();
    const address = email.value.trim();
    if (!address || !email.checkValidity()) {
      gateError.textContent = t("email.invalid");
      email.setAttribute("aria-invalid", "true");
      email.focus();
      return;
    }
    email.removeAttribute("aria-invalid");
    gateError.textContent = "";
    const who = { email: address };
    if (visitorName.value.trim()) who.name = visitorName.value.trim();
    s.visitor = who;
    gateStart.disabled = true;
    open()
      .then(() => {
        startChat();
        input.focus();
        pump();
      })
      .catch((err) => {
        s.visitor = null;
        gateError.textContent = err.fromServer ? err.message : t("error.connection");
      })
      .then(() => {
        gateStart.disabled = false;
      });
  });

  function begin() {
    if (gated) {
      gate.hidden = false;
      composer.hidden = true;
      questions.hidden = questions.querySelectorAll("button").length === 0;
    } else {
      startChat();
    }
  }

  // ---- Continuity: the conversation of an earlier visit, shown again. ----
  function restore(saved) {
    s.restoring = true;
    status.set(t("loading"));
    const conversation = { id: saved.conversationId, token: saved.visitorToken };
    return transport
      .read(conversation)
      .then((res) => {
        if (res.status === 404 || res.status === 401 || res.status === 403) {
          kept.forget();
          return null;
        }
        return transport.ok(res).then((ok) => ok.json());
      })
      .then((body) => {
        s.restoring = false;
        status.set("");
        if (!body || !body.conversation) {
          begin();
          return;
        }
        s.conversation = conversation;
        const v = body.conversation.visitor;
        if (v && v.email) s.visitor = { email: v.email, name: v.name || undefined };
        messages.show(body.messages || []);
        s.handedOff = body.conversation.status === "handoff";
        opened(conversation.id);
        root.setAttribute("data-restored", "true");
        if (s.handedOff) handoff.watch();
        startChat();
        pump();
      })
      .catch((err) => {
        s.restoring = false;
        // Kept: the conversation may load next time; a new one can be started meanwhile.
        restart.hidden = false;
        status.set(err && err.fromServer ? err.message : t("error.load"), true, () => {
          restore(saved);
        }, "passing");
      });
  }

  // ---- Embedded (widget.js): tell the parent the chat is up; Escape asks it to close. ----
  if (embed && window.parent && window.parent !== window) {
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && !e.defaultPrevented && !e.isComposing) {
        window.parent.postMessage({ type: "lore:close" }, "*");
      }
    });
    window.parent.postMessage({ type: "lore:ready", name: String(document.title || "").slice(0, 120) }, "*");
  }

  // Another visitor on this browser: their conversation is not this one's.
  const stored = kept.read();
  const saved = keptFor(stored, identity);
  if (stored && !saved) kept.forget();
  function go() {
    if (saved) restore(saved);
    else begin();
  }
  // The chat shows once its texts are in the visitor's language (or after 3 s without them).
  if (languageShown) {
    Promise.race([languageShown, new Promise((done) => window.setTimeout(done, 3000))]).then(go);
  } else {
    go();
  }
}
