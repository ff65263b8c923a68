//! HTML extraction (charset detection, html5ever through scraper, main-content selection and
//! rendering), plus the other text paths every upload can take: content sniffing and the
//! Markdown and plain-text extractors.

#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use lore_app::ports::ExtractLimits;
use lore_domain::document::DocumentKind;
use lore_extract::fuzzing;

fuzz_target!(|data: &[u8]| {
    let limits = ExtractLimits::default();
    common::run_parser(|| {
        // Sniffing and the text extractors are Lore's own code: no third-party panic to contain.
        let _ = fuzzing::sniff(data, None);
        let _ = fuzzing::sniff(data, Some("upload.md"));
        let _ = fuzzing::extract(data, DocumentKind::Markdown, &limits);
        let _ = fuzzing::extract(data, DocumentKind::Text, &limits);
        fuzzing::extract(data, DocumentKind::Html, &limits)
    });
});
