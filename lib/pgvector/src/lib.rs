//! The chunk index (`VectorIndex`) on PostgreSQL + pgvector, for deployments that outgrow the
//! embedded SQLite index. Same semantics as the embedded index (lib/local/src/search.rs): the
//! conformance suites `chunk_index` and `index_search` run against both.
//!
//! Schema: `infra/sql/*.sql`, applied by [`PgIndex::migrate`] (see `001_chunks.sql` for the
//! table, the full-text column and the HNSW indexes: m = 16, ef_construction = 64, one partial
//! expression index per supported dimension, inner-product operator class).
//!
//! # Semantic search: exact where it matters, HNSW where it must
//!
//! A search is scoped to one owner (a chatbot or a Mind), one model and a list of sources. The
//! adapter first counts the scope's enabled chunks (of every model) from the keyword segments'
//! per-segment counts (`infra/sql/005_keywords.sql`), a read of one small index entry per 256
//! chunk positions; only when that is over the exact limit and the owner also has chunks of
//! another model (a re-embedding under way) are this model's rows counted, bounded.
//!
//! # Owners
//!
//! A chunk belongs to its source's owner. The `chatbot_id` column predates Mind sources: it holds
//! the owner's prefixed id (`cb_…` or `mind_…`, [`SourceOwner::as_str`]), so a chatbot's and a
//! Mind's chunks never mix and existing rows stay valid without a migration.
//!
//! * At most `exact_limit` candidates (default 20,000 — every chatbot of a normal size): an
//!   **exact** filtered scan ordered by `embedding <#> query`. The HNSW index is not used (its
//!   expression is not in the query), so selective filters (a small chatbot next to a huge one,
//!   a short source list) can never lose results: the ranking and the scores are exact, exactly
//!   what the embedded index returns.
//! * More candidates, and a dimension that has an HNSW index: the **HNSW** index, with
//!   `hnsw.iterative_scan = relaxed_order` (pgvector ≥ 0.8) so that the filters (chatbot, model,
//!   source list) are applied while the graph scan continues until `k` rows pass them — a
//!   selective filter cannot starve the result — and `hnsw.ef_search = max(ef_search, k)`
//!   (default 100). The rows found are then re-sorted by their exact distance. This path is
//!   approximate (recall < 1 is possible, as with any ANN index); it is only taken when an exact
//!   scan would read more than `exact_limit` vectors.
//!
//! Scores are inner products (`-(embedding <#> query)`): embedders produce unit vectors, for which
//! that is the cosine similarity — what the embedded index computes too.
//!
//! Every search query (the candidate count, both semantic paths, keyword search) reads enabled
//! chunks only (`AND enabled`): a chunk its owner disabled (docs/api.md §6, "Chunks") is never a
//! candidate, so `k` is filled from the others.
//!
//! # Writes
//!
//! `replace_source_chunks` deletes and inserts in ONE transaction (readers see the old chunks or
//! the new ones, never a mix), serialised per source by a transaction-scoped advisory lock, so
//! two concurrent replaces of one source cannot interleave either.
//!
//! # Keyword search
//!
//! BM25 over postings the adapter writes with the chunks, in the same transaction, ranked exactly
//! as the embedded index ranks (same terms, same formula, statistics over the owner's enabled
//! chunks): see [`keywords`] and `infra/sql/005_keywords.sql`.
//!
//! Connections: a small pool of `tokio-postgres` clients without TLS (`NoTls`) — fine for a
//! database on a private network or localhost; TLS is a follow-up.

mod keywords;
mod lazy;

pub use lazy::{LazyPgIndex, UrlSource};

use async_trait::async_trait;
use keywords::{Allowed, SEGMENT_SPAN, Segment, TermPostings};
use lore_app::ports::{Chunk, ChunkChange, ChunkEmbedding, ChunkHit, SearchScope, StoredChunk, VectorIndex};
use lore_app::ports::{StoreError, StoreResult};
use lore_domain::id::{SourceId, WorkspaceId};
use lore_domain::language::Language;
use lore_domain::late_interaction::TokenSigns;
use lore_domain::source::SourceOwner;
use lore_keywords::{Bm25, LanguageSet};
use pgvector::Vector;
use std::collections::HashMap;
use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex};
use tokio::sync::{Semaphore, SemaphorePermit};
use tokio_postgres::{Client, IsolationLevel, NoTls, Row, Transaction};

/// The migrations, in order: (name, SQL). Each is applied once, recorded in `lore_migrations`.
const MIGRATIONS: &[(&str, &str)] = &[
    ("001_chunks.sql", include_str!("../../../infra/sql/001_chunks.sql")),
    ("002_token_signs.sql", include_str!("../../../infra/sql/002_token_signs.sql")),
    ("003_inline_vectors.sql", include_str!("../../../infra/sql/003_inline_vectors.sql")),
    ("004_chunk_edits.sql", include_str!("../../../infra/sql/004_chunk_edits.sql")),
    ("005_keywords.sql", include_str!("../../../infra/sql/005_keywords.sql")),
    ("006_languages.sql", include_str!("../../../infra/sql/006_languages.sql")),
    ("007_chunk_languages.sql", include_str!("../../../infra/sql/007_chunk_languages.sql")),
];

/// Dimensions that have an HNSW index (see `infra/sql/001_chunks.sql`).
const INDEXED_DIMENSIONS: &[usize] = &[384, 1536];

/// Rows per INSERT statement when replacing a source's chunks.
const INSERT_BATCH: usize = 500;

/// An arbitrary constant: the advisory lock that serialises migrations.
const MIGRATION_LOCK: i64 = 0x6c6f_7265_6d69_6772;

/// Tuning of a [`PgIndex`].
#[derive(Debug, Clone)]
pub struct PgIndexOptions {
    /// Most connections open at once.
    pub max_connections: usize,
    /// Candidate sets up to this size are searched exactly (see the crate docs).
    pub exact_limit: usize,
    /// `hnsw.ef_search` of the approximate path (at least `k` is used).
    pub ef_search: usize,
}

impl Default for PgIndexOptions {
    fn default() -> Self {
        PgIndexOptions { max_connections: 16, exact_limit: 20_000, ef_search: 100 }
    }
}

impl PgIndexOptions {
    /// The deployment's tuning: `LORE_PG_EF_SEARCH` (1–1000), `LORE_PG_EXACT_LIMIT` (0 or more:
    /// candidate sets up to this size are searched exactly), `LORE_PG_MAX_CONNECTIONS` (1–1000),
    /// each defaulting as [`Default`] does. A value out of range or not a number is an error
    /// naming the variable.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<PgIndexOptions, String> {
        let d = PgIndexOptions::default();
        let read = |name: &str, default: usize, range: std::ops::RangeInclusive<usize>| match get(name) {
            None => Ok(default),
            Some(v) => match v.trim().parse::<usize>() {
                Ok(n) if range.contains(&n) => Ok(n),
                _ => Err(format!("{name}={v:?} must be a whole number from {} to {}", range.start(), range.end())),
            },
        };
        Ok(PgIndexOptions {
            max_connections: read("LORE_PG_MAX_CONNECTIONS", d.max_connections, 1..=1000)?,
            exact_limit: read("LORE_PG_EXACT_LIMIT", d.exact_limit, 0..=100_000_000)?,
            ef_search: read("LORE_PG_EF_SEARCH", d.ef_search, 1..=1000)?,
        })
    }
}

/// The pgvector chunk index.
#[derive(Clone)]
pub struct PgIndex {
    pool: Arc<Pool>,
    options: PgIndexOptions,
}

impl PgIndex {
    /// Whether a semantic search of `scope` must use HNSW: the scope has more enabled chunks of
    /// `model` than the exact scan's limit.
    async fn beyond_exact_limit(
        &self,
        tx: &Transaction<'_>,
        scope: &SearchScope,
        model: &str,
        sources: &[&str],
    ) -> StoreResult<bool> {
        let (bot, ws) = (scope.owner.as_str(), scope.workspace_id.as_str());
        // The enabled chunks of the scope, from the keyword segments' counts (one index-only read
        // per 256 positions): counting the chunk rows themselves read every candidate's 2 KB row,
        // 22 ms of a 36 ms search at 100k chunks (docs/benchmarks.md). Sources not yet built from
        // the keyword backlog count 0, which can only choose the exact scan.
        let row = tx
            .query_one(
                "SELECT coalesce(sum(chunks), 0)::int8 FROM keyword_segments
                 WHERE owner_id = $1 AND workspace_id = $2 AND source_id = ANY($3)",
                &[&bot, &ws, &sources],
            )
            .await
            .map_err(pg)?;
        let limit = self.options.exact_limit as i64;
        if row.get::<_, i64>(0) <= limit {
            return Ok(false);
        }
        // The segments count every model's chunks. While a re-embedding is under way, few of them
        // may be this model's, and HNSW under so selective a filter can stop short of k: then
        // count this model's rows, bounded, as the exact scan would read them. Two btree probes
        // tell whether the owner has chunks of another model at all.
        let mixed = tx
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM chunks WHERE chatbot_id = $1 AND model < $2)
                     OR EXISTS (SELECT 1 FROM chunks WHERE chatbot_id = $1 AND model > $2)",
                &[&bot, &model],
            )
            .await
            .map_err(pg)?
            .get::<_, bool>(0);
        if !mixed {
            return Ok(true);
        }
        let row = tx
            .query_one(
                "SELECT count(*) FROM (SELECT 1 FROM chunks
                   WHERE chatbot_id = $1 AND model = $2 AND workspace_id = $3 AND source_id = ANY($4)
                     AND enabled
                   LIMIT $5) candidates",
                &[&bot, &model, &ws, &sources, &(limit + 1)],
            )
            .await
            .map_err(pg)?;
        Ok(row.get::<_, i64>(0) > limit)
    }

    /// Connects to `url` (`postgres://user:pass@host:port/db`; production reads it from
    /// `LORE_DATABASE_URL`), checking that the server answers. Does not migrate.
    pub async fn connect(url: &str) -> StoreResult<PgIndex> {
        PgIndex::connect_with(url, PgIndexOptions::default()).await
    }

    pub async fn connect_with(url: &str, options: PgIndexOptions) -> StoreResult<PgIndex> {
        let pool = Arc::new(Pool {
            url: url.to_owned(),
            idle: Mutex::new(Vec::new()),
            permits: Semaphore::new(options.max_connections.max(1)),
        });
        drop(pool.get().await?);
        Ok(PgIndex { pool, options })
    }

    /// The same index with other tuning (shares the connection pool).
    pub fn with_options(&self, options: PgIndexOptions) -> PgIndex {
        PgIndex { pool: self.pool.clone(), options }
    }

    /// The texts of a source's chunks in document order (for operators and tests).
    pub async fn chunk_texts(&self, source: &SourceId) -> StoreResult<Vec<String>> {
        let conn = self.pool.get().await?;
        let rows = conn
            .query("SELECT content FROM chunks WHERE source_id = $1 ORDER BY position", &[&source.as_str()])
            .await
            .map_err(pg)?;
        Ok(rows.iter().map(|r| r.get::<_, String>(0)).collect())
    }

    /// Applies the migrations of `infra/sql/` not applied yet, each in its own transaction.
    /// Safe to call concurrently (an advisory lock serialises callers) and repeatedly.
    pub async fn migrate(&self) -> StoreResult<()> {
        let mut conn = self.pool.get().await?;
        // One round trip when the schema is current (every cold start of a function that uses the
        // index); the locked, per-migration path only when something is missing.
        let names: Vec<&str> = MIGRATIONS.iter().map(|(name, _)| *name).collect();
        let current = conn
            .query_one("SELECT count(*) FROM lore_migrations WHERE name = ANY($1)", &[&names])
            .await
            .is_ok_and(|row| row.get::<_, i64>(0) == names.len() as i64);
        if current {
            return Ok(());
        }
        for (name, sql) in MIGRATIONS {
            let tx = conn.transaction().await.map_err(pg)?;
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK]).await.map_err(pg)?;
            tx.batch_execute(
                "CREATE TABLE IF NOT EXISTS lore_migrations (
                     name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
            )
            .await
            .map_err(pg)?;
            let done = tx.query_opt("SELECT 1 FROM lore_migrations WHERE name = $1", &[name]).await.map_err(pg)?;
            if done.is_none() {
                tx.batch_execute(sql).await.map_err(pg)?;
                tx.execute("INSERT INTO lore_migrations (name) VALUES ($1)", &[name]).await.map_err(pg)?;
                tracing::info!(migration = name, "applied");
            }
            tx.commit().await.map_err(pg)?;
        }
        Ok(())
    }
}

impl PgIndex {
    /// Builds the keyword postings of the sources written before `005_keywords.sql` (the
    /// `keyword_backlog`), one transaction per source under its write lock; returns how many it
    /// built. Resumable: what is done is off the list, and a source written meanwhile took
    /// itself off. Until a source is built, keyword search does not find it. Also lists sources
    /// the release before wrote during a deploy (chunks, no segments) and drops segments whose
    /// chunks are gone.
    pub async fn build_keyword_backlog(&self) -> StoreResult<u64> {
        // What functions of the release before wrote while this one was being deployed: sources
        // with enabled chunks and no segments go on the list, segments of sources with no
        // chunks left go.
        let conn = self.pool.get().await?;
        conn.batch_execute(
            "INSERT INTO keyword_backlog (source_id)
               SELECT DISTINCT c.source_id FROM chunks c
               WHERE c.enabled AND NOT EXISTS (SELECT 1 FROM keyword_segments s WHERE s.source_id = c.source_id)
             ON CONFLICT DO NOTHING;
             DELETE FROM keyword_segments s WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.source_id = s.source_id);",
        )
        .await
        .map_err(pg)?;
        drop(conn);
        let mut built = 0u64;
        loop {
            let mut conn = self.pool.get().await?;
            let batch: Vec<String> = conn
                .query("SELECT source_id FROM keyword_backlog ORDER BY source_id LIMIT 64", &[])
                .await
                .map_err(pg)?
                .iter()
                .map(|r| r.get(0))
                .collect();
            if batch.is_empty() {
                return Ok(built);
            }
            for source in &batch {
                let tx = conn.transaction().await.map_err(pg)?;
                lock_source(&tx, source).await?;
                let listed =
                    tx.query_opt("SELECT 1 FROM keyword_backlog WHERE source_id = $1", &[source]).await.map_err(pg)?;
                if listed.is_some() {
                    let rows = tx
                        .query(
                            "SELECT chatbot_id, workspace_id, position, content, language, id FROM chunks
                             WHERE source_id = $1 AND enabled ORDER BY position",
                            &[source],
                        )
                        .await
                        .map_err(pg)?;
                    // Chunks written before chunks kept a language get theirs now (a chunk too
                    // short to tell takes its source's, as at ingest).
                    let unknown = rows.iter().any(|r| r.get::<_, Option<&str>>(4).is_none());
                    let detected = if unknown {
                        Language::detect_parts(rows.iter().map(|r| r.get::<_, &str>(3)))
                    } else {
                        vec![None; rows.len()]
                    };
                    let mut languages = Vec::with_capacity(rows.len());
                    for (r, detected) in rows.iter().zip(detected) {
                        let stored = r.get::<_, Option<&str>>(4).and_then(Language::from_code);
                        let language = stored.or(detected);
                        if stored.is_none()
                            && let Some(l) = language
                        {
                            tx.execute(
                                "UPDATE chunks SET language = $2 WHERE id = $1",
                                &[&r.get::<_, &str>(5), &l.code()],
                            )
                            .await
                            .map_err(pg)?;
                        }
                        languages.push(language);
                    }
                    let segments = keywords::segments(
                        rows.iter().zip(&languages).map(|(r, &l)| (r.get::<_, i32>(2).max(0) as u32, r.get(3), l)),
                    );
                    let place = rows.first().map(|r| (r.get::<_, &str>(0), r.get::<_, &str>(1)));
                    write_keywords(&tx, source, None, place, &segments).await?;
                    built += 1;
                }
                tx.commit().await.map_err(pg)?;
            }
        }
    }
}

fn pg(e: tokio_postgres::Error) -> StoreError {
    match e.as_db_error() {
        Some(db) => StoreError::Unavailable(format!("postgres: {db}")),
        None => StoreError::Unavailable(format!("postgres: {e}")),
    }
}

/// A few connections, opened on demand and reused; a closed one is dropped.
struct Pool {
    url: String,
    idle: Mutex<Vec<Client>>,
    permits: Semaphore,
}

struct Conn<'a> {
    client: Option<Client>,
    pool: &'a Pool,
    _permit: SemaphorePermit<'a>,
}

impl Pool {
    async fn get(&self) -> StoreResult<Conn<'_>> {
        let permit = self.permits.acquire().await.map_err(|e| StoreError::Unavailable(e.to_string()))?;
        let reused = {
            let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
            loop {
                match idle.pop() {
                    Some(c) if c.is_closed() => continue,
                    other => break other,
                }
            }
        };
        let client = match reused {
            Some(c) => c,
            None => {
                let (client, connection) = tokio_postgres::connect(&self.url, NoTls).await.map_err(pg)?;
                tokio::spawn(async move {
                    if let Err(e) = connection.await {
                        tracing::warn!(error = %e, "postgres connection ended");
                    }
                });
                // Searches are short queries the planner may still cost high (thousands of
                // postings rows, an exact vector scan): compiling them with LLVM, where the server
                // has JIT (RDS and Aurora do, on by default), costs more than running them.
                client.batch_execute("SET jit = off").await.map_err(pg)?;
                client
            }
        };
        Ok(Conn { client: Some(client), pool: self, _permit: permit })
    }
}

impl Deref for Conn<'_> {
    type Target = Client;
    fn deref(&self) -> &Client {
        self.client.as_ref().expect("client present until drop")
    }
}

impl DerefMut for Conn<'_> {
    fn deref_mut(&mut self) -> &mut Client {
        self.client.as_mut().expect("client present until drop")
    }
}

impl Drop for Conn<'_> {
    fn drop(&mut self) {
        // An unfinished transaction was rolled back when it was dropped (tokio-postgres queues the
        // ROLLBACK before any later statement), so the client is reusable.
        if let Some(c) = self.client.take()
            && !c.is_closed()
        {
            self.pool.idle.lock().unwrap_or_else(|p| p.into_inner()).push(c);
        }
    }
}

const HIT_COLUMNS: &str = "id, source_id, content, position, url, language";

/// A hit from a row of `HIT_COLUMNS` and its score; `None` for an unparseable source id.
fn hit(row: &Row, score: f32) -> Option<ChunkHit> {
    let source: String = row.get(1);
    Some(ChunkHit {
        chunk_id: row.get(0),
        source_id: SourceId::parse(&source)?,
        content: row.get(2),
        position: row.get::<_, i32>(3) as u32,
        url: row.get(4),
        language: row.get::<_, Option<&str>>(5).and_then(Language::from_code),
        score,
        token_signs: None,
    })
}

#[async_trait]
impl VectorIndex for PgIndex {
    async fn semantic_search(
        &self,
        scope: &SearchScope,
        model: &str,
        query: &[f32],
        k: usize,
        with_token_signs: bool,
    ) -> StoreResult<Vec<ChunkHit>> {
        if scope.source_ids.is_empty() || k == 0 || query.is_empty() {
            return Ok(Vec::new());
        }
        let dims = query.len() as i32;
        let sources: Vec<&str> = scope.source_ids.iter().map(|s| s.as_str()).collect();
        let q = Vector::from(query.to_vec());
        let limit = k as i64;
        // `chatbot_id` holds the owner's id, a chatbot's or a Mind's (see the crate docs).
        let (bot, ws) = (scope.owner.as_str(), scope.workspace_id.as_str());
        let mut conn = self.pool.get().await?;
        let tx = conn.build_transaction().read_only(true).start().await.map_err(pg)?;

        // Kilobytes a hit, read only for late interaction.
        let signs = if with_token_signs { "token_signs" } else { "NULL::bytea" };
        // A language filter is searched exactly: HNSW under a selective filter can stop short of k.
        let indexed = INDEXED_DIMENSIONS.contains(&query.len()) && scope.language.is_none();
        let language = scope.language.map(Language::code);
        let approximate = indexed && self.beyond_exact_limit(&tx, scope, model, &sources).await?;

        let rows = if approximate {
            let ef = self.options.ef_search.max(k).clamp(1, 1000);
            tx.batch_execute(&format!(
                "SET LOCAL hnsw.ef_search = {ef}; SET LOCAL hnsw.iterative_scan = relaxed_order;"
            ))
            .await
            .map_err(pg)?;
            // `dims` is one of INDEXED_DIMENSIONS: the expression and predicate must be literal
            // to match the partial expression index.
            let sql = format!(
                "WITH found AS MATERIALIZED (
                   SELECT {HIT_COLUMNS}, (embedding::vector({dims}) <#> $5::vector({dims})) AS distance,
                          {signs} AS token_signs
                   FROM chunks
                   WHERE vector_dims(embedding) = {dims}
                     AND chatbot_id = $1 AND model = $2 AND workspace_id = $3 AND source_id = ANY($4)
                     AND enabled
                   ORDER BY embedding::vector({dims}) <#> $5::vector({dims})
                   LIMIT $6)
                 SELECT {HIT_COLUMNS}, distance, token_signs FROM found ORDER BY distance, id"
            );
            tx.query(&sql, &[&bot, &model, &ws, &sources, &q, &limit]).await.map_err(pg)?
        } else {
            let sql = format!(
                "SELECT {HIT_COLUMNS}, (embedding <#> $5) AS distance, {signs} AS token_signs FROM chunks
                 WHERE chatbot_id = $1 AND model = $2 AND workspace_id = $3 AND source_id = ANY($4)
                   AND vector_dims(embedding) = $6 AND enabled AND ($8::text IS NULL OR language = $8)
                 ORDER BY distance, id
                 LIMIT $7"
            );
            tx.query(&sql, &[&bot, &model, &ws, &sources, &q, &dims, &limit, &language]).await.map_err(pg)?
        };
        tx.commit().await.map_err(pg)?;
        let dims = query.len();
        let with_signs = |r: &Row| {
            let token_signs = r.get::<_, Option<Vec<u8>>>(7).and_then(|b| TokenSigns::from_bytes(b, dims));
            Some(ChunkHit { token_signs, ..hit(r, -(r.get::<_, f64>(6)) as f32)? })
        };
        Ok(rows.iter().filter_map(with_signs).collect())
    }

    async fn keyword_search(&self, scope: &SearchScope, query: &str, k: usize) -> StoreResult<Vec<ChunkHit>> {
        let words = lore_keywords::query_words(query);
        if words.is_empty() || scope.source_ids.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        let (owner, ws) = (scope.owner.as_str(), scope.workspace_id.as_str());
        let mut conn = self.pool.get().await?;
        // One snapshot for the statistics and the postings they weigh.
        let tx = conn
            .build_transaction()
            .isolation_level(IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .await
            .map_err(pg)?;
        let rows = tx
            .query(
                "SELECT id, source_id, block, span, chunks, terms, languages, chunk_languages FROM keyword_segments
                 WHERE owner_id = $1 AND workspace_id = $2",
                &[&owner, &ws],
            )
            .await
            .map_err(pg)?;
        // Sources by id, so that equal scores rank by source id, then position.
        let mut by_id: Vec<&str> = scope.source_ids.iter().map(|s| s.as_str()).collect();
        by_id.sort_unstable();
        by_id.dedup();
        let source_index: HashMap<&str, usize> = by_id.iter().enumerate().map(|(i, s)| (*s, i)).collect();
        let segments = ScopeSegments::of(&rows, &source_index);
        if segments.allowed.is_empty() || segments.chunks == 0 {
            return Ok(Vec::new());
        }
        // The question folded for every language of the scope's chunks (or the filter's alone).
        let folds = match scope.language {
            Some(l) => vec![Some(l)],
            None => segments.languages.languages(),
        };
        let terms: Vec<lore_keywords::QueryTerm> = lore_keywords::query_terms(&words, &folds)
            .into_iter()
            .map(|t| lore_keywords::QueryTerm { term: keywords::stored_term(t.term), ..t })
            .collect();
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let only = match scope.language {
            None => None,
            Some(l) => Some(places_in_language(&tx, scope, l, &source_index).await?),
        };
        let terms = term_postings(&tx, owner, terms, &segments).await?;
        let bm25 = Bm25::new(segments.chunks, segments.total_terms);
        let top = keywords::top_k(&bm25, &terms, &segments.allowed, &segments.index, only.as_ref(), k);
        if top.is_empty() {
            return Ok(Vec::new());
        }
        let places: Vec<(&str, u32, f64)> =
            top.iter().map(|&(s, position, score)| (by_id[s], position, score)).collect();
        let hits = hits_at(&tx, scope, &places).await?;
        tx.commit().await.map_err(pg)?;
        Ok(hits)
    }

    async fn replace_source_chunks(&self, source: &SourceId, model: &str, chunks: Vec<Chunk>) -> StoreResult<()> {
        // Cut into terms before the transaction, which then only writes.
        let segments = keywords::segments(chunks.iter().map(|c| (c.position, c.content.as_str(), c.language)));
        let mut conn = self.pool.get().await?;
        let tx = conn.transaction().await.map_err(pg)?;
        lock_source(&tx, source.as_str()).await?;
        tx.execute("DELETE FROM chunks WHERE source_id = $1", &[&source.as_str()]).await.map_err(pg)?;
        let insert = tx
            .prepare(
                "INSERT INTO chunks (id, workspace_id, chatbot_id, source_id, position, content, content_hash, url,
                     model, embedding, token_signs, language)
                 SELECT id, ws, bot, src, pos, content, hash, url, $9, emb::vector, signs, lang
                 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int4[], $6::text[], $7::text[],
                             $8::text[], $10::text[], $11::bytea[], $12::text[])
                      AS t(id, ws, bot, src, pos, content, hash, url, emb, signs, lang)
                 ON CONFLICT (id) DO UPDATE SET workspace_id = EXCLUDED.workspace_id,
                     chatbot_id = EXCLUDED.chatbot_id, source_id = EXCLUDED.source_id,
                     position = EXCLUDED.position, content = EXCLUDED.content,
                     content_hash = EXCLUDED.content_hash, url = EXCLUDED.url, model = EXCLUDED.model,
                     embedding = EXCLUDED.embedding, token_signs = EXCLUDED.token_signs,
                     language = EXCLUDED.language",
            )
            .await
            .map_err(pg)?;
        for batch in chunks.chunks(INSERT_BATCH) {
            let ids: Vec<&str> = batch.iter().map(|c| c.id.as_str()).collect();
            let wss: Vec<&str> = batch.iter().map(|c| c.workspace_id.as_str()).collect();
            let owners: Vec<&str> = batch.iter().map(|c| c.owner.as_str()).collect();
            let srcs: Vec<&str> = batch.iter().map(|c| c.source_id.as_str()).collect();
            let positions: Vec<i32> = batch.iter().map(|c| c.position as i32).collect();
            let contents: Vec<&str> = batch.iter().map(|c| c.content.as_str()).collect();
            let hashes: Vec<&str> = batch.iter().map(|c| c.content_hash.as_str()).collect();
            let urls: Vec<Option<&str>> = batch.iter().map(|c| c.url.as_deref()).collect();
            let embeddings: Vec<String> = batch.iter().map(|c| vector_text(&c.embedding.vector)).collect();
            let signs: Vec<Option<&[u8]>> =
                batch.iter().map(|c| c.embedding.token_signs.as_ref().map(TokenSigns::as_bytes)).collect();
            let languages: Vec<Option<&str>> = batch.iter().map(|c| c.language.map(Language::code)).collect();
            tx.execute(
                &insert,
                &[
                    &ids,
                    &wss,
                    &owners,
                    &srcs,
                    &positions,
                    &contents,
                    &hashes,
                    &urls,
                    &model,
                    &embeddings,
                    &signs,
                    &languages,
                ],
            )
            .await
            .map_err(pg)?;
        }
        let place = chunks.first().map(|c| (c.owner.as_str(), c.workspace_id.as_str()));
        write_keywords(&tx, source.as_str(), None, place, &segments).await?;
        tx.commit().await.map_err(pg)
    }

    async fn delete_source_chunks(&self, source: &SourceId) -> StoreResult<u64> {
        let mut conn = self.pool.get().await?;
        let tx = conn.transaction().await.map_err(pg)?;
        lock_source(&tx, source.as_str()).await?;
        let n = tx.execute("DELETE FROM chunks WHERE source_id = $1", &[&source.as_str()]).await.map_err(pg)?;
        write_keywords(&tx, source.as_str(), None, None, &[]).await?;
        tx.commit().await.map_err(pg)?;
        Ok(n)
    }

    async fn delete_owner_chunks(&self, owner: &SourceOwner) -> StoreResult<u64> {
        let mut conn = self.pool.get().await?;
        let tx = conn.transaction().await.map_err(pg)?;
        let owner = owner.as_str();
        // Chunks, then backlog, then segments: the order every writer of a source takes its row
        // locks in, so this never deadlocks with one.
        let gone =
            tx.query("DELETE FROM chunks WHERE chatbot_id = $1 RETURNING source_id", &[&owner]).await.map_err(pg)?;
        let mut sources: Vec<&str> = gone.iter().map(|r| r.get(0)).collect();
        sources.sort_unstable();
        sources.dedup();
        tx.execute("DELETE FROM keyword_backlog WHERE source_id = ANY($1)", &[&sources]).await.map_err(pg)?;
        // The postings go with their segments (ON DELETE CASCADE).
        tx.execute("DELETE FROM keyword_segments WHERE owner_id = $1", &[&owner]).await.map_err(pg)?;
        tx.commit().await.map_err(pg)?;
        Ok(gone.len() as u64)
    }

    async fn embeddings_by_hash(&self, source: &SourceId, model: &str) -> StoreResult<HashMap<String, ChunkEmbedding>> {
        let conn = self.pool.get().await?;
        let rows = conn
            .query(
                "SELECT content_hash, embedding, token_signs FROM chunks WHERE source_id = $1 AND model = $2",
                &[&source.as_str(), &model],
            )
            .await
            .map_err(pg)?;
        let embedding = |r: &Row| {
            let vector = r.get::<_, Vector>(1).to_vec();
            let token_signs = r.get::<_, Option<Vec<u8>>>(2).and_then(|b| TokenSigns::from_bytes(b, vector.len()));
            (r.get::<_, String>(0), ChunkEmbedding { vector, token_signs })
        };
        Ok(rows.iter().map(embedding).collect())
    }

    async fn source_languages(&self, source: &SourceId) -> StoreResult<Vec<Language>> {
        let conn = self.pool.get().await?;
        let rows = conn
            .query(
                "SELECT language FROM chunks WHERE source_id = $1 AND language IS NOT NULL
                 GROUP BY language ORDER BY count(*) DESC, language",
                &[&source.as_str()],
            )
            .await
            .map_err(pg)?;
        Ok(rows.iter().filter_map(|r| Language::from_code(r.get(0))).collect())
    }

    async fn count_source_chunks(&self, source: &SourceId) -> StoreResult<u64> {
        let conn = self.pool.get().await?;
        let row = conn
            .query_one("SELECT count(*) FROM chunks WHERE source_id = $1", &[&source.as_str()])
            .await
            .map_err(pg)?;
        Ok(row.get::<_, i64>(0) as u64)
    }

    async fn sources_with_other_models(&self, model: &str) -> StoreResult<Vec<(WorkspaceId, SourceId)>> {
        let conn = self.pool.get().await?;
        let rows = conn
            .query("SELECT DISTINCT workspace_id, source_id FROM chunks WHERE model <> $1", &[&model])
            .await
            .map_err(pg)?;
        Ok(rows.iter().filter_map(|r| Some((WorkspaceId::parse(r.get(0))?, SourceId::parse(r.get(1))?))).collect())
    }

    async fn list_source_chunks(&self, source: &SourceId, offset: u64, limit: u32) -> StoreResult<Vec<StoredChunk>> {
        let conn = self.pool.get().await?;
        let sql = format!(
            "SELECT {STORED_COLUMNS} FROM chunks WHERE source_id = $1 ORDER BY position, id OFFSET $2 LIMIT $3"
        );
        let (offset, limit) = (i64::try_from(offset).unwrap_or(i64::MAX), i64::from(limit));
        let rows = conn.query(&sql, &[&source.as_str(), &offset, &limit]).await.map_err(pg)?;
        Ok(rows.iter().filter_map(stored_chunk).collect())
    }

    async fn update_chunk(
        &self,
        source: &SourceId,
        id: &str,
        change: &ChunkChange,
    ) -> StoreResult<Option<StoredChunk>> {
        let mut conn = self.pool.get().await?;
        let tx = conn.transaction().await.map_err(pg)?;
        // Not beside a replace of the source: the chunk is in the old set or the new one.
        lock_source(&tx, source.as_str()).await?;
        let src = source.as_str();
        if let Some(text) = &change.text {
            let vector = Vector::from(text.embedding.vector.clone());
            let signs = text.embedding.token_signs.as_ref().map(TokenSigns::as_bytes);
            tx.execute(
                "UPDATE chunks SET content = $3, content_hash = $4, model = $5, embedding = $6, token_signs = $7,
                     language = $8, edited = true
                 WHERE id = $1 AND source_id = $2",
                &[
                    &id,
                    &src,
                    &text.content,
                    &text.content_hash,
                    &text.model,
                    &vector,
                    &signs,
                    &text.language.map(Language::code),
                ],
            )
            .await
            .map_err(pg)?;
        }
        if let Some(enabled) = change.enabled {
            tx.execute("UPDATE chunks SET enabled = $3 WHERE id = $1 AND source_id = $2", &[&id, &src, &enabled])
                .await
                .map_err(pg)?;
        }
        let sql =
            format!("SELECT {STORED_COLUMNS}, chatbot_id, workspace_id FROM chunks WHERE id = $1 AND source_id = $2");
        let row = tx.query_opt(&sql, &[&id, &src]).await.map_err(pg)?;
        if let Some(row) = &row {
            // The chunk's segment again, from the enabled chunks it now holds.
            let block = row.get::<_, i32>(2) / SEGMENT_SPAN as i32;
            let first = block * SEGMENT_SPAN as i32;
            let held = tx
                .query(
                    "SELECT position, content, language FROM chunks
                     WHERE source_id = $1 AND position >= $2 AND position < $3 AND enabled",
                    &[&src, &first, &(first + SEGMENT_SPAN as i32)],
                )
                .await
                .map_err(pg)?;
            let held = held.iter().map(|r| {
                let language = r.get::<_, Option<&str>>(2).and_then(Language::from_code);
                (r.get::<_, i32>(0).max(0) as u32, r.get(1), language)
            });
            let segments = keywords::segments(held);
            let place = (row.get::<_, &str>(8), row.get::<_, &str>(9));
            write_keywords(&tx, src, Some(block), Some(place), &segments).await?;
        }
        tx.commit().await.map_err(pg)?;
        Ok(row.as_ref().and_then(stored_chunk))
    }

    async fn page_chunk_hashes(&self, source: &SourceId) -> StoreResult<Vec<(String, String)>> {
        let conn = self.pool.get().await?;
        let rows = conn
            .query(
                "SELECT url, content_hash FROM chunks WHERE source_id = $1 AND url IS NOT NULL ORDER BY position, id",
                &[&source.as_str()],
            )
            .await
            .map_err(pg)?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    async fn current_chunk_count(&self, source: &SourceId, model: &str) -> StoreResult<Option<u64>> {
        let conn = self.pool.get().await?;
        let row = conn
            .query_one(
                "SELECT count(*), count(*) FILTER (WHERE model = $2) FROM chunks WHERE source_id = $1",
                &[&source.as_str(), &model],
            )
            .await
            .map_err(pg)?;
        let (all, of_model) = (row.get::<_, i64>(0), row.get::<_, i64>(1));
        Ok((all > 0 && all == of_model).then_some(all as u64))
    }
}

/// The columns [`stored_chunk`] reads.
const STORED_COLUMNS: &str = "id, source_id, position, content, url, enabled, edited, language";

/// A chunk from a row of [`STORED_COLUMNS`]; `None` for an unparseable source id.
fn stored_chunk(row: &Row) -> Option<StoredChunk> {
    let source: String = row.get(1);
    Some(StoredChunk {
        id: row.get(0),
        source_id: SourceId::parse(&source)?,
        position: row.get::<_, i32>(2) as u32,
        content: row.get(3),
        url: row.get(4),
        enabled: row.get(5),
        edited: row.get(6),
        language: row.get::<_, Option<&str>>(7).and_then(Language::from_code),
    })
}

/// The keyword segments of an owner as a search reads them: the owner's statistics (every
/// segment), and the segments of the scope's sources with their places in the score array.
struct ScopeSegments {
    chunks: u64,
    total_terms: u64,
    /// The scope's segments by ascending base, and each one's place in it by segment id.
    allowed: Vec<Allowed>,
    index: HashMap<i64, usize>,
    /// The languages of the scope's chunks: what the question is folded for.
    languages: LanguageSet,
}

impl ScopeSegments {
    /// From the rows `id, source_id, block, span, chunks, terms, languages, chunk_languages` of
    /// `keyword_segments`; `sources` numbers the scope's sources.
    fn of(rows: &[Row], sources: &HashMap<&str, usize>) -> Self {
        let mut out = ScopeSegments {
            chunks: 0,
            total_terms: 0,
            allowed: Vec::new(),
            index: HashMap::new(),
            languages: LanguageSet::default(),
        };
        let mut slots = 0usize;
        for row in rows {
            out.chunks += row.get::<_, i32>(4).max(0) as u64;
            out.total_terms += row.get::<_, i64>(5).max(0) as u64;
            if let Some(&source) = sources.get(row.get::<_, &str>(1)) {
                let span = row.get::<_, i32>(3).clamp(0, SEGMENT_SPAN as i32) as usize;
                let block = row.get::<_, i32>(2).max(0) as u32;
                out.languages = out.languages.union(LanguageSet(row.get::<_, i64>(6) as u64));
                out.index.insert(row.get(0), out.allowed.len());
                let chunk_languages = row.get::<_, Vec<u8>>(7);
                out.allowed.push(Allowed { base: slots, span, source, block, chunk_languages });
                slots += span;
            }
        }
        out
    }
}

/// The search `language` filter: the places `(source number, position)` of the scope's enabled
/// chunks in `language`.
async fn places_in_language(
    tx: &Transaction<'_>,
    scope: &SearchScope,
    language: Language,
    sources: &HashMap<&str, usize>,
) -> StoreResult<std::collections::HashSet<(usize, u32)>> {
    let rows = tx
        .query(
            "SELECT source_id, position FROM chunks
             WHERE chatbot_id = $1 AND workspace_id = $2 AND language = $3 AND enabled",
            &[&scope.owner.as_str(), &scope.workspace_id.as_str(), &language.code()],
        )
        .await
        .map_err(pg)?;
    Ok(rows
        .iter()
        .filter_map(|r| {
            let source = *sources.get(r.get::<_, &str>(0))?;
            Some((source, r.get::<_, i32>(1).max(0) as u32))
        })
        .collect())
}

/// The postings of `terms` in the scope's segments, each term with the number of the owner's
/// chunks it is weighed by (shared by the folds of one question word: `shared_df`).
async fn term_postings(
    tx: &Transaction<'_>,
    owner: &str,
    terms: Vec<lore_keywords::QueryTerm>,
    segments: &ScopeSegments,
) -> StoreResult<Vec<TermPostings>> {
    // Every row of the terms, whichever segment: n is the owner's, the scoring skips segments
    // outside the scope. One range of the primary key per term, postings included.
    let term_bytes: Vec<Vec<u8>> = terms.iter().map(|t| t.term.clone()).collect();
    let rows = tx
        .query(
            "SELECT term, segment_id, df, postings FROM keyword_postings WHERE owner_id = $1 AND term = ANY($2)",
            &[&owner, &term_bytes],
        )
        .await
        .map_err(pg)?;
    let term_index: HashMap<&[u8], usize> = term_bytes.iter().enumerate().map(|(i, t)| (t.as_slice(), i)).collect();
    let mut terms: Vec<TermPostings> =
        terms.into_iter().map(|term| TermPostings { term, df: 0, rows: Vec::new() }).collect();
    for row in &rows {
        if let Some(&t) = term_index.get(row.get::<_, &[u8]>(0)) {
            terms[t].df += row.get::<_, i32>(2).max(0) as u64;
            let segment: i64 = row.get(1);
            if segments.index.contains_key(&segment) {
                terms[t].rows.push((segment, row.get(3)));
            }
        }
    }
    let df: Vec<(u32, u64)> = terms.iter().map(|t| (t.term.piece, t.df)).collect();
    for (term, shared) in terms.iter_mut().zip(lore_keywords::shared_df(&df, segments.chunks)) {
        term.df = shared;
    }
    Ok(terms)
}

/// The chunks at `places` (`source id, position, score`), as hits in that order.
async fn hits_at(tx: &Transaction<'_>, scope: &SearchScope, places: &[(&str, u32, f64)]) -> StoreResult<Vec<ChunkHit>> {
    let srcs: Vec<&str> = places.iter().map(|p| p.0).collect();
    let positions: Vec<i32> = places.iter().map(|p| p.1 as i32).collect();
    // `enabled` again: the postings leave disabled chunks out already, this keeps it so whatever
    // they hold.
    let sql = format!(
        "SELECT {HIT_COLUMNS} FROM chunks JOIN unnest($1::text[], $2::int4[]) AS wanted(src, pos)
           ON source_id = wanted.src AND position = wanted.pos
         WHERE chatbot_id = $3 AND workspace_id = $4 AND enabled"
    );
    let (owner, ws) = (scope.owner.as_str(), scope.workspace_id.as_str());
    let found = tx.query(&sql, &[&srcs, &positions, &owner, &ws]).await.map_err(pg)?;
    let by_place: HashMap<(String, i32), &Row> =
        found.iter().map(|r| ((r.get::<_, String>(1), r.get::<_, i32>(3)), r)).collect();
    Ok(places
        .iter()
        .filter_map(|&(source, position, score)| {
            let row = by_place.get(&(source.to_owned(), position as i32))?;
            hit(row, score as f32)
        })
        .collect())
}

/// Serialises writers of one source until the transaction ends.
async fn lock_source(tx: &Transaction<'_>, source: &str) -> StoreResult<()> {
    tx.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", &[&source]).await.map_err(pg)?;
    Ok(())
}

/// Postings rows per INSERT statement.
const POSTINGS_BATCH: usize = 2_000;

/// Replaces the keyword segments of `source` (all of them, or the one of `block`) with
/// `segments`, written for the chunks' `(owner, workspace)`, and takes the source off the backlog
/// when all of them are replaced. Inside the chunk write's transaction, under its source lock.
async fn write_keywords(
    tx: &Transaction<'_>,
    source: &str,
    block: Option<i32>,
    place: Option<(&str, &str)>,
    segments: &[Segment],
) -> StoreResult<()> {
    // The postings go with their segments (ON DELETE CASCADE).
    match block {
        Some(block) => {
            tx.execute("DELETE FROM keyword_segments WHERE source_id = $1 AND block = $2", &[&source, &block]).await
        }
        None => {
            tx.execute("DELETE FROM keyword_backlog WHERE source_id = $1", &[&source]).await.map_err(pg)?;
            tx.execute("DELETE FROM keyword_segments WHERE source_id = $1", &[&source]).await
        }
    }
    .map_err(pg)?;
    let Some((owner, workspace)) = place else { return Ok(()) };
    if segments.is_empty() {
        return Ok(());
    }
    let blocks: Vec<i32> = segments.iter().map(|s| s.block).collect();
    let spans: Vec<i32> = segments.iter().map(|s| s.span).collect();
    let chunks: Vec<i32> = segments.iter().map(|s| s.chunks).collect();
    let terms: Vec<i64> = segments.iter().map(|s| s.terms).collect();
    let languages: Vec<i64> = segments.iter().map(|s| s.languages.0 as i64).collect();
    let chunk_languages: Vec<&[u8]> = segments.iter().map(|s| s.chunk_languages.as_slice()).collect();
    let ids = tx
        .query(
            "INSERT INTO keyword_segments
                 (owner_id, workspace_id, source_id, block, span, chunks, terms, languages, chunk_languages)
             SELECT $1, $2, $3, b, sp, c, t, l, cl
             FROM unnest($4::int4[], $5::int4[], $6::int4[], $7::int8[], $8::int8[], $9::bytea[])
                 AS x(b, sp, c, t, l, cl)
             RETURNING id, block",
            &[&owner, &workspace, &source, &blocks, &spans, &chunks, &terms, &languages, &chunk_languages],
        )
        .await
        .map_err(pg)?;
    let id_of: HashMap<i32, i64> = ids.iter().map(|r| (r.get(1), r.get(0))).collect();
    let rows: Vec<(&[u8], i64, i32, &[u8])> = segments
        .iter()
        .flat_map(|s| {
            let id = id_of[&s.block];
            s.postings.iter().map(move |(term, (df, packed))| (term.as_slice(), id, *df, packed.as_slice()))
        })
        .collect();
    let insert = tx
        .prepare(
            "INSERT INTO keyword_postings (owner_id, term, segment_id, df, postings)
             SELECT $1, term, seg, df, p FROM unnest($2::bytea[], $3::int8[], $4::int4[], $5::bytea[]) AS x(term, seg, df, p)",
        )
        .await
        .map_err(pg)?;
    for batch in rows.chunks(POSTINGS_BATCH) {
        let terms: Vec<&[u8]> = batch.iter().map(|r| r.0).collect();
        let segs: Vec<i64> = batch.iter().map(|r| r.1).collect();
        let dfs: Vec<i32> = batch.iter().map(|r| r.2).collect();
        let packed: Vec<&[u8]> = batch.iter().map(|r| r.3).collect();
        tx.execute(&insert, &[&owner, &terms, &segs, &dfs, &packed]).await.map_err(pg)?;
    }
    Ok(())
}

/// pgvector's text form, `[1,0.5,-1]`: `f32`'s `Display` is the shortest text that parses back to
/// the same value, so embeddings round-trip exactly.
fn vector_text(v: &[f32]) -> String {
    let mut s = String::with_capacity(v.len() * 10 + 2);
    s.push('[');
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&x.to_string());
    }
    s.push(']');
    s
}

#[cfg(test)]
mod tests {
    use super::{PgIndexOptions, vector_text};

    #[test]
    fn tuning_is_read_from_the_environment_and_checked() {
        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
        };
        let o =
            PgIndexOptions::from_lookup(vars(&[("LORE_PG_EF_SEARCH", "200"), ("LORE_PG_EXACT_LIMIT", "0")])).unwrap();
        assert_eq!((o.ef_search, o.exact_limit, o.max_connections), (200, 0, 16));
        let e = PgIndexOptions::from_lookup(vars(&[("LORE_PG_EF_SEARCH", "0")])).unwrap_err();
        assert!(e.contains("LORE_PG_EF_SEARCH"), "{e}");
        assert!(PgIndexOptions::from_lookup(vars(&[("LORE_PG_MAX_CONNECTIONS", "many")])).is_err());
    }

    #[test]
    fn vectors_print_exactly() {
        assert_eq!(vector_text(&[1.0, 0.5, -1.0]), "[1,0.5,-1]");
        let x = 0.1f32 + 0.2f32;
        assert_eq!(vector_text(&[x]).trim_matches(['[', ']']).parse::<f32>().unwrap(), x);
    }
}
