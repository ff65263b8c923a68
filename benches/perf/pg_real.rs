//! pgvector search at scale on real text: the chunk index of the AWS composition
//! (`lore_pgvector::PgIndex`) on the test PostgreSQL + pgvector (`LORE_BENCH_DATABASE_URL`;
//! `scripts/bench-perf.sh` starts it) with 100k chunks of one chatbot made of documentation
//! passages embedded with all-MiniLM-L6-v2, searched with 200 questions embedded by the same
//! model: semantic (HNSW, per `ef_search`, with its recall@10 against an exact scan), keyword and
//! hybrid latency. The budgets at 100k (docs/benchmarks.md): keyword and hybrid p99 ≤ 50 ms, semantic p99 ≤
//! 30 ms, recall@10 ≥ 0.95 — at the default `ef_search` (`LORE_PG_EF_SEARCH`).
//!
//! The corpus and questions are `scripts/build-scale-corpus.py`'s (`$HOME/.cache/lore/bench/
//! scale-corpus.jsonl` and `scale-queries.jsonl`, or `LORE_BENCH_SCALE_CORPUS` and the
//! `scale-queries.jsonl` beside it; `bench-perf.sh` builds them when missing). The passages are
//! embedded once with `lore_embed::MiniLmEmbedder` (calls of 64 texts, as ingestion embeds) into a
//! cache beside the corpus keyed by each passage's text and the model (see [`passage_vectors`]):
//! ~40 minutes on 2 cores the first time, seconds afterwards. The questions are embedded in each
//! run (200 texts, under a second).
//!
//! `LORE_BENCH_KEEP_CHUNKS=1` leaves the chunks in the database after the run (for `EXPLAIN`) and
//! writes the question vectors as pgvector literals (`scale-query-vectors.txt`) beside the corpus.

use crate::search::{CHUNKS_PER_SOURCE, TOP_K, dot_naive, top_k};
use crate::{Options, Result, Section, percentile, verdict};
use lore_app::ports::{Chunk, ChunkEmbedding, SearchScope, VectorIndex};
use lore_domain::id::{ChatbotId, SourceId, WorkspaceId};
use lore_domain::source::SourceOwner;
use lore_embed::minilm::{MINILM_TOKENIZER_SHA256, MINILM_WEIGHTS_SHA256};
use lore_embed::{MINILM_DIMENSIONS, MINILM_MODEL_ID, MiniLmEmbedder};
use lore_pgvector::{PgIndex, PgIndexOptions};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

const DIMS: usize = MINILM_DIMENSIONS;
/// Texts per `embed` call: the ingest pipeline's batch.
const CALL: usize = 64;
/// Sources written at once (each write is one transaction on its own connection).
const WRITERS: usize = 4;
/// `ef_search` values measured; the deployment's default (`PgIndexOptions`) is among them.
const EF_SEARCH: [usize; 5] = [40, 100, 200, 400, 800];
/// Timed passes over the questions per `ef_search` (after one untimed question).
const SEMANTIC_PASSES: usize = 2;
/// Passes over the questions for keyword search.
const KEYWORD_PASSES: usize = 3;
const TARGET_KEYWORD_P99_MS: f64 = 50.0;
const TARGET_HYBRID_P99_MS: f64 = 50.0;
const TARGET_SEMANTIC_P99_MS: f64 = 30.0;
const TARGET_RECALL: f64 = 0.95;

pub fn run(o: &Options) -> Result<Section> {
    let url = std::env::var("LORE_BENCH_DATABASE_URL").ok().filter(|u| !u.trim().is_empty()).ok_or(
        "needs LORE_BENCH_DATABASE_URL (PostgreSQL + pgvector; `bash scripts/bench-perf.sh` starts the test one)",
    )?;
    let corpus_path = corpus_path()?;
    let corpus = read_jsonl(&corpus_path, "text")?;
    let queries = read_jsonl(&corpus_path.with_file_name("scale-queries.jsonl"), "query")?;
    let n = if o.quick { 10_000 } else { 100_000 };
    if corpus.len() < n {
        return Err(format!("{} has {} passages, {n} needed", corpus_path.display(), corpus.len()).into());
    }
    let chars: Vec<usize> = corpus[..n].iter().map(|t| t.chars().count()).collect();
    let corpus_hash = hex(&Sha256::digest(std::fs::read(&corpus_path)?))[..12].to_owned();

    let embedder = MiniLmEmbedder::load(crate::embed::model_dir()?)?;
    let embedded = passage_vectors(&embedder, &corpus_path, &corpus[..n])?;
    let t = Instant::now();
    let query_vectors = embed(&embedder, &queries)?;
    let query_embed_secs = t.elapsed().as_secs_f64();
    drop(embedder);
    if std::env::var_os("LORE_BENCH_KEEP_CHUNKS").is_some() {
        let path = corpus_path.with_file_name("scale-query-vectors.txt");
        let lines: String = query_vectors
            .iter()
            .map(|v| format!("[{}]\n", v.iter().map(|x| format!("{x}")).collect::<Vec<_>>().join(",")))
            .collect();
        std::fs::write(&path, lines)?;
        eprintln!("  pg-real: question vectors in {}", path.display());
    }

    let base = PgIndexOptions::from_lookup(|k| std::env::var(k).ok())?;
    let default_ef = base.ef_search;
    let mut efs: Vec<usize> = EF_SEARCH.to_vec();
    if !efs.contains(&default_ef) {
        efs.push(default_ef);
        efs.sort_unstable();
    }
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let m = rt.block_on(async {
        let index = PgIndex::connect_with(url.trim(), base.clone()).await.map_err(|e| format!("{e:?}"))?;
        index.migrate().await.map_err(|e| format!("{e:?}"))?;
        let (db, connection) = tokio_postgres::connect(url.trim(), tokio_postgres::NoTls).await?;
        tokio::spawn(connection);
        let versions = db
            .query_one(
                "SELECT current_setting('server_version'), (SELECT extversion FROM pg_extension WHERE extname = 'vector'),
                        current_setting('shared_buffers')",
                &[],
            )
            .await?;
        let server = format!(
            "PostgreSQL {} + pgvector {}, shared_buffers {}",
            versions.get::<_, String>(0),
            versions.get::<_, Option<String>>(1).unwrap_or_default(),
            versions.get::<_, String>(2)
        );
        let mut source_ids: Vec<SourceId> = (0..n.div_ceil(CHUNKS_PER_SOURCE)).map(|_| SourceId::generate()).collect();
        source_ids.sort_by(|a, b| a.as_str().cmp(b.as_str()));
        let scope = SearchScope {
            language: None,
            workspace_id: WorkspaceId::generate(),
            owner: SourceOwner::Chatbot(ChatbotId::generate()),
            source_ids,
        };
        let measured = measure(&index, &db, &base, &efs, &scope, &corpus[..n], &embedded, &queries, &query_vectors).await;
        if std::env::var_os("LORE_BENCH_KEEP_CHUNKS").is_some() {
            eprintln!(
                "  pg-real: chunks kept: owner {} workspace {} model {MINILM_MODEL_ID}",
                scope.owner.as_str(),
                scope.workspace_id.as_str()
            );
        } else {
            // The shared test database keeps nothing of the run, whatever its outcome.
            index.delete_owner_chunks(&scope.owner).await.map_err(|e| format!("{e:?}"))?;
        }
        measured.map(|m| (m, server))
    });
    let (m, server) = m?;

    let mut md = String::new();
    md.push_str("### pgvector search at scale on real text\n\n");
    let mean_chars = chars.iter().sum::<usize>() as f64 / n as f64;
    let _ = write!(
        md,
        "The chunk index of the AWS composition (`lore_pgvector::PgIndex`) on the test server of `scripts/postgres.sh` \
         ({server}, on the bench's cores, over loopback), {n} chunks of one chatbot: the passages of \
         `scripts/build-scale-corpus.py` (the Rust toolchain's HTML docs — books, std API docs, release notes — then the \
         doc comments and READMEs of the crates in Cargo.lock; corpus SHA-256 {corpus_hash}…; {mean_chars:.0} \
         characters a passage on average, {:.0}–{:.0} at p10–p90), embedded with all-MiniLM-L6-v2 (`lore_embed::MiniLmEmbedder`), {CHUNKS_PER_SOURCE} \
         a source, written with `replace_source_chunks` ({WRITERS} sources at a time, HNSW index and keyword postings \
         maintained), then `VACUUM ANALYZE`. Questions: the script's {} (100 from the books' headings, 100 from std's \
         method names, fixed by rule before any measurement), embedded by the same model; calls to the index itself, one \
         at a time, top {TOP_K}. Semantic: {SEMANTIC_PASSES} passes over the questions per `ef_search` (the \
         deployment's `LORE_PG_EF_SEARCH`, default {}), the first question of each setting untimed; above \
         {} candidates the adapter takes the HNSW path (`LORE_PG_EXACT_LIMIT`). Recall@10 = |top 10 ∩ exact top 10| / \
         10, the exact top 10 by a scan of the same vectors in the bench; mean over questions (and the worst \
         question). Keyword: BM25 over the postings, {KEYWORD_PASSES} passes. Hybrid: both rankings at depth {} at \
         once, as the search use case runs them. Targets: semantic p99 ≤ {TARGET_SEMANTIC_P99_MS} ms with \
         recall@10 ≥ {TARGET_RECALL} at the default `ef_search`, keyword and hybrid p99 ≤ {TARGET_KEYWORD_P99_MS} ms.\n\n",
        percentile(&chars.iter().map(|&c| c as f64).collect::<Vec<_>>(), 10.0),
        percentile(&chars.iter().map(|&c| c as f64).collect::<Vec<_>>(), 90.0),
        queries.len(),
        PgIndexOptions::default().ef_search,
        base.exact_limit,
        TOP_K * lore_app::search::FUSION_DEPTH,
    );
    md.push_str("| search | p50 ms | p99 ms | recall@10 mean (worst) | target |\n|---|---:|---:|---:|---|\n");
    let mut met = Vec::new();
    let path = if n > base.exact_limit { "HNSW" } else { "exact" };
    for s in &m.semantic {
        let p99 = percentile(&s.ms, 99.0);
        let default = s.ef == default_ef;
        let ok = p99 <= TARGET_SEMANTIC_P99_MS && s.recall >= TARGET_RECALL;
        let _ = writeln!(
            md,
            "| semantic ({path}, `ef_search` {}{}) | {:.2} | {:.2} | {:.3} ({:.1}) | {} |",
            s.ef,
            if default { ", default" } else { "" },
            percentile(&s.ms, 50.0),
            p99,
            s.recall,
            s.worst,
            if default { verdict(ok) } else { "–" }
        );
        if default {
            met.push((
                format!(
                    "pgvector semantic p99 ≤ {TARGET_SEMANTIC_P99_MS} ms and recall@10 ≥ {TARGET_RECALL}, {n} real chunks"
                ),
                ok,
            ));
        }
    }
    let _ = writeln!(
        md,
        "| semantic (exact scan, for reference) | {:.2} | {:.2} | {:.3} ({:.1}) | – |",
        percentile(&m.exact.ms, 50.0),
        percentile(&m.exact.ms, 99.0),
        m.exact.recall,
        m.exact.worst
    );
    let kw_p99 = percentile(&m.keyword_ms, 99.0);
    let kw_ok = kw_p99 <= TARGET_KEYWORD_P99_MS;
    let _ = writeln!(
        md,
        "| keyword (BM25) | {:.2} | {:.2} | – | {} |",
        percentile(&m.keyword_ms, 50.0),
        kw_p99,
        verdict(kw_ok)
    );
    met.push((format!("pgvector keyword p99 ≤ {TARGET_KEYWORD_P99_MS} ms, {n} real chunks"), kw_ok));
    for (ef, ms) in &m.hybrid {
        let p99 = percentile(ms, 99.0);
        let default = *ef == default_ef;
        let ok = p99 <= TARGET_HYBRID_P99_MS;
        let _ = writeln!(
            md,
            "| hybrid (depth {}, `ef_search` {ef}{}) | {:.2} | {:.2} | – | {} |",
            TOP_K * lore_app::search::FUSION_DEPTH,
            if default { ", default" } else { "" },
            percentile(ms, 50.0),
            p99,
            if default { verdict(ok) } else { "–" }
        );
        if default {
            met.push((format!("pgvector hybrid p99 ≤ {TARGET_HYBRID_P99_MS} ms, {n} real chunks"), ok));
        }
    }
    md.push('\n');
    let _ = writeln!(
        md,
        "- Written in {:.1} s ({:.0} chunks/s with the HNSW index and the postings maintained; `VACUUM ANALYZE` {:.1} s \
         of it); first semantic query {:.0} ms, first keyword query {:.0} ms; keyword queries returned {:.1} hits on \
         average.",
        m.write_secs,
        n as f64 / m.write_secs,
        m.vacuum_secs,
        m.first_semantic_ms,
        m.first_keyword_ms,
        m.keyword_hits
    );
    let _ = writeln!(
        md,
        "- Exact neighbours of the questions: similarity of the 1st {:.3}, of the 10th {:.3}, of the 11th {:.3} (means); \
         the 10th and 11th are within 0.01 for {:.0} % of the questions.",
        m.sim1,
        m.sim10,
        m.sim11,
        m.close_gaps * 100.0
    );
    let _ = writeln!(
        md,
        "- Embedding with all-MiniLM-L6-v2 (calls of {CALL}, {} cores): {:.1} passages/s ({} passages in {:.0} s, \
         over the runs that filled the vector cache; {} embedded in this one); the {} questions in {:.1} s.",
        crate::cores(),
        embedded.count as f64 / embedded.secs.max(1e-9),
        embedded.count,
        embedded.secs,
        embedded.now,
        queries.len(),
        query_embed_secs
    );
    Ok(Section { markdown: md, met })
}

/// The corpus file: `LORE_BENCH_SCALE_CORPUS`, else `$HOME/.cache/lore/bench/scale-corpus.jsonl`.
fn corpus_path() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("LORE_BENCH_SCALE_CORPUS") {
        return Ok(PathBuf::from(p));
    }
    let home = std::env::var_os("HOME").ok_or("HOME is not set")?;
    Ok(PathBuf::from(home).join(".cache/lore/bench/scale-corpus.jsonl"))
}

/// The `field` of every line of a JSONL file.
fn read_jsonl(path: &Path, field: &str) -> Result<Vec<String>> {
    let raw = std::fs::read_to_string(path).map_err(|e| {
        format!("{}: {e} (build it with `python3 scripts/build-scale-corpus.py`; bench-perf.sh does)", path.display())
    })?;
    let mut out = Vec::new();
    for line in raw.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line)?;
        out.push(v[field].as_str().ok_or_else(|| format!("{}: a line without {field:?}", path.display()))?.to_owned());
    }
    Ok(out)
}

fn embed(embedder: &MiniLmEmbedder, texts: &[String]) -> Result<Vec<Vec<f32>>> {
    let mut out = Vec::with_capacity(texts.len());
    for call in texts.chunks(CALL) {
        let refs: Vec<&str> = call.iter().map(String::as_str).collect();
        out.extend(embedder.embed_blocking(&refs)?);
    }
    Ok(out)
}

/// The passages' vectors (`n × DIMS` floats, in corpus order), from the cache, embedding what it
/// lacks.
struct Embedded {
    matrix: Vec<f32>,
    /// Passages embedded into the cache so far (all runs), and the seconds that took.
    count: usize,
    secs: f64,
    /// Passages embedded in this run.
    now: usize,
}

/// The vector cache: records of the first 16 bytes of the SHA-256 of a passage's text and its
/// vector (DIMS f32, little-endian), appended as passages are embedded, in
/// `scale-vectors-<model>.bin` beside the corpus (`<model>`: a hash of the model's id, weights and
/// tokenizer). Keyed by text, so a rebuilt corpus re-embeds only its new passages, and an
/// interrupted embedding resumes where it stopped.
fn passage_vectors(embedder: &MiniLmEmbedder, corpus_path: &Path, texts: &[String]) -> Result<Embedded> {
    const RECORD: usize = 16 + DIMS * 4;
    let model_hash =
        hex(&Sha256::digest(format!("{MINILM_MODEL_ID} {MINILM_WEIGHTS_SHA256} {MINILM_TOKENIZER_SHA256}")))[..12]
            .to_owned();
    let store = corpus_path.with_file_name(format!("scale-vectors-{model_hash}.bin"));
    let stats = store.with_extension("json");
    let key = |text: &str| -> [u8; 16] { Sha256::digest(text.as_bytes())[..16].try_into().expect("16 bytes") };
    let mut bytes = std::fs::read(&store).unwrap_or_default();
    bytes.truncate(bytes.len() / RECORD * RECORD);
    let mut at: HashMap<[u8; 16], usize> = HashMap::new();
    for (i, record) in bytes.chunks_exact(RECORD).enumerate() {
        at.insert(record[..16].try_into().expect("16 bytes"), i);
    }
    let (mut count, mut secs) = std::fs::read_to_string(&stats)
        .ok()
        .and_then(|s| serde_json::from_str::<Value>(&s).ok())
        .map_or((0, 0.0), |v| (v["passages"].as_u64().unwrap_or(0) as usize, v["seconds"].as_f64().unwrap_or(0.0)));

    let mut missing: Vec<usize> = Vec::new();
    let mut queued = std::collections::HashSet::new();
    for (i, t) in texts.iter().enumerate() {
        let k = key(t);
        if !at.contains_key(&k) && queued.insert(k) {
            missing.push(i);
        }
    }
    if !missing.is_empty() {
        eprintln!(
            "  pg-real: embedding {} of the {} passages into {} (resumable) …",
            missing.len(),
            texts.len(),
            store.display()
        );
        let mut file = std::fs::OpenOptions::new().create(true).append(true).open(&store)?;
        file.set_len(bytes.len() as u64)?;
        let started = Instant::now();
        let mut last_report = Instant::now();
        for (done, batch) in missing.chunks(CALL * 8).enumerate() {
            let t = Instant::now();
            let batch_texts: Vec<String> = batch.iter().map(|&i| texts[i].clone()).collect();
            let vectors = embed(embedder, &batch_texts)?;
            let mut out = Vec::with_capacity(batch.len() * RECORD);
            for (&i, v) in batch.iter().zip(&vectors) {
                if v.len() != DIMS {
                    return Err(format!("the embedder gave {} dimensions, not {DIMS}", v.len()).into());
                }
                let k = key(&texts[i]);
                at.insert(k, bytes.len() / RECORD + out.len() / RECORD);
                out.extend_from_slice(&k);
                v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
            }
            file.write_all(&out)?;
            bytes.extend_from_slice(&out);
            count += batch.len();
            secs += t.elapsed().as_secs_f64();
            std::fs::write(&stats, serde_json::json!({ "passages": count, "seconds": secs }).to_string())?;
            let embedded = ((done + 1) * CALL * 8).min(missing.len());
            if last_report.elapsed().as_secs() >= 60 || embedded == missing.len() {
                last_report = Instant::now();
                eprintln!(
                    "  pg-real: {embedded}/{} passages embedded ({:.1}/s)",
                    missing.len(),
                    embedded as f64 / started.elapsed().as_secs_f64()
                );
            }
        }
        file.sync_all()?;
    } else {
        eprintln!("  pg-real: passage vectors from {}", store.display());
    }
    let mut matrix = Vec::with_capacity(texts.len() * DIMS);
    for t in texts {
        let record = &bytes[at[&key(t)] * RECORD..][..RECORD];
        matrix.extend(record[16..].chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])));
    }
    Ok(Embedded { matrix, count, secs, now: missing.len() })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

struct Semantic {
    ef: usize,
    ms: Vec<f64>,
    recall: f64,
    worst: f64,
}

struct Measured {
    write_secs: f64,
    vacuum_secs: f64,
    first_semantic_ms: f64,
    semantic: Vec<Semantic>,
    exact: Semantic,
    first_keyword_ms: f64,
    keyword_ms: Vec<f64>,
    keyword_hits: f64,
    hybrid: Vec<(usize, Vec<f64>)>,
    sim1: f64,
    sim10: f64,
    sim11: f64,
    close_gaps: f64,
}

#[allow(clippy::too_many_arguments)]
async fn measure(
    index: &PgIndex,
    db: &tokio_postgres::Client,
    base: &PgIndexOptions,
    efs: &[usize],
    scope: &SearchScope,
    texts: &[String],
    embedded: &Embedded,
    queries: &[String],
    query_vectors: &[Vec<f32>],
) -> Result<Measured> {
    let matrix = &embedded.matrix;
    let n = texts.len();
    // Chunk `i` is passage `i`: source i / 100, position i % 100.
    let mut ids: Vec<String> = Vec::with_capacity(n);
    let mut batches = Vec::new();
    for (s, source) in scope.source_ids.iter().enumerate() {
        let start = s * CHUNKS_PER_SOURCE;
        let chunks: Vec<Chunk> = (start..(start + CHUNKS_PER_SOURCE).min(n))
            .map(|i| {
                let position = i - start;
                let id = format!("{source}:1:{position}");
                ids.push(id.clone());
                Chunk {
                    language: None,
                    id,
                    workspace_id: scope.workspace_id.clone(),
                    owner: scope.owner.clone(),
                    source_id: source.clone(),
                    position: position as u32,
                    content: texts[i].clone(),
                    content_hash: hex(&Sha256::digest(texts[i].as_bytes())),
                    url: None,
                    embedding: ChunkEmbedding { vector: matrix[i * DIMS..(i + 1) * DIMS].to_vec(), token_signs: None },
                }
            })
            .collect();
        batches.push((source.clone(), chunks));
    }
    let row_of: HashMap<&str, usize> = ids.iter().enumerate().map(|(i, id)| (id.as_str(), i)).collect();

    let started = Instant::now();
    let mut writing = tokio::task::JoinSet::new();
    let mut written = 0usize;
    let mut last_report = Instant::now();
    for (source, chunks) in batches {
        if writing.len() >= WRITERS {
            written += writing.join_next().await.ok_or("no writer")???;
            if last_report.elapsed().as_secs() >= 60 {
                last_report = Instant::now();
                eprintln!(
                    "  pg-real: {written}/{n} chunks written ({:.0}/s)",
                    written as f64 / started.elapsed().as_secs_f64()
                );
            }
        }
        let index = index.clone();
        writing.spawn(async move {
            let count = chunks.len();
            index
                .replace_source_chunks(&source, MINILM_MODEL_ID, chunks)
                .await
                .map(|()| count)
                .map_err(|e| crate::BoxError::from(format!("{e:?}")))
        });
    }
    while let Some(done) = writing.join_next().await {
        done??;
    }
    let t = Instant::now();
    db.batch_execute("VACUUM ANALYZE chunks, keyword_segments, keyword_postings").await?;
    let vacuum_secs = t.elapsed().as_secs_f64();
    let write_secs = started.elapsed().as_secs_f64();
    eprintln!("  pg-real {n}: written in {write_secs:.1} s ({:.0} chunks/s)", n as f64 / write_secs);

    // The exact neighbours of every question, from the bench's own copy of the vectors.
    let exact: Vec<Vec<usize>> = query_vectors.iter().map(|q| top_k(matrix, q, TOP_K + 1, dot_naive)).collect();
    let sim = |q: &[f32], row: usize| f64::from(dot_naive(&matrix[row * DIMS..(row + 1) * DIMS], q));
    let count = query_vectors.len() as f64;
    let mean =
        |f: &dyn Fn(&[f32], &[usize]) -> f64| query_vectors.iter().zip(&exact).map(|(q, e)| f(q, e)).sum::<f64>();
    let sim1 = mean(&|q, e| sim(q, e[0])) / count;
    let sim10 = mean(&|q, e| sim(q, e[TOP_K - 1])) / count;
    let sim11 = mean(&|q, e| sim(q, e[TOP_K])) / count;
    let close_gaps = mean(&|q, e| f64::from(u8::from(sim(q, e[TOP_K - 1]) - sim(q, e[TOP_K]) < 0.01))) / count;

    let t = Instant::now();
    let first = index
        .semantic_search(scope, MINILM_MODEL_ID, &query_vectors[0], TOP_K, false)
        .await
        .map_err(|e| format!("{e:?}"))?;
    let first_semantic_ms = t.elapsed().as_secs_f64() * 1e3;
    if first.len() != TOP_K {
        return Err(format!("semantic search found {} chunks, not {TOP_K}", first.len()).into());
    }

    let run_semantic = |opts: PgIndexOptions, passes: usize| {
        let index = index.with_options(opts.clone());
        let (exact, row_of) = (&exact, &row_of);
        async move {
            index
                .semantic_search(scope, MINILM_MODEL_ID, &query_vectors[0], TOP_K, false)
                .await
                .map_err(|e| format!("{e:?}"))?;
            let mut ms = Vec::new();
            let mut recalls = Vec::new();
            for pass in 0..passes {
                for (q, e) in query_vectors.iter().zip(exact) {
                    let t = Instant::now();
                    let hits = index
                        .semantic_search(scope, MINILM_MODEL_ID, q, TOP_K, false)
                        .await
                        .map_err(|e| format!("{e:?}"))?;
                    ms.push(t.elapsed().as_secs_f64() * 1e3);
                    if pass == 0 {
                        let rows: Vec<usize> =
                            hits.iter().filter_map(|h| row_of.get(h.chunk_id.as_str()).copied()).collect();
                        recalls.push(rows.iter().filter(|r| e[..TOP_K].contains(r)).count() as f64 / TOP_K as f64);
                    }
                }
            }
            let recall = recalls.iter().sum::<f64>() / recalls.len() as f64;
            let worst = recalls.iter().copied().fold(f64::INFINITY, f64::min);
            Result::Ok(Semantic { ef: opts.ef_search, ms, recall, worst })
        }
    };
    let mut semantic = Vec::new();
    for &ef in efs {
        let s = run_semantic(PgIndexOptions { ef_search: ef, ..base.clone() }, SEMANTIC_PASSES).await?;
        eprintln!(
            "  pg-real {n}: semantic ef_search {ef}: p50 {:.2} ms, p99 {:.2} ms, recall@10 {:.3} (worst {:.1})",
            percentile(&s.ms, 50.0),
            percentile(&s.ms, 99.0),
            s.recall,
            s.worst
        );
        semantic.push(s);
    }
    let exact_scan = run_semantic(PgIndexOptions { exact_limit: 1_000_000_000, ..base.clone() }, 1).await?;
    eprintln!(
        "  pg-real {n}: semantic exact scan: p50 {:.2} ms, p99 {:.2} ms, recall@10 {:.3}",
        percentile(&exact_scan.ms, 50.0),
        percentile(&exact_scan.ms, 99.0),
        exact_scan.recall
    );

    let t = Instant::now();
    index.keyword_search(scope, &queries[0], TOP_K).await.map_err(|e| format!("{e:?}"))?;
    let first_keyword_ms = t.elapsed().as_secs_f64() * 1e3;
    let mut keyword_ms = Vec::new();
    let mut hits_total = 0usize;
    for _ in 0..KEYWORD_PASSES {
        for q in queries {
            let t = Instant::now();
            let hits = index.keyword_search(scope, q, TOP_K).await.map_err(|e| format!("{e:?}"))?;
            keyword_ms.push(t.elapsed().as_secs_f64() * 1e3);
            hits_total += hits.len();
        }
    }
    let keyword_hits = hits_total as f64 / keyword_ms.len() as f64;
    eprintln!(
        "  pg-real {n}: keyword p50 {:.2} ms, p99 {:.2} ms",
        percentile(&keyword_ms, 50.0),
        percentile(&keyword_ms, 99.0)
    );

    let depth = TOP_K * lore_app::search::FUSION_DEPTH;
    let mut hybrid = Vec::new();
    for &ef in efs {
        let index = index.with_options(PgIndexOptions { ef_search: ef, ..base.clone() });
        let mut ms = Vec::new();
        for (q, v) in queries.iter().zip(query_vectors) {
            let t = Instant::now();
            let (semantic, keyword) = tokio::join!(
                index.semantic_search(scope, MINILM_MODEL_ID, v, depth, false),
                index.keyword_search(scope, q, depth)
            );
            semantic.map_err(|e| format!("{e:?}"))?;
            keyword.map_err(|e| format!("{e:?}"))?;
            ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
        eprintln!(
            "  pg-real {n}: hybrid ef_search {ef}: p50 {:.2} ms, p99 {:.2} ms",
            percentile(&ms, 50.0),
            percentile(&ms, 99.0)
        );
        hybrid.push((ef, ms));
    }
    Ok(Measured {
        write_secs,
        vacuum_secs,
        first_semantic_ms,
        semantic,
        exact: exact_scan,
        first_keyword_ms,
        keyword_ms,
        keyword_hits,
        hybrid,
        sim1,
        sim10,
        sim11,
        close_gaps,
    })
}
