//! Text recognition (OCR) of scanned PDF pages: Tesseract (`LORE_OCR=tesseract`) here, a vision
//! model behind an OpenAI-compatible API (`LORE_OCR=openai`) in [`vision`].
//!
//! `pdf.rs` hands over the image XObjects each page draws, in page order, when the text layer is
//! empty. Each image is decoded here ([`decode`]), under the same caps for both engines.
//!
//! Tesseract: each image is written, in an encoding Tesseract reads, to a file of a private
//! temporary directory, and `tesseract <file> stdout -l <languages>` runs on it as a child
//! process: no shell, the remaining parse time as its deadline (it is killed past it), one thread,
//! and the parser's own resource limits, which a child inherits. In a parser process
//! (`process.rs`) it is also killed when the parser dies.
//!
//! Encodings read: JPEG (`DCTDecode`, passed on as it is); uncompressed or `FlateDecode` images
//! (PNG predictors included) in grey or RGB at 8 bits per component (written as PGM/PPM for
//! Tesseract, PNG for a vision model) or grey at 1 bit (PBM, PNG), palette (`/Indexed`) and CMYK
//! images turned into grey or RGB; JPEG 2000 (`JPXDecode`) decoded to grey or RGB; CCITT Group 3
//! and 4 fax images (`CCITTFaxDecode`: wrapped in a TIFF header for Tesseract; decoded to a PNG
//! for a vision model, Group 4 and one-dimensional Group 3 with end-of-line codes only); JBIG2
//! (`JBIG2Decode`, with the document's shared segments) decoded to 1-bit pixels. Others (masks,
//! chains of filters) are skipped.

mod vision;

use lore_app::ports::{ExtractError, OcrEngine, OcrSettings};
use pdf_extract::{Dictionary, Object, Stream};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Largest image read, in pixels (a letter page scanned at 600 dpi is 34 megapixels); larger
/// ones are skipped.
pub(crate) const MAX_PIXELS: u64 = 40_000_000;
/// Largest total of decoded pixel data (Flate or uncompressed images) of one document, in bytes.
pub(crate) const MAX_DECODED_BYTES: u64 = 512 * 1024 * 1024;
/// Images of one page read at most.
pub(crate) const MAX_IMAGES_PER_PAGE: usize = 16;
/// How much of Tesseract's error output is kept for the log and the error.
const STDERR_KEPT: usize = 4 * 1024;

/// The images of one page, in drawing order.
pub(crate) struct PageImages {
    pub number: u32,
    pub images: Vec<Stream>,
}

/// Why recognition gave no text.
pub(crate) enum Failure {
    /// No image of the pages is in an encoding read here.
    NothingReadable,
    /// The engine ran and found no text.
    NoText,
    /// The engine could not be started, reached or used; the reason for the operator.
    CannotRun(String),
    TimedOut,
    TooLarge(ExtractError),
}

/// The recognised text of `pages`, pages separated by a blank line.
pub(crate) fn recognize(
    pages: &[PageImages],
    ocr: &OcrSettings,
    deadline: Instant,
    max_output_bytes: usize,
) -> Result<String, Failure> {
    match ocr.engine {
        OcrEngine::Tesseract { program, languages } => {
            recognize_with_tesseract(pages, program, languages, deadline, max_output_bytes)
        }
        OcrEngine::OpenAi { base_url, api_key, model } => {
            let model = vision::Model { base_url, api_key: api_key.map(|k| k.expose()), model };
            vision::recognize(pages, &model, deadline, max_output_bytes)
        }
    }
}

/// Adds a recognised `text` to `texts`, counting it (and its separator) against the output cap.
pub(crate) fn keep_text(
    texts: &mut Vec<String>,
    text: &str,
    total: &mut usize,
    max_output_bytes: usize,
) -> Result<(), Failure> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(());
    }
    *total = total.saturating_add(text.len() + 2);
    if *total > max_output_bytes {
        return Err(too_large(max_output_bytes));
    }
    texts.push(text.to_owned());
    Ok(())
}

fn too_large(max_output_bytes: usize) -> Failure {
    Failure::TooLarge(ExtractError::TooLarge(format!("the extracted text exceeds {max_output_bytes} bytes")))
}

fn recognize_with_tesseract(
    pages: &[PageImages],
    program: &str,
    languages: &str,
    deadline: Instant,
    max_output_bytes: usize,
) -> Result<String, Failure> {
    let dir = tempfile::Builder::new()
        .prefix("lore-ocr-")
        .tempdir()
        .map_err(|e| Failure::CannotRun(format!("no temporary directory for the page images: {e}")))?;
    let mut decoded = 0u64;
    let mut read_any = false;
    let mut texts = Vec::new();
    let mut total = 0usize;
    for page in pages {
        let mut page_text = Vec::new();
        for (i, image) in page.images.iter().enumerate() {
            let (extension, bytes) = match decode(image, &mut decoded).and_then(tesseract_file) {
                Ok(encoded) => encoded,
                Err(why) => {
                    tracing::debug!(page = page.number, image = i, why, "image skipped by text recognition");
                    continue;
                }
            };
            read_any = true;
            let path = dir.path().join(format!("page-{}-{i}.{extension}", page.number));
            write_private(&path, &bytes)
                .map_err(|e| Failure::CannotRun(format!("the page image cannot be written: {e}")))?;
            drop(bytes);
            let tesseract = Tesseract { program, languages };
            let result = tesseract.run(&path, deadline, max_output_bytes.saturating_sub(total), max_output_bytes);
            let _ = std::fs::remove_file(&path);
            let text = result?.replace('\u{c}', "");
            keep_text(&mut page_text, &text, &mut total, max_output_bytes)?;
        }
        if !page_text.is_empty() {
            texts.push(page_text.join("\n\n"));
        }
    }
    if !read_any {
        return Err(Failure::NothingReadable);
    }
    if texts.is_empty() {
        return Err(Failure::NoText);
    }
    Ok(texts.join("\n\n"))
}

/// Writes a file only this user can read, failing if it exists.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)?;
    file.write_all(bytes)?;
    file.flush()
}

/// The Tesseract program and its languages.
struct Tesseract<'a> {
    program: &'a str,
    languages: &'a str,
}

impl Tesseract<'_> {
    /// Runs Tesseract on one image file until `deadline`; its text (at most `cap` bytes are kept;
    /// the caller refuses more).
    fn run(&self, path: &Path, deadline: Instant, cap: usize, max_output_bytes: usize) -> Result<String, Failure> {
        if Instant::now() >= deadline {
            return Err(Failure::TimedOut);
        }
        let mut command = Command::new(self.program);
        command
            .arg(path)
            .arg("stdout")
            .arg("-l")
            .arg(self.languages)
            // One thread: the parser's slot is one core's worth of work.
            .env("OMP_THREAD_LIMIT", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(target_os = "linux")]
        {
            use std::os::unix::process::CommandExt;
            // SAFETY: runs in the forked child before exec and only calls prctl, which is
            // async-signal-safe; it allocates nothing.
            unsafe {
                command.pre_exec(|| {
                    // Killed with the parser (the thread that started it) if that dies first.
                    if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let mut child = command.spawn().map_err(|e| {
            tracing::error!(program = self.program, error = %e, "Tesseract cannot start");
            Failure::CannotRun(format!("{} could not be started: {e}", self.program))
        })?;
        let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Failure::CannotRun("Tesseract started without pipes".into()));
        };
        let out = std::thread::spawn(move || read_capped(stdout, cap));
        let err = std::thread::spawn(move || read_capped(stderr, STDERR_KEPT));
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() >= deadline => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                Err(e) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(Failure::CannotRun(format!("Tesseract was lost: {e}")));
                }
            }
        };
        let stdout = out.join().unwrap_or_default();
        let stderr = err.join().unwrap_or_default();
        let Some(status) = status else {
            tracing::warn!(image = %path.display(), "Tesseract was killed at the parse's time limit");
            return Err(Failure::TimedOut);
        };
        if !status.success() {
            let stderr = String::from_utf8_lossy(&stderr);
            let stderr = stderr.trim();
            tracing::error!(%status, stderr, "Tesseract failed");
            let tail: String =
                stderr.lines().rev().take(3).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join(" ");
            return Err(Failure::CannotRun(format!("{} failed ({status}): {tail}", self.program)));
        }
        if stdout.len() > cap {
            return Err(too_large(max_output_bytes));
        }
        Ok(String::from_utf8_lossy(&stdout).into_owned())
    }
}

/// Reads `reader` to its end, keeping at most `cap + 1` bytes (the rest is drained).
fn read_capped(mut reader: impl Read, cap: usize) -> Vec<u8> {
    let mut kept = Vec::new();
    let mut buffer = [0u8; 16 * 1024];
    while let Ok(n) = reader.read(&mut buffer) {
        if n == 0 {
            break;
        }
        let room = cap.saturating_add(1).saturating_sub(kept.len());
        kept.extend_from_slice(&buffer[..n.min(room)]);
    }
    kept
}

// ------------------------------------------------------------------------------ encodings

/// A page image, decoded as far as the engines need.
pub(crate) enum Picture {
    /// A JPEG file (`DCTDecode` data as it is).
    Jpeg(Vec<u8>),
    /// CCITT fax data: Group 4 when `k` < 0, else Group 3 (two-dimensional when `k` > 0).
    /// `black_is_1` (PDF's `BlackIs1`): the runs the data calls black show white, and the other
    /// way round (1 bits are black, and a 1-bit grey image shows 1 as white).
    Fax { data: Vec<u8>, columns: u32, rows: u32, k: i64, black_is_1: bool },
    /// Pixels.
    Raster(Raster),
}

/// Decoded pixels: rows of `width` pixels, each row padded to a whole byte.
pub(crate) struct Raster {
    pub width: u32,
    pub height: u32,
    pub format: PixelFormat,
    pub data: Vec<u8>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum PixelFormat {
    /// One byte a pixel, 0 black.
    Gray8,
    /// Three bytes a pixel.
    Rgb8,
    /// One bit a pixel, most significant first, 0 black (as PDF and PNG have it).
    Gray1,
}

/// The image decoded; or why it is skipped. `decoded` counts the pixel data decoded so far for
/// the document.
pub(crate) fn decode(image: &Stream, decoded: &mut u64) -> Result<Picture, &'static str> {
    let dict = &image.dict;
    if dict.get(b"ImageMask").ok().and_then(|m| m.as_bool().ok()) == Some(true) {
        return Err("an image mask");
    }
    let width = positive(dict, b"Width").ok_or("no width")?;
    let height = positive(dict, b"Height").ok_or("no height")?;
    if width.saturating_mul(height) > MAX_PIXELS {
        return Err("more pixels than the limit");
    }
    let filters = names(dict.get(b"Filter").ok());
    let params = match dict.get(b"DecodeParms").ok() {
        Some(Object::Array(items)) => items.last().and_then(|p| p.as_dict().ok()),
        Some(Object::Dictionary(d)) => Some(d),
        _ => None,
    };
    match filters.as_slice() {
        [f] if f == b"DCTDecode" => {
            if !image.content.starts_with(&[0xff, 0xd8]) {
                return Err("not a JPEG file");
            }
            Ok(Picture::Jpeg(image.content.clone()))
        }
        [f] if f == b"CCITTFaxDecode" => fax(image, params, width, height),
        [] | [_] if filters.first().is_none_or(|f| f == b"FlateDecode") => {
            raster(image, params, !filters.is_empty(), width, height, decoded)
        }
        [f] if f == b"JPXDecode" => jpeg2000(&image.content, decoded),
        [f] if f == b"JBIG2Decode" => {
            // pdf.rs inlines the shared `JBIG2Globals` stream's bytes as a string.
            let globals = match params.and_then(|p| p.get(b"JBIG2Globals").ok()) {
                Some(Object::String(bytes, _)) => Some(bytes.as_slice()),
                _ => None,
            };
            jbig2(&image.content, globals, width, height, decoded)
        }
        _ => Err("an encoding not read (a filter chain)"),
    }
}

/// A CCITT fax image (group 3 or 4), its size from its parameters or the image's.
fn fax(image: &Stream, params: Option<&Dictionary>, width: u64, height: u64) -> Result<Picture, &'static str> {
    let int = |key: &[u8]| params.and_then(|p| p.get(key).ok()).and_then(|v| v.as_i64().ok());
    let columns = int(b"Columns").and_then(|c| u64::try_from(c).ok()).filter(|&c| c > 0).unwrap_or(width);
    let rows = int(b"Rows").and_then(|r| u64::try_from(r).ok()).filter(|&r| r > 0).unwrap_or(height);
    if columns.saturating_mul(rows) > MAX_PIXELS {
        return Err("more pixels than the limit");
    }
    let (columns, rows) =
        (u32::try_from(columns).map_err(|_| "too wide")?, u32::try_from(rows).map_err(|_| "too tall")?);
    let black_is_1 = params.and_then(|p| p.get(b"BlackIs1").ok()).and_then(|v| v.as_bool().ok());
    Ok(Picture::Fax {
        data: image.content.clone(),
        columns,
        rows,
        k: int(b"K").unwrap_or(0),
        black_is_1: black_is_1.unwrap_or(false),
    })
}

/// An image stored as pixels (`compressed`: by Flate), in grey, RGB, CMYK or a palette, with or
/// without a PNG predictor, as grey or RGB pixels. `decoded` counts the document's decoded bytes.
fn raster(
    image: &Stream,
    params: Option<&Dictionary>,
    compressed: bool,
    width: u64,
    height: u64,
    decoded: &mut u64,
) -> Result<Picture, &'static str> {
    let dict = &image.dict;
    let bits = dict.get(b"BitsPerComponent").ok().and_then(|b| b.as_i64().ok()).unwrap_or(8);
    let space = space(dict.get(b"ColorSpace").ok()).ok_or("a colour space not read")?;
    let (components, bits) = match (&space, bits) {
        (Space::Gray, 8 | 1) | (Space::Rgb, 8) | (Space::Cmyk, 8) => (space.components(), bits as u64),
        (Space::Indexed { .. }, 1 | 2 | 4 | 8) => (1, bits as u64),
        _ => return Err("a pixel format not read"),
    };
    let row = (width * components * bits).div_ceil(8);
    let size = row * height;
    // What is stored, and what a palette or CMYK image becomes (one or three bytes a pixel).
    let converted = match &space {
        Space::Indexed { base, .. } => width * height * base.shown_components(),
        Space::Cmyk => width * height * 3,
        _ => 0,
    };
    *decoded = decoded.saturating_add(size).saturating_add(converted);
    if *decoded > MAX_DECODED_BYTES {
        return Err("over the document's decoded image budget");
    }
    let predictor = params.and_then(|p| p.get(b"Predictor").ok()).and_then(|p| p.as_i64().ok()).unwrap_or(1);
    let stored = if predictor >= 10 { (row + 1) * height } else { size };
    if (2..10).contains(&predictor) {
        return Err("a TIFF predictor");
    }
    let data = if compressed {
        inflate(&image.content, stored).ok_or("damaged or short data")?
    } else {
        image.content.get(..usize::try_from(stored).map_err(|_| "too large")?).ok_or("short data")?.to_vec()
    };
    let row = usize::try_from(row).map_err(|_| "too large")?;
    let mut pixels = if predictor >= 10 {
        let per_pixel = usize::try_from((components * bits).div_ceil(8)).unwrap_or(1);
        unpredict_png(&data, row, per_pixel, usize::try_from(height).map_err(|_| "too large")?)
            .ok_or("damaged predictor data")?
    } else {
        data
    };
    let inverted = matches!(
        dict.get(b"Decode").ok().and_then(|d| d.as_array().ok()).map(Vec::as_slice),
        Some([a, ..]) if a.as_float().ok().or_else(|| a.as_i64().ok().map(|v| v as f32)) == Some(1.0)
    );
    // An inverted palette would swap indices, not colours: not met in scans, not read.
    if inverted && !matches!(space, Space::Indexed { .. }) {
        pixels.iter_mut().for_each(|b| *b = !*b);
    }
    let (width, height) =
        (u32::try_from(width).map_err(|_| "too wide")?, u32::try_from(height).map_err(|_| "too tall")?);
    let (format, data) = match space {
        Space::Gray if bits == 1 => (PixelFormat::Gray1, pixels),
        Space::Gray => (PixelFormat::Gray8, pixels),
        Space::Rgb => (PixelFormat::Rgb8, pixels),
        Space::Cmyk => (PixelFormat::Rgb8, pixels.chunks_exact(4).flat_map(cmyk_to_rgb).collect()),
        Space::Indexed { base, hival, lookup } => {
            depalette(&pixels, width, height, bits as u8, &base, hival, &lookup).ok_or("a short palette")?
        }
    };
    Ok(Picture::Raster(Raster { width, height, format, data }))
}

/// A JPEG 2000 image (`JPXDecode`: a JP2 file or a bare codestream) decoded to grey or RGB
/// pixels by hayro-jpeg2000 (memory-safe Rust); an alpha channel is laid over white paper.
fn jpeg2000(data: &[u8], decoded: &mut u64) -> Result<Picture, &'static str> {
    use hayro_jpeg2000::{DecodeSettings, Image};
    let jpx = Image::new(data, &DecodeSettings::default()).map_err(|_| "damaged JPEG 2000 data")?;
    let (width, height) = (jpx.width(), jpx.height());
    let pixels = u64::from(width) * u64::from(height);
    if pixels == 0 || pixels > MAX_PIXELS {
        return Err("more pixels than the limit");
    }
    let colours = u64::from(jpx.color_space().num_channels());
    if !matches!(colours, 1 | 3 | 4) {
        return Err("a pixel format not read");
    }
    let channels = colours + u64::from(jpx.has_alpha());
    // The decoder works on a 32-bit sample per channel besides the 8-bit result it returns.
    *decoded = decoded.saturating_add(pixels * channels * 5);
    if *decoded > MAX_DECODED_BYTES {
        return Err("over the document's decoded image budget");
    }
    let samples = jpx.decode().map_err(|_| "damaged JPEG 2000 data")?;
    let alpha = jpx.has_alpha();
    let over_paper = |v: u8, a: u8| ((u16::from(v) * u16::from(a) + 255 * (255 - u16::from(a))) / 255) as u8;
    let mut data = Vec::with_capacity(usize::try_from(pixels * colours.min(3)).map_err(|_| "too large")?);
    for pixel in samples.chunks_exact(usize::try_from(channels).unwrap_or(1)) {
        let (colour, a) = if alpha { (&pixel[..pixel.len() - 1], pixel[pixel.len() - 1]) } else { (pixel, 255) };
        match colour.len() {
            4 => data.extend(cmyk_to_rgb(colour).map(|v| over_paper(v, a))),
            _ => data.extend(colour.iter().map(|&v| over_paper(v, a))),
        }
    }
    let format = if colours == 1 { PixelFormat::Gray8 } else { PixelFormat::Rgb8 };
    Ok(Picture::Raster(Raster { width, height, format, data }))
}

/// A JBIG2 image (`JBIG2Decode`, the embedded organisation, with the document's shared
/// segments when it has them) decoded by hayro-jbig2 (memory-safe Rust) to 1-bit pixels.
fn jbig2(
    data: &[u8],
    globals: Option<&[u8]>,
    width: u64,
    height: u64,
    decoded: &mut u64,
) -> Result<Picture, &'static str> {
    use hayro_jbig2::{DecodeSettings, Globals, Page};
    let settings = DecodeSettings::default();
    let globals = globals.map(|g| Globals::new(g, &settings)).transpose().map_err(|_| "damaged JBIG2 data")?;
    let page = Page::new_embedded(data, globals.as_ref(), &settings).map_err(|_| "damaged JBIG2 data")?;
    let (page_width, page_height) = (u64::from(page.width()), u64::from(page.height()));
    if page_width.saturating_mul(page_height) > MAX_PIXELS || page_width == 0 || page_height == 0 {
        return Err("more pixels than the limit");
    }
    // The decoder's page bitmap and ours, a bit a pixel each, rows padded.
    *decoded = decoded.saturating_add(page_width.div_ceil(8) * page_height * 2);
    if *decoded > MAX_DECODED_BYTES {
        return Err("over the document's decoded image budget");
    }
    let mut rows = BitRows::new(page.width(), page.height());
    page.decode(&mut rows).map_err(|_| "damaged JBIG2 data")?;
    // The image's own size bounds what is shown (a page may be larger than the image drawn).
    let (width, height) = (page_width.min(width), page_height.min(height));
    let data = rows.crop(width as usize, height as usize);
    Ok(Picture::Raster(Raster { width: width as u32, height: height as u32, format: PixelFormat::Gray1, data }))
}

/// 1-bit rows as JBIG2 pushes them, stored as PDF shows them: 0 black (JBIG2's 1).
struct BitRows {
    row_bytes: usize,
    rows: usize,
    data: Vec<u8>,
    /// Pixels pushed into the current row.
    at: usize,
    row: usize,
}

impl BitRows {
    fn new(width: u32, height: u32) -> Self {
        let row_bytes = (width as usize).div_ceil(8);
        // White paper until pushed; the page's size was checked against the pixel limit.
        Self { row_bytes, rows: height as usize, data: vec![0xff; row_bytes * height as usize], at: 0, row: 0 }
    }

    /// The top-left `width` × `height` pixels, rows padded to a byte.
    fn crop(self, width: usize, height: usize) -> Vec<u8> {
        let keep = width.div_ceil(8);
        if keep == self.row_bytes {
            let mut data = self.data;
            data.truncate(keep * height);
            return data;
        }
        self.data.chunks_exact(self.row_bytes).take(height).flat_map(|r| r[..keep].iter().copied()).collect()
    }

    fn byte(&mut self, bit: usize) -> Option<&mut u8> {
        if self.row >= self.rows || bit / 8 >= self.row_bytes {
            return None; // past the declared size: a damaged stream, ignored
        }
        self.data.get_mut(self.row * self.row_bytes + bit / 8)
    }
}

impl hayro_jbig2::Decoder for BitRows {
    fn push_pixel(&mut self, black: bool) {
        let at = self.at;
        if black && let Some(b) = self.byte(at) {
            *b &= !(0x80 >> (at % 8));
        }
        self.at += 1;
    }

    fn push_pixel_chunk(&mut self, black: bool, chunk_count: u32) {
        for _ in 0..chunk_count {
            let at = self.at;
            if let Some(b) = self.byte(at) {
                *b = if black { 0x00 } else { 0xff };
            }
            self.at += 8;
        }
    }

    fn next_line(&mut self) {
        self.row += 1;
        self.at = 0;
    }
}

/// The picture as a file Tesseract reads: its extension and bytes.
fn tesseract_file(picture: Picture) -> Result<(&'static str, Vec<u8>), &'static str> {
    match picture {
        Picture::Jpeg(bytes) => Ok(("jpg", bytes)),
        Picture::Fax { data, columns, rows, k, black_is_1 } => {
            Ok(("tif", fax_tiff(&data, columns, rows, k, black_is_1)?))
        }
        Picture::Raster(Raster { width, height, format, mut data }) => {
            let header = match format {
                PixelFormat::Gray8 => format!("P5\n{width} {height}\n255\n"),
                PixelFormat::Rgb8 => format!("P6\n{width} {height}\n255\n"),
                PixelFormat::Gray1 => {
                    // PBM: 1 is black.
                    data.iter_mut().for_each(|b| *b = !*b);
                    format!("P4\n{width} {height}\n")
                }
            };
            let mut file = header.into_bytes();
            file.extend_from_slice(&data);
            Ok((if format == PixelFormat::Gray1 { "pbm" } else { "pnm" }, file))
        }
    }
}

fn positive(dict: &Dictionary, key: &[u8]) -> Option<u64> {
    dict.get(key).ok()?.as_i64().ok().and_then(|v| u64::try_from(v).ok()).filter(|&v| v > 0)
}

fn names(object: Option<&Object>) -> Vec<Vec<u8>> {
    match object {
        Some(Object::Name(name)) => vec![name.clone()],
        Some(Object::Array(items)) => items.iter().filter_map(|i| i.as_name().ok().map(<[u8]>::to_vec)).collect(),
        _ => Vec::new(),
    }
}

/// The colour spaces of the images read: grey, RGB and CMYK (device, calibrated or ICC-based),
/// and a palette over one of them.
#[derive(Debug, Clone, PartialEq)]
enum Space {
    Gray,
    Rgb,
    Cmyk,
    /// `[/Indexed base hival lookup]`: a pixel is an index (at most `hival`) into `lookup`, which
    /// holds `base`'s components of each colour one after another.
    Indexed {
        base: Box<Space>,
        hival: u8,
        lookup: Vec<u8>,
    },
}

impl Space {
    /// Components a stored pixel has.
    fn components(&self) -> u64 {
        match self {
            Space::Gray | Space::Indexed { .. } => 1,
            Space::Rgb => 3,
            Space::Cmyk => 4,
        }
    }

    /// Bytes a pixel has once decoded for the engines: grey stays grey, the rest become RGB.
    fn shown_components(&self) -> u64 {
        if *self == Space::Gray { 1 } else { 3 }
    }
}

fn space(object: Option<&Object>) -> Option<Space> {
    match object? {
        Object::Name(name) => match name.as_slice() {
            b"DeviceGray" | b"CalGray" | b"G" => Some(Space::Gray),
            b"DeviceRGB" | b"CalRGB" | b"RGB" => Some(Space::Rgb),
            b"DeviceCMYK" | b"CMYK" => Some(Space::Cmyk),
            _ => None,
        },
        Object::Array(items) => match items.first()?.as_name().ok()? {
            b"CalGray" => Some(Space::Gray),
            b"CalRGB" => Some(Space::Rgb),
            // The ICC profile's stream is a reference this module does not follow: pdf.rs
            // resolves it into `N` beforehand (see `resolve_color_space`).
            b"ICCBased" => match items.get(1)?.as_i64().ok()? {
                1 => Some(Space::Gray),
                3 => Some(Space::Rgb),
                4 => Some(Space::Cmyk),
                _ => None,
            },
            // pdf.rs resolves the base and the lookup (a string or a stream) beforehand too.
            b"Indexed" | b"I" => {
                let base = space(items.get(1))?;
                let hival = u8::try_from(items.get(2)?.as_i64().ok()?).ok()?;
                let lookup = match items.get(3)? {
                    Object::String(bytes, _) => bytes.clone(),
                    _ => return None,
                };
                (!matches!(base, Space::Indexed { .. })).then(|| Space::Indexed { base: Box::new(base), hival, lookup })
            }
            _ => None,
        },
        _ => None,
    }
}

/// One CMYK pixel as RGB, without a colour profile (enough to tell ink from paper).
fn cmyk_to_rgb(p: &[u8]) -> [u8; 3] {
    let k = u16::from(p[3]);
    let channel = |c: u8| 255 - (u16::from(c) + k).min(255) as u8;
    [channel(p[0]), channel(p[1]), channel(p[2])]
}

/// Palette indices (`bits` each, rows padded to a byte) as grey or RGB pixels; `None` when the
/// lookup is shorter than `hival` colours. An index over `hival` takes the last colour.
fn depalette(
    indices: &[u8],
    width: u32,
    height: u32,
    bits: u8,
    base: &Space,
    hival: u8,
    lookup: &[u8],
) -> Option<(PixelFormat, Vec<u8>)> {
    let per_colour = base.components() as usize;
    let colours = usize::from(hival) + 1;
    let palette = lookup.get(..colours * per_colour)?;
    let colour = |i: usize| -> Vec<u8> {
        let c = &palette[i.min(colours - 1) * per_colour..][..per_colour];
        match base {
            Space::Cmyk => cmyk_to_rgb(c).to_vec(),
            _ => c.to_vec(),
        }
    };
    let shown: Vec<Vec<u8>> = (0..colours).map(colour).collect();
    let (width, height) = (width as usize, height as usize);
    let row = (width * usize::from(bits)).div_ceil(8);
    let mut out = Vec::with_capacity(width * height * base.shown_components() as usize);
    for r in 0..height {
        let line = indices.get(r * row..(r + 1) * row)?;
        for x in 0..width {
            let bit = x * usize::from(bits);
            let byte = line[bit / 8];
            let index = usize::from((byte >> (8 - usize::from(bits) - bit % 8)) & ((1u16 << bits) - 1) as u8);
            out.extend_from_slice(&shown[index.min(colours - 1)]);
        }
    }
    Some((if *base == Space::Gray { PixelFormat::Gray8 } else { PixelFormat::Rgb8 }, out))
}

/// Exactly `size` bytes inflated from zlib (or raw deflate) data, reading no more than that.
fn inflate(data: &[u8], size: u64) -> Option<Vec<u8>> {
    let read = |reader: &mut dyn Read| {
        let mut out = Vec::new();
        let _ = reader.take(size).read_to_end(&mut out);
        (out.len() as u64 == size).then_some(out)
    };
    read(&mut flate2::read::ZlibDecoder::new(data))
        .or_else(|| read(&mut flate2::read::DeflateDecoder::new(data.get(2..)?)))
}

/// Undoes PNG row filters: `rows` rows of a filter byte and `row` bytes.
fn unpredict_png(data: &[u8], row: usize, per_pixel: usize, rows: usize) -> Option<Vec<u8>> {
    let mut out = vec![0u8; row.checked_mul(rows)?];
    let mut previous = vec![0u8; row];
    for r in 0..rows {
        let line = data.get(r * (row + 1)..(r + 1) * (row + 1))?;
        let (filter, source) = (line[0], &line[1..]);
        let current = &mut out[r * row..(r + 1) * row];
        for i in 0..row {
            let left = if i >= per_pixel { current[i - per_pixel] } else { 0 };
            let up = previous[i];
            let up_left = if i >= per_pixel { previous[i - per_pixel] } else { 0 };
            current[i] = source[i].wrapping_add(match filter {
                0 => 0,
                1 => left,
                2 => up,
                3 => ((u16::from(left) + u16::from(up)) / 2) as u8,
                4 => paeth(left, up, up_left),
                _ => return None,
            });
        }
        previous.copy_from_slice(current);
    }
    Some(out)
}

fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let p = i16::from(a) + i16::from(b) - i16::from(c);
    let (pa, pb, pc) = ((p - i16::from(a)).abs(), (p - i16::from(b)).abs(), (p - i16::from(c)).abs());
    if pa <= pb && pa <= pc {
        a
    } else if pb <= pc {
        b
    } else {
        c
    }
}

/// CCITT fax data in a minimal little-endian TIFF: one strip, Group 4 when `k` < 0, else
/// Group 3 (two-dimensional when `k` > 0). The fax codec makes white runs 0 bits; the
/// photometric interpretation shows them white (`WhiteIsZero`), or black when `black_is_1`
/// (`BlackIsZero`), as a PDF reader shows them.
fn fax_tiff(data: &[u8], columns: u32, rows: u32, k: i64, black_is_1: bool) -> Result<Vec<u8>, &'static str> {
    let length = u32::try_from(data.len()).map_err(|_| "too large")?;
    let compression = if k < 0 { 4 } else { 3 };
    // (tag, type, value): type 3 SHORT, 4 LONG; sorted by tag, as TIFF requires.
    let mut entries: Vec<(u16, u16, u32)> = vec![
        (256, 4, columns),
        (257, 4, rows),
        (258, 3, 1),
        (259, 3, compression),
        (262, 3, u32::from(black_is_1)),
        (273, 4, 0), // strip offset, set below
        (277, 3, 1),
        (278, 4, rows),
        (279, 4, length),
    ];
    if compression == 3 {
        entries.push((292, 4, u32::from(k > 0)));
    }
    let data_offset = 8 + 2 + 12 * entries.len() as u32 + 4;
    let mut out = Vec::with_capacity(data.len() + data_offset as usize);
    out.extend_from_slice(b"II*\0");
    out.extend_from_slice(&8u32.to_le_bytes());
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    for (tag, kind, value) in &mut entries {
        if *tag == 273 {
            *value = data_offset;
        }
        out.extend_from_slice(&tag.to_le_bytes());
        out.extend_from_slice(&kind.to_le_bytes());
        out.extend_from_slice(&1u32.to_le_bytes());
        // A SHORT sits in the first two bytes of the value field, which is little-endian here.
        out.extend_from_slice(&value.to_le_bytes());
    }
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(data);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_predictors_are_undone() {
        // Two rows of three grey pixels: [10, 20, 30], [11, 22, 33], filtered Sub then Up.
        let data = [1, 10, 10, 10, 2, 1, 2, 3];
        assert_eq!(unpredict_png(&data, 3, 1, 2), Some(vec![10, 20, 30, 11, 22, 33]));
        assert_eq!(unpredict_png(&data[..5], 3, 1, 2), None, "short data");
        assert_eq!(unpredict_png(&[9, 0, 0, 0], 3, 1, 1), None, "an unknown filter");
        assert_eq!(paeth(10, 20, 10), 20);
    }

    fn image(space: Object, bits: i64, width: i64, height: i64, data: Vec<u8>) -> Stream {
        let mut dict = Dictionary::new();
        dict.set("Width", width);
        dict.set("Height", height);
        dict.set("BitsPerComponent", bits);
        dict.set("ColorSpace", space);
        Stream::new(dict, data)
    }

    fn palette(base: &str, hival: i64, lookup: &[u8]) -> Object {
        Object::Array(vec![
            Object::Name(b"Indexed".to_vec()),
            Object::Name(base.as_bytes().to_vec()),
            Object::Integer(hival),
            Object::String(lookup.to_vec(), pdf_extract::StringFormat::Literal),
        ])
    }

    fn raster(picture: Result<Picture, &'static str>) -> (PixelFormat, Vec<u8>) {
        match picture {
            Ok(Picture::Raster(r)) => (r.format, r.data),
            Ok(_) => panic!("not a raster"),
            Err(why) => panic!("{why}"),
        }
    }

    #[test]
    fn palette_and_cmyk_images_become_rgb_or_grey_pixels() {
        // 2-bit indices, rows padded to a byte: [0, 1, 2] and [3, 3, 0].
        let rgb = palette("DeviceRGB", 3, &[0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]);
        let (format, data) = raster(decode(&image(rgb, 2, 3, 2, vec![0b0001_1000, 0b1111_0000]), &mut 0));
        assert_eq!(format, PixelFormat::Rgb8);
        assert_eq!(data, [0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 255, 0, 0, 0]);
        // A grey palette stays grey; an index past `hival` takes the last colour.
        let grey = palette("DeviceGray", 1, &[10, 200]);
        let (format, data) = raster(decode(&image(grey, 8, 3, 1, vec![0, 1, 7]), &mut 0));
        assert_eq!((format, data), (PixelFormat::Gray8, vec![10, 200, 200]));
        // CMYK: paper, the K plate, cyan.
        let cmyk = Object::Name(b"DeviceCMYK".to_vec());
        let (format, data) =
            raster(decode(&image(cmyk, 8, 3, 1, vec![0, 0, 0, 0, 0, 0, 0, 255, 255, 0, 0, 0]), &mut 0));
        assert_eq!((format, data), (PixelFormat::Rgb8, vec![255, 255, 255, 0, 0, 0, 0, 255, 255]));
    }

    #[test]
    fn a_short_or_nested_palette_is_skipped_with_a_reason() {
        let short = palette("DeviceRGB", 3, &[0, 0, 0]);
        assert_eq!(decode(&image(short, 8, 1, 1, vec![0]), &mut 0).err(), Some("a short palette"));
        let nested = Object::Array(vec![
            Object::Name(b"Indexed".to_vec()),
            palette("DeviceGray", 1, &[0, 255]),
            Object::Integer(1),
            Object::String(vec![0, 255], pdf_extract::StringFormat::Literal),
        ]);
        assert_eq!(decode(&image(nested, 8, 1, 1, vec![0]), &mut 0).err(), Some("a colour space not read"));
        // A palette image counts what it becomes (three bytes a pixel) against the budget.
        let mut decoded = MAX_DECODED_BYTES - 3;
        let rgb = palette("DeviceRGB", 0, &[1, 2, 3]);
        assert_eq!(
            decode(&image(rgb, 8, 2, 1, vec![0, 0]), &mut decoded).err(),
            Some("over the document's decoded image budget")
        );
    }

    #[test]
    fn damaged_or_oversized_jpeg_2000_is_skipped_with_a_reason() {
        let jpx = |content: Vec<u8>| {
            let mut dict = Dictionary::new();
            dict.set("Width", 1);
            dict.set("Height", 1);
            dict.set("Filter", Object::Name(b"JPXDecode".to_vec()));
            Stream::new(dict, content)
        };
        assert_eq!(decode(&jpx(b"not a JPEG 2000 file".to_vec()), &mut 0).err(), Some("damaged JPEG 2000 data"));
        // A codestream whose header (SIZ) declares 60000 × 60000 pixels: refused before decoding.
        let mut siz = vec![0xff, 0x4f, 0xff, 0x51, 0x00, 0x29, 0x00, 0x00];
        for v in [60_000u32, 60_000, 0, 0, 60_000, 60_000, 0, 0] {
            siz.extend_from_slice(&v.to_be_bytes());
        }
        siz.extend_from_slice(&[0x00, 0x01, 0x07, 0x01, 0x01, 0xff, 0xd9]);
        let refused = decode(&jpx(siz), &mut 0).err();
        assert!(matches!(refused, Some("more pixels than the limit" | "damaged JPEG 2000 data")), "{refused:?}");
    }

    #[test]
    fn damaged_or_oversized_jbig2_is_skipped_with_a_reason() {
        let jbig2 = |content: Vec<u8>| {
            let mut dict = Dictionary::new();
            dict.set("Width", 8);
            dict.set("Height", 8);
            dict.set("Filter", Object::Name(b"JBIG2Decode".to_vec()));
            Stream::new(dict, content)
        };
        assert_eq!(decode(&jbig2(b"not JBIG2".to_vec()), &mut 0).err(), Some("damaged JBIG2 data"));
        // A page information segment declaring 60000 × 60000 pixels, then end of page.
        let mut page = vec![0, 0, 0, 0, 48, 0, 1, 0, 0, 0, 19];
        page.extend_from_slice(&60_000u32.to_be_bytes());
        page.extend_from_slice(&60_000u32.to_be_bytes());
        page.extend_from_slice(&[0; 11]);
        page.extend_from_slice(&[0, 0, 0, 1, 49, 0, 1, 0, 0, 0, 0]);
        assert_eq!(decode(&jbig2(page), &mut 0).err(), Some("more pixels than the limit"));
    }

    #[test]
    fn a_fax_image_gets_a_tiff_header() {
        let tiff = fax_tiff(b"data", 100, 50, 0, false).unwrap();
        assert!(tiff.starts_with(b"II*\0\x08\0\0\0"));
        assert!(tiff.ends_with(b"data"));
        assert_eq!(u16::from_le_bytes([tiff[8], tiff[9]]), 10, "Group 3 has its options entry");
        assert_eq!(u16::from_le_bytes([fax_tiff(b"", 100, 50, -1, true).unwrap()[8], 0]), 9, "Group 4 has none");
    }
}
