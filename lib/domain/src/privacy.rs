//! Personal data in what visitors type (docs/api.md §22): the patterns `redactPersonalData`
//! replaces before a message is stored, searched, embedded, sent to a model or put in an event.
//!
//! Each pattern is narrow on purpose, so that what a support conversation is full of — order
//! numbers, dates, versions, prices, IP addresses — survives (docs/decisions.md, "Redaction",
//! has the table of what is and is not replaced):
//! - `[email]`: `local@domain.tld`.
//! - `[card]`: 13–19 digits, single spaces or dashes between them, passing the Luhn check.
//! - `[iban]`: two capital letters, two check digits and 11–30 letters or digits (spaces
//!   allowed), passing the ISO 13616 mod-97 check.
//! - `[phone]`: 7–15 digits with separators (space, `-`, `.`, parentheses) and either a leading
//!   `+` or at least two groups; not a date (`2024-01-15`, `15.01.2024`), not an IPv4 address,
//!   not a number written in thousands (`1 000 000`, `10.000.000`). A bare run of digits is not
//!   a phone number: it is far more often an order or ticket number.
//!
//! Full-width forms count as their ASCII ones (as Japanese and Chinese visitors type them):
//! digits U+FF10–U+FF19, capital letters U+FF21–U+FF3A, `＋`, `（`, `）`, `．`, the ideographic
//! space U+3000 and the dashes `－` (U+FF0D), U+2010–U+2015, `−` (U+2212) and `ー` (U+30FC) as
//! separators. A candidate ends where its digits end, not at a word boundary: CJK text has no
//! spaces (`番号は４１１１…１１１１です`). It must not touch a Latin letter or a digit on either
//! side (`A4111…`, `ref4111…X`), which is what the word boundary kept out before.

use regex::Regex;
use std::borrow::Cow;
use std::sync::LazyLock;

static EMAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}")
        .expect("a valid pattern")
});
/// Country, check digits and 11–30 letters or digits (ASCII or full-width), single spaces allowed.
static IBAN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[A-ZＡ-Ｚ]{2}[0-9０-９]{2}(?:[ \x{3000}]?[A-ZＡ-Ｚ0-9０-９]){11,30}").expect("a valid pattern")
});
/// Digits with single spaces or dashes between them (card candidates), not right after a `+`
/// (an international phone number) or a letter (a reference); group 1 is what precedes it.
static CARD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(^|[^+＋0-9０-９A-Za-zＡ-Ｚａ-ｚ\-－])([0-9０-９](?:[ \x{3000}\-－‐-―−ー]?[0-9０-９]){12,18})")
        .expect("a valid pattern")
});
/// A run of digit groups joined by separators, optionally after `+` (phone candidates).
static PHONE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?:[+＋]\s?)?(?:[(（][0-9０-９]{1,5}[)）]\s?)?[0-9０-９]+(?:[ .\-\x{3000}．－‐-―−ー]?(?:[(（][0-9０-９]{1,5}[)）]|[0-9０-９]+))*",
    )
    .expect("a valid pattern")
});

/// `text` with the personal data above replaced; borrowed when nothing was found.
pub fn redact(text: &str) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(text);
    replace(&mut out, &EMAIL, |_, _| Some("[email]"));
    replace(&mut out, &IBAN, |c, text| {
        (stands_alone(text, c.get(0)) && iban_checks(&folded(&c[0]))).then_some("[iban]")
    });
    replace(&mut out, &CARD, |c, text| (ends_alone(text, c.get(2)) && is_card(&folded(&c[2]))).then_some("[card]"));
    replace(&mut out, &PHONE, |c, _| is_phone(&folded(&c[0])).then_some("[phone]"));
    out
}

/// A full-width form (U+FF01–U+FF5E) as its ASCII one, the ideographic space as a space, and
/// the dashes the patterns accept as `-`.
fn fold(c: char) -> char {
    match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(u32::from(c) - 0xFEE0).unwrap_or(c),
        '\u{3000}' => ' ',
        '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{30FC}' => '-',
        _ => c,
    }
}

fn folded(s: &str) -> String {
    s.chars().map(fold).collect()
}

/// A Latin letter or a digit, ASCII or full-width: what a candidate may not touch.
fn latin_or_digit(c: char) -> bool {
    fold(c).is_ascii_alphanumeric()
}

/// Nothing Latin or numeric right after `m` in `text` (the end of a word boundary, which CJK
/// text, written without spaces, does not give).
fn ends_alone(text: &str, m: Option<regex::Match<'_>>) -> bool {
    m.is_some_and(|m| !text[m.end()..].chars().next().is_some_and(latin_or_digit))
}

/// [`ends_alone`], and nothing Latin or numeric right before `m` either.
fn stands_alone(text: &str, m: Option<regex::Match<'_>>) -> bool {
    ends_alone(text, m) && m.is_some_and(|m| !text[..m.start()].chars().next_back().is_some_and(latin_or_digit))
}

/// Replaces each match `label` names (its candidate: group 2 when the pattern has one, else the
/// whole match) with the label, keeping what precedes the candidate. `label` sees the match and
/// the whole text.
fn replace(
    out: &mut Cow<'_, str>,
    pattern: &Regex,
    label: impl Fn(&regex::Captures<'_>, &str) -> Option<&'static str>,
) {
    if !pattern.is_match(out) {
        return;
    }
    let text: &str = out;
    let replaced = pattern.replace_all(text, |c: &regex::Captures<'_>| match label(c, text) {
        Some(l) => match c.get(1) {
            Some(prefix) if c.get(2).is_some() => format!("{}{l}", prefix.as_str()),
            _ => l.to_owned(),
        },
        None => c[0].to_owned(),
    });
    if let Cow::Owned(s) = replaced {
        *out = Cow::Owned(s);
    }
}

fn digits(s: &str) -> Vec<u32> {
    s.chars().filter_map(|c| c.to_digit(10)).collect()
}

/// Luhn-valid, and written as cards are: all digits together, or in their usual groups (4-4-4-4,
/// 4-4-4-4-3, 4-6-5 and 4-6-4).
fn is_card(s: &str) -> bool {
    let groups: Vec<usize> = s.split([' ', '-']).map(str::len).collect();
    let shaped =
        groups.len() == 1 || [&[4, 4, 4, 4][..], &[4, 4, 4, 4, 3], &[4, 6, 5], &[4, 6, 4]].contains(&groups.as_slice());
    shaped && luhn_checks(s)
}

fn luhn_checks(s: &str) -> bool {
    let d = digits(s);
    if !(13..=19).contains(&d.len()) {
        return false;
    }
    let sum: u32 = d
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &x)| if i % 2 == 1 { if x * 2 > 9 { x * 2 - 9 } else { x * 2 } } else { x })
        .sum();
    sum.is_multiple_of(10)
}

fn iban_checks(s: &str) -> bool {
    let compact: Vec<char> = s.chars().filter(|c| !c.is_whitespace()).collect();
    if !(15..=34).contains(&compact.len()) {
        return false;
    }
    // Move the first four characters to the end, letters to 10..35, then mod 97 must be 1.
    let rotated = compact[4..].iter().chain(&compact[..4]);
    let mut rem: u32 = 0;
    for c in rotated {
        let v = match c.to_digit(36) {
            Some(v) => v,
            None => return false,
        };
        rem = if v < 10 { (rem * 10 + v) % 97 } else { (rem * 100 + v) % 97 };
    }
    rem == 1
}

fn is_phone(m: &str) -> bool {
    let n = digits(m).len();
    if !(7..=15).contains(&n) {
        return false;
    }
    let plus = m.starts_with('+');
    let groups: Vec<&str> =
        m.trim_start_matches('+').split([' ', '-', '.', '(', ')']).filter(|g| !g.is_empty()).collect();
    if !plus && groups.len() < 2 {
        return false;
    }
    let seps: Vec<char> = m.chars().filter(|c| matches!(c, ' ' | '-' | '.')).collect();
    let one_sep = seps.windows(2).all(|w| w[0] == w[1]);
    let lens: Vec<usize> = groups.iter().map(|g| g.len()).collect();
    // A date: 4-2-2 or 2-2-4 joined by one separator.
    let date = groups.len() == 3 && one_sep && (lens == [4, 2, 2] || lens == [2, 2, 4]);
    // An IPv4 address: four dot-joined groups of 1-3 digits.
    let ipv4 = groups.len() == 4 && seps.iter().all(|&c| c == '.') && lens.iter().all(|&l| l <= 3);
    // A number in thousands: 1-3 digits, then groups of exactly 3, one separator.
    let thousands = !plus && one_sep && lens[0] <= 3 && lens[1..].iter().all(|&l| l == 3);
    plus || !(date || ipv4 || thousands)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn personal_data_is_replaced() {
        for (text, expected) in [
            ("mail me at jane.doe+test@example.co.uk please", "mail me at [email] please"),
            ("card 4111 1111 1111 1111 exp 12/27", "card [card] exp 12/27"),
            ("4111-1111-1111-1111", "[card]"),
            ("4111111111111111", "[card]"),
            ("IBAN DE89 3704 0044 0532 0130 00 thanks", "IBAN [iban] thanks"),
            ("GB82WEST12345698765432", "[iban]"),
            ("call +33 6 12 34 56 78", "call [phone]"),
            ("call +1 (555) 123-4567 now", "call [phone] now"),
            ("ring 555-123-4567", "ring [phone]"),
            ("06 12 34 56 78", "[phone]"),
            ("+4915112345678", "[phone]"),
        ] {
            assert_eq!(redact(text), expected, "{text}");
        }
    }

    #[test]
    fn what_support_conversations_are_full_of_survives() {
        for text in [
            "order 12345678 has not arrived",
            "ticket #884213377",
            "on 2024-01-15 and 15.01.2024 and 01/15/2024",
            "version 1.22.3, build 10.15.7",
            "server 192.168.100.200 is down",
            "it costs 1 000 000 or 10.000.000 or 1,250,000",
            "4111 1111 1111 1112 is not a card (Luhn)",
            "DE89 3704 0044 0532 0130 01 fails its check",
            "a@b is not an address",
            "the year 2024, page 12",
        ] {
            assert_eq!(redact(text), text, "{text}");
        }
        assert!(matches!(redact("nothing here"), Cow::Borrowed(_)));
    }

    #[test]
    fn full_width_digits_and_separators_are_personal_data_too() {
        for (text, expected) in [
            ("カード番号は４１１１　１１１１　１１１１　１１１１です", "カード番号は[card]です"),
            ("４１１１－１１１１－１１１１－１１１１", "[card]"),
            ("カード４１１１１１１１１１１１１１１１で払いました", "カード[card]で払いました"),
            ("５５００ー００００ー００００ー０００４", "[card]"),
            ("電話は０９０－１２３４－５６７８です", "電話は[phone]です"),
            ("電話：＋８１　９０　１２３４　５６７８", "電話：[phone]"),
            ("（０３）１２３４－５６７８まで", "[phone]まで"),
            ("口座ＤＥ８９　３７０４　００４４　０５３２　０１３０　００です", "口座[iban]です"),
            ("IBAN DE８９ ３７０４ ００４４ ０５３２ ０１３０ ００", "IBAN [iban]"),
            ("4111 1111 1111 1111です", "[card]です"),
        ] {
            assert_eq!(redact(text), expected, "{text}");
        }
    }

    #[test]
    fn full_width_numbers_that_are_not_personal_data_survive() {
        for text in [
            "２０２４－０１－１５に届きました",
            "１５．０１．２０２４",
            "２０２４年１月１５日",
            "注文番号４１１１　１１１１　１１１１　１１１２",
            "注文番号１２３４５６７８",
            "価格は１　０００　０００円",
            "ＤＥ８９　３７０４　００４４　０５３２　０１３０　０１",
            "ref４１１１１１１１１１１１１１１１",
            "４１１１１１１１１１１１１１１１Ｘ",
        ] {
            assert_eq!(redact(text), text, "{text}");
        }
    }
}
