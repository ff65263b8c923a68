//! Ports of the ingestion pipeline: reading documents, fetching the web safely, embedding.
//! Implemented by `lore-extract`, `lore-crawl` and `lore-embed`.

use async_trait::async_trait;
use lore_domain::audio::AudioFormat;
use lore_domain::document::DocumentKind;
use lore_domain::late_interaction::TokenStates;
use std::time::Duration;

// ---------------------------------------------------------------- extraction

/// Text read out of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extracted {
    /// The readable text. For `Markdown` and `Html` it keeps Markdown structure (headings as `#`,
    /// list items as `-`), so that chunking can follow it.
    pub text: String,
    /// The document's title when it has one (PDF info, DOCX core properties, HTML `<title>`, first
    /// Markdown heading).
    pub title: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExtractError {
    /// The bytes are not a document of a supported kind.
    #[error("unsupported file type: {0}")]
    Unsupported(String),
    /// The document is damaged or malformed (including parser panics).
    #[error("the file could not be read: {0}")]
    Corrupt(String),
    /// A size cap was hit (input, unpacked archive, or output text).
    #[error("the file is too large to process: {0}")]
    TooLarge(String),
    #[error("reading the file took longer than {0:?}")]
    TimedOut(Duration),
}

/// Caps that keep hostile documents from exhausting the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtractLimits {
    /// Largest input accepted, in bytes.
    pub max_input_bytes: usize,
    /// Largest total uncompressed size of an archive-based format (DOCX), in bytes.
    pub max_unpacked_bytes: u64,
    /// Largest text produced, in bytes; longer output is an error, not silently cut.
    pub max_output_bytes: usize,
    /// Wall-clock budget of one extraction.
    pub timeout: Duration,
    /// Memory (address space) budget of one parse when it runs in its own process, in bytes.
    pub max_memory_bytes: u64,
    /// Largest total of inflated content a document may make the parser read, in bytes: PDF
    /// page content streams and the forms they draw (counted once per page that draws them),
    /// DOCX XML parts.
    pub max_content_bytes: u64,
    /// Largest inflated content of one PDF page (its streams and forms), in bytes: the parser
    /// holds a page's decoded drawing operations in memory at once.
    pub max_page_content_bytes: u64,
    /// Most paragraphs a DOCX may have (docx-rs holds every one in memory).
    pub max_paragraphs: u64,
    /// Text recognition of PDFs whose pages are images without a text layer (scans); `None`:
    /// off, such a PDF ends with a `no_text_layer` error.
    pub ocr: Option<OcrSettings>,
}

/// How scanned PDFs are read (`LORE_OCR=tesseract|openai`): each page's images go through the
/// recognition engine from inside the parser (its process, when parses run in one).
///
/// The strings are `'static` so that the limits stay `Copy`: they are read once, at start-up (and
/// once by each parser process), and leaked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OcrSettings {
    pub engine: OcrEngine,
    /// Pages of one PDF read at most; the later ones are left out of the text.
    pub max_pages: u32,
}

/// The text recognition engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OcrEngine {
    /// The Tesseract program, run as a child process of the parser.
    Tesseract {
        /// A path, or a name looked up in `PATH`.
        program: &'static str,
        /// Tesseract language codes joined with `+` (`eng`, `eng+deu`); each needs its trained
        /// data installed.
        languages: &'static str,
    },
    /// A vision model behind an OpenAI-compatible chat-completions API: one request per page,
    /// carrying the page's images.
    OpenAi {
        /// The API base, up to `/v1` (no trailing slash).
        base_url: &'static str,
        /// `None`: no `Authorization` header (a local server that takes none).
        api_key: Option<ApiKey>,
        model: &'static str,
    },
}

/// An API key: its `Debug` never shows it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ApiKey(pub &'static str);

impl ApiKey {
    /// The key itself, for the `Authorization` header (never for a log).
    pub fn expose(&self) -> &'static str {
        self.0
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

impl OcrSettings {
    /// Tesseract from `PATH` with English, 50 pages (`LORE_OCR=tesseract` with no other setting).
    pub const TESSERACT: Self =
        Self { engine: OcrEngine::Tesseract { program: "tesseract", languages: "eng" }, max_pages: 50 };

    /// The vision model `model` at `base_url` (up to `/v1`), 50 pages. The strings are leaked:
    /// call it once per process (settings, tests).
    pub fn openai(base_url: &str, api_key: Option<&str>, model: &str) -> Self {
        let leak = |s: &str| -> &'static str { Box::leak(s.to_owned().into_boxed_str()) };
        Self {
            engine: OcrEngine::OpenAi {
                base_url: leak(base_url.trim_end_matches('/')),
                api_key: api_key.map(|k| ApiKey(leak(k))),
                model: leak(model),
            },
            max_pages: Self::TESSERACT.max_pages,
        }
    }

    /// These settings with `key` for an OpenAI-compatible engine that has none (the key a backend
    /// read from its secret store); other settings unchanged. Leaks the key once per call.
    pub fn with_api_key_if_missing(self, key: Option<&str>) -> Self {
        match (self.engine, key) {
            (OcrEngine::OpenAi { base_url, api_key: None, model }, Some(key)) if !key.is_empty() => Self {
                engine: OcrEngine::OpenAi {
                    base_url,
                    api_key: Some(ApiKey(Box::leak(key.to_owned().into_boxed_str()))),
                    model,
                },
                ..self
            },
            _ => self,
        }
    }
}

impl Default for OcrSettings {
    fn default() -> Self {
        Self::TESSERACT
    }
}

impl Default for ExtractLimits {
    fn default() -> Self {
        Self {
            max_input_bytes: 50 * 1024 * 1024,
            max_unpacked_bytes: 200 * 1024 * 1024,
            max_output_bytes: 50 * 1024 * 1024,
            timeout: Duration::from_secs(60),
            max_memory_bytes: 512 * 1024 * 1024,
            max_content_bytes: 64 * 1024 * 1024,
            max_page_content_bytes: 4 * 1024 * 1024,
            max_paragraphs: 200_000,
            ocr: None,
        }
    }
}

#[async_trait]
pub trait Extractor: Send + Sync {
    /// Decides the kind from the content (magic bytes, structure); the file name only breaks the
    /// tie between Markdown and plain text. `None`: not a supported document (an executable
    /// named `.pdf` is `None`).
    fn sniff(&self, bytes: &[u8], file_name: Option<&str>) -> Option<DocumentKind>;

    /// Decides by content whether the bytes are audio a podcast source can use (MP3, WAV, M4A,
    /// OGG). `None` unless the implementation recognises audio.
    fn sniff_audio(&self, bytes: &[u8]) -> Option<AudioFormat> {
        let _ = bytes;
        None
    }

    /// Reads the text of a document of `kind`, isolated: a parser that panics, hangs or
    /// balloons ends in an error, never in a crash of the process.
    async fn extract(
        &self,
        bytes: Vec<u8>,
        kind: DocumentKind,
        limits: ExtractLimits,
    ) -> Result<Extracted, ExtractError>;
}

// ---------------------------------------------------------------- network

/// Why a URL is refused before anything is fetched.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlRejection {
    /// Not a well-formed absolute http(s) URL → `invalid_url`.
    #[error("invalid URL: {0}")]
    Invalid(String),
    /// Refused by server-side request protection → `url_blocked`.
    #[error("URL blocked: {0}")]
    Blocked(String),
}

/// Server-side request protection (docs/api.md §14): checks a URL, resolving its host, before the
/// service stores or fetches it.
#[async_trait]
pub trait UrlGuard: Send + Sync {
    /// Returns the normalised URL when it may be fetched.
    async fn check(&self, url: &str) -> Result<String, UrlRejection>;
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrawlRequest {
    /// Start URL (already checked by the guard; checked again on every connection).
    pub url: String,
    /// 1 = the start page only; N = follow same-host links up to N-1 hops.
    pub depth: u8,
    pub max_pages: usize,
    pub max_page_bytes: usize,
    pub page_timeout: Duration,
}

/// One fetched page, undecoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrawledPage {
    /// The final URL after redirects.
    pub url: String,
    /// The `Content-Type` header value, if any.
    pub content_type: Option<String>,
    pub body: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CrawlError {
    /// The start URL (or its redirect target) is refused by request protection.
    #[error("URL blocked: {0}")]
    Blocked(String),
    /// The start page could not be fetched (DNS, connection, timeout, non-2xx, robots.txt).
    #[error("could not fetch {url}: {reason}")]
    Unreachable { url: String, reason: String },
}

/// Crawls a site within the request's bounds: same host only, robots.txt respected, every
/// connection (and every redirect hop) checked against request protection at connect time.
#[async_trait]
pub trait Crawler: Send + Sync {
    /// Pages in crawl order (breadth first), the start page first. Failures of pages other
    /// than the start page are skipped, not fatal. `on_page` is called after each page with
    /// the number fetched so far (for progress).
    async fn crawl(
        &self,
        request: CrawlRequest,
        on_page: &(dyn Fn(usize) + Send + Sync),
    ) -> Result<Vec<CrawledPage>, CrawlError>;
}

// ---------------------------------------------------------------- embeddings

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EmbedError {
    /// Retrying will not help (bad key, bad model, input refused).
    #[error("embedding failed: {0}")]
    Permanent(String),
    /// Retries were exhausted on rate limits or server errors.
    #[error("embedding provider unavailable: {0}")]
    Unavailable(String),
}

/// A text's embedding: its vector and, from an embedder that exposes them, its token states (the
/// material of late interaction, `lore_domain::late_interaction`), both from one pass of the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Embedding {
    pub vector: Vec<f32>,
    pub token_states: Option<TokenStates>,
}

#[async_trait]
pub trait Embedder: Send + Sync {
    /// Identifies the model; vectors of different models are never mixed in one index.
    fn model_id(&self) -> &str;
    fn dimensions(&self) -> usize;
    /// One unit-length vector per input, in order. Splits into provider-sized batches itself.
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError>;
    /// One unit-length vector per question, in order, to compare with [`Embedder::embed`]'s
    /// vectors. A model trained for asymmetric retrieval reads questions otherwise than the texts
    /// it searches (e5's `query: ` and `passage: ` prefixes); the others embed both alike (the
    /// default).
    async fn embed_queries(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed(texts).await
    }
    /// Whether [`Embedder::embed_with_token_states`] gives token states: then chunks are stored
    /// with their token signs and search rescores its semantic candidates by late interaction
    /// (`search.rs`). `false` unless overridden.
    fn has_token_states(&self) -> bool {
        false
    }
    /// One embedding per input, in order, with token states when [`Embedder::has_token_states`].
    /// The vectors are those of [`Embedder::embed`].
    async fn embed_with_token_states(&self, texts: &[String]) -> Result<Vec<Embedding>, EmbedError> {
        let vectors = self.embed(texts).await?;
        Ok(vectors.into_iter().map(|vector| Embedding { vector, token_states: None }).collect())
    }
    /// Whether the vectors only reflect the words texts share, not their meaning (a hashing
    /// embedder, not a neural model). Hybrid search then lets its keyword ranking lead the fusion
    /// (`search.rs`). `false` unless overridden.
    fn lexical_only(&self) -> bool {
        false
    }
    /// Whether the model was trained on text in `language`: its vectors of other languages carry
    /// little of their meaning, so hybrid search lets its keyword ranking lead the fusion for a
    /// question in such a language, as for a lexical embedder (`search.rs`). `true` unless
    /// overridden.
    fn reads(&self, _language: lore_domain::language::Language) -> bool {
        true
    }
    /// Whether each call is a request to a service that may charge for it (not a model in this
    /// process): search then embeds a question only once it knows the owner has a ready source
    /// to compare it with, instead of while it reads them (`search.rs`). `false` unless overridden.
    fn remote(&self) -> bool {
        false
    }
    /// The model's input window in its own tokens, when it has one and can count them: chunks are
    /// then sized in those tokens so that the model reads every word of each chunk
    /// (`chunking.rs`). `None` (the default) sizes chunks in characters.
    fn token_window(&self) -> Option<TokenWindow> {
        None
    }
}

/// Counts tokens as an embedding model's tokenizer does.
pub trait TokenCounter: Send + Sync {
    /// Tokens of `text` without the model's special tokens (`[CLS]`, `[SEP]`).
    fn count_tokens(&self, text: &str) -> usize;
}

/// What an embedder reads of a text: at most `max_tokens` tokens as counted by `counter` (its
/// special tokens not included); the rest is cut off.
#[derive(Clone)]
pub struct TokenWindow {
    pub counter: std::sync::Arc<dyn TokenCounter>,
    pub max_tokens: usize,
}

impl std::fmt::Debug for TokenWindow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenWindow").field("max_tokens", &self.max_tokens).finish_non_exhaustive()
    }
}
