//! Plain text and Markdown: charset detection and decoding, newline and whitespace normalisation.
//! The whitespace helpers are shared by the other formats.

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{DecoderResult, Encoding, UTF_8};

/// How much of a file the sniffer looks at. Enough to judge an encoding, cheap on a 50 MB upload.
pub(crate) const SNIFF_SAMPLE_BYTES: usize = 64 * 1024;
/// How much of a file feeds the charset detector when the whole file is decoded.
const DETECT_SAMPLE_BYTES: usize = 1024 * 1024;

/// Text of a `.txt` upload: decoded, newlines normalised. Plain text has no title.
pub(crate) fn extract_text(bytes: &[u8]) -> (String, Option<String>) {
    (clean_text(&decode(bytes)), None)
}

/// Text of a `.md` upload: kept as Markdown; the title is the first level-one ATX heading.
pub(crate) fn extract_markdown(bytes: &[u8]) -> (String, Option<String>) {
    let text = clean_text(&decode(bytes));
    let title = markdown_title(&text);
    (text, title)
}

/// Decodes a whole file: byte-order mark first, then UTF-8 when valid, then the charset the
/// detector guesses. Undecodable bytes become U+FFFD; the BOM is removed.
pub(crate) fn decode(bytes: &[u8]) -> String {
    if let Some((encoding, bom_len)) = Encoding::for_bom(bytes) {
        return encoding.decode_without_bom_handling(&bytes[bom_len..]).0.into_owned();
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return text.to_owned();
    }
    let encoding = detect_legacy(&bytes[..bytes.len().min(DETECT_SAMPLE_BYTES)], bytes.len() <= DETECT_SAMPLE_BYTES);
    encoding.decode_without_bom_handling(bytes).0.into_owned()
}

/// The legacy encoding chardetng guesses for bytes that are not UTF-8.
pub(crate) fn detect_legacy(sample: &[u8], is_whole_input: bool) -> &'static Encoding {
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    detector.feed(sample, is_whole_input);
    detector.guess(None, Utf8Detection::Allow)
}

/// The text a sniffer sees, when the bytes are text: decodable without errors (BOM-marked
/// UTF-8/UTF-16, UTF-8, or a detected legacy charset) and free of NUL and binary control
/// characters. Only a prefix is examined.
pub(crate) fn sniff_text(bytes: &[u8]) -> Option<String> {
    let truncated = bytes.len() > SNIFF_SAMPLE_BYTES;
    let sample = &bytes[..bytes.len().min(SNIFF_SAMPLE_BYTES)];
    let text = if let Some((encoding, bom_len)) = Encoding::for_bom(sample) {
        let mut body = &sample[bom_len..];
        if truncated && encoding != UTF_8 && body.len() % 2 == 1 {
            body = &body[..body.len() - 1];
        }
        decode_strict(encoding, body, !truncated)?
    } else {
        match std::str::from_utf8(sample) {
            Ok(text) => text.to_owned(),
            // A multi-byte sequence cut by the sample boundary is not an error.
            Err(e) if truncated && e.error_len().is_none() => {
                std::str::from_utf8(&sample[..e.valid_up_to()]).ok()?.to_owned()
            }
            Err(_) => {
                let encoding = detect_legacy(sample, !truncated);
                decode_strict(encoding, sample, !truncated)?
            }
        }
    };
    is_textual(&text).then_some(text)
}

/// Decodes without replacement; `None` when a byte sequence is malformed in `encoding`.
fn decode_strict(encoding: &'static Encoding, bytes: &[u8], last: bool) -> Option<String> {
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let capacity = decoder.max_utf8_buffer_length_without_replacement(bytes.len())?;
    let mut out = String::with_capacity(capacity);
    let (result, _read) = decoder.decode_to_string_without_replacement(bytes, &mut out, last);
    match result {
        DecoderResult::InputEmpty => Some(out),
        DecoderResult::Malformed(..) | DecoderResult::OutputFull => None,
    }
}

/// Control characters that do not occur in text: C0 except tab, LF, FF, CR; DEL; C1.
fn is_binary_control(c: char) -> bool {
    matches!(c, '\0'..='\u{8}' | '\u{b}' | '\u{e}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
}

/// No NUL at all; other binary control characters at most one in a thousand (stray DOS EOF
/// markers and escape sequences occur in real text files; binary formats have far more).
fn is_textual(text: &str) -> bool {
    let mut chars = 0usize;
    let mut controls = 0usize;
    for c in text.chars() {
        if c == '\0' {
            return false;
        }
        chars += 1;
        if is_binary_control(c) {
            controls += 1;
        }
    }
    controls * 1000 <= chars
}

/// Whether plain text is written in Markdown: an ATX heading, a fenced code block or an inline
/// link make it Markdown; so do two list items.
pub(crate) fn has_markdown_structure(text: &str) -> bool {
    let mut list_items = 0;
    for line in text.lines() {
        let line = line.trim_start();
        if atx_heading(line).is_some() || line.starts_with("```") || line.starts_with("~~~") {
            return true;
        }
        if has_inline_link(line) {
            return true;
        }
        if is_list_item(line) {
            list_items += 1;
            if list_items >= 2 {
                return true;
            }
        }
    }
    false
}

/// `(level, text)` of an ATX heading line (`# Title`, `## Part ##`).
fn atx_heading(line: &str) -> Option<(usize, &str)> {
    let level = line.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &line[level..];
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let text = rest.trim().trim_end_matches('#').trim_end();
    Some((level, text))
}

fn is_list_item(line: &str) -> bool {
    if let Some(rest) = line.strip_prefix(['-', '*', '+']) {
        return rest.starts_with(' ') && !rest.trim().is_empty();
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && digits <= 9 && (line[digits..].starts_with(". ") || line[digits..].starts_with(") "))
}

/// `[text](target)` somewhere in the line.
fn has_inline_link(line: &str) -> bool {
    let mut rest = line;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        match after.find("](") {
            Some(close) if close > 0 && !after[..close].contains(['[', ']']) => {
                return after[close + 2..].contains(')');
            }
            _ => rest = after,
        }
    }
    false
}

/// The first level-one ATX heading of a Markdown text, outside fenced code blocks.
pub(crate) fn markdown_title(text: &str) -> Option<String> {
    let mut in_fence = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || line.len() - trimmed.len() > 3 {
            continue;
        }
        if let Some((1, title)) = atx_heading(trimmed)
            && !title.is_empty()
        {
            return Some(title.to_owned());
        }
    }
    None
}

/// Newlines to LF (CRLF and lone CR), NUL and binary control characters removed, trailing
/// whitespace of the document removed. Spaces and indentation are kept (Markdown needs them).
pub(crate) fn clean_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push('\n');
            }
            '\u{feff}' if out.is_empty() => {}
            c if is_binary_control(c) => {}
            c => out.push(c),
        }
    }
    out.truncate(out.trim_end().len());
    out
}

/// Whitespace of extracted text (PDF, DOCX, HTML): runs of spaces and tabs become one space,
/// lines are trimmed, runs of blank lines become one blank line (a paragraph break), and NUL
/// and control characters are dropped.
pub(crate) fn collapse_whitespace(text: &str) -> String {
    let mut collapser = Collapser::default();
    collapser.push_str(text);
    collapser.finish()
}

/// [`collapse_whitespace`] over text that arrives in pieces, so that a producer's output can be
/// capped by its collapsed length.
#[derive(Default)]
pub(crate) struct Collapser {
    out: String,
    pending_space: bool,
    /// Line breaks since the last visible character.
    newlines: usize,
}

impl Collapser {
    pub(crate) fn push_str(&mut self, text: &str) {
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            // A run of visible ASCII (most of any text) is copied whole.
            let run = rest.bytes().take_while(|b| b.is_ascii_graphic()).count();
            if run > 0 {
                self.separate();
                self.out.push_str(&rest[..run]);
                rest = &rest[run..];
                continue;
            }
            rest = &rest[c.len_utf8()..];
            if matches!(c, '\n' | '\r' | '\u{b}' | '\u{c}') {
                self.newlines += 1;
                self.pending_space = false;
            } else if c.is_whitespace() {
                self.pending_space = true;
            } else if is_binary_control(c) || c == '\u{feff}' {
                continue;
            } else {
                self.separate();
                self.out.push(c);
            }
        }
    }

    /// Before a visible character: the space or line breaks that collapsed whitespace leaves.
    fn separate(&mut self) {
        if !self.out.is_empty() {
            match self.newlines {
                0 if self.pending_space => self.out.push(' '),
                0 => {}
                1 => self.out.push('\n'),
                _ => self.out.push_str("\n\n"),
            }
        }
        self.newlines = 0;
        self.pending_space = false;
    }

    /// Length of the collapsed text so far, in bytes.
    pub(crate) fn len(&self) -> usize {
        self.out.len()
    }

    pub(crate) fn finish(self) -> String {
        self.out
    }
}

/// One line, whitespace collapsed: for titles.
pub(crate) fn single_line(text: &str) -> String {
    let mut line = String::with_capacity(text.len());
    push_collapsed(&mut line, text, false);
    line
}

/// Appends `text` to `out` with each run of whitespace made one space, none at either end; with
/// `keep_breaks`, a run holding a line break (`\n`) becomes one line break instead. Whether
/// anything was appended.
pub(crate) fn push_collapsed(out: &mut String, text: &str, keep_breaks: bool) -> bool {
    let start = out.len();
    let (mut space, mut line_break) = (false, false);
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        // Visible ASCII (most text) is copied a run at a time, anything else a character.
        let run = rest.bytes().take_while(u8::is_ascii_graphic).count();
        let len = if run > 0 {
            run
        } else {
            let c = rest.chars().next().unwrap_or_default();
            if c == '\n' && keep_breaks {
                line_break = true;
                at += 1;
                continue;
            }
            if c.is_whitespace() {
                space = true;
                at += c.len_utf8();
                continue;
            }
            c.len_utf8()
        };
        if out.len() > start {
            if line_break {
                out.push('\n');
            } else if space {
                out.push(' ');
            }
        }
        (space, line_break) = (false, false);
        out.push_str(&rest[..len]);
        at += len;
    }
    out.len() > start
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_collapses_within_lines_and_breaks_are_kept_once() {
        let collapsed = |text: &str, keep_breaks: bool| {
            let mut out = String::from(">");
            let wrote = push_collapsed(&mut out, text, keep_breaks);
            (out, wrote)
        };
        assert_eq!(collapsed("  a \t b\u{a0}c  ", true), (">a b c".to_owned(), true));
        assert_eq!(collapsed(" a \n\n  \n b\n", true), (">a\nb".to_owned(), true));
        assert_eq!(collapsed(" a \n b", false), (">a b".to_owned(), true));
        assert_eq!(collapsed("Größe  日本\r\n語", true), (">Größe 日本\n語".to_owned(), true));
        assert_eq!(collapsed(" \n\t ", true), (">".to_owned(), false));
    }

    #[test]
    fn decodes_boms_utf8_and_legacy() {
        assert_eq!(decode(b"\xef\xbb\xbfhello"), "hello");
        assert_eq!(decode(b"\xff\xfeh\0i\0"), "hi");
        assert_eq!(decode(b"\xfe\xff\0h\0i"), "hi");
        assert_eq!(decode("naïve".as_bytes()), "naïve");
        assert_eq!(decode(b"Caf\xe9 na\xefve"), "Café naïve");
    }

    #[test]
    fn sniff_text_rejects_nul_and_control_heavy_bytes() {
        assert!(sniff_text(b"plain words\n").is_some());
        assert!(sniff_text(b"abc\0def").is_none());
        assert!(sniff_text(&[0x01, 0x02, 0x03, b'a', b'b']).is_none());
        assert!(sniff_text(b"\xff\xfeh\0i\0").is_some(), "UTF-16LE with BOM is text");
    }

    #[test]
    fn sniff_text_tolerates_a_multibyte_char_cut_by_the_sample() {
        let mut bytes = vec![b'a'; SNIFF_SAMPLE_BYTES - 1];
        bytes.extend_from_slice("é and more".as_bytes());
        assert!(sniff_text(&bytes).is_some());
    }

    #[test]
    fn markdown_structure() {
        assert!(has_markdown_structure("intro\n## Section\ntext"));
        assert!(has_markdown_structure("see [the docs](https://example.com) now"));
        assert!(has_markdown_structure("- one\n- two\n"));
        assert!(!has_markdown_structure("#hashtag is not a heading\njust - a dash"));
        assert!(!has_markdown_structure("a [bracket] and (parens)"));
    }

    #[test]
    fn markdown_title_is_the_first_h1_outside_code() {
        let md = "```\n# not this\n```\n## sub\n# Real Title #\n# second";
        assert_eq!(markdown_title(md).as_deref(), Some("Real Title"));
        assert_eq!(markdown_title("no heading"), None);
    }

    #[test]
    fn clean_text_normalises_newlines_and_drops_controls() {
        assert_eq!(clean_text("\u{feff}a\r\nb\rc\0d\u{1}\n\n  "), "a\nb\ncd");
        assert_eq!(clean_text("  indented\n    code"), "  indented\n    code");
    }

    #[test]
    fn collapse_whitespace_keeps_paragraph_breaks() {
        assert_eq!(collapse_whitespace("  a \t  b  \n\n\n\nc\nd\0e  \n"), "a b\n\nc\nde");
        assert_eq!(collapse_whitespace("a\r\nb \n \n c"), "a\n\nb\n\nc");
    }

    #[test]
    fn collapsing_in_pieces_equals_collapsing_at_once() {
        let text = "  Title  \n\n\n  first   line \n second\tline\r\n\r\nnext  para ";
        let mut collapser = Collapser::default();
        for piece in text.split_inclusive([' ', 'n']) {
            collapser.push_str(piece);
        }
        assert_eq!(collapser.finish(), collapse_whitespace(text));
    }
}
