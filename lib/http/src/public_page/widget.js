/* Lore chat widget (GET /widget.js). Put on any site allowed by the Mind's or chatbot's
 * allowedOrigins:
 *
 *   <script src="https://lore.example/widget.js" data-mind="ada" async></script>
 *   <script src="https://lore.example/widget.js" data-chatbot="support" async></script>
 *
 * Optional attributes: data-color="#4f46e5" (the launcher's colour; else the owner's theme
 * colour), data-language="fr" (the texts' language when the owner's is "auto"; the frame gets it
 * as ?lang=), data-open="true" (open at load), data-user-id and data-user-hash (identity
 * verification: the frame gets them in its URL fragment, which is never sent to a server).
 *
 * Before it draws the launcher it reads the owner's settings, <base>/m/{slug}/widget.json (or
 * /c/): {language, color}, public and cached by the browser for 5 minutes; without an answer
 * within 3 s it draws with its defaults. Its texts are in the owner's language when fixed, else
 * data-language, else the first supported of the visitor's navigator.languages, else English;
 * on a right-to-left host page the launcher and the panel sit bottom left.
 *
 * It adds one element to the host page: a container whose shadow root holds the launcher button
 * and the chat panel (an iframe of <base>/m/{slug}?embed=1, or /c/{slug}). It reads and writes
 * nothing else of the host page and keeps no state of its own; the one global is
 * window.LoreWidget ({open, close, toggle}; a call made before the launcher is drawn is kept
 * for it). Styles are set from script on its own elements only, after a reset, so that the
 * host's style sheets neither leak in nor are needed.
 */
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || window.LoreWidget) return;

  var src = script.src || "";
  var base = src.replace(/[?#].*$/, "").replace(/\/widget\.js$/, "");
  var baseOrigin;
  try {
    baseOrigin = new URL(base, location.href).origin;
  } catch (e) {
    return;
  }
  var mind = script.getAttribute("data-mind");
  var chatbot = script.getAttribute("data-chatbot");
  var slug = mind || chatbot;
  if (!slug) return;
  var home = base + (mind ? "/m/" : "/c/") + encodeURIComponent(slug);
  var page = home + "?embed=1";

  // The texts of every language (put here by the server) and the language of this embedding.
  var I18N = /*LORE_I18N*/{};
  var catalogues = I18N.texts || {};
  function supportedLanguage(tag) {
    var primary = String(tag || "").toLowerCase().split(/[-_]/)[0];
    return Object.prototype.hasOwnProperty.call(catalogues, primary) ? primary : null;
  }
  var asked = supportedLanguage(script.getAttribute("data-language"));
  if (asked) page += "&lang=" + asked;
  var userId = script.getAttribute("data-user-id");
  var userHash = script.getAttribute("data-user-hash");
  if (userId && userHash) {
    page += "#userId=" + encodeURIComponent(userId) + "&userHash=" + encodeURIComponent(userHash);
  }
  var HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;
  var givenColor = script.getAttribute("data-color") || "";
  var openAtLoad = script.getAttribute("data-open") === "true";
  var READY_WITHIN_MS = 8000;
  var SETTINGS_WITHIN_MS = 3000;

  // Until the launcher is drawn, what the host's script asked of it.
  var widget = null;
  var asks = [];
  function later(name) {
    return function () {
      if (widget) widget[name]();
      else asks.push(name);
    };
  }
  window.LoreWidget = { open: later("open"), close: later("close"), toggle: later("toggle") };

  // The owner's settings, once (no credentials: public data of a published chat).
  var started = false;
  function begin(settings) {
    if (started) return;
    started = true;
    start(settings || {});
  }
  if (window.fetch) {
    window.setTimeout(begin, SETTINGS_WITHIN_MS);
    fetch(home + "/widget.json", { credentials: "omit", headers: { Accept: "application/json" } })
      .then(function (res) {
        return res.ok ? res.json() : {};
      })
      .then(begin, function () {
        begin({});
      });
  } else {
    begin({});
  }


  function start(settings) {
    var color = HEX.test(givenColor) ? givenColor : HEX.test(settings.color || "") ? settings.color : "#4f46e5";
    var lang = supportedLanguage(settings.language) || asked || null;
    if (!lang) {
      var list = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language];
      for (var l = 0; l < list.length && !lang; l++) lang = supportedLanguage(list[l]);
    }
    lang = lang || "en";
    var texts = catalogues[lang] || catalogues.en || {};
    function t(key, name) {
      var text = Object.prototype.hasOwnProperty.call(texts, key) ? texts[key] : key;
      return name === undefined ? text : text.replace("{name}", name);
    }
    var UNAVAILABLE = t("widget.unavailable");
    var rtlText = (I18N.rtl || []).indexOf(lang) >= 0;

    // Dark or light ink, whichever reads better on the launcher's colour.
    function ink(hex) {
      var h = hex.slice(1);
      if (h.length === 3) h = h.charAt(0) + h.charAt(0) + h.charAt(1) + h.charAt(1) + h.charAt(2) + h.charAt(2);
      var c = [0, 2, 4].map(function (i) {
        var v = parseInt(h.slice(i, i + 2), 16) / 255;
        return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
      });
      var l = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
      return (l + 0.05) / 0.0623 >= 1.005 / (l + 0.05) ? "#111827" : "#ffffff";
    }
    var onColor = ink(color);

    function css(el, rules) {
      for (var k in rules) el.style.setProperty(k, rules[k], rules[k + "!"] ? "important" : "");
      return el;
    }

    function make(tag, rules) {
      return css(document.createElement(tag), rules || {});
    }

    var SVG = "http://www.w3.org/2000/svg";
    function icon(paths) {
      var svg = document.createElementNS(SVG, "svg");
      svg.setAttribute("viewBox", "0 0 24 24");
      svg.setAttribute("width", "26");
      svg.setAttribute("height", "26");
      svg.setAttribute("aria-hidden", "true");
      svg.setAttribute("focusable", "false");
      for (var i = 0; i < paths.length; i++) {
        var p = document.createElementNS(SVG, "path");
        p.setAttribute("d", paths[i]);
        p.setAttribute("fill", "none");
        p.setAttribute("stroke", "currentColor");
        p.setAttribute("stroke-width", "2");
        p.setAttribute("stroke-linecap", "round");
        p.setAttribute("stroke-linejoin", "round");
        svg.appendChild(p);
      }
      return svg;
    }
    var CHAT = ["M21 12a8 8 0 0 1-11.6 7.1L4 20.5l1.4-4.6A8 8 0 1 1 21 12z"];
    var CROSS = ["M6 6l12 12", "M18 6L6 18"];

    var FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
    // The one element added to the host page. `all: initial` keeps the host's inherited styles out.
    var host = make("div", { all: "initial", "all!": 1 });
    host.setAttribute("data-lore-widget", "");
    var shadow = host.attachShadow ? host.attachShadow({ mode: "open" }) : host;

    var launcher = make("button", {
      all: "initial",
      position: "fixed",
      bottom: "20px",
      "z-index": "2147483646",
      width: "56px",
      height: "56px",
      "border-radius": "50%",
      background: color,
      color: onColor,
      display: "flex",
      "align-items": "center",
      "justify-content": "center",
      cursor: "pointer",
      "box-shadow": "0 4px 14px rgba(0,0,0,.28)",
      "box-sizing": "border-box",
    });
    launcher.type = "button";
    launcher.setAttribute("aria-label", t("widget.open"));
    launcher.setAttribute("aria-expanded", "false");
    launcher.setAttribute("aria-controls", "lore-panel");
    launcher.setAttribute("data-lore", "launcher");
    launcher.appendChild(icon(CHAT));

    var description = make("span", { display: "none" });
    description.id = "lore-unavailable-description";

    var panel = make("div", {
      all: "initial",
      position: "fixed",
      "z-index": "2147483647",
      display: "none",
      "flex-direction": "column",
      background: "#ffffff",
      color: "#111827",
      overflow: "hidden",
      "box-shadow": "0 12px 40px rgba(0,0,0,.3)",
      "font-family": FONT,
      "box-sizing": "border-box",
    });
    panel.id = "lore-panel";
    panel.setAttribute("role", "dialog");
    panel.setAttribute("aria-label", t("widget.title"));
    panel.setAttribute("lang", lang);
    panel.setAttribute("dir", rtlText ? "rtl" : "ltr");
    panel.setAttribute("data-lore", "panel");

    var bar = make("div", {
      display: "flex",
      "align-items": "center",
      "justify-content": "space-between",
      gap: "8px",
      "padding-block": "6px",
      "padding-inline": "14px 6px",
      background: color,
      color: onColor,
      "font-family": FONT,
      "font-size": "15px",
      "font-weight": "600",
      "line-height": "1.3",
      flex: "none",
      "min-height": "44px",
      "box-sizing": "border-box",
    });
    var title = make("span", { overflow: "hidden", "text-overflow": "ellipsis", "white-space": "nowrap" });
    title.textContent = t("widget.title");
    var close = make("button", {
      all: "initial",
      width: "44px",
      height: "44px",
      display: "flex",
      "align-items": "center",
      "justify-content": "center",
      color: onColor,
      cursor: "pointer",
      "border-radius": "8px",
      flex: "none",
    });
    close.type = "button";
    close.setAttribute("aria-label", t("widget.close"));
    close.setAttribute("data-lore", "close");
    close.appendChild(icon(CROSS));
    bar.appendChild(title);
    bar.appendChild(close);
    panel.appendChild(bar);

    var notice = make("p", {
      display: "none",
      margin: "0",
      padding: "24px 20px",
      "font-family": FONT,
      "font-size": "15px",
      "line-height": "1.5",
      color: "#111827",
    });
    notice.setAttribute("role", "status");
    notice.setAttribute("data-lore", "notice");
    panel.appendChild(notice);

    // The keyboard focus ring on our buttons (the reset removes the browser's own).
    [launcher, close].forEach(function (b) {
      b.addEventListener("focus", function () {
        var keyboard = true;
        try {
          keyboard = b.matches(":focus-visible");
        } catch (e) {
          /* an older browser: always show it */
        }
        if (keyboard) css(b, { outline: "3px solid " + (b === launcher ? color : onColor), "outline-offset": "3px" });
      });
      b.addEventListener("blur", function () { css(b, { outline: "none" }); });
    });

    shadow.appendChild(launcher);
    shadow.appendChild(description);
    shadow.appendChild(panel);

    var frame = null;
    var blocked = false;
    var isOpen = false;
    var ready = false;
    var timer = 0;
    var phone = window.matchMedia ? window.matchMedia("(max-width: 479.98px)") : null;

    // A right-to-left host page has its corners mirrored: the chat sits bottom left.
    function hostRtl() {
      try {
        var d = document.body || document.documentElement;
        return window.getComputedStyle(d).direction === "rtl";
      } catch (e) {
        return false;
      }
    }

    function layout() {
      var small = phone ? phone.matches : window.innerWidth < 480;
      var near = hostRtl() ? "left" : "right";
      var far = near === "left" ? "right" : "left";
      var corner = {};
      corner[near] = "20px";
      corner[far] = "auto";
      css(launcher, corner);
      host.setAttribute("data-lore-side", near);
      if (small) {
        css(panel, {
          top: "0",
          left: "0",
          right: "0",
          bottom: "0",
          width: "100%",
          height: "100%",
          "max-height": "none",
          "border-radius": "0",
        });
      } else {
        css(panel, {
          top: "auto",
          left: corner.left,
          right: corner.right,
          bottom: "88px",
          width: "min(400px, calc(100vw - 40px))",
          // A notice alone needs no room for a conversation.
          height: blocked ? "auto" : "min(640px, calc(100vh - 108px))",
          "border-radius": "14px",
        });
      }
      // On a phone the open panel covers the screen: its own close button replaces the launcher.
      css(launcher, { display: isOpen && small ? "none" : "flex" });
    }

    function unavailable(on) {
      blocked = on;
      layout();
      notice.textContent = on ? UNAVAILABLE : "";
      css(notice, { display: on ? "block" : "none" });
      if (frame) css(frame, { display: on ? "none" : "block" });
      description.textContent = on ? UNAVAILABLE : "";
      if (on) launcher.setAttribute("aria-describedby", description.id);
      else launcher.removeAttribute("aria-describedby");
      host.setAttribute("data-lore-state", on ? "unavailable" : ready ? "ready" : "loading");
    }

    function ensureFrame() {
      if (frame) return;
      frame = make("iframe", {
        all: "initial",
        display: "block",
        border: "0",
        width: "100%",
        flex: "1 1 auto",
        "min-height": "0",
        background: "#ffffff",
      });
      frame.title = t("widget.title");
      frame.setAttribute("data-lore", "frame");
      frame.setAttribute("allow", "autoplay");
      frame.src = page;
      panel.appendChild(frame);
      host.setAttribute("data-lore-state", "loading");
      // A frame the site may not show (CSP frame-ancestors) never says it is ready.
      timer = window.setTimeout(function () {
        if (!ready) unavailable(true);
      }, READY_WITHIN_MS);
    }

    window.addEventListener("message", function (e) {
      if (!frame || e.source !== frame.contentWindow || e.origin !== baseOrigin) return;
      var data = e.data;
      if (!data || typeof data !== "object") return;
      if (data.type === "lore:ready") {
        ready = true;
        window.clearTimeout(timer);
        if (typeof data.name === "string" && data.name) {
          var name = data.name.slice(0, 80);
          title.textContent = name;
          frame.title = t("chat.label", name);
          panel.setAttribute("aria-label", t("chat.label", name));
        }
        unavailable(false);
        if (isOpen && shadow.activeElement === close) frame.focus();
      } else if (data.type === "lore:close") {
        hide(true);
      }
    });

    // takeFocus: the visitor opened it (launcher, or the host's script on their action); opened
    // at load (data-open) it leaves the host page's focus where it is.
    function show(takeFocus) {
      if (isOpen) return;
      isOpen = true;
      ensureFrame();
      css(panel, { display: "flex" });
      launcher.setAttribute("aria-expanded", "true");
      launcher.setAttribute("aria-label", t("widget.close"));
      launcher.replaceChild(icon(CROSS), launcher.firstChild);
      layout();
      if (takeFocus === false) return;
      if (ready) frame.focus();
      else close.focus();
    }

    function hide(returnFocus) {
      if (!isOpen) return;
      isOpen = false;
      css(panel, { display: "none" });
      launcher.setAttribute("aria-expanded", "false");
      launcher.setAttribute("aria-label", t("widget.open"));
      launcher.replaceChild(icon(CHAT), launcher.firstChild);
      layout();
      if (returnFocus) launcher.focus();
    }

    launcher.addEventListener("click", function () {
      if (isOpen) hide(true);
      else show();
    });
    close.addEventListener("click", function () { hide(true); });
    shadow.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && isOpen) {
        e.stopPropagation();
        hide(true);
      }
    });
    if (phone) {
      if (phone.addEventListener) phone.addEventListener("change", layout);
      else if (phone.addListener) phone.addListener(layout);
    } else {
      window.addEventListener("resize", layout);
    }

    function mount() {
      document.body.appendChild(host);
      layout();
      if (openAtLoad) show(false);
    }
    if (document.body) mount();
    else document.addEventListener("DOMContentLoaded", mount);

    widget = {
      open: show,
      close: function () { hide(false); },
      toggle: function () {
        if (isOpen) hide(false);
        else show();
      },
    };
    for (var a = 0; a < asks.length; a++) widget[asks[a]]();
    asks = [];
  }
})();
