//! RTF extraction: Lore's own reader (group depth cap, destinations skipped, code pages and
//! `\uN` decoded, tables rendered as Markdown). The input is the uploaded file as it is.

#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use lore_app::ports::ExtractLimits;
use lore_domain::document::DocumentKind;

fuzz_target!(|data: &[u8]| {
    let limits = ExtractLimits::default();
    common::run_parser(|| lore_extract::fuzzing::extract(data, DocumentKind::Rtf, &limits));
});
