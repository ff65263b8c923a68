// The chat's state and the rules that change it: where the visitor routes are, who the visitor
// is (from the widget), the conversation kept per page, the questions waiting their turn, the
// message box's counter, and the pace of polling while a person answers. Pure: no DOM (storage
// is handed in), so that node's tests can import it (tests/js/chat_state.test.mjs).

export const LIMIT = 4000; // characters of a question
export const COUNT_FROM = 3500; // the counter shows from here
export const POLL_FIRST = 3000; // ms between reads of a handed-off conversation, at first
export const POLL_MAX = 30000; // … and at the slowest

// The visitor routes: data-endpoint (possibly another origin that streams), else relative to
// wherever the page is served (a stage prefix on API Gateway included).
export function endpointOf(dataEndpoint, pathname) {
  const given = (dataEndpoint || "").replace(/\/+$/, "");
  return given || pathname.replace(/\/+$/, "");
}

// The identity the widget passes in the fragment (#userId=…&userHash=…; never sent to a
// server): both, each at most 400 characters, or none.
export function parseIdentity(hash) {
  const out = {};
  const fragment = (hash || "").replace(/^#/, "");
  if (!fragment) return out;
  for (const part of fragment.split("&")) {
    const kv = part.split("=");
    const k = kv[0];
    let v = kv.slice(1).join("=");
    try {
      v = decodeURIComponent(v);
    } catch (e) {
      continue;
    }
    if ((k === "userId" || k === "userHash") && v) out[k] = v.slice(0, 400);
  }
  if (!out.userId || !out.userHash) return {};
  return out;
}

// One conversation kept per page: "lore:m:{slug}" or "lore:c:{slug}" (from the page's data, else
// from the endpoint's path).
export function storeKeyOf(kind, slug, endpoint, href) {
  if ((kind === "m" || kind === "c") && slug) return "lore:" + kind + ":" + slug;
  let path = endpoint;
  try {
    path = new URL(endpoint, href).pathname;
  } catch (e) {
    /* keep the endpoint as it is */
  }
  const m = /\/([mc])\/([^/]+)$/.exec(path);
  return m ? "lore:" + m[1] + ":" + decodeURIComponent(m[2]) : "lore:" + path;
}

// The conversation kept under `key` in the storage `storage()` returns (localStorage). Storage
// may be missing or throw (blocked): the chat then lasts one page view.
export class Kept {
  constructor(key, storage) {
    this.key = key;
    this.storage = storage;
  }

  // {conversationId, visitorToken, userId?} when usable, else null.
  read() {
    try {
      const raw = this.storage().getItem(this.key);
      if (!raw) return null;
      const v = JSON.parse(raw);
      if (v && typeof v.conversationId === "string" && typeof v.visitorToken === "string") return v;
    } catch (e) {
      /* nothing stored that can be used */
    }
    return null;
  }

  write(conversation, identity) {
    try {
      const v = { conversationId: conversation.id, visitorToken: conversation.token };
      if (identity.userId) v.userId = identity.userId;
      this.storage().setItem(this.key, JSON.stringify(v));
    } catch (e) {
      /* storage blocked: continuity is lost, the chat still works */
    }
  }

  forget() {
    try {
      this.storage().removeItem(this.key);
    } catch (e) {
      /* storage blocked */
    }
  }
}

// A kept conversation belongs to the visitor it was made for: another signed-in visitor on this
// browser does not get it.
export function keptFor(saved, identity) {
  if (saved && (saved.userId || "") !== (identity.userId || "")) return null;
  return saved;
}

// The chat's session: the conversation, the visitor, and the questions in flight.
export function newSession() {
  return {
    conversation: null, // {id, token} once opened
    visitor: null, // what the e-mail gate collected, for a conversation opened again
    busy: false, // an answer is being written
    restoring: false, // the conversation of an earlier visit is being read
    epoch: 0, // a new conversation makes what the old one still awaits moot
    queue: [], // questions waiting for the answer before them: {text, mine}
    following: true, // the view follows the answer being written until the visitor scrolls
    handedOff: false, // a person has the conversation: their replies are polled for
    seenAgents: {}, // ids of the agent messages shown
  };
}

// "New conversation": everything of the old one is dropped, and what it still awaits is moot.
export function restarted(s) {
  return { ...newSession(), epoch: s.epoch + 1, restoring: s.restoring, following: s.following };
}

// Whether a question must wait: an answer is being written, the old conversation is being
// read, or the e-mail gate is not passed yet.
export function waiting(s, gated) {
  return s.busy || s.restoring || (gated && !s.conversation && !s.visitor);
}

// The body of POST …/conversations: the visitor's filled fields and the widget's identity, or
// nothing.
export function openingBody(visitor, identity) {
  const who = {};
  if (visitor) for (const k in visitor) if (visitor[k]) who[k] = visitor[k];
  if (identity.userId) {
    who.userId = identity.userId;
    who.userHash = identity.userHash;
  }
  return Object.keys(who).length ? { visitor: who } : {};
}

// The counter's step for n characters: 0 hidden, 1 shown, 2 within 100 of the limit, 3 at it.
// Each step is announced once on the way up.
export function counterStep(n) {
  return n >= LIMIT ? 3 : n >= LIMIT - 100 ? 2 : n >= COUNT_FROM ? 1 : 0;
}

// The next wait between reads of a handed-off conversation, after a read that `outcome`d:
// "fresh" (a reply came: the first pace again), "same" (nothing new: 1.5 times slower),
// "failed" (twice slower), or "limited" (429: twice slower, and at least `retryAfterMs`).
export function nextPollDelay(delay, outcome, retryAfterMs) {
  if (outcome === "fresh") return POLL_FIRST;
  if (outcome === "limited") return Math.min(POLL_MAX, Math.max(delay * 2, retryAfterMs || 0));
  if (outcome === "failed") return Math.min(POLL_MAX, delay * 2);
  return Math.min(POLL_MAX, Math.round(delay * 1.5));
}
