//! A deterministic PDF of about `target` bytes, written from scratch (no committed binary, no
//! dependency): `pages` pages of Helvetica text (pseudo-English sentences, ~4 KB per page,
//! uncompressed content streams) and raw RGB image XObjects (incompressible pseudo-random
//! pixels, one drawn on each page) that make up the rest of the size. A scanned-and-OCRed or
//! illustrated 10 MB document looks like this: most bytes are images, the text is ~1 MB.

#[rustfmt::skip]
const WORDS: &[&str] = &[
    "the", "customer", "account", "billing", "invoice", "refund", "policy", "within", "days", "of", "purchase",
    "support", "team", "will", "review", "request", "and", "reply", "by", "email", "subscription", "plan", "annual",
    "monthly", "payment", "card", "method", "update", "settings", "page", "dashboard", "export", "report", "data",
    "privacy", "security", "access", "key", "rotate", "every", "quarter", "administrator", "workspace", "member",
    "invite", "role", "permission", "read", "write", "delete", "archive", "document", "upload", "file", "size",
    "limit", "storage", "quota", "exceeds", "contact", "sales", "enterprise", "contract", "terms", "service", "level",
    "agreement", "uptime", "incident", "status", "maintenance", "window", "scheduled", "weekend", "region", "latency",
    "network", "integration", "webhook", "event", "delivery", "retry", "signature", "verify", "secret", "header",
    "timestamp", "before", "after", "during", "onboarding", "training", "session", "guide", "handbook", "chapter",
    "section", "appendix", "table", "figure", "example", "note", "warning", "important", "always", "never", "must",
    "should", "may", "can", "for", "with", "from", "into", "about", "each", "other", "their", "this", "that",
];

/// xorshift64*: the same bytes on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

fn text_stream(rng: &mut Rng, page: usize) -> Vec<u8> {
    let mut s = format!("BT /F1 9 Tf 11 TL 40 800 Td (Chapter {} of the handbook) Tj T*\n", page + 1);
    for _line in 0..60 {
        let mut line = String::new();
        while line.len() < 62 {
            let w = WORDS[(rng.next() % WORDS.len() as u64) as usize];
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(w);
            if rng.next().is_multiple_of(9) {
                line.push('.');
            }
        }
        s.push('(');
        s.push_str(&line);
        s.push_str(") Tj T*\n");
    }
    s.push_str("ET\nq 160 0 0 120 400 40 cm /Im0 Do Q\n");
    s.into_bytes()
}

/// The PDF's bytes: `pages` text pages and `images` images, padded by the images to `target`.
pub fn generate(target: usize, pages: usize, images: usize) -> Vec<u8> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    // Objects: 1 catalog, 2 pages, 3 font, then per page (page, content), then images.
    let first_page = 4;
    let first_image = first_page + 2 * pages;
    let contents: Vec<Vec<u8>> = (0..pages).map(|p| text_stream(&mut rng, p)).collect();
    let text_bytes: usize = contents.iter().map(Vec::len).sum();
    let overhead = 400 + pages * 260 + images * 200;
    let width = 400usize;
    let per_image = target.saturating_sub(text_bytes + overhead) / images.max(1);
    let height = (per_image / (width * 3)).max(1);

    let mut out = Vec::with_capacity(target + 4096);
    let mut offsets = Vec::new();
    out.extend_from_slice(b"%PDF-1.4\n%\xE2\xE3\xCF\xD3\n");
    object(&mut out, &mut offsets, "<< /Type /Catalog /Pages 2 0 R >>".into(), None);
    let kids: Vec<String> = (0..pages).map(|p| format!("{} 0 R", first_page + 2 * p)).collect();
    object(&mut out, &mut offsets, format!("<< /Type /Pages /Kids [{}] /Count {pages} >>", kids.join(" ")), None);
    object(
        &mut out,
        &mut offsets,
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".into(),
        None,
    );
    for (p, content) in contents.iter().enumerate() {
        let image = first_image + p % images.max(1);
        object(
            &mut out,
            &mut offsets,
            format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents {} 0 R \
                 /Resources << /Font << /F1 3 0 R >> /XObject << /Im0 {image} 0 R >> >> >>",
                first_page + 2 * p + 1
            ),
            None,
        );
        object(&mut out, &mut offsets, format!("<< /Length {} >>", content.len()), Some(content));
    }
    for _ in 0..images {
        let mut pixels = vec![0u8; width * height * 3];
        for chunk in pixels.chunks_mut(8) {
            let v = rng.next().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
        object(
            &mut out,
            &mut offsets,
            format!(
                "<< /Type /XObject /Subtype /Image /Width {width} /Height {height} /ColorSpace /DeviceRGB \
                 /BitsPerComponent 8 /Length {} >>",
                pixels.len()
            ),
            Some(&pixels),
        );
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", offsets.len() + 1).as_bytes());
    for o in &offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!("trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n", offsets.len() + 1).as_bytes(),
    );
    out
}

/// Appends object number `offsets.len() + 1`.
fn object(out: &mut Vec<u8>, offsets: &mut Vec<usize>, dict: String, stream: Option<&[u8]>) {
    offsets.push(out.len());
    out.extend_from_slice(format!("{} 0 obj\n{dict}", offsets.len()).as_bytes());
    if let Some(bytes) = stream {
        out.extend_from_slice(b"\nstream\n");
        out.extend_from_slice(bytes);
        out.extend_from_slice(b"\nendstream");
    }
    out.extend_from_slice(b"\nendobj\n");
}

/// How many bytes of text the PDF's pages carry (for the report).
pub fn text_bytes(pages: usize) -> usize {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    (0..pages).map(|p| text_stream(&mut rng, p).len()).sum()
}
