// The chat of a published Mind's page (GET /m/{slug}): plain script, no dependencies, inlined in
// the page under its CSP nonce. It talks to the visitor routes next to the page
// (POST {page}/conversations, POST {page}/conversations/{id}/messages, GET …/speech).
// Everything the server sends is inserted as text (textContent, text nodes), never as HTML, and
// only http(s) links are made: a Mind's fields and its sources are untrusted.
(function () {
  "use strict";
  var root = document.getElementById("chat");
  if (!root) return;
  var unsupported = document.getElementById("unsupported");
  if (!window.fetch || !window.JSON || !window.Promise) {
    unsupported.hidden = false;
    return;
  }
  var showSources = root.getAttribute("data-show-sources") === "true";
  var voice = root.getAttribute("data-voice") === "true";
  var gated = root.getAttribute("data-email-gate") === "true";
  // Relative to wherever the page is served (a stage prefix on API Gateway included).
  var base = location.pathname.replace(/\/+$/, "") + "/conversations";
  var log = document.getElementById("log");
  var composer = document.getElementById("composer");
  var input = document.getElementById("message");
  var send = document.getElementById("send");
  var questions = document.getElementById("questions");
  var gate = document.getElementById("gate");
  var status = document.getElementById("status");
  var conversation = null; // {id, token} once opened
  var visitor = null; // what the e-mail gate collected, for a conversation opened again
  var busy = false;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  function enc(s) {
    return encodeURIComponent(s);
  }

  function httpUrl(s) {
    if (typeof s !== "string") return false;
    try {
      var u = new URL(s);
      return u.protocol === "https:" || u.protocol === "http:";
    } catch (e) {
      return false;
    }
  }

  // Streaming needs a readable response body; without one the answer is asked for as JSON.
  function canStream() {
    return typeof window.ReadableStream === "function" && typeof window.TextDecoder === "function";
  }

  function setStatus(text, isError, retry) {
    status.textContent = text || "";
    status.className = isError ? "status error" : "status";
    if (retry) {
      var b = el("button", "retry", "Try again");
      b.type = "button";
      b.addEventListener("click", retry);
      status.appendChild(b);
    }
  }

  function setBusy(on) {
    busy = on;
    send.disabled = on;
    var buttons = questions.querySelectorAll("button");
    for (var i = 0; i < buttons.length; i++) buttons[i].disabled = on;
    root.setAttribute("aria-busy", on ? "true" : "false");
  }

  function addMessage(role, text) {
    var li = el("li", "msg " + role);
    var bubble = el("div", "bubble", text);
    li.appendChild(bubble);
    log.appendChild(li);
    if (li.scrollIntoView) li.scrollIntoView({ block: "nearest" });
    return { li: li, bubble: bubble };
  }

  // The answer's text with its [n] markers linked to the passages they name (when shown).
  function renderAnswer(bubble, text, citations, key) {
    bubble.textContent = "";
    var known = {};
    for (var i = 0; i < citations.length; i++) known[citations[i].index] = true;
    var re = /\[(\d+)\]/g;
    var last = 0;
    var m;
    while ((m = re.exec(text))) {
      bubble.appendChild(document.createTextNode(text.slice(last, m.index)));
      if (showSources && known[m[1]]) {
        var sup = el("sup");
        var a = el("a", "marker", "[" + m[1] + "]");
        a.href = "#" + key + "-" + m[1];
        a.setAttribute("aria-label", "Source " + m[1]);
        sup.appendChild(a);
        bubble.appendChild(sup);
      } else {
        bubble.appendChild(document.createTextNode(m[0]));
      }
      last = re.lastIndex;
    }
    bubble.appendChild(document.createTextNode(text.slice(last)));
  }

  function renderSources(tools, citations, key) {
    if (!showSources || !citations.length) return null;
    var details = el("details", "sources");
    details.appendChild(el("summary", null, citations.length === 1 ? "1 source" : citations.length + " sources"));
    var list = el("ol");
    for (var i = 0; i < citations.length; i++) {
      var c = citations[i];
      var item = el("li");
      item.id = key + "-" + c.index;
      item.appendChild(el("span", "name", "[" + c.index + "] " + (c.sourceName || "")));
      if (httpUrl(c.url)) {
        item.appendChild(document.createTextNode(" "));
        var a = el("a", null, "page");
        a.href = c.url;
        a.rel = "noopener noreferrer nofollow";
        a.target = "_blank";
        item.appendChild(a);
      }
      if (c.quote) item.appendChild(el("blockquote", null, c.quote));
      list.appendChild(item);
    }
    details.appendChild(list);
    tools.appendChild(details);
    return details;
  }

  function addSpeaker(tools, messageId) {
    if (!voice || !messageId) return;
    var b = el("button", "speak", "Listen");
    b.type = "button";
    b.setAttribute("aria-pressed", "false");
    b.setAttribute("aria-label", "Listen to this answer");
    var audio = null;
    function playing(on) {
      b.setAttribute("aria-pressed", on ? "true" : "false");
      b.textContent = on ? "Pause" : "Listen";
    }
    b.addEventListener("click", function () {
      if (audio && !audio.paused) {
        audio.pause();
        return;
      }
      var ready = audio
        ? Promise.resolve(audio)
        : fetch(base + "/" + enc(conversation.id) + "/messages/" + enc(messageId) + "/speech", {
            headers: { Authorization: "Visitor " + conversation.token },
          }).then(function (res) {
            if (!res.ok) {
              return failure(res).then(function (err) {
                if (res.status === 409 || res.status === 503) b.disabled = true;
                throw err;
              });
            }
            return res.blob().then(function (blob) {
              audio = new Audio(URL.createObjectURL(blob));
              audio.addEventListener("play", function () { playing(true); });
              audio.addEventListener("pause", function () { playing(false); });
              audio.addEventListener("ended", function () { playing(false); });
              return audio;
            });
          });
      b.disabled = true;
      ready
        .then(function (a) {
          b.disabled = false;
          return a.play();
        })
        .catch(function (err) {
          if (!(err && err.fromServer)) b.disabled = false;
          setStatus(err && err.fromServer ? err.message : "This answer could not be played.", true);
        });
    });
    tools.appendChild(b);
  }

  function finishAnswer(answer, message) {
    var citations = showSources ? message.citations || [] : [];
    answer.bubble.classList.remove("typing");
    answer.li.setAttribute("aria-busy", "false");
    answer.li.setAttribute("data-message-id", message.id || "");
    renderAnswer(answer.bubble, message.content || "", citations, message.id);
    var tools = el("div", "tools");
    var details = renderSources(tools, citations, message.id);
    addSpeaker(tools, message.id);
    if (tools.firstChild) answer.li.appendChild(tools);
    if (details) {
      // A marker opens the list of sources it points into.
      var markers = answer.bubble.querySelectorAll("a.marker");
      for (var i = 0; i < markers.length; i++) {
        markers[i].addEventListener("click", function () { details.open = true; });
      }
    }
  }

  // An error answer → an Error with the server's (fixed, never echoing) message and code.
  function failure(res) {
    return res
      .json()
      .catch(function () { return {}; })
      .then(function (body) {
        return apiError(body && body.error, res.status, res.headers.get("Retry-After"));
      });
  }

  function apiError(error, statusCode, retryAfter) {
    error = error || {};
    var message = error.message || "Something went wrong (" + statusCode + ").";
    if (error.code === "rate_limited") {
      var seconds = parseInt(retryAfter || (error.details && error.details.retryAfter) || "", 10);
      message = "Too many messages for now." + (seconds > 0 ? " Try again in " + seconds + " s." : "");
    } else if (error.code === "conversation_full") {
      message = "This conversation is full: your next message starts a new one.";
    } else if (error.code === "generation_failed") {
      message = "The answer could not be written.";
    } else if (statusCode === 404) {
      message = "This Mind is not available any more.";
    }
    var err = new Error(message);
    err.code = error.code;
    err.fromServer = true;
    return err;
  }

  // Server-sent events, fed in pieces as they arrive.
  function eventParser(handle) {
    var buffer = "";
    function dispatch(block) {
      var name = "message";
      var data = [];
      var lines = block.split(/\r?\n/);
      for (var i = 0; i < lines.length; i++) {
        var line = lines[i];
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
    return function (chunk, end) {
      buffer += chunk;
      var parts = buffer.split(/\r?\n\r?\n/);
      buffer = end ? "" : parts.pop();
      for (var i = 0; i < parts.length; i++) if (parts[i]) dispatch(parts[i]);
    };
  }

  function readEvents(res, answer) {
    var text = "";
    var citations = [];
    var done = null;
    var failed = null;
    var parse = eventParser(function (name, value) {
      if (name === "citations") {
        citations = showSources ? value.citations || [] : [];
      } else if (name === "delta") {
        text += value.text || "";
        answer.bubble.classList.remove("typing");
        renderAnswer(answer.bubble, text, citations, "pending");
      } else if (name === "done") {
        done = value.message;
      } else if (name === "error") {
        failed = value.error;
      }
    });
    var body =
      res.body && res.body.getReader
        ? (function () {
            var reader = res.body.getReader();
            var decoder = new TextDecoder();
            function next() {
              return reader.read().then(function (r) {
                if (r.done) {
                  parse(decoder.decode(), true);
                  return;
                }
                parse(decoder.decode(r.value, { stream: true }), false);
                return next();
              });
            }
            return next();
          })()
        : res.text().then(function (t) { parse(t, true); });
    return body.then(function () {
      if (failed) throw apiError(failed, 502, null);
      if (!done) throw apiError({ message: "The answer was cut off." }, 0, null);
      finishAnswer(answer, done);
    });
  }

  function post(path, body, accept) {
    var headers = { "Content-Type": "application/json", Accept: accept };
    if (conversation) headers.Authorization = "Visitor " + conversation.token;
    return fetch(path, { method: "POST", headers: headers, body: JSON.stringify(body) });
  }

  function open() {
    return post(base, visitor ? { visitor: visitor } : {}, "application/json").then(function (res) {
      if (!res.ok) return failure(res).then(function (err) { throw err; });
      return res.json().then(function (body) {
        conversation = { id: body.conversation.id, token: body.visitorToken };
        root.setAttribute("data-conversation", body.conversation.id);
      });
    });
  }

  function answerTo(text, answer) {
    var stream = canStream();
    root.setAttribute("data-transport", stream ? "stream" : "json");
    var path = base + "/" + enc(conversation.id) + "/messages";
    return post(path, { content: text }, stream ? "text/event-stream" : "application/json").then(function (res) {
      if (!res.ok) return failure(res).then(function (err) { throw err; });
      var type = res.headers.get("Content-Type") || "";
      if (type.indexOf("text/event-stream") === 0) return readEvents(res, answer);
      return res.json().then(function (body) { finishAnswer(answer, body.message); });
    });
  }

  // Asks `text`; `asked` is the visitor's bubble of an earlier try of the same question.
  function ask(text, asked) {
    text = (text || "").trim();
    if (busy || !text) return;
    if (text.length > 4000) {
      setStatus("A message can be at most 4,000 characters.", true);
      return;
    }
    setBusy(true);
    setStatus("");
    questions.hidden = true;
    var mine = asked || addMessage("user", text);
    mine.li.classList.remove("unanswered");
    var answer = addMessage("assistant", "");
    answer.bubble.classList.add("typing");
    answer.li.setAttribute("aria-busy", "true");
    var ready = conversation ? Promise.resolve() : open();
    ready
      .then(function () { return answerTo(text, answer); })
      .then(function () {
        if (input.value.trim() === text) input.value = "";
      })
      .catch(function (err) {
        answer.li.remove();
        mine.li.classList.add("unanswered");
        if (err.code === "conversation_full") conversation = null;
        var retry =
          err.code === "generation_failed" || err.code === "rate_limited" || !err.fromServer
            ? function () { ask(text, mine); }
            : null;
        setStatus(err.fromServer ? err.message : "The connection failed.", true, retry);
      })
      .then(function () {
        setBusy(false);
      });
  }

  composer.addEventListener("submit", function (e) {
    e.preventDefault();
    ask(input.value);
  });
  input.addEventListener("keydown", function (e) {
    // Enter sends, Shift+Enter starts a new line.
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      ask(input.value);
    }
  });
  var buttons = questions.querySelectorAll("button");
  for (var i = 0; i < buttons.length; i++) {
    buttons[i].addEventListener("click", function (e) {
      ask(e.currentTarget.textContent);
    });
  }

  function startChat() {
    gate.hidden = true;
    composer.hidden = false;
    questions.hidden = questions.querySelectorAll("button").length === 0;
  }

  if (gated) {
    gate.hidden = false;
    var email = document.getElementById("gate-email");
    var name = document.getElementById("gate-name");
    var gateError = document.getElementById("gate-error");
    var start = document.getElementById("gate-start");
    gate.addEventListener("submit", function (e) {
      e.preventDefault();
      var address = email.value.trim();
      if (!address || !email.checkValidity()) {
        gateError.textContent = "Please enter a valid e-mail address.";
        email.setAttribute("aria-invalid", "true");
        email.focus();
        return;
      }
      email.removeAttribute("aria-invalid");
      gateError.textContent = "";
      visitor = { email: address };
      if (name.value.trim()) visitor.name = name.value.trim();
      start.disabled = true;
      open()
        .then(function () {
          startChat();
          input.focus();
        })
        .catch(function (err) {
          visitor = null;
          gateError.textContent = err.fromServer ? err.message : "The connection failed.";
        })
        .then(function () {
          start.disabled = false;
        });
    });
  } else {
    startChat();
  }
})();
