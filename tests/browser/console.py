"""The owners' console (GET /console, docs/console.md) in Debian's Chromium against `lore serve`.

An owner's first steps, through the console's own controls only (the API is used by the test
just to check what the console did, and to have a visitor talk to the chatbot):
  a refused key is said so; the dev key signs in; a chatbot is created; a Markdown file and a CSV
  file are uploaded and text is pasted, and the three become ready in the list without a reload;
  the search playground finds the refund policy with the query's word marked and a score; a
  chunk is disabled in the chunk view (the API then says so); the chatbot is published and the
  widget snippet names it; a visitor's conversation shows as a transcript; at phone width the
  pages still work; signing out forgets the key, and a key the server no longer accepts signs
  the tab out.
No CSP violation, dialog or console error on any page. Screenshots go to $LORE_SCREENSHOTS.
"""

import json
import os
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stub_model  # noqa: E402
from chat_page import WATCH, Browser, Lore, check, wait_for  # noqa: E402

POLICY = "# Returns\n\nRefunds are paid within fourteen days of the return. Shipping costs are not refunded.\n"
PRICES = "Item,Price,Stock\nKettle,25.00,12\nToaster,40.00,3\n"


class Receiver:
    """A webhook receiver on 127.0.0.1 that answers 200 and keeps what it got."""

    def __init__(self):
        got = self.got = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                got.append((self.path, dict(self.headers), json.loads(body)))
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


def text(b, css):
    """The text of the first element matching `css` ("" when none): read in one step, so a view
    being redrawn cannot leave a stale element in the test's hands."""
    return b.js("const e = document.querySelector(arguments[0]); return e ? e.innerText : ''", css)


def sign_in(b, key):
    field = wait_for("the key field", lambda: b.all("form.signin input[type=password]"))[0]
    field.clear()
    field.send_keys(key)
    b.find("form.signin button[type=submit]").click()


def rows_ready(b, names):
    """Every named source's row says ready."""

    def probe():
        # Read in one step: the table is redrawn while sources are processed.
        statuses = b.js(
            "const out = {}; for (const tr of document.querySelectorAll('table.sources tbody tr')) {"
            " out[tr.querySelector('th').innerText] = tr.querySelector('.badge').innerText; } return out;"
        )
        bad = [n for n, s in statuses.items() if s in ("error", "failed")]
        check(not bad, f"sources failed: {statuses} {text(b, 'table.sources')}")
        return all(statuses.get(n) == "ready" for n in names)

    wait_for(f"{names} to be ready", probe, timeout=90)


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


def no_console_errors(b, where):
    b.assert_clean(where)
    # A refused key's 401 is logged by the browser as a failed load: expected where the test
    # signs in with one.
    severe = [e for e in b.console if e.get("level") == "SEVERE" and "status of 401" not in e.get("message", "")]
    check(severe == [], f"{where}: console errors {severe}")


def main():
    model_url, stub, server = stub_model.start()
    receiver = Receiver()
    # The receiver is on this machine: lift the address rule for this server only.
    os.environ["LORE_ALLOW_PRIVATE_NETWORK"] = "true"
    lore = Lore(model_url)
    b = Browser()
    files = tempfile.mkdtemp(prefix="lore-console-files-")
    try:
        b.before_each_page(WATCH)
        b.open(lore.base + "/console")
        # A key the server does not know: said so, nothing stored.
        sign_in(b, "lore_not_a_real_key")
        wait_for("the refusal", lambda: "not accepted" in text(b, "#alerts"))
        check(b.js("return sessionStorage.length") == 0, "a refused key is not kept")
        b.screenshot("console-sign-in.png")
        accessible(b, "sign-in")

        sign_in(b, lore.key)
        wait_for("the chatbot list", lambda: text(b, "main h1") == "Chatbots")
        check(text(b, "header .who") != "", "the workspace is named")
        no_console_errors(b, "the chatbot list")
        accessible(b, "the chatbot list")

        # Create a chatbot with the form.
        b.find("form[aria-label='New chatbot'] input").send_keys("Support bot")
        b.find("form[aria-label='New chatbot'] button").click()
        wait_for("the chatbot's page", lambda: text(b, "main h1") == "Support bot")
        bot_id = b.js("return location.hash.split('/')[2]")
        check(bot_id.startswith("cb_"), f"the address names the chatbot: {bot_id}")

        # Two files at once, with their progress, and a pasted text.
        policy = os.path.join(files, "returns.md")
        prices = os.path.join(files, "prices.csv")
        open(policy, "w").write(POLICY)
        open(prices, "w").write(PRICES)
        upload = b.find("input[type=file]")
        upload.send_keys(policy + "\n" + prices)
        upload.find_element(By.XPATH, "ancestor::form").find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        text_form = b.driver.find_element(By.XPATH, "//form[h3='Add text']")
        text_form.find_element(By.CSS_SELECTOR, "input[type=text]").send_keys("Opening hours")
        text_form.find_element(By.CSS_SELECTOR, "textarea").send_keys("The shop opens at nine and closes at six.")
        text_form.find_element(By.CSS_SELECTOR, "button").click()
        rows_ready(b, ["returns.md", "prices.csv", "Opening hours"])
        sources = lore.api("GET", f"/api/v1/chatbots/{bot_id}/sources")["sources"]
        by_name = {s["name"]: s for s in sources}
        check(by_name["prices.csv"]["mimeType"] == "text/csv", by_name["prices.csv"])
        check(all(s["status"] == "ready" for s in sources) and len(sources) == 3, sources)
        b.screenshot("console-sources.png")
        no_console_errors(b, "the sources")

        # The search playground: the word marked, a score shown.
        search = b.find("form[role=search]")
        search.find_element(By.CSS_SELECTOR, "input[type=search]").send_keys("refunded shipping")
        search.find_element(By.CSS_SELECTOR, "select").send_keys("keyword")
        search.find_element(By.CSS_SELECTOR, "button").click()
        first = wait_for("a result", lambda: b.all("ol.results li.card"))[0]
        check("returns.md" in first.text, f"the policy first: {first.text}")
        marks = [m.text.lower() for m in first.find_elements(By.CSS_SELECTOR, "mark")]
        check("shipping" in marks, f"the query's word is marked: {marks}")
        score = float(first.find_element(By.CSS_SELECTOR, ".score").text)
        check(score > 0, f"a score: {score}")
        b.screenshot("console-search.png")
        accessible(b, "the chatbot's page")

        # The chunk view: disable the policy's chunk.
        policy_id = by_name["returns.md"]["id"]
        b.find(f"tr[data-source='{policy_id}'] a").click()
        box = wait_for("the chunk list", lambda: b.all("ol.chunks input[type=checkbox]"))[0]
        check(box.is_selected(), "a chunk starts enabled")
        box.click()
        wait_for("the change to be saved", lambda: "disabled" in text(b, "#status"))
        chunks = lore.api("GET", f"/api/v1/chatbots/{bot_id}/sources/{policy_id}/chunks")["chunks"]
        check(chunks[0]["enabled"] is False, chunks[0])
        box.click()
        wait_for("the chunk to be enabled again", lambda: "enabled" in text(b, "#status"))
        accessible(b, "the chunks")
        b.driver.back()
        wait_for("the chatbot's page again", lambda: text(b, "main h1") == "Support bot")

        # Publish; the snippet names the chatbot.
        publish = wait_for("the publish button", lambda: [x for x in b.all("button") if x.text == "Publish"])[0]
        publish.click()
        wait_for("the published address", lambda: "Published at" in text(b, "main"))
        snippet = b.find("textarea.code").get_attribute("value")
        check(text(b, "main").count("Published at http") == 1, "the address is a link after the words")
        check('data-chatbot="support-bot"' in snippet and "/widget.js" in snippet, snippet)
        check(lore.api("GET", f"/api/v1/chatbots/{bot_id}")["chatbot"]["isPublished"], "published")
        b.screenshot("console-chatbot.png")

        # A visitor's conversation, then its transcript.
        lore.api("POST", f"/api/v1/chatbots/{bot_id}/conversations", {"message": "When are refunds paid?"})
        b.driver.refresh()
        link = wait_for("the conversation", lambda: b.all("section[aria-labelledby=conv-h] a"))[0]
        link.click()
        wait_for("the transcript", lambda: "When are refunds paid?" in text(b, "ol.transcript"))
        check(len(b.all("ol.transcript li.msg.assistant")) >= 1, "the answer is shown")
        no_console_errors(b, "the transcript")
        accessible(b, "the transcript")
        conversation_id = b.js("return location.hash.split('/')[4]")
        conv_path = f"/api/v1/chatbots/{bot_id}/conversations/{conversation_id}"

        # The owner rates the answer and corrects it.
        answer = b.find("ol.transcript li.msg.assistant")
        answer.find_element(By.CSS_SELECTOR, "button.rate-down").click()
        wait_for("the rating", lambda: "rated down" in text(b, "ol.transcript li.msg.assistant"))
        rated = [m for m in lore.api("GET", conv_path)["messages"] if m["role"] == "assistant"]
        check(rated[-1]["feedback"]["rating"] == "down", rated[-1])
        answer = b.find("ol.transcript li.msg.assistant")
        [x for x in answer.find_elements(By.CSS_SELECTOR, "button") if x.text == "Correct this answer"][0].click()
        fix = answer.find_element(By.CSS_SELECTOR, "form.correct textarea")
        fix.clear()
        fix.send_keys("Refunds are paid within fourteen days.")
        answer.find_element(By.CSS_SELECTOR, "form.correct button[type=submit]").click()
        wait_for("the correction", lambda: "Correction saved" in text(b, "#status"))
        corrections = lore.api("GET", f"/api/v1/chatbots/{bot_id}/corrections")["corrections"]
        check([c["content"] for c in corrections] == ["Refunds are paid within fourteen days."], corrections)
        check(corrections[0]["question"] == "When are refunds paid?", corrections)

        # A visitor asks for a person: the owner replies in the console and hands back.
        lore.api("POST", f"{conv_path}/handoff", {"reason": "I want to talk to someone"})
        b.driver.refresh()
        reply = wait_for("the reply form", lambda: b.all("ol.transcript ~ form textarea"))[0]
        reply.send_keys("Hello, this is Sam from the shop.")
        b.find("ol.transcript ~ form button[type=submit]").click()
        wait_for("the reply in the transcript", lambda: "Sam from the shop" in text(b, "ol.transcript li.msg.agent"))
        agent = [m for m in lore.api("GET", conv_path)["messages"] if m["role"] == "agent"]
        check([m["content"] for m in agent] == ["Hello, this is Sam from the shop."], agent)
        [x for x in b.all("button") if x.text == "Hand back to the assistant"][0].click()
        wait_for("the hand-back", lambda: "Handed back" in text(b, "#status"))
        check(lore.api("GET", conv_path)["conversation"]["status"] == "open", "open again")
        check("null" not in text(b, "main") and "undefined" not in text(b, "main"), text(b, "main"))
        b.screenshot("console-transcript.png")
        accessible(b, "the transcript after hand-off")

        # Analytics count what happened.
        b.driver.back()
        wait_for("the analytics", lambda: b.all("section[aria-labelledby=analytics-h] .figure"))
        figures = b.js(
            "return Object.fromEntries(Array.from(document.querySelectorAll('.figure')).map("
            " f => [f.querySelector('.label').innerText, Number(f.querySelector('.value').innerText)]))"
        )
        check(figures["conversations"] == 1 and figures["rated down"] == 1, figures)
        check(len(b.all("svg.chart rect.bar")) == 30, "one bar a day for 30 days")
        [x for x in b.all("button") if x.text == "Export CSV"][0].click()
        wait_for("the export", lambda: "Downloaded conversations-" in text(b, "#status"))
        b.js("document.getElementById('analytics-h').scrollIntoView()")
        b.screenshot("console-analytics.png")
        check("Refunds are paid within fourteen days." in text(b, "section[aria-labelledby=corr-h]"), "the correction listed")

        # A Mind: created, taught a text, searched, through the same views.
        b.find("header nav a[href='#/minds']").click()
        wait_for("the Mind list", lambda: text(b, "main h1") == "Minds")
        b.find("form[aria-label='New mind'] input").send_keys("Ada")
        b.find("form[aria-label='New mind'] button").click()
        wait_for("the Mind's page", lambda: text(b, "main h1") == "Ada")
        text_form = b.driver.find_element(By.XPATH, "//form[h3='Add text']")
        text_form.find_element(By.CSS_SELECTOR, "input[type=text]").send_keys("Engines")
        text_form.find_element(By.CSS_SELECTOR, "textarea").send_keys("The analytical engine weaves algebraic patterns.")
        text_form.find_element(By.CSS_SELECTOR, "button").click()
        rows_ready(b, ["Engines"])
        search = b.find("form[role=search]")
        search.find_element(By.CSS_SELECTOR, "input[type=search]").send_keys("algebraic patterns")
        search.find_element(By.CSS_SELECTOR, "button").click()
        first = wait_for("a Mind result", lambda: b.all("ol.results li.card"))[0]
        check("Engines" in first.text, first.text)
        no_console_errors(b, "the Mind")
        b.find("header nav a[href='#/chatbots']").click()
        wait_for("the chatbot list again", lambda: text(b, "main h1") == "Chatbots")
        b.find("main table a").click()
        wait_for("the chatbot's page again", lambda: text(b, "main h1") == "Support bot")
        link = wait_for("the conversation", lambda: b.all("section[aria-labelledby=conv-h] a"))[0]
        link.click()
        wait_for("the transcript again", lambda: "When are refunds paid?" in text(b, "ol.transcript"))

        # Phone width: the chatbot page still reads and works.
        b.driver.set_window_size(390, 844)
        b.driver.back()
        wait_for("the chatbot's page at phone width", lambda: text(b, "main h1") == "Support bot")
        width = b.js("return document.documentElement.scrollWidth")
        check(width <= 390, f"nothing wider than the phone: {width}")
        b.screenshot("console-phone.png")
        accessible(b, "the chatbot's page at phone width")
        b.driver.set_window_size(1280, 900)

        # Webhooks: subscribe, see the secret once, send a test event, watch it delivered,
        # redeliver it with the same id, rotate the secret.
        b.find("header nav a[href='#/webhooks']").click()
        wait_for("the webhooks page", lambda: text(b, "main h1") == "Webhooks")
        form = b.find("form[aria-label='New subscription']")
        form.find_element(By.CSS_SELECTOR, "input[type=url]").send_keys(receiver.url + "/lore")
        form.find_element(By.CSS_SELECTOR, "select").send_keys("message.rated")
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        secret = wait_for("the secret", lambda: b.all(".secret input.code"))[0].get_attribute("value")
        check(secret.startswith("whsec_"), f"a signing secret: {secret}")
        wait_for("the subscription listed", lambda: receiver.url in text(b, "table.hooks"))
        hooks = lore.api("GET", "/api/integrations/webhooks/triggers/subscribe")["hooks"]
        check([(h["hookUrl"], h["event"]) for h in hooks] == [(receiver.url + "/lore", "message.rated")], hooks)
        accessible(b, "the webhooks page")
        b.find("table.hooks a").click()
        wait_for("the subscription page", lambda: "Receiver" in text(b, "dl.facts"))
        [x for x in b.all("button") if x.text == "Send a test event"][0].click()
        wait_for("the test delivery to succeed", lambda: "succeeded" in text(b, "li[data-delivery]"), timeout=60)
        check(len(receiver.got) == 1 and receiver.got[0][2]["metadata"].get("test") is True, receiver.got)
        first_id = receiver.got[0][1].get("webhook-id")
        b.find("li[data-delivery] button").click()
        wait_for("the redelivery", lambda: len(receiver.got) == 2, timeout=60)
        check(receiver.got[1][1].get("webhook-id") == first_id, "a redelivery keeps its id")
        [x for x in b.all("button") if x.text == "Rotate secret"][0].click()
        rotated = wait_for("the new secret", lambda: [x.get_attribute("value") for x in b.all(".secret input.code") if x.get_attribute("value") != secret])
        check(rotated[0].startswith("whsec_"), rotated)
        b.screenshot("console-webhook.png")
        accessible(b, "the subscription page")
        no_console_errors(b, "webhooks")

        # Signing out forgets the key; a key the server stops accepting signs the tab out.
        [x for x in b.all("header button") if x.text == "Sign out"][0].click()
        wait_for("the sign-in form", lambda: b.all("form.signin"))
        check(b.js("return sessionStorage.getItem('lore.console.key')") is None, "the key is forgotten")
        b.js("sessionStorage.setItem('lore.console.key', 'lore_revoked_key'); location.reload();")
        wait_for("the sign-out message", lambda: b.all("form.signin") and "sign in again" in text(b, "#alerts"))
        no_console_errors(b, "sign out")
        print("console: ok")
    finally:
        b.quit()
        lore.stop()
        server.shutdown()


if __name__ == "__main__":
    main()
