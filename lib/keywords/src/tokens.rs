//! How text becomes keyword terms, in every script (docs/api.md §20).
//!
//! - Words are cut at Unicode word boundaries (UAX #29), then at anything that is not a letter, a
//!   digit or a combining mark: `l'eau` is `l` + `eau`, `3.14` is `3` + `14`, as SQLite's
//!   `unicode61` cut them before.
//! - Chinese and Japanese are written without spaces: a run of Han, Hiragana and Katakana becomes
//!   its overlapping character pairs (`東京都` → `東京`, `京都`), so any two or more consecutive
//!   characters of a word find it without a dictionary. A run of one character is that character.
//! - Other words are lower-cased, reduced by the Snowball stemmer of the text's language when it
//!   has one (`rust-stemmers`: English is Porter2), then stripped of Latin diacritics (`café` and
//!   `cafe` match). The stemmer sees the accents; the stem is folded after.
//! - A text of no detected language is folded without stemming.

use lore_domain::language::Language;
use rust_stemmers::{Algorithm, Stemmer};
use std::sync::OnceLock;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;
use unicode_segmentation::UnicodeSegmentation;

/// The Snowball algorithm of a language, where Snowball has one.
fn algorithm(language: Language) -> Option<Algorithm> {
    Some(match language {
        Language::English => Algorithm::English,
        Language::French => Algorithm::French,
        Language::German => Algorithm::German,
        Language::Spanish => Algorithm::Spanish,
        Language::Italian => Algorithm::Italian,
        Language::Portuguese => Algorithm::Portuguese,
        Language::Dutch => Algorithm::Dutch,
        Language::Russian => Algorithm::Russian,
        Language::Turkish => Algorithm::Turkish,
        Language::Arabic => Algorithm::Arabic,
        Language::Swedish => Algorithm::Swedish,
        Language::Danish => Algorithm::Danish,
        Language::Norwegian => Algorithm::Norwegian,
        Language::Finnish => Algorithm::Finnish,
        Language::Romanian => Algorithm::Romanian,
        Language::Greek => Algorithm::Greek,
        Language::Hungarian => Algorithm::Hungarian,
        _ => return None,
    })
}

/// One stemmer per language, made once (a stemmer is a table of functions, shared by threads).
fn stemmer(language: Language) -> Option<&'static Stemmer> {
    static STEMMERS: OnceLock<Vec<Option<Stemmer>>> = OnceLock::new();
    let all = STEMMERS.get_or_init(|| Language::ALL.iter().map(|&l| algorithm(l).map(Stemmer::create)).collect());
    let index = Language::ALL.iter().position(|&l| l == language)?;
    all.get(index).and_then(Option::as_ref)
}

/// Characters of the scripts written without spaces between words.
fn unspaced(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana (with ー)
        | 0x31F0..=0x31FF    // Katakana phonetic extensions
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0xFF66..=0xFF9F    // half-width Katakana
        | 0x20000..=0x2FA1F) // CJK extensions B–F, compatibility supplement
}

fn word_char(c: char) -> bool {
    c.is_alphanumeric() || is_combining_mark(c)
}

/// Latin letters (with their diacritics) are the ones folded to their base letter.
fn latin(c: char) -> bool {
    matches!(c as u32, 0x00C0..=0x024F | 0x1E00..=0x1EFF)
}

/// Calls `each` with every term of `text`, in order, cut and folded for `language`.
pub fn each_term(text: &str, language: Option<Language>, mut each: impl FnMut(&[u8])) {
    let stemmer = language.and_then(stemmer);
    let mut folded = String::new();
    // The unspaced run being read: its last character, and whether it has emitted a pair yet.
    let mut run: Option<(char, bool)> = None;
    let mut run_end = 0usize;
    let flush = |run: &mut Option<(char, bool)>, each: &mut dyn FnMut(&[u8])| {
        if let Some((last, paired)) = run.take()
            && !paired
        {
            let mut buf = [0u8; 4];
            each(last.encode_utf8(&mut buf).as_bytes());
        }
    };
    for (start, segment) in text.split_word_bound_indices() {
        let mut chars = segment.chars();
        if chars.next().is_some_and(unspaced) && chars.all(unspaced) {
            if start != run_end {
                flush(&mut run, &mut each);
            }
            for c in segment.chars() {
                run = Some(match run {
                    Some((prev, _)) => {
                        let mut pair = [0u8; 8];
                        let n = prev.encode_utf8(&mut pair).len();
                        let m = c.encode_utf8(&mut pair[n..]).len();
                        each(&pair[..n + m]);
                        (c, true)
                    }
                    None => (c, false),
                });
            }
            run_end = start + segment.len();
            continue;
        }
        flush(&mut run, &mut each);
        for word in segment.split(|c: char| !word_char(c)).filter(|w| !w.is_empty()) {
            folded.clear();
            folded.extend(word.chars().flat_map(char::to_lowercase));
            let stemmed = match stemmer {
                Some(s) => s.stem(&folded),
                None => std::borrow::Cow::Borrowed(folded.as_str()),
            };
            // Latin letters lose their diacritics; so do decomposed Latin accents (U+0300–036F).
            // Other scripts' marks carry vowels (Devanagari) and stay.
            if stemmed.chars().any(|c| latin(c) || matches!(c as u32, 0x0300..=0x036F)) {
                let plain: String = stemmed
                    .chars()
                    .map(|c| if latin(c) { c.nfd().next().unwrap_or(c) } else { c })
                    .filter(|&c| !matches!(c as u32, 0x0300..=0x036F))
                    .collect();
                each(plain.as_bytes());
            } else {
                each(stemmed.as_bytes());
            }
        }
    }
    flush(&mut run, &mut each);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str, language: Option<Language>) -> Vec<String> {
        let mut out = Vec::new();
        each_term(text, language, |t| out.push(String::from_utf8(t.to_vec()).unwrap()));
        out
    }

    #[test]
    fn english_words_are_split_folded_and_stemmed() {
        let en = Some(Language::English);
        assert_eq!(terms("Refunds, REFUNDED—refunding!", en), ["refund", "refund", "refund"]);
        assert_eq!(terms("Bröker’s café", en), ["broker", "s", "cafe"]);
        assert_eq!(terms("pi is 3.14; see example.com", en), ["pi", "is", "3", "14", "see", "exampl", "com"]);
        assert!(terms(" ?! ", en).is_empty());
        assert_eq!(terms("Refunds", None), ["refunds"], "no language: folded, not stemmed");
    }

    #[test]
    fn other_languages_are_stemmed_by_their_own_rules() {
        assert_eq!(terms("rapidement rapide", Some(Language::French)), ["rapid", "rapid"]);
        assert_eq!(terms("l'eau", Some(Language::French)), ["l", "eau"]);
        assert_eq!(terms("Häuser Haus", Some(Language::German)), ["haus", "haus"]);
        assert_eq!(terms("envíos envío", Some(Language::Spanish)), ["envi", "envi"]);
        assert_eq!(terms("доставка доставки", Some(Language::Russian)), ["доставк", "доставк"]);
        // Scripts whose marks carry vowels keep them.
        assert_eq!(terms("हिन्दी", Some(Language::Hindi)), ["हिन्दी"]);
        assert_eq!(terms("한국어 배송", Some(Language::Korean)), ["한국어", "배송"]);
    }

    #[test]
    fn unspaced_scripts_become_overlapping_pairs() {
        assert_eq!(terms("東京都に住む", Some(Language::Japanese)), ["東京", "京都", "都に", "に住", "住む"]);
        assert_eq!(terms("水壶发往德国。", None), ["水壶", "壶发", "发往", "往德", "德国"]);
        assert_eq!(terms("猫", None), ["猫"], "a lone character is itself");
        assert_eq!(terms("猫 と 犬", None), ["猫", "と", "犬"], "spaces end a run");
        assert_eq!(terms("Lore の設定", None), ["lore", "の設", "設定"]);
        assert_eq!(terms("カタカナ語", None), ["カタ", "タカ", "カナ", "ナ語"]);
    }
}
