//! Ingest embedding speed with the local model: `lore_embed::MiniLmEmbedder` (all-MiniLM-L6-v2 on
//! our encoder, what `lore serve` embeds with by default) against sentence-transformers (PyTorch
//! on the CPU) with the same weights, on the same chunks, on the same cores.
//!
//! The chunks are what ingestion makes of real documentation: the Cargo book passages of
//! `benches/retrieval/cargo-book/corpus.jsonl`, split by `lore_app::chunking::Chunker` sized for
//! MiniLM's window (as `lore serve` does), the first [`CHUNKS`] of them. Ours embeds them in calls
//! of 64 texts (the ingest pipeline's batch); the peer's `encode` gets them all with its default
//! batch of 32 (it sorts by length and pads each batch to its longest; ours pads nothing). Both are warmed up first (ours
//! loads its weights on the first embedding), then timed over whole passes; median of the passes.
//! The peer's vectors are compared with ours (cosine per chunk): the same model must give the same
//! vectors, or the comparison means nothing.

use crate::{Options, Result, Section, median, verdict};
use lore_app::chunking::{ChunkSettings, Chunker};
use lore_app::ports::Embedder;
use lore_embed::{MINILM_DIMENSIONS, MiniLmEmbedder};
use serde_json::Value;
use std::fmt::Write;
use std::path::PathBuf;
use std::time::Instant;

/// Chunks embedded per pass.
const CHUNKS: usize = 256;
/// Texts per `embed` call: the ingest pipeline's batch (`lore_app::ingest`).
const CALL: usize = 64;
/// Passes timed, after the warm-up.
const PASSES: usize = 3;
/// The budget: ours at least as fast as the peer.
const BUDGET_RATIO: f64 = 1.0;

/// Where `lore serve` finds the model (`LORE_MODEL_DIR`, else under `$HOME`).
pub(crate) fn model_dir() -> Result<PathBuf> {
    lore_embed::model_dir_from_lookup(|k| std::env::var(k).ok())
        .ok_or_else(|| "neither LORE_MODEL_DIR nor HOME is set".into())
}

/// The peer's interpreter: `$LORE_BENCH_ST_PYTHON`, else the venv `scripts/st-venv.sh` makes.
fn peer_python() -> PathBuf {
    std::env::var_os("LORE_BENCH_ST_PYTHON").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/lore/st-venv/bin/python")
    })
}

fn chunks(o: &Options, embedder: &MiniLmEmbedder, count: usize) -> Result<Vec<String>> {
    let path = o.root.join("benches/retrieval/cargo-book/corpus.jsonl");
    let raw = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let chunker = Chunker::for_embedder(ChunkSettings::default(), embedder.token_window());
    let mut out = Vec::new();
    for line in raw.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line)?;
        let Some(text) = v["text"].as_str() else { continue };
        out.extend(chunker.chunk(text, true));
        if out.len() >= count {
            out.truncate(count);
            return Ok(out);
        }
    }
    Err(format!("{} gave only {} chunks", path.display(), out.len()).into())
}

fn embed_all(embedder: &MiniLmEmbedder, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
    let mut out = Vec::with_capacity(texts.len());
    for call in texts.chunks(CALL) {
        out.extend(embedder.embed_blocking(call)?);
    }
    Ok(out)
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    dot / (norm(a) * norm(b))
}

pub fn run(o: &Options) -> Result<Section> {
    let count = if o.quick { 32 } else { CHUNKS };
    let passes = if o.quick { 1 } else { PASSES };
    let model_dir = model_dir()?;
    let embedder = MiniLmEmbedder::load(&model_dir)?;
    let chunks = chunks(o, &embedder, count)?;
    let texts: Vec<&str> = chunks.iter().map(String::as_str).collect();
    let tokens: usize = texts.iter().map(|t| embedder.token_ids(t).map_or(0, |ids| ids.len())).sum();
    let chars: usize = texts.iter().map(|t| t.chars().count()).sum();

    let started = Instant::now();
    embed_all(&embedder, &texts[..CALL.min(texts.len())])?;
    let warm_up = started.elapsed().as_secs_f64();
    let mut runs = Vec::new();
    let mut ours = Vec::new();
    for _ in 0..passes {
        let t = Instant::now();
        ours = embed_all(&embedder, &texts)?;
        runs.push(t.elapsed().as_secs_f64());
    }
    let ours_rate = count as f64 / median(&runs);
    eprintln!(
        "  embedding: ours {ours_rate:.1} chunks/s ({runs:?} s; warm-up with the weights' load {warm_up:.2} s; \
         process peak so far {} MiB)",
        peak_mib().map_or("?".to_owned(), |m| format!("{m:.0}"))
    );

    let dir = tempfile::tempdir()?;
    let input = dir.path().join("chunks.jsonl");
    let vectors_path = dir.path().join("vectors.f32");
    let jsonl: String = texts.iter().map(|t| serde_json::json!({ "text": t }).to_string() + "\n").collect();
    std::fs::write(&input, jsonl)?;
    let script = o.root.join("benches/embed/peer.py");
    let peer: Option<(Value, f64)> = (|| -> Result<(Value, f64)> {
        let out = std::process::Command::new(peer_python())
            .arg(&script)
            .arg(&input)
            .args(["--threads", &std::thread::available_parallelism().map_or(2, |n| n.get()).to_string()])
            .args(["--runs", &passes.to_string()])
            .arg("--vectors")
            .arg(&vectors_path)
            .env("LORE_MODEL_DIR", &model_dir)
            .stderr(std::process::Stdio::inherit())
            .output()
            .map_err(|e| format!("cannot run {}: {e}", peer_python().display()))?;
        if !out.status.success() {
            return Err(format!("peer.py exited with {}", out.status).into());
        }
        let v: Value = serde_json::from_slice(&out.stdout)?;
        let raw = std::fs::read(&vectors_path)?;
        let floats: Vec<f32> = raw.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        if floats.len() != count * MINILM_DIMENSIONS {
            return Err(
                format!("the peer wrote {} floats, expected {}", floats.len(), count * MINILM_DIMENSIONS).into()
            );
        }
        let min_cosine = floats
            .chunks_exact(MINILM_DIMENSIONS)
            .zip(&ours)
            .map(|(theirs, mine)| cosine(theirs, mine))
            .fold(f64::INFINITY, f64::min);
        Ok((v, min_cosine))
    })()
    .map_err(|e| eprintln!("  embedding: the sentence-transformers peer was not measured: {e}"))
    .ok();

    let mut md = String::from("### Ingest embedding with all-MiniLM-L6-v2\n\n");
    let _ = write!(
        md,
        "`lore_embed::MiniLmEmbedder` (our encoder on gemm, f32, what `lore serve` embeds with by default) against \
         sentence-transformers (PyTorch on the CPU) with the same `model.safetensors`, on the same {count} chunks: \
         the Cargo book (`benches/retrieval/cargo-book`) split as `lore serve` splits for this model \
         ({} word pieces on average, {} characters). Ours in calls of {CALL} texts (the ingest pipeline's batch), \
         the peer's `encode` with its default batch of 32, sorted by length and padded to the longest of each batch (ours pads nothing: attention runs per text); both on every core of the machine. \
         One warm-up, then the median of {passes} passes. The peer's vectors are checked against ours.\n\n",
        tokens / count.max(1),
        chars / count.max(1),
    );
    md.push_str("| embedder | chunks/s | pass s (median) | threads | vectors vs ours (min cosine) |\n|---|---:|---:|---:|---:|\n");
    let _ = writeln!(md, "| ours: lore_embed | {ours_rate:.1} | {:.2} | {} | – |", median(&runs), model_threads());
    let met = match &peer {
        Some((v, min_cosine)) => {
            let rate = v["chunks_per_second"].as_f64().unwrap_or(f64::NAN);
            let _ = writeln!(
                md,
                "| sentence-transformers {} (torch {}) | {rate:.1} | {:.2} | {} | {min_cosine:.6} |",
                v["versions"]["sentence_transformers"].as_str().unwrap_or("?"),
                v["versions"]["torch"].as_str().unwrap_or("?"),
                v["seconds_median"].as_f64().unwrap_or(f64::NAN),
                v["threads"],
            );
            let ratio = ours_rate / rate;
            let met = ratio >= BUDGET_RATIO && *min_cosine > 0.999;
            let _ = writeln!(md, "\nRatio ours / peer: **{ratio:.2}×** (budget ≥ {BUDGET_RATIO}×): {}.", verdict(met));
            if let Some(peak) = v["peak_rss_mib"].as_f64() {
                let _ = writeln!(md, "The peer's process peaked at {peak:.0} MiB (VmHWM).");
            }
            Some(met)
        }
        None => {
            md.push_str(
                "\nThe sentence-transformers peer was not measured in this run (`bash scripts/st-venv.sh` makes it).\n",
            );
            None
        }
    };
    Ok(Section {
        markdown: md,
        met: met
            .map(|m| vec![("MiniLM ingest embedding ≥ sentence-transformers, chunks/s".to_owned(), m)])
            .unwrap_or_default(),
    })
}

/// The threads the model computes with (see `lore_embed`'s MiniLM documentation).
fn model_threads() -> String {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()).to_string())
}

/// VmHWM of this process, MiB (the whole bench process: meaningful with `--only embedding`).
fn peak_mib() -> Option<f64> {
    crate::own_memory_mib("VmHWM:")
}
