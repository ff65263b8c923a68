"""The public Mind page in a real browser (run by scripts/browser-test.sh).

Starts `lore serve` (fresh data dir, free port, the built-in embedder) answering with the stub
model of stub_model.py, sets Minds up over the HTTP API with the dev key, and drives Debian's
Chromium headlessly through ChromeDriver:

- a visitor passes the e-mail gate (a wrong address is refused in the page), clicks a suggested
  question, and watches the answer arrive piece by piece with its citation and quote; a marker
  opens the sources; the speaker button fetches the spoken answer once and plays it; a second
  question is typed and sent with the keyboard only; the lead is in the stored conversation;
- without streaming in the browser (no ReadableStream) the page asks for JSON and still answers;
- with `showSources: false` the page shows no citation, marker or quote;
- the theme's colours and font are what the page computes; it fits a phone's width;
- no Content-Security-Policy violation is reported on any page (event listener + console log);
- the visitor-experience fixes: suggested questions before the e-mail gate (the one chosen there is
  sent once the gate is passed), a question typed while another is answered waits its turn and is
  sent after it, the box clears on send, a counter near the 4,000-character limit, "Try again"
  when the spoken answer fails, the conversation shown again after a reload (no second gate, no
  second conversation), "New conversation", a stale token forgotten, Markdown rendered as
  elements, and the answer kept in view on a phone after four questions;
- hand-off (`handoffEnabled`): the visitor clicks "Talk to a person", and the reply the owner then
  posts through the API as an `agent` message appears on the page without a reload (the page polls
  the conversation while a person has it);
- every Mind field with hostile content stays inert: nothing runs, the text shows as text, and
  the values that could not be shown safely are refused by the API;
- actions (a second `lore serve`, private addresses allowed, with a model stub that calls a tool):
  on a phone, a chatbot's answer shows "Checking lookup order…" (also in the polite status
  region) while its slow receiver is called, then the answer and a muted "Checked lookup order";
  the arguments are never shown; axe-clean; a reload shows the line again from `message.actions`.

Screenshots at desktop and phone width go to $LORE_SCREENSHOTS. Every wait polls with a deadline.
"""

import json
import os
import threading
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stub_model  # noqa: E402

POLICY = "Refunds are paid within fourteen days of the return. Shipping costs are not refunded."
BACKGROUND = "#fdf6e3"
PRIMARY = "#0a7c3e"
QUESTION = "When are refunds paid?"
# Installed before any page script runs (not subject to the page's CSP): records CSP violations
# and anything that would open a dialog.
WATCH = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.__csp.push(e.violatedDirective + ' ' + e.blockedURI);
});
window.__dialogs = [];
window.alert = window.confirm = window.prompt = function (m) { window.__dialogs.push(String(m)); };
"""
NO_STREAMS = "delete window.ReadableStream;"


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def wait_for(what, probe, timeout=30.0, every=0.05):
    """Polls `probe` until it returns something truthy; fails naming `what` after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(every)


class Lore:
    """`lore serve` on a free port with its dev key."""

    def __init__(self, model_url, responder="llm", extra_env=None):
        """`responder`: "llm" (the model at `model_url`) or "extractive" (quotes, no model);
        `extra_env`: more settings (e.g. LORE_ALLOW_PRIVATE_NETWORK)."""
        self.dir = tempfile.mkdtemp(prefix="lore-browser-")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.base = f"http://127.0.0.1:{port}"
        env = dict(os.environ)
        env.update(
            {
                "LORE_EMBEDDER": "local",
                "LORE_PUBLIC_BASE_URL": "",
                "LORE_RESPONDER": responder,
                "LORE_LLM_BASE_URL": model_url + "/v1",
                "LORE_LLM_MODEL": "stub-model",
                "LORE_SPEECH": "openai",
                "LORE_SPEECH_BASE_URL": model_url + "/v1",
                # Every page of the run comes from 127.0.0.1: room for the whole test.
                "LORE_PUBLIC_CHAT_PER_MINUTE": "200",
            }
        )
        env.update(extra_env or {})
        env.pop("OPENAI_API_KEY", None)
        self.log = open(os.path.join(self.dir, "serve.log"), "wb")
        self.process = subprocess.Popen(
            [os.environ["LORE_BIN"], "serve", "--addr", f"127.0.0.1:{port}", "--data-dir", f"{self.dir}/data"],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            env=env,
        )
        key_file = os.path.join(self.dir, "data", "dev-key")

        def up():
            check(self.process.poll() is None, "lore serve exited:\n" + self.server_log())
            # An unauthenticated API request (401): it answers once the server does, and no
            # budget meters it (the public pages' per-address budget stays for the test).
            try:
                urllib.request.urlopen(self.base + "/api/v1/chatbots", timeout=2).read()
            except urllib.error.HTTPError as e:
                if e.code != 401:
                    return False
            except OSError:
                return False
            return os.path.exists(key_file) and os.path.getsize(key_file) > 0

        wait_for("lore serve to answer", up, timeout=60)
        self.key = open(key_file).read().strip()

    def server_log(self):
        self.log.flush()
        return open(os.path.join(self.dir, "serve.log"), errors="replace").read()[-4000:]

    def api(self, method, path, body=None, expect=(200, 201)):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self.key}")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=30) as res:
                status, payload = res.status, res.read()
        except urllib.error.HTTPError as e:
            status, payload = e.code, e.read()
        parsed = json.loads(payload) if payload else None
        check(status in expect, f"{method} {path}: {status} {parsed}")
        return parsed

    def refused(self, method, path, body, code):
        parsed = self.api(method, path, body, expect=(400,))
        check(parsed["error"]["code"] == code, f"{method} {path} {body}: {parsed}")

    def mind(self, fields, settings, sources):
        mind = self.api("POST", "/api/v1/minds", fields)["mind"]
        self.api("PATCH", f"/api/v1/minds/{mind['id']}", settings)
        for name, content in sources:
            source = self.api(
                "POST", f"/api/v1/minds/{mind['id']}/knowledge", {"type": "text", "name": name, "content": content}
            )["source"]
            wait_for(
                f"source {source['id']} to be ready",
                lambda: self.api("GET", f"/api/v1/minds/{mind['id']}/knowledge/{source['id']}")["source"]["status"]
                == "ready",
            )
        published = self.api("POST", f"/api/v1/minds/{mind['id']}/publish", {"isPublished": True})["mind"]
        check(published["publicUrl"] == f"{self.base}/m/{mind['slug']}", published)
        return mind["id"], published["publicUrl"]

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class Browser:
    def __init__(self, languages=None):
        """`languages`: the browser's preferred languages ("fr-CA,fr"), as a visitor sets them:
        its Accept-Language and navigator.languages (default: the browser's own)."""
        self.profile = tempfile.mkdtemp(prefix="lore-chromium-")
        options = webdriver.ChromeOptions()
        if languages:
            options.add_argument(f"--lang={languages.split(',')[0]}")
            options.add_experimental_option("prefs", {"intl.accept_languages": languages})
        options.binary_location = os.environ.get("LORE_CHROMIUM", "/usr/bin/chromium")
        for flag in [
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--autoplay-policy=no-user-gesture-required",
            "--window-size=1280,900",
            f"--user-data-dir={self.profile}",
        ]:
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = Service(executable_path=os.environ.get("LORE_CHROMEDRIVER", "/usr/bin/chromedriver"))
        self.driver = webdriver.Chrome(service=service, options=options)
        self.scripts = []
        self.console = []

    def before_each_page(self, source):
        result = self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": source})
        self.scripts.append(result["identifier"])

    def forget_page_scripts(self):
        for identifier in self.scripts:
            self.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": identifier})
        self.scripts = []

    def open(self, url):
        self.driver.get(url)
        wait_for("the page to load", lambda: self.js("return document.readyState === 'complete'"))

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def find(self, css):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def all(self, css):
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def visible(self, css):
        found = self.all(css)
        return bool(found) and found[0].is_displayed()

    def assert_clean(self, where):
        """No CSP violation and no dialog on this page, and none in the console so far."""
        violations = self.js("return window.__csp || []")
        check(violations == [], f"{where}: CSP violations {violations}")
        dialogs = self.js("return window.__dialogs || []")
        check(dialogs == [], f"{where}: dialogs opened {dialogs}")
        self.console += self.driver.get_log("browser")
        csp_logs = [e for e in self.console if "Content Security Policy" in e.get("message", "")]
        check(csp_logs == [], f"{where}: CSP messages in the console {csp_logs}")

    def screenshot(self, name):
        path = os.path.join(os.environ["LORE_SCREENSHOTS"], name)
        check(self.driver.save_screenshot(path), f"screenshot {path}")
        check(os.path.getsize(path) > 10_000, f"suspiciously small screenshot {path}")
        print(f"browser: screenshot {path}")

    def quit(self):
        self.driver.quit()
        shutil.rmtree(self.profile, ignore_errors=True)


def last_answer(b):
    answers = b.all("#log li.msg.assistant:not(.welcome)")
    return answers[-1] if answers else None


def answered(b, count):
    """Waits until `count` answers are on the page and the last one is complete; returns it."""

    def done():
        answers = b.all("#log li.msg.assistant:not(.welcome)")
        if len(answers) >= count and answers[-1].get_attribute("aria-busy") == "false":
            return answers[-1]
        status = b.find("#status").text
        check("could not" not in status and "failed" not in status, f"the page reports: {status}")
        return None

    return wait_for(f"answer {count}", done, timeout=60)


def pass_gate(b, email="vera@example.com", name="Vera"):
    wait_for("the e-mail gate", lambda: b.visible("#gate"))
    check(not b.visible("#composer"), "the message box waits behind the gate")
    b.find("#gate-email").clear()
    b.find("#gate-email").send_keys(email)
    b.find("#gate-name").send_keys(name)
    b.find("#gate-start").click()
    wait_for("the gate to open", lambda: b.visible("#composer"))
    check(not b.visible("#gate"), "the gate is gone once passed")
    return b.js("return document.getElementById('chat').getAttribute('data-conversation')")


def open_fresh(b, url):
    """Opens `url` as a first visit: no conversation kept from an earlier one."""
    b.open(url)
    b.js("try { localStorage.clear(); } catch (e) {}")
    b.open(url)


def user_texts(b):
    return [x.find_element(By.CSS_SELECTOR, ".bubble").text for x in b.all("#log li.msg.user")]


def transcript(b):
    """(role, text) of every message in the log, in order."""
    return b.js(
        "return Array.from(document.querySelectorAll('#log li.msg')).map(function (li) {"
        " return [li.classList.contains('user') ? 'user' : li.classList.contains('agent') ? 'agent' : 'assistant',"
        " li.querySelector('.bubble').innerText.trim()]; })"
    )


def in_view(b, css_answer="#log li.msg.assistant:not(.welcome)"):
    """Whether the last answer's last line is on screen, above the sticky message box."""
    return b.js(
        """
        var answers = document.querySelectorAll(arguments[0]);
        if (!answers.length) return false;
        var bubble = answers[answers.length - 1].querySelector('.bubble');
        var r = bubble.getBoundingClientRect();
        var limit = window.innerHeight;
        var c = document.getElementById('composer').getBoundingClientRect();
        if (c.top < limit) limit = c.top;
        return r.bottom <= limit + 1 && r.bottom - 24 >= 0;
        """,
        css_answer,
    )


def hex_rgb(colour):
    return "rgb({}, {}, {})".format(*(int(colour[i : i + 2], 16) for i in (1, 3, 5)))


def test_conversation(lore, b, stub):
    mind, url = lore.mind(
        {
            "name": "Ada Lovelace",
            "headline": "Mathematician & the first programmer",
            "bio": "I wrote the first published algorithm.",
            "welcomeMessage": "Hello! Ask me about refunds.",
            "suggestedQuestions": [QUESTION, "Are shipping costs refunded?"],
        },
        {
            "collectEmailBeforeChat": True,
            "voiceEnabled": True,
            "theme": {"backgroundColor": BACKGROUND, "primaryColor": PRIMARY, "fontFamily": "Georgia, serif",
                      "mode": "light"},
        },
        [("Refund policy", POLICY)],
    )
    b.before_each_page(WATCH)
    b.open(url)
    check(b.find("h1").text == "Ada Lovelace", b.find("h1").text)
    check(b.find("#log li.welcome").text == "Hello! Ask me about refunds.", "the welcome message opens the log")
    check(b.js("return getComputedStyle(document.documentElement).backgroundColor") == hex_rgb(BACKGROUND),
          "the theme's background")
    check(b.js("return getComputedStyle(document.querySelector('.band')).backgroundColor") == hex_rgb(PRIMARY),
          "the theme's primary colour")
    check("Georgia" in b.js("return getComputedStyle(document.body).fontFamily"), "the theme's font")

    # The e-mail gate: a wrong address is refused in the page, before anything is sent.
    wait_for("the e-mail gate", lambda: b.visible("#gate"))
    b.find("#gate-email").send_keys("not an address")
    b.find("#gate-start").click()
    wait_for("the gate's error", lambda: "valid e-mail" in b.find("#gate-error").text)
    check(b.js("return document.getElementById('chat').getAttribute('data-conversation')") is None,
          "no conversation is opened with a wrong address")
    conversation = pass_gate(b)
    check(conversation and conversation.startswith("conv_"), conversation)
    stored = lore.api("GET", f"/api/v1/minds/{mind}/conversations/{conversation}")
    check(stored["conversation"]["visitor"]["email"] == "vera@example.com", stored)
    check(stored["conversation"]["channel"] == "public", stored)

    # A suggested question, answered piece by piece.
    buttons = b.all("#questions button.question")
    check([x.text for x in buttons] == [QUESTION, "Are shipping costs refunded?"], [x.text for x in buttons])
    buttons[0].click()
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
    check(len(seen) >= 2, f"the answer appeared piece by piece, saw {len(seen)} partial states: {seen}")
    check(b.find("#chat").get_attribute("data-transport") == "stream", "streamed over SSE")
    answer = last_answer(b)
    check(b.all("#log li.msg.user")[0].text == QUESTION, "the question is shown as the visitor's")
    text = answer.find_element(By.CSS_SELECTOR, ".bubble").text
    check(text.startswith("Refunds are paid within fourteen days of the return [1]."), text)
    markers = answer.find_elements(By.CSS_SELECTOR, ".bubble sup a.marker")
    check(len(markers) == 2 and markers[0].text == "[1]", f"markers {[m.text for m in markers]}")
    sources = answer.find_element(By.CSS_SELECTOR, "details.sources")
    check(sources.get_attribute("open") is None, "sources start folded")
    markers[0].click()
    wait_for("the marker to open the sources", lambda: sources.get_attribute("open") is not None)
    cited = sources.find_element(By.CSS_SELECTOR, "li")
    check("Refund policy" in cited.text, cited.text)
    quote = cited.find_element(By.CSS_SELECTOR, "blockquote").text
    check(quote and quote in POLICY, f"the quote is verbatim from the source: {quote!r}")
    check(not b.visible("#questions"), "the suggested questions step aside once the chat has begun")

    # Spoken answer: fetched once, played.
    speak = answer.find_element(By.CSS_SELECTOR, "button.speak")
    check(speak.get_attribute("aria-pressed") == "false", "not playing yet")
    speak.click()
    wait_for("the answer to play", lambda: speak.get_attribute("aria-pressed") == "true", timeout=30, every=0.02)
    check(stub.counts["speech"] == 1, f"speech generated once: {stub.counts}")

    # Keyboard only: type into the message box and press Enter.
    box = b.find("#message")
    box.click()
    check(b.js("return document.activeElement.id") == "message", "the message box takes the focus")
    box.send_keys("Are shipping costs refunded?")
    box.send_keys(Keys.ENTER)
    second = answered(b, 2)
    check("Shipping costs are not refunded" in second.text, second.text)
    check(b.find("#message").get_attribute("value") == "", "the box is emptied once sent")
    # Tab moves from the message box to the send button.
    b.find("#message").send_keys(Keys.TAB)
    check(b.js("return document.activeElement.id") == "send", "Tab reaches the send button")
    stored = lore.api("GET", f"/api/v1/minds/{mind}/conversations/{conversation}")
    check([m["role"] for m in stored["messages"]] == ["assistant", "user", "assistant", "user", "assistant"],
          stored["messages"])
    b.assert_clean("the conversation")
    b.screenshot("mind-chat-desktop.png")

    # Phone width: nothing wider than the screen.
    b.driver.set_window_size(390, 844)
    wait_for("the phone layout", lambda: b.js("return window.innerWidth") <= 400)
    width = b.js("return [document.documentElement.scrollWidth, window.innerWidth]")
    check(width[0] <= width[1], f"the page fits a phone's width: {width}")
    b.screenshot("mind-chat-phone.png")
    b.driver.set_window_size(1280, 900)

    # Without streams in the browser: the page asks for JSON and still answers, with sources.
    b.before_each_page(NO_STREAMS)
    open_fresh(b, url)
    pass_gate(b, "jason@example.com", "Jason")
    b.all("#questions button.question")[0].click()
    json_answer = answered(b, 1)
    check(b.find("#chat").get_attribute("data-transport") == "json", "fell back to JSON")
    check("fourteen days" in json_answer.text, json_answer.text)
    check(len(json_answer.find_elements(By.CSS_SELECTOR, "details.sources li")) == 1, "the JSON answer's source")
    b.assert_clean("the JSON fallback")
    b.forget_page_scripts()
    b.before_each_page(WATCH)

    # showSources off: no citations, markers or quotes reach the visitor.
    lore.api("PATCH", f"/api/v1/minds/{mind}", {"showSources": False})
    open_fresh(b, url)
    pass_gate(b, "sam@example.com")
    b.find("#message").send_keys(QUESTION + Keys.ENTER)
    hidden = answered(b, 1)
    text = hidden.find_element(By.CSS_SELECTOR, ".bubble").text
    check("fourteen days" in text and "[1]" not in text, f"no markers: {text}")
    check(hidden.find_elements(By.CSS_SELECTOR, "details.sources, sup, blockquote") == [], "no sources shown")
    b.assert_clean("showSources off")
    return mind


def test_visitor_fixes(lore, b, stub):
    """Suggested question before the gate, queue, counter, speech retry, continuity, Markdown, phone."""
    b.driver.set_window_size(1280, 900)
    mind, url = lore.mind(
        {
            "name": "Grace Hopper",
            "welcomeMessage": "Hi! Ask me about refunds.",
            "suggestedQuestions": [QUESTION, "Are shipping costs refunded?"],
        },
        {"collectEmailBeforeChat": True, "voiceEnabled": True},
        [("Refund policy", POLICY)],
    )
    open_fresh(b, url)

    # The suggested questions show beside the gate; one chosen there waits for the gate.
    wait_for("the e-mail gate", lambda: b.visible("#gate"))
    check(b.visible("#questions"), "the suggested questions show before the gate")
    check(not b.visible("#restart"), "no 'New conversation' before there is one")
    b.all("#questions button.question")[0].click()
    wait_for("the chosen question in the log", lambda: user_texts(b) == [QUESTION])
    check("pending" in b.all("#log li.msg.user")[0].get_attribute("class"), "shown as waiting to be sent")
    check(b.js("return document.activeElement.id") == "gate-email", "the gate takes the focus")
    check(b.js("return document.getElementById('chat').getAttribute('data-conversation')") is None,
          "nothing is sent before the gate is passed")
    b.find("#gate-email").send_keys("grace@example.com")
    b.find("#gate-start").click()
    first = answered(b, 1)
    check("fourteen days" in first.text, first.text)
    check("pending" not in b.all("#log li.msg.user")[0].get_attribute("class"), "no longer waiting")
    check(b.visible("#restart"), "'New conversation' shows once a conversation exists")
    conversation = b.js("return document.getElementById('chat').getAttribute('data-conversation')")

    # A question typed while another is being answered: the box clears, it waits, then it is sent.
    box = b.find("#message")
    box.send_keys("Are shipping costs refunded?" + Keys.ENTER)
    check(b.find("#message").get_attribute("value") == "", "the box clears on send")
    wait_for("the answer to start", lambda: len(b.all("#log li.msg.assistant[aria-busy='true']")) == 1)
    box.send_keys("markdown please" + Keys.ENTER)
    check(b.find("#message").get_attribute("value") == "", "the box clears on the second send too")
    waiting = b.all("#log li.msg.user")[-1]
    check(waiting.find_element(By.CSS_SELECTOR, ".bubble").text == "markdown please", "the queued question shows")
    check("pending" in waiting.get_attribute("class") and "Waiting" in waiting.text, "shown as pending")
    check(b.find("#send").is_enabled(), "sending stays possible while an answer is written")
    answered(b, 3)
    check(user_texts(b) == [QUESTION, "Are shipping costs refunded?", "markdown please"], user_texts(b))
    stored = lore.api("GET", f"/api/v1/minds/{mind}/conversations/{conversation}")
    check([(m["role"], m["content"]) for m in stored["messages"] if m["role"] == "user"]
          == [("user", QUESTION), ("user", "Are shipping costs refunded?"), ("user", "markdown please")],
          f"sent one after the other, not merged: {stored['messages']}")

    # Markdown as elements: bold, emphasis, lists, code, a link opened safely; markers still work.
    md = last_answer(b).find_element(By.CSS_SELECTOR, ".bubble")
    shape = b.js(
        """var e = arguments[0]; function n(s) { return e.querySelectorAll(s).length; }
        return {strong: n('strong'), em: n('em'), ul: n(':scope ul > li'), ol: n(':scope ol > li'), code: n(':scope p code, :scope ul code'),
                pre: n('pre > code'), links: Array.from(e.querySelectorAll('a.link')).map(function (a) {
                  return [a.href, a.rel, a.target, a.textContent]; }), markers: n('sup a.marker')};""",
        md,
    )
    check(shape["strong"] == 1 and shape["em"] == 1 and shape["ul"] == 2 and shape["ol"] == 2, shape)
    check(shape["code"] == 1 and shape["pre"] == 1 and shape["markers"] == 2, shape)
    check(shape["links"] == [["https://shop.example/refunds", "noopener noreferrer nofollow", "_blank", "the policy"]],
          shape)
    check(b.js("return arguments[0].querySelector('pre').textContent", md) == "return --order 42", "code verbatim")
    check("**" not in md.text and "```" not in md.text, md.text)

    # The counter near the 4,000-character limit.
    b.js("var m = document.getElementById('message'); m.value = 'a'.repeat(3499);"
         "m.dispatchEvent(new Event('input'));")
    check(not b.visible("#counter"), "no counter far from the limit")
    b.find("#message").send_keys("b")
    wait_for("the counter", lambda: b.visible("#counter") and b.find("#counter").text == "3,500 / 4,000")
    check("counter" in (b.find("#message").get_attribute("aria-describedby") or ""), "the box names its counter")
    b.js("var m = document.getElementById('message'); m.value = 'a'.repeat(4000); m.dispatchEvent(new Event('input'));")
    wait_for("the full counter", lambda: b.find("#counter").text == "4,000 / 4,000")
    check(b.js("return Array.from(document.querySelectorAll('#composer [aria-live]'))"
               ".some(function (e) { return /limit/i.test(e.textContent); })"), "the limit is announced")
    b.js("var m = document.getElementById('message'); m.value = ''; m.dispatchEvent(new Event('input'));")
    check(not b.visible("#counter"), "the counter goes once the box is empty")

    # A spoken answer that fails offers "Try again", which then plays it.
    stub.speech_fails = True
    before = stub.counts["speech"]
    speak = last_answer(b).find_element(By.CSS_SELECTOR, "button.speak")
    speak.click()
    wait_for("the speech failure", lambda: "could not be played" in b.find("#status").text, timeout=60)
    retry = b.find("#status button.retry")
    check(retry.text == "Try again", retry.text)
    check(speak.is_enabled(), "the speaker stays usable")
    stub.speech_fails = False
    retry.click()
    wait_for("the retried answer to play", lambda: speak.get_attribute("aria-pressed") == "true", timeout=30)
    check(stub.counts["speech"] > before, stub.counts)
    check("could not" not in b.find("#status").text, "the error goes once it plays")
    speak.click()  # pause

    # A reload shows the same conversation: no second gate, no second conversation.
    seen = transcript(b)
    b.open(url)
    wait_for("the conversation shown again", lambda: b.find("#chat").get_attribute("data-restored") == "true")
    wait_for("the restored messages", lambda: transcript(b) == seen)
    check(not b.visible("#gate") and b.visible("#composer"), "no second gate")
    check(b.find("#chat").get_attribute("data-conversation") == conversation, "the same conversation")
    check(not b.visible("#questions"), "the questions stay aside in a conversation under way")
    check(len(last_answer(b).find_elements(By.CSS_SELECTOR, "details.sources")) == 1, "sources come back too")
    total = lore.api("GET", f"/api/v1/minds/{mind}/conversations")["pagination"]["total"]
    check(total == 1, f"one conversation stored, not {total}")
    b.find("#message").send_keys("Are shipping costs refunded?" + Keys.ENTER)
    answered(b, 4)
    stored = lore.api("GET", f"/api/v1/minds/{mind}/conversations/{conversation}")
    check(len([m for m in stored["messages"] if m["role"] == "user"]) == 4, "it goes on in the same conversation")

    # "New conversation": forgets it, gates again, starts over.
    b.find("#restart").click()
    wait_for("the gate again", lambda: b.visible("#gate"))
    check(b.all("#log li.msg.user") == [] and len(b.all("#log li.welcome")) == 1, "only the welcome is left")
    check(b.find("#chat").get_attribute("data-conversation") is None, "no conversation")
    key = "lore:m:" + url.rstrip("/").rsplit("/", 1)[1]
    check(b.js("return localStorage.getItem(arguments[0])", key) is None, "the stored token is forgotten")
    b.open(url)
    wait_for("a first visit's gate", lambda: b.visible("#gate"))
    pass_gate(b, "grace2@example.com")
    check(lore.api("GET", f"/api/v1/minds/{mind}/conversations")["pagination"]["total"] == 2, "a second conversation")

    # A token the server does not know any more: forgotten, the page starts as new.
    b.js("var k = arguments[0]; var v = JSON.parse(localStorage.getItem(k));"
         "v.visitorToken = 'vt_forged'; localStorage.setItem(k, JSON.stringify(v));", key)
    b.open(url)
    wait_for("a new start after a stale token", lambda: b.visible("#gate"))
    check(b.js("return localStorage.getItem(arguments[0])", key) is None, "the stale token is forgotten")
    b.driver.get_log("browser")  # the 404 of the stale token is expected

    # Blocked storage: the chat still works for the page view.
    b.before_each_page("Object.defineProperty(window, 'localStorage', {get: function () { throw new Error('blocked'); }});")
    b.open(url)
    pass_gate(b, "nostorage@example.com")
    b.find("#message").send_keys(QUESTION + Keys.ENTER)
    answered(b, 1)
    b.forget_page_scripts()
    b.before_each_page(WATCH)

    # A phone: the answer being written stays in view above the message box, four questions on.
    b.driver.set_window_size(390, 844)
    wait_for("the phone layout", lambda: b.js("return window.innerWidth") <= 400)
    open_fresh(b, url)
    pass_gate(b, "phone@example.com")
    for i in range(4):
        b.find("#message").send_keys(["When are refunds paid?", "Are shipping costs refunded?", "markdown please",
                                      "When are refunds paid?"][i] + Keys.ENTER)
        if i == 3:
            def mid_stream():
                a = last_answer(b)
                return a is not None and a.get_attribute("aria-busy") == "true" and len(a.text) > 40 and in_view(b)
            wait_for("the growing answer in view", mid_stream, timeout=60, every=0.03)
        answered(b, i + 1)
    check(b.js("return window.scrollY") > 0, "the page scrolled")
    wait_for("the last answer in view", lambda: in_view(b), timeout=5)
    b.screenshot("mind-chat-phone-four-questions.png")
    b.driver.set_window_size(1280, 900)
    b.assert_clean("the visitor fixes")


def test_handoff(lore, b):
    mind, url = lore.mind(
        {"name": "Grace Hopper", "welcomeMessage": "Hello! Ask me about refunds."},
        {"handoffEnabled": True},
        [("Refund policy", POLICY)],
    )
    b.before_each_page(WATCH)
    open_fresh(b, url)
    check(b.js("return document.getElementById('chat').getAttribute('data-handoff')") == "true", "data-handoff")
    check(not b.visible("#handoff"), "no person to talk to before a conversation exists")
    b.find("#message").send_keys(QUESTION + Keys.ENTER)
    answered(b, 1)
    wait_for("the hand-off button", lambda: b.visible("#handoff"))
    check(b.find("#handoff").text == "Talk to a person", b.find("#handoff").text)
    conversation = b.js("return document.getElementById('chat').getAttribute('data-conversation')")
    b.find("#handoff").click()
    wait_for("the hand-off to be confirmed", lambda: "A person will answer" in b.find("#status").text)
    check(not b.visible("#handoff"), "the button goes once a person has the conversation")
    stored = lore.api("GET", f"/api/v1/minds/{mind}/conversations/{conversation}")
    check(stored["conversation"]["status"] == "handoff", stored["conversation"])

    # The visitor writes meanwhile: stored, nobody answers it.
    b.find("#message").send_keys("Hello, is anyone there?" + Keys.ENTER)
    wait_for("the message to be stored", lambda: len(lore.api(
        "GET", f"/api/v1/minds/{mind}/conversations/{conversation}")["messages"]) == 4)
    wait_for("the page to settle", lambda: not b.all("#log li.msg.assistant[aria-busy='true']"))

    # The owner's reply, posted through the API, shows up without a reload.
    reply = "Hi, Grace from the team here. How can I help?"
    lore.api("POST", f"/api/v1/minds/{mind}/conversations/{conversation}/messages",
             {"content": reply, "role": "agent"})
    wait_for("the agent's reply on the page", lambda: ["agent", reply] in transcript(b), timeout=20)
    roles = [r for r, _ in transcript(b)]
    check(roles == ["assistant", "user", "assistant", "user", "agent"], roles)
    check(b.js("return document.getElementById('chat').getAttribute('data-restored')") is None, "no reload")
    b.assert_clean("the hand-off")
    b.screenshot("mind-handoff.png")


def test_hostile_mind(lore, b):
    """Every field a visitor sees, with hostile content: refused by the API or shown as text."""
    name = '<img src=x onerror="window.__xss=1">Eve'
    fields = {
        "name": name,
        "slug": "eve",
        "headline": "<script>window.__xss=2</script>",
        "bio": '<iframe src="javascript:window.top.__xss=3"></iframe>\n\n</p><script>window.__xss=4</script>',
        "welcomeMessage": '</li></ol><script>window.__xss=5</script><a href="javascript:window.__xss=6">hi</a>',
        "suggestedQuestions": ['"><img src=x onerror=window.__xss=9> hostile?', "</button><script>window.__xss=10</script>"],
        "expertiseAreas": ["<svg onload=window.__xss=11>", "{{constructor.constructor('window.__xss=12')()}}"],
    }
    # What cannot be shown safely never gets in: script URLs and CSS injection are refused.
    lore.refused("POST", "/api/v1/minds", {"name": "x", "avatarUrl": "javascript:window.__xss=13"}, "validation_error")
    probe = lore.api("POST", "/api/v1/minds", {"name": "Probe"})["mind"]["id"]
    for settings in [
        {"avatarUrl": "javascript:window.__xss=13"},
        {"socialLinks": {"website": "javascript:window.__xss=14"}},
        {"theme": {"primaryColor": "red;} body { display: none } .x {"}},
        {"theme": {"backgroundColor": "url(javascript:window.__xss=15)"}},
        {"theme": {"fontFamily": "x;}</style><script>window.__xss=16</script>"}},
    ]:
        lore.refused("PATCH", f"/api/v1/minds/{probe}", settings, "validation_error")
    mind, url = lore.mind(
        fields,
        {"showSources": True, "socialLinks": {"website": "https://eve.example/?a=1&b=%3Cx%3E"}},
        [('<img src=x onerror="window.__xss=17">Policy', POLICY)],
    )
    b.open(url)
    wait_for("the hostile page", lambda: b.visible("#composer"))
    check(b.find("h1").text == name, f"the name shows as text: {b.find('h1').text!r}")
    check(b.js("return document.title") == name, "the title is the literal name")
    check(b.find(".headline").text == fields["headline"], b.find(".headline").text)
    check(b.find("#log li.welcome").text == fields["welcomeMessage"], b.find("#log li.welcome").text)
    check([x.text for x in b.all("#questions button")] == fields["suggestedQuestions"], "questions as text")
    check([x.text for x in b.all(".tags li")] == fields["expertiseAreas"], "expertise as text")
    # (The page's texts are a JSON data block, #lore-texts: never run, not counted.)
    counts = b.js(
        "return ['script:not(#lore-texts[type=\"application/json\"])', 'img', 'iframe', 'svg']"
        ".map(function (t) { return document.querySelectorAll(t).length; })"
    )
    check(counts == [1, 0, 0, 0], f"only the page's own script and no injected elements: {counts}")
    links = b.js("return Array.from(document.links).map(function (a) { return a.protocol; })")
    check(links == ["https:"], f"only the safe link: {links}")
    # The hostile question is sent as typed, and the hostile answer and source name stay text.
    b.all("#questions button")[0].click()
    answer = answered(b, 1)
    check(b.all("#log li.msg.user")[0].text == fields["suggestedQuestions"][0], "sent as typed")
    bubble = answer.find_element(By.CSS_SELECTOR, ".bubble").text
    check(bubble.startswith('Here is <img src=x onerror="window.__xss=7"> and <script>'), bubble)
    answer.find_element(By.CSS_SELECTOR, "sup a.marker").click()
    cited = answer.find_element(By.CSS_SELECTOR, "details.sources li .name").text
    check(cited == '[1] <img src=x onerror="window.__xss=17">Policy', cited)
    # (The page's texts are a JSON data block, #lore-texts: never run, not counted.)
    counts = b.js("return ['script:not(#lore-texts[type=\"application/json\"])', 'img', 'iframe', 'svg']"
                  ".map(function (t) { return document.querySelectorAll(t).length; })")
    check(counts == [1, 0, 0, 0], f"the answer added no elements of its own: {counts}")
    check(b.js("return window.__xss === undefined"), "no injected code ran: window.__xss = %r" % b.js("return window.__xss"))
    b.assert_clean("the hostile Mind")
    b.screenshot("mind-hostile.png")


ORDER_ANSWER = "Your order has shipped and arrives on Friday [1]."
RECEIVER_DELAY_S = 1.5


def serve(handler_class):
    """An http.server on a free port of 127.0.0.1, in a thread; returns (base URL, server)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler_class)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}", server


def tool_model():
    """An OpenAI-compatible model that, asked with tools right after the visitor's question (no tool
    result since), streams a call of lookup_order (OpenAI's chunk shape), and otherwise streams
    ORDER_ANSWER. Records the requests."""
    requests = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            request = json.loads(self.rfile.read(length) or b"{}")
            if not request.get("stream"):
                reply = {"id": "t", "object": "chat.completion", "created": 0, "model": "stub-model",
                         "choices": [{"index": 0, "message": {"role": "assistant", "content": "{}"},
                                      "finish_reason": "stop"}]}
                data = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            requests.append(request)
            messages = request.get("messages") or [{}]
            called = messages[-1].get("role") != "user"

            def chunk(delta, finish=None):
                c = {"id": "s", "object": "chat.completion.chunk", "created": 0, "model": "stub-model",
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
                return b"data: " + json.dumps(c).encode() + b"\n\n"

            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            if request.get("tools") and not called:
                call = {"index": 0, "id": "call_1", "type": "function",
                        "function": {"name": "lookup_order", "arguments": '{"orderId": "10042"}'}}
                self.wfile.write(chunk({"tool_calls": [call]}))
                self.wfile.write(chunk({}, "tool_calls"))
            else:
                for i, word in enumerate(ORDER_ANSWER.split(" ")):
                    self.wfile.write(chunk({"content": word if i == 0 else " " + word}))
                    self.wfile.flush()
                    time.sleep(0.05)
                self.wfile.write(chunk({}, "stop"))
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

    url, server = serve(Handler)
    return url, requests, server


def order_receiver():
    """The owner's endpoint: answers the first POST /orders after RECEIVER_DELAY_S, later ones with
    a 500 (the call failed); records the bodies."""
    bodies = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            bodies.append((self.path, json.loads(self.rfile.read(length) or b"{}")))
            first = len(bodies) == 1
            time.sleep(RECEIVER_DELAY_S if first else 0.3)
            data = b'{"orderId": "10042", "status": "shipped", "eta": "Friday"}' if first else b'{"error": "down"}'
            self.send_response(200 if first else 500)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    url, server = serve(Handler)
    return url, bodies, server


def accessible(b, where):
    """axe-core finds no serious or critical violation on the current view."""
    if not hasattr(b, "axe"):
        b.axe = open(os.environ["LORE_AXE_JS"]).read()
    b.js(b.axe)
    found = b.driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then("
        " r => done(r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')"
        "  .map(v => v.id + ': ' + v.help + ' ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', '))),"
        " e => done(['axe failed: ' + e]));"
    )
    check(found == [], f"{where}: accessibility violations {found}")


def action_lines(b, which=-1):
    """(class, text) of the action lines of the last answer (or of answer `which`)."""
    return b.js(
        "var a = document.querySelectorAll('#log li.msg.assistant:not(.welcome)');"
        "var li = a[arguments[0] < 0 ? a.length + arguments[0] : arguments[0]];"
        "if (!li) return [];"
        "return Array.from(li.querySelectorAll('.bubble .actions p.action'))"
        ".map(function (p) { return [p.className, p.textContent]; });",
        which,
    )


def test_actions(b):
    """A chatbot's action called while answering, on a phone: "Checking…", then a muted line."""
    model_url, model_requests, model = tool_model()
    receiver_url, bodies, receiver = order_receiver()
    lore = Lore(model_url, extra_env={"LORE_ALLOW_PRIVATE_NETWORK": "true"})
    try:
        bot = lore.api("POST", "/api/v1/chatbots", {"name": "Order desk"})["chatbot"]["id"]
        src = lore.api("POST", f"/api/v1/chatbots/{bot}/sources",
                       {"type": "text", "name": "Delivery", "content": "Orders ship within two working days."})
        src = src["source"]["id"]
        lore.api("POST", f"/api/v1/chatbots/{bot}/sources/{src}/process", expect=(200, 202))
        wait_for("the source to be ready",
                 lambda: lore.api("GET", f"/api/v1/chatbots/{bot}/sources/{src}")["source"]["status"] == "ready",
                 timeout=60)
        lore.api("POST", f"/api/v1/chatbots/{bot}/actions", {
            "name": "lookup_order",
            "description": "Looks up an order by its number.",
            "url": f"{receiver_url}/orders",
            "parameters": {"type": "object", "properties": {"orderId": {"type": "string"}}, "required": ["orderId"]},
        })
        url = lore.api("POST", f"/api/v1/chatbots/{bot}/publish", {})["chatbot"]["publicUrl"]

        b.driver.set_window_size(390, 844)
        wait_for("the phone layout", lambda: b.js("return window.innerWidth") <= 400)
        b.before_each_page(WATCH)
        open_fresh(b, url)
        wait_for("the message box", lambda: b.visible("#composer"))
        b.find("#message").send_keys("Where is my order 10042?" + Keys.ENTER)

        # While the receiver takes its time: the line in the answer, and the polite announcement.
        wait_for("the checking line", lambda: action_lines(b) == [["action running", "Checking lookup order…"]],
                 timeout=30, every=0.02)
        check(last_answer(b).get_attribute("aria-busy") == "true", "the answer is still being written")
        check(b.find("#action-status").get_attribute("role") == "status"
              and b.find("#action-status").get_attribute("aria-live") == "polite", "a polite status region")
        wait_for("the announcement", lambda: b.js(
            "return document.getElementById('action-status').textContent") == "Checking lookup order…", timeout=5)
        b.screenshot("chatbot-action-checking-phone.png")
        check(not bodies or len(bodies) == 1, bodies)

        # The call ends, the answer is written, the line stays, muted.
        answer = answered(b, 1)
        text = answer.find_element(By.CSS_SELECTOR, ".bubble").text
        check("Your order has shipped and arrives on Friday" in text, text)
        check(action_lines(b) == [["action ok", "Checked lookup order"]], action_lines(b))
        check(b.js("return document.getElementById('action-status').textContent") == "Checked lookup order",
              "the end is announced too")
        check(bodies == [("/orders", {"orderId": "10042"})], f"the receiver got the arguments: {bodies}")
        lines = answer.find_element(By.CSS_SELECTOR, ".bubble .actions").text
        check("10042" not in lines and "shipped" not in lines, f"no arguments nor response shown: {lines!r}")
        check(float(b.js("return getComputedStyle(document.querySelector('.bubble .action.ok')).opacity")) < 1,
              "the ended line is muted")
        check(b.js("return [document.documentElement.scrollWidth <= window.innerWidth]") == [True], "fits the phone")
        accessible(b, "an answer with an action")
        b.assert_clean("an answer with an action")
        b.screenshot("chatbot-action-phone.png")
        conversation = b.find("#chat").get_attribute("data-conversation")
        stored = lore.api("GET", f"/api/v1/chatbots/{bot}/conversations/{conversation}")["messages"][-1]
        check([(a["name"], a["status"]) for a in stored.get("actions", [])] == [("lookup_order", "ok")], stored)
        check(any(m.get("role") == "tool" for m in model_requests[-1]["messages"]), "the model read the result")

        # A call that fails (the receiver answers 500): "Could not check lookup order".
        b.find("#message").send_keys("And is it insured?" + Keys.ENTER)
        answered(b, 2)
        check(action_lines(b) == [["action failed", "Could not check lookup order"]], action_lines(b))
        check(action_lines(b, 0) == [["action ok", "Checked lookup order"]], "the first answer's line stays")
        stored = lore.api("GET", f"/api/v1/chatbots/{bot}/conversations/{conversation}")["messages"][-1]
        check([(a["status"], a["httpStatus"]) for a in stored["actions"]] == [("error", 500)], stored)
        b.screenshot("chatbot-action-failed-phone.png")

        # A reload: the transcript shows the same muted lines, from message.actions.
        b.open(url)
        wait_for("the conversation shown again", lambda: b.find("#chat").get_attribute("data-restored") == "true")
        wait_for("the restored action lines", lambda: action_lines(b) == [["action failed", "Could not check lookup order"]]
                 and action_lines(b, 0) == [["action ok", "Checked lookup order"]])
        check("arrives on Friday" in last_answer(b).text, last_answer(b).text)
        accessible(b, "the restored answer with an action")
        b.assert_clean("the restored answer")
        b.forget_page_scripts()
        b.driver.set_window_size(1280, 900)
    except BaseException:
        print("chat_page: actions' lore serve log (tail):\n" + lore.server_log(), file=sys.stderr)
        raise
    finally:
        lore.stop()
        model.shutdown()
        receiver.shutdown()


def main():
    model_url, stub, server = stub_model.start()
    lore = Lore(model_url)
    b = None
    try:
        b = Browser()
        test_conversation(lore, b, stub)
        print("chat_page: conversation, gate, streaming, sources, voice, keyboard, JSON fallback, showSources: ok")
        test_visitor_fixes(lore, b, stub)
        print("chat_page: questions before the gate, queue, counter, speech retry, continuity, new conversation, "
              "Markdown, phone follow: ok")
        test_handoff(lore, b)
        print("chat_page: talk to a person, the agent's reply appears without a reload: ok")
        test_hostile_mind(lore, b)
        print("chat_page: hostile Mind fields stay inert: ok")
        b.forget_page_scripts()
        test_actions(b)
        print("chat_page: an action called while answering: checking, checked, announced, reloaded: ok")
    except BaseException:
        print("chat_page: lore serve log (tail):\n" + lore.server_log(), file=sys.stderr)
        if b is not None:
            try:
                b.screenshot("failure.png")
            except Exception:  # noqa: BLE001 - the failure itself is what matters
                pass
        raise
    finally:
        if b is not None:
            b.quit()
        lore.stop()
        server.shutdown()
    print("chat_page: ok")


if __name__ == "__main__":
    main()
