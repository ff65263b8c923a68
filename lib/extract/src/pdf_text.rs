//! What pdf-extract's characters become as text: a separator wherever two text runs are apart on
//! the page ([`SpacedOutput`]), then a clean-up of the typesetting artefacts a PDF's text layer
//! keeps ([`tidy`]): spacing accents set before their letter (pdfTeX's `Br¨oker`), decomposed
//! characters (Unicode NFC) and words hyphenated at line ends (`pack-\nages`).

use crate::text::Collapser;
use pdf_extract::{MediaBox, OutputDev, OutputError, Transform};
use std::collections::HashSet;
use unicode_normalization::UnicodeNormalization;

/// pdf-extract's characters, written as text with a space or a line break between runs that are
/// apart on the page, whitespace collapsed as it arrives and capped.
///
/// pdf-extract's own `PlainTextOutput` only looks at where a run starts relative to where the
/// previous one ended when it moves right or down by a line; a run that starts to the *left* of
/// the previous end on the same line (a running head drawn after the page number, a column
/// after its neighbour, text placed out of reading order) and the first run of a new page are
/// glued onto the previous word. Here those get a separator too.
pub(crate) struct SpacedOutput {
    text: Collapser,
    cap: usize,
    pub(crate) exceeded: bool,
    /// Where the previous character ended (x) and its baseline (y), in device space.
    last_end: f64,
    last_y: f64,
    /// Set by pdf-extract at the start of each text-showing operation: separators are decided
    /// there only. Within one operation the font's spacing is the typesetter's (checking every
    /// character would put spaces inside kerned words, whose widths are approximate).
    run_start: bool,
    /// No character yet on this page: the next one starts on a new line.
    page_start: bool,
}

/// A run that starts this far (in font sizes) left of the previous end, on the same line, is a
/// separate run. pdfTeX moves back by about half a font size to put an accent over its letter,
/// which must stay joined.
const BACKWARD_GAP: f64 = 1.0;

impl SpacedOutput {
    pub(crate) fn new(cap: usize) -> Self {
        Self {
            text: Collapser::default(),
            cap,
            exceeded: false,
            last_end: 0.0,
            last_y: 0.0,
            run_start: false,
            page_start: true,
        }
    }

    fn push(&mut self, text: &str) -> Result<(), OutputError> {
        self.text.push_str(text);
        if self.text.len() > self.cap {
            self.exceeded = true;
            return Err(OutputError::IoError(std::io::Error::other("output cap reached")));
        }
        Ok(())
    }

    pub(crate) fn finish(self) -> String {
        self.text.finish()
    }
}

impl OutputDev for SpacedOutput {
    fn begin_page(&mut self, _: u32, _: &MediaBox, _: Option<(f64, f64, f64, f64)>) -> Result<(), OutputError> {
        self.page_start = true;
        Ok(())
    }

    fn end_page(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn output_character(&mut self, trm: &Transform, width: f64, _: f64, size: f64, c: &str) -> Result<(), OutputError> {
        // The text rendering matrix maps text space to the device: its translation is the
        // character's origin, its linear part scales the font size (as PlainTextOutput does).
        let (x, y) = (trm.m31, trm.m32);
        let scaled = ((size * (trm.m11 + trm.m21)) * (size * (trm.m12 + trm.m22))).abs().sqrt();
        if self.page_start {
            self.push("\n")?;
        } else if self.run_start {
            let dy = (y - self.last_y).abs();
            // As PlainTextOutput: a line break for a jump of more than a line and one for a
            // move back and down, both (a paragraph break) for a jump back to a new paragraph.
            let far_down = dy > scaled * 1.5;
            let back_and_down = x < self.last_end && dy > scaled * 0.5;
            let separator = match (far_down, back_and_down) {
                (true, true) => "\n\n",
                (true, false) | (false, true) => "\n",
                (false, false) if x > self.last_end + scaled * 0.1 => " ",
                // New here: a run that starts well left of the previous end on the same line.
                (false, false) if x < self.last_end - scaled * BACKWARD_GAP => " ",
                (false, false) => "",
            };
            self.push(separator)?;
        }
        self.push(c)?;
        self.page_start = false;
        self.run_start = false;
        self.last_y = y;
        self.last_end = x + width * scaled;
        Ok(())
    }

    fn begin_word(&mut self) -> Result<(), OutputError> {
        self.run_start = true;
        Ok(())
    }

    fn end_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_line(&mut self) -> Result<(), OutputError> {
        Ok(())
    }
}

/// The extracted text with accents composed, in NFC, and line-end hyphenation undone.
pub(crate) fn tidy(text: &str) -> String {
    dehyphenate(&compose_accents(text))
}

/// The combining mark of a spacing accent, as TeX fonts draw them on their own.
fn combining_mark(accent: char) -> Option<char> {
    Some(match accent {
        '\u{a8}' => '\u{308}',  // ¨ diaeresis
        '\u{b4}' => '\u{301}',  // ´ acute
        '`' => '\u{300}',       // ` grave
        '\u{2c6}' => '\u{302}', // ˆ circumflex
        '\u{2dc}' => '\u{303}', // ˜ tilde
        '\u{af}' => '\u{304}',  // ¯ macron
        '\u{2d8}' => '\u{306}', // ˘ breve
        '\u{2d9}' => '\u{307}', // ˙ dot above
        '\u{2da}' => '\u{30a}', // ˚ ring
        '\u{2dd}' => '\u{30b}', // ˝ double acute
        '\u{2c7}' => '\u{30c}', // ˇ caron
        '\u{b8}' => '\u{327}',  // ¸ cedilla
        '\u{2db}' => '\u{328}', // ˛ ogonek
        _ => return None,
    })
}

/// Puts spacing accents back onto their letter and normalises to NFC. pdfTeX's `\accent` draws
/// the accent glyph first, then the letter (`Br¨oker`, sometimes `Br¨ oker` when the placement
/// reads as a gap); accents hung below a letter (cedilla, ogonek) come after it (`c¸`). An
/// accent is composed only when Unicode has the accented letter as one character, so a lone
/// `´` used as an apostrophe stays. The backtick is also a code quote, so it is composed only
/// inside a word (`pr`es`), never after a space.
fn compose_accents(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // Bytes of `text` up to `copied` are in `out`; the text between accents is copied whole.
    let mut copied = 0;
    while let Some(at) = next_accent(text, copied) {
        out.push_str(&text[copied..at]);
        let c = text[at..].chars().next().unwrap_or_default();
        let Some(mark) = combining_mark(c) else { break };
        let after_accent = at + c.len_utf8();
        copied = after_accent;
        let previous_is_letter = text[..at].chars().next_back().is_some_and(char::is_alphabetic);
        // The letter after the accent, allowing one space between them (not for the backtick).
        let mut rest = text[after_accent..].chars();
        let next = match rest.next() {
            Some(' ') if c != '`' => rest.next().map(|l| (l, after_accent + 1 + l.len_utf8())),
            Some(l) => Some((l, after_accent + l.len_utf8())),
            None => None,
        };
        let after = next
            .filter(|_| c != '`' || previous_is_letter)
            .and_then(|(letter, end)| unicode_normalization::char::compose(letter, mark).map(|a| (a, end)));
        if let Some((accented, end)) = after {
            out.push(accented);
            copied = end;
            continue;
        }
        if matches!(c, '\u{b8}' | '\u{2db}')
            && let Some(letter) = out.pop()
        {
            match unicode_normalization::char::compose(letter, mark) {
                Some(accented) => out.push(accented),
                None => {
                    out.push(letter);
                    out.push(c);
                }
            }
            continue;
        }
        out.push(c);
    }
    out.push_str(&text[copied..]);
    // Most text is ASCII, which is NFC as it is.
    if out.is_ascii() || unicode_normalization::is_nfc_quick(out.chars()) == unicode_normalization::IsNormalized::Yes {
        out
    } else {
        out.nfc().collect()
    }
}

/// Where the next spacing accent at or after byte `from` is. Every accent but the backtick is
/// outside ASCII, so runs of other ASCII bytes (most of any text) are skipped without decoding.
fn next_accent(text: &str, from: usize) -> Option<usize> {
    let mut at = from;
    loop {
        at += text.as_bytes()[at..].iter().position(|&b| b == b'`' || !b.is_ascii())?;
        let c = text[at..].chars().next()?;
        if combining_mark(c).is_some() {
            return Some(at);
        }
        at += c.len_utf8();
    }
}

/// Hyphens that end a line when a word is broken there.
fn is_hyphen(c: char) -> bool {
    matches!(c, '-' | '\u{2010}' | '\u{ad}')
}

/// Undoes hyphenation at line ends: `pack-\nages` becomes `packages`. A typesetter breaks a
/// word at a syllable and adds the hyphen, but it also breaks real compounds after their own
/// hyphen, and the text layer cannot tell them apart. Without a dictionary, the document is its
/// own: the break is joined into `left-right` (hyphen kept) when that compound occurs elsewhere
/// in the text, into `leftright` when that word occurs elsewhere, else into `leftright` when
/// both sides are lowercase letters (a syllable break) and into `left-right` otherwise (`R-\nproject`,
/// `Fortran-\n77`). A soft hyphen (U+00AD) is always a syllable break.
fn dehyphenate(text: &str) -> String {
    if !text.contains("-\n") && !text.contains("\u{2010}\n") && !text.contains("\u{ad}\n") {
        return text.to_owned();
    }
    let (words, compounds) = vocabulary(text);
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if !is_hyphen(c) || !text[i + c.len_utf8()..].starts_with('\n') {
            continue;
        }
        let left_start = text[..i]
            .rfind(|ch: char| !ch.is_alphanumeric())
            .map_or(0, |p| p + text[p..].chars().next().map_or(1, char::len_utf8));
        let right_start = i + c.len_utf8() + 1;
        let right_end =
            text[right_start..].find(|ch: char| !ch.is_alphanumeric()).map_or(text.len(), |p| right_start + p);
        let (left, right) = (&text[left_start..i], &text[right_start..right_end]);
        if left.is_empty() || right.is_empty() {
            continue;
        }
        let (left_lower, right_lower) = (left.to_lowercase(), right.to_lowercase());
        let keep_hyphen = if c == '\u{ad}' {
            false
        } else if compounds.contains(&format!("{left_lower}-{right_lower}")) {
            true
        } else if words.contains(&format!("{left_lower}{right_lower}")) {
            false
        } else {
            let left_last = left.chars().next_back().is_some_and(char::is_lowercase);
            let right_first = right.chars().next().is_some_and(char::is_lowercase);
            !(left_last && right_first)
        };
        out.push_str(&text[copied..i]);
        if keep_hyphen {
            out.push(c);
        }
        copied = right_start;
        // The newline is consumed with the hyphen.
        chars.next();
    }
    out.push_str(&text[copied..]);
    out
}

/// The lowercase words of `text` and its hyphenated compounds (`well-known`, with the hyphen
/// inside a line), for [`dehyphenate`] to look up.
fn vocabulary(text: &str) -> (HashSet<String>, HashSet<String>) {
    let mut words = HashSet::new();
    let mut compounds = HashSet::new();
    // The previous word, and whether only one hyphen (within the line) stands between it and
    // the current position.
    let mut previous: Option<&str> = None;
    let mut hyphen_after_previous = false;
    let mut word_start: Option<usize> = None;
    for (i, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        if c.is_alphanumeric() {
            word_start.get_or_insert(i);
            continue;
        }
        if let Some(start) = word_start.take() {
            let word = &text[start..i];
            if hyphen_after_previous && let Some(previous) = previous {
                compounds.insert(format!("{}-{}", previous.to_lowercase(), word.to_lowercase()));
            }
            words.insert(word.to_lowercase());
            previous = Some(word);
            hyphen_after_previous = is_hyphen(c) && c != '\u{ad}';
        } else {
            hyphen_after_previous = false;
        }
    }
    (words, compounds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_end_hyphens_join_syllables_and_keep_compounds() {
        assert_eq!(dehyphenate("R pack-\nages are installed"), "R packages are installed");
        assert_eq!(dehyphenate("a well-\nknown fact; well-known again"), "a well-known fact; well-known again");
        assert_eq!(dehyphenate("the con-\nsole and the console"), "the console and the console");
        assert_eq!(dehyphenate("the R-\nproject"), "the R-project", "not lowercase on both sides");
        assert_eq!(dehyphenate("Fortran-\n77"), "Fortran-77");
        assert_eq!(dehyphenate("soft\u{ad}\nware"), "software");
        assert_eq!(dehyphenate("a list -\nitem"), "a list -\nitem", "a dash after a space is no hyphen");
        assert_eq!(dehyphenate("end-\n\nNext"), "end-\n\nNext", "a paragraph break is no line end");
        assert_eq!(dehyphenate("Über-\nmäßig"), "Übermäßig");
    }

    #[test]
    fn spacing_accents_compose_onto_their_letter() {
        assert_eq!(compose_accents("Hans-Bernhard Br\u{a8}oker"), "Hans-Bernhard Bröker");
        assert_eq!(compose_accents("Br\u{a8} oker"), "Bröker");
        assert_eq!(
            compose_accents("r\u{b4}esum\u{b4}e, pr`es, Fran\u{b8}cais, fa c\u{b8}ade"),
            "résumé, près, Français, fa çade"
        );
        assert_eq!(compose_accents("\u{2c6}ete \u{2dc}n \u{2c7}s"), "ête ñ š");
        assert_eq!(compose_accents("don\u{b4}t"), "don\u{b4}t", "no precomposed t-acute");
        assert_eq!(compose_accents("use `a` here"), "use `a` here", "a code quote stays");
        assert_eq!(compose_accents("e\u{301}t\u{e9}"), "été", "NFC");
        // Other non-ASCII text before an accent is skipped over, not mistaken for one.
        assert_eq!(compose_accents("日本 — na\u{ef}ve, \u{a8}u`"), "日本 — naïve, ü`");
    }
}
