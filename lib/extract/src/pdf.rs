//! PDF text through pdf-extract (lopdf underneath), title from the Info dictionary.

use crate::ocr::{Failure, PageImages};
use crate::pdf_text::SpacedOutput;
use crate::text::single_line;
use lore_app::ports::{ExtractError, ExtractLimits, OcrEngine, OcrSettings};
use pdf_extract::content::Content;
use pdf_extract::{Dictionary, Document, Object, ObjectId, Stream};
use std::collections::HashMap;
use std::io::Read;

/// XObjects may call each other at most this deep. pdf-extract follows `Do` recursively
/// without a limit, and a form that calls itself overflows the stack — which aborts the
/// process, past any `catch_unwind`. Real documents nest forms a few levels at most.
const MAX_FORM_DEPTH: usize = 32;
/// Bound on the work of the form check itself (forms reached through different pages and
/// resource dictionaries are checked once per pair).
const MAX_FORM_VISITS: usize = 10_000;
/// Page-tree `/Parent` chains longer than this are treated as loops.
const MAX_PARENT_CHAIN: usize = 64;

/// Reads the text layer and the Info title. pdf-extract panics on many malformed files; the
/// caller runs this isolated.
///
/// Before pdf-extract runs, the inflated size of what it would interpret is measured (see
/// [`ContentBudget`]): a content bomb (a few KB of Flate inflating to hundreds of MB of drawing
/// operations, which pdf-extract decodes into memory ~80 times their size) is refused here,
/// cheaply and with a reason, instead of exhausting the parser's memory budget.
pub(crate) fn extract(bytes: &[u8], limits: &ExtractLimits) -> Result<(String, Option<String>), ExtractError> {
    let max_output_bytes = limits.max_output_bytes;
    let mut doc =
        Document::load_mem(bytes).map_err(|e| ExtractError::Corrupt(format!("the PDF structure is damaged: {e}")))?;
    if doc.is_encrypted() {
        // Many PDFs are "encrypted" with an empty user password only to set permissions.
        doc.decrypt("").map_err(|_| ExtractError::Corrupt("the PDF is protected by a password".into()))?;
    }
    let started = std::time::Instant::now();
    // With text recognition on, the image data is kept aside for it (moved, not copied).
    let (images, mut kept) = drop_image_data(&mut doc, limits.ocr.is_some());
    check_structure(&doc, &mut ContentBudget::new(limits))?;
    let title = info_title(&doc);

    // The output device separates text runs that are apart on the page, collapses whitespace
    // as the text arrives and stops pdf-extract at the cap.
    let mut output = SpacedOutput::new(max_output_bytes);
    let result = pdf_extract::output_doc(&doc, &mut output);
    if output.exceeded {
        return Err(too_large(max_output_bytes));
    }
    result.map_err(|e| ExtractError::Corrupt(format!("the PDF content could not be read: {e}")))?;
    // Accents, NFC and line-end hyphens (pdf_text.rs); the text only shrinks, except where NFC
    // expands a rare character, so the cap is checked again.
    let text = crate::pdf_text::tidy(&output.finish());
    if text.len() > max_output_bytes {
        return Err(too_large(max_output_bytes));
    }
    if text.trim().is_empty() {
        if let Some(ocr) = limits.ocr.as_ref().filter(|_| images > 0) {
            let deadline = started.checked_add(limits.timeout).unwrap_or(started);
            return recognize(&doc, &mut kept, ocr, deadline, limits).map(|text| (text, title));
        }
        return Err(no_text_layer(images > 0));
    }
    Ok((text, title))
}

/// The text of a scan by text recognition (`ocr.rs`) of the images its pages draw, page by page.
fn recognize(
    doc: &Document,
    kept: &mut HashMap<ObjectId, Stream>,
    ocr: &OcrSettings,
    deadline: std::time::Instant,
    limits: &ExtractLimits,
) -> Result<String, ExtractError> {
    let all = doc.get_pages();
    let pages: Vec<PageImages> = all
        .iter()
        .take(usize::try_from(ocr.max_pages).unwrap_or(usize::MAX))
        .map(|(&number, &page_id)| PageImages {
            number,
            images: page_images(doc, page_id, kept).into_iter().filter_map(|id| kept.remove(&id)).collect(),
        })
        .collect();
    if all.len() > pages.len() {
        tracing::info!(pages = all.len(), read = pages.len(), "text recognition reads the first pages only");
    }
    let scan = "this PDF's pages are images without a text layer (a scan)";
    match crate::ocr::recognize(&pages, ocr, deadline, limits.max_output_bytes) {
        Ok(text) => {
            let text = crate::pdf_text::tidy(&text);
            if text.len() > limits.max_output_bytes {
                return Err(too_large(limits.max_output_bytes));
            }
            Ok(text)
        }
        Err(Failure::NoText) => Err(ExtractError::Corrupt(format!(
            "{NO_TEXT_LAYER}: {scan}, and text recognition (OCR) found no text in {}",
            if pages.len() < all.len() { format!("its first {} pages", pages.len()) } else { "them".to_owned() }
        ))),
        Err(Failure::NothingReadable) => Err(ExtractError::Corrupt(format!(
            "{NO_TEXT_LAYER}: {scan}, in an image encoding text recognition (OCR) does not read{}",
            if pages.is_empty() { ", or no page was to be read" } else { "" }
        ))),
        Err(Failure::CannotRun(why)) => {
            let engine = match ocr.engine {
                OcrEngine::Tesseract { .. } => "Tesseract could not run".to_owned(),
                OcrEngine::OpenAi { model, .. } => format!("the vision model ({model}) could not be used"),
            };
            Err(ExtractError::Corrupt(format!(
                "{NO_TEXT_LAYER}: {scan}; text recognition (OCR) is configured but {engine}: {why}"
            )))
        }
        Err(Failure::TimedOut) => Err(ExtractError::TimedOut(limits.timeout)),
        Err(Failure::TooLarge(error)) => Err(error),
    }
}

/// The image XObjects `page_id` draws, in drawing order, each once: those its content calls
/// with `Do`, and those of the forms it calls (a few levels down). Only images in `kept`.
fn page_images(doc: &Document, page_id: ObjectId, kept: &HashMap<ObjectId, Stream>) -> Vec<ObjectId> {
    const MAX_DEPTH: usize = 4;
    const MAX_CALLS: usize = 1_000;
    let empty = Dictionary::new();
    let Ok(page) = doc.get_dictionary(page_id) else { return Vec::new() };
    let resources = inherited_resources(doc, page).unwrap_or(&empty);
    let Ok(content) = doc.get_page_content(page_id) else { return Vec::new() };
    let mut found = Vec::new();
    let mut calls = 0usize;
    // (resources, names called, depth), walked depth first.
    let mut stack = vec![(resources, do_calls(&content).into_iter(), 0usize)];
    while let Some((resources, names, depth)) = stack.last_mut() {
        let Some(name) = names.next() else {
            stack.pop();
            continue;
        };
        calls += 1;
        if calls > MAX_CALLS || found.len() >= crate::ocr::MAX_IMAGES_PER_PAGE {
            break;
        }
        let (resources, depth) = (*resources, *depth);
        let Some((id, stream)) = resolve_form(doc, resources, &name) else { continue };
        if kept.contains_key(&id) {
            if !found.contains(&id) {
                found.push(id);
            }
        } else if depth < MAX_DEPTH
            && has_xobjects(
                stream
                    .dict
                    .get(b"Resources")
                    .ok()
                    .and_then(|r| deref(doc, r))
                    .and_then(|r| r.as_dict().ok())
                    .unwrap_or(resources),
            )
        {
            let inner = stream
                .dict
                .get(b"Resources")
                .ok()
                .and_then(|r| deref(doc, r))
                .and_then(|r| r.as_dict().ok())
                .unwrap_or(resources);
            let content = stream.decompressed_content().unwrap_or_else(|_| stream.content.clone());
            stack.push((inner, do_calls(&content).into_iter(), depth + 1));
        }
    }
    found
}

/// The colour space of an image as `ocr.rs` reads it: references followed, an ICC-based space
/// replaced by its number of components (`[/ICCBased N]`), and a palette's base resolved so and
/// its lookup (a string or a stream) inlined as a string.
fn resolve_color_space(doc: &Document, dict: &mut Dictionary) {
    let Some(space) = dict.get(b"ColorSpace").ok().and_then(|s| deref(doc, s)) else { return };
    let space = resolved_space(doc, space, true);
    dict.set("ColorSpace", space);
}

/// The segments a document's JBIG2 images share (`/DecodeParms /JBIG2Globals`, a stream), inlined
/// as a string for `ocr.rs`, which follows no references. At most [`MAX_JBIG2_GLOBALS`] bytes.
fn resolve_jbig2_globals(doc: &Document, dict: &mut Dictionary) {
    let Ok(Object::Dictionary(params)) = dict.get_mut(b"DecodeParms") else { return };
    let Some(globals) = params.get(b"JBIG2Globals").ok().and_then(|g| deref(doc, g)).and_then(|g| g.as_stream().ok())
    else {
        return;
    };
    let bytes = globals.decompressed_content().unwrap_or_else(|_| globals.content.clone());
    if bytes.len() <= MAX_JBIG2_GLOBALS {
        params.set("JBIG2Globals", Object::String(bytes, pdf_extract::StringFormat::Literal));
    }
}

/// Shared JBIG2 segments (symbol dictionaries) larger than this are not read.
const MAX_JBIG2_GLOBALS: usize = 8 * 1024 * 1024;

fn resolved_space(doc: &Document, space: &Object, palette_allowed: bool) -> Object {
    let Object::Array(items) = space else { return space.clone() };
    let name = |o: &Object| o.as_name().ok().map(<[u8]>::to_vec);
    match items.first().and_then(name).as_deref() {
        Some(b"ICCBased") => {
            let n = items
                .get(1)
                .and_then(|p| deref(doc, p))
                .and_then(|p| p.as_stream().ok())
                .and_then(|p| p.dict.get(b"N").ok())
                .and_then(|n| deref(doc, n))
                .and_then(|n| n.as_i64().ok())
                .unwrap_or(0);
            Object::Array(vec![Object::Name(b"ICCBased".to_vec()), Object::Integer(n)])
        }
        Some(b"Indexed" | b"I") if palette_allowed && items.len() == 4 => {
            let base = items.get(1).and_then(|b| deref(doc, b)).map(|b| resolved_space(doc, b, false));
            let hival = items.get(2).and_then(|h| deref(doc, h)).cloned();
            // A palette holds at most 256 colours of at most four components: 1 KiB.
            let lookup = match items.get(3).and_then(|l| deref(doc, l)) {
                Some(Object::String(bytes, _)) => Some(bytes.clone()),
                Some(Object::Stream(stream)) => {
                    stream.decompressed_content().ok().or_else(|| Some(stream.content.clone()))
                }
                _ => None,
            }
            .filter(|bytes| bytes.len() <= 1024);
            match (base, hival, lookup) {
                (Some(base), Some(hival), Some(lookup)) => Object::Array(vec![
                    Object::Name(b"Indexed".to_vec()),
                    base,
                    hival,
                    Object::String(lookup, pdf_extract::StringFormat::Literal),
                ]),
                _ => space.clone(),
            }
        }
        _ => space.clone(),
    }
}

/// The code that starts the reason of a PDF without a text layer: the source's `error` begins
/// with it, so a client can tell a scan (which OCR would make readable) from a damaged file.
pub const NO_TEXT_LAYER: &str = "no_text_layer";

/// Why a PDF whose pages hold no text gave none, starting with [`NO_TEXT_LAYER`]: its pages are
/// images (a scan or a photo of text) when it has any, else drawings only.
fn no_text_layer(has_images: bool) -> ExtractError {
    let why = if has_images {
        "this PDF's pages are images without a text layer (a scan); run text recognition (OCR) on it and upload \
         the result, or upload the original document"
    } else {
        "this PDF's pages have no text layer (only drawings); export it again with its text, or run text \
         recognition (OCR) on it and upload the result"
    };
    ExtractError::Corrupt(format!("{NO_TEXT_LAYER}: {why}"))
}

/// Empties the data of image XObjects. Text extraction does not need pixels, and pdf-extract
/// would otherwise inflate every image it meets through `Do` and parse it as a content stream
/// (wasted work, and a path to self-calls that `check_recursion` would have to inflate
/// images to rule out).
/// How many images there were, and, when `keep`, the images as they were (for text recognition).
fn drop_image_data(doc: &mut Document, keep: bool) -> (usize, HashMap<ObjectId, Stream>) {
    let mut images = 0;
    let mut kept = HashMap::new();
    for (&id, object) in &mut doc.objects {
        if let Object::Stream(stream) = object
            && stream.dict.get(b"Subtype").ok().and_then(|s| s.as_name().ok()) == Some(b"Image".as_slice())
        {
            let content = std::mem::take(&mut stream.content);
            if keep {
                kept.insert(id, Stream::new(stream.dict.clone(), content));
            }
            stream.dict.remove(b"Filter");
            stream.dict.remove(b"DecodeParms");
            images += 1;
        }
    }
    if keep {
        for image in kept.values_mut() {
            resolve_color_space(doc, &mut image.dict);
            resolve_jbig2_globals(doc, &mut image.dict);
        }
    }
    (images, kept)
}

/// Refuses the structures that make pdf-extract recurse without end: `/Parent` loops in the
/// page tree (followed to inherit `/Resources` and `/MediaBox`) and form XObjects that call
/// themselves, directly or through others, or nest too deep; and documents whose content
/// streams inflate past the content budget (measured before anything is decoded whole).
fn check_structure(doc: &Document, budget: &mut ContentBudget) -> Result<(), ExtractError> {
    let pages = doc.get_pages();
    for page_id in pages.values() {
        check_parent_chain(doc, *page_id)?;
    }
    let empty = Dictionary::new();
    let mut checked: HashMap<(ObjectId, usize), u64> = HashMap::new();
    let mut visits = 0usize;
    for (&number, page_id) in &pages {
        budget.start_page(number);
        for stream_id in doc.get_page_contents(*page_id) {
            if let Ok(stream) = doc.get_object(stream_id).and_then(Object::as_stream) {
                budget.charge(stream_id, stream, Charge::Page)?;
            }
        }
        let Ok(page) = doc.get_dictionary(*page_id) else { continue };
        let resources = inherited_resources(doc, page).unwrap_or(&empty);
        if !has_xobjects(resources) {
            continue; // `Do` cannot call anything on this page.
        }
        let Ok(content) = doc.get_page_content(*page_id) else { continue };
        check_form_calls(doc, &content, resources, &mut checked, &mut visits, budget)?;
    }
    Ok(())
}

/// The content budget of a document: the inflated bytes of every page's content streams and
/// of the forms its drawing calls, per page (pdf-extract decodes one page at a time, so this
/// bounds its memory) and in all (pdf-extract interprets a shared stream once per page that
/// draws it, so this bounds its work). Sizes are measured by inflating into a counter that
/// stops at the cap, once per stream.
struct ContentBudget<'a> {
    limits: &'a ExtractLimits,
    sizes: HashMap<ObjectId, u64>,
    page: u32,
    page_bytes: u64,
    total_bytes: u64,
}

impl<'a> ContentBudget<'a> {
    fn new(limits: &'a ExtractLimits) -> Self {
        Self { limits, sizes: HashMap::new(), page: 0, page_bytes: 0, total_bytes: 0 }
    }

    fn start_page(&mut self, number: u32) {
        self.page = number;
        self.page_bytes = 0;
    }

    /// Counts `bytes` more of interpretation against the document: a form already checked,
    /// called again, with everything it calls (pdf-extract runs all of it anew on every call).
    fn charge_again(&mut self, bytes: u64) -> Result<(), ExtractError> {
        self.total_bytes = self.total_bytes.saturating_add(bytes);
        self.check_total()
    }

    fn check_total(&self) -> Result<(), ExtractError> {
        if self.total_bytes > self.limits.max_content_bytes {
            return Err(ExtractError::TooLarge(format!(
                "the PDF's pages inflate to more than {} of drawing instructions in all, the limit",
                crate::human_bytes(self.limits.max_content_bytes)
            )));
        }
        Ok(())
    }

    /// Counts `stream` against the current page and the document; its inflated size.
    fn charge(&mut self, id: ObjectId, stream: &Stream, charge: Charge) -> Result<u64, ExtractError> {
        let cap = self.limits.max_page_content_bytes.min(self.limits.max_content_bytes).saturating_add(1);
        let size = *self.sizes.entry(id).or_insert_with(|| inflated_size(stream, cap));
        let on_page = match charge {
            Charge::Page => {
                self.page_bytes = self.page_bytes.saturating_add(size);
                self.page_bytes
            }
            Charge::Call => self.page_bytes.saturating_add(size),
        };
        self.total_bytes = self.total_bytes.saturating_add(size);
        if on_page > self.limits.max_page_content_bytes {
            return Err(ExtractError::TooLarge(format!(
                "page {} of the PDF inflates to more than {} of drawing instructions, the limit per page",
                self.page,
                crate::human_bytes(self.limits.max_page_content_bytes)
            )));
        }
        self.check_total()?;
        Ok(size)
    }
}

/// What a stream is to the page being checked.
#[derive(Clone, Copy)]
enum Charge {
    /// One of the page's content streams, decoded together.
    Page,
    /// A form the page (or a form) draws, decoded on its own for each call.
    Call,
}

/// The decoded size of `stream`, counted up to `cap` (then `cap`) without keeping the data.
/// Flate, the filter of nearly every content stream, is inflated into a counter, as lopdf
/// would inflate it (zlib, else raw deflate). Other filter chains are rare and decoded by lopdf
/// (LZW and ASCII85 expand at most ~2700:1; the parser process's memory budget bounds them).
fn inflated_size(stream: &Stream, cap: u64) -> u64 {
    let filters = match stream.filters() {
        Ok(filters) => filters,
        Err(_) => return stream.content.len() as u64,
    };
    match filters.as_slice() {
        [] => stream.content.len() as u64,
        [b"FlateDecode"] => {
            let counted = count_read(flate2::read::ZlibDecoder::new(stream.content.as_slice()), cap);
            if counted == 0 && stream.content.len() > 2 {
                count_read(flate2::read::DeflateDecoder::new(&stream.content[2..]), cap)
            } else {
                counted
            }
        }
        _ => stream.decompressed_content().map_or(stream.content.len(), |d| d.len()) as u64,
    }
}

/// Bytes `reader` yields until it ends, fails or reaches `cap`.
fn count_read(reader: impl Read, cap: u64) -> u64 {
    let mut limited = reader.take(cap);
    let mut buffer = [0u8; 16 * 1024];
    let mut total = 0u64;
    while let Ok(n) = limited.read(&mut buffer) {
        if n == 0 {
            break;
        }
        total += n as u64;
    }
    total
}

fn check_parent_chain(doc: &Document, page_id: ObjectId) -> Result<(), ExtractError> {
    let mut seen = vec![page_id];
    let mut node = doc.get_dictionary(page_id).ok();
    while let Some(parent) = node.and_then(|n| n.get(b"Parent").ok()).and_then(|p| p.as_reference().ok()) {
        if seen.contains(&parent) || seen.len() > MAX_PARENT_CHAIN {
            return Err(ExtractError::Corrupt("the PDF page tree loops back on itself".into()));
        }
        seen.push(parent);
        node = doc.get_dictionary(parent).ok();
    }
    Ok(())
}

fn inherited_resources<'a>(doc: &'a Document, page: &'a Dictionary) -> Option<&'a Dictionary> {
    let mut node = page;
    for _ in 0..=MAX_PARENT_CHAIN {
        if let Some(resources) = node.get(b"Resources").ok().and_then(|r| deref(doc, r)).and_then(|r| r.as_dict().ok())
        {
            return Some(resources);
        }
        node = doc.get_dictionary(node.get(b"Parent").ok()?.as_reference().ok()?).ok()?;
    }
    None
}

fn deref<'a>(doc: &'a Document, object: &'a Object) -> Option<&'a Object> {
    doc.dereference(object).ok().map(|(_, o)| o)
}

fn has_xobjects(resources: &Dictionary) -> bool {
    resources.has(b"XObject")
}

/// Names called with `Do` in a content stream (none when it does not parse: pdf-extract then
/// fails on it by itself).
fn do_calls(content: &[u8]) -> Vec<Vec<u8>> {
    if !content.windows(2).any(|w| w == b"Do") {
        return Vec::new();
    }
    let Ok(content) = Content::decode(content) else { return Vec::new() };
    content
        .operations
        .iter()
        .filter(|op| op.operator == "Do")
        .filter_map(|op| op.operands.first()?.as_name().ok().map(<[u8]>::to_vec))
        .collect()
}

/// Depth-first walk of the form calls of one page with an explicit stack, resolving names the
/// way pdf-extract does (a form without `/Resources` uses its caller's). `checked` keeps, for
/// every form already walked, the inflated bytes one call of it makes pdf-extract interpret (the
/// form and everything it calls, recursively): a form called again is charged that whole cost
/// without being walked again, so forms that call each other many times over (a few KB that
/// would have pdf-extract interpret gigabytes) are refused by the content budget in linear time.
fn check_form_calls<'a>(
    doc: &'a Document,
    page_content: &[u8],
    page_resources: &'a Dictionary,
    checked: &mut HashMap<(ObjectId, usize), u64>,
    visits: &mut usize,
    budget: &mut ContentBudget,
) -> Result<(), ExtractError> {
    struct Frame<'a> {
        form: Option<(ObjectId, usize)>,
        resources: &'a Dictionary,
        calls: Vec<Vec<u8>>,
        next: usize,
        /// The form's own size plus the whole cost of every call it made so far.
        cost: u64,
    }
    let mut path: Vec<ObjectId> = Vec::new();
    let mut stack =
        vec![Frame { form: None, resources: page_resources, calls: do_calls(page_content), next: 0, cost: 0 }];
    while let Some(frame) = stack.last_mut() {
        let Some(name) = frame.calls.get(frame.next) else {
            let done = stack.pop();
            if let Some(Frame { form: Some(key), cost, .. }) = done {
                path.pop();
                checked.insert(key, cost);
                if let Some(caller) = stack.last_mut() {
                    caller.cost = caller.cost.saturating_add(cost);
                }
            }
            continue;
        };
        frame.next += 1;
        let resources = frame.resources;
        let Some((id, form)) = resolve_form(doc, resources, name) else { continue };
        let form_resources = form
            .dict
            .get(b"Resources")
            .ok()
            .and_then(|r| deref(doc, r))
            .and_then(|r| r.as_dict().ok())
            .unwrap_or(resources);
        let key = (id, std::ptr::from_ref(form_resources) as usize);
        if path.contains(&id) {
            return Err(ExtractError::Corrupt("the PDF's drawing instructions call themselves in a loop".into()));
        }
        if let Some(&cost) = checked.get(&key) {
            budget.charge_again(cost)?;
            if let Some(caller) = stack.last_mut() {
                caller.cost = caller.cost.saturating_add(cost);
            }
            continue;
        }
        // Measured before anything decodes it. pdf-extract runs a form on every call, so every
        // call counts towards the total; a form's operations are dropped after each run, so for
        // the page's memory only the form's own size matters.
        let own = budget.charge(id, form, Charge::Call)?;
        if path.len() >= MAX_FORM_DEPTH {
            return Err(ExtractError::Corrupt(format!(
                "the PDF nests drawings more than {MAX_FORM_DEPTH} levels deep"
            )));
        }
        *visits += 1;
        if *visits > MAX_FORM_VISITS {
            return Err(ExtractError::Corrupt("the PDF's drawings are too intricate to read".into()));
        }
        let calls = if has_xobjects(form_resources) {
            do_calls(&form.decompressed_content().unwrap_or_else(|_| form.content.clone()))
        } else {
            Vec::new()
        };
        path.push(id);
        stack.push(Frame { form: Some(key), resources: form_resources, calls, next: 0, cost: own });
    }
    Ok(())
}

/// `/XObject /name` of `resources`: pdf-extract runs whatever stream it finds there as content,
/// whatever its subtype (images are empty by now).
fn resolve_form<'a>(doc: &'a Document, resources: &'a Dictionary, name: &[u8]) -> Option<(ObjectId, &'a Stream)> {
    let xobjects = deref(doc, resources.get(b"XObject").ok()?)?.as_dict().ok()?;
    let (id, object) = doc.dereference(xobjects.get(name).ok()?).ok()?;
    Some((id?, object.as_stream().ok()?))
}

fn too_large(max_output_bytes: usize) -> ExtractError {
    ExtractError::TooLarge(format!("the extracted text exceeds {max_output_bytes} bytes"))
}

/// `/Title` of the trailer's `/Info` dictionary, when it is a non-empty string.
fn info_title(doc: &Document) -> Option<String> {
    let info = match doc.trailer.get(b"Info").ok()? {
        Object::Reference(id) => doc.get_object(*id).ok()?,
        other => other,
    };
    let title = match info.as_dict().ok()?.get(b"Title").ok()? {
        Object::Reference(id) => doc.get_object(*id).ok()?,
        other => other,
    };
    let Object::String(bytes, _) = title else { return None };
    let title = single_line(&decode_text_string(bytes));
    (!title.is_empty()).then_some(title)
}

/// A PDF text string: UTF-16BE or UTF-8 with a byte-order mark, else PDFDocEncoding (read as
/// Latin-1, which it equals for printable characters except a few typographic ones).
fn decode_text_string(bytes: &[u8]) -> String {
    if let Some(utf16) = bytes.strip_prefix(b"\xfe\xff") {
        return encoding_rs::UTF_16BE.decode_without_bom_handling(utf16).0.into_owned();
    }
    if let Some(utf8) = bytes.strip_prefix(b"\xef\xbb\xbf") {
        return String::from_utf8_lossy(utf8).into_owned();
    }
    bytes.iter().map(|&b| char::from(b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An image dictionary whose `/DecodeParms /JBIG2Globals` refers to a stream of `len` bytes.
    fn jbig2_image(doc: &mut Document, len: usize) -> Dictionary {
        let globals = doc.add_object(Stream::new(Dictionary::new(), vec![0u8; len]));
        let mut params = Dictionary::new();
        params.set("JBIG2Globals", Object::Reference(globals));
        let mut image = Dictionary::new();
        image.set("DecodeParms", Object::Dictionary(params));
        image
    }

    fn globals_of(image: &Dictionary) -> &Object {
        image.get(b"DecodeParms").unwrap().as_dict().unwrap().get(b"JBIG2Globals").unwrap()
    }

    #[test]
    fn shared_jbig2_segments_are_inlined_up_to_their_cap() {
        let mut doc = Document::with_version("1.5");
        let mut at_cap = jbig2_image(&mut doc, MAX_JBIG2_GLOBALS);
        resolve_jbig2_globals(&doc, &mut at_cap);
        assert!(matches!(globals_of(&at_cap), Object::String(b, _) if b.len() == MAX_JBIG2_GLOBALS));
        let mut over = jbig2_image(&mut doc, MAX_JBIG2_GLOBALS + 1);
        resolve_jbig2_globals(&doc, &mut over);
        assert!(matches!(globals_of(&over), Object::Reference(_)), "left unread: the image is then not decoded");
    }

    /// `[/Indexed /DeviceRGB 255 <ref to a lookup stream of len bytes>]`.
    fn indexed(doc: &mut Document, len: usize) -> Object {
        let lookup = doc.add_object(Stream::new(Dictionary::new(), vec![7u8; len]));
        Object::Array(vec![
            Object::Name(b"Indexed".to_vec()),
            Object::Name(b"DeviceRGB".to_vec()),
            Object::Integer(255),
            Object::Reference(lookup),
        ])
    }

    #[test]
    fn a_palette_is_inlined_up_to_1_kib() {
        let mut doc = Document::with_version("1.5");
        let full = indexed(&mut doc, 1024);
        let Object::Array(items) = resolved_space(&doc, &full, true) else { panic!() };
        assert!(matches!(&items[3], Object::String(b, _) if b.len() == 1024), "{items:?}");
        let over = indexed(&mut doc, 1025);
        assert_eq!(resolved_space(&doc, &over, true), over, "left as it was: the image is then not decoded");
        // A palette's base may not itself be a palette.
        assert_eq!(resolved_space(&doc, &full, false), full);
    }

    #[test]
    fn text_strings_decode_utf16_utf8_and_pdfdoc() {
        assert_eq!(decode_text_string(b"\xfe\xff\0H\0\xe9"), "Hé");
        assert_eq!(decode_text_string("\u{feff}Grüße".as_bytes()), "Grüße");
        assert_eq!(decode_text_string(b"Caf\xe9"), "Café");
    }
}
