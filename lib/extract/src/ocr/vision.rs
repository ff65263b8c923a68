//! Text recognition by a vision model behind an OpenAI-compatible chat-completions API
//! (`LORE_OCR=openai`), from inside the parser (its process, when parses run in one).
//!
//! One request per page: the page's images, decoded as for Tesseract (same caps), go as `data:`
//! URLs (JPEG as it is; decoded pixels and CCITT fax images as PNG) in one user message with the
//! transcription instruction, at temperature 0. The answers are joined page by page with blank
//! lines. Each request is bounded by the parse's remaining time (retries and their waits
//! included) and its answer by the output left under the document's cap. The HTTP is
//! `lore-openai`'s (capped answers, retries, failure classification) on a current-thread Tokio
//! runtime of its own, on a thread of its own (the parser may run on a thread of a runtime).

use super::{Failure, MAX_DECODED_BYTES, PageImages, Picture, PixelFormat, Raster, keep_text, too_large};
use async_openai::error::OpenAIError;
use base64::Engine as _;
use lore_openai::{HttpFailure, Retries, TooLong};
use serde_json::{Value, json};
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

/// What the model is asked for.
const INSTRUCTION: &str = "Transcribe all of the text on this scanned page verbatim, in reading order. \
     If several images are given, they are parts of the same page, in drawing order. Answer with the plain text \
     only: keep the line breaks, use no Markdown, add no commentary, description or translation. If there is no \
     text, answer with nothing.";
/// Largest encoded image sent (OpenAI accepts up to 20 MB an image); larger ones are skipped.
const MAX_IMAGE_BYTES: usize = 20 * 1024 * 1024;
/// Largest total of encoded images in one request (one page); the page's later images are
/// skipped.
const MAX_PAGE_BYTES: usize = 40 * 1024 * 1024;
/// Room for the JSON around an answer's text (and its escapes), beyond the output left.
const ANSWER_FRAMING: usize = 64 * 1024;
/// Transient failures (unreachable, 408, 429, 5xx) are retried this way, within the parse's time.
const RETRIES: Retries = Retries {
    max_retries: 2,
    initial_backoff: Duration::from_millis(500),
    max_backoff: Duration::from_secs(4),
    max_retry_after: Duration::from_secs(10),
};

/// The model and where it is served.
pub(crate) struct Model<'a> {
    /// Up to `/v1`, no trailing slash.
    pub base_url: &'a str,
    pub api_key: Option<&'a str>,
    pub model: &'a str,
}

/// The recognised text of `pages`, pages separated by a blank line.
pub(crate) fn recognize(
    pages: &[PageImages],
    model: &Model<'_>,
    deadline: Instant,
    max_output_bytes: usize,
) -> Result<String, Failure> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::CannotRun(format!("no runtime for the model's requests: {e}")))?;
    // A thread of its own: the parser may be running on a blocking thread of the server's runtime,
    // where a runtime cannot be entered.
    std::thread::scope(|scope| {
        let job = scope.spawn(|| runtime.block_on(read_pages(pages, model, deadline, max_output_bytes)));
        job.join().unwrap_or_else(|_| Err(Failure::CannotRun("the model's client failed".into())))
    })
}

async fn read_pages(
    pages: &[PageImages],
    model: &Model<'_>,
    deadline: Instant,
    max_output_bytes: usize,
) -> Result<String, Failure> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(Failure::TimedOut);
    }
    let http = lore_openai::http_client(left)
        .map_err(|e| Failure::CannotRun(format!("the model's HTTP client cannot start: {e}")))?;
    let url = format!("{}/chat/completions", model.base_url);
    let mut decoded = 0u64;
    let mut read_any = false;
    let mut texts = Vec::new();
    let mut total = 0usize;
    for page in pages {
        let images = page_images(page, &mut decoded);
        if images.is_empty() {
            continue;
        }
        read_any = true;
        let mut content = vec![json!({"type": "text", "text": INSTRUCTION})];
        content.extend(
            images.into_iter().map(|url| json!({"type": "image_url", "image_url": {"url": url, "detail": "high"}})),
        );
        let body = json!({
            "model": model.model,
            "temperature": 0,
            "messages": [{"role": "user", "content": content}],
        });
        let left = max_output_bytes.saturating_sub(total);
        let answer = ask(&http, &url, model, &body, (left, max_output_bytes), deadline, page.number).await?;
        drop(body);
        keep_text(&mut texts, &answer, &mut total, max_output_bytes)?;
    }
    if !read_any {
        return Err(Failure::NothingReadable);
    }
    if texts.is_empty() {
        return Err(Failure::NoText);
    }
    Ok(texts.join("\n\n"))
}

/// The page's images as `data:` URLs, within the size caps; the others are skipped (debug log).
fn page_images(page: &PageImages, decoded: &mut u64) -> Vec<String> {
    let mut urls = Vec::new();
    let mut bytes = 0usize;
    for (i, image) in page.images.iter().enumerate() {
        let encoded = super::decode(image, decoded).and_then(|picture| encode(picture, decoded));
        let (mime, data) = match encoded {
            Ok(encoded) => encoded,
            Err(why) => {
                tracing::debug!(page = page.number, image = i, why, "image skipped by text recognition");
                continue;
            }
        };
        if data.len() > MAX_IMAGE_BYTES || bytes.saturating_add(data.len()) > MAX_PAGE_BYTES {
            tracing::debug!(page = page.number, image = i, size = data.len(), "image too large for the vision model");
            continue;
        }
        bytes += data.len();
        let mut url = format!("data:{mime};base64,");
        base64::engine::general_purpose::STANDARD.encode_string(&data, &mut url);
        urls.push(url);
    }
    urls
}

/// The picture as a file a vision model reads: its media type and bytes.
fn encode(picture: Picture, decoded: &mut u64) -> Result<(&'static str, Vec<u8>), &'static str> {
    match picture {
        Picture::Jpeg(bytes) => Ok(("image/jpeg", bytes)),
        Picture::Fax { data, columns, rows, k, black_is_1 } => {
            Ok(("image/png", png(&decode_fax(&data, (columns, rows), k, black_is_1, decoded)?)?))
        }
        Picture::Raster(raster) => Ok(("image/png", png(&raster)?)),
    }
}

/// Decoded pixels as a PNG file.
fn png(raster: &Raster) -> Result<Vec<u8>, &'static str> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, raster.width, raster.height);
    let (color, depth) = match raster.format {
        PixelFormat::Gray8 => (png::ColorType::Grayscale, png::BitDepth::Eight),
        PixelFormat::Rgb8 => (png::ColorType::Rgb, png::BitDepth::Eight),
        PixelFormat::Gray1 => (png::ColorType::Grayscale, png::BitDepth::One),
    };
    encoder.set_color(color);
    encoder.set_depth(depth);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header().map_err(|_| "not encodable as PNG")?;
    writer.write_image_data(&raster.data).map_err(|_| "not encodable as PNG")?;
    writer.finish().map_err(|_| "not encodable as PNG")?;
    Ok(out)
}

/// CCITT fax data decoded to one-bit pixels: Group 4 (`k` < 0), or one-dimensional Group 3
/// (`k` = 0) that starts with an end-of-line code; two-dimensional Group 3 is not read. Lines
/// missing at the end are white runs. With `black_is_1`, the runs the data calls black show
/// white and the other way round (as a PDF reader shows them).
fn decode_fax(
    data: &[u8],
    (columns, rows): (u32, u32),
    k: i64,
    black_is_1: bool,
    decoded: &mut u64,
) -> Result<Raster, &'static str> {
    use fax::Color;
    let row = columns.div_ceil(8) as usize;
    let size = row.checked_mul(rows as usize).ok_or("too large")?;
    *decoded = decoded.saturating_add(size as u64);
    if *decoded > MAX_DECODED_BYTES {
        return Err("over the document's decoded image budget");
    }
    // 1 is white in a one-bit grey PNG: white runs first, inverted at the end for `black_is_1`.
    let mut pixels = vec![0xffu8; size];
    let mut lines = 0usize;
    let mut line = |transitions: &[u32]| {
        if lines >= rows as usize {
            return;
        }
        let out = &mut pixels[lines * row..(lines + 1) * row];
        for (i, color) in fax::decoder::pels(transitions, columns).enumerate() {
            if color == Color::Black {
                out[i / 8] &= !(0x80 >> (i % 8));
            }
        }
        lines += 1;
    };
    // A damaged stream must only cost this image, whatever the decoder does with it.
    let run = catch_unwind(AssertUnwindSafe(|| match k {
        ..0 => fax::decoder::decode_g4(data.iter().copied(), columns, Some(rows), &mut line).is_some(),
        0 => fax::decoder::decode_g3(data.iter().copied(), &mut line).is_some(),
        _ => false,
    }));
    match run {
        Ok(_) if lines > 0 => {
            if black_is_1 {
                pixels.iter_mut().for_each(|b| *b = !*b);
            }
            Ok(Raster { width: columns, height: rows, format: PixelFormat::Gray1, data: pixels })
        }
        Ok(_) if k > 0 => Err("two-dimensional CCITT Group 3 data"),
        Ok(_) => Err("damaged CCITT fax data"),
        Err(_) => Err("CCITT fax data the decoder failed on"),
    }
}

/// One page's request, retried while transient, within `deadline`; the answer's text, at most
/// `output_left` bytes (the rest of the document's `max_output_bytes`).
async fn ask(
    http: &reqwest::Client,
    url: &str,
    model: &Model<'_>,
    body: &Value,
    (output_left, max_output_bytes): (usize, usize),
    deadline: Instant,
    page: u32,
) -> Result<String, Failure> {
    let cap = output_left.saturating_mul(2).saturating_add(ANSWER_FRAMING);
    let too_long = Cell::new(false);
    let attempt = || async {
        lore_openai::post_json_capped(http, url, model.api_key, body, cap).await.map_err(|error| {
            if let OpenAIError::Boxed(boxed) = &error {
                if boxed.is::<TooLong>() {
                    too_long.set(true);
                } else if let Some(failure) = boxed.downcast_ref::<HttpFailure>()
                    && matches!(failure.status, 401 | 403)
                {
                    // Never the server's message: it may quote part of the key.
                    let message = if model.api_key.is_some() {
                        "the provider refused the API key (OPENAI_API_KEY)"
                    } else {
                        "the provider wants an API key (OPENAI_API_KEY)"
                    };
                    return OpenAIError::Boxed(Box::new(HttpFailure { message: message.into(), ..failure.clone() }));
                }
            }
            error
        })
    };
    let on_retry = |retry: u32, delay: Duration, why: &str| {
        tracing::warn!(page, retry, ?delay, error = why, "the vision model failed; retrying");
    };
    let run = RETRIES.run(attempt, on_retry);
    let outcome = tokio::time::timeout_at(deadline.into(), run).await;
    let answer = match outcome {
        Err(_) => {
            tracing::warn!(page, "the vision model did not answer within the parse's time limit");
            return Err(Failure::TimedOut);
        }
        Ok(Ok(answer)) => answer,
        Ok(Err(_)) if too_long.get() => return Err(too_large(max_output_bytes)),
        Ok(Err(failure)) => {
            let why = match failure {
                lore_openai::Failure::Permanent(m) => format!("the model refused the request: {m}"),
                lore_openai::Failure::TooLarge(m) => format!("the page is too large for the model: {m}"),
                lore_openai::Failure::Transient { message, .. } => {
                    format!("the model could not be reached or kept failing: {message}")
                }
            };
            tracing::error!(page, model = model.model, error = %why, "text recognition by the vision model failed");
            return Err(Failure::CannotRun(why));
        }
    };
    let text = answer_text(&answer).ok_or_else(|| {
        tracing::error!(page, "the vision model's answer is not a chat completion");
        Failure::CannotRun("the model's answer is not a chat completion".into())
    })?;
    if text.len() > output_left {
        return Err(too_large(max_output_bytes));
    }
    Ok(text)
}

/// The text of the first choice of a chat completion (a string, or text parts), without a
/// Markdown code fence around it; `None` when the answer is no chat completion.
fn answer_text(answer: &[u8]) -> Option<String> {
    let answer: Value = serde_json::from_slice(answer).ok()?;
    let message = answer.get("choices")?.get(0)?.get("message")?;
    let text = match message.get("content")? {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        Value::Array(parts) => {
            parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
        }
        _ => return None,
    };
    Some(unfenced(text.trim()).to_owned())
}

/// `text` without a code fence (```` ``` ````, with or without a language) around all of it.
fn unfenced(text: &str) -> &str {
    let Some(inner) = text.strip_prefix("```").and_then(|t| t.strip_suffix("```")) else { return text };
    match inner.split_once('\n') {
        Some((_, body)) => body.trim(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_from_strings_or_parts_and_fences_dropped() {
        let answer = |content: Value| {
            answer_text(json!({"choices": [{"message": {"content": content}}]}).to_string().as_bytes())
        };
        assert_eq!(answer(json!("  Line one\nLine two \n")).as_deref(), Some("Line one\nLine two"));
        assert_eq!(answer(json!("```text\nfenced\n```")).as_deref(), Some("fenced"));
        assert_eq!(answer(json!("```\nplain\n```")).as_deref(), Some("plain"));
        assert_eq!(
            answer(json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}])).as_deref(),
            Some("a\nb")
        );
        assert_eq!(answer(Value::Null).as_deref(), Some(""));
        assert_eq!(answer_text(b"{\"error\": 1}"), None);
        assert_eq!(answer_text(b"not json"), None);
    }

    #[test]
    fn one_bit_pixels_become_a_png_and_fax_data_is_decoded() {
        let raster = Raster { width: 9, height: 2, format: PixelFormat::Gray1, data: vec![0x7f, 0x80, 0xff, 0xff] };
        let file = png(&raster).unwrap();
        assert!(file.starts_with(b"\x89PNG\r\n\x1a\n"));
        assert_eq!(
            (&file[16..20], &file[20..24], file[24], file[25]),
            (&9u32.to_be_bytes()[..], &2u32.to_be_bytes()[..], 1, 0)
        );
        let mut decoded = 0;
        assert!(decode_fax(b"\xff\xff", (8, 2), 1, false, &mut decoded).is_err(), "2-D Group 3 is not read");
        assert!(decode_fax(b"", (8, 2), -1, false, &mut decoded).is_err(), "no data");
    }
}
