"""The chat widget on other sites, in a real browser (run by scripts/browser-test.sh after chat_page.py).

Starts `lore serve` with the stub model (as chat_page.py does) and two tiny host sites on other
origins (Python http.server on other ports of 127.0.0.1): one in the Mind's `allowedOrigins`, one
not. The host pages carry `<script src="<lore>/widget.js" data-mind="…" async>` (or
`data-chatbot`) and style sheets that would leak into an unprotected widget. Checks:

- GET /widget.js: JavaScript, `Cache-Control: public`, an ETag, no cookie access in it;
- the launcher: one button in one container, bottom right, the given colour, an accessible name,
  aria-expanded and aria-controls, reached with Tab and opened with Enter; the host page's DOM,
  globals (only `LoreWidget`) and cookies are otherwise unchanged;
- the frame (`/m/{slug}?embed=1`, titled) says it is ready; in it: the embed layout (no profile,
  log scrolls, composer at the bottom), the e-mail gate, a streamed answer with its citation,
  Markdown as elements, a hostile answer inert; Escape closes and gives the focus back;
- reloading the host page shows the same conversation (same messages), and the server stored one
  conversation; "New conversation" starts over;
- at phone size (390x844) the open frame covers the screen with its close button reachable, fits,
  and keeps the answer in view after four questions;
- on an origin not allowed, the browser refuses the frame and the widget says the chat is
  unavailable (notice and the launcher's description); `data-open="true"` opens it at load;
- a chatbot with identity verification: the host passes data-user-id and data-user-hash (HMAC
  computed here) and the stored conversation carries that userId; a wrong hash is refused;
- no CSP violation (host and frame), no dialog, no console error.

Screenshots (desktop 1280x800 and phone 390x844, closed and open, and the unavailable notice) go to
$LORE_SCREENSHOTS. Every wait polls with a deadline.
"""

import hashlib
import hmac
import os
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

sys.dont_write_bytecode = True  # no __pycache__ left in the tree by importing chat_page
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stub_model  # noqa: E402
from chat_page import (  # noqa: E402
    POLICY,
    QUESTION,
    WATCH,
    Browser,
    Lore,
    answered,
    check,
    last_answer,
    pass_gate,
    transcript,
    wait_for,
)

COLOUR = "#0a7c3e"
UNAVAILABLE = "This chat is unavailable on this site."
# Styles of a host page that would leak into a widget that did not protect itself.
HOST_STYLE = """
body { font-family: Georgia, serif; margin: 0; padding: 2rem; background: #f4f1ea; color: #222; }
div { border: 6px solid lime !important; }
button { background: red !important; font-size: 40px !important; }
iframe { border: 12px dotted red !important; }
p { line-height: 1.7; max-width: 40rem; }
"""
HOST_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Acme outdoor shop</title>
<link rel="icon" href="data:,">
<style>{style}</style>
{head}
</head>
<body>
<header><a id="first-link" href="#top">Acme</a> · <a href="#shop">Shop</a></header>
<h1>Acme outdoor shop</h1>
{paragraphs}
{widget}
</body>
</html>
"""
# The host page's elements (outside the widget), each with its attributes: must not change.
DOM_SUMMARY = """
return Array.from(document.querySelectorAll('*')).filter(function (e) {
  return !e.closest('[data-lore-widget]') && !(e.tagName === 'SCRIPT' && /widget\\.js/.test(e.src));
}).map(function (e) {
  return e.tagName + ' ' + Array.from(e.attributes).map(function (a) { return a.name + '=' + a.value; }).join(' ');
});
"""
SHADOW = "var host = document.querySelector('[data-lore-widget]'); var root = host && host.shadowRoot;"


class Hosts:
    """A tiny web server on its own port: another origin that embeds the widget."""

    def __init__(self):
        self.pages = {}
        pages = self.pages

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                body = pages.get(self.path.split("?")[0])
                if body is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"

    def page(self, path, widget_tag, in_head=False):
        paragraphs = "\n".join(
            f"<p>Paragraph {i}: tents, stoves and boots for every season, shipped within two days.</p>"
            for i in range(12)
        )
        self.pages[path] = HOST_PAGE.format(style=HOST_STYLE, paragraphs=paragraphs,
                                            head=widget_tag if in_head else "", widget="" if in_head else widget_tag)
        return self.origin + path

    def stop(self):
        self.server.shutdown()


def widget_tag(lore, kind, slug, **attrs):
    extra = "".join(f' data-{k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    return f'<script src="{lore.base}/widget.js" data-{kind}="{slug}"{extra} async></script>'


def shadow(b, selector):
    return b.js(SHADOW + "return root ? root.querySelector(arguments[0]) : null;", selector)


def state(b):
    return b.js(SHADOW + "return host ? host.getAttribute('data-lore-state') : null;")


def launcher_focused(b):
    return b.js(SHADOW + "return !!root && document.activeElement === host && root.activeElement === "
                "root.querySelector('[data-lore=launcher]');")


def viewport(b, width, height, mobile=False):
    """The page's viewport exactly (the window's size would include the browser's own parts)."""
    b.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                             {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
    wait_for(f"a {width}x{height} viewport", lambda: b.js("return [innerWidth, innerHeight]") == [width, height])


def into_frame(b):
    frame = wait_for("the frame", lambda: shadow(b, "iframe"))
    b.driver.switch_to.frame(frame)


def out_of_frame(b):
    b.driver.switch_to.default_content()


def console_errors(b):
    """Console errors of the page and its frame so far (a missing favicon aside)."""
    b.console += b.driver.get_log("browser")
    errors = [e for e in b.console if e.get("level") == "SEVERE" and "favicon" not in e.get("message", "")]
    b.console = []
    return errors


def frame_clean(b, where):
    """No CSP violation and no dialog in the frame (the watcher runs there too)."""
    check(b.js("return Array.isArray(window.__csp)"), f"{where}: the watcher runs in the frame")
    check(b.js("return window.__csp") == [], f"{where}: CSP violations in the frame {b.js('return window.__csp')}")
    check(b.js("return window.__dialogs") == [], f"{where}: dialogs in the frame")


def test_widget_script(lore):
    with urllib.request.urlopen(lore.base + "/widget.js", timeout=10) as res:
        body = res.read().decode()
        check("javascript" in res.headers.get("Content-Type", ""), res.headers.get("Content-Type"))
        check("public" in (res.headers.get("Cache-Control") or ""), res.headers.get("Cache-Control"))
        check(res.headers.get("ETag"), "an ETag")
    check("cookie" not in body.lower(), "widget.js never touches cookies")
    check("LoreWidget" in body, "the widget's one namespace")


def test_widget_mind(lore, b, hosts, stub):
    mind, url = lore.mind(
        {
            "name": "Ada Lovelace",
            "headline": "Mathematician",
            "welcomeMessage": "Hello! Ask me about refunds.",
            "suggestedQuestions": [QUESTION, "Are shipping costs refunded?"],
        },
        {"collectEmailBeforeChat": True, "theme": {"primaryColor": COLOUR}},
        [("Refund policy", POLICY)],
    )
    slug = url.rstrip("/").rsplit("/", 1)[1]
    lore.api("PATCH", f"/api/v1/minds/{mind}", {"allowedOrigins": [hosts.origin]})
    control = hosts.page("/control.html", "")
    page = hosts.page("/shop.html", widget_tag(lore, "mind", slug, color=COLOUR))

    b.open(control)
    viewport(b, 1280, 800)
    before = b.js(DOM_SUMMARY)
    globals_before = set(b.js("return Object.keys(window)"))
    body_before = b.js("return document.body.children.length")

    b.open(page)
    launcher = wait_for("the launcher", lambda: shadow(b, "[data-lore=launcher]"))
    check(b.js(DOM_SUMMARY) == before, "the host page's own elements are unchanged")
    check(b.js("return document.body.children.length") == body_before + 2, "one script tag and one container")
    check(b.js("return document.querySelectorAll('[data-lore-widget]').length") == 1, "one container")
    check(b.js("return document.body.lastElementChild.hasAttribute('data-lore-widget')"), "the container is last")
    added = set(b.js("return Object.keys(window)")) - globals_before
    check(added == {"LoreWidget"}, f"one global: {added}")
    check(b.js("return document.cookie") == "", "no cookie")
    check(launcher.tag_name.lower() == "button", "a real button")
    check(launcher.get_attribute("aria-label") == "Open chat", launcher.get_attribute("aria-label"))
    check(launcher.get_attribute("aria-expanded") == "false", "collapsed")
    controls = launcher.get_attribute("aria-controls")
    check(controls and shadow(b, "#" + controls) is not None, "aria-controls names the panel")
    box = b.js("var r = arguments[0].getBoundingClientRect(); return [r.right, r.bottom, innerWidth, innerHeight,"
               " getComputedStyle(arguments[0]).backgroundColor, getComputedStyle(arguments[0]).position];", launcher)
    check(box[2] - 40 <= box[0] <= box[2] and box[3] - 40 <= box[1] <= box[3], f"bottom right: {box}")
    check(box[4] == "rgb(10, 124, 62)" and box[5] == "fixed", f"the given colour, fixed: {box}")
    check(b.js("return getComputedStyle(arguments[0]).borderTopStyle", b.js(
        "return document.querySelector('[data-lore-widget]')")) == "none", "the host's styles do not reach the widget")
    b.screenshot("widget-desktop-closed.png")

    # Keyboard: Tab reaches the launcher, Enter opens it.
    b.js("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0);")
    for _ in range(12):
        ActionChains(b.driver).send_keys(Keys.TAB).perform()
        if launcher_focused(b):
            break
    check(launcher_focused(b), "Tab reaches the launcher")
    ActionChains(b.driver).send_keys(Keys.ENTER).perform()
    wait_for("the panel to open", lambda: launcher.get_attribute("aria-expanded") == "true")
    check(launcher.get_attribute("aria-label") == "Close chat", "the launcher now closes")
    frame = wait_for("the frame", lambda: shadow(b, "iframe"))
    check(frame.get_attribute("src") == f"{lore.base}/m/{slug}?embed=1", frame.get_attribute("src"))
    check(frame.get_attribute("title"), "the frame has a title")
    wait_for("the frame to say it is ready", lambda: state(b) == "ready", timeout=20)
    check(frame.get_attribute("title") == "Chat with Ada Lovelace", frame.get_attribute("title"))
    check(frame.is_displayed(), "the frame shows")
    check(b.js("return getComputedStyle(arguments[0]).borderTopStyle", frame) == "none", "the host's styles stay out")
    # The keyboard follows into the chat: the frame has the focus, Tab reaches its first control.
    wait_for("the focus in the frame", lambda: b.js(SHADOW + "return root.activeElement === root.querySelector('iframe');"))
    ActionChains(b.driver).send_keys(Keys.TAB).perform()
    into_frame(b)
    focused = b.js("var e = document.activeElement; return e ? e.tagName + ' ' + e.className : null;")
    check(focused in ("BUTTON question", "INPUT ", "BUTTON restart"), f"Tab reaches the chat's first control: {focused}")
    check(b.js("return document.body.classList.contains('embed')"), "the embed mode")
    check(b.all("h1") == [] and b.all("footer") == [] and b.all(".avatar") == [], "no profile in the frame")
    wait_for("the e-mail gate", lambda: b.visible("#gate"))
    check(b.visible("#questions"), "the suggested questions beside the gate")
    conversation = pass_gate(b, "vera@example.com", "Vera")
    b.all("#questions button.question")[0].click()
    seen = set()

    def streamed():
        answer = last_answer(b)
        if answer is None:
            return False
        text = answer.find_element(By.CSS_SELECTOR, ".bubble").text
        if answer.get_attribute("aria-busy") == "true" and text:
            seen.add(text)
        return answer.get_attribute("aria-busy") == "false"

    wait_for("the streamed answer", streamed, timeout=60, every=0.02)
    check(len(seen) >= 2, f"the answer arrived piece by piece: {seen}")
    answer = last_answer(b)
    check("fourteen days" in answer.text, answer.text)
    markers = answer.find_elements(By.CSS_SELECTOR, ".bubble sup a.marker")
    check(markers and markers[0].text == "[1]", "the citation marker")
    markers[0].click()
    check("Refund policy" in answer.find_element(By.CSS_SELECTOR, "details.sources").text, "the cited source")
    frame_clean(b, "the first answer")
    out_of_frame(b)
    b.screenshot("widget-desktop-open.png")
    into_frame(b)

    # Markdown as elements; a hostile answer stays inert.
    b.find("#message").send_keys("markdown please" + Keys.ENTER)
    md = answered(b, 2).find_element(By.CSS_SELECTOR, ".bubble")
    check(len(md.find_elements(By.CSS_SELECTOR, "strong")) == 1, "bold")
    check(len(md.find_elements(By.CSS_SELECTOR, "ul > li")) == 2, "a list")
    check(len(md.find_elements(By.CSS_SELECTOR, "p > code, li > code")) == 1, "inline code")
    check(len(md.find_elements(By.CSS_SELECTOR, "pre > code")) == 1, "a code block")
    b.find("#message").send_keys("inert please" + Keys.ENTER)
    inert = answered(b, 3).find_element(By.CSS_SELECTOR, ".bubble")
    check('<img src=x onerror="window.__xss=20">' in inert.text, inert.text)
    check("[click](javascript:window.__xss=21)" in inert.text and "[x](javascript:alert(1))" in inert.text, inert.text)
    check(b.js("return document.images.length") == 0, "no image element")
    protocols = b.js("return Array.from(document.links).map(function (a) { return a.protocol; })")
    check(all(p in ("http:", "https:") for p in protocols), f"only web links: {protocols}")
    check(b.js("return window.__xss === undefined"), "nothing ran")
    frame_clean(b, "the hostile answer")

    # The embed layout: the page itself does not scroll, the log does, the composer is at the bottom.
    layout = b.js("""var l = document.getElementById('log'), c = document.getElementById('composer').getBoundingClientRect();
        return [document.scrollingElement.scrollHeight, innerHeight, l.scrollHeight, l.clientHeight, c.bottom];""")
    check(layout[0] <= layout[1] + 1, f"the frame's page does not scroll: {layout}")
    check(layout[2] > layout[3], f"the log scrolls: {layout}")
    check(layout[1] - 80 <= layout[4] <= layout[1], f"the composer at the bottom: {layout}")
    seen_messages = transcript(b)

    # Escape in the frame closes the panel and gives the focus back to the launcher.
    b.find("#message").click()
    ActionChains(b.driver).send_keys(Keys.ESCAPE).perform()
    out_of_frame(b)
    wait_for("Escape to close", lambda: launcher.get_attribute("aria-expanded") == "false")
    wait_for("the focus back on the launcher", lambda: launcher_focused(b))
    check(not frame.is_displayed(), "the frame is hidden")
    check(b.js("return document.cookie") == "", "still no cookie")
    check(console_errors(b) == [], "no console error")

    # A reload of the host page: the same conversation, no second gate, one conversation stored.
    b.open(page)
    launcher = wait_for("the launcher", lambda: shadow(b, "[data-lore=launcher]"))
    launcher.click()
    wait_for("the frame ready again", lambda: state(b) == "ready", timeout=20)
    into_frame(b)
    wait_for("the conversation shown again", lambda: b.find("#chat").get_attribute("data-restored") == "true")
    wait_for("the same messages", lambda: transcript(b) == seen_messages)
    check(not b.visible("#gate") and b.visible("#composer"), "no second gate")
    check(b.find("#chat").get_attribute("data-conversation") == conversation, "the same conversation")
    listed = lore.api("GET", f"/api/v1/minds/{mind}/conversations")
    check(listed["pagination"]["total"] == 1, f"one conversation (and so one lead): {listed['pagination']}")
    stored = lore.api("GET", f"/api/v1/minds/{mind}/conversations/{conversation}")
    check(stored["conversation"]["visitor"]["email"] == "vera@example.com", stored["conversation"])

    # "New conversation": starts over behind the gate; a reload then does not bring the old one back.
    b.find("#restart").click()
    wait_for("the gate again", lambda: b.visible("#gate"))
    check(b.all("#log li.msg.user") == [], "the old messages are gone")
    out_of_frame(b)
    b.open(page)
    wait_for("the launcher", lambda: shadow(b, "[data-lore=launcher]")).click()
    wait_for("the frame ready again", lambda: state(b) == "ready", timeout=20)
    into_frame(b)
    wait_for("a new start", lambda: b.visible("#gate"))
    check(b.all("#log li.msg.user") == [], "not restored after 'New conversation'")
    frame_clean(b, "the new conversation")
    out_of_frame(b)
    check(lore.api("GET", f"/api/v1/minds/{mind}/conversations")["pagination"]["total"] == 1,
          "nothing created before the gate is passed")
    b.assert_clean("the host page")
    check(console_errors(b) == [], "no console error")
    return mind, slug, page


def in_view_in_frame(b):
    return b.js(
        """var answers = document.querySelectorAll('#log li.msg.assistant:not(.welcome)');
        if (!answers.length) return false;
        var r = answers[answers.length - 1].querySelector('.bubble').getBoundingClientRect();
        var log = document.getElementById('log').getBoundingClientRect();
        var c = document.getElementById('composer').getBoundingClientRect();
        return r.bottom <= Math.min(log.bottom, c.top) + 1 && r.bottom - 24 >= log.top;"""
    )


def test_widget_phone(lore, b, page):
    b.open(page)
    viewport(b, 390, 844, mobile=True)
    launcher = wait_for("the launcher", lambda: shadow(b, "[data-lore=launcher]"))
    check(launcher.is_displayed(), "the launcher shows on a phone")
    b.screenshot("widget-phone-closed.png")
    launcher.click()
    wait_for("the frame ready", lambda: state(b) == "ready", timeout=20)
    geometry = b.js(SHADOW + """var p = root.querySelector('[data-lore=panel]').getBoundingClientRect();
        var c = root.querySelector('[data-lore=close]'); var cr = c.getBoundingClientRect();
        var d = document.documentElement;
        return [p.left, p.top, p.width, p.height, d.clientWidth, d.clientHeight, cr.left, cr.top, cr.right, cr.bottom,
                getComputedStyle(root.querySelector('[data-lore=launcher]')).display, c.getAttribute('aria-label')];""")
    left, top, width, height, vw, vh = geometry[:6]
    check(abs(left) < 1 and abs(top) < 1 and abs(width - vw) < 1 and abs(height - vh) < 1,
          f"the panel covers the phone's screen: {geometry}")
    check(0 <= geometry[6] and geometry[8] <= vw and 0 <= geometry[7] and geometry[9] <= vh
          and geometry[8] - geometry[6] >= 44, f"the close button is on screen and big enough: {geometry}")
    check(geometry[11] == "Close chat", "the close button's name")
    into_frame(b)
    fit = b.js("return [document.documentElement.scrollWidth, innerWidth]")
    check(fit[0] <= fit[1], f"the chat fits the phone's width: {fit}")
    wait_for("the e-mail gate", lambda: b.visible("#gate"))
    pass_gate(b, "phone@example.com")
    questions = [QUESTION, "Are shipping costs refunded?", "markdown please", QUESTION]
    for i, q in enumerate(questions):
        b.find("#message").send_keys(q + Keys.ENTER)
        if i == len(questions) - 1:
            def mid_stream():
                a = last_answer(b)
                return a is not None and a.get_attribute("aria-busy") == "true" and len(a.text) > 40 \
                    and in_view_in_frame(b)
            wait_for("the growing answer in view", mid_stream, timeout=60, every=0.03)
        answered(b, i + 1)
    wait_for("the last answer in view", lambda: in_view_in_frame(b), timeout=5)
    frame_clean(b, "the phone")
    out_of_frame(b)
    b.screenshot("widget-phone-open.png")
    shadow(b, "[data-lore=close]").click()
    wait_for("the panel to close", lambda: launcher.get_attribute("aria-expanded") == "false")
    wait_for("the focus back on the launcher", lambda: launcher_focused(b))
    check(launcher.is_displayed(), "the launcher is back")
    check(console_errors(b) == [], "no console error")
    viewport(b, 1280, 800)


def test_widget_disallowed(lore, b, other, slug):
    page = other.page("/elsewhere.html", widget_tag(lore, "mind", slug, open="true"))
    b.open(page)
    launcher = wait_for("the launcher", lambda: shadow(b, "[data-lore=launcher]"))
    wait_for("data-open to open it at load", lambda: launcher.get_attribute("aria-expanded") == "true")
    started = time.monotonic()
    wait_for("the unavailable notice", lambda: state(b) == "unavailable", timeout=20)
    check(time.monotonic() - started < 15, "the notice comes within ~8 s")
    notice = shadow(b, "[data-lore=notice]")
    check(notice.is_displayed() and notice.text == UNAVAILABLE, notice.text)
    check(not shadow(b, "iframe").is_displayed(), "no blank frame")
    described = b.js(SHADOW + "var id = root.querySelector('[data-lore=launcher]').getAttribute('aria-describedby');"
                     "return id && root.getElementById(id) ? root.getElementById(id).textContent : null;")
    check(described == UNAVAILABLE, f"the launcher's description: {described}")
    b.screenshot("widget-unavailable.png")
    logs = b.driver.get_log("browser")
    refused = [e for e in logs if "frame-ancestors" in e.get("message", "")]
    check(refused, f"the browser refused the frame by the page's CSP: {logs}")
    check(b.js("return document.cookie") == "", "no cookie")


def test_widget_identity(lore, b, hosts):
    bot = lore.api("POST", "/api/v1/chatbots", {"name": "Support bot"})["chatbot"]
    source = lore.api("POST", f"/api/v1/chatbots/{bot['id']}/sources",
                      {"type": "text", "name": "Refund policy", "content": POLICY})["source"]
    if source["status"] != "ready":
        lore.api("POST", f"/api/v1/chatbots/{bot['id']}/sources/{source['id']}/process", {}, expect=(200, 202, 400))
    wait_for("the chatbot's source to be ready",
             lambda: lore.api("GET", f"/api/v1/chatbots/{bot['id']}/sources/{source['id']}")["source"]["status"]
             == "ready", timeout=60)
    lore.api("PATCH", f"/api/v1/chatbots/{bot['id']}", {
        "allowedOrigins": [hosts.origin],
        "identityVerification": True,
        "welcomeMessage": "Hi, how can I help?",
    })
    secret = lore.api("POST", f"/api/v1/chatbots/{bot['id']}/identity-secret", {})["identitySecret"]
    published = lore.api("POST", f"/api/v1/chatbots/{bot['id']}/publish", {})["chatbot"]
    slug = published["publicUrl"].rstrip("/").rsplit("/", 1)[1]
    check(published["publicUrl"].endswith(f"/c/{slug}"), published)
    user = "user 42/é&x=1"
    digest = hmac.new(secret.encode(), user.encode(), hashlib.sha256).hexdigest()
    attr_user = user.replace("&", "&amp;")
    page = hosts.page("/account.html", widget_tag(lore, "chatbot", slug, user_id=attr_user, user_hash=digest,
                                                  open="true"))
    b.open(page)
    wait_for("the chatbot's frame ready", lambda: state(b) == "ready", timeout=20)
    frame = shadow(b, "iframe")
    check(frame.get_attribute("src").startswith(f"{lore.base}/c/{slug}?embed=1#userId="), frame.get_attribute("src"))
    into_frame(b)
    wait_for("the message box", lambda: b.visible("#composer"))
    b.find("#message").send_keys(QUESTION + Keys.ENTER)
    answered(b, 1)
    conversation = b.find("#chat").get_attribute("data-conversation")
    stored = lore.api("GET", f"/api/v1/chatbots/{bot['id']}/conversations/{conversation}")
    check(stored["conversation"]["visitor"]["userId"] == user, stored["conversation"])
    frame_clean(b, "the verified visitor")
    out_of_frame(b)
    check(console_errors(b) == [], "no console error")

    # Another signed-in user on the same browser does not see the first one's conversation.
    other_user = "user 43"
    other_hash = hmac.new(secret.encode(), other_user.encode(), hashlib.sha256).hexdigest()
    # (This page has the script in its <head>: the widget waits for the body.)
    page2 = hosts.page("/account2.html", widget_tag(lore, "chatbot", slug, user_id=other_user, user_hash=other_hash,
                                                   open="true"), in_head=True)
    b.open(page2)
    wait_for("the chatbot's frame ready", lambda: state(b) == "ready", timeout=20)
    into_frame(b)
    wait_for("the message box", lambda: b.visible("#composer"))
    check(b.all("#log li.msg.user") == [] and b.find("#chat").get_attribute("data-restored") is None,
          "another user's conversation is not shown")
    out_of_frame(b)

    # A wrong hash: refused, and the visitor is told.
    page3 = hosts.page("/forged.html", widget_tag(lore, "chatbot", slug, user_id="user 44", user_hash="00" * 32,
                                                  open="true"))
    b.open(page3)
    wait_for("the chatbot's frame ready", lambda: state(b) == "ready", timeout=20)
    into_frame(b)
    wait_for("the message box", lambda: b.visible("#composer"))
    b.find("#message").send_keys(QUESTION + Keys.ENTER)
    wait_for("the refusal", lambda: "confirm who you are" in b.find("#status").text, timeout=30)
    out_of_frame(b)
    b.driver.get_log("browser")  # the 401 is expected
    total = lore.api("GET", f"/api/v1/chatbots/{bot['id']}/conversations")["pagination"]["total"]
    check(total == 1, f"only the verified visitor's conversation: {total}")


def main():
    model_url, stub, server = stub_model.start()
    lore = Lore(model_url)
    hosts = Hosts()
    other = Hosts()
    b = None
    try:
        test_widget_script(lore)
        print("widget: GET /widget.js: ok")
        b = Browser()
        b.before_each_page(WATCH)
        mind, slug, page = test_widget_mind(lore, b, hosts, stub)
        print("widget: launcher, keyboard, frame, gate, streamed answer, Markdown, inert answer, Escape, "
              "reload continuity, new conversation, host page untouched: ok")
        test_widget_phone(lore, b, page)
        print("widget: phone layout and the answer kept in view: ok")
        test_widget_disallowed(lore, b, other, slug)
        print("widget: an origin not allowed gets the unavailable notice: ok")
        test_widget_identity(lore, b, hosts)
        print("widget: identity verification: ok")
    except BaseException:
        print("widget: lore serve log (tail):\n" + lore.server_log(), file=sys.stderr)
        if b is not None:
            try:
                b.driver.switch_to.default_content()
                b.screenshot("widget-failure.png")
            except Exception:  # noqa: BLE001 - the failure itself is what matters
                pass
        raise
    finally:
        if b is not None:
            b.quit()
        lore.stop()
        hosts.stop()
        other.stop()
        server.shutdown()
    print("widget: ok")


if __name__ == "__main__":
    main()
