//! RTF: a reader of our own over the bytes (docs/decisions.md, "RTF"), one pass, no recursion,
//! no token list. The body is written as Markdown: paragraphs, headings (`\outlinelevel`), list
//! items (`\listtext`, `\pntext`, `\ls`), tables (`\trowd … \cell … \row`) as Markdown tables;
//! then text boxes, footnotes and endnotes, headers and footers, as DOCX does. The title is
//! `{\info{\title …}}`.
//!
//! Text is decoded as Word reads it: `\uN` (with its `\ucN` fallback characters skipped,
//! surrogate pairs joined), `\'hh` bytes and raw 8-bit bytes in the code page in force (the
//! font's `\fcharset`/`\cpg`, else `\ansicpgN`, else Windows-1252; bytes of double-byte code
//! pages are decoded together), `\binN` data skipped. Groups that are not running text are left
//! out: the font, colour, style and list tables, `\info` (but its title), pictures, objects'
//! data, field instructions (their results are read), bookmarks, comments, hidden text (`\v`),
//! and every `{\*\…}` destination this reader does not know.
//!
//! A document is refused when it nests groups deeper than [`MAX_GROUP_DEPTH`] or holds binary
//! bytes outside `\bin` data (a damaged or mislabelled file).

use crate::markdown::{Blocks, too_large};
use encoding_rs::{
    BIG5, EUC_JP, EUC_KR, Encoding, GB18030, GBK, IBM866, ISO_8859_2, ISO_8859_3, ISO_8859_4, ISO_8859_5, ISO_8859_6,
    ISO_8859_7, ISO_8859_8, ISO_8859_10, ISO_8859_13, ISO_8859_14, ISO_8859_15, ISO_8859_16, KOI8_R, KOI8_U, MACINTOSH,
    SHIFT_JIS, UTF_8, WINDOWS_874, WINDOWS_1250, WINDOWS_1251, WINDOWS_1252, WINDOWS_1253, WINDOWS_1254, WINDOWS_1255,
    WINDOWS_1256, WINDOWS_1257, WINDOWS_1258, X_MAC_CYRILLIC,
};
use lore_app::ports::{ExtractError, ExtractLimits};
use std::collections::HashMap;

/// Groups may not nest deeper than this. Word's own documents stay below ~30 levels (shapes in
/// tables in fields); the reader keeps one small state per open group, so the cap is about
/// refusing nonsense clearly, not about the stack.
const MAX_GROUP_DEPTH: usize = 512;
/// Raw control bytes (other than tab, CR, LF) tolerated outside `\bin` data: RTF is 7-bit text.
/// Past this many, and past 1% of the bytes read, the file is binary.
const MAX_BINARY_BYTES: usize = 64;
/// Entries of the font table kept (each maps a font to its code page).
const MAX_FONTS: usize = 4096;
/// `\ucN` is taken up to this (real writers use 0 to 2).
const MAX_FALLBACK_CHARS: usize = 16;
/// The title is read up to this many bytes.
const MAX_TITLE_BYTES: usize = 4096;

/// Where the bytes start when they are RTF: `{\rtf` after an optional UTF-8 byte-order mark and
/// whitespace.
pub(crate) fn rtf_start(bytes: &[u8]) -> Option<usize> {
    let mut at = if bytes.starts_with(b"\xef\xbb\xbf") { 3 } else { 0 };
    at += bytes[at..].iter().take_while(|b| b.is_ascii_whitespace()).count();
    bytes[at..].starts_with(b"{\\rtf").then_some(at)
}

pub(crate) fn extract(bytes: &[u8], limits: &ExtractLimits) -> Result<(String, Option<String>), ExtractError> {
    let Some(start) = rtf_start(bytes) else {
        return Err(ExtractError::Corrupt("the file does not start with an RTF header ({\\rtf)".into()));
    };
    let mut reader = Reader::new(limits.max_output_bytes);
    // The opening brace is the document group, which the reader starts in.
    reader.read(&bytes[start + 1..])?;
    reader.finish()
}

/// Where the text of a group goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dest {
    /// The running text.
    Body,
    /// A text box, note, header or footer: collected aside, written after the body.
    Aside,
    /// `\info`'s `\title`.
    Title,
    /// The font table: font numbers and their code pages.
    FontTable,
    /// Text left out, but groups inside may be read (`\info`'s title, an object's `\result`, a
    /// shape's text box).
    Discard,
    /// Nothing inside is read.
    Skip,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AsideKind {
    TextBox,
    Note,
    Furniture,
}

/// The state a group inherits from its parent and restores at its end.
#[derive(Debug, Clone)]
struct Group {
    dest: Dest,
    /// Fallback characters after `\uN` (`\ucN`).
    uc: usize,
    /// The font in force (`\fN`), which may name a code page.
    font: Option<i64>,
    /// Hidden text (`\v`).
    hidden: bool,
    /// Paragraph properties: in a table (`\intbl`), outline level (`\outlinelevelN`), in a list
    /// (`\lsN`).
    in_table: bool,
    outline: Option<usize>,
    list: bool,
}

impl Default for Group {
    fn default() -> Self {
        Self { dest: Dest::Body, uc: 1, font: None, hidden: false, in_table: false, outline: None, list: false }
    }
}

struct Aside {
    kind: AsideKind,
    paragraphs: Vec<String>,
    current: String,
}

struct Reader {
    groups: Vec<Group>,
    /// `\*` was just read: the next control word names a destination that may be skipped.
    star: bool,
    /// Fallback characters of the last `\uN` still to skip.
    skip: usize,
    high_surrogate: Option<u32>,
    /// Text bytes not yet decoded (raw bytes and `\'hh`), decoded together so that double-byte
    /// characters written as two escapes come out whole.
    bytes: Vec<u8>,
    raw_high_bytes: bool,
    doc_encoding: &'static Encoding,
    default_font: Option<i64>,
    fonts: HashMap<i64, &'static Encoding>,
    font_entry: Option<i64>,
    binary_bytes: usize,
    read_bytes: usize,

    blocks: Blocks,
    /// The body paragraph being read, and whether a list marker (`\listtext`) opened it.
    paragraph: String,
    list_marker: bool,
    /// The table being read: the current cell's paragraphs, the row's cells, the rows.
    cell: String,
    row: Vec<String>,
    table: Vec<Vec<String>>,
    aside: Option<Aside>,
    text_boxes: Vec<String>,
    notes: Vec<String>,
    furniture: Vec<String>,
    title: String,
    title_done: bool,
    /// Bytes of text read but not yet written to `blocks`, and the most of them kept.
    held: usize,
    max_held: usize,
}

impl Reader {
    fn new(max_output_bytes: usize) -> Self {
        Self {
            groups: vec![Group::default()],
            star: false,
            skip: 0,
            high_surrogate: None,
            bytes: Vec::new(),
            raw_high_bytes: false,
            doc_encoding: WINDOWS_1252,
            default_font: None,
            fonts: HashMap::new(),
            font_entry: None,
            binary_bytes: 0,
            read_bytes: 0,
            blocks: Blocks::new(max_output_bytes),
            paragraph: String::new(),
            list_marker: false,
            cell: String::new(),
            row: Vec::new(),
            table: Vec::new(),
            aside: None,
            text_boxes: Vec::new(),
            notes: Vec::new(),
            furniture: Vec::new(),
            title: String::new(),
            title_done: false,
            held: 0,
            // Text shrinks when its whitespace is collapsed; twice the output cap is more than
            // any real document holds back.
            max_held: max_output_bytes.saturating_mul(2),
        }
    }

    fn top(&self) -> &Group {
        // The document group is never popped while reading.
        &self.groups[self.groups.len() - 1]
    }

    fn top_mut(&mut self) -> &mut Group {
        let last = self.groups.len() - 1;
        &mut self.groups[last]
    }

    /// Reads the document group's content, up to its closing brace (a file cut short ends
    /// where it ends).
    fn read(&mut self, b: &[u8]) -> Result<(), ExtractError> {
        let mut at = 0;
        while at < b.len() {
            match b[at] {
                b'{' => {
                    self.flush()?;
                    (self.star, self.skip) = (false, 0);
                    if self.groups.len() >= MAX_GROUP_DEPTH {
                        return Err(ExtractError::Corrupt(format!(
                            "the RTF document nests groups more than {MAX_GROUP_DEPTH} levels deep"
                        )));
                    }
                    let inherited = self.top().clone();
                    self.groups.push(inherited);
                    at += 1;
                }
                b'}' => {
                    self.flush()?;
                    (self.star, self.skip) = (false, 0);
                    if self.groups.len() == 1 {
                        // The end of the document. What follows is not read, but NUL padding
                        // aside, binary bytes there are a damaged file, as they would be inside.
                        let rest = &b[at + 1..];
                        self.binary_bytes += rest.iter().filter(|&&c| c != 0 && is_binary(c)).count();
                        self.read_bytes = b.len();
                        return self.check_binary();
                    }
                    self.close_group();
                    at += 1;
                }
                b'\\' => at = self.control(b, at)?,
                b'\r' | b'\n' => at += 1,
                _ => {
                    let end = b[at..].iter().position(|c| matches!(c, b'{' | b'}' | b'\\' | b'\r' | b'\n'));
                    let end = end.map_or(b.len(), |n| at + n);
                    self.read_bytes = end;
                    self.plain(&b[at..end])?;
                    at = end;
                }
            }
        }
        Ok(())
    }

    fn close_group(&mut self) {
        let Some(closed) = self.groups.pop() else { return };
        let parent = self.top().dest;
        if closed.dest == Dest::Aside && parent != Dest::Aside {
            self.finish_aside();
        }
        if closed.dest == Dest::Title && parent != Dest::Title {
            self.title_done = true;
        }
    }

    /// A control word or symbol at `b[at]` (a backslash); where reading goes on.
    fn control(&mut self, b: &[u8], at: usize) -> Result<usize, ExtractError> {
        let Some(&next) = b.get(at + 1) else { return Ok(b.len()) };
        if next.is_ascii_alphabetic() {
            let name_end = at + 1 + b[at + 1..].iter().take_while(|c| c.is_ascii_alphabetic()).count();
            let name = &b[at + 1..name_end];
            let mut end = name_end;
            let negative = b.get(end) == Some(&b'-') && b.get(end + 1).is_some_and(u8::is_ascii_digit);
            if negative {
                end += 1;
            }
            let digits = b[end..].iter().take_while(|c| c.is_ascii_digit()).count();
            let param = (digits > 0).then(|| {
                let value = b[end..end + digits]
                    .iter()
                    .fold(0i64, |n, d| n.saturating_mul(10).saturating_add(i64::from(d - b'0')).min(1 << 40));
                if negative { -value } else { value }
            });
            end += digits;
            if b.get(end) == Some(&b' ') {
                end += 1;
            }
            if name == b"bin" {
                // Binary data: `param` raw bytes, never text.
                self.flush()?;
                self.star = false;
                let length = usize::try_from(param.unwrap_or(0).max(0)).unwrap_or(usize::MAX);
                return Ok(end.saturating_add(length).min(b.len()));
            }
            self.word(name, param)?;
            return Ok(end);
        }
        if next == b'\'' {
            let hex = |i: usize| b.get(i).and_then(|c| (*c as char).to_digit(16));
            return Ok(match (hex(at + 2), hex(at + 3)) {
                (Some(high), Some(low)) => {
                    self.star = false;
                    if !self.fallback_char() {
                        self.push_byte((high * 16 + low) as u8);
                    }
                    at + 4
                }
                _ => at + 2,
            });
        }
        match next {
            b'*' => {
                self.flush()?;
                self.star = true;
            }
            b'\\' | b'{' | b'}' => {
                self.star = false;
                if !self.fallback_char() {
                    self.push_byte(next);
                }
            }
            b'\r' | b'\n' => self.word(b"par", None)?,
            b'~' => self.symbol("\u{a0}")?,
            b'_' => self.symbol("-")?,
            // `\-` (an optional hyphen), `\:` (index subentry), `\|` (formula): no text.
            _ => {
                self.star = false;
                self.fallback_char();
            }
        }
        Ok(at + 2)
    }

    /// Whether a character of the fallback text of a `\uN` is being skipped (and counts it).
    fn fallback_char(&mut self) -> bool {
        if self.skip > 0 {
            self.skip -= 1;
            return true;
        }
        false
    }

    fn symbol(&mut self, text: &str) -> Result<(), ExtractError> {
        self.star = false;
        if !self.fallback_char() {
            self.flush()?;
            self.push_text(text)?;
        }
        Ok(())
    }

    /// A run of plain bytes (no brace, backslash or line break).
    fn plain(&mut self, run: &[u8]) -> Result<(), ExtractError> {
        self.star = false;
        let mut run = run;
        if self.skip > 0 {
            let skipped = self.skip.min(run.len());
            self.skip -= skipped;
            run = &run[skipped..];
        }
        let binary = run.iter().filter(|&&c| is_binary(c)).count();
        if binary > 0 {
            self.binary_bytes += binary;
            self.check_binary()?;
        }
        if !self.takes_text() {
            return Ok(());
        }
        if run.iter().any(|&c| c >= 0x80) {
            self.raw_high_bytes = true;
        }
        self.bytes.extend_from_slice(run);
        Ok(())
    }

    fn check_binary(&self) -> Result<(), ExtractError> {
        if self.binary_bytes > MAX_BINARY_BYTES && self.binary_bytes * 100 > self.read_bytes {
            return Err(ExtractError::Corrupt(
                "the file starts as an RTF document but holds binary data (is it damaged?)".into(),
            ));
        }
        Ok(())
    }

    fn push_byte(&mut self, byte: u8) {
        if self.takes_text() {
            self.bytes.push(byte);
        }
    }

    /// Whether text read now is kept.
    fn takes_text(&self) -> bool {
        let group = self.top();
        !group.hidden && matches!(group.dest, Dest::Body | Dest::Aside | Dest::Title)
    }

    /// The code page of the font in force.
    fn encoding(&self) -> &'static Encoding {
        let font = self.top().font.or(self.default_font);
        font.and_then(|f| self.fonts.get(&f).copied()).unwrap_or(self.doc_encoding)
    }

    /// Decodes the bytes read so far into the text.
    fn flush(&mut self) -> Result<(), ExtractError> {
        if self.bytes.is_empty() {
            return Ok(());
        }
        let bytes = std::mem::take(&mut self.bytes);
        // Raw 8-bit bytes that make valid UTF-8 are UTF-8: writers that do not escape them
        // write UTF-8 whatever their header says.
        let utf8 = if self.raw_high_bytes { std::str::from_utf8(&bytes).ok() } else { None };
        self.raw_high_bytes = false;
        match utf8 {
            Some(text) => self.push_text(text)?,
            None => {
                let (text, _) = self.encoding().decode_without_bom_handling(&bytes);
                self.push_text(&text)?;
            }
        }
        self.bytes = bytes;
        self.bytes.clear();
        Ok(())
    }

    /// Appends decoded text where the group's text goes (control characters left out).
    fn push_text(&mut self, text: &str) -> Result<(), ExtractError> {
        self.high_surrogate = None;
        self.push_text_keeping_surrogate(text)
    }

    fn push_text_keeping_surrogate(&mut self, text: &str) -> Result<(), ExtractError> {
        if !self.takes_text() {
            return Ok(());
        }
        let target = match self.top().dest {
            Dest::Body => &mut self.paragraph,
            Dest::Aside => match &mut self.aside {
                Some(aside) => &mut aside.current,
                None => return Ok(()),
            },
            Dest::Title => {
                if !self.title_done && self.title.len() < MAX_TITLE_BYTES {
                    self.title.push_str(text);
                }
                return Ok(());
            }
            _ => return Ok(()),
        };
        let before = target.len();
        if text.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
            target.extend(text.chars().filter(|&c| !c.is_control() || c == '\n' || c == '\t'));
        } else {
            target.push_str(text);
        }
        self.held += target.len() - before;
        if self.held > self.max_held {
            return Err(too_large(self.max_held / 2));
        }
        Ok(())
    }

    /// `\uN`: a UTF-16 code unit as a signed 16-bit number (or, from some writers, a code
    /// point), then `\ucN` fallback characters to skip.
    fn unicode(&mut self, param: i64) -> Result<(), ExtractError> {
        let unit = if param < 0 { param + 0x10000 } else { param };
        // Out of range: nothing (its fallback is still skipped).
        let unit = u32::try_from(unit).unwrap_or(u32::MAX);
        let c = match unit {
            0xd800..=0xdbff => {
                self.high_surrogate = Some(unit);
                None
            }
            0xdc00..=0xdfff => match self.high_surrogate.take() {
                Some(high) => char::from_u32(0x10000 + ((high - 0xd800) << 10) + (unit - 0xdc00)),
                None => None,
            },
            _ => {
                self.high_surrogate = None;
                char::from_u32(unit)
            }
        };
        if let Some(c) = c {
            let mut utf8 = [0u8; 4];
            self.push_text_keeping_surrogate(c.encode_utf8(&mut utf8))?;
        }
        self.skip = self.top().uc;
        Ok(())
    }

    /// A control word (`\bin` is handled by the lexer).
    fn word(&mut self, name: &[u8], param: Option<i64>) -> Result<(), ExtractError> {
        let star = std::mem::take(&mut self.star);
        if self.fallback_char() {
            return Ok(());
        }
        self.flush()?;
        let dest = self.top().dest;
        if dest == Dest::Skip {
            return Ok(());
        }
        if dest == Dest::FontTable && !star {
            self.font_table_word(name, param);
            return Ok(());
        }
        if star {
            self.enter(destination(name, true).unwrap_or(Dest::Skip), name);
            return Ok(());
        }
        let n = param.unwrap_or(1);
        match name {
            b"par" | b"sect" | b"page" | b"column" => self.end_paragraph()?,
            b"line" | b"softline" => self.push_text("\n")?,
            b"tab" => self.push_text("\t")?,
            b"cell" => self.end_cell(),
            b"row" => self.end_row(),
            b"nestcell" | b"nestrow" => self.push_text("\n")?,
            b"u" => self.unicode(param.unwrap_or(0))?,
            b"uc" => self.top_mut().uc = usize::try_from(n.max(0)).unwrap_or(0).min(MAX_FALLBACK_CHARS),
            b"pard" => {
                let group = self.top_mut();
                (group.in_table, group.outline, group.list) = (false, None, false);
            }
            b"intbl" => self.top_mut().in_table = true,
            b"itap" => self.top_mut().in_table = n > 0,
            b"outlinelevel" => self.top_mut().outline = usize::try_from(n).ok().filter(|&l| l < 9),
            b"ls" => self.top_mut().list = n > 0,
            b"plain" => self.top_mut().hidden = false,
            b"v" => self.top_mut().hidden = n != 0,
            b"f" => self.top_mut().font = param,
            b"deff" => self.default_font = param,
            b"ansi" => self.doc_encoding = WINDOWS_1252,
            b"mac" => self.doc_encoding = MACINTOSH,
            b"ansicpg" => self.doc_encoding = code_page(n).unwrap_or(self.doc_encoding),
            b"emdash" => self.push_text("\u{2014}")?,
            b"endash" => self.push_text("\u{2013}")?,
            b"emspace" | b"enspace" | b"qmspace" => self.push_text(" ")?,
            b"bullet" => self.push_text("\u{2022}")?,
            b"lquote" => self.push_text("\u{2018}")?,
            b"rquote" => self.push_text("\u{2019}")?,
            b"ldblquote" => self.push_text("\u{201c}")?,
            b"rdblquote" => self.push_text("\u{201d}")?,
            _ => {
                if let Some(dest) = destination(name, false) {
                    self.enter(dest, name);
                }
            }
        }
        Ok(())
    }

    fn font_table_word(&mut self, name: &[u8], param: Option<i64>) {
        let Some(n) = param else { return };
        match name {
            b"f" => self.font_entry = Some(n),
            b"fcharset" | b"cpg" => {
                let encoding = if name == b"cpg" { code_page(n) } else { charset(n) };
                if let (Some(font), Some(encoding)) = (self.font_entry, encoding)
                    && (self.fonts.len() < MAX_FONTS || self.fonts.contains_key(&font))
                {
                    self.fonts.insert(font, encoding);
                }
            }
            _ => {}
        }
    }

    fn enter(&mut self, dest: Dest, name: &[u8]) {
        let current = self.top().dest;
        match dest {
            // A text box, note or header inside another is read with it.
            Dest::Aside if current == Dest::Aside => {}
            Dest::Aside => {
                let kind = match name {
                    b"shptxt" => AsideKind::TextBox,
                    b"footnote" => AsideKind::Note,
                    _ => AsideKind::Furniture,
                };
                self.aside = Some(Aside { kind, paragraphs: Vec::new(), current: String::new() });
                self.top_mut().dest = Dest::Aside;
            }
            Dest::Title if self.title_done => self.top_mut().dest = Dest::Discard,
            // An object's result is what the document shows in its place.
            Dest::Body => {
                if current == Dest::Discard {
                    self.top_mut().dest = Dest::Body;
                }
            }
            _ => {
                if current == Dest::Body && (name == b"listtext" || name == b"pntext") {
                    self.list_marker = true;
                }
                self.top_mut().dest = dest;
            }
        }
    }

    fn finish_aside(&mut self) {
        let Some(mut aside) = self.aside.take() else { return };
        aside.paragraphs.push(std::mem::take(&mut aside.current));
        let text = aside.paragraphs.iter().map(|p| p.trim()).filter(|p| !p.is_empty()).collect::<Vec<_>>().join("\n");
        if text.is_empty() {
            return;
        }
        let list = match aside.kind {
            AsideKind::TextBox => &mut self.text_boxes,
            AsideKind::Note => &mut self.notes,
            // Headers and footers are written once for every section and page kind.
            AsideKind::Furniture if self.furniture.contains(&text) => return,
            AsideKind::Furniture => &mut self.furniture,
        };
        list.push(text);
    }

    fn end_paragraph(&mut self) -> Result<(), ExtractError> {
        match self.top().dest {
            Dest::Body => {}
            Dest::Aside => {
                if let Some(aside) = &mut self.aside {
                    aside.paragraphs.push(std::mem::take(&mut aside.current));
                }
                return Ok(());
            }
            Dest::Title => return self.push_text(" "),
            _ => return Ok(()),
        }
        let text = std::mem::take(&mut self.paragraph);
        let list = std::mem::take(&mut self.list_marker) || self.top().list;
        if self.top().in_table {
            self.add_to_cell(&text);
            return Ok(());
        }
        self.write_table()?;
        self.held = self.held.saturating_sub(text.len());
        match self.top().outline {
            Some(level) => self.blocks.heading(level + 1, &text),
            None if list => self.blocks.list_item(&text),
            None => self.blocks.paragraph(&text),
        }
    }

    fn add_to_cell(&mut self, text: &str) {
        if !self.cell.is_empty() && !text.trim().is_empty() {
            self.cell.push('\n');
        }
        self.cell.push_str(text);
    }

    fn end_cell(&mut self) {
        match self.top().dest {
            Dest::Body => {
                let text = std::mem::take(&mut self.paragraph);
                self.add_to_cell(&text);
                self.row.push(std::mem::take(&mut self.cell));
                self.list_marker = false;
            }
            Dest::Aside => {
                if let Some(aside) = &mut self.aside {
                    aside.current.push('\t');
                }
            }
            _ => {}
        }
    }

    fn end_row(&mut self) {
        match self.top().dest {
            Dest::Body => {
                if !self.paragraph.trim().is_empty() || !self.cell.trim().is_empty() {
                    self.end_cell();
                }
                if !self.row.is_empty() {
                    let row = std::mem::take(&mut self.row);
                    self.table.push(row);
                }
            }
            Dest::Aside => {
                if let Some(aside) = &mut self.aside {
                    aside.paragraphs.push(std::mem::take(&mut aside.current));
                }
            }
            _ => {}
        }
    }

    /// Writes the table read so far (a row left open included).
    fn write_table(&mut self) -> Result<(), ExtractError> {
        if !self.cell.is_empty() {
            let cell = std::mem::take(&mut self.cell);
            self.row.push(cell);
        }
        if !self.row.is_empty() {
            let row = std::mem::take(&mut self.row);
            self.table.push(row);
        }
        if self.table.is_empty() {
            return Ok(());
        }
        let table = std::mem::take(&mut self.table);
        let bytes: usize = table.iter().flatten().map(String::len).sum();
        self.held = self.held.saturating_sub(bytes);
        self.blocks.table(&table)
    }

    fn finish(mut self) -> Result<(String, Option<String>), ExtractError> {
        self.flush()?;
        // A file cut short, or whose last paragraph has no `\par` (TextEdit writes none).
        while self.groups.len() > 1 {
            self.close_group();
        }
        if !self.paragraph.trim().is_empty() {
            if self.top().in_table || !self.row.is_empty() {
                self.end_row();
            } else {
                self.end_paragraph()?;
            }
        }
        self.write_table()?;
        for text in self.text_boxes.iter().chain(&self.notes).chain(&self.furniture) {
            self.blocks.paragraph(text)?;
        }
        let title = crate::text::single_line(&self.title);
        Ok((self.blocks.finish(), Some(title).filter(|t| !t.is_empty())))
    }
}

/// Destinations whose text is not the document's: tables of the header, pictures, objects' data,
/// field instructions, bookmarks, index and contents entries, comments, list markers (the item
/// is written as `- `), `\info`'s other entries, and the font table's alternates.
const SKIPPED: &[&[u8]] = &[
    b"colortbl",
    b"stylesheet",
    b"listtable",
    b"listoverridetable",
    b"revtbl",
    b"rsidtbl",
    b"filetbl",
    b"generator",
    b"xmlnstbl",
    b"themedata",
    b"colorschememapping",
    b"datastore",
    b"latentstyles",
    b"pgdsctbl",
    b"mmathPr",
    b"pict",
    b"shppict",
    b"nonshppict",
    b"sp",
    b"shprslt",
    b"do",
    b"objdata",
    b"objclass",
    b"fldinst",
    b"xe",
    b"tc",
    b"tcn",
    b"bkmkstart",
    b"bkmkend",
    b"template",
    b"annotation",
    b"atnid",
    b"atnauthor",
    b"atndate",
    b"atnref",
    b"atrfstart",
    b"atrfend",
    b"txe",
    b"userprops",
    b"docvar",
    b"ftnsep",
    b"ftnsepc",
    b"ftncn",
    b"aftnsep",
    b"aftnsepc",
    b"aftncn",
    b"falt",
    b"panose",
    b"fontemb",
    b"fontfile",
    b"listtext",
    b"pntext",
    b"pn",
    b"background",
    b"nesttableprops",
    b"author",
    b"operator",
    b"keywords",
    b"subject",
    b"comment",
    b"doccomm",
    b"company",
    b"manager",
    b"category",
];

/// A control byte that text does not hold (line ends are read before).
fn is_binary(c: u8) -> bool {
    (c < 0x20 && !matches!(c, b'\t' | b'\r' | b'\n')) || c == 0x7f
}

/// Where a control word sends its group, when it is a destination. `star`: it follows `\*`, so a
/// reader that does not know it skips the group.
fn destination(name: &[u8], star: bool) -> Option<Dest> {
    Some(match name {
        b"fonttbl" => Dest::FontTable,
        b"info" | b"object" | b"shpinst" => Dest::Discard,
        b"title" => Dest::Title,
        b"result" => Dest::Body,
        b"shptxt" | b"footnote" | b"header" | b"headerl" | b"headerr" | b"headerf" | b"footer" | b"footerl"
        | b"footerr" | b"footerf" => Dest::Aside,
        _ if star || SKIPPED.contains(&name) => Dest::Skip,
        _ => return None,
    })
}

/// The encoding of a Windows code page (`\ansicpgN`, `\cpgN`); `None` for those encoding_rs
/// does not have (the DOS pages 437 and 850, Johab): their text reads as the document's.
fn code_page(n: i64) -> Option<&'static Encoding> {
    Some(match n {
        866 => IBM866,
        874 => WINDOWS_874,
        932 => SHIFT_JIS,
        936 => GBK,
        949 => EUC_KR,
        950 => BIG5,
        1250 => WINDOWS_1250,
        1251 => WINDOWS_1251,
        1252 | 28591 => WINDOWS_1252,
        1253 => WINDOWS_1253,
        1254 | 28599 => WINDOWS_1254,
        1255 => WINDOWS_1255,
        1256 => WINDOWS_1256,
        1257 => WINDOWS_1257,
        1258 => WINDOWS_1258,
        10000 => MACINTOSH,
        10007 => X_MAC_CYRILLIC,
        20866 => KOI8_R,
        21866 => KOI8_U,
        20932 | 51932 => EUC_JP,
        28592 => ISO_8859_2,
        28593 => ISO_8859_3,
        28594 => ISO_8859_4,
        28595 => ISO_8859_5,
        28596 => ISO_8859_6,
        28597 => ISO_8859_7,
        28598 => ISO_8859_8,
        28600 => ISO_8859_10,
        28603 => ISO_8859_13,
        28604 => ISO_8859_14,
        28605 => ISO_8859_15,
        28606 => ISO_8859_16,
        54936 => GB18030,
        65001 => UTF_8,
        _ => return None,
    })
}

/// The code page of a font's character set (`\fcharsetN`); `None` for the document's own
/// (ANSI, default, symbol, OEM).
fn charset(n: i64) -> Option<&'static Encoding> {
    code_page(match n {
        77 => 10000,
        128 => 932,
        129 => 949,
        134 => 936,
        136 => 950,
        161 => 1253,
        162 => 1254,
        163 => 1258,
        177 => 1255,
        178 => 1256,
        186 => 1257,
        204 => 1251,
        222 => 874,
        238 => 1250,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(rtf: &str) -> (String, Option<String>) {
        extract(rtf.as_bytes(), &ExtractLimits::default()).unwrap()
    }

    #[test]
    fn the_header_may_follow_a_bom_and_whitespace() {
        assert_eq!(rtf_start(b"{\\rtf1 x}"), Some(0));
        assert_eq!(rtf_start(b"\xef\xbb\xbf \r\n{\\rtf1 x}"), Some(6));
        assert_eq!(rtf_start(b"x{\\rtf1}"), None);
        assert_eq!(rtf_start(b"{\\rt"), None);
    }

    #[test]
    fn code_pages_escapes_and_unicode() {
        let (text, _) = read(r"{\rtf1\ansi\ansicpg1252 Caf\'e9 \'80 \'93q\'94 \u8364? \uc2\u20320\'c4\'e3!\par}");
        assert_eq!(text, "Café € “q” € 你!");
        let (text, _) = read(r"{\rtf1\ansi\ansicpg1251 \'cf\'f0\'e8\'e2\'e5\'f2\par}");
        assert_eq!(text, "Привет");
        // Shift_JIS bytes of one character written as two escapes.
        let (text, _) = read(r"{\rtf1\ansi\ansicpg932 \'93\'fa\'96\'7b\par}");
        assert_eq!(text, "日本");
        // A surrogate pair, and a code point written whole.
        let (text, _) = read(r"{\rtf1 \u-10179?\u-9178? \u128038?\par}");
        assert_eq!(text, "🐦 🐦");
    }

    #[test]
    fn fonts_name_their_code_page() {
        let rtf = r"{\rtf1\ansi\deff0{\fonttbl{\f0\fnil\fcharset0 Calibri;}{\f1\fnil\fcharset204 Calibri;}{\f2\fnil\fcharset161 Arial;}}
            \f0 caf\'e9 \f1\'cf\'f0\'e8 {\f2\'e1\'e2} \'e8\par}";
        assert_eq!(read(rtf).0, "café При αβ и");
    }

    #[test]
    fn binary_data_and_hex_pictures_are_not_text() {
        let (text, _) = read("{\\rtf1 before {\\pict\\pngblip 89504e47}\\bin4 {}\\ after}");
        assert_eq!(text, "before after");
    }
}
