// What the visitor routes answer, read: server-sent events fed in pieces, and error envelopes as
// the visitor's messages. Pure: no DOM and no network, so that node's tests can import it
// (tests/js/chat_protocol.test.mjs).

// Server-sent events, fed in pieces as they arrive: `feed(chunk, end)` calls handle(name, data)
// for each complete event whose data is JSON (a malformed one is skipped).
export function eventParser(handle) {
  let buffer = "";
  function dispatch(block) {
    let name = "message";
    const data = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.indexOf("event:") === 0) name = line.slice(6).trim();
      else if (line.indexOf("data:") === 0) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length) {
      try {
        handle(name, JSON.parse(data.join("\n")));
      } catch (e) {
        /* a malformed event is skipped */
      }
    }
  }
  return function feed(chunk, end) {
    buffer += chunk;
    const parts = buffer.split(/\r?\n\r?\n/);
    buffer = end ? "" : parts.pop();
    for (const part of parts) if (part) dispatch(part);
  };
}

// The server's messages are English: the visitor reads the page's own text for each code
// (and, in English, the server's message for a code the page does not know).
const MESSAGES = {
  conversation_full: "error.conversation_full",
  generation_failed: "error.generation_failed",
  identity_invalid: "error.identity_invalid",
  email_required: "error.email_required",
  voice_disabled: "error.voice_disabled",
  cut_off: "error.cut_off",
};
// Failures the next question clears from the status line.
const PASSING = { rate_limited: true, generation_failed: true, identity_invalid: true, cut_off: true };

// An error envelope's `error` ({code, message, details}) → an Error with the message to show
// (in `texts`' language), its code and status; `passing` when the next question clears it.
export function apiError(error, statusCode, retryAfter, texts) {
  error = error || {};
  let message =
    texts.lang === "en" && error.message ? error.message : texts.t("error.generic", { status: texts.number(statusCode) });
  if (error.code === "rate_limited") {
    const seconds = parseInt(retryAfter || (error.details && error.details.retryAfter) || "", 10);
    message = seconds > 0 ? texts.plural("error.rate_limited_for", seconds) : texts.t("error.rate_limited");
  } else if (MESSAGES[error.code]) {
    message = texts.t(MESSAGES[error.code]);
  } else if (statusCode === 404) {
    message = texts.t("error.not_found");
  }
  const err = new Error(message);
  err.code = error.code;
  err.status = statusCode;
  err.fromServer = true;
  err.passing = !!PASSING[error.code];
  return err;
}

// Whether a question that failed this way may be tried again: the model failed this time, the
// rate limit passes, or the connection (not the server) failed.
export function retryable(err) {
  return err.code === "generation_failed" || err.code === "rate_limited" || !err.fromServer;
}
