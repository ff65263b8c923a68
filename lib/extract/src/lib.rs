//! Document text extraction behind the `lore_app::ports::Extractor` port: PDF (pdf-extract),
//! DOCX (docx-rs), XLSX and ODS (calamine), CSV and TSV (csv), PPTX, ODT and EPUB (quick-xml),
//! HTML (scraper), RTF (a reader of our own, `rtf.rs`), Markdown and plain text. Structured
//! formats are written as Markdown (`markdown.rs`): headings, lists, and tables with their
//! header row.
//!
//! Every parse is isolated (docs/ARCHITECTURE.md), under the caller's time limit, with at most a few parsers
//! running at once, and with caps on the input, on the unpacked size of archives (the zip-bomb
//! defence of every ZIP-based format, in `archive.rs`), on the inflated content a parser is
//! given (PDF content streams, the XML parts of archives, DOCX paragraphs, measured while
//! inflating, before the library sees them) and on the output. The isolation is one of two
//! [`Isolation`] modes:
//!
//! - [`Isolation::Process`] (production, `process.rs`): each parse runs in a child process of
//!   the service's own binary, whose memory the kernel caps (`RLIMIT_AS`) and which is killed
//!   when its time is up, freeing its slot at once. A binary that uses it calls
//!   [`serve_child_if_requested`] first thing in `main`.
//! - [`Isolation::Thread`] (unit tests, benchmarks; `isolate.rs`): a blocking thread with panics
//!   caught. A timed-out parser keeps running and keeps its slot; memory is not capped.
//!
//! `catch_unwind` cannot catch a stack overflow: it aborts the process. The parsers recurse
//! without limits in places (docx-rs on nested XML, pdf-extract on form XObjects and on the
//! page tree's `/Parent` chain), so the inputs that would drive them that deep are refused
//! before parsing: DOCX parts nesting XML more than 128 levels, PDF XObjects that call
//! themselves or nest more than 32 levels, page trees whose `/Parent` links loop.
//!
//! For the composition root, in thread mode: a parser that hangs keeps its blocking thread (and
//! its permit) until it returns, and a tokio runtime waits for running blocking tasks when it is
//! dropped — shut the runtime down with `shutdown_timeout` or `shutdown_background` so such a
//! thread cannot hold up process exit. [`DocumentExtractor::idle_parsers`] tells a health check
//! when every slot is held by a hung parser (then only a restart frees them).

mod archive;
pub mod audio;
mod delimited;
mod docx;
mod docx_extra;
mod epub;
mod html;
mod isolate;
mod markdown;
mod ocr;
mod odt;
mod pdf;
mod pdf_text;
mod pptx;
mod process;
mod rtf;
mod sheet;
mod sniff;
mod text;
mod xml;

use async_trait::async_trait;
use lore_app::ports::{ExtractError, ExtractLimits, Extracted, Extractor};
use lore_domain::document::DocumentKind;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::sync::Semaphore;

pub use pdf::NO_TEXT_LAYER;
pub use process::CHILD_ENV;

/// How many parsers run at once by default. Parsing is CPU-bound, and a parser that hangs keeps
/// its slot until it returns, so the bound also caps the threads hung parsers can hold.
pub const DEFAULT_CONCURRENCY: usize = 2;

/// Titles longer than this are cut (at a character boundary).
const MAX_TITLE_CHARS: usize = 300;

/// Parses a document when this process was started as a parser child ([`CHILD_ENV`] set), then
/// exits; returns at once otherwise. Every binary whose composition uses
/// [`Isolation::Process`] with its own executable calls this first thing in `main`, before a
/// runtime or logging starts (the child needs neither).
pub fn serve_child_if_requested() {
    if process::serve_child() {
        std::process::exit(0);
    }
}

/// Where a parse runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Isolation {
    /// In a child process running `program` (a binary that calls [`serve_child_if_requested`]),
    /// under `ExtractLimits::max_memory_bytes` and killed at the time limit.
    Process { program: PathBuf },
    /// On a blocking thread of this process, panics caught; no memory cap, and a timed-out
    /// parser runs on (holding its slot) until it returns.
    Thread,
}

/// The `Extractor` of Lore: sniffs uploads by content and extracts their text in isolation.
#[derive(Debug, Clone)]
pub struct DocumentExtractor {
    permits: Arc<Semaphore>,
    isolation: Arc<Isolation>,
}

impl DocumentExtractor {
    /// An extractor running at most [`DEFAULT_CONCURRENCY`] parsers at once, in threads.
    pub fn new() -> Self {
        Self::with_concurrency(DEFAULT_CONCURRENCY)
    }

    /// An extractor running at most `parsers` parsers at once (at least one), in threads.
    /// Clones share the bound.
    pub fn with_concurrency(parsers: usize) -> Self {
        Self { permits: Arc::new(Semaphore::new(parsers.max(1))), isolation: Arc::new(Isolation::Thread) }
    }

    /// The same extractor with its parses isolated as `isolation` says.
    pub fn isolated(mut self, isolation: Isolation) -> Self {
        self.isolation = Arc::new(isolation);
        self
    }

    /// How parses are isolated.
    pub fn isolation(&self) -> &Isolation {
        &self.isolation
    }

    /// How many parser slots are free right now. Zero for long means every slot is held by a
    /// parser that is running or hung (in thread mode, timed-out parsers keep their slot until
    /// they return).
    pub fn idle_parsers(&self) -> usize {
        self.permits.available_permits()
    }
}

impl Default for DocumentExtractor {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl Extractor for DocumentExtractor {
    fn sniff(&self, bytes: &[u8], file_name: Option<&str>) -> Option<DocumentKind> {
        sniff::sniff(bytes, file_name)
    }

    fn sniff_audio(&self, bytes: &[u8]) -> Option<lore_domain::audio::AudioFormat> {
        audio::sniff_audio(bytes)
    }

    async fn extract(
        &self,
        bytes: Vec<u8>,
        kind: DocumentKind,
        limits: ExtractLimits,
    ) -> Result<Extracted, ExtractError> {
        if bytes.len() > limits.max_input_bytes {
            return Err(ExtractError::TooLarge(format!(
                "the file has {} bytes, the limit is {}",
                bytes.len(),
                limits.max_input_bytes
            )));
        }
        let started = std::time::Instant::now();
        let input_bytes = bytes.len();
        let result = match self.isolation.as_ref() {
            Isolation::Process { program } => process::run_in_child(program, &self.permits, bytes, kind, limits).await,
            Isolation::Thread => {
                isolate::run_isolated(&self.permits, limits.timeout, move || parse(&bytes, kind, &limits)).await
            }
        };
        match &result {
            Ok(extracted) => tracing::debug!(
                ?kind,
                input_bytes,
                output_bytes = extracted.text.len(),
                elapsed_ms = started.elapsed().as_millis() as u64,
                "document extracted"
            ),
            Err(error) => tracing::info!(?kind, input_bytes, %error, "document extraction failed"),
        }
        result
    }
}

/// The parse itself, run isolated: format-specific extraction, then the output checks.
fn parse(bytes: &[u8], kind: DocumentKind, limits: &ExtractLimits) -> Result<Extracted, ExtractError> {
    let (text, title) = match kind {
        DocumentKind::Pdf => pdf::extract(bytes, limits)?,
        DocumentKind::Docx => docx::extract(bytes, limits)?,
        DocumentKind::Html => html::extract(bytes, limits.max_output_bytes)?,
        DocumentKind::Markdown => text::extract_markdown(bytes),
        DocumentKind::Text => text::extract_text(bytes),
        DocumentKind::Csv | DocumentKind::Tsv => delimited::extract(bytes, kind, limits)?,
        DocumentKind::Xlsx => sheet::extract_xlsx(bytes, limits)?,
        DocumentKind::Ods => sheet::extract_ods(bytes, limits)?,
        DocumentKind::Pptx => pptx::extract(bytes, limits)?,
        DocumentKind::Epub => epub::extract(bytes, limits)?,
        DocumentKind::Odt => odt::extract(bytes, limits)?,
        DocumentKind::Rtf => rtf::extract(bytes, limits)?,
    };
    if text.trim().is_empty() {
        return Err(ExtractError::Corrupt(no_text_reason(kind, bytes.is_empty())));
    }
    if text.len() > limits.max_output_bytes {
        return Err(ExtractError::TooLarge(format!(
            "the extracted text has {} bytes, the limit is {}",
            text.len(),
            limits.max_output_bytes
        )));
    }
    Ok(Extracted { text, title: title.map(|t| clip_title(&t)).filter(|t| !t.is_empty()) })
}

fn no_text_reason(kind: DocumentKind, empty_input: bool) -> String {
    let why = if empty_input {
        "the file is empty"
    } else {
        match kind {
            // A PDF without text ends in `pdf::no_text_layer` before this.
            DocumentKind::Pdf => "the PDF has no text layer",
            DocumentKind::Docx | DocumentKind::Odt | DocumentKind::Rtf => {
                "the document contains no text (only images, drawings or empty paragraphs)"
            }
            DocumentKind::Html => "the page has no readable main text",
            DocumentKind::Markdown | DocumentKind::Text => "the file contains only whitespace",
            DocumentKind::Csv | DocumentKind::Tsv => "the table has no field with text",
            DocumentKind::Xlsx | DocumentKind::Ods => "no visible sheet has a cell with text",
            DocumentKind::Pptx => "the slides and their notes contain no text",
            DocumentKind::Epub => "the book's chapters contain no readable text",
        }
    };
    format!("no text could be extracted: {why}")
}

/// `n` bytes for an error message: whole MiB when it is a multiple of one, else bytes.
pub(crate) fn human_bytes(n: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if n >= MIB && n.is_multiple_of(MIB) { format!("{} MiB", n / MIB) } else { format!("{n} bytes") }
}

fn clip_title(title: &str) -> String {
    let title = title.trim();
    match title.char_indices().nth(MAX_TITLE_CHARS) {
        Some((cut, _)) => title[..cut].trim_end().to_owned(),
        None => title.to_owned(),
    }
}

/// Entry points for the fuzz targets in `fuzz/` (docs/fuzzing.md): the synchronous parse,
/// without the isolation layer, so that panics, hangs, stack overflows and runaway allocations
/// reach the fuzzer instead of being contained. Not an API: production code goes through
/// [`DocumentExtractor`].
#[doc(hidden)]
pub mod fuzzing {
    use lore_app::ports::{ExtractError, ExtractLimits, Extracted};
    use lore_domain::document::DocumentKind;

    /// The parse [`DocumentExtractor::extract`](crate::DocumentExtractor) isolates, input cap
    /// included.
    pub fn extract(bytes: &[u8], kind: DocumentKind, limits: &ExtractLimits) -> Result<Extracted, ExtractError> {
        if bytes.len() > limits.max_input_bytes {
            return Err(ExtractError::TooLarge("input over the cap".into()));
        }
        super::parse(bytes, kind, limits)
    }

    /// Content sniffing, as [`DocumentExtractor`](crate::DocumentExtractor) does it.
    pub fn sniff(bytes: &[u8], file_name: Option<&str>) -> Option<DocumentKind> {
        super::sniff::sniff(bytes, file_name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_clipped_at_a_char_boundary() {
        let long = "é".repeat(MAX_TITLE_CHARS + 10);
        assert_eq!(clip_title(&long).chars().count(), MAX_TITLE_CHARS);
        assert_eq!(clip_title("  short "), "short");
    }
}
