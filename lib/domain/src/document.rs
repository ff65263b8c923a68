//! Kinds of documents the pipeline reads, decided by content rather than by name.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DocumentKind {
    Pdf,
    Docx,
    Markdown,
    Text,
    /// Web pages: crawled, or uploaded as an HTML file.
    Html,
    Csv,
    Tsv,
    Xlsx,
    Ods,
    Pptx,
    Epub,
    Odt,
    /// Rich Text Format (WordPad, TextEdit, Word's `.rtf`).
    Rtf,
}

impl DocumentKind {
    pub fn mime_type(self) -> &'static str {
        match self {
            DocumentKind::Pdf => "application/pdf",
            DocumentKind::Docx => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            DocumentKind::Markdown => "text/markdown",
            DocumentKind::Text => "text/plain",
            DocumentKind::Html => "text/html",
            DocumentKind::Csv => "text/csv",
            DocumentKind::Tsv => "text/tab-separated-values",
            DocumentKind::Xlsx => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            DocumentKind::Ods => "application/vnd.oasis.opendocument.spreadsheet",
            DocumentKind::Pptx => "application/vnd.openxmlformats-officedocument.presentationml.presentation",
            DocumentKind::Epub => "application/epub+zip",
            DocumentKind::Odt => "application/vnd.oasis.opendocument.text",
            DocumentKind::Rtf => "application/rtf",
        }
    }

    /// The stored name of the kind (records of every backend use it).
    pub fn as_str(self) -> &'static str {
        match self {
            DocumentKind::Pdf => "pdf",
            DocumentKind::Docx => "docx",
            DocumentKind::Markdown => "markdown",
            DocumentKind::Text => "text",
            DocumentKind::Html => "html",
            DocumentKind::Csv => "csv",
            DocumentKind::Tsv => "tsv",
            DocumentKind::Xlsx => "xlsx",
            DocumentKind::Ods => "ods",
            DocumentKind::Pptx => "pptx",
            DocumentKind::Epub => "epub",
            DocumentKind::Odt => "odt",
            DocumentKind::Rtf => "rtf",
        }
    }

    /// Reads a stored name back; anything unknown is plain text, which every reader accepts.
    pub fn from_stored(s: &str) -> Self {
        match s {
            "pdf" => DocumentKind::Pdf,
            "docx" => DocumentKind::Docx,
            "markdown" => DocumentKind::Markdown,
            "html" => DocumentKind::Html,
            "csv" => DocumentKind::Csv,
            "tsv" => DocumentKind::Tsv,
            "xlsx" => DocumentKind::Xlsx,
            "ods" => DocumentKind::Ods,
            "pptx" => DocumentKind::Pptx,
            "epub" => DocumentKind::Epub,
            "odt" => DocumentKind::Odt,
            "rtf" => DocumentKind::Rtf,
            _ => DocumentKind::Text,
        }
    }

    /// Whether chunking should follow Markdown structure (headings, lists, tables): the kinds
    /// whose extracted text is written as Markdown.
    pub fn is_markdown_like(self) -> bool {
        matches!(
            self,
            DocumentKind::Markdown
                | DocumentKind::Docx
                | DocumentKind::Html
                | DocumentKind::Csv
                | DocumentKind::Tsv
                | DocumentKind::Xlsx
                | DocumentKind::Ods
                | DocumentKind::Pptx
                | DocumentKind::Epub
                | DocumentKind::Odt
                | DocumentKind::Rtf
        )
    }
}
