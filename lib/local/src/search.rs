//! The embedded chunk index (`VectorIndex`): chunks and their embeddings in the SQLite file,
//! replaced per source in one transaction. Search over them comes with the search work.

use crate::sqlite::{SqliteStore, unavailable};
use crate::vectors::OwnerVectors;
use crate::vectors::{decode_vector, encode_vector};
use async_trait::async_trait;
use lore_app::ports::StoreResult;
use lore_app::ports::{Chunk, ChunkHit, SearchScope, VectorIndex};
use lore_domain::conversation::is_stop_word;
use lore_domain::id::{SourceId, WorkspaceId};
use lore_domain::source::SourceOwner;
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

#[async_trait]
impl VectorIndex for SqliteStore {
    async fn replace_source_chunks(&self, source: &SourceId, model: &str, chunks: Vec<Chunk>) -> StoreResult<()> {
        let (source, model) = (source.clone(), model.to_owned());
        // An empty replacement names no owner: every matrix goes.
        let owner = chunks.first().map(|c| c.owner.clone());
        let vectors = self.vectors.clone();
        let owner_in_tx = owner.clone();
        self.write(move |tx| {
            vectors.invalidate(owner_in_tx.as_ref());
            tx.execute("DELETE FROM chunks WHERE source_id = ?1", [source.as_str()]).map_err(unavailable)?;
            let mut st = tx
                .prepare_cached(
                    "INSERT INTO chunks (id, workspace_id, chatbot_id, source_id, position, content, content_hash, url,
                         model, embedding) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                )
                .map_err(unavailable)?;
            for c in &chunks {
                st.execute(params![
                    c.id,
                    c.workspace_id.as_str(),
                    c.owner.as_str(),
                    c.source_id.as_str(),
                    c.position,
                    c.content,
                    c.content_hash,
                    c.url,
                    model,
                    encode_vector(&c.embedding),
                ])
                .map_err(unavailable)?;
            }
            Ok(())
        })
        .await?;
        self.vectors.invalidate(owner.as_ref());
        Ok(())
    }

    async fn delete_source_chunks(&self, source: &SourceId) -> StoreResult<u64> {
        let source = source.clone();
        let vectors = self.vectors.clone();
        let deleted = self
            .write(move |tx| {
                vectors.invalidate(None);
                tx.execute("DELETE FROM chunks WHERE source_id = ?1", [source.as_str()])
                    .map(|n| n as u64)
                    .map_err(unavailable)
            })
            .await?;
        self.vectors.invalidate(None);
        Ok(deleted)
    }

    async fn delete_owner_chunks(&self, owner: &SourceOwner) -> StoreResult<u64> {
        let owner = owner.clone();
        let vectors = self.vectors.clone();
        let gone = owner.clone();
        let deleted = self
            .write(move |tx| {
                vectors.invalidate(Some(&gone));
                // `chatbot_id` holds the owner's id, a chatbot's or a Mind's (migration 6).
                tx.execute("DELETE FROM chunks WHERE chatbot_id = ?1", [gone.as_str()])
                    .map(|n| n as u64)
                    .map_err(unavailable)
            })
            .await?;
        self.vectors.invalidate(Some(&owner));
        Ok(deleted)
    }

    async fn semantic_search(
        &self,
        scope: &SearchScope,
        model: &str,
        query: &[f32],
        k: usize,
    ) -> StoreResult<Vec<ChunkHit>> {
        if scope.source_ids.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        let (scope, model, query) = (scope.clone(), model.to_owned(), query.to_vec());
        let cache = self.vectors.clone();
        self.read(move |c| {
            let vectors = match cache.get(&scope.owner, &model) {
                Some(v) => v,
                None => {
                    let epoch = cache.epoch();
                    let mut st = c
                        .prepare_cached(
                            "SELECT rowid, source_id, embedding FROM chunks
                             WHERE chatbot_id = ?1 AND workspace_id = ?2 AND model = ?3",
                        )
                        .map_err(unavailable)?;
                    let rows = st
                        .query_map([scope.owner.as_str(), scope.workspace_id.as_str(), model.as_str()], |r| {
                            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, Vec<u8>>(2)?))
                        })
                        .map_err(unavailable)?
                        .collect::<rusqlite::Result<Vec<_>>>()
                        .map_err(unavailable)?;
                    let v = Arc::new(OwnerVectors::build(rows));
                    cache.put(&scope.owner, &model, v.clone(), epoch);
                    v
                }
            };
            let allowed: HashSet<&SourceId> = scope.source_ids.iter().collect();
            let top = vectors.top_k(&query, &allowed, k);
            hits_by_rowid(c, &top)
        })
        .await
    }

    async fn keyword_search(&self, scope: &SearchScope, query: &str, k: usize) -> StoreResult<Vec<ChunkHit>> {
        let Some(expr) = fts_query(query) else { return Ok(Vec::new()) };
        if scope.source_ids.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        let scope = scope.clone();
        self.read(move |c| {
            let top = keyword_top_k(c, &expr, &scope, k).map_err(unavailable)?;
            hits_by_rowid(c, &top)
        })
        .await
    }

    async fn embeddings_by_hash(&self, source: &SourceId, model: &str) -> StoreResult<HashMap<String, Vec<f32>>> {
        let (source, model) = (source.clone(), model.to_owned());
        self.read(move |c| {
            let mut st = c
                .prepare_cached("SELECT content_hash, embedding FROM chunks WHERE source_id = ?1 AND model = ?2")
                .map_err(unavailable)?;
            let rows = st
                .query_map([source.as_str(), model.as_str()], |r| {
                    Ok((r.get::<_, String>(0)?, decode_vector(&r.get::<_, Vec<u8>>(1)?)))
                })
                .map_err(unavailable)?;
            rows.collect::<rusqlite::Result<HashMap<_, _>>>().map_err(unavailable)
        })
        .await
    }

    async fn sources_with_other_models(&self, model: &str) -> StoreResult<Vec<(WorkspaceId, SourceId)>> {
        let model = model.to_owned();
        self.read(move |c| {
            let mut st = c
                .prepare("SELECT DISTINCT workspace_id, source_id FROM chunks WHERE model <> ?1")
                .map_err(unavailable)?;
            let rows = st
                .query_map([model.as_str()], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
                .map_err(unavailable)?;
            let mut out = Vec::new();
            for row in rows {
                let (ws, src) = row.map_err(unavailable)?;
                if let (Some(ws), Some(src)) = (WorkspaceId::parse(&ws), SourceId::parse(&src)) {
                    out.push((ws, src));
                }
            }
            Ok(out)
        })
        .await
    }

    async fn count_source_chunks(&self, source: &SourceId) -> StoreResult<u64> {
        let source = source.clone();
        self.read(move |c| {
            c.query_row("SELECT COUNT(*) FROM chunks WHERE source_id = ?1", [source.as_str()], |r| r.get::<_, i64>(0))
                .map(|n| n as u64)
                .map_err(unavailable)
        })
        .await
    }
}

impl SqliteStore {
    /// The texts of a source's chunks in order (for operators and tests).
    pub async fn chunk_texts(&self, source: &SourceId) -> StoreResult<Vec<String>> {
        let source = source.clone();
        self.read(move |c| {
            let mut st =
                c.prepare("SELECT content FROM chunks WHERE source_id = ?1 ORDER BY position").map_err(unavailable)?;
            let rows = st.query_map([source.as_str()], |r| r.get::<_, String>(0)).map_err(unavailable)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)
        })
        .await
    }
}

/// The words of a user's query as an FTS5 expression: each word quoted (so no query syntax gets
/// through), any of them may match; BM25 ranks documents matching more and rarer words first.
fn fts_query(query: &str) -> Option<String> {
    let mut words: Vec<String> = Vec::new();
    for w in query.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).take(64) {
        let w = w.to_lowercase();
        if !words.contains(&w) {
            words.push(w);
        }
    }
    // Words nearly every chunk has add next to nothing to BM25, yet make it score (and join)
    // nearly every chunk: a question's stop words are left out unless it has nothing else.
    if words.iter().any(|w| !is_stop_word(w)) {
        words.retain(|w| !is_stop_word(w));
    }
    let quoted: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
    (!quoted.is_empty()).then(|| quoted.join(" OR "))
}

/// BM25's best `k` chunks in `scope`, `(rowid, relevance)` best first (ties by rowid).
///
/// Ranked inside FTS5 first, `depth` candidates at a time, and only then checked against the
/// scope: joining every match to `chunks` for the scope before ranking read a chunk row per
/// match (hundreds of milliseconds at 100k chunks, docs/benchmarks.md). When the candidates run
/// out before `k` are in scope (other owners' chunks rank higher), the depth grows until FTS5 has
/// no more matches, so the result is the same as ranking the scope alone.
fn keyword_top_k(c: &Connection, expr: &str, scope: &SearchScope, k: usize) -> rusqlite::Result<Vec<(i64, f32)>> {
    let sources: HashSet<&str> = scope.source_ids.iter().map(|s| s.as_str()).collect();
    let mut ranked = c.prepare_cached(
        "SELECT rowid, -bm25(chunks_fts) FROM chunks_fts WHERE chunks_fts MATCH ?1
         ORDER BY bm25(chunks_fts), rowid LIMIT ?2",
    )?;
    let mut in_scope =
        c.prepare_cached("SELECT source_id FROM chunks WHERE rowid = ?1 AND chatbot_id = ?2 AND workspace_id = ?3")?;
    let mut depth = (k * KEYWORD_DEPTH).max(64);
    loop {
        let candidates = ranked
            .query_map(params![expr, depth as i64], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, f64>(1)? as f32)))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let exhausted = candidates.len() < depth;
        let mut top = Vec::with_capacity(k);
        for (rowid, relevance) in candidates {
            let source: Option<String> = in_scope
                .query_row(params![rowid, scope.owner.as_str(), scope.workspace_id.as_str()], |r| r.get(0))
                .optional()?;
            if source.is_some_and(|s| sources.contains(s.as_str())) {
                top.push((rowid, relevance));
                if top.len() == k {
                    return Ok(top);
                }
            }
        }
        if exhausted {
            return Ok(top);
        }
        depth *= 4;
    }
}

/// Keyword candidates ranked per wanted result before the scope check.
const KEYWORD_DEPTH: usize = 8;

/// Loads the chunks behind `(rowid, score)` pairs, keeping their order.
fn hits_by_rowid(c: &Connection, top: &[(i64, f32)]) -> StoreResult<Vec<ChunkHit>> {
    let mut st = c
        .prepare_cached("SELECT id, source_id, content, position, url FROM chunks WHERE rowid = ?1")
        .map_err(unavailable)?;
    let mut hits = Vec::with_capacity(top.len());
    for &(rowid, score) in top {
        let hit = st.query_row([rowid], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, u32>(3)?,
                r.get::<_, Option<String>>(4)?,
            ))
        });
        let Ok((chunk_id, source, content, position, url)) = hit else { continue };
        let Some(source_id) = SourceId::parse(&source) else { continue };
        hits.push(ChunkHit { chunk_id, source_id, content, position, url, score });
    }
    Ok(hits)
}

#[cfg(test)]
mod tests {
    use super::fts_query;

    #[test]
    fn fts_queries_quote_every_word() {
        assert_eq!(fts_query("Refund policy?").as_deref(), Some("\"refund\" OR \"policy\""));
        assert_eq!(fts_query("\"x\" NEAR(b) *").as_deref(), Some("\"x\" OR \"near\" OR \"b\""));
        assert_eq!(fts_query("  ?! "), None);
        assert_eq!(
            fts_query("How do I pause my program for a few seconds?").as_deref(),
            Some("\"pause\" OR \"program\" OR \"few\" OR \"seconds\""),
            "stop words are left out"
        );
        assert_eq!(fts_query("to be or not to be").as_deref(), Some("\"not\""), "and repeats");
        assert_eq!(fts_query("Who are you?").as_deref(), Some("\"who\" OR \"are\" OR \"you\""), "all stop words: kept");
    }
}
