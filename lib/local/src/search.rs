//! The embedded chunk index (`VectorIndex`): chunks and their embeddings in the SQLite file,
//! replaced per source in one transaction, searched through in-memory indexes built from them:
//! a matrix per owner for semantic search (`vectors.rs`), postings per owner for keyword search
//! (`keywords.rs`). Both are built from enabled chunks only: a chunk its owner disabled
//! (docs/api.md §6, "Chunks") is never a candidate.

use crate::keywords::{self, KeywordCache, OwnerKeywords};
use crate::sqlite::{SqliteStore, mapped, unavailable};
use crate::vectors::OwnerVectors;
use crate::vectors::{decode_vector, encode_vector};
use async_trait::async_trait;
use lore_app::ports::StoreResult;
use lore_app::ports::{Chunk, ChunkChange, ChunkEmbedding, ChunkHit, SearchScope, StoredChunk, VectorIndex};
use lore_domain::id::{SourceId, WorkspaceId};
use lore_domain::language::Language;
use lore_domain::late_interaction::TokenSigns;
use lore_domain::source::SourceOwner;
use lore_keywords::{query_terms, query_words};
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

#[async_trait]
impl VectorIndex for SqliteStore {
    async fn replace_source_chunks(&self, source: &SourceId, model: &str, chunks: Vec<Chunk>) -> StoreResult<()> {
        let (source_in_tx, model) = (source.clone(), model.to_owned());
        // An empty replacement names no owner: every matrix goes, and the source's postings
        // wherever they are cached.
        let owner = chunks.first().map(|c| c.owner.clone());
        let (vectors, keywords) = (self.vectors.clone(), self.keywords.clone());
        let owner_in_tx = owner.clone();
        self.write(move |tx| {
            vectors.invalidate(owner_in_tx.as_ref());
            keywords.source_changed(owner_in_tx.as_ref(), &source_in_tx);
            tx.execute("DELETE FROM chunks WHERE source_id = ?1", [source_in_tx.as_str()]).map_err(unavailable)?;
            let mut st = tx
                .prepare_cached(
                    "INSERT INTO chunks (id, workspace_id, chatbot_id, source_id, position, content, content_hash, url,
                         model, embedding, token_signs, language)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
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
                    encode_vector(&c.embedding.vector),
                    c.embedding.token_signs.as_ref().map(TokenSigns::as_bytes),
                    c.language.map(Language::code),
                ])
                .map_err(unavailable)?;
            }
            Ok(())
        })
        .await?;
        self.vectors.invalidate(owner.as_ref());
        self.keywords.source_changed(owner.as_ref(), source);
        Ok(())
    }

    async fn delete_source_chunks(&self, source: &SourceId) -> StoreResult<u64> {
        let (vectors, keywords) = (self.vectors.clone(), self.keywords.clone());
        let gone = source.clone();
        let deleted = self
            .write(move |tx| {
                vectors.invalidate(None);
                keywords.source_changed(None, &gone);
                tx.execute("DELETE FROM chunks WHERE source_id = ?1", [gone.as_str()])
                    .map(|n| n as u64)
                    .map_err(unavailable)
            })
            .await?;
        self.vectors.invalidate(None);
        self.keywords.source_changed(None, source);
        Ok(deleted)
    }

    async fn delete_owner_chunks(&self, owner: &SourceOwner) -> StoreResult<u64> {
        let owner = owner.clone();
        let (vectors, keywords) = (self.vectors.clone(), self.keywords.clone());
        let gone = owner.clone();
        let deleted = self
            .write(move |tx| {
                vectors.invalidate(Some(&gone));
                keywords.owner_gone(&gone);
                // `chatbot_id` holds the owner's id, a chatbot's or a Mind's (migration 6).
                tx.execute("DELETE FROM chunks WHERE chatbot_id = ?1", [gone.as_str()])
                    .map(|n| n as u64)
                    .map_err(unavailable)
            })
            .await?;
        self.vectors.invalidate(Some(&owner));
        self.keywords.owner_gone(&owner);
        Ok(deleted)
    }

    async fn semantic_search(
        &self,
        scope: &SearchScope,
        model: &str,
        query: &[f32],
        k: usize,
        with_token_signs: bool,
    ) -> StoreResult<Vec<ChunkHit>> {
        if scope.source_ids.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        let (scope, model, query) = (scope.clone(), model.to_owned(), query.to_vec());
        if let Some(language) = scope.language {
            return self
                .read(move |c| semantic_in_language(c, &scope, &model, &query, language, k, with_token_signs))
                .await;
        }
        let cache = self.vectors.clone();
        self.read(move |c| {
            let vectors = match cache.get(&scope.owner, &model) {
                Some(v) => v,
                None => {
                    let epoch = cache.epoch();
                    let rows = mapped(c, || {
                        let mut st = c.prepare_cached(
                            "SELECT rowid, source_id, embedding FROM chunks
                             WHERE chatbot_id = ?1 AND workspace_id = ?2 AND model = ?3 AND enabled",
                        )?;
                        st.query_map([scope.owner.as_str(), scope.workspace_id.as_str(), model.as_str()], |r| {
                            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, Vec<u8>>(2)?))
                        })?
                        .collect::<rusqlite::Result<Vec<_>>>()
                    })
                    .map_err(unavailable)?;
                    let v = Arc::new(OwnerVectors::build(rows));
                    cache.put(&scope.owner, &model, v.clone(), epoch);
                    v
                }
            };
            let allowed: HashSet<&SourceId> = scope.source_ids.iter().collect();
            let top = vectors.top_k(&query, &allowed, k);
            hits_by_rowid(c, &top, with_token_signs.then_some(query.len()))
        })
        .await
    }

    async fn keyword_search(&self, scope: &SearchScope, query: &str, k: usize) -> StoreResult<Vec<ChunkHit>> {
        let words = query_words(query);
        if words.is_empty() || scope.source_ids.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        let scope = scope.clone();
        let cache = self.keywords.clone();
        self.read(move |c| {
            let index = owner_keywords(c, &cache, &scope).map_err(unavailable)?;
            let allowed: HashSet<&SourceId> = scope.source_ids.iter().collect();
            let languages = match scope.language {
                Some(l) => vec![Some(l)],
                None => index.languages(&allowed).languages(),
            };
            let terms = query_terms(&words, &languages);
            if terms.is_empty() {
                return Ok(Vec::new());
            }
            let rows = scope.language.map(|l| rows_in_language(c, &scope, l)).transpose()?;
            let top = index.top_k(&allowed, rows.as_ref(), &terms, k);
            hits_by_rowid(c, &top, None)
        })
        .await
    }

    async fn embeddings_by_hash(&self, source: &SourceId, model: &str) -> StoreResult<HashMap<String, ChunkEmbedding>> {
        let (source, model) = (source.clone(), model.to_owned());
        self.read(move |c| {
            let mut st = c
                .prepare_cached(
                    "SELECT content_hash, embedding, token_signs FROM chunks WHERE source_id = ?1 AND model = ?2",
                )
                .map_err(unavailable)?;
            let rows = st
                .query_map([source.as_str(), model.as_str()], |r| {
                    let vector = decode_vector(&r.get::<_, Vec<u8>>(1)?);
                    let token_signs = token_signs(r.get(2)?, vector.len());
                    Ok((r.get::<_, String>(0)?, ChunkEmbedding { vector, token_signs }))
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

    async fn source_languages(&self, source: &SourceId) -> StoreResult<Vec<Language>> {
        let source = source.clone();
        self.read(move |c| {
            let mut st = c
                .prepare_cached(
                    "SELECT language FROM chunks WHERE source_id = ?1 AND language IS NOT NULL
                     GROUP BY language ORDER BY COUNT(*) DESC, language",
                )
                .map_err(unavailable)?;
            let rows = st.query_map([source.as_str()], |r| r.get::<_, String>(0)).map_err(unavailable)?;
            let codes = rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)?;
            Ok(codes.iter().filter_map(|c| Language::from_code(c)).collect())
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

    async fn list_source_chunks(&self, source: &SourceId, offset: u64, limit: u32) -> StoreResult<Vec<StoredChunk>> {
        let source = source.clone();
        self.read(move |c| {
            let sql = format!(
                "SELECT {STORED_COLUMNS} FROM chunks WHERE source_id = ?1 ORDER BY position, id LIMIT ?2 OFFSET ?3"
            );
            let mut st = c.prepare_cached(&sql).map_err(unavailable)?;
            let offset = i64::try_from(offset).unwrap_or(i64::MAX);
            let rows = st.query_map(params![source.as_str(), limit, offset], stored_chunk).map_err(unavailable)?;
            let rows = rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)?;
            Ok(rows.into_iter().flatten().collect())
        })
        .await
    }

    async fn update_chunk(
        &self,
        source: &SourceId,
        id: &str,
        change: &ChunkChange,
    ) -> StoreResult<Option<StoredChunk>> {
        let (source, id, change) = (source.clone(), id.to_owned(), change.clone());
        let (vectors, keywords) = (self.vectors.clone(), self.keywords.clone());
        let changed = self
            .write(move |tx| {
                let key = params![id, source.as_str()];
                let owner: Option<String> = tx
                    .query_row("SELECT chatbot_id FROM chunks WHERE id = ?1 AND source_id = ?2", key, |r| r.get(0))
                    .optional()
                    .map_err(unavailable)?;
                let Some(owner) = owner.as_deref().and_then(SourceOwner::parse) else { return Ok(None) };
                // The owner's matrices and the source's postings are read again by the next search.
                vectors.invalidate(Some(&owner));
                keywords.source_changed(Some(&owner), &source);
                if let Some(text) = &change.text {
                    tx.execute(
                        "UPDATE chunks SET content = ?3, content_hash = ?4, model = ?5, embedding = ?6,
                             token_signs = ?7, language = ?8, edited = 1 WHERE id = ?1 AND source_id = ?2",
                        params![
                            id,
                            source.as_str(),
                            text.content,
                            text.content_hash,
                            text.model,
                            encode_vector(&text.embedding.vector),
                            text.embedding.token_signs.as_ref().map(TokenSigns::as_bytes),
                            text.language.map(Language::code),
                        ],
                    )
                    .map_err(unavailable)?;
                }
                if let Some(enabled) = change.enabled {
                    tx.execute(
                        "UPDATE chunks SET enabled = ?3 WHERE id = ?1 AND source_id = ?2",
                        params![id, source.as_str(), enabled],
                    )
                    .map_err(unavailable)?;
                }
                let sql = format!("SELECT {STORED_COLUMNS} FROM chunks WHERE id = ?1 AND source_id = ?2");
                let chunk = tx.query_row(&sql, key, stored_chunk).map_err(unavailable)?;
                Ok(chunk.map(|c| (owner, c)))
            })
            .await?;
        let Some((owner, chunk)) = changed else { return Ok(None) };
        // Again after the commit, as every chunk write does (`vectors.rs`, `keywords.rs`).
        self.vectors.invalidate(Some(&owner));
        self.keywords.source_changed(Some(&owner), &chunk.source_id);
        Ok(Some(chunk))
    }

    async fn page_chunk_hashes(&self, source: &SourceId) -> StoreResult<Vec<(String, String)>> {
        let source = source.clone();
        self.read(move |c| {
            let mut st = c
                .prepare_cached(
                    "SELECT url, content_hash FROM chunks WHERE source_id = ?1 AND url IS NOT NULL ORDER BY position, id",
                )
                .map_err(unavailable)?;
            let rows = st.query_map([source.as_str()], |r| Ok((r.get(0)?, r.get(1)?))).map_err(unavailable)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)
        })
        .await
    }

    async fn current_chunk_count(&self, source: &SourceId, model: &str) -> StoreResult<Option<u64>> {
        let (source, model) = (source.clone(), model.to_owned());
        self.read(move |c| {
            let (all, of_model) = c
                .query_row(
                    "SELECT COUNT(*), COALESCE(SUM(model = ?2), 0) FROM chunks WHERE source_id = ?1",
                    [source.as_str(), model.as_str()],
                    |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)),
                )
                .map_err(unavailable)?;
            Ok((all > 0 && all == of_model).then_some(all as u64))
        })
        .await
    }
}

/// The columns [`stored_chunk`] reads.
const STORED_COLUMNS: &str = "id, source_id, position, content, url, enabled, edited, language";

/// A row of [`STORED_COLUMNS`]; `None` for an unparseable source id.
fn stored_chunk(r: &rusqlite::Row<'_>) -> rusqlite::Result<Option<StoredChunk>> {
    let Some(source_id) = SourceId::parse(&r.get::<_, String>(1)?) else { return Ok(None) };
    Ok(Some(StoredChunk {
        id: r.get(0)?,
        source_id,
        position: r.get(2)?,
        content: r.get(3)?,
        url: r.get(4)?,
        enabled: r.get(5)?,
        edited: r.get(6)?,
        language: r.get::<_, Option<String>>(7)?.as_deref().and_then(Language::from_code),
    }))
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

/// The owner's keyword index: from the cache, with the sources written since read again (every
/// source of the owner when nothing is cached), and cached again if no write came in meanwhile.
fn owner_keywords(c: &Connection, cache: &KeywordCache, scope: &SearchScope) -> rusqlite::Result<Arc<OwnerKeywords>> {
    let snapshot = cache.snapshot(&scope.owner);
    if let Some((index, stale)) = &snapshot.cached
        && stale.is_empty()
    {
        return Ok(index.clone());
    }
    mapped(c, || read_owner_keywords(c, cache, scope, snapshot))
}

/// [`owner_keywords`] when the cache lacks the owner or some of its sources.
fn read_owner_keywords(
    c: &Connection,
    cache: &KeywordCache,
    scope: &SearchScope,
    snapshot: keywords::Snapshot,
) -> rusqlite::Result<Arc<OwnerKeywords>> {
    let (owner, workspace) = (scope.owner.as_str(), scope.workspace_id.as_str());
    let (index, to_read) = match snapshot.cached {
        Some((index, stale)) => (index, stale),
        None => {
            let mut st =
                c.prepare_cached("SELECT DISTINCT source_id FROM chunks WHERE chatbot_id = ?1 AND workspace_id = ?2")?;
            let ids = st.query_map([owner, workspace], |r| r.get::<_, String>(0))?;
            let mut all = Vec::new();
            for id in ids {
                all.extend(SourceId::parse(&id?));
            }
            (Arc::new(OwnerKeywords::default()), all)
        }
    };
    // The unary `+` keeps SQLite on the source's index: planned on `chunks_by_chatbot` instead,
    // each source read every chunk of the owner (44 s for 1,000 sources of 100 chunks).
    let mut st = c.prepare_cached(
        "SELECT rowid, content, language FROM chunks
         WHERE source_id = ?1 AND +chatbot_id = ?2 AND +workspace_id = ?3 AND enabled",
    )?;
    let read = |source: &SourceId| {
        st.query_map(params![source.as_str(), owner, workspace], |r| {
            let language = r.get::<_, Option<String>>(2)?.as_deref().and_then(Language::from_code);
            Ok((r.get(0)?, r.get(1)?, language))
        })?
        .collect::<rusqlite::Result<Vec<(i64, String, Option<Language>)>>>()
    };
    let index = Arc::new(index.updated(&to_read, read)?);
    cache.put(&scope.owner, &index, snapshot.epoch);
    Ok(index)
}

/// The rowids of the owner's enabled chunks in `language` (the search `language` filter).
fn rows_in_language(c: &Connection, scope: &SearchScope, language: Language) -> StoreResult<HashSet<i64>> {
    let mut st = c
        .prepare_cached(
            "SELECT rowid FROM chunks WHERE chatbot_id = ?1 AND workspace_id = ?2 AND language = ?3 AND enabled",
        )
        .map_err(unavailable)?;
    let rows = st
        .query_map([scope.owner.as_str(), scope.workspace_id.as_str(), language.code()], |r| r.get::<_, i64>(0))
        .map_err(unavailable)?;
    rows.collect::<rusqlite::Result<HashSet<_>>>().map_err(unavailable)
}

/// Semantic search among the owner's chunks in one language: an exact scan of those chunks'
/// vectors, read for this search alone (the cached matrices hold every language; a filtered
/// search is rare and reads a part of them).
fn semantic_in_language(
    c: &Connection,
    scope: &SearchScope,
    model: &str,
    query: &[f32],
    language: Language,
    k: usize,
    with_token_signs: bool,
) -> StoreResult<Vec<ChunkHit>> {
    let allowed: HashSet<&str> = scope.source_ids.iter().map(SourceId::as_str).collect();
    let mut st = c
        .prepare_cached(
            "SELECT rowid, source_id, embedding FROM chunks
             WHERE chatbot_id = ?1 AND workspace_id = ?2 AND model = ?3 AND language = ?4 AND enabled",
        )
        .map_err(unavailable)?;
    let rows = st
        .query_map([scope.owner.as_str(), scope.workspace_id.as_str(), model, language.code()], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, Vec<u8>>(2)?))
        })
        .map_err(unavailable)?;
    let mut scored: Vec<(f64, i64)> = Vec::new();
    for row in rows {
        let (rowid, source, bytes) = row.map_err(unavailable)?;
        if !allowed.contains(source.as_str()) {
            continue;
        }
        let v = crate::vectors::decode_vector(&bytes);
        if v.len() != query.len() {
            continue;
        }
        let dot: f32 = v.iter().zip(query).map(|(a, b)| a * b).sum();
        scored.push((f64::from(dot), rowid));
    }
    let top: Vec<(i64, f32)> =
        lore_keywords::best_k(scored, k).into_iter().map(|(score, rowid)| (rowid, score as f32)).collect();
    hits_by_rowid(c, &top, with_token_signs.then_some(query.len()))
}

/// Token signs as stored for a chunk of `dims`-dimensional vectors; `None` when absent or not
/// whole rows of that model.
fn token_signs(bytes: Option<Vec<u8>>, dims: usize) -> Option<TokenSigns> {
    TokenSigns::from_bytes(bytes?, dims)
}

/// Loads the chunks behind `(rowid, score)` pairs, keeping their order; with their token signs
/// when `signs_dims` names the dimensions of the vectors searched.
fn hits_by_rowid(c: &Connection, top: &[(i64, f32)], signs_dims: Option<usize>) -> StoreResult<Vec<ChunkHit>> {
    // The signs column is only read when wanted: kilobytes a hit, for nothing but late
    // interaction.
    // `enabled` again: the indexes leave disabled chunks out already, this keeps it so whatever
    // they hold.
    let sql = match signs_dims {
        Some(_) => {
            "SELECT id, source_id, content, position, url, token_signs, language FROM chunks WHERE rowid = ?1 AND enabled"
        }
        None => "SELECT id, source_id, content, position, url, NULL, language FROM chunks WHERE rowid = ?1 AND enabled",
    };
    let mut st = c.prepare_cached(sql).map_err(unavailable)?;
    let mut hits = Vec::with_capacity(top.len());
    for &(rowid, score) in top {
        let hit = st.query_row([rowid], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, u32>(3)?,
                r.get::<_, Option<String>>(4)?,
                r.get::<_, Option<Vec<u8>>>(5)?,
                r.get::<_, Option<String>>(6)?,
            ))
        });
        let Ok((chunk_id, source, content, position, url, signs, language)) = hit else { continue };
        let language = language.as_deref().and_then(Language::from_code);
        let Some(source_id) = SourceId::parse(&source) else { continue };
        let token_signs = signs_dims.and_then(|dims| token_signs(signs, dims));
        hits.push(ChunkHit { chunk_id, source_id, content, position, url, language, score, token_signs });
    }
    Ok(hits)
}

#[cfg(test)]
mod tests {
    use crate::keywords::{self, OwnerKeywords};
    use lore_domain::id::SourceId;
    use lore_domain::language::Language;
    use lore_keywords::{query_terms, query_words};
    use rusqlite::Connection;
    use std::collections::HashSet;

    /// The in-memory BM25 gives what SQLite's FTS5 `bm25()` gives over an index of the same
    /// terms: the same top 10, in the same order, with the same scores, for every question of
    /// the retrieval benchmark over its ~1,000 passages, split into several sources. FTS5 is
    /// given each passage as our terms (`each_term`) separated by spaces, which its `unicode61`
    /// tokenizer takes as they are: what is compared is the ranking arithmetic.
    #[test]
    fn keyword_ranking_is_fts5_bm25_over_the_owners_chunks() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../benches/retrieval");
        let read = |f: &str| std::fs::read_to_string(format!("{root}/{f}")).unwrap();
        let field = |line: &str, name: &str| -> String {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            v[name].as_str().unwrap().to_owned()
        };
        let passages: Vec<String> = read("corpus.jsonl").lines().map(|l| field(l, "text")).collect();
        let questions: Vec<String> = read("queries.jsonl").lines().map(|l| field(l, "query")).collect();
        assert!(passages.len() > 900 && questions.len() == 90);
        let en = Some(Language::English);
        let terms_of = |text: &str| {
            let mut out = Vec::new();
            lore_keywords::each_term(text, en, |t| out.push(String::from_utf8_lossy(t).into_owned()));
            out.join(" ")
        };

        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'unicode61 remove_diacritics 0');")
            .unwrap();
        let sources: Vec<SourceId> = (0..7).map(|_| SourceId::generate()).collect();
        let mut rows: Vec<keywords::tests::Rows> = vec![Vec::new(); sources.len()];
        for (i, p) in passages.iter().enumerate() {
            let rowid = i as i64 + 1;
            conn.execute("INSERT INTO t (rowid, x) VALUES (?1, ?2)", rusqlite::params![rowid, terms_of(p)]).unwrap();
            rows[i % sources.len()].push((rowid, p.clone(), en));
        }
        // Built in two steps, so that the renumbering of kept chunks is covered too.
        let (first, second): (Vec<_>, Vec<_>) =
            sources.iter().cloned().zip(rows).enumerate().partition(|(i, _)| i % 2 == 0);
        let first: Vec<_> = first.into_iter().map(|(_, c)| c).collect();
        let second: Vec<_> = second.into_iter().map(|(_, c)| c).collect();
        let update = |index: &OwnerKeywords, changes: &[(SourceId, keywords::tests::Rows)]| {
            keywords::tests::update(index, changes)
        };
        let half = update(&OwnerKeywords::default(), &first);
        let mut stale = first.clone();
        stale[0].1.clear();
        let index = update(&update(&update(&half, &stale), &second), &first[..1]);
        let every: HashSet<&SourceId> = sources.iter().collect();
        assert_eq!(index.languages(&every).languages(), [en]);

        let mut fts =
            conn.prepare("SELECT rowid, -bm25(t) FROM t WHERE t MATCH ?1 ORDER BY bm25(t), rowid LIMIT 10").unwrap();
        for q in &questions {
            let words = query_words(q);
            let terms = query_terms(&words, &[en]);
            // FTS5 scores each phrase of the expression: one per distinct term, as ours does.
            let phrases: Vec<String> =
                terms.iter().map(|t| format!("\"{}\"", String::from_utf8_lossy(&t.term))).collect();
            let expected: Vec<(i64, f32)> = fts
                .query_map([phrases.join(" OR ")], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, f64>(1)? as f32)))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert!(!expected.is_empty(), "{q}");
            assert_eq!(index.top_k(&every, None, &terms, 10), expected, "{q}");
        }
    }
}
