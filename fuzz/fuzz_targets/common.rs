//! What the targets share: the production stack size and the panic policy.
//!
//! Panics: the extraction service runs every parser under `catch_unwind` (lib/extract
//! `isolate.rs`), so a panic inside a third-party parser (pdf-extract, lopdf, docx-rs, scraper,
//! zip) is contained and becomes a `Corrupt` error; pdf-extract in particular panics on many
//! malformed files. Those are not findings unless `LORE_FUZZ_ALL_PANICS=1` is set. A panic
//! whose location is in Lore's own code is always a crash, and so is everything
//! `catch_unwind` cannot contain: stack overflows, aborts, timeouts, running out of memory,
//! sanitizer reports.

#![allow(dead_code)]

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

/// The stack of tokio's blocking threads, where production parses run (tokio's default
/// `thread_stack_size`). Parsing on the fuzzer's 8 MiB main thread would hide recursion that
/// overflows in production.
pub const PARSER_STACK: usize = 2 * 1024 * 1024;

thread_local! {
    /// Whether the panic in flight on this thread is one the service contains.
    static CONTAINED: Cell<bool> = const { Cell::new(false) };
}

fn strict() -> bool {
    std::env::var_os("LORE_FUZZ_ALL_PANICS").is_some_and(|v| v == "1")
}

/// A panic is Lore's own when it was raised in a source file of this repository (third-party
/// crates live in the cargo registry or git checkouts, std in the toolchain, patched third-party
/// crates under `vendor/`: the docx-rs patch panics on purpose to stop a reader that ignores
/// errors, see vendor/README.md).
fn is_own(file: &str) -> bool {
    !(file.contains("/registry/src/")
        || file.contains("/.cargo/git/")
        || file.starts_with("/rustc/")
        || file.contains("vendor/"))
}

/// Replaces libfuzzer-sys's abort-on-every-panic hook (once): a contained panic is noted and
/// left to unwind to [`run_parser`]'s `catch_unwind`; any other panic is printed and aborts,
/// which the fuzzer reports as a crash.
fn install_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let strict = strict();
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let own = info.location().is_none_or(|l| is_own(l.file()));
            let contained = !strict && !own && CONTAINED.with(Cell::get);
            if contained {
                return;
            }
            default(info);
            std::process::abort();
        }));
    });
}

/// Runs `parse` the way the service does — on a thread with the blocking pool's stack, third-
/// party panics caught — but without a time limit: a hang is the fuzzer's `-timeout`.
pub fn run_parser<T: Send>(parse: impl FnOnce() -> T + Send) -> Option<T> {
    install_hook();
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("parser".into())
            .stack_size(PARSER_STACK)
            .spawn_scoped(scope, || {
                CONTAINED.with(|c| c.set(true));
                let result = catch_unwind(AssertUnwindSafe(parse)).ok();
                CONTAINED.with(|c| c.set(false));
                result
            })
            .expect("spawn the parser thread")
            .join()
            .expect("the parser thread does not panic outside catch_unwind")
    })
}

/// Runs validation code, where every panic is a finding (no isolation layer around it).
pub fn run_strict<T>(f: impl FnOnce() -> T) -> T {
    install_hook();
    f()
}

/// Splits `data` at every `separator`.
pub fn split<'a>(data: &'a [u8], separator: &[u8]) -> Vec<&'a [u8]> {
    let mut parts = Vec::new();
    let mut rest = data;
    while let Some(at) = rest.windows(separator.len()).position(|w| w == separator) {
        parts.push(&rest[..at]);
        rest = &rest[at + separator.len()..];
    }
    parts.push(rest);
    parts
}
