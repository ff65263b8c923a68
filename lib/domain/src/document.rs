//! Kinds of documents the pipeline reads, decided by content rather than by name.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DocumentKind {
    Pdf,
    Docx,
    Markdown,
    Text,
    /// Web pages (crawled), never accepted as an upload.
    Html,
}

impl DocumentKind {
    pub fn mime_type(self) -> &'static str {
        match self {
            DocumentKind::Pdf => "application/pdf",
            DocumentKind::Docx => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            DocumentKind::Markdown => "text/markdown",
            DocumentKind::Text => "text/plain",
            DocumentKind::Html => "text/html",
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
        }
    }

    /// Reads a stored name back; anything unknown is plain text, which every reader accepts.
    pub fn from_stored(s: &str) -> Self {
        match s {
            "pdf" => DocumentKind::Pdf,
            "docx" => DocumentKind::Docx,
            "markdown" => DocumentKind::Markdown,
            "html" => DocumentKind::Html,
            _ => DocumentKind::Text,
        }
    }

    /// Whether chunking should follow Markdown structure (headings, lists).
    pub fn is_markdown_like(self) -> bool {
        matches!(self, DocumentKind::Markdown | DocumentKind::Html)
    }
}
