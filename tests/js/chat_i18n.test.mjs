// The chat page's fixed texts (lib/http/src/public_page/js/i18n.js) on the real catalogues.
// Run by scripts/js-test.sh (node --test).
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Texts, cataloguePath, supportedLanguage, thousands, wantedLanguage } from "../../lib/http/src/public_page/js/i18n.js";

const catalogue = (code) =>
  JSON.parse(readFileSync(new URL(`../../lib/http/src/public_page/i18n/${code}.json`, import.meta.url), "utf8"));
const LANGUAGES = "ar de en es fa fr he it ja nl pt zh".split(" ");

test("a tag names a supported language by its primary subtag, any case", () => {
  assert.equal(supportedLanguage("fr-CA", LANGUAGES), "fr");
  assert.equal(supportedLanguage("PT_br", LANGUAGES), "pt");
  assert.equal(supportedLanguage("auto", LANGUAGES), null);
  assert.equal(supportedLanguage("ko", LANGUAGES), null);
  assert.equal(supportedLanguage(null, LANGUAGES), null);
});

test("the owner's language wins, then ?lang=, then the browser's first supported one, then English", () => {
  assert.equal(wantedLanguage("de", "?lang=fr", ["ja"], LANGUAGES), "de");
  assert.equal(wantedLanguage("auto", "?embed=1&lang=fr-BE", ["ja"], LANGUAGES), "fr");
  assert.equal(wantedLanguage("auto", "?lang=xx", ["ko-KR", "he-IL", "ja"], LANGUAGES), "he");
  assert.equal(wantedLanguage("auto", "", ["ko"], LANGUAGES), "en");
  assert.equal(wantedLanguage(null, undefined, [], LANGUAGES), "en");
});

test("texts fill {name} and given values; an unknown key or placeholder stays as written", () => {
  const en = new Texts(catalogue("en"), "en", "Ada <3");
  assert.equal(en.t("composer.placeholder"), "Ask Ada <3 something");
  assert.equal(en.t("source.label", { n: "2" }), "Source 2");
  assert.equal(en.t("no.such.key"), "no.such.key");
  assert.equal(new Texts({ k: "{a} and {b}" }, "en", "").t("k", { a: "A" }), "A and {b}");
  assert.equal(new Texts(null, "en", "x").t("k"), "k");
});

test("counted texts take the language's plural form and its digits", () => {
  const en = new Texts(catalogue("en"), "en", "");
  assert.equal(en.plural("sources", 1), "1 source");
  assert.equal(en.plural("sources", 1200), "1,200 sources");
  const ar = new Texts(catalogue("ar"), "ar", "");
  assert.equal(ar.plural("sources", 2), "مصدران");
  assert.equal(ar.plural("sources", 3), `${new Intl.NumberFormat("ar").format(3)} مصادر`, "Arabic's few");
  assert.equal(ar.plural("sources", 11), `${new Intl.NumberFormat("ar").format(11)} مصدرًا`, "Arabic's many");
  const de = new Texts({ "x.other": "{n} Zeichen" }, "de", "");
  assert.equal(de.plural("x", 4000), "4.000 Zeichen", "a form the catalogue lacks falls back to other");
});

test("numbers without Intl's locale data fall back to thousands separators", () => {
  assert.equal(thousands(1234567), "1,234,567");
  assert.equal(thousands(999), "999");
  assert.equal(new Texts({}, "not a language tag!", "").number(12345), "12,345");
});

test("a switched catalogue is used from then on", () => {
  const texts = new Texts(catalogue("en"), "en", "Ada");
  texts.use(catalogue("fr"), "fr");
  assert.equal(texts.lang, "fr");
  assert.equal(texts.t("composer.send"), "Envoyer");
});

test("another language's catalogue is next to the page, under a stage prefix too", () => {
  assert.equal(cataloguePath("/m/ada", "fr"), "/i18n/fr.json");
  assert.equal(cataloguePath("/prod/c/support-bot/", "ja"), "/prod/i18n/ja.json");
});
