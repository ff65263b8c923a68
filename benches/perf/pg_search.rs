//! pgvector search latency: the chunk index of the AWS composition (`lore_pgvector::PgIndex`,
//! what `api-chatbots` and `api-minds` search) on the test PostgreSQL + pgvector
//! (`LORE_BENCH_DATABASE_URL`; `scripts/bench-perf.sh` starts it), at 10k and 100k chunks of one
//! chatbot. The chunks, vectors and questions are those of the embedded rows (`search.rs`),
//! written straight into the index as an ingest run does; the calls go to the index itself, one
//! at a time, over loopback. No budget of its own: the figures stand next to the embedded
//! index's, with the recall of the approximate (HNSW) path against an exact scan.

use crate::search::{
    BENCH_SEED, BenchChunks, CHUNKS_PER_SOURCE, MODEL, SEMANTIC_QUERIES, TOP_K, dot_naive, hybrid_latencies,
    keyword_latencies, keyword_queries, top_k,
};
use crate::{Options, Result, Rng, Section, percentile};
use lore_app::ports::{SearchScope, VectorIndex};
use lore_domain::id::{ChatbotId, SourceId, WorkspaceId};
use lore_domain::source::SourceOwner;
use lore_pgvector::PgIndex;
use std::fmt::Write;
use std::time::Instant;

/// Sources written at once (each write is one transaction on its own connection).
const WRITERS: usize = 4;

pub fn run(o: &Options) -> Result<Section> {
    let url = std::env::var("LORE_BENCH_DATABASE_URL").ok().filter(|u| !u.trim().is_empty()).ok_or(
        "needs LORE_BENCH_DATABASE_URL (PostgreSQL + pgvector; `bash scripts/bench-perf.sh` starts the test one)",
    )?;
    let passages = crate::corpus(o)?;
    let queries = keyword_queries(o)?;
    let sizes: &[usize] = if o.quick { &[2_000, 10_000] } else { &[10_000, 100_000] };
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let results = rt.block_on(async {
        let index = PgIndex::connect(url.trim()).await.map_err(|e| format!("{e:?}"))?;
        index.migrate().await.map_err(|e| format!("{e:?}"))?;
        let (db, connection) = tokio_postgres::connect(url.trim(), tokio_postgres::NoTls).await?;
        tokio::spawn(connection);
        let mut results = Vec::new();
        for &n in sizes {
            results.push(measure(&index, &db, n, &passages, &queries).await?);
        }
        Result::Ok(results)
    })?;

    let mut md = String::new();
    md.push_str("### pgvector search latency\n\n");
    md.push_str(
        "The chunk index of the AWS composition (`lore_pgvector::PgIndex`, what `api-chatbots` and `api-minds` \
         search), on the test PostgreSQL 16 + pgvector of `scripts/postgres.sh` over loopback, default settings \
         (exact scan up to 20,000 candidate chunks, above that the HNSW index with `ef_search` 100 and iterative \
         scan; keyword search by BM25 over the postings tables of `infra/sql/005_keywords.sql`, scored in Rust as the embedded index scores). The chunks, vectors and questions \
         of the embedded rows above, written with `replace_source_chunks` (4 sources at a time), then `VACUUM ANALYZE` \
         (what autovacuum does soon after a bulk write); calls to the index itself, one at a time (hybrid: its two rankings at once, as the search use case runs them), top 10. \
         Recall = |top 10 ∩ an exact scan's top 10| / 10, mean over the semantic queries; *planted chunk found* = \
         the share of semantic queries whose top 10 holds the chunk the query vector was made from (that chunk's \
         vector plus noise: similarity ~0.8, where the other nine of the exact top 10 are random vectors at \
         near-equal similarity ~0.15, a tie an approximate index is not built to break). No budget of its own.\n\n",
    );
    md.push_str(
        "| chunks | search | p50 ms | p99 ms | recall vs exact scan | planted chunk found |\n|---:|---|---:|---:|---:|---:|\n",
    );
    let mut notes = String::new();
    for r in &results {
        let _ = writeln!(
            md,
            "| {} | semantic ({}) | {:.2} | {:.2} | {:.3} | {:.3} |",
            r.chunks,
            if r.chunks > 20_000 { "HNSW" } else { "exact" },
            percentile(&r.semantic_ms, 50.0),
            percentile(&r.semantic_ms, 99.0),
            r.recall,
            r.planted
        );
        let _ = writeln!(
            md,
            "| {} | keyword (BM25) | {:.2} | {:.2} | – | – |",
            r.chunks,
            percentile(&r.keyword_ms, 50.0),
            percentile(&r.keyword_ms, 99.0)
        );
        let _ = writeln!(
            md,
            "| {} | hybrid (both, depth {}) | {:.2} | {:.2} | – | – |",
            r.chunks,
            TOP_K * lore_app::search::FUSION_DEPTH,
            percentile(&r.hybrid_ms, 50.0),
            percentile(&r.hybrid_ms, 99.0)
        );
        let _ = writeln!(
            notes,
            "- {} chunks: written in {:.1} s ({:.0} chunks/s, HNSW index maintained); first semantic query {:.0} ms, \
             first keyword query {:.0} ms; keyword queries returned {:.1} hits on average.",
            r.chunks,
            r.write_secs,
            r.chunks as f64 / r.write_secs,
            r.first_semantic_ms,
            r.first_keyword_ms,
            r.keyword_hits
        );
    }
    md.push('\n');
    md.push_str(&notes);
    Ok(Section { markdown: md, met: Vec::new() })
}

struct Measured {
    chunks: usize,
    write_secs: f64,
    first_semantic_ms: f64,
    semantic_ms: Vec<f64>,
    recall: f64,
    planted: f64,
    first_keyword_ms: f64,
    keyword_ms: Vec<f64>,
    keyword_hits: f64,
    hybrid_ms: Vec<f64>,
}

async fn measure(
    index: &PgIndex,
    db: &tokio_postgres::Client,
    n: usize,
    passages: &[(String, String)],
    queries: &[String],
) -> Result<Measured> {
    let mut source_ids: Vec<SourceId> = (0..n.div_ceil(CHUNKS_PER_SOURCE)).map(|_| SourceId::generate()).collect();
    source_ids.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    let scope = SearchScope {
        language: None,
        workspace_id: WorkspaceId::generate(),
        owner: SourceOwner::Chatbot(ChatbotId::generate()),
        source_ids,
    };
    let measured = measure_scope(index, db, n, &scope, passages, queries).await;
    // The shared test database keeps nothing of the run, whatever its outcome.
    index.delete_owner_chunks(&scope.owner).await.map_err(|e| format!("{e:?}"))?;
    measured
}

/// Writes `n` chunks into the sources of `scope` and times searches of it.
async fn measure_scope(
    index: &PgIndex,
    db: &tokio_postgres::Client,
    n: usize,
    scope: &SearchScope,
    passages: &[(String, String)],
    queries: &[String],
) -> Result<Measured> {
    // The same seed as the embedded rows: the same texts, vectors and questions.
    let mut rng = Rng(BENCH_SEED + n as u64);
    let mut written = BenchChunks::with_capacity(n);
    let mut left = n;
    let batches: Vec<_> = scope
        .source_ids
        .iter()
        .map(|source| {
            let count = left.min(CHUNKS_PER_SOURCE);
            left -= count;
            (source.clone(), written.for_source(&mut rng, passages, &scope.workspace_id, &scope.owner, source, count))
        })
        .collect();
    let started = Instant::now();
    let mut writing = tokio::task::JoinSet::new();
    for (source, chunks) in batches {
        if writing.len() >= WRITERS {
            writing.join_next().await.ok_or("no writer")???;
        }
        let index = index.clone();
        writing.spawn(async move {
            index
                .replace_source_chunks(&source, MODEL, chunks)
                .await
                .map_err(|e| crate::BoxError::from(format!("{e:?}")))
        });
    }
    while let Some(done) = writing.join_next().await {
        done??;
    }
    db.batch_execute("VACUUM ANALYZE chunks, keyword_segments, keyword_postings").await?;
    let write_secs = started.elapsed().as_secs_f64();
    eprintln!("  pg-search {n}: written in {write_secs:.1} s");
    let row_of = written.row_of();

    // The other nine of an exact top 10 are random vectors at near-equal similarity (~0.15): the
    // chunk a question was made from is the one an index must find.
    let (targets, query_vectors): (Vec<usize>, Vec<Vec<f32>>) =
        written.questions(&mut rng, SEMANTIC_QUERIES + 1).into_iter().unzip();

    let t = Instant::now();
    let first =
        index.semantic_search(scope, MODEL, &query_vectors[0], TOP_K, false).await.map_err(|e| format!("{e:?}"))?;
    let first_semantic_ms = t.elapsed().as_secs_f64() * 1e3;
    if first.len() != TOP_K {
        return Err(format!("semantic search found {} chunks, not {TOP_K}", first.len()).into());
    }
    let mut semantic_ms = Vec::new();
    let mut recall_sum = 0.0;
    let mut planted_found = 0usize;
    for (q, target) in query_vectors[1..].iter().zip(&targets[1..]) {
        let t = Instant::now();
        let hits = index.semantic_search(scope, MODEL, q, TOP_K, false).await.map_err(|e| format!("{e:?}"))?;
        semantic_ms.push(t.elapsed().as_secs_f64() * 1e3);
        let rows: Vec<usize> = hits.iter().filter_map(|h| row_of.get(h.chunk_id.as_str()).copied()).collect();
        let exact = top_k(&written.matrix, q, TOP_K, dot_naive);
        recall_sum += rows.iter().filter(|r| exact.contains(r)).count() as f64 / TOP_K as f64;
        planted_found += usize::from(rows.contains(target));
    }
    let recall = recall_sum / semantic_ms.len() as f64;
    let planted = planted_found as f64 / semantic_ms.len() as f64;

    let t = Instant::now();
    index.keyword_search(scope, &queries[0], TOP_K).await.map_err(|e| format!("{e:?}"))?;
    let first_keyword_ms = t.elapsed().as_secs_f64() * 1e3;
    let (keyword_ms, keyword_hits) = keyword_latencies(index, scope, queries).await?;
    let hybrid_ms = hybrid_latencies(index, scope, queries, &query_vectors[1..]).await?;
    eprintln!(
        "  pg-search {n}: semantic p99 {:.2} ms (recall {recall:.3}, planted chunk found {planted:.3}), keyword p99 {:.2} ms, hybrid p99 {:.2} ms",
        percentile(&semantic_ms, 99.0),
        percentile(&keyword_ms, 99.0),
        percentile(&hybrid_ms, 99.0)
    );
    Ok(Measured {
        chunks: n,
        write_secs,
        first_semantic_ms,
        semantic_ms,
        recall,
        planted,
        first_keyword_ms,
        keyword_ms,
        keyword_hits,
        hybrid_ms,
    })
}
