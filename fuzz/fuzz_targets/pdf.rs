//! PDF extraction (lopdf + pdf-extract + Lore's recursion checks and output cap).
//!
//! The first byte picks how the rest is used:
//! - even: the rest is a PDF file, as uploaded;
//! - odd: the rest is split at `\0OBJ\0`; the first piece is the page's content stream and the
//!   others are objects 6, 7, … of a well-formed one-page PDF (catalog, page tree, page with
//!   fonts `/F1` (object 4) and `/F2` (object 6 when given) and XObjects `/X1`… `/X4`
//!   (objects 6…9), Info dictionary object 10), so mutations reach the content interpreter and the form-XObject walk
//!   instead of dying in the cross-reference table.

#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use lore_app::ports::ExtractLimits;
use lore_domain::document::DocumentKind;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    let pdf = if mode % 2 == 0 { rest.to_vec() } else { assemble(rest) };
    let limits = ExtractLimits::default();
    common::run_parser(|| lore_extract::fuzzing::extract(&pdf, DocumentKind::Pdf, &limits));
});

const HELVETICA: &[u8] = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";

fn assemble(rest: &[u8]) -> Vec<u8> {
    let parts = common::split(rest, b"\0OBJ\0");
    let (content, extra) = parts.split_first().expect("split returns at least one part");
    let mut objects: Vec<Vec<u8>> = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R /F2 6 0 R >> \
          /XObject << /X1 6 0 R /X2 7 0 R /X3 8 0 R /X4 9 0 R >> >> /Contents 5 0 R >>"
            .to_vec(),
        HELVETICA.to_vec(),
        stream(content),
    ];
    objects.extend(extra.iter().map(|o| o.to_vec()));
    let mut out = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(object);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes());
    for offset in offsets {
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!("trailer\n<< /Size {} /Root 1 0 R /Info 10 0 R >>\nstartxref\n{xref}\n%%EOF\n", objects.len() + 1)
            .as_bytes(),
    );
    out
}

fn stream(content: &[u8]) -> Vec<u8> {
    let mut s = format!("<< /Length {} >>\nstream\n", content.len()).into_bytes();
    s.extend_from_slice(content);
    s.extend_from_slice(b"\nendstream");
    s
}
