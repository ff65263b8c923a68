//! Embedded search latency: the index `lore serve` searches (`lore_local::SqliteStore` as
//! `VectorIndex`: an exact scan of a cached matrix for semantic search, BM25 over cached postings for
//! keyword search) at 10k and 100k chunks, against a brute-force scan of the same vectors held in
//! a plain `Vec<f32>`, in the same run.
//!
//! Setup per size, in a fresh data dir: the real server (`lore::serve::start`), a chatbot and
//! `chunks / 100` text sources created over HTTP, then 100 chunks per source written straight into
//! the index with `replace_source_chunks` (what an ingest run does after embedding): prose from the
//! retrieval corpus, 300–2,000 characters each, and seeded random unit vectors of 384 dimensions
//! (all-MiniLM-L6-v2's size). The search calls go to the index itself (`semantic_search`,
//! `keyword_search`, top 10, scope = every source), one at a time.

use crate::{Options, Result, Rng, Section, percentile, verdict};
use lore_app::ports::{Chunk, ChunkEmbedding, SearchScope, VectorIndex};
use lore_domain::id::{ChatbotId, SourceId, WorkspaceId};
use lore_domain::source::SourceOwner;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::fmt::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub(crate) const DIMS: usize = 384;
pub(crate) const TOP_K: usize = 10;
pub(crate) const CHUNKS_PER_SOURCE: usize = 100;
pub(crate) const MODEL: &str = "perf-bench-random-384";
const BUDGET_P99_MS: f64 = 10.0;
pub(crate) const SEMANTIC_QUERIES: usize = 300;
/// Passes over the 90 keyword queries.
const KEYWORD_PASSES: usize = 3;

pub fn run(o: &Options) -> Result<Section> {
    let passages = crate::corpus(o)?;
    let queries = keyword_queries(o)?;
    let sizes: &[usize] = if o.quick { &[2_000, 10_000] } else { &[10_000, 100_000] };
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let mut results = Vec::new();
    for &n in sizes {
        results.push(rt.block_on(measure(n, &passages, &queries))?);
    }

    let mut md = String::new();
    md.push_str("### Embedded search latency\n\n");
    md.push_str(
        "The embedded index of `lore serve` (`SqliteStore` as `VectorIndex`), called directly, top 10, one \
         query at a time, scope = every source of the chatbot; 384-dimensional seeded random unit vectors, \
         chunk texts from the retrieval corpus (300–2,000 characters), 100 chunks per source. Semantic: 300 \
         query vectors (a random chunk's vector plus noise, normalised); the first query, which loads the \
         chatbot's matrix from SQLite into the cache, is reported apart and not in the percentiles. Keyword: \
         the 90 questions of `benches/retrieval/queries.jsonl`, 3 passes, after a first query that builds the \
         chatbot's postings from the chunk texts (reported apart). Hybrid: for each question, semantic and keyword \
         search at the depth hybrid fusion fetches, at once as the search use case runs them. Baselines, same process, same \
         query vectors, over one `Vec<f32>` of the same vectors: *naive* = `a.iter().zip(b).map(|(x, y)| x * y).sum()` \
         per row (what the index's scan does), *floor* = the same dot product with 8 independent accumulators \
         (vectorised by the compiler: the memory-bandwidth floor of an exact scan on one core); top 10 by a \
         bounded selection. Recall = |index top 10 ∩ naive-scan top 10| / 10, mean over queries (the naive scan does the index's arithmetic, so any difference is a miss, not rounding). \
         Above ~20k rows the index no longer reads every float: a first pass over 8-bit codes of the vectors \
         (a quarter of the bytes, with a proven error bound per row) picks candidates, which are scored exactly, \
         and the exact scan runs only when the bounds cannot prove the answer (`lib/local/src/vectors.rs`); \
         so at 100k the floor of an exact scan is a reference, not a limit.\n\n",
    );
    md.push_str(
        "| chunks | search | index p50 ms | index p99 ms | naive scan p50 / p99 ms | floor scan p50 / p99 ms | p99 ratio index / floor | recall vs baseline | budget p99 ≤ 10 ms |\n",
    );
    md.push_str("|---:|---|---:|---:|---:|---:|---:|---:|---|\n");
    let mut met = Vec::new();
    let mut notes = String::new();
    for r in &results {
        let sem_p99 = percentile(&r.semantic_ms, 99.0);
        let floor_p99 = percentile(&r.floor_ms, 99.0);
        let _ = writeln!(
            md,
            "| {} | semantic | {:.2} | {:.2} | {:.2} / {:.2} | {:.2} / {:.2} | {:.1}× | {:.3} | {} |",
            r.chunks,
            percentile(&r.semantic_ms, 50.0),
            sem_p99,
            percentile(&r.naive_ms, 50.0),
            percentile(&r.naive_ms, 99.0),
            percentile(&r.floor_ms, 50.0),
            floor_p99,
            sem_p99 / floor_p99,
            r.recall,
            verdict(sem_p99 <= BUDGET_P99_MS && r.recall >= 1.0)
        );
        let kw_p99 = percentile(&r.keyword_ms, 99.0);
        let _ = writeln!(
            md,
            "| {} | keyword (BM25) | {:.2} | {:.2} | – | – | – | – | {} |",
            r.chunks,
            percentile(&r.keyword_ms, 50.0),
            kw_p99,
            verdict(kw_p99 <= BUDGET_P99_MS)
        );
        met.push((
            format!("semantic search p99 ≤ 10 ms and exact recall, {} chunks", r.chunks),
            sem_p99 <= BUDGET_P99_MS && r.recall >= 1.0,
        ));
        met.push((format!("keyword search p99 ≤ 10 ms, {} chunks", r.chunks), kw_p99 <= BUDGET_P99_MS));
        let _ = writeln!(
            md,
            "| {} | hybrid (both, depth {}) | {:.2} | {:.2} | – | – | – | – | (no budget of its own) |",
            r.chunks,
            TOP_K * lore_app::search::FUSION_DEPTH,
            percentile(&r.hybrid_ms, 50.0),
            percentile(&r.hybrid_ms, 99.0),
        );
        let _ = writeln!(
            notes,
            "- {} chunks: written into the index in {:.1} s ({:.0} chunks/s); first semantic query (matrix \
             load) {:.0} ms; first keyword query (postings built from the chunk texts) {:.0} ms, after which the \
             process held {:.0} MiB more; keyword queries returned {:.1} hits on average.",
            r.chunks,
            r.index_secs,
            r.chunks as f64 / r.index_secs,
            r.cold_ms,
            r.keyword_cold_ms,
            r.keyword_mib,
            r.keyword_hits
        );
    }
    md.push('\n');
    md.push_str(&notes);
    Ok(Section { markdown: md, met })
}

struct Measured {
    chunks: usize,
    index_secs: f64,
    cold_ms: f64,
    semantic_ms: Vec<f64>,
    naive_ms: Vec<f64>,
    floor_ms: Vec<f64>,
    recall: f64,
    keyword_cold_ms: f64,
    keyword_mib: f64,
    keyword_ms: Vec<f64>,
    keyword_hits: f64,
    hybrid_ms: Vec<f64>,
}

pub(crate) fn keyword_queries(o: &Options) -> Result<Vec<String>> {
    let path = o.root.join("benches/retrieval/queries.jsonl");
    let raw = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for line in raw.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line)?;
        if let Some(q) = v["query"].as_str() {
            out.push(q.to_owned());
        }
    }
    Ok(out)
}

pub(crate) fn unit_vector(rng: &mut Rng) -> Vec<f32> {
    let v: Vec<f32> = (0..DIMS).map(|_| rng.signed_unit()).collect();
    normalise(v)
}

fn normalise(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(f32::MIN_POSITIVE);
    v.iter_mut().for_each(|x| *x /= norm);
    v
}

pub(crate) fn chunk_text(passages: &[(String, String)], rng: &mut Rng) -> String {
    let target = 300 + rng.below(1_700);
    let mut s = String::new();
    while s.len() < target {
        let (title, text) = &passages[rng.below(passages.len())];
        if !s.is_empty() {
            s.push_str("\n\n");
        }
        s.push_str(title);
        s.push_str(": ");
        s.push_str(text);
    }
    let mut cut = s.len().min(2_000);
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    s.truncate(cut);
    s
}

async fn measure(n: usize, passages: &[(String, String)], queries: &[String]) -> Result<Measured> {
    let dir = tempfile::tempdir()?;
    let running = lore::serve::start(lore::serve::ServeConfig {
        addr: "127.0.0.1:0".parse()?,
        data_dir: dir.path().to_path_buf(),
        backend: lore::compose::Backend::Local,
        overrides: lore::compose::Overrides {
            embedder: Some(Arc::new(lore_embed::LocalEmbedder::new())),
            ..Default::default()
        },
    })
    .await
    .map_err(|e| e.to_string())?;
    let store = running.store.clone().ok_or("the local backend has no embedded store")?;
    let (ws, api) = crate::bench_workspace(&running, "perf-bench").await?;
    let bot = api.post("/api/v1/chatbots", &json!({"name": "perf bench"})).await?;
    let bot_id = bot["chatbot"]["id"].as_str().ok_or("no chatbot id")?.to_owned();
    let chatbot = ChatbotId::parse(&bot_id).ok_or("bad chatbot id")?;

    // Sources over HTTP, 8 at a time.
    let n_sources = n.div_ceil(CHUNKS_PER_SOURCE);
    let api = Arc::new(api);
    let mut tasks = tokio::task::JoinSet::new();
    let mut source_ids: Vec<SourceId> = Vec::with_capacity(n_sources);
    for i in 0..n_sources {
        if tasks.len() >= 8 {
            source_ids.push(tasks.join_next().await.ok_or("no task")???);
        }
        let (api, bot_id) = (api.clone(), bot_id.clone());
        tasks.spawn(async move {
            let body = json!({"type": "text", "name": format!("source {i}"), "content": format!("placeholder {i}")});
            let created = api.post(&format!("/api/v1/chatbots/{bot_id}/sources"), &body).await?;
            let id = created["source"]["id"].as_str().ok_or("no source id")?;
            SourceId::parse(id).ok_or_else(|| BoxErr::from("bad source id"))
        });
    }
    while let Some(done) = tasks.join_next().await {
        source_ids.push(done??);
    }
    source_ids.sort_by(|a, b| a.as_str().cmp(b.as_str()));

    // The chunks, and the baseline's copy of the vectors.
    let mut rng = Rng(BENCH_SEED + n as u64);
    let owner = SourceOwner::Chatbot(chatbot.clone());
    let mut written = BenchChunks::with_capacity(n);
    let started = Instant::now();
    let mut left = n;
    for source in &source_ids {
        let count = left.min(CHUNKS_PER_SOURCE);
        left -= count;
        let chunks = written.for_source(&mut rng, passages, &ws.id, &owner, source, count);
        store.replace_source_chunks(source, MODEL, chunks).await.map_err(|e| format!("{e:?}"))?;
    }
    let index_secs = started.elapsed().as_secs_f64();
    eprintln!("  search {n}: indexed in {index_secs:.1} s");
    let row_of = written.row_of();
    let matrix = &written.matrix;

    let scope = SearchScope { workspace_id: ws.id.clone(), owner, source_ids: source_ids.clone(), language: None };
    let query_vectors: Vec<Vec<f32>> =
        written.questions(&mut rng, SEMANTIC_QUERIES + 1).into_iter().map(|(_, v)| v).collect();

    // Cold: the first search loads the matrix.
    let t = Instant::now();
    let first =
        store.semantic_search(&scope, MODEL, &query_vectors[0], TOP_K, false).await.map_err(|e| format!("{e:?}"))?;
    let cold_ms = t.elapsed().as_secs_f64() * 1e3;
    if first.len() != TOP_K {
        return Err(format!("semantic search found {} chunks, not {TOP_K}", first.len()).into());
    }

    let mut semantic_ms = Vec::new();
    let mut found: Vec<Vec<usize>> = Vec::new();
    for q in &query_vectors[1..] {
        let t = Instant::now();
        let hits = store.semantic_search(&scope, MODEL, q, TOP_K, false).await.map_err(|e| format!("{e:?}"))?;
        semantic_ms.push(t.elapsed().as_secs_f64() * 1e3);
        found.push(hits.iter().filter_map(|h| row_of.get(h.chunk_id.as_str()).copied()).collect());
    }

    let mut naive_ms = Vec::new();
    let mut floor_ms = Vec::new();
    let mut recall_sum = 0.0;
    let mut floor_disagrees = 0usize;
    for (q, ours) in query_vectors[1..].iter().zip(&found) {
        let t = Instant::now();
        let naive = std::hint::black_box(top_k(matrix, q, TOP_K, dot_naive));
        naive_ms.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let floor = std::hint::black_box(top_k(matrix, q, TOP_K, dot_lanes));
        floor_ms.push(t.elapsed().as_secs_f64() * 1e3);
        if naive != floor {
            floor_disagrees += 1;
        }
        recall_sum += ours.iter().filter(|r| naive.contains(r)).count() as f64 / TOP_K as f64;
    }
    let recall = recall_sum / found.len() as f64;
    if floor_disagrees > 0 {
        eprintln!("  search {n}: the floor scan's top 10 differs from the naive one on {floor_disagrees} queries");
    }

    // Cold: the first keyword search builds the owner's postings from the chunk texts. What the
    // process holds afterwards, minus before, is what the postings take (an upper bound: the
    // allocator may keep freed build buffers).
    let rss_before = crate::own_memory_mib("VmRSS:").unwrap_or(0.0);
    let t = Instant::now();
    store.keyword_search(&scope, &queries[0], TOP_K).await.map_err(|e| format!("{e:?}"))?;
    let keyword_cold_ms = t.elapsed().as_secs_f64() * 1e3;
    let keyword_mib = crate::own_memory_mib("VmRSS:").unwrap_or(0.0) - rss_before;

    let (keyword_ms, keyword_hits) = keyword_latencies(&*store, &scope, queries).await?;
    // The slowest questions by their best pass: a p99 far above these is the machine (or the
    // first queries after the build), not a question that costs more.
    let mut slowest: Vec<(f64, &String)> = queries
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let best = (0..KEYWORD_PASSES).map(|p| keyword_ms[p * queries.len() + i]).fold(f64::INFINITY, f64::min);
            (best, q)
        })
        .collect();
    slowest.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (ms, q) in slowest.iter().take(3) {
        eprintln!("  search {n}: keyword {ms:.2} ms (best of {KEYWORD_PASSES} passes) for {q:?}");
    }

    let hybrid_ms = hybrid_latencies(&*store, &scope, queries, &query_vectors[1..]).await?;
    eprintln!(
        "  search {n}: semantic p99 {:.2} ms, floor p99 {:.2} ms, keyword p99 {:.2} ms (first {keyword_cold_ms:.0} ms), \
         hybrid p99 {:.2} ms, recall {recall:.3}",
        percentile(&semantic_ms, 99.0),
        percentile(&floor_ms, 99.0),
        percentile(&keyword_ms, 99.0),
        percentile(&hybrid_ms, 99.0)
    );
    drop(store);
    tokio::time::timeout(Duration::from_secs(10), running.stop()).await.ok();
    Ok(Measured {
        chunks: n,
        index_secs,
        cold_ms,
        semantic_ms,
        naive_ms,
        floor_ms,
        recall,
        keyword_cold_ms,
        keyword_mib,
        keyword_ms,
        keyword_hits,
        hybrid_ms,
    })
}

type BoxErr = crate::BoxError;

/// The seed of the chunks and questions (per size: `BENCH_SEED + n`), shared with the pgvector
/// row so that both indexes get the same texts, vectors and questions.
pub(crate) const BENCH_SEED: u64 = 0x5EA2C4;

/// The chunks a bench writes, and its own copy of their vectors and ids (what the baselines scan
/// and what recall is counted against).
pub(crate) struct BenchChunks {
    pub matrix: Vec<f32>,
    pub ids: Vec<String>,
}

impl BenchChunks {
    pub(crate) fn with_capacity(n: usize) -> Self {
        BenchChunks { matrix: Vec::with_capacity(n * DIMS), ids: Vec::with_capacity(n) }
    }

    /// `count` chunks of `source`: prose from the corpus, seeded random unit vectors.
    pub(crate) fn for_source(
        &mut self,
        rng: &mut Rng,
        passages: &[(String, String)],
        ws: &WorkspaceId,
        owner: &SourceOwner,
        source: &SourceId,
        count: usize,
    ) -> Vec<Chunk> {
        (0..count)
            .map(|position| {
                let embedding = unit_vector(rng);
                self.matrix.extend_from_slice(&embedding);
                let id = format!("{source}:1:{position}");
                self.ids.push(id.clone());
                Chunk {
                    language: None,
                    id,
                    workspace_id: ws.clone(),
                    owner: owner.clone(),
                    source_id: source.clone(),
                    position: position as u32,
                    content: chunk_text(passages, rng),
                    content_hash: format!("{:016x}{:016x}", rng.next_u64(), rng.next_u64()),
                    url: None,
                    embedding: ChunkEmbedding { vector: embedding, token_signs: None },
                }
            })
            .collect()
    }

    pub(crate) fn row_of(&self) -> HashMap<&str, usize> {
        self.ids.iter().enumerate().map(|(i, id)| (id.as_str(), i)).collect()
    }

    /// Question vectors, each a random chunk's vector plus noise, normalised, with that chunk's
    /// row: its similarity to the question is ~0.8, a random chunk's ~0.
    pub(crate) fn questions(&self, rng: &mut Rng, count: usize) -> Vec<(usize, Vec<f32>)> {
        let rows = self.ids.len();
        (0..count)
            .map(|_| {
                let target = rng.below(rows);
                let noise = unit_vector(rng);
                let row = &self.matrix[target * DIMS..(target + 1) * DIMS];
                (target, normalise(row.iter().zip(&noise).map(|(a, b)| a + 0.7 * b).collect()))
            })
            .collect()
    }
}

/// Keyword search latencies: `KEYWORD_PASSES` passes over the questions, top 10; with the mean
/// number of hits.
pub(crate) async fn keyword_latencies(
    index: &dyn VectorIndex,
    scope: &SearchScope,
    queries: &[String],
) -> Result<(Vec<f64>, f64)> {
    let mut ms = Vec::new();
    let mut hits_total = 0usize;
    for _ in 0..KEYWORD_PASSES {
        for q in queries {
            let t = Instant::now();
            let hits = index.keyword_search(scope, q, TOP_K).await.map_err(|e| format!("{e:?}"))?;
            ms.push(t.elapsed().as_secs_f64() * 1e3);
            hits_total += hits.len();
        }
    }
    let mean_hits = hits_total as f64 / ms.len().max(1) as f64;
    Ok((ms, mean_hits))
}

/// Hybrid search latencies: per question, both rankings at once, each `FUSION_DEPTH` times
/// deeper, as the search use case runs them (the fusion itself is a few hundred additions).
pub(crate) async fn hybrid_latencies(
    index: &dyn VectorIndex,
    scope: &SearchScope,
    queries: &[String],
    vectors: &[Vec<f32>],
) -> Result<Vec<f64>> {
    let depth = TOP_K * lore_app::search::FUSION_DEPTH;
    let mut ms = Vec::new();
    for (q, v) in queries.iter().zip(vectors.iter().cycle()) {
        let t = Instant::now();
        let (semantic, keyword) =
            tokio::join!(index.semantic_search(scope, MODEL, v, depth, false), index.keyword_search(scope, q, depth));
        semantic.map_err(|e| format!("{e:?}"))?;
        keyword.map_err(|e| format!("{e:?}"))?;
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok(ms)
}

/// Dot product as a plain iterator sum (a serial chain of float additions).
pub(crate) fn dot_naive(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Dot product with 8 independent accumulators: the compiler turns it into SIMD.
fn dot_lanes(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    let tail: f32 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
}

/// Rows of the `k` best scores, best first (ties by row).
pub(crate) fn top_k(matrix: &[f32], q: &[f32], k: usize, dot: fn(&[f32], &[f32]) -> f32) -> Vec<usize> {
    let mut best: Vec<(f32, usize)> = Vec::with_capacity(k + 1);
    let mut worst = f32::NEG_INFINITY;
    for (row, v) in matrix.chunks_exact(q.len()).enumerate() {
        let s = dot(v, q);
        if best.len() < k || s > worst {
            let at = best.partition_point(|&(b, _)| b >= s);
            best.insert(at, (s, row));
            best.truncate(k);
            worst = best.last().map_or(f32::NEG_INFINITY, |b| b.0);
        }
    }
    best.into_iter().map(|(_, r)| r).collect()
}
