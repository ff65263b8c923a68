//! Splitting extracted text into chunks for embedding (docs/api.md §6: 15 % overlap,
//! Markdown-aware for the kinds extracted as Markdown: `DocumentKind::is_markdown_like`).
//!
//! **Chunks fit the embedder.** An embedding model reads a bounded number of its own tokens and
//! ignores the rest: all-MiniLM-L6-v2 reads 256 word pieces, so a 3,200-character chunk was
//! described by its first quarter. When the embedder reports its window
//! ([`Embedder::token_window`](crate::ports::Embedder::token_window)), chunks are measured in
//! its tokens, counted by its own tokenizer, and made to fit the window (`LORE_CHUNK_TOKENS`
//! becomes an upper bound); otherwise they are measured in characters, 4 per token (OpenAI's
//! models read 8k tokens, the hashing embedder has no window). The settings in use are part of the
//! index's model key ([`Chunker::profile`]), so changing embedder or chunk size re-chunks and
//! re-embeds existing sources (`reembed_other_models`).
//!
//! **No heading alone.** A chunk that would hold only Markdown headings (back-to-back `<h1>`/`<h2>`
//! of a page, a heading whose section did not fit beside it) is joined to the chunk after it, so a
//! heading always travels with the text it introduces; room for that is kept in token windows
//! ([`HEADING_ROOM`]).
//!
//! **A table's header travels with its rows.** A Markdown table (a header row with outer pipes,
//! the `|---|` delimiter row, the rows: what spreadsheets, CSV files and the tables of documents
//! are extracted as) split across chunks has its header and delimiter rows repeated at the top
//! of every chunk that starts among its rows, below the heading trail, so each chunk is still a
//! table whose columns are named. Room for it is kept: a section holding table rows is split
//! that much smaller ([`Chunker::chunk`]).
//!
//! text-splitter's cost grows faster than linearly with document length (the performance budgets
//! (docs/benchmarks.md)), so long documents are first cut into bounded sections at paragraph
//! breaks and each section is split on its own; a chunk never spans two sections.

use crate::ports::{TokenCounter, TokenWindow};
use std::sync::Arc;
use text_splitter::{ChunkConfig, ChunkSizer, MarkdownSplitter, TextSplitter};

/// Characters per token used to turn the token-denominated settings into characters.
const CHARS_PER_TOKEN: usize = 4;
/// Sections handed to the splitter are at most this many bytes.
const SECTION_BYTES: usize = 64 * 1024;
/// Tokens of a model's window left free by the splitter so that a heading joined to the next
/// chunk still fits in the window.
pub const HEADING_ROOM: usize = 16;
/// Default chunk size, in tokens (`LORE_CHUNK_TOKENS`).
pub const DEFAULT_CHUNK_TOKENS: usize = 800;
/// Default overlap between consecutive chunks, in percent of the size (`LORE_CHUNK_OVERLAP_PERCENT`).
pub const DEFAULT_OVERLAP_PERCENT: usize = 15;

/// The configured chunk size: at most `tokens` tokens, `overlap_percent` of them repeated from the
/// previous chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkSettings {
    pub tokens: usize,
    pub overlap_percent: usize,
}

impl ChunkSettings {
    /// From a size in tokens (at least 16) and an overlap in percent of it (at most 50).
    pub fn from_tokens(tokens: usize, overlap_percent: usize) -> Self {
        Self { tokens: tokens.max(16), overlap_percent: overlap_percent.min(50) }
    }

    /// The size in characters when chunks are measured in characters.
    pub fn max_chars(&self) -> usize {
        self.tokens * CHARS_PER_TOKEN
    }

    /// The overlap in characters when chunks are measured in characters.
    pub fn overlap_chars(&self) -> usize {
        self.max_chars() * self.overlap_percent / 100
    }
}

impl Default for ChunkSettings {
    fn default() -> Self {
        Self::from_tokens(DEFAULT_CHUNK_TOKENS, DEFAULT_OVERLAP_PERCENT)
    }
}

/// How chunks are measured.
#[derive(Clone)]
enum Unit {
    Chars,
    Tokens(Arc<dyn TokenCounter>),
}

/// text-splitter's view of a [`TokenCounter`].
struct Tokens<'a>(&'a dyn TokenCounter);

impl ChunkSizer for Tokens<'_> {
    fn size(&self, chunk: &str) -> usize {
        self.0.count_tokens(chunk)
    }
}

/// Splits texts into chunks sized for one embedder (module documentation).
#[derive(Clone)]
pub struct Chunker {
    unit: Unit,
    max: usize,
    overlap: usize,
    /// Whether the settings are the defaults measured in characters (no profile suffix).
    default_chars: bool,
}

impl std::fmt::Debug for Chunker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chunker").field("profile", &self.profile()).finish()
    }
}

impl Chunker {
    /// Chunks measured in characters (4 per token of `settings`).
    pub fn chars(settings: ChunkSettings) -> Self {
        Self {
            unit: Unit::Chars,
            max: settings.max_chars(),
            overlap: settings.overlap_chars(),
            default_chars: settings == ChunkSettings::default(),
        }
    }

    /// Chunks for an embedder with `window` (or in characters without one).
    pub fn for_embedder(settings: ChunkSettings, window: Option<TokenWindow>) -> Self {
        let Some(window) = window else { return Self::chars(settings) };
        let room = window.max_tokens.saturating_sub(HEADING_ROOM).max(16);
        let max = settings.tokens.min(room);
        Self {
            unit: Unit::Tokens(window.counter),
            max,
            overlap: max * settings.overlap_percent / 100,
            default_chars: false,
        }
    }

    /// Names the chunk settings when they are not the historical default (800 tokens as 3,200
    /// characters, 15 % overlap): `tokens240-36` or `chars2000-300`. Kept with the model id in the
    /// index, so chunks made with other settings are made again.
    pub fn profile(&self) -> Option<String> {
        match self.unit {
            _ if self.default_chars => None,
            Unit::Chars => Some(format!("chars{}-{}", self.max, self.overlap)),
            Unit::Tokens(_) => Some(format!("tokens{}-{}", self.max, self.overlap)),
        }
    }

    /// The chunks of `text`, in order, trimmed and non-empty, none of them headings alone; in
    /// Markdown each chunk opens with the headings it sits under (as room allows).
    pub fn chunk(&self, text: &str, markdown: bool) -> Vec<String> {
        let tables = if markdown { tables(text) } else { Vec::new() };
        // A section whose rows may open a chunk leaves room for the header they will carry
        // (a header wider than half a chunk is not repeated).
        let header_sizes: Vec<usize> = tables.iter().map(|t| self.size(t.header) + 1).collect();
        let max_for = |section: &str| {
            let start = section.as_ptr() as usize - text.as_ptr() as usize;
            let end = start + section.len();
            let room = tables
                .iter()
                .zip(&header_sizes)
                .filter(|(t, size)| t.body < end && t.end > start && **size <= self.max / 2)
                .map(|(_, size)| *size)
                .max()
                .unwrap_or(0);
            let max = self.max - room;
            (max, self.overlap.min(max.saturating_sub(1)))
        };
        let chunks = match &self.unit {
            Unit::Chars => split(text, markdown, |section| {
                let (max, overlap) = max_for(section);
                config(max, overlap).with_sizer(CharCount::new(section))
            }),
            Unit::Tokens(counter) => split(text, markdown, |section| {
                let (max, overlap) = max_for(section);
                config(max, overlap).with_sizer(Tokens(&**counter))
            }),
        };
        let chunks = join_lone_headings(chunks);
        if !markdown {
            return chunks.into_iter().map(|(_, c)| c).collect();
        }
        let headings = headings(text);
        let mut trails = Trails::new(&headings);
        chunks
            .into_iter()
            .map(|(offset, chunk)| {
                let chunk = match tables.iter().zip(&header_sizes).find(|(t, _)| t.body <= offset && offset < t.end) {
                    Some((table, size)) if *size <= self.max / 2 && !chunk.starts_with(table.header) => {
                        format!("{}\n{chunk}", table.header)
                    }
                    _ => chunk,
                };
                let mut lines = trails.at(offset, &chunk);
                // At most the outermost and the innermost heading, within the room; else the
                // innermost alone; else none.
                while lines.len() > 2 || (!lines.is_empty() && self.size(&lines.join("\n")) > self.room()) {
                    if lines.len() > 2 {
                        lines.remove(1);
                    } else {
                        lines.remove(0);
                    }
                }
                if lines.is_empty() { chunk } else { format!("{}\n\n{chunk}", lines.join("\n")) }
            })
            .collect()
    }

    /// The tokens of `text` as chunks are measured: the embedder's own tokens when it counts them
    /// ([`TokenCounter`]), else its characters / 4 rounded up (the estimate the chunk settings use).
    pub fn count_tokens(&self, text: &str) -> usize {
        match &self.unit {
            Unit::Chars => text.chars().count().div_ceil(CHARS_PER_TOKEN),
            Unit::Tokens(counter) => counter.count_tokens(text),
        }
    }

    fn size(&self, text: &str) -> usize {
        match &self.unit {
            Unit::Chars => text.chars().count(),
            Unit::Tokens(counter) => counter.count_tokens(text),
        }
    }

    /// What a chunk may grow by for its headings: [`HEADING_ROOM`] tokens (a tenth of the size in
    /// characters).
    fn room(&self) -> usize {
        match self.unit {
            Unit::Chars => self.max / 10,
            Unit::Tokens(_) => HEADING_ROOM,
        }
    }
}

fn config(max: usize, overlap: usize) -> ChunkConfig<text_splitter::Characters> {
    ChunkConfig::new(max).with_overlap(overlap).unwrap_or_else(|_| ChunkConfig::new(max))
}

/// Characters of slices of one section, counted in constant time. text-splitter measures many
/// candidate chunks for each chunk it makes, all slices of the text it was given, and counting
/// their characters one by one was most of its time (docs/benchmarks.md, "Chunking
/// throughput"); the chunks are the same as with its own character counter.
struct CharCount<'t> {
    text: &'t [u8],
    /// Characters before each [`COUNT_BLOCK`]-byte block of `text`; none when `text` is ASCII
    /// (then characters are bytes).
    before_block: Option<Vec<usize>>,
}

const COUNT_BLOCK: usize = 64;

impl<'t> CharCount<'t> {
    fn new(text: &'t str) -> Self {
        let text = text.as_bytes();
        if text.is_ascii() {
            return Self { text, before_block: None };
        }
        let mut before_block = Vec::with_capacity(text.len() / COUNT_BLOCK + 2);
        let mut n = 0;
        before_block.push(0);
        for block in text.chunks(COUNT_BLOCK) {
            n += chars_in(block);
            before_block.push(n);
        }
        Self { text, before_block: Some(before_block) }
    }

    /// Characters in `text[..at]`.
    fn before(&self, at: usize) -> usize {
        let Some(before_block) = &self.before_block else { return at };
        let block = at / COUNT_BLOCK;
        before_block[block] + chars_in(&self.text[block * COUNT_BLOCK..at])
    }
}

/// UTF-8 characters in at most [`COUNT_BLOCK`] bytes: the bytes that do not continue a
/// character (summed in bytes, which the compiler vectorises).
fn chars_in(bytes: &[u8]) -> usize {
    usize::from(bytes.iter().map(|&b| u8::from((b as i8) >= -0x40)).fold(0u8, u8::wrapping_add))
}

impl ChunkSizer for CharCount<'_> {
    fn size(&self, chunk: &str) -> usize {
        let start = (chunk.as_ptr() as usize).wrapping_sub(self.text.as_ptr() as usize);
        if start <= self.text.len() && chunk.len() <= self.text.len() - start {
            self.before(start + chunk.len()) - self.before(start)
        } else {
            // Not a slice of the section (text-splitter has never been seen to pass one).
            chunk.chars().count()
        }
    }
}

/// The chunks of `text` with their byte offsets in it, trimmed and non-empty; `config` makes
/// the splitter's settings for each section.
fn split<'t, S: ChunkSizer>(
    text: &'t str,
    markdown: bool,
    config: impl Fn(&'t str) -> ChunkConfig<S>,
) -> Vec<(usize, String)> {
    let mut chunks = Vec::new();
    let base = text.as_ptr() as usize;
    let mut keep = |section: &str, offset: usize, c: &str| {
        let trimmed = c.trim_start();
        let start = offset + (c.len() - trimmed.len());
        let c = trimmed.trim_end();
        if !c.is_empty() {
            chunks.push((section.as_ptr() as usize - base + start, c.to_owned()));
        }
    };
    for section in sections(text) {
        if markdown {
            MarkdownSplitter::new(config(section))
                .chunk_indices(section)
                .for_each(|(offset, c)| keep(section, offset, c));
        } else {
            TextSplitter::new(config(section)).chunk_indices(section).for_each(|(offset, c)| keep(section, offset, c));
        }
    }
    chunks
}

/// Whether every line of `chunk` is a Markdown ATX heading (`# …` to `###### …`).
fn headings_only(chunk: &str) -> bool {
    chunk.lines().map(str::trim).filter(|l| !l.is_empty()).all(|l| {
        let hashes = l.bytes().take_while(|&b| b == b'#').count();
        (1..=6).contains(&hashes) && l[hashes..].starts_with([' ', '\t'])
    })
}

/// Joins each chunk made only of headings to the chunk after it (to the one before it at the end).
/// A joined chunk keeps the offset of its first part.
fn join_lone_headings(chunks: Vec<(usize, String)>) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::with_capacity(chunks.len());
    let mut pending: Option<(usize, String)> = None;
    for (offset, chunk) in chunks {
        if headings_only(&chunk) {
            pending = Some(match pending.take() {
                Some((at, p)) => (at, format!("{p}\n\n{chunk}")),
                None => (offset, chunk),
            });
            continue;
        }
        match pending.take() {
            // The overlap may already have carried the heading over.
            Some((at, p)) if !chunk.starts_with(p.as_str()) => out.push((at, format!("{p}\n\n{chunk}"))),
            _ => out.push((offset, chunk)),
        }
    }
    if let Some((_, p)) = pending {
        match out.last_mut() {
            Some((_, last)) => {
                last.push_str("\n\n");
                last.push_str(&p);
            }
            None => out.push((0, p)),
        }
    }
    out
}

/// The ATX headings of a Markdown text outside fenced code: (byte offset, level, line).
fn headings(text: &str) -> Vec<(usize, usize, &str)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut fenced = false;
    let mut ends = memchr::memchr_iter(b'\n', bytes);
    let mut start = 0;
    while start < bytes.len() {
        let end = ends.next().map_or(bytes.len(), |i| i + 1);
        // Most lines open with a visible ASCII byte other than `#`, `` ` `` and `~`: neither a
        // heading nor a fence, known without trimming (splitting lines one by one was a tenth of
        // the time of a long Markdown text).
        let first = bytes[start];
        let ordinary = first.is_ascii_graphic() && !matches!(first, b'#' | b'`' | b'~');
        if !ordinary {
            let l = text[start..end].trim();
            if l.starts_with("```") || l.starts_with("~~~") {
                fenced = !fenced;
            } else if !fenced && let Some(level) = heading_level(l) {
                out.push((start, level, l));
            }
        }
        start = end;
    }
    out
}

/// The headings a chunk opens with, outermost first, without their `#` marks: the heading trail
/// [`Chunker::chunk`] puts at the top of a Markdown chunk, and the headings its own text starts
/// with. Empty when the chunk opens with anything else.
pub fn heading_path(chunk: &str) -> Vec<String> {
    chunk
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map_while(|l| {
            let level = heading_level(l)?;
            // An optional closing sequence of `#` after a space is not part of the heading.
            let text = l[level..].trim();
            let text = match text.trim_end_matches('#') {
                open if open.is_empty() || open.ends_with([' ', '\t']) => open.trim_end(),
                _ => text,
            };
            Some(text.to_owned())
        })
        .collect()
}

fn heading_level(line: &str) -> Option<usize> {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    ((1..=6).contains(&hashes) && line[hashes..].starts_with([' ', '\t'])).then_some(hashes)
}

/// A Markdown table of a text: its header and delimiter rows, and the byte range of its other
/// rows.
struct Table<'a> {
    header: &'a str,
    body: usize,
    end: usize,
}

/// The Markdown tables of a text outside fenced code: a row with outer pipes directly followed
/// by a delimiter row (`|---|:--:|`), then the rows that start with a pipe.
fn tables(text: &str) -> Vec<Table<'_>> {
    let mut out = Vec::new();
    if memchr::memmem::find(text.as_bytes(), b"|-").is_none() && memchr::memmem::find(text.as_bytes(), b"|:").is_none()
    {
        return out;
    }
    let mut lines = Vec::new();
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1).chain([text.len()]) {
        if start < end {
            lines.push((start, end));
        }
        start = end;
    }
    let is_row = |l: &str| l.trim_start().starts_with('|');
    let is_delimiter = |l: &str| {
        let l = l.trim();
        l.starts_with('|') && l.contains('-') && l.bytes().all(|b| matches!(b, b'|' | b'-' | b':' | b' ' | b'\t'))
    };
    let mut fenced = false;
    let mut i = 0;
    while i < lines.len() {
        let line = &text[lines[i].0..lines[i].1];
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
        } else if !fenced
            && is_row(line)
            && !is_delimiter(line)
            && let Some(&(delimiter_start, delimiter_end)) = lines.get(i + 1)
            && is_delimiter(&text[delimiter_start..delimiter_end])
        {
            let mut j = i + 2;
            while j < lines.len() && is_row(&text[lines[j].0..lines[j].1]) {
                j += 1;
            }
            let end = if j > i + 2 { lines[j - 1].1 } else { delimiter_end };
            out.push(Table { header: text[lines[i].0..delimiter_end].trim_end(), body: delimiter_end, end });
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

/// The headings chunks sit under, read in one pass over a text's headings as the chunks come in
/// order (each chunk used to rescan every heading before it: quadratic on long Markdown).
struct Trails<'h, 'a> {
    headings: &'h [(usize, usize, &'a str)],
    /// Headings before `next` are applied to `open`.
    next: usize,
    /// The last heading of each level (1..=6) so far; a heading closes the deeper levels.
    open: [Option<&'a str>; 7],
}

impl<'h, 'a> Trails<'h, 'a> {
    fn new(headings: &'h [(usize, usize, &'a str)]) -> Self {
        Self { headings, next: 0, open: [None; 7] }
    }

    /// The headings a chunk starting at `offset` sits under, outermost first. A chunk that opens
    /// with a heading of level L gets only the levels above L. Offsets come in increasing order;
    /// a smaller one than the last starts the pass over.
    fn at(&mut self, offset: usize, chunk: &str) -> Vec<&'a str> {
        if self.next > 0 && self.headings[self.next - 1].0 >= offset {
            *self = Self::new(self.headings);
        }
        while let Some(&(_, level, line)) = self.headings.get(self.next).filter(|h| h.0 < offset) {
            self.open[level] = Some(line);
            self.open[level + 1..].iter_mut().for_each(|o| *o = None);
            self.next += 1;
        }
        let below = chunk.lines().next().and_then(heading_level).unwrap_or(7);
        self.open[1..below].iter().flatten().copied().collect()
    }
}

/// Cuts `text` into sections of at most `SECTION_BYTES`, preferring paragraph breaks, then line
/// breaks, then any char boundary.
fn sections(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while rest.len() > SECTION_BYTES {
        let mut cut = SECTION_BYTES;
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        let window = &rest[..cut];
        let at = window.rfind("\n\n").or_else(|| window.rfind('\n')).filter(|&i| i > SECTION_BYTES / 4).unwrap_or(cut);
        let (head, tail) = rest.split_at(at);
        out.push(head);
        rest = tail;
    }
    out.push(rest);
    out
}

/// The chunks of `text` measured in characters (what [`Chunker::chars`] makes).
pub fn chunk_text(text: &str, markdown: bool, settings: ChunkSettings) -> Vec<String> {
    Chunker::chars(settings).chunk(text, markdown)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The constant-time character count makes exactly the chunks text-splitter's own counter
    /// makes, on ASCII, on text of 2-, 3- and 4-byte characters, in both modes, and across
    /// sections.
    #[test]
    fn counted_characters_make_the_chunks_the_plain_count_makes() {
        let words = ["alpha", "naïve", "Größe", "日本語の", "テキスト", "🙂🙂", "end.", "x"];
        let mut text = String::new();
        let mut seed = 7u32;
        for i in 0..40_000 {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            text.push_str(words[(seed >> 16) as usize % words.len()]);
            text.push_str(match i % 97 {
                0 => "\n\n# Heading\n\n",
                n if n % 13 == 0 => ".\n",
                _ => " ",
            });
        }
        assert!(text.len() > 2 * SECTION_BYTES, "several sections");
        let ascii: String = text.chars().filter(char::is_ascii).collect();
        for text in [&text, &ascii] {
            for markdown in [false, true] {
                for (max, overlap) in [(3200, 480), (200, 30), (17, 0)] {
                    let counted =
                        split(text, markdown, |section| config(max, overlap).with_sizer(CharCount::new(section)));
                    let plain = split(text, markdown, |_| config(max, overlap));
                    assert_eq!(counted, plain, "markdown {markdown}, {max}/{overlap}");
                }
            }
        }
        let count = CharCount::new("añb🙂c");
        assert_eq!(count.size("añb🙂c"), 5);
        assert_eq!(count.size(&"añb🙂c"[1..3]), 1, "ñ");
        assert_eq!(count.size("elsewhere"), 9, "a string that is not a slice of the text");
        assert!(CharCount::new(&ascii).before_block.is_none(), "ASCII needs no table");
    }

    /// The line scan that skips ordinary lines finds the headings a plain line-by-line reading
    /// finds: indented, after a non-breaking space, in and out of fences, at the very end.
    #[test]
    fn headings_are_the_ones_a_line_by_line_reading_finds() {
        fn line_by_line(text: &str) -> Vec<(usize, usize, &str)> {
            let (mut out, mut fenced, mut offset) = (Vec::new(), false, 0);
            for line in text.split_inclusive('\n') {
                let l = line.trim();
                if l.starts_with("```") || l.starts_with("~~~") {
                    fenced = !fenced;
                } else if !fenced && let Some(level) = heading_level(l) {
                    out.push((offset, level, l));
                }
                offset += line.len();
            }
            out
        }
        let text = "# One\r\ntext #not\n  ## Indented\n\u{a0}### After nbsp\n\t#### Tab\n\n   ```\n# in code\n```\n\
                    ~~~\n## also code\n  ~~~\n#nospace\n####### seven\n## Last";
        let found = headings(text);
        assert_eq!(found, line_by_line(text));
        let levels: Vec<usize> = found.iter().map(|h| h.1).collect();
        assert_eq!(levels, [1, 2, 3, 4, 2], "{found:?}");
        for empty in ["", "\n", "plain"] {
            assert!(headings(empty).is_empty());
        }
    }

    #[test]
    fn heading_trails_follow_the_chunks_in_one_pass_and_start_over_when_sent_back() {
        let text = "# A\n\ntext a\n\n## B\n\ntext b\n\n### C\n\ntext c\n\n## D\n\ntext d\n";
        let hs = headings(text);
        let at = |needle: &str| text.find(needle).unwrap();
        let mut trails = Trails::new(&hs);
        assert_eq!(trails.at(at("text a"), "text a"), vec!["# A"]);
        assert_eq!(trails.at(at("text c"), "text c"), vec!["# A", "## B", "### C"]);
        // A chunk opening with a heading gets only the levels above it.
        assert_eq!(trails.at(at("## D"), "## D\n\ntext d"), vec!["# A"]);
        assert_eq!(trails.at(at("text d"), "text d"), vec!["# A", "## D"]);
        // Sent back (an offset before the last): the same answer as a fresh pass.
        assert_eq!(trails.at(at("text b"), "text b"), vec!["# A", "## B"]);
        assert_eq!(trails.at(at("text c"), "text c"), Trails::new(&hs).at(at("text c"), "text c"));
    }

    #[test]
    fn chunks_are_bounded_ordered_and_cover_the_text() {
        let para = "The quick brown fox jumps over the lazy dog. ".repeat(20);
        let text = (0..40).map(|i| format!("Paragraph {i}. {para}")).collect::<Vec<_>>().join("\n\n");
        let s = ChunkSettings::from_tokens(250, 15);
        let chunks = chunk_text(&text, false, s);
        assert!(chunks.len() > 30, "{}", chunks.len());
        assert!(chunks.iter().all(|c| c.chars().count() <= 1000));
        assert!(chunks[0].starts_with("Paragraph 0."));
        assert!(chunks.last().unwrap().contains("Paragraph 39."));
        let pos: Vec<usize> =
            (0..40).map(|i| chunks.iter().position(|c| c.contains(&format!("Paragraph {i}."))).unwrap()).collect();
        assert!(pos.windows(2).all(|w| w[0] <= w[1]), "order kept");
    }

    #[test]
    fn markdown_splits_at_headings() {
        let text = format!("# One\n\n{}\n\n# Two\n\n{}", "alpha ".repeat(150), "beta ".repeat(150));
        let chunks = chunk_text(&text, true, ChunkSettings::from_tokens(250, 0));
        assert!(chunks.iter().any(|c| c.starts_with("# Two")), "{chunks:?}");
        assert!(chunks.iter().all(|c| !(c.contains("alpha") && c.contains("beta"))));
    }

    #[test]
    fn long_documents_are_sectioned_and_multibyte_safe() {
        let text = "é".repeat(200_000); // 400 KB without any break
        let chunks = chunk_text(&text, false, ChunkSettings::from_tokens(800, 0));
        assert_eq!(chunks.iter().map(|c| c.chars().count()).sum::<usize>(), 200_000);
        assert!(chunk_text("   \n\n ", false, ChunkSettings::default()).is_empty());
    }

    /// Counts whitespace-separated words: a stand-in tokenizer.
    struct Words;
    impl TokenCounter for Words {
        fn count_tokens(&self, text: &str) -> usize {
            text.split_whitespace().count()
        }
    }

    fn words_window(max_tokens: usize) -> Option<TokenWindow> {
        Some(TokenWindow { counter: Arc::new(Words), max_tokens })
    }

    #[test]
    fn chunks_fit_the_embedders_window_in_its_own_tokens() {
        let text = (0..300).map(|i| format!("Sentence number {i} says something short.")).collect::<Vec<_>>().join(" ");
        // 800 configured tokens, a 120-token window: chunks get at most 120 - HEADING_ROOM words.
        let chunker = Chunker::for_embedder(ChunkSettings::default(), words_window(120));
        let chunks = chunker.chunk(&text, false);
        assert!(chunks.iter().all(|c| Words.count_tokens(c) <= 120 - HEADING_ROOM), "bounded in tokens");
        assert!(chunks.iter().any(|c| Words.count_tokens(c) > 90), "filled close to the limit");
        assert!(chunks.iter().any(|c| c.chars().count() > 120 * 4 / 2), "not measured in characters");
        assert_eq!(chunker.profile().as_deref(), Some("tokens104-15"));
        // A smaller configured size stays in force under a larger window.
        let small = Chunker::for_embedder(ChunkSettings::from_tokens(50, 10), words_window(256));
        assert!(small.chunk(&text, false).iter().all(|c| Words.count_tokens(c) <= 50));
        assert_eq!(small.profile().as_deref(), Some("tokens50-5"));
        // Characters: the default has no profile (existing indexes keep their key), others do.
        assert_eq!(Chunker::for_embedder(ChunkSettings::default(), None).profile(), None);
        assert_eq!(Chunker::chars(ChunkSettings::from_tokens(500, 10)).profile().as_deref(), Some("chars2000-200"));
    }

    #[test]
    fn a_table_split_across_chunks_repeats_its_header_in_each() {
        let rows: String = (1..=120).map(|i| format!("| item {i} | {} | note {i} |\n", i * 10)).collect();
        let text = format!("# Stock\n\nIntro.\n\n| Item | Count | Note |\n|---|---:|---|\n{rows}\nAfter the table.");
        let found = tables(&text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].header, "| Item | Count | Note |\n|---|---:|---|");
        for chunker in [
            Chunker::chars(ChunkSettings::from_tokens(150, 10)),
            Chunker::for_embedder(ChunkSettings::default(), words_window(96)),
        ] {
            let chunks = chunker.chunk(&text, true);
            let with_rows: Vec<&String> = chunks.iter().filter(|c| c.contains("| item ")).collect();
            assert!(with_rows.len() >= 3, "{chunks:?}");
            for chunk in &with_rows {
                assert!(chunk.contains("| Item | Count | Note |\n|---|---:|---|\n| item "), "{chunk}");
                assert!(chunk.starts_with("# Stock\n\n"), "{chunk}");
                assert!(chunker.size(chunk) <= chunker.max + chunker.room() + 2, "{chunk}");
            }
            assert!(chunks.iter().all(|c| c.matches("| Item | Count |").count() <= 1));
        }
        // In code, or without a delimiter row, rows are no table.
        assert!(tables("```\n| a |\n|---|\n| b |\n```\n").is_empty());
        assert!(tables("| a | b |\n| c | d |\n").is_empty());
        assert!(chunk_text("| a |\n|---|", false, ChunkSettings::default()).len() == 1, "plain text is untouched");
    }

    #[test]
    fn a_heading_never_makes_a_chunk_of_its_own() {
        // Back-to-back headings, then a section too long to sit beside them (mdBook pages).
        let body = "Rust is installed with rustup, a command line tool. ".repeat(30);
        let text = format!("# Installation\n\n## Installing rustup on Linux\n\n{body}\n\n## Troubleshooting\n\n{body}");
        for chunker in [
            Chunker::chars(ChunkSettings::from_tokens(100, 0)),
            Chunker::for_embedder(ChunkSettings::default(), words_window(96)),
        ] {
            let chunks = chunker.chunk(&text, true);
            assert!(chunks.len() >= 3, "{chunks:?}");
            assert!(chunks.iter().all(|c| !headings_only(c)), "{chunks:?}");
            assert!(
                chunks[0].starts_with("# Installation\n\n## Installing rustup on Linux\n\nRust is installed"),
                "{chunks:?}"
            );
            let trouble = chunks.iter().find(|c| c.contains("## Troubleshooting")).unwrap();
            assert!(trouble.starts_with("# Installation\n\n## Troubleshooting\n\nRust is installed"), "{trouble}");
        }
        // A trailing heading joins the chunk before it; a text of headings only is kept.
        assert_eq!(join_lone_headings(vec![(0, "Body.".into()), (7, "# End".into())]), [(0, "Body.\n\n# End".into())]);
        assert_eq!(join_lone_headings(vec![(0, "# Only".into())]), [(0, "# Only".into())]);
        assert!(!headings_only("#hashtag is not a heading") && headings_only("# A\n\n### B"));
    }

    #[test]
    fn each_chunk_opens_with_the_headings_it_sits_under() {
        let body = |w: &str| format!("{w} is described at length here. ").repeat(12);
        let text = format!(
            "# cargo build\n\n## Options\n\n{}\n\n{}\n\n### Feature Selection\n\n{}\n\n```sh\n# not a heading\n```\n\n## Examples\n\n{}",
            body("Alpha"),
            body("Beta"),
            body("Gamma"),
            body("Delta")
        );
        let chunks = Chunker::chars(ChunkSettings::from_tokens(100, 0)).chunk(&text, true);
        let beta = chunks.iter().find(|c| c.contains("Beta is")).unwrap();
        assert!(beta.starts_with("# cargo build\n## Options\n\nBeta is"), "{beta}");
        let gamma = chunks.iter().find(|c| c.contains("Gamma is")).unwrap();
        assert!(gamma.starts_with("# cargo build\n## Options\n\n### Feature Selection\n\nGamma"), "{gamma}");
        let delta = chunks.iter().find(|c| c.contains("Delta is")).unwrap();
        assert!(delta.starts_with("# cargo build\n\n## Examples\n\nDelta"), "a fenced line is no heading: {delta}");
        // Plain text has no headings to carry.
        let plain = Chunker::chars(ChunkSettings::from_tokens(100, 0)).chunk(&text, false);
        assert!(plain.iter().filter(|c| c.starts_with("# cargo build")).count() == 1);
        // In a token window the trail fits the room: a heading longer than it is left out.
        let long_title = format!("# {}\n\n{}", "Title ".repeat(20), body("Omega").repeat(3));
        let chunks = Chunker::for_embedder(ChunkSettings::default(), words_window(96)).chunk(&long_title, true);
        assert!(chunks.len() >= 2 && !chunks[1].starts_with("# Title"), "{chunks:?}");
    }

    #[test]
    fn a_chunks_heading_path_is_the_headings_it_opens_with() {
        let body = |w: &str| format!("{w} is described at length here. ").repeat(12);
        let text =
            format!("# cargo build\n\n## Options\n\n{}\n\n### Feature Selection\n\n{}", body("Beta"), body("Gamma"));
        let chunks = Chunker::chars(ChunkSettings::from_tokens(100, 0)).chunk(&text, true);
        let path = |needle: &str| heading_path(chunks.iter().find(|c| c.contains(needle)).unwrap());
        assert_eq!(path("Beta is"), ["cargo build", "Options"]);
        assert_eq!(path("Gamma is"), ["cargo build", "Options", "Feature Selection"], "the trail and its own heading");
        assert_eq!(heading_path("## Billing ##\n###\tC#\n\nText\n# Later"), ["Billing", "C#"], "closing marks go");
        assert!(heading_path("Plain words\n# Later").is_empty());
        assert!(heading_path("#hashtag is no heading").is_empty());
        assert!(heading_path("").is_empty());
    }

    #[test]
    fn tokens_are_counted_as_chunks_are_measured() {
        assert_eq!(Chunker::chars(ChunkSettings::default()).count_tokens("123456789"), 3, "4 characters a token");
        assert_eq!(Chunker::chars(ChunkSettings::default()).count_tokens("ééé"), 1, "characters, not bytes");
        let words = Chunker::for_embedder(ChunkSettings::default(), words_window(96));
        assert_eq!(words.count_tokens("one two three"), 3, "the embedder's own tokens");
    }
}
