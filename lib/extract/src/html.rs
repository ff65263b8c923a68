//! Main text of a crawled web page through scraper (html5ever), as Markdown-ish text.

use crate::text::{collapse_whitespace, detect_legacy, single_line};
use encoding_rs::{Encoding, UTF_8, WINDOWS_1252};
use lore_app::ports::ExtractError;
use scraper::{ElementRef, Html, Node, Selector, node::Element};

/// Elements whose content is never page text.
const DROPPED: &[&str] = &[
    "script", "style", "noscript", "nav", "aside", "form", "svg", "iframe", "template", "head", "title", "button",
    "select", "canvas", "object", "embed", "audio", "video", "math", "dialog",
];
/// ARIA landmarks of page chrome.
const DROPPED_ROLES: &[&str] = &["navigation", "banner", "contentinfo", "search", "complementary"];
/// Sectioning elements that scope a `header`/`footer` to themselves (then they hold content,
/// such as an article's heading, and are kept).
const SECTIONING: &[&str] = &["article", "main", "section"];
/// Elements that begin and end a block of text.
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "section",
    "article",
    "main",
    "blockquote",
    "pre",
    "table",
    "thead",
    "tbody",
    "tfoot",
    "ul",
    "ol",
    "dl",
    "dt",
    "dd",
    "figure",
    "figcaption",
    "address",
    "hr",
    "details",
    "summary",
    "fieldset",
    "center",
    "body",
    "header",
    "footer",
    "caption",
];
/// How far into the bytes a `<meta charset>` is looked for (the HTML prescan limit).
const META_PRESCAN_BYTES: usize = 1024;

pub(crate) fn extract(bytes: &[u8], max_output_bytes: usize) -> Result<(String, Option<String>), ExtractError> {
    let html = Html::parse_document(&decode(bytes));
    let title = page_title(&html);
    let root = main_content(&html);
    let text = render(root, max_output_bytes)?;
    Ok((collapse_whitespace(&text), title))
}

// ------------------------------------------------------------------------------ decoding

/// Byte-order mark, else `<meta charset>` (or `http-equiv` content type) within the first KiB,
/// else UTF-8 when valid, else the charset chardetng guesses. (Lossy UTF-8 would be enough
/// for the last case; detection reads legacy pages — Windows-1252, Shift_JIS — correctly.)
pub(crate) fn decode(bytes: &[u8]) -> String {
    if let Some((encoding, bom_len)) = Encoding::for_bom(bytes) {
        return encoding.decode_without_bom_handling(&bytes[bom_len..]).0.into_owned();
    }
    if let Some(encoding) = meta_charset(&bytes[..bytes.len().min(META_PRESCAN_BYTES)]) {
        return encoding.decode_without_bom_handling(bytes).0.into_owned();
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => {
            let sample = &bytes[..bytes.len().min(1024 * 1024)];
            detect_legacy(sample, sample.len() == bytes.len()).decode_without_bom_handling(bytes).0.into_owned()
        }
    }
}

/// The charset declared by a `<meta>` tag, as browsers resolve it: UTF-16 labels mean UTF-8
/// (the bytes being ASCII-compatible), `x-user-defined` means Windows-1252.
fn meta_charset(head: &[u8]) -> Option<&'static Encoding> {
    let lower = head.to_ascii_lowercase();
    let mut from = 0;
    while let Some(pos) = find(&lower[from..], b"<meta") {
        let tag_start = from + pos;
        let tag_end = find(&lower[tag_start..], b">").map_or(lower.len(), |end| tag_start + end);
        let tag = &lower[tag_start..tag_end];
        if let Some(at) = find(tag, b"charset") {
            let value = tag[at + b"charset".len()..].trim_ascii_start();
            if let Some(value) = value.strip_prefix(b"=") {
                let value = value.trim_ascii_start();
                let value = value.strip_prefix(b"\"").or_else(|| value.strip_prefix(b"'")).unwrap_or(value);
                let end = value
                    .iter()
                    .position(|b| matches!(b, b'"' | b'\'' | b';' | b'/' | b'>') || b.is_ascii_whitespace())
                    .unwrap_or(value.len());
                if let Some(encoding) = Encoding::for_label(&value[..end]) {
                    return Some(if encoding.name().starts_with("UTF-16") {
                        UTF_8
                    } else if encoding.name() == "x-user-defined" {
                        WINDOWS_1252
                    } else {
                        encoding
                    });
                }
            }
        }
        from = tag_end;
    }
    None
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

// ------------------------------------------------------------------------------ structure

fn selector(css: &str) -> Selector {
    Selector::parse(css).expect("the selectors of this module are valid CSS")
}

/// `<title>`, else the first `<h1>`.
fn page_title(html: &Html) -> Option<String> {
    [selector("head title"), selector("title"), selector("h1")]
        .iter()
        .find_map(|s| html.select(s).map(|e| single_line(&e.text().collect::<String>())).find(|t| !t.is_empty()))
}

/// `main`, else `[role=main]`, else the only `article`, else `body` (else the whole document).
fn main_content(html: &Html) -> ElementRef<'_> {
    if let Some(main) = html.select(&selector("main, [role=main]")).find(|e| !is_hidden(e.value())) {
        return main;
    }
    let article_selector = selector("article");
    let mut articles = html.select(&article_selector);
    if let (Some(article), None) = (articles.next(), articles.next()) {
        return article;
    }
    html.select(&selector("body")).next().unwrap_or_else(|| html.root_element())
}

fn is_hidden(element: &Element) -> bool {
    element.attr("hidden").is_some()
        || element.attr("aria-hidden").is_some_and(|v| v.eq_ignore_ascii_case("true"))
        || element.attr("style").is_some_and(|s| {
            let s: String = s.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
            s.contains("display:none") || s.contains("visibility:hidden")
        })
}

// ------------------------------------------------------------------------------ rendering

/// What separates the next text from the text before it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Gap {
    None,
    Space,
    Line,
    Block,
}

struct Out {
    text: String,
    gap: Gap,
    /// Written before the next text: `# ` of a heading, `- ` of a list item, ` | ` of a cell.
    prefix: Option<String>,
    max_output_bytes: usize,
}

impl Out {
    fn gap(&mut self, gap: Gap) {
        self.gap = self.gap.max(gap);
    }

    /// Starts a block-level line with a marker (written with the element's first text; dropped
    /// when the element closes without text).
    fn start_line(&mut self, gap: Gap, prefix: String) {
        self.gap(gap);
        self.prefix = Some(prefix);
    }

    fn flush_gap(&mut self) {
        if !self.text.is_empty() {
            match self.gap {
                Gap::None => {}
                Gap::Space => self.text.push(' '),
                Gap::Line => self.text.push('\n'),
                Gap::Block => self.text.push_str("\n\n"),
            }
        }
        self.gap = Gap::None;
        if let Some(prefix) = self.prefix.take() {
            self.text.push_str(&prefix);
        }
    }

    /// Text of the page, whitespace collapsed; inside `pre` line breaks are kept (spaces are
    /// collapsed later, as everywhere).
    fn push_text(&mut self, text: &str, preformatted: bool) -> Result<(), ExtractError> {
        if preformatted {
            if !text.is_empty() {
                self.flush_gap();
                self.text.push_str(text);
            }
        } else {
            if text.starts_with(char::is_whitespace) {
                self.gap(Gap::Space);
            }
            for (i, word) in text.split_whitespace().enumerate() {
                if i > 0 {
                    self.gap(Gap::Space);
                }
                self.flush_gap();
                self.text.push_str(word);
            }
            if text.ends_with(char::is_whitespace) {
                self.gap(Gap::Space);
            }
        }
        if self.text.len() > self.max_output_bytes {
            return Err(ExtractError::TooLarge(format!("the extracted text exceeds {} bytes", self.max_output_bytes)));
        }
        Ok(())
    }
}

/// Where the walk is: inside how many `pre`, and in which tables (Markdown tables are written
/// as the rows arrive).
#[derive(Default)]
struct Nesting {
    pre_depth: usize,
    /// Rows written so far of each open table, innermost last.
    tables: Vec<usize>,
    /// Cells opened so far in each open row, innermost last.
    cells_in_row: Vec<usize>,
    /// Open `td`/`th` elements: a block inside a cell must not break its row.
    in_cell: usize,
}

/// Walks the tree iteratively (a hostile page may nest elements deeper than any stack).
fn render(root: ElementRef<'_>, max_output_bytes: usize) -> Result<String, ExtractError> {
    let mut out = Out { text: String::new(), gap: Gap::None, prefix: None, max_output_bytes };
    let mut at = Nesting::default();
    let root_id = root.id();
    let mut node = *root;
    'walk: loop {
        // Open `node`; descend into it unless it is dropped.
        let mut descend = true;
        match node.value() {
            Node::Text(text) => out.push_text(text, at.pre_depth > 0)?,
            Node::Element(element) => {
                let name = element.name();
                let is_page_chrome = matches!(name, "header" | "footer")
                    && !node
                        .ancestors()
                        .any(|a| a.value().as_element().is_some_and(|e| SECTIONING.contains(&e.name())));
                if node.id() != root_id
                    && (DROPPED.contains(&name)
                        || is_page_chrome
                        || is_hidden(element)
                        || element.attr("role").is_some_and(|r| DROPPED_ROLES.contains(&r.trim())))
                {
                    descend = false;
                } else {
                    open_element(name, &mut out, &mut at);
                }
            }
            _ => descend = matches!(node.value(), Node::Document | Node::Fragment),
        }
        if descend && let Some(child) = node.first_child() {
            node = child;
            continue;
        }
        // Close `node` (and its ancestors while they have no next sibling).
        loop {
            if descend && let Node::Element(element) = node.value() {
                close_element(element.name(), &mut out, &mut at);
            }
            descend = true;
            if node.id() == root_id {
                break 'walk;
            }
            if let Some(sibling) = node.next_sibling() {
                node = sibling;
                break;
            }
            match node.parent() {
                Some(parent) => node = parent,
                None => break 'walk,
            }
        }
    }
    Ok(out.text)
}

fn heading_level(name: &str) -> Option<usize> {
    match name {
        "h1" => Some(1),
        "h2" => Some(2),
        "h3" => Some(3),
        "h4" => Some(4),
        "h5" => Some(5),
        "h6" => Some(6),
        _ => None,
    }
}

/// A block's gap, or a space inside a table cell (a cell's paragraphs stay on its row).
fn block_gap(at: &Nesting, gap: Gap) -> Gap {
    if at.in_cell > 0 { Gap::Space } else { gap }
}

fn open_element(name: &str, out: &mut Out, at: &mut Nesting) {
    if let Some(level) = heading_level(name) {
        if at.in_cell == 0 {
            out.start_line(Gap::Block, format!("{} ", "#".repeat(level)));
        }
        return;
    }
    match name {
        "li" => out.start_line(block_gap(at, Gap::Line), "- ".to_owned()),
        "br" => out.gap(block_gap(at, Gap::Line)),
        "table" => {
            out.gap(block_gap(at, Gap::Block));
            at.tables.push(0);
        }
        "tr" => {
            out.gap(Gap::Line);
            at.cells_in_row.push(0);
        }
        // Row groups: the rows of one table follow each other line by line.
        "thead" | "tbody" | "tfoot" => out.gap(Gap::Line),
        "td" | "th" => {
            if let Some(cells) = at.cells_in_row.last_mut() {
                // Written at once, so that an empty cell keeps its column.
                out.prefix = None;
                if *cells == 0 {
                    out.flush_gap();
                    out.text.push('|');
                } else {
                    out.gap = Gap::None;
                    out.text.push_str(" |");
                }
                out.gap(Gap::Space);
                *cells += 1;
            }
            at.in_cell += 1;
        }
        "pre" => {
            out.gap(block_gap(at, Gap::Block));
            at.pre_depth += 1;
        }
        _ if BLOCKS.contains(&name) => out.gap(block_gap(at, Gap::Block)),
        _ => {}
    }
}

fn close_element(name: &str, out: &mut Out, at: &mut Nesting) {
    if heading_level(name).is_some() {
        out.prefix = None;
        out.gap(block_gap(at, Gap::Block));
        return;
    }
    match name {
        "li" => {
            out.prefix = None;
            out.gap(block_gap(at, Gap::Line));
        }
        "td" | "th" => at.in_cell = at.in_cell.saturating_sub(1),
        "tr" => {
            let cells = at.cells_in_row.pop().unwrap_or(0);
            out.prefix = None;
            if cells > 0 {
                out.gap = Gap::None;
                out.text.push_str(" |");
                // The first row is the header: the delimiter row follows it.
                if let Some(rows) = at.tables.last_mut() {
                    *rows += 1;
                    if *rows == 1 {
                        out.text.push_str(&format!("\n|{}", "---|".repeat(cells)));
                    }
                }
            }
            out.gap(Gap::Line);
        }
        "table" => {
            at.tables.pop();
            out.gap(block_gap(at, Gap::Block));
        }
        "thead" | "tbody" | "tfoot" => out.gap(Gap::Line),
        "pre" => {
            at.pre_depth = at.pre_depth.saturating_sub(1);
            out.gap(block_gap(at, Gap::Block));
        }
        "ul" | "ol" => out.gap(block_gap(at, Gap::Block)),
        _ if BLOCKS.contains(&name) => out.gap(block_gap(at, Gap::Block)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_charset_forms() {
        assert_eq!(meta_charset(b"<meta charset=\"iso-8859-1\">"), Some(WINDOWS_1252));
        assert_eq!(
            meta_charset(b"<META http-equiv=Content-Type content='text/html; charset=Shift_JIS'>"),
            Some(encoding_rs::SHIFT_JIS)
        );
        assert_eq!(meta_charset(b"<meta charset=utf-16>"), Some(UTF_8));
        assert_eq!(meta_charset(b"<meta name=viewport content=width>"), None);
    }

    #[test]
    fn decodes_declared_charset() {
        assert_eq!(decode(b"<meta charset=windows-1252><p>caf\xe9</p>"), "<meta charset=windows-1252><p>café</p>");
        assert_eq!(decode("<p>café</p>".as_bytes()), "<p>café</p>");
    }

    #[test]
    fn renders_inline_and_block_structure() {
        let page =
            b"<body><p>Hello <b>bold</b>\n  world <i>a</i> <i>b</i></p><ul><li>one</li><li>two <i>x</i></li></ul>\
                     <table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>\
                     <pre>keep   this\n  indent</pre><h2></h2><p>end<br>line</p></body>";
        let (text, _) = extract(page, 1 << 20).unwrap();
        assert_eq!(
            text,
            "Hello bold world a b\n\n- one\n- two x\n\n| A | B |\n|---|---|\n| 1 | 2 |\n\nkeep this\nindent\n\nend\nline"
        );
    }

    #[test]
    fn tables_are_markdown_tables_whose_cells_keep_their_columns() {
        let page = b"<body><p>Before</p><table><thead><tr><th>Part</th><th>Years</th><th>Note</th></tr></thead>\
                     <tbody><tr><td><p>Element</p><p>heating</p></td><td>5</td><td></td></tr>\
                     <tr><td>Lid</td><td></td><td>glass</td></tr></tbody></table><p>After</p></body>";
        let (text, _) = extract(page, 1 << 20).unwrap();
        assert_eq!(
            text,
            "Before\n\n| Part | Years | Note |\n|---|---|---|\n| Element heating | 5 | |\n| Lid | | glass |\n\nAfter"
        );
    }

    #[test]
    fn deep_nesting_is_walked_without_recursion() {
        let depth = 3_000;
        let mut page = "<div>".repeat(depth);
        page.push_str("deep text");
        let (text, _) = extract(page.as_bytes(), 1 << 20).unwrap();
        assert_eq!(text, "deep text");
    }
}
