//! An answer written in each platform's own formatting (Slack mrkdwn, Telegram HTML, WhatsApp
//! text), its citations as links, cut into pieces the platform accepts.
//!
//! The stored answer is read as a small Markdown: blocks (paragraphs, `#` headings, fenced code)
//! made of inlines (`**bold**`, `*italic*`/`_italic_`, `` `code` ``, `[label](url)` links,
//! `<url>` autolinks, `\` escapes and `[n]` citation markers). Each platform's writer turns
//! them into atoms — a character, an unbreakable unit (an entity, a Slack `<url|label>` link), an
//! opening or a closing of a formatting span — and the pieces are cut between atoms: a span open
//! at a cut is closed at the end of its piece and opened again at the start of the next, so every
//! piece is valid alone (Telegram's tags balanced, Slack's and WhatsApp's `*`/`` ` ``/` ``` `
//! paired). Only `http://` and `https://` URLs become links.

use super::ChannelKind;
use crate::conversation::Citation;
use crate::language::Language;

/// The longest text one platform message may hold, in UTF-16 code units (Telegram counts them;
/// the others count characters, never more).
pub fn max_chars(kind: ChannelKind) -> usize {
    match kind {
        // Slack truncates `text` past 40,000 characters; it advises 4,000 for readability.
        ChannelKind::Slack => 4_000,
        ChannelKind::Telegram => 4_096,
        ChannelKind::Whatsapp => 4_096,
    }
}

/// A URL longer than this stays text: a link is one unbreakable unit of a piece.
const MAX_LINK_URL_CHARS: usize = 1_000;
/// A Slack link's label longer than this stays text (the whole `<url|label>` is unbreakable).
const MAX_SLACK_LABEL_CHARS: usize = 500;

/// `text` (the stored answer: Markdown with `[n]` markers) with its `citations`, as the
/// messages to send, in order; none longer than [`max_chars`]. The list of sources is titled in
/// `language` (the answer's).
pub fn render(kind: ChannelKind, text: &str, citations: &[Citation], language: Language) -> Vec<String> {
    pack(&atoms(kind, text, citations, language), max_chars(kind))
}

fn atoms(kind: ChannelKind, text: &str, citations: &[Citation], language: Language) -> Vec<Atom> {
    let mut w = Writer { kind, citations, sources_title: language.sources_title(), atoms: Vec::new() };
    for (i, block) in parse_blocks(text).iter().enumerate() {
        if i > 0 {
            w.raw("\n\n");
        }
        w.block(block);
    }
    if !citations.is_empty() {
        if !w.atoms.is_empty() {
            w.raw("\n\n");
        }
        w.sources();
    }
    w.atoms
}

// ---------------------------------------------------------------------------------------------
// Reading the Markdown.

#[derive(Debug, Clone, PartialEq)]
enum Block {
    Paragraph(Vec<Inline>),
    Heading(Vec<Inline>),
    Code(String),
}

#[derive(Debug, Clone, PartialEq)]
enum Inline {
    Text(String),
    Bold(Vec<Inline>),
    Italic(Vec<Inline>),
    Code(String),
    /// An `http(s)` link.
    Link {
        label: String,
        url: String,
    },
    /// A `[label](url)` whose URL is not `http(s)`: shown as text.
    LinkText {
        label: String,
        url: String,
    },
    Marker(u32),
}

fn parse_blocks(text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut paragraph: Vec<&str> = Vec::new();
    let flush = |paragraph: &mut Vec<&str>, blocks: &mut Vec<Block>| {
        if !paragraph.is_empty() {
            blocks.push(Block::Paragraph(parse_inlines(paragraph.join("\n").trim())));
            paragraph.clear();
        }
    };
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            flush(&mut paragraph, &mut blocks);
            let mut code: Vec<&str> = Vec::new();
            for line in lines.by_ref() {
                if line.trim_start().starts_with("```") {
                    break;
                }
                code.push(line);
            }
            blocks.push(Block::Code(code.join("\n")));
        } else if trimmed.trim_end().is_empty() {
            flush(&mut paragraph, &mut blocks);
        } else if let Some(title) = heading(trimmed) {
            flush(&mut paragraph, &mut blocks);
            blocks.push(Block::Heading(parse_inlines(title)));
        } else {
            paragraph.push(line.trim_end());
        }
    }
    flush(&mut paragraph, &mut blocks);
    blocks
}

/// The title of a `#`–`######` heading line.
fn heading(line: &str) -> Option<&str> {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    let rest = &line[hashes..];
    let title = rest.trim();
    ((1..=6).contains(&hashes) && rest.starts_with([' ', '\t']) && !title.is_empty()).then_some(title)
}

fn is_http_url(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    let host = lower.strip_prefix("http://").or_else(|| lower.strip_prefix("https://"));
    host.is_some_and(|h| !h.is_empty() && !h.starts_with('/'))
        && url.chars().count() <= MAX_LINK_URL_CHARS
        && !url.chars().any(|c| c.is_whitespace() || c.is_control())
}

fn parse_inlines(s: &str) -> Vec<Inline> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut text = String::new();
    let mut i = 0;
    let push = |out: &mut Vec<Inline>, text: &mut String, inline: Inline| {
        if !text.is_empty() {
            out.push(Inline::Text(std::mem::take(text)));
        }
        out.push(inline);
    };
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && chars.get(i + 1).is_some_and(|n| n.is_ascii_punctuation()) {
            text.push(chars[i + 1]);
            i += 2;
        } else if c == '`' {
            let run = run_len(&chars, i, '`');
            match find_code_end(&chars, i + run, run) {
                Some(end) => {
                    let code: String = chars[i + run..end].iter().collect();
                    let code = match code.strip_prefix(' ').and_then(|c| c.strip_suffix(' ')) {
                        Some(inner) if !inner.trim().is_empty() => inner.to_owned(),
                        _ => code,
                    };
                    push(&mut out, &mut text, Inline::Code(code));
                    i = end + run;
                }
                None => {
                    text.extend(&chars[i..i + run]);
                    i += run;
                }
            }
        } else if (c == '*' || c == '_') && chars.get(i + 1) == Some(&c) {
            match find_strong_end(&chars, i, c) {
                Some(end) => {
                    let inner: String = chars[i + 2..end].iter().collect();
                    push(&mut out, &mut text, Inline::Bold(parse_inlines(&inner)));
                    i = end + 2;
                }
                None => {
                    text.extend(&chars[i..i + 2]);
                    i += 2;
                }
            }
        } else if c == '*' || c == '_' {
            match find_emphasis_end(&chars, i, c) {
                Some(end) => {
                    let inner: String = chars[i + 1..end].iter().collect();
                    push(&mut out, &mut text, Inline::Italic(parse_inlines(&inner)));
                    i = end + 1;
                }
                None => {
                    text.push(c);
                    i += 1;
                }
            }
        } else if c == '[' {
            if let Some((inline, next)) = link_at(&chars, i).or_else(|| marker_at(&chars, i)) {
                push(&mut out, &mut text, inline);
                i = next;
            } else {
                text.push(c);
                i += 1;
            }
        } else if c == '<' {
            // An autolink `<https://…>`.
            let end = chars[i + 1..].iter().position(|&c| c == '>' || c.is_whitespace()).map(|p| i + 1 + p);
            match end {
                Some(end) if chars[end] == '>' && is_http_url(&chars[i + 1..end].iter().collect::<String>()) => {
                    let url: String = chars[i + 1..end].iter().collect();
                    push(&mut out, &mut text, Inline::Link { label: url.clone(), url });
                    i = end + 1;
                }
                _ => {
                    text.push(c);
                    i += 1;
                }
            }
        } else {
            text.push(c);
            i += 1;
        }
    }
    if !text.is_empty() {
        out.push(Inline::Text(text));
    }
    out
}

fn run_len(chars: &[char], from: usize, c: char) -> usize {
    chars[from..].iter().take_while(|&&x| x == c).count()
}

/// Where a run of exactly `run` backticks closing a code span starts.
fn find_code_end(chars: &[char], from: usize, run: usize) -> Option<usize> {
    let mut j = from;
    while j < chars.len() {
        if chars[j] == '`' {
            let n = run_len(chars, j, '`');
            if n == run && j > from {
                return Some(j);
            }
            j += n;
        } else {
            j += 1;
        }
    }
    None
}

/// Whether `c` at `i` may open an emphasis: followed by a non-space, and (for `_`) not inside
/// a word.
fn can_open(chars: &[char], i: usize, width: usize, c: char) -> bool {
    let next_ok = chars.get(i + width).is_some_and(|n| !n.is_whitespace() && *n != c);
    let before_ok = c != '_' || i == 0 || !chars[i - 1].is_alphanumeric();
    next_ok && before_ok
}

fn can_close(chars: &[char], j: usize, width: usize, c: char) -> bool {
    let before_ok = j > 0 && !chars[j - 1].is_whitespace();
    let after_ok = c != '_' || chars.get(j + width).is_none_or(|n| !n.is_alphanumeric());
    before_ok && after_ok
}

/// The closing `**`/`__` of the strong emphasis opened at `i`.
fn find_strong_end(chars: &[char], i: usize, c: char) -> Option<usize> {
    if !can_open(chars, i, 2, c) {
        return None;
    }
    let mut j = i + 3;
    while j + 1 < chars.len() {
        if chars[j] == c && chars[j + 1] == c && can_close(chars, j, 2, c) {
            return Some(j);
        }
        j += 1;
    }
    None
}

/// The closing `*`/`_` of the emphasis opened at `i` (not one of a `**` pair).
fn find_emphasis_end(chars: &[char], i: usize, c: char) -> Option<usize> {
    if !can_open(chars, i, 1, c) {
        return None;
    }
    let mut j = i + 2;
    while j < chars.len() {
        if chars[j] == '`' {
            // A code span inside is skipped whole.
            let run = run_len(chars, j, '`');
            j = find_code_end(chars, j + run, run).map_or(j + run, |e| e + run);
            continue;
        }
        if chars[j] == c {
            if chars.get(j + 1) == Some(&c) {
                j += 2 + run_len(chars, j + 2, c);
                continue;
            }
            if can_close(chars, j, 1, c) {
                return Some(j);
            }
        }
        j += 1;
    }
    None
}

/// A `[label](url)` at `i` and the index after it.
fn link_at(chars: &[char], i: usize) -> Option<(Inline, usize)> {
    let close = i + 1 + chars[i + 1..].iter().position(|&c| c == ']' || c == '[' || c == '\n')?;
    if chars[close] != ']' || close == i + 1 || chars.get(close + 1) != Some(&'(') {
        return None;
    }
    let mut depth = 0usize;
    let mut end = None;
    for (k, &c) in chars.iter().enumerate().skip(close + 2) {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => {
                end = Some(k);
                break;
            }
            ')' => depth -= 1,
            '\n' => return None,
            _ => {}
        }
    }
    let end = end?;
    let label: String = chars[i + 1..close].iter().collect();
    let target: String = chars[close + 2..end].iter().collect();
    // `[label](url "title")`: the title is left out.
    let url = target.split_whitespace().next().unwrap_or("").trim_start_matches('<').trim_end_matches('>').to_owned();
    let label = label.trim().to_owned();
    let inline = if is_http_url(&url) { Inline::Link { label, url } } else { Inline::LinkText { label, url } };
    Some((inline, end + 1))
}

/// A `[n]` citation marker at `i` and the index after it.
fn marker_at(chars: &[char], i: usize) -> Option<(Inline, usize)> {
    let digits = chars[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || digits > 9 || chars.get(i + 1 + digits) != Some(&']') {
        return None;
    }
    let n: String = chars[i + 1..i + 1 + digits].iter().collect();
    Some((Inline::Marker(n.parse().ok()?), i + 2 + digits))
}

// ---------------------------------------------------------------------------------------------
// Writing for a platform.

/// One indivisible step of a rendered answer.
#[derive(Debug, Clone, PartialEq)]
enum Atom {
    Char(char),
    /// Never cut (an entity, a Slack link).
    Unit(String),
    /// A formatting span opens: its opening and the closing it needs.
    Open {
        open: String,
        close: String,
    },
    /// The innermost open span closes.
    Close,
}

impl Atom {
    /// Its length as the platforms count it at worst: UTF-16 code units (Telegram's limit is in
    /// them; an emoji is two), never fewer than its characters.
    fn chars(&self) -> usize {
        match self {
            Atom::Char(c) => c.len_utf16(),
            Atom::Unit(s) | Atom::Open { open: s, .. } => units(s),
            // Counted with the stack that it closes.
            Atom::Close => 0,
        }
    }
}

struct Writer<'a> {
    kind: ChannelKind,
    citations: &'a [Citation],
    sources_title: &'static str,
    atoms: Vec<Atom>,
}

impl Writer<'_> {
    /// Characters as they are (no escaping: separators the writer itself adds).
    fn raw(&mut self, s: &str) {
        self.atoms.extend(s.chars().map(Atom::Char));
    }

    /// Text, escaped as the platform needs.
    fn text(&mut self, s: &str) {
        for c in s.chars() {
            let entity = match (self.kind, c) {
                (ChannelKind::Whatsapp, _) => None,
                (_, '&') => Some("&amp;"),
                (_, '<') => Some("&lt;"),
                (_, '>') => Some("&gt;"),
                _ => None,
            };
            match entity {
                Some(e) => self.atoms.push(Atom::Unit(e.to_owned())),
                None => self.atoms.push(Atom::Char(c)),
            }
        }
    }

    fn open(&mut self, open: &str, close: &str) {
        self.atoms.push(Atom::Open { open: open.to_owned(), close: close.to_owned() });
    }

    fn close(&mut self) {
        self.atoms.push(Atom::Close);
    }

    /// `(open, close)` of bold, italic, inline code and a code block.
    fn marks(&self) -> [(&'static str, &'static str); 4] {
        match self.kind {
            ChannelKind::Telegram => [("<b>", "</b>"), ("<i>", "</i>"), ("<code>", "</code>"), ("<pre>", "</pre>")],
            ChannelKind::Slack | ChannelKind::Whatsapp => [("*", "*"), ("_", "_"), ("`", "`"), ("```\n", "\n```")],
        }
    }

    fn block(&mut self, block: &Block) {
        let [bold, _, _, pre] = self.marks();
        match block {
            Block::Paragraph(inlines) => self.inlines(inlines),
            Block::Heading(inlines) => {
                self.open(bold.0, bold.1);
                self.inlines(inlines);
                self.close();
            }
            Block::Code(code) => {
                self.open(pre.0, pre.1);
                self.text(code);
                self.close();
            }
        }
    }

    fn inlines(&mut self, inlines: &[Inline]) {
        let [bold, italic, code, _] = self.marks();
        for inline in inlines {
            match inline {
                Inline::Text(t) => self.text(t),
                Inline::Bold(inner) => {
                    self.open(bold.0, bold.1);
                    self.inlines(inner);
                    self.close();
                }
                Inline::Italic(inner) => {
                    self.open(italic.0, italic.1);
                    self.inlines(inner);
                    self.close();
                }
                Inline::Code(c) => {
                    self.open(code.0, code.1);
                    self.text(c);
                    self.close();
                }
                Inline::Link { label, url } => self.link(label, url),
                Inline::LinkText { label, url } => {
                    self.text(label);
                    self.text(&format!(" ({url})"));
                }
                Inline::Marker(n) => {
                    let marker = format!("[{n}]");
                    let url = self.citations.iter().find(|c| c.index == *n).and_then(|c| c.url.as_deref());
                    match url.filter(|u| is_http_url(u)) {
                        Some(url) if self.kind != ChannelKind::Whatsapp => self.link(&marker, url),
                        _ => self.text(&marker),
                    }
                }
            }
        }
    }

    /// A link to an `http(s)` URL (checked by the caller).
    fn link(&mut self, label: &str, url: &str) {
        let label = if label.trim().is_empty() { url } else { label };
        match self.kind {
            ChannelKind::Slack if label.chars().count() <= MAX_SLACK_LABEL_CHARS => {
                self.atoms.push(Atom::Unit(format!("<{}|{}>", slack_url(url), slack_escape(label))));
            }
            ChannelKind::Slack | ChannelKind::Whatsapp => {
                if label == url {
                    self.text(url);
                } else {
                    self.text(label);
                    self.text(&format!(" ({url})"));
                }
            }
            ChannelKind::Telegram => {
                self.open(&format!("<a href=\"{}\">", html_attribute(url)), "</a>");
                self.text(label);
                self.close();
            }
        }
    }

    /// The list of sources: a title, then `[n] name` per citation, linked when it has a URL.
    fn sources(&mut self) {
        let [bold, ..] = self.marks();
        self.open(bold.0, bold.1);
        self.raw(self.sources_title);
        self.close();
        let mut citations: Vec<&Citation> = self.citations.iter().collect();
        citations.sort_by_key(|c| c.index);
        for c in citations {
            self.raw(&format!("\n[{}] ", c.index));
            let name = if c.source_name.trim().is_empty() { "source" } else { c.source_name.trim() };
            match c.url.as_deref().filter(|u| is_http_url(u)) {
                Some(url) if self.kind == ChannelKind::Whatsapp => self.text(&format!("{name}: {url}")),
                Some(url) => self.link(name, url),
                None => self.text(name),
            }
        }
    }
}

fn slack_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// A URL inside Slack's `<url|label>`: its own delimiters percent-encoded, `&` escaped.
fn slack_url(url: &str) -> String {
    url.replace('|', "%7C").replace('<', "%3C").replace('>', "%3E").replace('&', "&amp;")
}

fn html_attribute(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

// ---------------------------------------------------------------------------------------------
// Cutting into pieces.

/// How good a place to cut is: a paragraph break, a line break, a space, anywhere.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Cut {
    Anywhere,
    Space,
    Line,
    Paragraph,
}

/// UTF-16 code units of `s`.
fn units(s: &str) -> usize {
    s.encode_utf16().count()
}

/// The atoms as pieces of at most `limit` UTF-16 code units (characters, but an emoji counts
/// two), cut at the best place that fits; the
/// spans open at a cut closed before it and opened again after it.
fn pack(atoms: &[Atom], limit: usize) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut start = 0;
    // The spans open where the current piece starts: (open, close).
    let mut inherited: Vec<(String, String)> = Vec::new();
    while start < atoms.len() {
        let prefix: usize = inherited.iter().map(|(o, _)| units(o)).sum();
        let mut stack: Vec<(String, String)> = inherited.clone();
        let mut closing: usize = stack.iter().map(|(_, c)| units(c)).sum();
        let mut used = prefix;
        // The best cut that fits: (quality, end of the piece's atoms, where the next one starts).
        let mut best: Option<(Cut, usize, usize)> = None;
        let mut overflow = false;
        for (i, atom) in atoms.iter().enumerate().skip(start) {
            if i > start {
                let cut = match atom {
                    Atom::Char('\n') if atoms.get(i + 1) == Some(&Atom::Char('\n')) => Some(Cut::Paragraph),
                    Atom::Char('\n') => Some(Cut::Line),
                    Atom::Char(' ') => Some(Cut::Space),
                    Atom::Close => None,
                    _ => Some(Cut::Anywhere),
                };
                if let Some(cut) = cut
                    && used + closing <= limit
                    && best.is_none_or(|(b, _, _)| cut >= b)
                {
                    let skip = match cut {
                        Cut::Paragraph | Cut::Line => atoms[i..].iter().take_while(|a| **a == Atom::Char('\n')).count(),
                        Cut::Space => 1,
                        Cut::Anywhere => 0,
                    };
                    best = Some((cut, i, i + skip));
                }
            }
            match atom {
                Atom::Open { open, close } => {
                    closing += units(close);
                    stack.push((open.clone(), close.clone()));
                }
                Atom::Close => {
                    if let Some((_, close)) = stack.pop() {
                        closing -= units(&close);
                        used += units(&close);
                    }
                }
                _ => {}
            }
            used += atom.chars();
            // Never less from here on: each atom adds what it is or what it closes.
            if used + closing > limit {
                overflow = true;
                break;
            }
        }
        let (piece_end, next) = if !overflow {
            (atoms.len(), atoms.len())
        } else {
            match best {
                Some((_, e, n)) => (e, n),
                // One atom longer than a piece (never made: links are bounded): it goes alone.
                None => (start + 1, start + 1),
            }
        };
        let (piece, open_after) = write(&inherited, &atoms[start..piece_end]);
        if has_content(&atoms[start..piece_end]) {
            pieces.push(piece);
        }
        inherited = open_after;
        start = next;
    }
    pieces
}

/// The piece's text, its open spans reopened first and closed last, and the spans still open
/// after it.
fn write(inherited: &[(String, String)], atoms: &[Atom]) -> (String, Vec<(String, String)>) {
    let mut out: String = inherited.iter().map(|(o, _)| o.as_str()).collect();
    let mut stack = inherited.to_vec();
    for atom in atoms {
        match atom {
            Atom::Char(c) => out.push(*c),
            Atom::Unit(s) => out.push_str(s),
            Atom::Open { open, close } => {
                out.push_str(open);
                stack.push((open.clone(), close.clone()));
            }
            Atom::Close => {
                if let Some((_, close)) = stack.pop() {
                    out.push_str(&close);
                }
            }
        }
    }
    for (_, close) in stack.iter().rev() {
        out.push_str(close);
    }
    (out, stack)
}

fn has_content(atoms: &[Atom]) -> bool {
    atoms.iter().any(|a| match a {
        Atom::Char(c) => !c.is_whitespace(),
        Atom::Unit(_) => true,
        Atom::Open { .. } | Atom::Close => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::SourceId;
    use crate::source::SourceType;

    /// An English answer's rendering.
    fn render(kind: ChannelKind, text: &str, citations: &[Citation]) -> Vec<String> {
        super::render(kind, text, citations, Language::English)
    }

    /// The whole answer as one text, uncut.
    fn render_whole(kind: ChannelKind, text: &str, citations: &[Citation]) -> String {
        pack(&atoms(kind, text, citations, Language::English), usize::MAX).concat()
    }

    #[test]
    fn emoji_count_twice_against_telegrams_limit() {
        let text = "🙂".repeat(5_000);
        let pieces = render(ChannelKind::Telegram, &text, &[]);
        assert!(
            pieces.iter().all(|p| p.encode_utf16().count() <= 4_096),
            "{:?}",
            pieces.iter().map(|p| p.encode_utf16().count()).collect::<Vec<_>>()
        );
        assert_eq!(pieces.concat(), text);
    }

    #[test]
    fn the_sources_are_titled_in_the_answers_language() {
        let c = [citation(1, "ガイド", None)];
        assert_eq!(
            super::render(ChannelKind::Whatsapp, "返品は14日以内です [1]", &c, Language::Japanese),
            ["返品は14日以内です [1]\n\n*出典*\n[1] ガイド"]
        );
        assert_eq!(
            super::render(ChannelKind::Telegram, "x [1]", &c, Language::German),
            ["x [1]\n\n<b>Quellen</b>\n[1] ガイド"]
        );
    }

    fn citation(index: u32, name: &str, url: Option<&str>) -> Citation {
        Citation {
            index,
            source_id: SourceId::generate(),
            source_name: name.into(),
            source_type: SourceType::Url,
            chunk_id: format!("chunk{index}"),
            url: url.map(str::to_owned),
            quote: "a quote".into(),
        }
    }

    const SAMPLE: &str = "Lore keeps **short answers** [1]. See [the guide](https://example.com/guide?a=1&b=2) \
        and run `lore serve` [2].\n\n```\nlet x = 1 < 2;\n```";

    fn sample_citations() -> Vec<Citation> {
        vec![citation(1, "Guide.md", Some("https://example.com/doc")), citation(2, "notes.txt", None)]
    }

    #[test]
    fn slack_mrkdwn() {
        let pieces = render(ChannelKind::Slack, SAMPLE, &sample_citations());
        assert_eq!(
            pieces,
            ["Lore keeps *short answers* <https://example.com/doc|[1]>. See \
              <https://example.com/guide?a=1&amp;b=2|the guide> and run `lore serve` [2].\n\n\
              ```\nlet x = 1 &lt; 2;\n```\n\n\
              *Sources*\n[1] <https://example.com/doc|Guide.md>\n[2] notes.txt"]
        );
    }

    #[test]
    fn telegram_html() {
        let pieces = render(ChannelKind::Telegram, SAMPLE, &sample_citations());
        assert_eq!(
            pieces,
            ["Lore keeps <b>short answers</b> <a href=\"https://example.com/doc\">[1]</a>. See \
              <a href=\"https://example.com/guide?a=1&amp;b=2\">the guide</a> and run <code>lore serve</code> [2].\n\n\
              <pre>let x = 1 &lt; 2;</pre>\n\n\
              <b>Sources</b>\n[1] <a href=\"https://example.com/doc\">Guide.md</a>\n[2] notes.txt"]
        );
    }

    #[test]
    fn whatsapp_text() {
        let pieces = render(ChannelKind::Whatsapp, SAMPLE, &sample_citations());
        assert_eq!(
            pieces,
            ["Lore keeps *short answers* [1]. See the guide (https://example.com/guide?a=1&b=2) \
              and run `lore serve` [2].\n\n\
              ```\nlet x = 1 < 2;\n```\n\n\
              *Sources*\n[1] Guide.md: https://example.com/doc\n[2] notes.txt"]
        );
    }

    #[test]
    fn italics_headings_and_lists() {
        let text = "# Plans\n\n- *one* plan\n- _two_ plans, snake_case_name stays\n1. 2 * 3 = 6";
        assert_eq!(
            render(ChannelKind::Telegram, text, &[]),
            ["<b>Plans</b>\n\n- <i>one</i> plan\n- <i>two</i> plans, snake_case_name stays\n1. 2 * 3 = 6"]
        );
        assert_eq!(
            render(ChannelKind::Slack, text, &[]),
            ["*Plans*\n\n- _one_ plan\n- _two_ plans, snake_case_name stays\n1. 2 * 3 = 6"]
        );
        assert_eq!(render(ChannelKind::Whatsapp, "**a** and \\*b\\*", &[]), ["*a* and *b*"]);
    }

    #[test]
    fn markup_in_the_text_is_escaped() {
        let text = "Try <script>alert(\"x\")</script> & **<b>**";
        assert_eq!(
            render(ChannelKind::Telegram, text, &[]),
            ["Try &lt;script&gt;alert(\"x\")&lt;/script&gt; &amp; <b>&lt;b&gt;</b>"]
        );
        assert_eq!(
            render(ChannelKind::Slack, text, &[]),
            ["Try &lt;script&gt;alert(\"x\")&lt;/script&gt; &amp; *&lt;b&gt;*"]
        );
        assert_eq!(render(ChannelKind::Whatsapp, text, &[]), ["Try <script>alert(\"x\")</script> & *<b>*"]);
        // A quote in a URL cannot leave Telegram's attribute; Slack's delimiters are encoded.
        let link = "[x](https://e.com/?q=\"a\"&r=<b>|c)";
        assert_eq!(
            render(ChannelKind::Telegram, link, &[]),
            ["<a href=\"https://e.com/?q=&quot;a&quot;&amp;r=&lt;b&gt;|c\">x</a>"]
        );
        assert_eq!(render(ChannelKind::Slack, link, &[]), ["<https://e.com/?q=\"a\"&amp;r=%3Cb%3E%7Cc|x>"]);
    }

    #[test]
    fn only_http_urls_become_links() {
        let text = "[click](javascript:alert(1)) and [mail](mailto:a@b.c) [1]";
        let citations = [citation(1, "Doc", Some("ftp://files.example.com/doc"))];
        assert_eq!(
            render(ChannelKind::Telegram, text, &citations),
            ["click (javascript:alert(1)) and mail (mailto:a@b.c) [1]\n\n<b>Sources</b>\n[1] Doc"]
        );
        assert_eq!(
            render(ChannelKind::Slack, text, &citations),
            ["click (javascript:alert(1)) and mail (mailto:a@b.c) [1]\n\n*Sources*\n[1] Doc"]
        );
        assert_eq!(
            render(ChannelKind::Whatsapp, text, &citations),
            ["click (javascript:alert(1)) and mail (mailto:a@b.c) [1]\n\n*Sources*\n[1] Doc"]
        );
        // An autolink and a marker without a citation.
        assert_eq!(
            render(ChannelKind::Slack, "<https://a.example> [7]", &[]),
            ["<https://a.example|https://a.example> [7]"]
        );
    }

    /// Every tag of a Telegram piece is one of the allowed ones and they are balanced; every
    /// `&` starts an entity.
    fn assert_valid_telegram(piece: &str) {
        let mut stack: Vec<String> = Vec::new();
        let mut rest = piece;
        while let Some(p) = rest.find(['<', '&']) {
            let tail = &rest[p..];
            if let Some(after) = tail.strip_prefix('&') {
                assert!(
                    ["amp;", "lt;", "gt;", "quot;"].iter().any(|e| after.starts_with(e)),
                    "a broken entity in {piece:?}"
                );
                rest = after;
                continue;
            }
            let end = tail.find('>').expect("an unclosed tag");
            let tag = &tail[1..end];
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(stack.pop().as_deref(), Some(name), "unbalanced in {piece:?}");
            } else {
                let name = tag.split(' ').next().unwrap();
                assert!(["b", "i", "code", "pre", "a"].contains(&name), "tag {name}");
                stack.push(name.to_owned());
            }
            rest = &tail[end + 1..];
        }
        assert!(stack.is_empty(), "left open {stack:?} in {piece:?}");
    }

    fn long_answer() -> String {
        let mut text = String::new();
        let mut i = 0;
        while text.chars().count() < 7_000 {
            text.push_str(&format!(
                "Paragraph {i} tells about **plans & prices** with [a link](https://example.com/{i}) \
                 and `code {i}` and é accents [1] [2]. More words follow to make it longer; more words.\n\n"
            ));
            i += 1;
        }
        // One paragraph longer than a piece, in bold, then a long code block.
        text.push_str("**");
        text.push_str(&"bold words go on ".repeat(300));
        text.push_str("end**\n\n```\n");
        text.push_str(&"let a = b < c;\n".repeat(100));
        text.push_str("```\n");
        text
    }

    fn visible(s: &str, kind: ChannelKind) -> String {
        let mut out = String::new();
        let mut in_tag = false;
        for c in s.chars() {
            match c {
                '<' if kind == ChannelKind::Telegram => in_tag = true,
                '>' if kind == ChannelKind::Telegram => in_tag = false,
                '*' | '`' if kind != ChannelKind::Telegram => {}
                c if !in_tag && !c.is_whitespace() => out.push(c),
                _ => {}
            }
        }
        out
    }

    #[test]
    fn a_long_answer_is_cut_into_valid_pieces() {
        let text = long_answer();
        assert!(text.chars().count() > 10_000);
        let citations = sample_citations();
        for kind in ChannelKind::ALL {
            let pieces = render(kind, &text, &citations);
            assert!(pieces.len() >= 3, "{kind:?}: {} pieces", pieces.len());
            for piece in &pieces {
                assert!(piece.chars().count() <= max_chars(kind), "{kind:?}: {}", piece.chars().count());
                assert!(!piece.trim().is_empty());
                match kind {
                    ChannelKind::Telegram => assert_valid_telegram(piece),
                    ChannelKind::Slack => {
                        assert_eq!(piece.matches('<').count(), piece.matches('>').count(), "{piece:?}");
                        assert_eq!(piece.matches("```").count() % 2, 0, "{piece:?}");
                    }
                    ChannelKind::Whatsapp => assert_eq!(piece.matches("```").count() % 2, 0, "{piece:?}"),
                }
            }
            // Nothing lost or doubled (but the whitespace at the cuts and the reopened spans).
            let whole = render_whole(kind, &text, &citations);
            let joined: String = pieces.iter().map(|p| visible(p, kind)).collect();
            assert_eq!(joined, visible(&whole, kind), "{kind:?}");
            // Paragraphs are not cut when a paragraph break fits.
            assert!(pieces[0].ends_with("more words."), "{kind:?}: {:?}", pieces[0]);
            assert!(pieces.last().unwrap().contains("Sources"));
            // The bold paragraph longer than a piece is bold in each of its pieces.
            let bold = if kind == ChannelKind::Telegram { "<b>" } else { "*" };
            let bold_pieces = pieces.iter().filter(|p| p.starts_with(bold) && p.contains("bold words go on"));
            assert!(bold_pieces.count() >= 2, "{kind:?}");
        }
    }

    #[test]
    fn cuts_prefer_lines_then_spaces_then_anywhere() {
        let atoms: Vec<Atom> = "aaaa bbbb\ncccc dddd".chars().map(Atom::Char).collect();
        assert_eq!(pack(&atoms, 12), ["aaaa bbbb", "cccc dddd"]);
        assert_eq!(pack(&atoms, 7), ["aaaa", "bbbb", "cccc", "dddd"]);
        let atoms: Vec<Atom> = "abcdefgh".chars().map(Atom::Char).collect();
        assert_eq!(pack(&atoms, 3), ["abc", "def", "gh"]);
        // A span open at a cut is closed and reopened; an entity is never cut.
        let mut w = Writer { kind: ChannelKind::Telegram, citations: &[], sources_title: "Sources", atoms: Vec::new() };
        w.open("<b>", "</b>");
        w.text("aa & bb");
        w.close();
        assert_eq!(pack(&w.atoms, 15), ["<b>aa &amp;</b>", "<b>bb</b>"]);
        assert_eq!(pack(&w.atoms, 13), ["<b>aa</b>", "<b>&amp;</b>", "<b>bb</b>"]);
        assert_eq!(pack(&w.atoms, 100), ["<b>aa &amp; bb</b>"]);
    }

    #[test]
    fn empty_answers() {
        assert!(render(ChannelKind::Slack, "  \n\n ", &[]).is_empty());
        assert_eq!(render(ChannelKind::Whatsapp, "", &[citation(1, "Doc", None)]), ["*Sources*\n[1] Doc"]);
    }
}
