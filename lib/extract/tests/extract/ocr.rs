//! Text recognition (OCR) of scanned PDFs, on real scans made by `scripts/make-scan-fixture.py`
//! (tests/fixtures/README.md): with Tesseract, which needs the `tesseract` program with its
//! English data (scripts/test.sh installs Debian's `tesseract-ocr` and `tesseract-ocr-eng`); and
//! with a vision model, against a local OpenAI-compatible stub server that checks the page images
//! it is sent.

use crate::fixtures::{extractor, limits};
use lore_app::ports::{ExtractError, ExtractLimits, Extractor, OcrEngine, OcrSettings};
use lore_domain::document::DocumentKind;
use std::time::{Duration, Instant};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))).expect(name)
}

fn with_ocr(ocr: OcrSettings) -> ExtractLimits {
    ExtractLimits { ocr: Some(ocr), ..limits() }
}

/// The rendered words, most of which recognition must find (it may misread a few letters).
const WORDS: [&str; 10] =
    ["lighthouse", "inspection", "report", "keepers", "westerly", "winds", "copper", "lantern", "visibility", "fog"];

fn assert_recognised(text: &str) {
    let lower = text.to_lowercase();
    let found = WORDS.iter().filter(|w| lower.contains(*w)).count();
    assert!(found >= 8, "found {found} of {WORDS:?} in {text:?}");
}

async fn recognised(name: &str) -> String {
    let extracted =
        extractor().extract(fixture(name), DocumentKind::Pdf, with_ocr(OcrSettings::default())).await.unwrap();
    eprintln!("{name}: {:?}", extracted.text);
    extracted.text
}

#[tokio::test]
async fn without_ocr_the_scan_has_no_text_layer() {
    let error = extractor().extract(fixture("scanned-page.pdf"), DocumentKind::Pdf, limits()).await.unwrap_err();
    assert!(matches!(&error, ExtractError::Corrupt(m) if m.starts_with("no_text_layer: ")), "{error:?}");
}

#[tokio::test]
async fn a_jpeg_scan_is_read_by_tesseract() {
    let text = recognised("scanned-page.pdf").await;
    assert_recognised(&text);
    assert!(text.lines().count() >= 3, "lines stay lines: {text:?}");
}

#[tokio::test]
async fn a_flate_scan_with_a_png_predictor_is_read_as_a_pgm() {
    assert_recognised(&recognised("scanned-page-flate.pdf").await);
}

#[tokio::test]
async fn palette_cmyk_jpeg_2000_and_jbig2_scans_are_read() {
    for name in ["scanned-page-palette.pdf", "scanned-page-cmyk.pdf", "scanned-page-jpx.pdf", "scanned-page-jbig2.pdf"]
    {
        assert_recognised(&recognised(name).await);
    }
}

#[tokio::test]
async fn a_ccitt_fax_scan_is_read_through_a_tiff_header() {
    assert_recognised(&recognised("scanned-page-fax.pdf").await);
}

#[tokio::test]
async fn a_missing_tesseract_keeps_the_code_and_says_why() {
    let ocr = OcrSettings {
        engine: OcrEngine::Tesseract { program: "/nonexistent/tesseract", languages: "eng" },
        ..OcrSettings::default()
    };
    let error = extractor().extract(fixture("scanned-page.pdf"), DocumentKind::Pdf, with_ocr(ocr)).await.unwrap_err();
    match error {
        ExtractError::Corrupt(m) => {
            assert!(m.starts_with("no_text_layer: "), "{m}");
            assert!(m.contains("OCR") && m.contains("configured") && m.contains("Tesseract could not run"), "{m}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_missing_language_is_reported() {
    let ocr = OcrSettings {
        engine: OcrEngine::Tesseract { program: "tesseract", languages: "zzz" },
        ..OcrSettings::default()
    };
    let error = extractor().extract(fixture("scanned-page.pdf"), DocumentKind::Pdf, with_ocr(ocr)).await.unwrap_err();
    assert!(
        matches!(&error, ExtractError::Corrupt(m) if m.starts_with("no_text_layer: ") && m.contains("Tesseract")),
        "{error:?}"
    );
}

#[tokio::test]
async fn recognition_is_bounded_by_pages_and_time() {
    let none = OcrSettings { max_pages: 0, ..OcrSettings::default() };
    let error = extractor().extract(fixture("scanned-page.pdf"), DocumentKind::Pdf, with_ocr(none)).await.unwrap_err();
    assert!(matches!(&error, ExtractError::Corrupt(m) if m.starts_with("no_text_layer: ")), "{error:?}");

    let started = Instant::now();
    let hurried = ExtractLimits { timeout: Duration::from_millis(30), ..with_ocr(OcrSettings::default()) };
    let error = extractor().extract(fixture("scanned-page.pdf"), DocumentKind::Pdf, hurried).await.unwrap_err();
    assert!(matches!(error, ExtractError::TimedOut(_)), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}

#[tokio::test]
async fn a_scan_without_readable_images_says_so() {
    // The image of `scanned_pdf` is 2×2 grey pixels: read, but no text in it.
    let error = extractor()
        .extract(crate::fixtures::scanned_pdf(), DocumentKind::Pdf, with_ocr(OcrSettings::default()))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, ExtractError::Corrupt(m) if m.starts_with("no_text_layer: ") && m.contains("found no text")),
        "{error:?}"
    );
}

// ------------------------------------------------------------------------------ a vision model

/// The text of the scan fixtures, as `scripts/make-scan-fixture.py` renders it.
const SCAN_TEXT: &str = "Lighthouse inspection report\nThe keepers recorded strong westerly winds\nand replaced the \
                         copper lantern gasket.\nVisibility improved after the morning fog.";
/// The fixtures' page image: 1240 pixels wide, four lines of 62 pixels and margins high.
const SCAN_SIZE: (u32, u32) = (1240, 80 + 62 * 4);

/// What the stub answers to its `n`th request (from 0).
#[derive(Clone)]
enum Reply {
    Text(String),
    Status(u16),
    /// No answer for a minute.
    Stall,
}

/// A request the stub got: its `Authorization` header and body.
type Request = (Option<String>, serde_json::Value);

/// A local OpenAI-compatible chat-completions server: the requests it got, and its base URL.
struct Stub {
    base_url: String,
    requests: std::sync::Arc<std::sync::Mutex<Vec<Request>>>,
}

impl Stub {
    async fn start(reply: impl Fn(usize) -> Reply + Send + Sync + 'static) -> Self {
        use axum::http::{HeaderMap, StatusCode};
        use axum::response::IntoResponse;
        let requests = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = requests.clone();
        let reply = std::sync::Arc::new(reply);
        let handler = move |headers: HeaderMap, axum::Json(body): axum::Json<serde_json::Value>| {
            let auth = headers.get("authorization").and_then(|v| v.to_str().ok()).map(str::to_owned);
            let n = {
                let mut seen = seen.lock().unwrap();
                seen.push((auth, body));
                seen.len() - 1
            };
            let reply = reply(n);
            async move {
                match reply {
                    Reply::Text(text) => axum::Json(serde_json::json!({
                        "id": "chatcmpl-1", "object": "chat.completion", "model": "stub-vision",
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": text}}]
                    }))
                    .into_response(),
                    Reply::Status(status) => (
                        StatusCode::from_u16(status).unwrap(),
                        axum::Json(serde_json::json!({"error": {
                            "message": "Incorrect API key provided: sk-te****st.",
                            "type": "invalid_request_error", "code": "invalid_api_key"
                        }})),
                    )
                        .into_response(),
                    Reply::Stall => {
                        tokio::time::sleep(Duration::from_secs(60)).await;
                        StatusCode::OK.into_response()
                    }
                }
            }
        };
        let app = axum::Router::new()
            .route("/v1/chat/completions", axum::routing::post(handler))
            .layer(axum::extract::DefaultBodyLimit::disable());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Stub { base_url, requests }
    }

    fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

fn vision(stub: &Stub, key: Option<&str>) -> ExtractLimits {
    with_ocr(OcrSettings::openai(&stub.base_url, key, "stub-vision"))
}

/// The images of a request, as media type and bytes (decoded from their `data:` URLs), after
/// checking the rest of the request.
fn images_of(body: &serde_json::Value) -> Vec<(String, Vec<u8>)> {
    use base64::Engine as _;
    assert_eq!(body["model"], "stub-vision", "{body}");
    assert_eq!(body["temperature"], 0, "{body}");
    let messages = body["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), 1, "{body}");
    assert_eq!(messages[0]["role"], "user");
    let content = messages[0]["content"].as_array().expect("content parts");
    assert_eq!(content[0]["type"], "text");
    let instruction = content[0]["text"].as_str().unwrap();
    assert!(instruction.contains("Transcribe") && instruction.contains("verbatim"), "{instruction}");
    content[1..]
        .iter()
        .map(|part| {
            assert_eq!(part["type"], "image_url", "{part}");
            let url = part["image_url"]["url"].as_str().expect("url");
            let (head, data) = url.strip_prefix("data:").and_then(|u| u.split_once(";base64,")).expect("a data URL");
            (head.to_owned(), base64::engine::general_purpose::STANDARD.decode(data).expect("base64"))
        })
        .collect()
}

/// Width and height of a JPEG file (its first start-of-frame segment).
fn jpeg_size(jpeg: &[u8]) -> (u32, u32) {
    assert!(jpeg.starts_with(&[0xff, 0xd8]), "a JPEG file");
    let mut at = 2;
    while at + 9 < jpeg.len() {
        let (marker, len) = (jpeg[at + 1], usize::from(u16::from_be_bytes([jpeg[at + 2], jpeg[at + 3]])));
        if (0xc0..=0xc3).contains(&marker) {
            let height = u16::from_be_bytes([jpeg[at + 5], jpeg[at + 6]]);
            let width = u16::from_be_bytes([jpeg[at + 7], jpeg[at + 8]]);
            return (u32::from(width), u32::from(height));
        }
        at += 2 + len;
    }
    panic!("no frame header");
}

/// A PNG file decoded: its size, bit depth, colour type and pixel rows.
fn png_pixels(file: &[u8]) -> ((u32, u32), png::BitDepth, png::ColorType, Vec<u8>) {
    assert!(file.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG file");
    let mut reader = png::Decoder::new(std::io::Cursor::new(file)).read_info().expect("a valid PNG");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a buffer size")];
    let frame = reader.next_frame(&mut pixels).expect("its pixels");
    pixels.truncate(frame.buffer_size());
    ((frame.width, frame.height), frame.bit_depth, frame.color_type, pixels)
}

#[tokio::test]
async fn a_jpeg_scan_is_read_by_a_vision_model_sent_the_page_as_it_is() {
    let stub = Stub::start(|_| Reply::Text(format!("```text\n{SCAN_TEXT}\n```"))).await;
    let extracted = extractor()
        .extract(fixture("scanned-page.pdf"), DocumentKind::Pdf, vision(&stub, Some("sk-test")))
        .await
        .expect("recognised");
    assert_eq!(extracted.text, SCAN_TEXT, "the answer, unfenced, is the text");
    let requests = stub.requests();
    assert_eq!(requests.len(), 1, "one request for the one page");
    let (auth, body) = &requests[0];
    assert_eq!(auth.as_deref(), Some("Bearer sk-test"));
    let images = images_of(body);
    assert_eq!(images.len(), 1);
    let (mime, jpeg) = &images[0];
    assert_eq!(mime, "image/jpeg");
    assert_eq!(jpeg_size(jpeg), SCAN_SIZE);
    let pdf = fixture("scanned-page.pdf");
    assert!(pdf.windows(jpeg.len()).any(|w| w == jpeg.as_slice()), "the PDF's own JPEG data");
}

#[tokio::test]
async fn flate_and_fax_scans_reach_a_vision_model_as_pngs_of_the_same_page() {
    let mut pages = Vec::new();
    for name in ["scanned-page-flate.pdf", "scanned-page-fax.pdf"] {
        let stub = Stub::start(|_| Reply::Text(SCAN_TEXT.to_owned())).await;
        let extracted = extractor().extract(fixture(name), DocumentKind::Pdf, vision(&stub, None)).await.expect(name);
        assert_eq!(extracted.text, SCAN_TEXT, "{name}");
        let requests = stub.requests();
        assert_eq!(requests[0].0, None, "{name}: no key, no Authorization header");
        let mut images = images_of(&requests[0].1);
        assert_eq!(images.len(), 1, "{name}");
        let (mime, png) = images.remove(0);
        assert_eq!(mime, "image/png", "{name}");
        let (size, depth, color, pixels) = png_pixels(&png);
        assert_eq!((size, color), (SCAN_SIZE, png::ColorType::Grayscale), "{name}");
        pages.push((depth, pixels));
    }
    let [(png::BitDepth::Eight, grey), (png::BitDepth::One, fax)] = pages.as_slice() else {
        panic!("8-bit grey and 1-bit fax pages expected")
    };
    // The fax page is the grey one thresholded (by the fixture script): the decoded CCITT data
    // must match it pixel for pixel, but for a few edge pixels.
    let row = SCAN_SIZE.0.div_ceil(8) as usize;
    let (mut differ, mut black) = (0usize, 0usize);
    for y in 0..SCAN_SIZE.1 as usize {
        for x in 0..SCAN_SIZE.0 as usize {
            let is_black = fax[y * row + x / 8] & (0x80 >> (x % 8)) == 0;
            black += usize::from(is_black);
            differ += usize::from(is_black != (grey[y * SCAN_SIZE.0 as usize + x] <= 128));
        }
    }
    let total = (SCAN_SIZE.0 * SCAN_SIZE.1) as usize;
    assert!(black > total / 100 && black < total / 5, "{black} black pixels of {total}");
    assert!(differ < total / 1000, "{differ} pixels differ");
}

#[tokio::test]
async fn palette_and_cmyk_scans_reach_a_vision_model_as_rgb_pngs_of_the_same_page() {
    let mut pages = Vec::new();
    for name in ["scanned-page-flate.pdf", "scanned-page-palette.pdf", "scanned-page-cmyk.pdf"] {
        let stub = Stub::start(|_| Reply::Text(SCAN_TEXT.to_owned())).await;
        let extracted = extractor().extract(fixture(name), DocumentKind::Pdf, vision(&stub, None)).await.expect(name);
        assert_eq!(extracted.text, SCAN_TEXT, "{name}");
        let (mime, png) = images_of(&stub.requests()[0].1).remove(0);
        assert_eq!(mime, "image/png", "{name}");
        let (size, depth, color, pixels) = png_pixels(&png);
        assert_eq!((size, depth), (SCAN_SIZE, png::BitDepth::Eight), "{name}");
        pages.push((color, pixels));
    }
    let [(png::ColorType::Grayscale, grey), (png::ColorType::Rgb, palette), (png::ColorType::Rgb, cmyk)] =
        pages.as_slice()
    else {
        panic!("a grey page and two RGB pages expected")
    };
    // The fixture script made both from the grey page: the palette page's index is the grey
    // level's top four bits, into 16 colours from dark blue (20, 30, 90) to cream (250, 245, 225);
    // the CMYK page puts 255 - grey on the K plate, which reads back as grey on every channel.
    let lerp = |a: u8, b: u8, i: u8| (f32::from(a) + (f32::from(b) - f32::from(a)) * f32::from(i) / 15.0).round() as u8;
    for (at, &g) in grey.iter().enumerate() {
        let i = g >> 4;
        let want = [lerp(20, 250, i), lerp(30, 245, i), lerp(90, 225, i)];
        assert_eq!(&palette[at * 3..at * 3 + 3], want, "palette pixel {at} (grey {g})");
        assert_eq!(&cmyk[at * 3..at * 3 + 3], [g, g, g], "CMYK pixel {at}");
    }
}

#[tokio::test]
async fn a_jpeg_2000_scan_reaches_a_vision_model_as_a_grey_png_of_the_same_page() {
    let mut pages = Vec::new();
    for name in ["scanned-page-flate.pdf", "scanned-page-jpx.pdf"] {
        let stub = Stub::start(|_| Reply::Text(SCAN_TEXT.to_owned())).await;
        let extracted = extractor().extract(fixture(name), DocumentKind::Pdf, vision(&stub, None)).await.expect(name);
        assert_eq!(extracted.text, SCAN_TEXT, "{name}");
        let (_, png) = images_of(&stub.requests()[0].1).remove(0);
        let (size, depth, color, pixels) = png_pixels(&png);
        assert_eq!((size, depth, color), (SCAN_SIZE, png::BitDepth::Eight, png::ColorType::Grayscale), "{name}");
        pages.push(pixels);
    }
    // Lossy at 1:20: close to the grey page, and the ink where the ink was.
    let (grey, jpx) = (&pages[0], &pages[1]);
    let total = grey.len();
    let mean = grey.iter().zip(jpx).map(|(&a, &b)| u64::from(a.abs_diff(b))).sum::<u64>() as f64 / total as f64;
    let ink_moved = grey.iter().zip(jpx).filter(|&(&a, &b)| (a <= 128) != (b <= 128)).count();
    assert!(mean < 6.0, "mean difference {mean:.2}");
    assert!(ink_moved < total / 100, "{ink_moved} of {total} pixels changed side");
}

#[tokio::test]
async fn a_jbig2_scan_reaches_a_vision_model_as_the_same_one_bit_page_as_the_fax_scan() {
    let mut pages = Vec::new();
    for name in ["scanned-page-fax.pdf", "scanned-page-jbig2.pdf"] {
        let stub = Stub::start(|_| Reply::Text(SCAN_TEXT.to_owned())).await;
        let extracted = extractor().extract(fixture(name), DocumentKind::Pdf, vision(&stub, None)).await.expect(name);
        assert_eq!(extracted.text, SCAN_TEXT, "{name}");
        let (_, png) = images_of(&stub.requests()[0].1).remove(0);
        let (size, depth, color, pixels) = png_pixels(&png);
        assert_eq!((size, depth, color), (SCAN_SIZE, png::BitDepth::One, png::ColorType::Grayscale), "{name}");
        pages.push(pixels);
    }
    // Both are the fixture script's black-and-white page: the CCITT one through Pillow's PDF
    // writer, the JBIG2 one through libtiff's Group 4 data in an MMR-coded generic region.
    let black = pages[1].iter().map(|b| b.count_zeros() as usize).sum::<usize>();
    assert!(black > 1000, "ink on the page: {black} black pixels");
    assert!(pages[0] == pages[1], "the JBIG2 page differs from the fax page");
}

/// `pages` pages, each drawing its own 2×2 grey image.
fn scan_of_pages(pages: usize) -> Vec<u8> {
    use crate::fixtures::{pdf_objects, stream};
    let kids: Vec<String> = (0..pages).map(|i| format!("{} 0 R", 3 + 3 * i)).collect();
    let mut objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
        format!("<< /Type /Pages /Kids [{}] /Count {pages} >>", kids.join(" ")),
    ];
    for i in 0..pages {
        let (content, image) = (4 + 3 * i, 5 + 3 * i);
        objects.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 {image} 0 R >> >> \
             /Contents {content} 0 R >>"
        ));
        objects.push(stream("", "q 612 0 0 792 0 0 cm /Im1 Do Q"));
        objects.push(format!(
            "<< /Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8 \
             /Length 4 >>\nstream\n{}\nendstream",
            "\u{7f}\u{10}\u{60}\u{30}"
        ));
    }
    pdf_objects(&objects, None)
}

#[tokio::test]
async fn pages_are_asked_one_by_one_joined_by_blank_lines_and_bounded() {
    let stub = Stub::start(|n| Reply::Text(format!("page {}\n", n + 1))).await;
    let three = vision(&stub, Some("sk-test"));
    let extracted = extractor().extract(scan_of_pages(3), DocumentKind::Pdf, three).await.expect("recognised");
    assert_eq!(extracted.text, "page 1\n\npage 2\n\npage 3");
    assert_eq!(stub.requests().len(), 3);

    let two = ExtractLimits {
        ocr: Some(OcrSettings { max_pages: 2, ..OcrSettings::openai(&stub.base_url, None, "stub-vision") }),
        ..limits()
    };
    let extracted = extractor().extract(scan_of_pages(3), DocumentKind::Pdf, two).await.expect("recognised");
    assert_eq!(extracted.text, "page 4\n\npage 5", "the first LORE_OCR_MAX_PAGES pages only");
    assert_eq!(stub.requests().len(), 5);

    // The output cap holds the model's answers too.
    let small = ExtractLimits { max_output_bytes: 10, ..vision(&stub, None) };
    let error = extractor().extract(scan_of_pages(3), DocumentKind::Pdf, small).await.unwrap_err();
    assert!(matches!(error, ExtractError::TooLarge(_)), "{error:?}");
}

#[tokio::test]
async fn an_empty_answer_is_a_scan_without_text() {
    let stub = Stub::start(|_| Reply::Text("  \n".to_owned())).await;
    let error =
        extractor().extract(crate::fixtures::scanned_pdf(), DocumentKind::Pdf, vision(&stub, None)).await.unwrap_err();
    assert!(
        matches!(&error, ExtractError::Corrupt(m) if m.starts_with("no_text_layer: ") && m.contains("found no text")),
        "{error:?}"
    );
}

/// The error of a recognition against a failing model, and how long it took.
async fn failing(reply: Reply, limits: impl Fn(&Stub) -> ExtractLimits) -> (ExtractError, Duration, usize) {
    let stub = Stub::start(move |_| reply.clone()).await;
    let started = Instant::now();
    let error = extractor().extract(fixture("scanned-page.pdf"), DocumentKind::Pdf, limits(&stub)).await.unwrap_err();
    (error, started.elapsed(), stub.requests().len())
}

#[tokio::test]
async fn a_refused_key_says_so_without_quoting_the_provider() {
    let (error, _, requests) = failing(Reply::Status(401), |stub| vision(stub, Some("sk-test"))).await;
    let ExtractError::Corrupt(message) = &error else { panic!("{error:?}") };
    assert!(message.starts_with("no_text_layer: "), "{message}");
    assert!(message.contains("the vision model (stub-vision) could not be used"), "{message}");
    assert!(message.contains("HTTP 401") && message.contains("refused the API key"), "{message}");
    assert!(!message.contains("sk-te"), "no part of the key: {message}");
    assert_eq!(requests, 1, "a refused key is not retried");
}

#[tokio::test]
async fn a_failing_or_unreachable_model_is_retried_then_reported() {
    let (error, took, requests) = failing(Reply::Status(500), |stub| vision(stub, None)).await;
    let ExtractError::Corrupt(message) = &error else { panic!("{error:?}") };
    assert!(message.starts_with("no_text_layer: "), "{message}");
    assert!(message.contains("HTTP 500") && message.contains("gave up after 3 attempts"), "{message}");
    assert_eq!(requests, 3);
    assert!(took < Duration::from_secs(10), "{took:?}");

    // Nothing listens on the port.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    let nowhere = with_ocr(OcrSettings::openai(&format!("http://{closed}/v1"), None, "stub-vision"));
    let error = extractor().extract(fixture("scanned-page.pdf"), DocumentKind::Pdf, nowhere).await.unwrap_err();
    let ExtractError::Corrupt(message) = &error else { panic!("{error:?}") };
    assert!(message.starts_with("no_text_layer: ") && message.contains("could not be reached"), "{message}");
}

#[tokio::test]
async fn a_stalled_model_is_held_to_the_parse_time() {
    let limits = |stub: &Stub| ExtractLimits { timeout: Duration::from_secs(2), ..vision(stub, None) };
    let (error, took, requests) = failing(Reply::Stall, limits).await;
    assert!(matches!(error, ExtractError::TimedOut(_)), "{error:?}");
    assert!(took < Duration::from_secs(4), "{took:?}");
    assert_eq!(requests, 1);
}
