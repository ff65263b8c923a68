//! The pgvector index against a real PostgreSQL 16 + pgvector: the conformance suites the embedded
//! index runs, exact search under selective filters, and atomic replaces.
//!
//! The database is found through `LORE_TEST_DATABASE_URL` (e.g.
//! `postgres://postgres@127.0.0.1:5432/lore_test`). `bash scripts/postgres.sh start` starts one
//! and prints its URL; `scripts/test.sh` does that and exports the variable. Without it these
//! tests fail: they never pass silently.

use lore_app::conformance::{self, Stores};
use lore_app::ports::{Chunk, ChunkChange, ChunkEmbedding, ChunkRewrite, SearchScope, VectorIndex};
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
            language: Some(lore_domain::language::Language::English),
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

    let scope_b = SearchScope {
        workspace_id: ws.clone(),
        owner: bot_b.clone(),
        source_ids: vec![b1.clone(), b2.clone()],
        language: None,
    };
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
    let scope_a =
        SearchScope { workspace_id: ws.clone(), owner: bot_a.clone(), source_ids: big.clone(), language: None };
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

/// The retrieval benchmark's passages as chunks of seven sources of one owner (with seeded random
/// 384-dimensional unit vectors, in three chunk languages), and its 90 questions.
fn retrieval_corpus(
    ws: &WorkspaceId,
    owner: &SourceOwner,
    sources: Vec<SourceId>,
) -> (Vec<SourceId>, Vec<Vec<Chunk>>, Vec<String>) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../benches/retrieval");
    let read = |f: &str| std::fs::read_to_string(format!("{root}/{f}")).unwrap();
    let field = |line: &str, name: &str| -> String {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        v[name].as_str().unwrap().to_owned()
    };
    let mut per_source: Vec<Vec<Chunk>> = vec![Vec::new(); sources.len()];
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    for (i, line) in read("corpus.jsonl").lines().enumerate() {
        let s = i % sources.len();
        let position = per_source[s].len() as u32;
        per_source[s].push(Chunk {
            id: format!("{}:1:{position}", sources[s]),
            workspace_id: ws.clone(),
            owner: owner.clone(),
            source_id: sources[s].clone(),
            position,
            content: field(line, "text"),
            content_hash: format!("h{i}"),
            url: None,
            // Three languages, so that questions are folded three ways and each chunk counts
            // only its own language's terms (the passages are English: the rule is what is compared).
            language: match i % 6 {
                0 => None,
                1 => Some(lore_domain::language::Language::French),
                _ => Some(lore_domain::language::Language::English),
            },
            embedding: ChunkEmbedding { vector: rng.unit(DIMS), token_signs: None },
        });
    }
    let questions = read("queries.jsonl").lines().map(|l| field(l, "query")).collect();
    (sources, per_source, questions)
}

/// Search on PostgreSQL ranks as the embedded index ranks, so a knowledge base answers alike on
/// both backends (hybrid search and answers fuse these two rankings with the same code). Keyword:
/// for every question of the retrieval benchmark over its ~1,000 passages, the same chunks in the
/// same order with the same BM25 scores — over all of the owner's sources, over two of them
/// (statistics still the owner's), and after chunks are disabled and edited. Semantic: the same
/// top 10 and cosine scores for 30 query vectors.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rankings_are_the_embedded_indexs() {
    let pg = index().await;
    let dir = tempfile::tempdir().unwrap();
    let embedded = Arc::new(lore_local::SqliteStore::open(&dir.path().join("records.db")).expect("sqlite"));
    // The embedded index keeps chunks of known sources only: make them in its records.
    let records = stores(pg.clone(), dir.path());
    let records =
        Stores { sources: embedded.clone(), workspaces: embedded.clone(), chatbots: embedded.clone(), ..records };
    let (_, bot) = conformance::chatbot_in_new_workspace(&records, "parity").await;
    let mut ids = Vec::new();
    for i in 0..7 {
        let source = conformance::text_source(&bot, "passages", i);
        records.sources.insert_source(&source, &conformance::quota(u64::MAX)).await.unwrap();
        ids.push(source.id);
    }
    let (ws, owner) = (bot.workspace_id.clone(), SourceOwner::Chatbot(bot.id.clone()));
    let (sources, per_source, questions) = retrieval_corpus(&ws, &owner, ids);
    assert!(questions.len() == 90 && per_source.iter().map(Vec::len).sum::<usize>() > 900);
    for (s, chunks) in sources.iter().zip(&per_source) {
        pg.replace_source_chunks(s, "m", chunks.clone()).await.unwrap();
        embedded.replace_source_chunks(s, "m", chunks.clone()).await.unwrap();
    }
    let all =
        SearchScope { workspace_id: ws.clone(), owner: owner.clone(), source_ids: sources.clone(), language: None };
    let two = SearchScope { source_ids: vec![sources[1].clone(), sources[4].clone()], ..all.clone() };
    let compare = |label: &'static str| {
        let (pg, embedded, questions) = (&pg, &embedded, &questions);
        let (all, two) = (all.clone(), two.clone());
        async move {
            for scope in [&all, &two] {
                for q in questions {
                    let want = embedded.keyword_search(scope, q, 10).await.unwrap();
                    let got = pg.keyword_search(scope, q, 10).await.unwrap();
                    let ids = |hits: &[lore_app::ports::ChunkHit]| {
                        hits.iter().map(|h| (h.chunk_id.clone(), h.score)).collect::<Vec<_>>()
                    };
                    assert!(!want.is_empty(), "{label}: {q}");
                    assert_eq!(ids(&got), ids(&want), "{label}, {} sources: {q}", scope.source_ids.len());
                    assert_eq!(got[0].content, want[0].content);
                }
            }
        }
    };
    compare("as written").await;
    let mut rng = Rng(77);
    for round in 0..30 {
        let query = rng.unit(DIMS);
        for scope in [&all, &two] {
            let want = embedded.semantic_search(scope, "m", &query, 10, false).await.unwrap();
            let got = pg.semantic_search(scope, "m", &query, 10, false).await.unwrap();
            assert_eq!(want.len(), 10);
            let ids = |hits: &[lore_app::ports::ChunkHit]| hits.iter().map(|h| h.chunk_id.clone()).collect::<Vec<_>>();
            assert_eq!(ids(&got), ids(&want), "semantic, round {round}");
            assert!(
                got.iter().zip(&want).all(|(g, w)| (g.score - w.score).abs() < 1e-5),
                "semantic scores, round {round}"
            );
        }
    }
    // Disable the best chunk of the first questions, and rewrite another: both backends follow.
    let first = embedded.keyword_search(&all, &questions[0], 10).await.unwrap();
    let off = ChunkChange { text: None, enabled: Some(false) };
    for hit in &first[..2] {
        pg.update_chunk(&hit.source_id, &hit.chunk_id, &off).await.unwrap().unwrap();
        embedded.update_chunk(&hit.source_id, &hit.chunk_id, &off).await.unwrap().unwrap();
    }
    let edit = ChunkChange {
        text: Some(ChunkRewrite {
            content: "A rewritten passage about zeppelins and their hangars.".into(),
            content_hash: "edited".into(),
            model: "m".into(),
            language: Some(lore_domain::language::Language::English),
            embedding: ChunkEmbedding { vector: Rng(5).unit(DIMS), token_signs: None },
        }),
        enabled: None,
    };
    pg.update_chunk(&first[3].source_id, &first[3].chunk_id, &edit).await.unwrap().unwrap();
    embedded.update_chunk(&first[3].source_id, &first[3].chunk_id, &edit).await.unwrap().unwrap();
    compare("after disabling and editing").await;
    let zeppelin = pg.keyword_search(&all, "zeppelin hangars", 10).await.unwrap();
    assert_eq!(zeppelin.first().map(|h| h.chunk_id.as_str()), Some(first[3].chunk_id.as_str()));
    assert!(pg.keyword_search(&all, &questions[0], 10).await.unwrap().iter().all(|h| h.chunk_id != first[0].chunk_id));
    // Deleting a source and then the owner leaves no postings behind.
    pg.delete_source_chunks(&sources[0]).await.unwrap();
    embedded.delete_source_chunks(&sources[0]).await.unwrap();
    compare("after deleting a source").await;
    pg.delete_owner_chunks(&owner).await.unwrap();
    let (db, connection) = tokio_postgres::connect(&database_url(), tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    let left =
        db.query_one("SELECT count(*) FROM keyword_postings WHERE owner_id = $1", &[&owner.as_str()]).await.unwrap();
    assert_eq!(left.get::<_, i64>(0), 0, "the owner's postings are gone with it");
}

/// Sources written before the keyword tables existed are on the backlog: keyword search does not
/// find them until `build_keyword_backlog` has run, which builds each once, and a source written
/// meanwhile is taken off the list by its write.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_keyword_backlog_builds_sources_written_before() {
    let pg = index().await;
    let ws = WorkspaceId::generate();
    let owner = SourceOwner::Mind(MindId::generate());
    let (sources, mut per_source, _) = retrieval_corpus(&ws, &owner, (0..7).map(|_| SourceId::generate()).collect());
    // The build detects the language of a chunk stored without one (as ingest does, among its
    // source's chunks): give each that one here, so that the build changes no chunk's language.
    for chunks in &mut per_source {
        let detected = lore_domain::language::Language::detect_parts(chunks.iter().map(|c| c.content.as_str()));
        for (chunk, language) in chunks.iter_mut().zip(detected) {
            chunk.language = chunk.language.or(language);
        }
    }
    for (s, chunks) in sources.iter().zip(&per_source).take(3) {
        pg.replace_source_chunks(s, "m", chunks.clone()).await.unwrap();
    }
    let scope = SearchScope {
        workspace_id: ws.clone(),
        owner: owner.clone(),
        source_ids: sources[..3].to_vec(),
        language: None,
    };
    let question = "How do I pause my program for a few seconds?";
    let before = pg.keyword_search(&scope, question, 10).await.unwrap();
    assert!(!before.is_empty());
    // As the migration leaves an index written before it: chunks, no postings, on the backlog.
    let (db, connection) = tokio_postgres::connect(&database_url(), tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    let ids: Vec<&str> = sources[..3].iter().map(|s| s.as_str()).collect();
    db.execute("DELETE FROM keyword_segments WHERE source_id = ANY($1)", &[&ids]).await.unwrap();
    db.execute("INSERT INTO keyword_backlog SELECT unnest($1::text[])", &[&ids]).await.unwrap();
    assert!(pg.keyword_search(&scope, question, 10).await.unwrap().is_empty(), "not built yet");
    // A write of one source builds that one and takes it off the list.
    pg.replace_source_chunks(&sources[2], "m", per_source[2].clone()).await.unwrap();
    let count = db
        .query_one("SELECT count(*) FROM keyword_backlog WHERE source_id = ANY($1)", &[&ids])
        .await
        .unwrap()
        .get::<_, i64>(0);
    assert_eq!(count, 2);
    assert!(pg.build_keyword_backlog().await.unwrap() >= 2);
    let count = db
        .query_one("SELECT count(*) FROM keyword_backlog WHERE source_id = ANY($1)", &[&ids])
        .await
        .unwrap()
        .get::<_, i64>(0);
    assert_eq!(count, 0);
    let after = pg.keyword_search(&scope, question, 10).await.unwrap();
    let pairs =
        |hits: &[lore_app::ports::ChunkHit]| hits.iter().map(|h| (h.chunk_id.clone(), h.score)).collect::<Vec<_>>();
    assert_eq!(pairs(&after), pairs(&before), "the same postings as a write makes");
    pg.delete_owner_chunks(&owner).await.unwrap();
}

/// While a re-embedding is under way an owner has chunks of two models: a search of the new
/// model finds all of that model's chunks (few, so scanned exactly), though the owner's chunks
/// of every model are over the exact limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_with_few_chunks_is_searched_exactly_beside_many_of_another() {
    let index = index().await.with_options(PgIndexOptions { exact_limit: 10, ..PgIndexOptions::default() });
    let ws = WorkspaceId::generate();
    let owner = SourceOwner::Chatbot(ChatbotId::generate());
    let (old, new) = (SourceId::generate(), SourceId::generate());
    let mut rng = Rng(99);
    index.replace_source_chunks(&old, "old-model", chunks(&ws, &owner, &old, 1, 40, &mut rng)).await.unwrap();
    let fresh = chunks(&ws, &owner, &new, 1, 5, &mut rng);
    index.replace_source_chunks(&new, "new-model", fresh.clone()).await.unwrap();
    let scope = SearchScope { workspace_id: ws, owner: owner.clone(), source_ids: vec![old, new], language: None };
    let query = rng.unit(DIMS);
    let got = index.semantic_search(&scope, "new-model", &query, 10, false).await.unwrap();
    let want = brute_force(&fresh, &query, 10);
    assert_eq!(
        got.iter().map(|h| h.chunk_id.clone()).collect::<Vec<_>>(),
        want.into_iter().map(|w| w.0).collect::<Vec<_>>(),
        "every chunk of the new model, exact order"
    );
    index.delete_owner_chunks(&owner).await.unwrap();
}
