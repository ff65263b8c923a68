//! Chunking throughput: `lore_app::chunking::chunk_text` (what the ingest pipeline calls) with the
//! deployment's default settings (`ChunkSettings::default()`, the same as `LORE_CHUNK_TOKENS=800`,
//! `LORE_CHUNK_OVERLAP_PERCENT=15`) against LangChain's `RecursiveCharacterTextSplitter` with the
//! same size and overlap in characters, on the same files.

use crate::{Options, Result, Section, mb, median, python, runs_of, timed_runs, verdict};

/// Turns each side takes (see the report's description).
const ROUNDS: usize = 2;
use lore_app::chunking::{ChunkSettings, chunk_text};
use serde_json::Value;
use std::fmt::Write;
use std::time::Duration;

const BUDGET_RATIO: f64 = 10.0;

/// Markdown-like prose of exactly `bytes` bytes (cut at a char boundary): the corpus passages in a
/// seeded random order, each as a `##` heading and its paragraph, a `#` part heading every 12
/// passages and every 7th passage as a bullet list of its sentences.
pub fn document(passages: &[(String, String)], bytes: usize, seed: u64) -> String {
    let mut rng = crate::Rng(seed);
    let mut doc = String::with_capacity(bytes + 4096);
    let mut n = 0usize;
    while doc.len() < bytes {
        if n.is_multiple_of(12) {
            let _ = write!(doc, "# Part {}\n\n", n / 12 + 1);
        }
        let (title, text) = &passages[rng.below(passages.len())];
        let _ = write!(doc, "## {title}\n\n");
        if n % 7 == 6 {
            for sentence in text.split(". ").filter(|s| !s.trim().is_empty()) {
                let _ = writeln!(doc, "- {}", sentence.trim_end_matches('.'));
            }
            doc.push('\n');
        } else {
            let _ = write!(doc, "{text}\n\n");
        }
        n += 1;
    }
    let mut cut = bytes.min(doc.len());
    while !doc.is_char_boundary(cut) {
        cut -= 1;
    }
    doc.truncate(cut);
    doc
}

/// A hash of the chunks, to show that a change to the splitter kept them byte for byte.
fn fingerprint(chunks: &[String]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    chunks.hash(&mut h);
    h.finish()
}

struct Measured {
    label: String,
    bytes: usize,
    mode: &'static str,
    ours_mbps: f64,
    /// Markdown only: pulldown-cmark's parse alone, the floor of any splitter built on it.
    parse_mbps: Option<f64>,
    ours_chunks: usize,
    ours_max_chars: usize,
    peer: Option<(f64, usize, usize)>,
}

pub fn run(o: &Options) -> Result<Section> {
    let passages = crate::corpus(o)?;
    let sizes: &[(usize, &str)] = if o.quick {
        &[(10_000, "10 KB"), (100_000, "100 KB"), (1_000_000, "1 MB")]
    } else {
        &[(10_000, "10 KB"), (1_000_000, "1 MB"), (20_000_000, "20 MB")]
    };
    let min = Duration::from_secs_f64(if o.quick { 0.3 } else { 1.5 });
    let settings = ChunkSettings::default();
    let dir = tempfile::tempdir()?;
    let mut files = Vec::new();
    let mut docs = Vec::new();
    for (i, &(bytes, label)) in sizes.iter().enumerate() {
        let doc = document(&passages, bytes, 42 + i as u64);
        let path = dir.path().join(format!("doc-{bytes}.md"));
        std::fs::write(&path, &doc)?;
        files.push(path.to_string_lossy().into_owned());
        docs.push((label, doc));
    }
    // Ours and LangChain take turns, twice, and each side keeps its better round: the machine is
    // shared, and a slow spell during one side's turn would otherwise decide the ratio.
    let mut measured: Vec<Measured> = Vec::new();
    let mut peer_error = None;
    for round in 0..ROUNDS {
        let mut n = 0;
        for (label, doc) in &docs {
            for (mode, markdown) in [("text", false), ("markdown", true)] {
                let (chunks, runs) = timed_runs(min, 3, || chunk_text(doc, markdown, settings));
                let mbps = mb(doc.len()) / median(&runs);
                // What text-splitter's Markdown splitter does first, alone: parse the text with
                // every extension on and collect each event's range (`MarkdownSplitter::parse`).
                let parse_mbps = markdown.then(|| {
                    let (_, runs) = timed_runs(min, 3, || {
                        pulldown_cmark::Parser::new_ext(doc, pulldown_cmark::Options::all())
                            .into_offset_iter()
                            .map(|(_, range)| range)
                            .collect::<Vec<_>>()
                    });
                    mb(doc.len()) / median(&runs)
                });
                eprintln!(
                    "  chunking {label} {mode}, round {}: {mbps:.1} MB/s, {} chunks (fingerprint {:016x})",
                    round + 1,
                    chunks.len(),
                    fingerprint(&chunks)
                );
                match measured.get_mut(n) {
                    Some(m) => {
                        m.ours_mbps = m.ours_mbps.max(mbps);
                        m.parse_mbps = match (m.parse_mbps, parse_mbps) {
                            (Some(a), Some(b)) => Some(a.max(b)),
                            (a, b) => a.or(b),
                        };
                    }
                    None => measured.push(Measured {
                        label: (*label).to_owned(),
                        bytes: doc.len(),
                        mode,
                        ours_mbps: mbps,
                        parse_mbps,
                        ours_chunks: chunks.len(),
                        ours_max_chars: chunks.iter().map(|c| c.chars().count()).max().unwrap_or(0),
                        peer: None,
                    }),
                }
                n += 1;
            }
        }
        let (size, overlap) = (settings.max_chars().to_string(), settings.overlap_chars().to_string());
        let min_arg = format!("{}", min.as_secs_f64());
        let mut args = vec!["chunk", "--size", &size, "--overlap", &overlap, "--min-seconds", &min_arg];
        args.extend(files.iter().map(String::as_str));
        match python(o, &args) {
            Ok(Value::Array(results)) => {
                for (r, m) in results.iter().zip(measured.iter_mut()) {
                    let bytes = r["bytes"].as_u64().unwrap_or(0) as usize;
                    if bytes != m.bytes || r["mode"].as_str() != Some(m.mode) {
                        return Err(format!("peers.py answered for another file: {r}").into());
                    }
                    let mbps = mb(bytes) / median(&runs_of(r));
                    let best = m.peer.map_or(mbps, |(earlier, _, _)| earlier.max(mbps));
                    m.peer = Some((
                        best,
                        r["chunks"].as_u64().unwrap_or(0) as usize,
                        r["max_chunk_chars"].as_u64().unwrap_or(0) as usize,
                    ));
                }
            }
            Ok(other) => peer_error = Some(format!("unexpected answer {other}")),
            Err(e) => peer_error = Some(e.to_string()),
        }
    }

    let mut md = String::new();
    md.push_str("### Chunking throughput\n\n");
    let _ = writeln!(
        md,
        "`lore_app::chunking::chunk_text` with the deployment default (800 tokens-equivalent, 15 % overlap = \
         {} characters, overlap {}: 4 characters per token, `ChunkSettings::from_tokens`) against \
         `RecursiveCharacterTextSplitter(chunk_size={}, chunk_overlap={})` (length = `len`, code points; \
         text-splitter's default sizer also counts characters). Mode `text`: our `TextSplitter` path \
         against the default separators; mode `markdown`: our `MarkdownSplitter` path (Markdown and HTML \
         sources) against `RecursiveCharacterTextSplitter.from_language(Language.MARKDOWN)`. Inputs: \
         Markdown-like prose built from the retrieval corpus (CPython docstrings; seeded order; repeated \
         passages in the larger files), byte-identical files for both sides. Single thread each; median \
         of ≥ 3 timed runs after a warm-up; MB = 10^6 bytes of input. Both sides take turns twice (ours on \
         every file, then LangChain, then again) and each keeps its better round. *Markdown parse alone*: \
         pulldown-cmark with every extension, collecting each event's byte range, on the same file (what \
         text-splitter's Markdown splitter does before it splits; ratio against LangChain): no Markdown \
         splitter built on that parser can go faster.\n",
        settings.max_chars(),
        settings.overlap_chars(),
        settings.max_chars(),
        settings.overlap_chars()
    );
    md.push_str(
        "| document | mode | ours MB/s | LangChain MB/s | ratio | Markdown parse alone MB/s (ratio) | chunks (ours / LangChain) | longest chunk, chars (ours / LangChain) | budget ≥ 10× |\n",
    );
    md.push_str("|---|---|---:|---:|---:|---:|---:|---:|---|\n");
    let mut met = Vec::new();
    for m in &measured {
        match m.peer {
            Some((peer_mbps, peer_chunks, peer_max)) => {
                let ratio = m.ours_mbps / peer_mbps;
                let parse = m.parse_mbps.map_or("–".to_owned(), |p| format!("{p:.1} ({:.1}×)", p / peer_mbps));
                let _ = writeln!(
                    md,
                    "| {} | {} | {:.1} | {:.1} | {:.1}× | {parse} | {} / {} | {} / {} | {} |",
                    m.label,
                    m.mode,
                    m.ours_mbps,
                    peer_mbps,
                    ratio,
                    m.ours_chunks,
                    peer_chunks,
                    m.ours_max_chars,
                    peer_max,
                    verdict(ratio >= BUDGET_RATIO)
                );
                met.push((format!("chunking ≥ 10× LangChain, {} {}", m.label, m.mode), ratio >= BUDGET_RATIO));
            }
            None => {
                let _ = writeln!(
                    md,
                    "| {} | {} | {:.1} | not measured | – | – | {} / – | {} / – | – |",
                    m.label, m.mode, m.ours_mbps, m.ours_chunks, m.ours_max_chars
                );
            }
        }
    }
    if let Some(e) = peer_error {
        let _ = writeln!(md, "\nLangChain not measured: {e}");
    }
    Ok(Section { markdown: md, met })
}
