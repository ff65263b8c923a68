// The visitor routes over fetch (docs/api.md §17): POST …/conversations, GET …/conversations/{id},
// POST …/conversations/{id}/messages (streamed as server-sent events when the browser can read
// a response as it arrives), GET …/speech, POST …/handoff. A visitor's requests carry the
// conversation's token (`Authorization: Visitor …`).

import { apiError, eventParser } from "./protocol.js";

const enc = encodeURIComponent;

// Streaming needs a readable response body; without one the answer is asked for as JSON.
export function canStream() {
  return typeof window.ReadableStream === "function" && typeof window.TextDecoder === "function";
}

export class Transport {
  // base: …/conversations; session: the chat's (its conversation's token is sent); texts: the
  // language of the error messages.
  constructor(base, session, texts) {
    this.base = base;
    this.session = session;
    this.texts = texts;
  }

  // An error answer → an Error with the server's (fixed, never echoing) message and code.
  failure(res) {
    return res
      .json()
      .catch(() => ({}))
      .then((body) => apiError(body && body.error, res.status, res.headers.get("Retry-After"), this.texts));
  }

  // A promise of the answer `res` when it is a success; rejected with its failure otherwise.
  ok(res) {
    if (!res.ok) return this.failure(res).then((err) => { throw err; });
    return Promise.resolve(res);
  }

  post(path, body, accept) {
    const headers = { "Content-Type": "application/json", Accept: accept };
    const c = this.session.conversation;
    if (c) headers.Authorization = "Visitor " + c.token;
    return fetch(path, { method: "POST", headers, body: JSON.stringify(body) });
  }

  // POST …/conversations with `body` (openingBody): {conversation, visitorToken}.
  open(body) {
    return this.post(this.base, body, "application/json").then((res) => this.ok(res)).then((res) => res.json());
  }

  // POST …/messages: the response, an event stream or JSON (`stream`: which is asked for).
  ask(conversation, text, stream) {
    const path = this.base + "/" + enc(conversation.id) + "/messages";
    return this.post(path, { content: text }, stream ? "text/event-stream" : "application/json").then((res) => this.ok(res));
  }

  // GET …/conversations/{id} with the conversation's token: the raw response.
  read(conversation) {
    return fetch(this.base + "/" + enc(conversation.id), {
      headers: { Authorization: "Visitor " + conversation.token, Accept: "application/json" },
    });
  }

  // GET …/speech of one answer: the raw response.
  speech(conversation, messageId) {
    return fetch(this.base + "/" + enc(conversation.id) + "/messages/" + enc(messageId) + "/speech", {
      headers: { Authorization: "Visitor " + conversation.token },
    });
  }

  // POST …/handoff: {conversation}.
  handoff(conversation) {
    return this.post(this.base + "/" + enc(conversation.id) + "/handoff", {}, "application/json")
      .then((res) => this.ok(res))
      .then((res) => res.json());
  }

  // An error event of a stream, or a stream that ended without its `done`, as an Error.
  streamError(error) {
    return error ? apiError(error, 502, null, this.texts) : apiError({ code: "cut_off" }, 0, null, this.texts);
  }
}

// Reads the events of `res` as they arrive (all at once when its body cannot be read in
// pieces), calling handle(name, data) for each; resolves at the end of the response.
export function readEvents(res, handle) {
  const parse = eventParser(handle);
  if (!(res.body && res.body.getReader)) return res.text().then((t) => parse(t, true));
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  function next() {
    return reader.read().then((r) => {
      if (r.done) {
        parse(decoder.decode(), true);
        return undefined;
      }
      parse(decoder.decode(r.value, { stream: true }), false);
      return next();
    });
  }
  return next();
}
