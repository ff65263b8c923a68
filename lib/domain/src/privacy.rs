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

use regex::Regex;
use std::borrow::Cow;
use std::sync::LazyLock;

static EMAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}")
        .expect("a valid pattern")
});
static IBAN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]){11,30}\b").expect("a valid pattern"));
/// Digits with single spaces or dashes between them (card candidates), not right after a `+`
/// (an international phone number) or a letter (a reference); group 1 is what precedes it.
static CARD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(^|[^+0-9A-Za-z\-])([0-9](?:[ \-]?[0-9]){12,18})\b").expect("a valid pattern"));
/// A run of digit groups joined by separators, optionally after `+` (phone candidates).
static PHONE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:\+\s?)?(?:\([0-9]{1,5}\)\s?)?[0-9]+(?:[ .\-]?(?:\([0-9]{1,5}\)|[0-9]+))*").expect("a valid pattern")
});

/// `text` with the personal data above replaced; borrowed when nothing was found.
pub fn redact(text: &str) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(text);
    replace(&mut out, &EMAIL, |_| Some("[email]"));
    replace(&mut out, &IBAN, |c| iban_checks(&c[0]).then_some("[iban]"));
    replace(&mut out, &CARD, |c| is_card(&c[2]).then_some("[card]"));
    replace(&mut out, &PHONE, |c| is_phone(&c[0]).then_some("[phone]"));
    out
}

/// Replaces each match `label` names (its candidate: group 2 when the pattern has one, else the
/// whole match) with the label, keeping what precedes the candidate.
fn replace(out: &mut Cow<'_, str>, pattern: &Regex, label: impl Fn(&regex::Captures<'_>) -> Option<&'static str>) {
    if !pattern.is_match(out) {
        return;
    }
    let replaced = pattern.replace_all(out, |c: &regex::Captures<'_>| match label(c) {
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
}
