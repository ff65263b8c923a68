"""The public page and the widget in the visitor's language, in a real browser (run by
scripts/browser-test.sh after widget.py).

Starts `lore serve` with the stub model (as chat_page.py does) and a host site on another origin
(as widget.py does). The owner's language is "auto" (the setting is not in this branch yet), so
the language comes from the visitor's browser (Chromium with `--lang` and the
`intl.accept_languages` preference, which set both Accept-Language and navigator.languages) or
from the widget's `data-language`. Checks:

- GET /{m|c}/{slug}/widget.json: `{language, color}` (the owner's theme colour), `Cache-Control:
  public, max-age=300`, `Access-Control-Allow-Origin: *`; 404 once unpublished. GET
  /i18n/{code}.json: the catalogue, open to every origin; an unknown code is 404;
- a French browser (fr-CA, fr): `<html lang="fr">`, the gate, placeholder, send button, "New
  conversation" and the sources' summary in French, no `dir`; a conversation works;
- a browser whose navigator.languages (de-AT) differ from what the server read in Accept-Language
  (fr): the script fetches the German catalogue and shows it (`<html lang="de">`);
- an Arabic browser: `<html lang="ar" dir="rtl">`, Arabic texts, and the layout mirrored: the send
  button left of the message box, the visitor's messages on the left, the answers on the right,
  the text right-aligned;
- the widget with data-language="fr" on an English host page and no data-color: the launcher in
  the owner's theme colour, its label in French, the frame at ?embed=1&lang=fr and in French;
- the widget with data-language="ar" on a right-to-left host page: launcher and panel bottom left,
  labels in Arabic, the frame right to left;
- no CSP violation, no dialog, no console error.

Screenshots (desktop 1280x800 and phone 390x844) go to $LORE_SCREENSHOTS as lang-*.png. Every wait
polls with a deadline.
"""

import json
import os
import sys
import urllib.error
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

sys.dont_write_bytecode = True  # no __pycache__ left in the tree by importing the other tests
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
    hex_rgb,
    open_fresh,
    pass_gate,
    wait_for,
)
from widget import (  # noqa: E402
    Hosts,
    console_errors,
    frame_clean,
    into_frame,
    out_of_frame,
    shadow,
    state,
    viewport,
    widget_tag,
)

COLOUR = "#b4236b"
RTL_HOST = """<!doctype html>
<html lang="ar" dir="rtl">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>متجر الرحلات</title>
<link rel="icon" href="data:,">
<style>body { font-family: system-ui, sans-serif; margin: 0; padding: 2rem; background: #f4f1ea; color: #222; }
p { line-height: 1.8; max-width: 40rem; }</style>
</head>
<body>
<h1>متجر الرحلات</h1>
{paragraphs}
{widget}
</body>
</html>
"""


def get(url, headers=None):
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            return res.status, res.headers, res.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def html_attrs(b):
    return b.js("return [document.documentElement.lang, document.documentElement.getAttribute('dir')]")


def texts_of_the_page(b):
    return b.js("""return {
        placeholder: document.getElementById('message').placeholder,
        send: document.getElementById('send').textContent,
        start: document.getElementById('gate-start').textContent,
        intro: document.getElementById('gate-title').textContent,
        email: document.querySelector('label[for=gate-email]').textContent,
        label: document.getElementById('chat').getAttribute('aria-label'),
        restart: document.getElementById('restart') ? document.getElementById('restart').textContent : null,
    };""")


def test_routes(lore, slug, bot_id, bot_slug):
    status, headers, body = get(f"{lore.base}/m/{slug}/widget.json", {"Origin": "https://elsewhere.example"})
    check(status == 200, f"widget.json: {status} {body}")
    check(json.loads(body) == {"language": "auto", "color": COLOUR}, body)
    check(headers.get("Cache-Control") == "public, max-age=300", headers.get("Cache-Control"))
    check(headers.get("Access-Control-Allow-Origin") == "*", headers.get("Access-Control-Allow-Origin"))
    check("application/json" in headers.get("Content-Type", ""), headers.get("Content-Type"))
    status, _, body = get(f"{lore.base}/c/{bot_slug}/widget.json")
    check(status == 200 and json.loads(body)["color"] == "#4f46e5", f"a chatbot without a theme: {body}")
    lore.api("POST", f"/api/v1/chatbots/{bot_id}/publish", {"isPublished": False})
    status, headers, body = get(f"{lore.base}/c/{bot_slug}/widget.json")
    check(status == 404 and json.loads(body)["error"]["code"] == "not_found", f"unpublished: {status} {body}")
    check(get(f"{lore.base}/m/no-such-mind/widget.json")[0] == 404, "an unknown slug")

    status, headers, body = get(f"{lore.base}/i18n/fr.json")
    check(status == 200 and json.loads(body)["composer.send"] == "Envoyer", f"/i18n/fr.json: {status}")
    check(headers.get("Access-Control-Allow-Origin") == "*" and "public" in headers.get("Cache-Control", ""),
          dict(headers))
    check(headers.get("ETag"), "an ETag")
    check(get(f"{lore.base}/i18n/sv.json")[0] == 404 and get(f"{lore.base}/i18n/fr")[0] == 404, "unknown files")

    # The error page for people follows Accept-Language too.
    status, _, body = get(f"{lore.base}/m/no-such-mind", {"Accept": "text/html", "Accept-Language": "de-CH, en;q=0.5"})
    check(status == 404 and "<html lang=\"de\">" in body.decode() and "Chat nicht gefunden" in body.decode(),
          body.decode()[:400])


def test_french_page(lore, url):
    b = Browser("fr-CA,fr")
    try:
        b.before_each_page(WATCH)
        open_fresh(b, url)
        check(b.js("return navigator.languages")[:2] == ["fr-CA", "fr"], b.js("return navigator.languages"))
        check(html_attrs(b) == ["fr", None], html_attrs(b))
        wait_for("the e-mail gate", lambda: b.visible("#gate"))
        texts = texts_of_the_page(b)
        check(texts["placeholder"] == "Posez une question à Ada Lovelace", texts)
        check(texts["send"] == "Envoyer" and texts["start"] == "Commencer", texts)
        check(texts["intro"] == "Pour démarrer la conversation avec Ada Lovelace, indiquez votre adresse e-mail.", texts)
        check(texts["label"] == "Discuter avec Ada Lovelace", texts)
        check(b.find("#about").text.lower() == "à propos", b.find("#about").text)
        check(b.find("footer").text == "Propulsé par Lore", b.find("footer").text)
        # A wrong address is refused in French.
        b.find("#gate-email").send_keys("pas une adresse")
        b.find("#gate-start").click()
        wait_for("the refusal", lambda: b.find("#gate-error").text == "Veuillez saisir une adresse e-mail valide.")
        pass_gate(b, "claire@example.com", "Claire")
        check(b.find("#restart").text == "Nouvelle conversation", b.find("#restart").text)
        b.screenshot("lang-fr-desktop-gate-passed.png")
        b.find("#message").send_keys(QUESTION + Keys.ENTER)
        answer = answered(b, 1)
        summary = b.js("return arguments[0].textContent", answer.find_element(By.CSS_SELECTOR, "details.sources summary"))
        check(summary == "1\u00a0source", f"the sources' summary, French typography: {summary!r}")
        marker = answer.find_element(By.CSS_SELECTOR, "sup a.marker")
        check(marker.get_attribute("aria-label") == "Source 1", marker.get_attribute("aria-label"))
        b.assert_clean("the French page")
        b.screenshot("lang-fr-desktop.png")
        viewport(b, 390, 844, mobile=True)
        b.screenshot("lang-fr-phone.png")
        viewport(b, 1280, 800)

        # navigator.languages decides over Accept-Language: German here, French in the header.
        b.before_each_page("Object.defineProperty(Navigator.prototype, 'languages', "
                           "{get: function () { return ['de-AT', 'de', 'en']; }});")
        open_fresh(b, url)
        wait_for("the German catalogue", lambda: html_attrs(b) == ["de", None], timeout=10)
        wait_for("the e-mail gate", lambda: b.visible("#gate"))
        texts = texts_of_the_page(b)
        check(texts["placeholder"] == "Ihre Frage an Ada Lovelace" and texts["send"] == "Senden", texts)
        check(texts["start"] == "Chat starten" and texts["label"] == "Chat mit Ada Lovelace", texts)
        check(b.find("#about").text.lower() == "zur person", b.find("#about").text)
        b.assert_clean("the German page")
        check([e for e in b.driver.get_log("browser") if e.get("level") == "SEVERE"] == [], "no console error")
    finally:
        b.quit()


def test_arabic_page(lore, url):
    b = Browser("ar")
    try:
        b.before_each_page(WATCH)
        open_fresh(b, url)
        check(html_attrs(b) == ["ar", "rtl"], html_attrs(b))
        wait_for("the e-mail gate", lambda: b.visible("#gate"))
        texts = texts_of_the_page(b)
        check(texts["placeholder"] == "اطرح سؤالك على Ada Lovelace" and texts["send"] == "إرسال", texts)
        check(texts["start"] == "ابدأ المحادثة", texts)
        b.screenshot("lang-ar-desktop-gate.png")
        pass_gate(b, "layla@example.com", "ليلى")
        b.find("#message").send_keys(QUESTION + Keys.ENTER)
        answered(b, 1)
        check(b.find("#restart").text == "محادثة جديدة", b.find("#restart").text)
        geometry = b.js("""
            function box(e) { var r = e.getBoundingClientRect(); return [r.left, r.right]; }
            var log = box(document.getElementById('log'));
            var user = box(document.querySelector('#log li.msg.user'));
            var answer = box(document.querySelector('#log li.msg.assistant:not(.welcome)'));
            var mine = getComputedStyle(document.querySelector('#log li.msg.user .bubble'));
            return { send: box(document.getElementById('send')), box: box(document.getElementById('message')),
                     log: log, user: user, answer: answer,
                     boxDirection: getComputedStyle(document.getElementById('message')).direction,
                     userCorners: [mine.borderBottomLeftRadius, mine.borderBottomRightRadius],
                     direction: getComputedStyle(document.getElementById('chat')).direction };""")
        check(geometry["direction"] == "rtl", geometry)
        check(geometry["boxDirection"] == "rtl", f"the empty box writes right to left: {geometry}")
        check(geometry["userCorners"] == ["4px", "16px"], f"the visitor's bubble points to its side: {geometry}")
        check(geometry["send"][1] <= geometry["box"][0] + 1, f"the send button left of the box: {geometry}")
        check(abs(geometry["user"][0] - geometry["log"][0]) < 2, f"the visitor's message on the left: {geometry}")
        check(abs(geometry["answer"][1] - geometry["log"][1]) < 2, f"the answer on the right: {geometry}")
        b.assert_clean("the Arabic page")
        b.screenshot("lang-ar-desktop.png")
        viewport(b, 390, 844, mobile=True)
        fit = b.js("return [document.documentElement.scrollWidth, innerWidth]")
        check(fit[0] <= fit[1], f"the page fits the phone: {fit}")
        b.screenshot("lang-ar-phone.png")
        check([e for e in b.driver.get_log("browser") if e.get("level") == "SEVERE"] == [], "no console error")
    finally:
        b.quit()


def launcher_box(b):
    return b.js(
        "var l = document.querySelector('[data-lore-widget]').shadowRoot.querySelector('[data-lore=launcher]');"
        "var r = l.getBoundingClientRect(); return [r.left, r.right, innerWidth, getComputedStyle(l).backgroundColor];")


def test_widget_french(lore, b, hosts, slug):
    page = hosts.page("/fr.html", widget_tag(lore, "mind", slug, language="fr"))
    b.open(page)
    viewport(b, 1280, 800)
    launcher = wait_for("the launcher", lambda: shadow(b, "[data-lore=launcher]"))
    box = launcher_box(b)
    check(box[3] == hex_rgb(COLOUR), f"the owner's theme colour without data-color: {box}")
    check(box[2] - 80 <= box[0], f"bottom right on a left-to-right page: {box}")
    check(launcher.get_attribute("aria-label") == "Ouvrir la discussion", launcher.get_attribute("aria-label"))
    b.screenshot("lang-widget-fr-closed.png")
    launcher.click()
    wait_for("the frame ready", lambda: state(b) == "ready", timeout=20)
    check(launcher.get_attribute("aria-label") == "Fermer la discussion", launcher.get_attribute("aria-label"))
    frame = shadow(b, "iframe")
    check(frame.get_attribute("src") == f"{lore.base}/m/{slug}?embed=1&lang=fr", frame.get_attribute("src"))
    check(frame.get_attribute("title") == "Discuter avec Ada Lovelace", frame.get_attribute("title"))
    check(shadow(b, "[data-lore=close]").get_attribute("aria-label") == "Fermer la discussion", "the close button")
    into_frame(b)
    check(html_attrs(b) == ["fr", None], html_attrs(b))
    wait_for("the e-mail gate", lambda: b.visible("#gate"))
    pass_gate(b, "widget-fr@example.com")
    texts = texts_of_the_page(b)
    check(texts["placeholder"] == "Posez une question à Ada Lovelace" and texts["send"] == "Envoyer", texts)
    b.find("#message").send_keys(QUESTION + Keys.ENTER)
    answered(b, 1)
    frame_clean(b, "the French frame")
    out_of_frame(b)
    b.screenshot("lang-widget-fr-open.png")
    viewport(b, 390, 844, mobile=True)
    b.screenshot("lang-widget-fr-phone.png")
    viewport(b, 1280, 800)
    # Starting over (the next test opens the same Mind's frame in this browser).
    into_frame(b)
    check(b.find("#restart").text == "Nouvelle conversation", b.find("#restart").text)
    b.find("#restart").click()
    wait_for("the gate again", lambda: b.visible("#gate"))
    out_of_frame(b)
    check(console_errors(b) == [], "no console error")


def test_widget_arabic(lore, b, hosts, slug):
    tag = widget_tag(lore, "mind", slug, language="ar")
    paragraphs = "\n".join("<p>خيام ومواقد وأحذية لكل المواسم، تُشحن خلال يومين.</p>" for _ in range(12))
    hosts.pages["/ar.html"] = RTL_HOST.replace("{paragraphs}", paragraphs).replace("{widget}", tag)
    b.open(hosts.origin + "/ar.html")
    launcher = wait_for("the launcher", lambda: shadow(b, "[data-lore=launcher]"))
    box = launcher_box(b)
    check(box[0] <= 40, f"bottom left on a right-to-left page: {box}")
    check(box[3] == hex_rgb(COLOUR), f"the owner's theme colour: {box}")
    check(launcher.get_attribute("aria-label") == "فتح الدردشة", launcher.get_attribute("aria-label"))
    b.screenshot("lang-widget-ar-closed.png")
    launcher.click()
    wait_for("the frame ready", lambda: state(b) == "ready", timeout=20)
    panel = b.js("var p = document.querySelector('[data-lore-widget]').shadowRoot.querySelector('[data-lore=panel]');"
                 "var r = p.getBoundingClientRect(); return [r.left, p.getAttribute('dir'), p.getAttribute('lang')];")
    check(panel[0] <= 40 and panel[1] == "rtl" and panel[2] == "ar", f"the panel bottom left, right to left: {panel}")
    frame = shadow(b, "iframe")
    check(frame.get_attribute("src").endswith("?embed=1&lang=ar"), frame.get_attribute("src"))
    into_frame(b)
    check(html_attrs(b) == ["ar", "rtl"], html_attrs(b))
    wait_for("the e-mail gate", lambda: b.visible("#gate"))
    pass_gate(b, "widget-ar@example.com")
    texts = texts_of_the_page(b)
    check(texts["send"] == "إرسال", texts)
    b.find("#message").send_keys(QUESTION + Keys.ENTER)
    answered(b, 1)
    frame_clean(b, "the Arabic frame")
    out_of_frame(b)
    b.screenshot("lang-widget-ar-open.png")
    viewport(b, 390, 844, mobile=True)
    b.screenshot("lang-widget-ar-phone.png")
    viewport(b, 1280, 800)
    check(console_errors(b) == [], "no console error")


def main():
    model_url, stub, server = stub_model.start()
    lore = Lore(model_url)
    hosts = Hosts()
    b = None
    try:
        mind, url = lore.mind(
            {
                "name": "Ada Lovelace",
                "headline": "Mathematician",
                "bio": "Ada wrote the first published program.",
                "expertiseAreas": ["Mathematics"],
                "welcomeMessage": "Hello! Ask me about refunds.",
                "suggestedQuestions": [QUESTION],
            },
            {"collectEmailBeforeChat": True, "theme": {"primaryColor": COLOUR}},
            [("Refund policy", POLICY)],
        )
        slug = url.rstrip("/").rsplit("/", 1)[1]
        lore.api("PATCH", f"/api/v1/minds/{mind}", {"allowedOrigins": [hosts.origin]})
        bot = lore.api("POST", "/api/v1/chatbots", {"name": "Support bot"})["chatbot"]
        bot_slug = lore.api("POST", f"/api/v1/chatbots/{bot['id']}/publish", {})["chatbot"]["publicUrl"].rsplit("/", 1)[1]
        test_routes(lore, slug, bot["id"], bot_slug)
        print("languages: widget.json, /i18n/{code}.json, the error page: ok")
        test_french_page(lore, url)
        print("languages: the page in French, then in German by navigator.languages: ok")
        test_arabic_page(lore, url)
        print("languages: the page in Arabic, right to left: ok")
        b = Browser("en-US,en")
        b.before_each_page(WATCH)
        test_widget_french(lore, b, hosts, slug)
        print("languages: the widget with data-language=fr and the owner's colour: ok")
        test_widget_arabic(lore, b, hosts, slug)
        print("languages: the widget with data-language=ar on a right-to-left page: ok")
    except BaseException:
        print("languages: lore serve log (tail):\n" + lore.server_log(), file=sys.stderr)
        if b is not None:
            try:
                b.driver.switch_to.default_content()
                b.screenshot("lang-failure.png")
            except Exception:  # noqa: BLE001 - the failure itself is what matters
                pass
        raise
    finally:
        if b is not None:
            b.quit()
        lore.stop()
        hosts.stop()
        server.shutdown()
    print("languages: ok")


if __name__ == "__main__":
    main()
