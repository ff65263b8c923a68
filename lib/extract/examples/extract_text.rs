//! Prints the text of one file as an upload would get it: sniffed by content, extracted by
//! `DocumentExtractor` (thread isolation) with the default limits. Used by
//! `scripts/bench-extraction.sh`: `cargo run --release -p lore-extract --example extract_text -- FILE`.

use lore_app::ports::{ExtractLimits, Extractor};
use lore_extract::DocumentExtractor;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: extract_text FILE");
        std::process::exit(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let extractor = DocumentExtractor::new();
    let Some(kind) = extractor.sniff(&bytes, Some(&path)) else {
        eprintln!("{path}: not a supported document");
        std::process::exit(1);
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
    let Ok(runtime) = runtime else {
        eprintln!("no async runtime");
        std::process::exit(1);
    };
    match runtime.block_on(extractor.extract(bytes, kind, ExtractLimits::default())) {
        Ok(extracted) => println!("{}", extracted.text),
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    }
}
