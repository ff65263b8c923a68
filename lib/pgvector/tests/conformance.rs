//! The pgvector index against a real PostgreSQL 16 + pgvector: the conformance suites the embedded
//! index runs, exact search under selective filters, and atomic replaces.
//!
//! The database is found through `LORE_TEST_DATABASE_URL` (e.g.
//! `postgres://postgres@127.0.0.1:5432/lore_test`). `bash scripts/postgres.sh start` starts one
//! and prints its URL; `scripts/test.sh` does that and exports the variable. Without it these
//! tests fail: they never pass silently.

use lore_app::conformance::Stores;
use lore_app::ports::{Chunk, ChunkEmbedding, SearchScope, VectorIndex};
use lore_domain::id::{ChatbotId, MindId, SourceId, WorkspaceId};
use lore_domain::source::SourceOwner;
use lore_pgvector::{PgIndex, PgIndexOptions};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

fn database_url() -> String {
    match std::env::var("LORE_TEST_DATABASE_URL") {
        Ok(url) if !url.trim().is_empty() => url.trim().to_owned(),
        _ => panic!(
            "LORE_TEST_DATABASE_URL is not set. The pgvector index tests run against PostgreSQL 16 + pgvector: \
             start one with `bash scripts/postgres.sh start` and export LORE_TEST_DATABASE_URL=<the URL it \
             prints> (or run `bash scripts/test.sh`, which does both)."
        ),
    }
}

async fn index() -> PgIndex {
    let index = PgIndex::connect(&database_url()).await.expect("connect to LORE_TEST_DATABASE_URL");
    index.migrate().await.expect("migrate");
    index
}

/// The suites' ports: the pgvector index, and the embedded SQLite store for every other port
/// (`Stores` names them all; the index suites use only workspaces, chatbots and sources).
/// Rate limiter and blobs: the embedded in-memory limiter and file store.
fn stores(index: PgIndex, dir: &std::path::Path) -> Stores {
    let sqlite = Arc::new(lore_local::SqliteStore::open(&dir.join("records.db")).expect("sqlite"));
    Stores {
        workspaces: sqlite.clone(),
        keys: sqlite.clone(),
        chatbots: sqlite.clone(),
        rate_limiter: Arc::new(lore_local::MemoryRateLimiter::new()),
        sources: sqlite.clone(),
        index: Arc::new(index),
        forms: sqlite.clone(),
        hooks: sqlite.clone(),
        deliveries: sqlite.clone(),
        blobs: Arc::new(lore_local::FileBlobStore::new(dir, "http://127.0.0.1:3000", b"test-key".to_vec())),
        events: sqlite,
    }
}

/// The stores of one conformance suite: a fresh records file, the shared test database.
async fn suite_stores(_suite: &str) -> (Stores, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    (stores(index().await, dir.path()), dir)
}

lore_app::conformance_tests!(suite_stores => search);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migrate_is_idempotent() {
    let index = index().await;
    index.migrate().await.unwrap();
    let (a, b) = tokio::join!(index.migrate(), index.migrate());
    a.unwrap();
    b.unwrap();
}

/// The vectors stay in the row (`003_inline_vectors.sql`): pgvector's type defaults to EXTERNAL,
/// which moved the vector of every chunk with a long text to the TOAST table, and the exact scan
/// then read each candidate's vector from there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vectors_are_stored_in_the_row() {
    index().await;
    let (db, connection) = tokio_postgres::connect(&database_url(), tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    let row = db
        .query_one(
            "SELECT attstorage::text FROM pg_attribute WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(row.get::<_, String>(0), "m", "the embedding column's storage is MAIN");
}

/// Deterministic pseudo-random unit vectors (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
    fn unit(&mut self, dims: usize) -> Vec<f32> {
        let v: Vec<f32> = (0..dims).map(|_| self.next()).collect();
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.into_iter().map(|x| x / n).collect()
    }
}

const DIMS: usize = 384;

fn chunks(ws: &WorkspaceId, owner: &SourceOwner, src: &SourceId, gen_: u32, n: u32, rng: &mut Rng) -> Vec<Chunk> {
    (0..n)
        .map(|pos| Chunk {
            id: format!("{src}:{gen_}:{pos}"),
            workspace_id: ws.clone(),
            owner: owner.clone(),
            source_id: src.clone(),
            position: pos,
            content: format!("chunk {pos} of generation {gen_}"),
            content_hash: format!("h{gen_}-{pos}"),
            url: None,
            embedding: ChunkEmbedding { vector: rng.unit(DIMS), token_signs: None },
        })
        .collect()
}

/// Brute force: chunk ids by descending dot product (ties by id), with scores.
fn brute_force(all: &[Chunk], query: &[f32], k: usize) -> Vec<(String, f32)> {
    let mut scored: Vec<(String, f32)> = all
        .iter()
        .map(|c| (c.id.clone(), c.embedding.vector.iter().zip(query).map(|(a, b)| a * b).sum::<f32>()))
        .collect();
    scored.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap().then(a.0.cmp(&b.0)));
    scored.truncate(k);
    scored
}

/// 2,000 chunks in chatbot A, 20 in Mind B, all 384-dimensional (so the HNSW index applies):
/// a search scoped to B returns exactly B's best chunks in exact order; so does one scoped to one
/// of B's sources. The approximate path (forced by `exact_limit: 0`) still honours the filters
/// and returns `k` rows.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn selective_filters_stay_exact() {
    let index = index().await;
    let ws = WorkspaceId::generate();
    let (bot_a, bot_b) = (SourceOwner::Chatbot(ChatbotId::generate()), SourceOwner::Mind(MindId::generate()));
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let big: Vec<SourceId> = (0..4).map(|_| SourceId::generate()).collect();
    for s in &big {
        index.replace_source_chunks(s, "m", chunks(&ws, &bot_a, s, 1, 500, &mut rng)).await.unwrap();
    }
    let (b1, b2) = (SourceId::generate(), SourceId::generate());
    let b1_chunks = chunks(&ws, &bot_b, &b1, 1, 12, &mut rng);
    let b2_chunks = chunks(&ws, &bot_b, &b2, 1, 8, &mut rng);
    index.replace_source_chunks(&b1, "m", b1_chunks.clone()).await.unwrap();
    index.replace_source_chunks(&b2, "m", b2_chunks.clone()).await.unwrap();
    let all_b: Vec<Chunk> = b1_chunks.iter().chain(&b2_chunks).cloned().collect();

    let scope_b =
        SearchScope { workspace_id: ws.clone(), owner: bot_b.clone(), source_ids: vec![b1.clone(), b2.clone()] };
    for round in 0..10 {
        let query = rng.unit(DIMS);
        let got = index.semantic_search(&scope_b, "m", &query, 10, false).await.unwrap();
        let want = brute_force(&all_b, &query, 10);
        assert_eq!(
            got.iter().map(|h| h.chunk_id.clone()).collect::<Vec<_>>(),
            want.iter().map(|w| w.0.clone()).collect::<Vec<_>>(),
            "round {round}: B's best chunks, exact order"
        );
        for (h, w) in got.iter().zip(&want) {
            assert!((h.score - w.1).abs() < 1e-5, "exact scores: {} vs {}", h.score, w.1);
        }
        let only_b2 = SearchScope { source_ids: vec![b2.clone()], ..scope_b.clone() };
        let got = index.semantic_search(&only_b2, "m", &query, 5, false).await.unwrap();
        let want = brute_force(&b2_chunks, &query, 5);
        assert_eq!(
            got.iter().map(|h| h.chunk_id.clone()).collect::<Vec<_>>(),
            want.into_iter().map(|w| w.0).collect::<Vec<_>>(),
            "source-list filter"
        );
    }

    // The HNSW path under the same selective filter: never another owner's chunks, never short.
    let hnsw = index.with_options(PgIndexOptions { exact_limit: 0, ..PgIndexOptions::default() });
    let query = rng.unit(DIMS);
    let got = hnsw.semantic_search(&scope_b, "m", &query, 10, false).await.unwrap();
    assert_eq!(got.len(), 10, "iterative scan fills k under a selective filter");
    assert!(got.iter().all(|h| h.source_id == b1 || h.source_id == b2));
    assert!(got.windows(2).all(|w| w[0].score >= w[1].score), "best first");
    // Over the big chatbot, HNSW recall against brute force (reported; must be high).
    let scope_a = SearchScope { workspace_id: ws.clone(), owner: bot_a.clone(), source_ids: big.clone() };
    let exact = index.semantic_search(&scope_a, "m", &query, 10, false).await.unwrap();
    let approx = hnsw.semantic_search(&scope_a, "m", &query, 10, false).await.unwrap();
    let overlap = approx.iter().filter(|h| exact.iter().any(|e| e.chunk_id == h.chunk_id)).count();
    eprintln!("HNSW recall@10 over 2,000 chunks: {overlap}/10");
    assert!(overlap >= 8, "HNSW recall@10 {overlap}/10");

    assert_eq!(index.delete_owner_chunks(&bot_a).await.unwrap(), 2000);
    assert_eq!(index.delete_owner_chunks(&bot_b).await.unwrap(), 20);
}

/// Replacing a source's chunks is atomic: a concurrent reader counts either the old or the new
/// number of chunks, never a mix (nor zero in between).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn replace_is_atomic_for_readers() {
    let index = index().await;
    let ws = WorkspaceId::generate();
    let bot = SourceOwner::Chatbot(ChatbotId::generate());
    let src = SourceId::generate();
    let mut rng = Rng(42);
    let (old_n, new_n) = (30u32, 17u32);
    let old = chunks(&ws, &bot, &src, 1, old_n, &mut rng);
    let new = chunks(&ws, &bot, &src, 2, new_n, &mut rng);
    index.replace_source_chunks(&src, "m", old.clone()).await.unwrap();

    let done = Arc::new(AtomicBool::new(false));
    let reader = {
        let (index, src, done) = (index.clone(), src.clone(), done.clone());
        tokio::spawn(async move {
            let mut seen = 0u32;
            while !done.load(Ordering::Relaxed) {
                let n = index.count_source_chunks(&src).await.unwrap();
                assert!(n == old_n as u64 || n == new_n as u64, "a reader saw {n} chunks: a mix of old and new");
                seen += 1;
            }
            seen
        })
    };
    for i in 0..40 {
        let next = if i % 2 == 0 { new.clone() } else { old.clone() };
        index.replace_source_chunks(&src, "m", next).await.unwrap();
    }
    // Concurrent writers of one source are serialised too.
    let (a, b) = tokio::join!(
        index.replace_source_chunks(&src, "m", new.clone()),
        index.replace_source_chunks(&src, "m", old.clone())
    );
    a.unwrap();
    b.unwrap();
    done.store(true, Ordering::Relaxed);
    let reads = reader.await.expect("reader saw only whole generations");
    assert!(reads > 0);
    assert!(matches!(index.count_source_chunks(&src).await.unwrap(), n if n == old_n as u64 || n == new_n as u64));
    assert!(index.delete_source_chunks(&src).await.unwrap() > 0);
    assert_eq!(index.count_source_chunks(&src).await.unwrap(), 0);
}
