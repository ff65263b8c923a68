// The chat of a published Mind's or chatbot's page (GET /m/{slug}, GET /c/{slug}, and the same
// page framed by widget.js with ?embed=1): plain script, no dependencies, inlined in the page
// under its CSP nonce. It talks to the visitor routes under data-endpoint (else the page's own
// path): POST …/conversations, GET …/conversations/{id}, POST …/conversations/{id}/messages,
// GET …/speech, POST …/conversations/{id}/handoff (data-handoff="true": "Talk to a person"; while
// a person has the conversation, its replies are read back by polling the conversation).
// Everything the server sends is inserted as text (textContent, text nodes, elements made with
// createElement), never as HTML, and only http(s) links are made: a Mind's fields, its sources
// and the model's answers are untrusted.
// Fixed texts come from the catalogue inlined in #lore-texts (docs/api.md §20): the page is
// rendered in one language; when the owner's is "auto" and no ?lang= names one, the visitor's
// first supported navigator.languages decides, and its catalogue is fetched and shown if it is
// another (elements carry their keys: data-i18n, data-i18n-label, data-i18n-placeholder).
(function () {
  "use strict";
  var root = document.getElementById("chat");
  if (!root) return;
  var unsupported = document.getElementById("unsupported");
  if (!window.fetch || !window.JSON || !window.Promise) {
    unsupported.hidden = false;
    return;
  }
  // ---- Fixed texts in the visitor's language. ----
  var html = document.documentElement;
  var lang = html.lang || "en";
  var texts = {};
  try {
    texts = JSON.parse(document.getElementById("lore-texts").textContent) || {};
  } catch (e) {
    /* no catalogue: the keys are shown, the page's own texts stay */
  }
  var chatName = root.getAttribute("data-name") || "";
  var languages = (root.getAttribute("data-languages") || "en").split(" ");
  var RTL = { ar: true, fa: true, he: true };

  // The supported language a tag names: "fr-CA" and "FR" are "fr"; "auto" and others none.
  function supportedLanguage(tag) {
    tag = String(tag || "").toLowerCase();
    var primary = tag.split(/[-_]/)[0];
    return languages.indexOf(primary) >= 0 ? primary : null;
  }

  // The owner's fixed language, else ?lang= (the widget's data-language), else the browser's.
  function wantedLanguage() {
    var owner = supportedLanguage(root.getAttribute("data-language"));
    if (owner) return owner;
    var asked = /[?&]lang=([^&#]*)/.exec(location.search);
    if (asked && supportedLanguage(decodeURIComponent(asked[1]))) return supportedLanguage(decodeURIComponent(asked[1]));
    var list = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language];
    for (var i = 0; i < list.length; i++) {
      var found = supportedLanguage(list[i]);
      if (found) return found;
    }
    return "en";
  }

  function has(key) {
    return Object.prototype.hasOwnProperty.call(texts, key);
  }

  // The text of `key`, with {name} and the given values in place.
  function t(key, values) {
    var text = has(key) ? String(texts[key]) : key;
    return text.replace(/\{(\w+)\}/g, function (all, k) {
      if (values && Object.prototype.hasOwnProperty.call(values, k)) return values[k];
      return k === "name" ? chatName : all;
    });
  }

  function number(n) {
    try {
      return new Intl.NumberFormat(lang).format(n);
    } catch (e) {
      return thousands(n);
    }
  }

  // A counted text: the form of `key` the language uses for n ("sources.one", "sources.few"…).
  function plural(key, n, values) {
    var form = "other";
    try {
      form = new Intl.PluralRules(lang).select(n);
    } catch (e) {
      /* no plural rules: the general form */
    }
    var k = has(key + "." + form) ? key + "." + form : key + ".other";
    values = values || {};
    values.n = number(n);
    return t(k, values);
  }

  function translate() {
    var i;
    var found = document.querySelectorAll("[data-i18n]");
    for (i = 0; i < found.length; i++) found[i].textContent = t(found[i].getAttribute("data-i18n"));
    found = document.querySelectorAll("[data-i18n-label]");
    for (i = 0; i < found.length; i++) found[i].setAttribute("aria-label", t(found[i].getAttribute("data-i18n-label")));
    found = document.querySelectorAll("[data-i18n-placeholder]");
    for (i = 0; i < found.length; i++) found[i].placeholder = t(found[i].getAttribute("data-i18n-placeholder"));
  }

  // Another language than the page's: its catalogue, next to the page (under a stage prefix too).
  // Resolves once shown, or at once when nothing is to change; a failure keeps the page's texts.
  var languageShown = (function () {
    var wanted = wantedLanguage();
    if (wanted === lang) return null;
    var here = location.pathname.replace(/\/[mc]\/[^\/]+\/?$/, "");
    return fetch(here + "/i18n/" + wanted + ".json", { headers: { Accept: "application/json" } })
      .then(function (res) {
        if (!res.ok) throw new Error("no catalogue");
        return res.json();
      })
      .then(function (catalogue) {
        texts = catalogue;
        lang = wanted;
        html.lang = wanted;
        if (RTL[wanted]) html.dir = "rtl";
        else html.removeAttribute("dir");
        translate();
      })
      .catch(function () {
        /* the page's language stays */
      });
  })();

  var LIMIT = 4000;
  var COUNT_FROM = 3500;
  var showSources = root.getAttribute("data-show-sources") === "true";
  var voice = root.getAttribute("data-voice") === "true";
  var gated = root.getAttribute("data-email-gate") === "true";
  var handoffOffered = root.getAttribute("data-handoff") === "true";
  var embed = document.body.classList.contains("embed");
  // The visitor routes: data-endpoint (possibly another origin that streams), else relative to
  // wherever the page is served (a stage prefix on API Gateway included).
  var endpoint = (root.getAttribute("data-endpoint") || "").replace(/\/+$/, "");
  if (!endpoint) endpoint = location.pathname.replace(/\/+$/, "");
  var base = endpoint + "/conversations";
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
  var restoring = false;
  var epoch = 0; // a new conversation makes what the old one still awaits moot
  var queue = []; // questions waiting for the answer before them: {text, mine}
  var following = true; // the view follows the answer being written until the visitor scrolls
  var welcomeTemplate = log.querySelector("li.welcome");
  welcomeTemplate = welcomeTemplate ? welcomeTemplate.cloneNode(true) : null;

  // ---- Identity (from the widget, in the fragment: never sent to a server) and storage. ----
  var identity = (function () {
    var out = {};
    var hash = (location.hash || "").replace(/^#/, "");
    if (!hash) return out;
    var parts = hash.split("&");
    for (var i = 0; i < parts.length; i++) {
      var kv = parts[i].split("=");
      var k = kv[0];
      var v = kv.slice(1).join("=");
      try {
        v = decodeURIComponent(v);
      } catch (e) {
        continue;
      }
      if ((k === "userId" || k === "userHash") && v) out[k] = v.slice(0, 400);
    }
    if (!out.userId || !out.userHash) return {};
    return out;
  })();

  // One conversation kept per page: "lore:m:{slug}" or "lore:c:{slug}".
  var storeKey = (function () {
    var kind = root.getAttribute("data-kind");
    var slug = root.getAttribute("data-slug");
    if ((kind === "m" || kind === "c") && slug) return "lore:" + kind + ":" + slug;
    var path = endpoint;
    try {
      path = new URL(endpoint, location.href).pathname;
    } catch (e) {
      /* keep the endpoint as it is */
    }
    var m = /\/([mc])\/([^\/]+)$/.exec(path);
    return m ? "lore:" + m[1] + ":" + decodeURIComponent(m[2]) : "lore:" + path;
  })();

  // localStorage may be missing or throw (blocked storage): the chat then lasts one page view.
  function stored() {
    try {
      var raw = window.localStorage.getItem(storeKey);
      if (!raw) return null;
      var v = JSON.parse(raw);
      if (v && typeof v.conversationId === "string" && typeof v.visitorToken === "string") return v;
    } catch (e) {
      /* nothing stored that can be used */
    }
    return null;
  }

  function remember() {
    try {
      var v = { conversationId: conversation.id, visitorToken: conversation.token };
      if (identity.userId) v.userId = identity.userId;
      window.localStorage.setItem(storeKey, JSON.stringify(v));
    } catch (e) {
      /* storage blocked: continuity is lost, the chat still works */
    }
  }

  function forget() {
    try {
      window.localStorage.removeItem(storeKey);
    } catch (e) {
      /* storage blocked */
    }
  }

  // ---- Small helpers. ----
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

  function thousands(n) {
    return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  // Streaming needs a readable response body; without one the answer is asked for as JSON.
  function canStream() {
    return typeof window.ReadableStream === "function" && typeof window.TextDecoder === "function";
  }

  // kind: "passing" (a failure the next question clears) or "speech" (a spoken answer's).
  var statusKind = null;
  function setStatus(text, isError, retry, kind) {
    status.textContent = text || "";
    status.className = isError ? "status error" : "status";
    statusKind = text ? kind || null : null;
    if (retry) {
      var b = el("button", "retry", t("retry"));
      b.type = "button";
      b.addEventListener("click", function () {
        setStatus("");
        retry();
      });
      status.appendChild(b);
    }
  }

  function setBusy(on) {
    busy = on;
    root.setAttribute("aria-busy", on ? "true" : "false");
  }

  // ---- Following the conversation: the latest message stays in view above the composer. ----
  function scroller() {
    var style = window.getComputedStyle(log);
    if ((style.overflowY === "auto" || style.overflowY === "scroll") && log.scrollHeight > log.clientHeight) {
      return log;
    }
    return null;
  }

  function reveal(li) {
    if (!li || !li.isConnected) return;
    var box = li.getBoundingClientRect();
    var own = scroller();
    if (own) {
      var area = own.getBoundingClientRect();
      var down = box.bottom - area.bottom + 8;
      if (down > 0) own.scrollTop += down;
      return;
    }
    // The page scrolls; the composer sticks to the bottom of the viewport and covers what is under it.
    var limit = window.innerHeight;
    if (!composer.hidden) {
      var c = composer.getBoundingClientRect();
      if (c.top < limit && c.bottom >= limit - 2) limit = c.top;
    }
    var by = box.bottom - limit + 8;
    if (by > 0) window.scrollBy(0, by);
  }

  function follow(li) {
    if (following) reveal(li);
  }

  // The visitor scrolling away stops the following until the next question.
  window.addEventListener("wheel", function (e) {
    if (e.deltaY < 0) following = false;
  }, { passive: true });
  window.addEventListener("touchmove", function () { following = false; }, { passive: true });

  function addMessage(role, text) {
    var li = el("li", "msg " + role);
    var bubble = el("div", "bubble", text);
    bubble.dir = "auto"; // a message reads in its own direction, whatever the page's
    li.appendChild(bubble);
    log.appendChild(li);
    reveal(li);
    return { li: li, bubble: bubble };
  }

  // ---- Markdown, as elements. ----
  // Blocks: paragraphs (single line breaks kept), "-"/"*" and "1." lists, ``` fenced code.
  // Inline: `code`, [text](http(s) URL), **bold**, *emphasis*, and the [n] citation markers.
  // Anything else stays literal text.
  var INLINE = /`([^`\n]+)`|\[([^\]\n]+)\]\(([^()\s]+)\)|\*\*(?=\S)([^*]*?\S)\*\*|\*(?=[^\s*])([^*\n]*?[^\s*])\*|\[(\d+)\]/g;

  function inline(parent, text, ctx, depth) {
    var re = new RegExp(INLINE.source, "g");
    var last = 0;
    var m;
    while ((m = re.exec(text))) {
      if (m.index > last) parent.appendChild(document.createTextNode(text.slice(last, m.index)));
      last = re.lastIndex;
      if (m[1] !== undefined) {
        parent.appendChild(el("code", null, m[1]));
      } else if (m[2] !== undefined) {
        if (httpUrl(m[3])) {
          var a = el("a", "link", m[2]);
          a.href = m[3];
          a.rel = "noopener noreferrer nofollow";
          a.target = "_blank";
          parent.appendChild(a);
        } else {
          parent.appendChild(document.createTextNode(m[0]));
        }
      } else if (m[4] !== undefined || m[5] !== undefined) {
        var strong = el(m[4] !== undefined ? "strong" : "em");
        if (depth < 3) inline(strong, m[4] !== undefined ? m[4] : m[5], ctx, depth + 1);
        else strong.textContent = m[4] !== undefined ? m[4] : m[5];
        parent.appendChild(strong);
      } else if (m[6] !== undefined) {
        if (showSources && ctx.known[m[6]]) {
          var sup = el("sup");
          var marker = el("a", "marker", "[" + m[6] + "]");
          marker.href = "#" + ctx.key + "-" + m[6];
          marker.setAttribute("aria-label", t("source.label", { n: m[6] }));
          sup.appendChild(marker);
          parent.appendChild(sup);
        } else {
          parent.appendChild(document.createTextNode(m[0]));
        }
      }
    }
    if (last < text.length) parent.appendChild(document.createTextNode(text.slice(last)));
  }

  function lines(parent, list, ctx) {
    for (var i = 0; i < list.length; i++) {
      if (i) parent.appendChild(el("br"));
      inline(parent, list[i], ctx, 0);
    }
  }

  var BULLET = /^\s{0,3}[-*]\s+(.*)$/;
  var NUMBERED = /^\s{0,3}(\d{1,9})[.)]\s+(.*)$/;
  var FENCE = /^\s{0,3}```/;

  function markdown(target, text, ctx) {
    var rows = text.replace(/\r\n?/g, "\n").split("\n");
    var i = 0;
    while (i < rows.length) {
      var row = rows[i];
      if (!row.trim()) {
        i++;
        continue;
      }
      if (FENCE.test(row)) {
        var code = [];
        i++;
        while (i < rows.length && !FENCE.test(rows[i])) code.push(rows[i++]);
        i++; // the closing fence (absent while the answer is still arriving)
        var pre = el("pre");
        pre.appendChild(el("code", null, code.join("\n")));
        target.appendChild(pre);
        continue;
      }
      var bullet = BULLET.exec(row);
      var numbered = !bullet && NUMBERED.exec(row);
      if (bullet || numbered) {
        var ordered = !!numbered;
        var listEl = el(ordered ? "ol" : "ul");
        if (ordered && numbered[1] !== "1") listEl.start = parseInt(numbered[1], 10);
        while (i < rows.length) {
          var b = BULLET.exec(rows[i]);
          var n = !b && NUMBERED.exec(rows[i]);
          if (ordered ? !n : !b) break;
          var item = el("li");
          var itemLines = [ordered ? n[2] : b[1]];
          i++;
          // Continuation lines (indented, not a new item) stay in the item.
          while (i < rows.length && /^\s{2,}\S/.test(rows[i]) && !BULLET.test(rows[i]) && !NUMBERED.test(rows[i])) {
            itemLines.push(rows[i].trim());
            i++;
          }
          lines(item, itemLines, ctx);
          listEl.appendChild(item);
        }
        target.appendChild(listEl);
        continue;
      }
      var para = [];
      while (i < rows.length && rows[i].trim() && !FENCE.test(rows[i]) && !BULLET.test(rows[i]) && !NUMBERED.test(rows[i])) {
        para.push(rows[i]);
        i++;
      }
      var p = el("p");
      lines(p, para, ctx);
      target.appendChild(p);
    }
  }

  // The answer's text, rendered, with its [n] markers linked to the passages they name (when shown).
  function renderAnswer(bubble, text, citations, key) {
    var known = {};
    for (var i = 0; i < citations.length; i++) known[citations[i].index] = true;
    var fresh = document.createDocumentFragment();
    markdown(fresh, text, { known: known, key: key });
    bubble.textContent = "";
    bubble.appendChild(fresh);
    bubble.classList.add("md");
  }

  function paragraphs(bubble, text) {
    var parts = String(text || "").replace(/\r\n?/g, "\n").split(/\n{2,}/);
    for (var i = 0; i < parts.length; i++) {
      var t = parts[i].trim();
      if (!t) continue;
      var p = el("p");
      var ls = t.split("\n");
      for (var j = 0; j < ls.length; j++) {
        if (j) p.appendChild(el("br"));
        p.appendChild(document.createTextNode(ls[j]));
      }
      bubble.appendChild(p);
    }
  }

  function renderSources(tools, citations, key) {
    if (!showSources || !citations.length) return null;
    var details = el("details", "sources");
    details.appendChild(el("summary", null, plural("sources", citations.length)));
    var list = el("ol");
    for (var i = 0; i < citations.length; i++) {
      var c = citations[i];
      var item = el("li");
      item.id = key + "-" + c.index;
      item.appendChild(el("span", "name", "[" + c.index + "] " + (c.sourceName || "")));
      if (httpUrl(c.url)) {
        item.appendChild(document.createTextNode(" "));
        var a = el("a", null, t("source.page"));
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
    var b = el("button", "speak", t("listen"));
    b.type = "button";
    b.setAttribute("aria-pressed", "false");
    b.setAttribute("aria-label", t("listen.label"));
    var audio = null;
    var current = conversation;
    function playing(on) {
      b.setAttribute("aria-pressed", on ? "true" : "false");
      b.textContent = on ? t("pause") : t("listen");
    }
    function speak() {
      if (audio && !audio.paused) {
        audio.pause();
        return;
      }
      var ready = audio
        ? Promise.resolve(audio)
        : fetch(base + "/" + enc(current.id) + "/messages/" + enc(messageId) + "/speech", {
            headers: { Authorization: "Visitor " + current.token },
          }).then(function (res) {
            if (!res.ok) {
              return failure(res).then(function (err) {
                // Voice turned off: final. Speech unavailable (503) may be a model that did not
                // answer this time: the visitor can try again.
                if (res.status === 409) {
                  b.disabled = true;
                  err.final = true;
                }
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
        .then(function () {
          if (statusKind === "speech") setStatus("");
        })
        .catch(function (err) {
          var final = err && err.final;
          if (!final) b.disabled = false;
          var message = err && err.fromServer && final ? err.message : t("listen.failed");
          setStatus(message, true, final ? null : function () {
            speak();
            b.focus();
          }, "speech");
        });
    }
    b.addEventListener("click", speak);
    tools.appendChild(b);
  }

  function finishAnswer(answer, message) {
    message = message || {};
    if (message.role && message.role !== "assistant") {
      // Nobody answers now (a conversation handed to a person): the question is stored, and the
      // person's replies are polled for.
      answer.li.remove();
      if (!handedOff) {
        handedOff = true;
        person.hidden = true;
      }
      return;
    }
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

  // A message written by a person of the owner's team (hand-off).
  function addAgent(text) {
    var li = el("li", "msg agent");
    li.appendChild(el("span", "who", t("agent")));
    var bubble = el("div", "bubble", text);
    bubble.dir = "auto";
    li.appendChild(bubble);
    log.appendChild(li);
    return li;
  }

  function addWelcome(text) {
    var li = el("li", "msg assistant welcome");
    var bubble = el("div", "bubble");
    bubble.dir = "auto";
    paragraphs(bubble, text);
    li.appendChild(bubble);
    log.appendChild(li);
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

  // The server's messages are English: the visitor reads the page's own text for each code
  // (and, in English, the server's message for a code the page does not know).
  var MESSAGES = {
    conversation_full: "error.conversation_full",
    generation_failed: "error.generation_failed",
    identity_invalid: "error.identity_invalid",
    email_required: "error.email_required",
    voice_disabled: "error.voice_disabled",
    cut_off: "error.cut_off",
  };
  // Failures the next question clears from the status line.
  var PASSING = { rate_limited: true, generation_failed: true, identity_invalid: true, cut_off: true };

  function apiError(error, statusCode, retryAfter) {
    error = error || {};
    var message =
      lang === "en" && error.message ? error.message : t("error.generic", { status: number(statusCode) });
    if (error.code === "rate_limited") {
      var seconds = parseInt(retryAfter || (error.details && error.details.retryAfter) || "", 10);
      message = seconds > 0 ? plural("error.rate_limited_for", seconds) : t("error.rate_limited");
    } else if (MESSAGES[error.code]) {
      message = t(MESSAGES[error.code]);
    } else if (statusCode === 404) {
      message = t("error.not_found");
    }
    var err = new Error(message);
    err.code = error.code;
    err.status = statusCode;
    err.fromServer = true;
    err.passing = !!PASSING[error.code];
    return err;
  }

  // Server-sent events, fed in pieces as they arrive.
  function eventParser(handle) {
    var buffer = "";
    function dispatch(block) {
      var name = "message";
      var data = [];
      var rows = block.split(/\r?\n/);
      for (var i = 0; i < rows.length; i++) {
        var line = rows[i];
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
    var frame = 0;
    function paint() {
      frame = 0;
      if (done) return;
      answer.bubble.classList.remove("typing");
      renderAnswer(answer.bubble, text, citations, "pending");
      follow(answer.li);
    }
    var parse = eventParser(function (name, value) {
      if (name === "citations") {
        citations = showSources ? value.citations || [] : [];
      } else if (name === "delta") {
        text += value.text || "";
        // Rendered once a frame at most (a hidden tab gets no frames: then at once).
        if (window.requestAnimationFrame && !document.hidden) {
          if (!frame) frame = window.requestAnimationFrame(paint);
        } else {
          paint();
        }
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
      if (frame && window.cancelAnimationFrame) window.cancelAnimationFrame(frame);
      frame = 0;
      if (failed) throw apiError(failed, 502, null);
      if (!done) throw apiError({ code: "cut_off" }, 0, null);
      finishAnswer(answer, done);
    });
  }

  function post(path, body, accept) {
    var headers = { "Content-Type": "application/json", Accept: accept };
    if (conversation) headers.Authorization = "Visitor " + conversation.token;
    return fetch(path, { method: "POST", headers: headers, body: JSON.stringify(body) });
  }

  function opened(id) {
    root.setAttribute("data-conversation", id);
    restart.hidden = false;
    person.hidden = !handoffOffered || handedOff;
  }

  function open() {
    var who = {};
    var k;
    if (visitor) for (k in visitor) if (visitor[k]) who[k] = visitor[k];
    if (identity.userId) {
      who.userId = identity.userId;
      who.userHash = identity.userHash;
    }
    var body = {};
    for (k in who) {
      body.visitor = who;
      break;
    }
    conversation = null;
    var mine = epoch;
    return post(base, body, "application/json").then(function (res) {
      if (!res.ok) return failure(res).then(function (err) { throw err; });
      return res.json().then(function (answer) {
        if (mine !== epoch) throw new Error("stale");
        conversation = { id: answer.conversation.id, token: answer.visitorToken };
        remember();
        opened(answer.conversation.id);
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

  // ---- Questions: sent one after the other; one typed meanwhile waits its turn. ----
  function waiting() {
    return busy || restoring || (gated && !conversation && !visitor);
  }

  function pending(item, on) {
    item.mine.li.classList.toggle("pending", on);
    var note = item.mine.li.querySelector(".note");
    if (on && !note) {
      item.mine.li.appendChild(el("span", "note", t("waiting")));
    } else if (!on && note) {
      note.remove();
    }
  }

  function pump() {
    if (waiting() || !queue.length) return;
    run(queue.shift());
  }

  function submit(text) {
    text = (text || "").trim();
    if (!text) return false;
    if (text.length > LIMIT) {
      setStatus(t("too_long", { limit: number(LIMIT) }), true);
      return false;
    }
    if (statusKind) setStatus("");
    questions.hidden = true;
    following = true;
    var item = { text: text, mine: addMessage("user", text) };
    queue.push(item);
    if (waiting()) pending(item, true);
    pump();
    return true;
  }

  function run(item) {
    var text = item.text;
    var mine = item.mine;
    setBusy(true);
    pending(item, false);
    mine.li.classList.remove("unanswered");
    log.appendChild(mine.li); // a question tried again moves down to where its answer comes
    var answer = addMessage("assistant", "");
    answer.bubble.classList.add("typing");
    answer.li.setAttribute("aria-busy", "true");
    // Queued questions stay below the answer being written.
    for (var i = 0; i < queue.length; i++) log.appendChild(queue[i].mine.li);
    var mineEpoch = epoch;
    var ready = conversation ? Promise.resolve() : open();
    ready
      .then(function () { return answerTo(text, answer); })
      .then(function () {
        if (mineEpoch !== epoch) return;
        setBusy(false);
        follow(answer.li);
        if (handedOff) watch();
        pump();
      })
      .catch(function (err) {
        if (mineEpoch !== epoch) return;
        setBusy(false);
        answer.li.remove();
        mine.li.classList.add("unanswered");
        if (err.code === "conversation_full") {
          conversation = null;
          forget();
        }
        var retry =
          err.code === "generation_failed" || err.code === "rate_limited" || !err.fromServer
            ? function () {
                if (busy) {
                  queue.unshift(item);
                  pending(item, true);
                } else {
                  queue.unshift(item);
                  pump();
                }
              }
            : null;
        if (!retry) {
          // Nothing to wait for: the questions behind it are not sent either.
          for (var j = 0; j < queue.length; j++) {
            pending(queue[j], false);
            queue[j].mine.li.classList.add("unanswered");
          }
          queue = [];
        }
        setStatus(err.fromServer ? err.message : t("error.connection"), true, retry,
          !err.fromServer || err.passing ? "passing" : null);
      });
  }

  // ---- The composer: send on Enter, the box clears at once, a counter near the limit. ----
  var counter = el("p", "counter");
  counter.id = "counter";
  counter.hidden = true;
  composer.appendChild(counter);
  var announcer = el("p", "visually-hidden");
  announcer.setAttribute("aria-live", "polite");
  composer.appendChild(announcer);
  var described = input.getAttribute("aria-describedby");
  input.setAttribute("aria-describedby", (described ? described + " " : "") + "counter");
  var announced = 0;

  function updateCounter() {
    var n = input.value.length;
    counter.hidden = n < COUNT_FROM;
    counter.textContent = number(n) + " / " + number(LIMIT);
    counter.classList.toggle("full", n >= LIMIT);
    // Announced once at each step, not at every key.
    var step = n >= LIMIT ? 3 : n >= LIMIT - 100 ? 2 : n >= COUNT_FROM ? 1 : 0;
    if (step > announced) {
      announcer.textContent =
        step === 3 ? t("limit_reached", { limit: number(LIMIT) }) : plural("chars_left", LIMIT - n);
    }
    announced = step;
  }
  input.addEventListener("input", updateCounter);

  // A field reads in the direction of what is typed; empty, in the page's (its placeholder too).
  function ownDirection(field) {
    function follow() {
      if (field.value) field.dir = "auto";
      else field.removeAttribute("dir");
    }
    field.addEventListener("input", follow);
    return follow;
  }
  var inputDirection = ownDirection(input);
  ownDirection(document.getElementById("gate-email"));
  ownDirection(document.getElementById("gate-name"));

  function sendTyped() {
    if (submit(input.value)) {
      input.value = "";
      updateCounter();
      inputDirection();
    }
  }

  composer.addEventListener("submit", function (e) {
    e.preventDefault();
    sendTyped();
  });
  input.addEventListener("keydown", function (e) {
    // Enter sends, Shift+Enter starts a new line.
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      sendTyped();
    }
  });

  // Suggested questions: before the e-mail gate too; one chosen there is sent once it is passed.
  var buttons = questions.querySelectorAll("button");
  for (var q = 0; q < buttons.length; q++) {
    buttons[q].addEventListener("click", function (e) {
      var text = e.currentTarget.textContent;
      submit(text);
      if (gated && !conversation && !visitor && !gate.hidden) {
        document.getElementById("gate-email").focus();
      }
    });
  }

  // ---- "New conversation". ----
  var restart = el("button", "restart", t("restart"));
  restart.setAttribute("data-i18n", "restart");
  restart.type = "button";
  restart.id = "restart";
  restart.hidden = true;
  var bar = el("div", "chat-bar");
  bar.appendChild(restart);
  root.insertBefore(bar, root.firstChild);
  restart.addEventListener("click", function () {
    forget();
    epoch++;
    unwatch();
    handedOff = false;
    seenAgents = {};
    person.hidden = true;
    conversation = null;
    visitor = null;
    queue = [];
    setBusy(false);
    restart.hidden = true;
    root.removeAttribute("data-conversation");
    log.textContent = "";
    if (welcomeTemplate) log.appendChild(welcomeTemplate.cloneNode(true));
    setStatus("");
    begin();
    (gated ? document.getElementById("gate-email") : input).focus();
  });

  // ---- "Talk to a person" (hand-off): the owner's team answers in this conversation. ----
  var person = el("button", "restart handoff", t("handoff"));
  person.setAttribute("data-i18n", "handoff");
  person.type = "button";
  person.id = "handoff";
  person.hidden = true;
  bar.appendChild(person);
  var handedOff = false; // a person has the conversation: their replies are polled for
  var seenAgents = {}; // ids of the agent messages shown
  var POLL_FIRST = 3000;
  var POLL_MAX = 30000;
  var pollDelay = POLL_FIRST;
  var pollTimer = 0;
  var polling = false; // a read is on its way

  person.addEventListener("click", function () {
    if (!conversation || handedOff) return;
    person.disabled = true;
    var mine = epoch;
    post(base + "/" + enc(conversation.id) + "/handoff", {}, "application/json")
      .then(function (res) {
        if (!res.ok) return failure(res).then(function (err) { throw err; });
        return res.json();
      })
      .then(function (body) {
        if (mine !== epoch) return;
        handedOff = !!(body && body.conversation && body.conversation.status === "handoff");
        person.hidden = handedOff;
        setStatus(handedOff ? t("handoff.started") : "");
        if (handedOff) watch();
      })
      .catch(function (err) {
        if (mine !== epoch) return;
        setStatus(err && err.fromServer ? err.message : t("error.connection"), true, null, "passing");
      })
      .then(function () {
        person.disabled = false;
      });
  });

  // Polls the conversation while a person has it and the page is shown: every 3 s, slower (up
  // to 30 s) while nothing new comes, faster again when a reply arrives or the visitor writes.
  function watch() {
    pollDelay = POLL_FIRST;
    schedule();
  }

  function unwatch() {
    if (pollTimer) window.clearTimeout(pollTimer);
    pollTimer = 0;
  }

  function schedule() {
    unwatch();
    if (!handedOff || !conversation || document.hidden) return;
    pollTimer = window.setTimeout(poll, pollDelay);
  }

  function poll() {
    pollTimer = 0;
    if (!handedOff || !conversation || document.hidden || polling) return;
    polling = true;
    var mine = epoch;
    var id = conversation.id;
    fetch(base + "/" + enc(id), {
      headers: { Authorization: "Visitor " + conversation.token, Accept: "application/json" },
    })
      .then(function (res) {
        if (res.status === 429) {
          var wait = Number(res.headers.get("Retry-After")) * 1000;
          pollDelay = Math.min(POLL_MAX, Math.max(pollDelay * 2, wait || 0));
          return null;
        }
        if (!res.ok) {
          pollDelay = Math.min(POLL_MAX, pollDelay * 2);
          return null;
        }
        return res.json();
      })
      .then(function (body) {
        if (mine !== epoch || !body || !body.conversation) return;
        var fresh = false;
        var messages = body.messages || [];
        for (var i = 0; i < messages.length; i++) {
          var m = messages[i] || {};
          if (m.role === "agent" && m.id && !seenAgents[m.id]) {
            seenAgents[m.id] = true;
            var li = addAgent(m.content || "");
            li.setAttribute("data-message-id", m.id);
            follow(li);
            fresh = true;
          }
        }
        if (body.conversation.status !== "handoff") {
          // Handed back: the Mind or chatbot answers again.
          handedOff = false;
          person.hidden = !handoffOffered;
          setStatus("");
        }
        pollDelay = fresh ? POLL_FIRST : Math.min(POLL_MAX, Math.round(pollDelay * 1.5));
      })
      .catch(function () {
        pollDelay = Math.min(POLL_MAX, pollDelay * 2);
      })
      .then(function () {
        polling = false;
        if (mine === epoch) schedule();
      });
  }

  document.addEventListener("visibilitychange", function () {
    if (document.hidden) {
      unwatch();
    } else if (handedOff) {
      // Back on the page: look at once, then at the first pace again.
      pollDelay = POLL_FIRST;
      poll();
    }
  });

  function startChat() {
    gate.hidden = true;
    composer.hidden = false;
    questions.hidden = questions.querySelectorAll("button").length === 0 || !!log.querySelector("li.msg.user");
  }

  // ---- The e-mail gate. ----
  var email = document.getElementById("gate-email");
  var visitorName = document.getElementById("gate-name");
  var gateError = document.getElementById("gate-error");
  var start = document.getElementById("gate-start");
  gate.addEventListener("submit", function (e) {
    e.preventDefault();
    var address = email.value.trim();
    if (!address || !email.checkValidity()) {
      gateError.textContent = t("email.invalid");
      email.setAttribute("aria-invalid", "true");
      email.focus();
      return;
    }
    email.removeAttribute("aria-invalid");
    gateError.textContent = "";
    var who = { email: address };
    if (visitorName.value.trim()) who.name = visitorName.value.trim();
    visitor = who;
    start.disabled = true;
    open()
      .then(function () {
        startChat();
        input.focus();
        pump();
      })
      .catch(function (err) {
        visitor = null;
        gateError.textContent = err.fromServer ? err.message : t("error.connection");
      })
      .then(function () {
        start.disabled = false;
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
  function show(messages) {
    log.textContent = "";
    var last = null;
    for (var i = 0; i < messages.length; i++) {
      var m = messages[i] || {};
      if (m.role === "user") {
        last = addMessage("user", m.content || "").li;
      } else if (m.role === "agent") {
        last = addAgent(m.content || "");
        if (m.id) seenAgents[m.id] = true;
      } else if (m.role === "assistant" && m.generatedBy === "welcome") {
        addWelcome(m.content || "");
      } else if (m.role === "assistant") {
        var answer = addMessage("assistant", "");
        finishAnswer(answer, m);
        last = answer.li;
      }
    }
    if (last) reveal(last);
  }

  function restore(saved) {
    restoring = true;
    setStatus(t("loading"));
    var id = saved.conversationId;
    var token = saved.visitorToken;
    return fetch(base + "/" + enc(id), {
      headers: { Authorization: "Visitor " + token, Accept: "application/json" },
    })
      .then(function (res) {
        if (res.status === 404 || res.status === 401 || res.status === 403) {
          forget();
          return null;
        }
        if (!res.ok) return failure(res).then(function (err) { throw err; });
        return res.json();
      })
      .then(function (body) {
        restoring = false;
        setStatus("");
        if (!body || !body.conversation) {
          begin();
          return;
        }
        conversation = { id: id, token: token };
        var v = body.conversation.visitor;
        if (v && v.email) visitor = { email: v.email, name: v.name || undefined };
        show(body.messages || []);
        handedOff = body.conversation.status === "handoff";
        opened(id);
        root.setAttribute("data-restored", "true");
        if (handedOff) watch();
        startChat();
        pump();
      })
      .catch(function (err) {
        restoring = false;
        // Kept: the conversation may load next time; a new one can be started meanwhile.
        restart.hidden = false;
        setStatus(err && err.fromServer ? err.message : t("error.load"), true, function () {
          restore(saved);
        }, "passing");
      });
  }

  // ---- Embedded (widget.js): tell the parent the chat is up; Escape asks it to close. ----
  if (embed && window.parent && window.parent !== window) {
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && !e.defaultPrevented && !e.isComposing) {
        window.parent.postMessage({ type: "lore:close" }, "*");
      }
    });
    window.parent.postMessage({ type: "lore:ready", name: String(document.title || "").slice(0, 120) }, "*");
  }

  var saved = stored();
  if (saved && (saved.userId || "") !== (identity.userId || "")) {
    // Another visitor on this browser: their conversation is not this one's.
    forget();
    saved = null;
  }
  function go() {
    if (saved) restore(saved);
    else begin();
  }
  // The chat shows once its texts are in the visitor's language (or after 3 s without them).
  if (languageShown) {
    Promise.race([languageShown, new Promise(function (done) { window.setTimeout(done, 3000); })]).then(go);
  } else {
    go();
  }
})();
