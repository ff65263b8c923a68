//! The fixed texts of the public page and the widget, one catalogue per language
//! (docs/api.md §20): `i18n/{code}.json`, a flat JSON object of keys to texts, compiled into the
//! binary as written (no build step). The server renders the page's texts from them, inlines the
//! catalogue of the page's language for its script, serves each at `GET /i18n/{code}.json` (for a
//! page whose visitor's browser prefers another language than the server could tell) and gives
//! the widget the few texts of its launcher.
//!
//! Texts may hold `{name}`-style placeholders, filled by whoever shows them. A key ending in a
//! CLDR plural category (`.zero`, `.one`, `.two`, `.few`, `.many`, `.other`) is one form of a
//! counted text; every catalogue has the `.other` form of each, the others as its language needs
//! them (the script picks with `Intl.PluralRules`).

use std::collections::BTreeMap;
use std::sync::OnceLock;

/// Every language with a catalogue, by ISO 639-1 code, in order.
const SOURCES: &[(&str, &str)] = &[
    ("ar", include_str!("i18n/ar.json")),
    ("de", include_str!("i18n/de.json")),
    ("en", include_str!("i18n/en.json")),
    ("es", include_str!("i18n/es.json")),
    ("fa", include_str!("i18n/fa.json")),
    ("fr", include_str!("i18n/fr.json")),
    ("he", include_str!("i18n/he.json")),
    ("it", include_str!("i18n/it.json")),
    ("ja", include_str!("i18n/ja.json")),
    ("nl", include_str!("i18n/nl.json")),
    ("pt", include_str!("i18n/pt.json")),
    ("zh", include_str!("i18n/zh.json")),
];

/// Languages written right to left: the page gets `dir="rtl"`, the widget sits bottom left.
pub const RTL: &[&str] = &["ar", "fa", "he"];

/// The fallback, and the catalogue every other one is checked against.
pub const DEFAULT: &str = "en";

/// The texts of the widget's launcher and panel, which widget.js carries for every language.
pub const WIDGET_KEYS: &[&str] = &["widget.open", "widget.close", "widget.title", "widget.unavailable", "chat.label"];

/// One language's texts.
pub struct Catalogue {
    pub code: &'static str,
    /// The file as written: what `GET /i18n/{code}.json` serves and the page inlines.
    pub json: &'static str,
    texts: BTreeMap<String, String>,
}

fn all() -> &'static [Catalogue] {
    static ALL: OnceLock<Vec<Catalogue>> = OnceLock::new();
    ALL.get_or_init(|| {
        SOURCES
            .iter()
            .map(|(code, json)| Catalogue {
                code,
                json,
                // Checked by the tests below: a catalogue that does not parse never ships.
                texts: serde_json::from_str(json).unwrap_or_default(),
            })
            .collect()
    })
}

/// The codes with a catalogue, space separated (for the page's script).
pub fn codes() -> String {
    SOURCES.iter().map(|(c, _)| *c).collect::<Vec<_>>().join(" ")
}

/// The catalogue of exactly `code` (a supported code, as [`supported`] gives it).
pub fn catalogue(code: &str) -> Option<&'static Catalogue> {
    all().iter().find(|c| c.code == code)
}

/// The supported language a language tag names: its primary subtag, case-insensitive (`fr-CA`
/// and `FR` are `fr`). `auto`, an empty tag or an unsupported language give `None`.
pub fn supported(tag: &str) -> Option<&'static str> {
    let primary = tag.trim().split(['-', '_']).next().unwrap_or("");
    SOURCES.iter().map(|(c, _)| *c).find(|c| c.eq_ignore_ascii_case(primary))
}

/// The first supported language of an `Accept-Language` header, by preference (`q`, then order);
/// languages with `q=0` are refused, `*` names none.
pub fn from_accept_language(header: &str) -> Option<&'static str> {
    let mut ranked: Vec<(u16, usize, &str)> = header
        .split(',')
        .enumerate()
        .filter_map(|(i, part)| {
            let mut pieces = part.split(';');
            let tag = pieces.next()?.trim();
            let q = pieces
                .filter_map(|p| p.trim().strip_prefix("q=").or_else(|| p.trim().strip_prefix("Q=")))
                .next()
                .map_or(Some(1000), |q| {
                q.trim().parse::<f32>().ok().map(|q| (q.clamp(0.0, 1.0) * 1000.0) as u16)
            })?;
            (q > 0 && !tag.is_empty()).then_some((q, i, tag))
        })
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    ranked.into_iter().find_map(|(_, _, tag)| supported(tag))
}

pub fn is_rtl(code: &str) -> bool {
    RTL.contains(&code)
}

impl Catalogue {
    /// The text of `key`, else English's, else the key itself (never empty-handed).
    pub fn text<'a>(&'a self, key: &'a str) -> &'a str {
        self.texts.get(key).or_else(|| catalogue(DEFAULT).and_then(|en| en.texts.get(key))).map_or(key, String::as_str)
    }

    /// The text of `key` with `{name}` replaced by `value` (already escaped for where it goes).
    pub fn with(&self, key: &str, name: &str, value: &str) -> String {
        self.text(key).replace(&format!("{{{name}}}"), value)
    }
}

/// The texts widget.js carries: `{"rtl": […], "texts": {code: {key: text}}}`.
pub fn widget_texts() -> String {
    let texts: BTreeMap<&str, BTreeMap<&str, &str>> =
        all().iter().map(|c| (c.code, WIDGET_KEYS.iter().map(|k| (*k, c.text(k))).collect())).collect();
    serde_json::json!({ "rtl": RTL, "texts": texts }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    const PLURAL: &[&str] = &["zero", "one", "two", "few", "many", "other"];

    /// `sources.one` → `Some("sources")`.
    fn plural_base(key: &str) -> Option<&str> {
        let (base, form) = key.rsplit_once('.')?;
        PLURAL.contains(&form).then_some(base)
    }

    fn placeholders(text: &str) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let mut rest = text;
        while let Some(start) = rest.find('{') {
            let Some(end) = rest[start..].find('}') else { break };
            out.insert(rest[start + 1..start + end].to_owned());
            rest = &rest[start + end + 1..];
        }
        out
    }

    #[test]
    fn every_catalogue_parses_and_has_every_text_of_english() {
        let en = catalogue("en").unwrap();
        assert!(en.texts.len() > 40);
        for (code, json) in SOURCES {
            let texts: BTreeMap<String, String> =
                serde_json::from_str(json).unwrap_or_else(|e| panic!("{code}.json does not parse: {e}"));
            assert!(!json.contains('<'), "{code}.json is inlined in a <script> data block: no '<'");
            for (key, text) in &en.texts {
                let wanted = match plural_base(key) {
                    Some(base) => format!("{base}.other"),
                    None => key.clone(),
                };
                assert!(texts.contains_key(&wanted), "{code}.json lacks {wanted}");
                assert!(!text.trim().is_empty());
            }
            for (key, text) in &texts {
                assert!(!text.trim().is_empty(), "{code}.json: {key} is empty");
                let reference = match plural_base(key) {
                    Some(base) => {
                        let other = format!("{base}.other");
                        assert!(en.texts.contains_key(&other), "{code}.json: {key} is no text of en.json");
                        // A form for one item may say "one" in words.
                        let mine = placeholders(text);
                        let en_other = placeholders(&en.texts[&other]);
                        assert!(mine.is_subset(&en_other), "{code}.json: {key} has {mine:?}, en {en_other:?}");
                        continue;
                    }
                    None => en.texts.get(key).unwrap_or_else(|| panic!("{code}.json: {key} is no text of en.json")),
                };
                assert_eq!(placeholders(text), placeholders(reference), "{code}.json: {key}'s placeholders");
            }
        }
    }

    #[test]
    fn language_tags_match_by_primary_subtag() {
        assert_eq!(supported("fr-CA"), Some("fr"));
        assert_eq!(supported("PT_br"), Some("pt"));
        assert_eq!(supported("zh-Hant-TW"), Some("zh"));
        assert_eq!(supported("auto"), None);
        assert_eq!(supported(""), None);
        assert_eq!(supported("sv"), None);
        assert!(is_rtl("ar") && is_rtl("he") && is_rtl("fa") && !is_rtl("fr"));
    }

    #[test]
    fn accept_language_is_read_by_preference() {
        assert_eq!(from_accept_language("fr-CA,fr;q=0.9,en;q=0.8"), Some("fr"));
        assert_eq!(from_accept_language("sv, de;q=0.5, en;q=0.7"), Some("en"));
        assert_eq!(from_accept_language("en;q=0, ar"), Some("ar"));
        assert_eq!(from_accept_language("*"), None);
        assert_eq!(from_accept_language("sv"), None);
        assert_eq!(from_accept_language(""), None);
        assert_eq!(from_accept_language("ja;q=abc, it"), Some("it"), "a malformed weight drops its range");
    }

    #[test]
    fn the_widget_gets_its_texts_in_every_language() {
        let v: serde_json::Value = serde_json::from_str(&widget_texts()).unwrap();
        assert_eq!(v["rtl"], serde_json::json!(["ar", "fa", "he"]));
        assert_eq!(v["texts"]["fr"]["widget.open"], "Ouvrir la discussion");
        assert_eq!(v["texts"]["en"]["chat.label"], "Chat with {name}");
        assert_eq!(v["texts"].as_object().unwrap().len(), SOURCES.len());
    }
}
