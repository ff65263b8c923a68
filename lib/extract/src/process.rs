//! Parsing in a child process, the isolation boundary in production: the kernel caps
//! the parser's memory (`RLIMIT_AS`) and CPU time (`RLIMIT_CPU`, a backstop), and a parse that
//! outlives its time limit is killed, so its slot is free at once. A parser that exhausts its
//! memory dies alone; the server reports the document as too large.
//!
//! The child is the service's own binary, started with [`CHILD_ENV`] set: its `main` calls
//! [`serve_child_if_requested`](crate::serve_child_if_requested) first, which parses one
//! document and exits. The protocol is private to this module (both ends are built from it):
//!
//! - request on stdin: `MAGIC`, the kind (one byte), seven limits as little-endian `u64`
//!   (input, unpacked, output, content, page content, paragraphs, and the time left in
//!   milliseconds, which bounds the text recognition the child may run), then one byte: `0`
//!   without text recognition, `1` with Tesseract, `2` with a vision model, followed by its page
//!   limit as `u64` and its strings as `u16` lengths and UTF-8 bytes (Tesseract: its languages
//!   and program; a vision model: its API base URL, model and API key, empty for none); then the
//!   document to EOF. The API key goes this way only, never in the child's arguments or
//!   environment;
//! - the child is started with the arguments [`CHILD_ARGS`], which make a libtest harness run
//!   no test (an in-process test server's own binary is its test harness, which serves no
//!   child); a program that answers without `MAGIC` first is not a parser child, and the parse
//!   falls back to a thread of this process (with a warning);
//! - answer on stdout: `MAGIC`, then `0`, the title length as `u64` (`u64::MAX`: none), the title, the text to
//!   EOF; or an error code (`1` unsupported, `2` corrupt, `3` too large) and the message to EOF.

use lore_app::ports::{ApiKey, ExtractError, ExtractLimits, Extracted, OcrEngine, OcrSettings};
use lore_domain::document::DocumentKind;
use std::io::{Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::sync::Semaphore;
use tokio::time::Instant;

/// Set in the child's environment: "serve one extraction on stdin/stdout".
pub const CHILD_ENV: &str = "LORE_EXTRACT_CHILD";

const MAGIC: &[u8; 8] = b"LOREXT03";
/// A libtest filter that matches no test; ignored by a binary that serves the child first.
const CHILD_ARGS: [&str; 2] = ["--exact", "lore-extract-child-process"];
const HEADER_LEN: usize = MAGIC.len() + 1 + 7 * 8 + 1;
/// What the child passes on from the server's environment to the text recognition program (it
/// gets nothing else): where to find it, its libraries and its language data.
const OCR_ENV: &[&str] = &["PATH", "LD_LIBRARY_PATH", "TESSDATA_PREFIX"];
/// What a child that calls a vision model gets from the server's environment: where the TLS
/// roots are and the proxies the server's own HTTP clients use.
const VISION_ENV: &[&str] = &[
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "ALL_PROXY",
    "all_proxy",
    "NO_PROXY",
    "no_proxy",
];
/// The answer may exceed the text cap by the title and framing.
const ANSWER_SLACK: u64 = 64 * 1024;
/// How much of the child's stderr is kept to tell an allocation failure from a stack overflow.
const STDERR_KEPT: usize = 16 * 1024;

// ------------------------------------------------------------------------------ the child

/// Serves one request when this process is a parser child; returns `false` (doing nothing) when
/// it is not.
pub(crate) fn serve_child() -> bool {
    if std::env::var_os(CHILD_ENV).is_none() {
        return false;
    }
    let answer = match read_request(&mut std::io::stdin().lock()) {
        Ok((bytes, kind, limits)) => match catch_unwind(AssertUnwindSafe(|| crate::parse(&bytes, kind, &limits))) {
            Ok(result) => result,
            Err(payload) => Err(crate::isolate::parser_failed(payload.as_ref())),
        },
        Err(message) => Err(ExtractError::Corrupt(message)),
    };
    let mut stdout = std::io::stdout().lock();
    // Nothing to do about a parent that stopped listening.
    let _ =
        stdout.write_all(MAGIC).and_then(|()| stdout.write_all(&encode_answer(&answer))).and_then(|()| stdout.flush());
    true
}

fn read_request(input: &mut impl Read) -> Result<(Vec<u8>, DocumentKind, ExtractLimits), String> {
    let mut header = [0u8; HEADER_LEN];
    input.read_exact(&mut header).map_err(|e| format!("no extraction request: {e}"))?;
    if &header[..MAGIC.len()] != MAGIC {
        return Err("not an extraction request".into());
    }
    let kind = kind_from_byte(header[MAGIC.len()]).ok_or("unknown document kind")?;
    let field = |i: usize| {
        let at = MAGIC.len() + 1 + i * 8;
        u64::from_le_bytes(header[at..at + 8].try_into().unwrap_or_default())
    };
    let ocr = match header[HEADER_LEN - 1] {
        0 => None,
        engine @ (1 | 2) => Some(read_ocr(input, engine)?),
        _ => return Err("not an extraction request".into()),
    };
    let limits = ExtractLimits {
        max_input_bytes: usize::try_from(field(0)).unwrap_or(usize::MAX),
        max_unpacked_bytes: field(1),
        max_output_bytes: usize::try_from(field(2)).unwrap_or(usize::MAX),
        max_content_bytes: field(3),
        max_page_content_bytes: field(4),
        max_paragraphs: field(5),
        timeout: std::time::Duration::from_millis(field(6)),
        ocr,
        ..ExtractLimits::default()
    };
    let mut bytes = Vec::new();
    input
        .take(field(0).saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("the document could not be received: {e}"))?;
    if bytes.len() > limits.max_input_bytes {
        return Err("the document is over the input cap".into());
    }
    Ok((bytes, kind, limits))
}

/// The text recognition settings of a request, `engine` its byte (this process reads one
/// request: the strings are leaked, as [`OcrSettings`] wants).
fn read_ocr(input: &mut impl Read, engine: u8) -> Result<OcrSettings, String> {
    let mut pages = [0u8; 8];
    input.read_exact(&mut pages).map_err(|e| format!("no extraction request: {e}"))?;
    let mut string = || -> Result<&'static str, String> {
        let mut len = [0u8; 2];
        input.read_exact(&mut len).map_err(|e| format!("no extraction request: {e}"))?;
        let mut bytes = vec![0u8; usize::from(u16::from_le_bytes(len))];
        input.read_exact(&mut bytes).map_err(|e| format!("no extraction request: {e}"))?;
        let string = String::from_utf8(bytes).map_err(|_| "not an extraction request".to_owned())?;
        Ok(Box::leak(string.into_boxed_str()))
    };
    let engine = if engine == 1 {
        let languages = string()?;
        OcrEngine::Tesseract { languages, program: string()? }
    } else {
        let (base_url, model, key) = (string()?, string()?, string()?);
        OcrEngine::OpenAi { base_url, model, api_key: (!key.is_empty()).then_some(ApiKey(key)) }
    };
    let max_pages = u32::try_from(u64::from_le_bytes(pages)).unwrap_or(u32::MAX);
    Ok(OcrSettings { engine, max_pages })
}

fn encode_answer(answer: &Result<Extracted, ExtractError>) -> Vec<u8> {
    match answer {
        Ok(extracted) => {
            let mut out = Vec::with_capacity(extracted.text.len() + 64);
            out.push(0);
            match &extracted.title {
                Some(title) => {
                    out.extend_from_slice(&(title.len() as u64).to_le_bytes());
                    out.extend_from_slice(title.as_bytes());
                }
                None => out.extend_from_slice(&u64::MAX.to_le_bytes()),
            }
            out.extend_from_slice(extracted.text.as_bytes());
            out
        }
        Err(error) => {
            let (code, message) = match error {
                ExtractError::Unsupported(m) => (1, m.clone()),
                ExtractError::Corrupt(m) => (2, m.clone()),
                ExtractError::TooLarge(m) => (3, m.clone()),
                // The child has no clock of its own; the parent enforces the time limit.
                ExtractError::TimedOut(d) => (2, format!("timed out after {d:?}")),
            };
            let mut out = vec![code];
            out.extend_from_slice(message.as_bytes());
            out
        }
    }
}

// ------------------------------------------------------------------------------ the parent

fn encode_request(kind: DocumentKind, limits: &ExtractLimits) -> Vec<u8> {
    let mut header = Vec::with_capacity(HEADER_LEN);
    header.extend_from_slice(MAGIC);
    header.push(kind_to_byte(kind));
    for value in [
        limits.max_input_bytes as u64,
        limits.max_unpacked_bytes,
        limits.max_output_bytes as u64,
        limits.max_content_bytes,
        limits.max_page_content_bytes,
        limits.max_paragraphs,
        u64::try_from(limits.timeout.as_millis()).unwrap_or(u64::MAX),
    ] {
        header.extend_from_slice(&value.to_le_bytes());
    }
    match &limits.ocr {
        None => header.push(0),
        Some(ocr) => {
            let (engine, strings) = match ocr.engine {
                OcrEngine::Tesseract { program, languages } => (1, vec![languages, program]),
                OcrEngine::OpenAi { base_url, api_key, model } => {
                    (2, vec![base_url, model, api_key.map_or("", |k| k.expose())])
                }
            };
            header.push(engine);
            header.extend_from_slice(&u64::from(ocr.max_pages).to_le_bytes());
            for string in strings {
                // Settings bound both far below 64 KiB; a longer one is cut (and then fails to run).
                let bytes = &string.as_bytes()[..string.len().min(usize::from(u16::MAX))];
                header.extend_from_slice(&(bytes.len() as u16).to_le_bytes());
                header.extend_from_slice(bytes);
            }
        }
    }
    header
}

fn decode_answer(answer: &[u8]) -> Option<Result<Extracted, ExtractError>> {
    let (&code, rest) = answer.split_first()?;
    let message = || String::from_utf8_lossy(rest).into_owned();
    Some(match code {
        0 => {
            let title_len = u64::from_le_bytes(rest.get(..8)?.try_into().ok()?);
            let rest = &rest[8..];
            let (title, text) = if title_len == u64::MAX {
                (None, rest)
            } else {
                let len = usize::try_from(title_len).ok().filter(|&l| l <= rest.len())?;
                (Some(String::from_utf8(rest[..len].to_vec()).ok()?), &rest[len..])
            };
            Ok(Extracted { text: String::from_utf8(text.to_vec()).ok()?, title })
        }
        1 => Err(ExtractError::Unsupported(message())),
        2 => Err(ExtractError::Corrupt(message())),
        3 => Err(ExtractError::TooLarge(message())),
        _ => return None,
    })
}

/// Parses `bytes` in a child process running `program`, once a permit is free, all within
/// `limits.timeout` (waiting included, as in-thread). The child is killed when the time is up or
/// the caller stops waiting (the future is dropped), and its permit is released with it.
pub(crate) async fn run_in_child(
    program: &Path,
    permits: &Arc<Semaphore>,
    bytes: Vec<u8>,
    kind: DocumentKind,
    limits: ExtractLimits,
) -> Result<Extracted, ExtractError> {
    let deadline = Instant::now().checked_add(limits.timeout);
    if std::env::var_os(CHILD_ENV).is_some() {
        // This process is itself a child that did not serve: never start grandchildren.
        return Err(ExtractError::Corrupt("the document parser is misconfigured".into()));
    }
    // Shared with the writer to the child, and kept for the fallback.
    let bytes = Arc::new(bytes);
    let work = async {
        let _permit = permits
            .acquire()
            .await
            .map_err(|_| ExtractError::Corrupt("the extraction service is shutting down".into()))?;
        let mut child = spawn(program, &limits).map_err(|e| {
            tracing::error!(program = %program.display(), error = %e, "the document parser process cannot start");
            ExtractError::Corrupt(format!("the document parser could not start: {e}"))
        })?;
        let (Some(mut stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(ExtractError::Corrupt("the document parser could not start: no pipes".into()));
        };
        // The child gets the time left, for the text recognition program it may run.
        let left = deadline.map_or(limits.timeout, |d| d.saturating_duration_since(Instant::now()));
        let request = encode_request(kind, &ExtractLimits { timeout: left, ..limits });
        let bytes = Arc::clone(&bytes);
        let send = async move {
            // A child that dies early closes its stdin: its exit status says why.
            if stdin.write_all(&request).await.is_ok() {
                let _ = stdin.write_all(&bytes).await;
            }
        };
        let answer_cap = (limits.max_output_bytes as u64).saturating_add(ANSWER_SLACK);
        let (_, answer, stderr, status) = tokio::join!(
            send,
            read_capped(stdout, answer_cap as usize),
            read_capped(stderr, STDERR_KEPT),
            child.wait()
        );
        let status = status.map_err(|e| ExtractError::Corrupt(format!("the document parser was lost: {e}")))?;
        use std::os::unix::process::ExitStatusExt;
        match answer.strip_prefix(MAGIC.as_slice()) {
            Some(answer) => Ok(Answer::Parsed(interpret(status, answer, &stderr, &limits, answer_cap))),
            None if status.signal().is_some() => {
                Ok(Answer::Parsed(interpret(status, &[], &stderr, &limits, answer_cap)))
            }
            None => Ok(Answer::NotAChild),
        }
    };
    let outcome = match deadline {
        Some(deadline) => tokio::time::timeout_at(deadline, work).await.ok().filter(|_| Instant::now() <= deadline),
        None => Some(work.await),
    };
    match outcome {
        Some(Ok(Answer::Parsed(result))) => result,
        Some(Err(error)) => Err(error),
        Some(Ok(Answer::NotAChild)) => {
            tracing::warn!(
                program = %program.display(),
                "the document parser program does not serve parser children (its main must call \
                 lore_extract::serve_child_if_requested); parsing in a thread of this process, without a memory cap"
            );
            let remaining = deadline.map_or(limits.timeout, |d| d.saturating_duration_since(Instant::now()));
            let timeout = limits.timeout;
            crate::isolate::run_isolated(permits, remaining, move || crate::parse(&bytes, kind, &limits))
                .await
                .map_err(|e| if matches!(e, ExtractError::TimedOut(_)) { ExtractError::TimedOut(timeout) } else { e })
        }
        None => {
            // Dropping `work` killed the child (kill_on_drop) and released the permit.
            tracing::warn!(timeout = ?limits.timeout, "document extraction timed out; the parser process was killed");
            Err(ExtractError::TimedOut(limits.timeout))
        }
    }
}

enum Answer {
    Parsed(Result<Extracted, ExtractError>),
    /// The child's answer did not start with `MAGIC`: `program` is not a parser child.
    NotAChild,
}

fn spawn(program: &Path, limits: &ExtractLimits) -> std::io::Result<tokio::process::Child> {
    let mut command = tokio::process::Command::new(program);
    // The child needs nothing from the server's environment (which holds its secrets).
    command
        .args(CHILD_ARGS)
        .env_clear()
        .env(CHILD_ENV, "1")
        .envs(child_env(limits.ocr.as_ref()).iter().filter_map(|&name| Some((name, std::env::var_os(name)?))))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let memory = limits.max_memory_bytes;
    // The CPU limit is a backstop for the wall-clock one (which kills first): one second more.
    let cpu_secs = limits.timeout.as_secs().saturating_add(2);
    // SAFETY: the closure runs in the forked child before exec and only calls setrlimit, which
    // is async-signal-safe; it touches no locks and allocates nothing.
    unsafe {
        command.pre_exec(move || {
            set_limit(libc::RLIMIT_AS, memory)?;
            set_limit(libc::RLIMIT_CPU, cpu_secs)?;
            // An aborting parser must not write a core file of its address space.
            set_limit(libc::RLIMIT_CORE, 0)
        });
    }
    command.spawn()
}

/// The variables of the server's environment a child gets (besides [`CHILD_ENV`]).
fn child_env(ocr: Option<&OcrSettings>) -> &'static [&'static str] {
    match ocr.map(|o| o.engine) {
        None => &[],
        Some(OcrEngine::Tesseract { .. }) => OCR_ENV,
        Some(OcrEngine::OpenAi { .. }) => VISION_ENV,
    }
}

fn set_limit(resource: libc::__rlimit_resource_t, value: u64) -> std::io::Result<()> {
    let limit = libc::rlimit { rlim_cur: value as libc::rlim_t, rlim_max: value as libc::rlim_t };
    // SAFETY: a plain system call on a stack value.
    if unsafe { libc::setrlimit(resource, &limit) } == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
}

/// Reads `reader` to its end, keeping at most `cap` bytes (the rest is drained, so a chatty
/// child never blocks on a full pipe).
async fn read_capped(mut reader: impl AsyncRead + Unpin, cap: usize) -> Vec<u8> {
    let mut kept = Vec::new();
    let mut buffer = vec![0u8; 64 * 1024];
    while let Ok(n) = reader.read(&mut buffer).await {
        if n == 0 {
            break;
        }
        let room = cap.saturating_add(1).saturating_sub(kept.len());
        kept.extend_from_slice(&buffer[..n.min(room)]);
    }
    kept
}

/// The child's answer, or why it has none: killed by its memory or CPU limit, or crashed.
fn interpret(
    status: ExitStatus,
    answer: &[u8],
    stderr: &[u8],
    limits: &ExtractLimits,
    answer_cap: u64,
) -> Result<Extracted, ExtractError> {
    use std::os::unix::process::ExitStatusExt;
    if status.success() {
        if answer.len() as u64 > answer_cap {
            return Err(ExtractError::TooLarge(format!(
                "the extracted text exceeds {} bytes",
                limits.max_output_bytes
            )));
        }
        return decode_answer(answer)
            .unwrap_or_else(|| Err(ExtractError::Corrupt("the document parser gave an unreadable answer".into())));
    }
    let stderr = String::from_utf8_lossy(stderr);
    tracing::info!(%status, stderr = %stderr.trim(), "the document parser process failed");
    if status.signal() == Some(libc::SIGXCPU) {
        return Err(ExtractError::TimedOut(limits.timeout));
    }
    if stderr.contains("has overflowed its stack") {
        return Err(ExtractError::Corrupt("the parser failed: the document nests too deeply".into()));
    }
    if status.signal().is_some() || stderr.contains("memory allocation of") {
        // An allocation over the address-space limit aborts (or, for a stack that cannot grow,
        // faults); both mean the document needs more memory than the budget.
        return Err(memory_exceeded(limits.max_memory_bytes));
    }
    Err(ExtractError::Corrupt(format!("the document parser failed ({status})")))
}

pub(crate) fn memory_exceeded(budget: u64) -> ExtractError {
    ExtractError::TooLarge(format!(
        "reading the document exceeded the parser's memory budget of {}",
        crate::human_bytes(budget)
    ))
}

fn kind_to_byte(kind: DocumentKind) -> u8 {
    match kind {
        DocumentKind::Pdf => 1,
        DocumentKind::Docx => 2,
        DocumentKind::Markdown => 3,
        DocumentKind::Text => 4,
        DocumentKind::Html => 5,
        DocumentKind::Csv => 6,
        DocumentKind::Tsv => 7,
        DocumentKind::Xlsx => 8,
        DocumentKind::Ods => 9,
        DocumentKind::Pptx => 10,
        DocumentKind::Epub => 11,
        DocumentKind::Odt => 12,
        DocumentKind::Rtf => 13,
    }
}

fn kind_from_byte(byte: u8) -> Option<DocumentKind> {
    Some(match byte {
        1 => DocumentKind::Pdf,
        2 => DocumentKind::Docx,
        3 => DocumentKind::Markdown,
        4 => DocumentKind::Text,
        5 => DocumentKind::Html,
        6 => DocumentKind::Csv,
        7 => DocumentKind::Tsv,
        8 => DocumentKind::Xlsx,
        9 => DocumentKind::Ods,
        10 => DocumentKind::Pptx,
        11 => DocumentKind::Epub,
        12 => DocumentKind::Odt,
        13 => DocumentKind::Rtf,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_answers_round_trip() {
        let tesseract = OcrSettings {
            engine: OcrEngine::Tesseract { languages: "eng+fra", program: "/usr/bin/tesseract" },
            max_pages: 4,
        };
        let openai = OcrSettings { max_pages: 7, ..OcrSettings::openai("http://127.0.0.1:9/v1", Some("sk-k"), "m") };
        let keyless = OcrSettings::openai("http://127.0.0.1:9/v1", None, "m");
        assert!(!format!("{openai:?}").contains("sk-k"), "the key is not in Debug output");
        for ocr in [None, Some(tesseract), Some(openai), Some(keyless)] {
            let limits = ExtractLimits { max_paragraphs: 7, max_content_bytes: 9, ocr, ..ExtractLimits::default() };
            let mut wire = encode_request(DocumentKind::Docx, &limits);
            wire.extend_from_slice(b"document");
            let (bytes, kind, read) = read_request(&mut wire.as_slice()).expect("request");
            assert_eq!((bytes.as_slice(), kind), (b"document".as_slice(), DocumentKind::Docx));
            assert_eq!(read, limits);
        }

        for answer in [
            Ok(Extracted { text: "héllo".into(), title: Some("Tïtle".into()) }),
            Ok(Extracted { text: "no title".into(), title: None }),
            Err(ExtractError::TooLarge("too big".into())),
            Err(ExtractError::Unsupported("what".into())),
            Err(ExtractError::Corrupt("broken".into())),
        ] {
            assert_eq!(decode_answer(&encode_answer(&answer)), Some(answer));
        }
        for byte in 0..=u8::MAX {
            if let Some(kind) = kind_from_byte(byte) {
                assert_eq!(kind_to_byte(kind), byte, "{kind:?}");
            }
        }
        assert_eq!((1..=13).filter_map(kind_from_byte).count(), 13, "every kind crosses the pipe");
        assert_eq!(decode_answer(&[0, 1, 2]), None, "a cut answer is unreadable");
        assert!(read_request(&mut MAGIC.as_slice()).is_err(), "a cut header is refused");
    }
}
