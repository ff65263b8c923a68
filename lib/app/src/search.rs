//! Semantic, keyword and hybrid search over a knowledge base (docs/api.md §7).
//!
//! Semantic scores are cosine similarities clipped to 0..1; keyword scores are BM25 relevance
//! mapped to 0..1 by x/(1+x).
//!
//! **Hybrid** is a weighted reciprocal-rank fusion of a *primary* and a *secondary* ranking, each
//! fetched [`FUSION_DEPTH`] (4) times deeper than `topK`. A chunk at rank p (from 1) of the primary
//! ranking and rank s of the secondary one scores
//!
//! ```text
//! score = (1 / (k + p) + w / (k + s)) / ((1 + w) / (k + 1)),   k = RRF_K = 3, w = SECONDARY_WEIGHT = 0.25
//! ```
//!
//! a term being 0 when the chunk is not in that ranking; the divisor is the score of a chunk first
//! in both, so scores lie in 0..1 (`minScore` applies to them). The primary ranking is the one with
//! the more independent evidence: the semantic one, unless the embedder only measures shared words
//! ([`Embedder::lexical_only`](crate::ports::Embedder::lexical_only), the built-in hashing
//! embedder), in which case BM25 is the better lexical ranker and leads.
//!
//! Why: the two rankings are rarely equally good. On the retrieval benchmark (docs/benchmarks.md,
//! "Fusion") plain RRF (k = 60, equal weights) fell well below semantic search alone with
//! all-MiniLM-L6-v2 (nDCG@10 0.504 vs 0.635): with a large k, rank 1 and rank 10 weigh almost the
//! same and a passage BM25 ranks first for an incidental word outvotes the semantic top hits. A
//! small k keeps the primary ranking's order meaningful; the low weight makes the secondary ranking
//! a tie-breaker with a say: its first result moves up from the primary's 2nd place to 1st, from
//! 4th to 2nd, from 10th to 5th, and a chunk only it has scores like the primary's 13th. Ranks
//! rather than raw scores are fused because BM25's scale depends on the backend (SQLite FTS5
//! bm25, PostgreSQL ts_rank_cd) and on the query. k, w and the depth were chosen on the
//! odd-numbered half of the benchmark's queries and checked on the even-numbered half. No extra
//! model call: the one query embedding of semantic search.

use crate::auth::Principal;
use crate::ports::{ChunkHit, SearchScope, SourceFilter};
use crate::{App, AppError};
use lore_domain::id::{ChatbotId, MindId, SourceId, WorkspaceId};
use lore_domain::pagination::PageRequest;
use lore_domain::source::{KnowledgeSource, SourceOwner, SourceStatus, SourceType};
use lore_domain::{DomainError, error::Validator};
use std::collections::HashMap;
use std::time::Instant;

pub const MAX_QUERY_CHARS: usize = 2_000;
pub const MAX_TOP_K: u32 = 50;
/// Hybrid: the reciprocal-rank constant k (see the module documentation).
pub const RRF_K: f32 = 3.0;
/// Hybrid: the weight of the secondary ranking; the primary one weighs 1.
pub const SECONDARY_WEIGHT: f32 = 0.25;
/// Hybrid: each ranking is fetched this many times `topK` deep before fusing.
pub const FUSION_DEPTH: usize = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchMode {
    Hybrid,
    Semantic,
    Keyword,
}

/// A validated search request.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRequest {
    pub query: String,
    pub top_k: usize,
    pub mode: SearchMode,
    pub min_score: Option<f32>,
    pub source_ids: Option<Vec<SourceId>>,
    pub types: Option<Vec<SourceType>>,
}

/// Whose vocabulary a request's `types` are in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeNames {
    /// `text`, `url`, `file`.
    Chatbot,
    /// `text`, `url`, `document`, `podcast`.
    Mind,
}

impl SearchRequest {
    /// A chatbot search (`types` in `text`, `url`, `file`).
    pub fn parse(
        query: Option<&str>,
        top_k: Option<i64>,
        mode: Option<&str>,
        min_score: Option<f64>,
        source_ids: Option<&[String]>,
        types: Option<&[String]>,
    ) -> Result<Self, DomainError> {
        Self::parse_for(TypeNames::Chatbot, query, top_k, mode, min_score, source_ids, types)
    }

    pub fn parse_for(
        names: TypeNames,
        query: Option<&str>,
        top_k: Option<i64>,
        mode: Option<&str>,
        min_score: Option<f64>,
        source_ids: Option<&[String]>,
        types: Option<&[String]>,
    ) -> Result<Self, DomainError> {
        let mut v = Validator::new();
        let query = v.check(match query.map(str::trim) {
            None | Some("") => Err(DomainError::field("query", "is required and must not be empty")),
            Some(q) if q.chars().count() > MAX_QUERY_CHARS => {
                Err(DomainError::field("query", format!("must be at most {MAX_QUERY_CHARS} characters")))
            }
            Some(q) => Ok(q.to_owned()),
        });
        let top_k = v.check(match top_k {
            None => Ok(5),
            Some(k) if (1..=i64::from(MAX_TOP_K)).contains(&k) => Ok(k as usize),
            Some(_) => Err(DomainError::field("topK", "must be an integer from 1 to 50")),
        });
        let mode = v.check(match mode {
            None | Some("hybrid") => Ok(SearchMode::Hybrid),
            Some("semantic") => Ok(SearchMode::Semantic),
            Some("keyword") => Ok(SearchMode::Keyword),
            Some(_) => Err(DomainError::field("mode", "must be hybrid, semantic or keyword")),
        });
        let min_score = v.check(match min_score {
            None => Ok(None),
            Some(s) if (0.0..=1.0).contains(&s) => Ok(Some(s as f32)),
            Some(_) => Err(DomainError::field("minScore", "must be a number from 0 to 1")),
        });
        // A malformed id cannot name a source of ours: it filters everything out, like an absent one.
        let source_ids = source_ids.map(|ids| ids.iter().filter_map(|s| SourceId::parse(s)).collect());
        let types = v.check(match types {
            None => Ok(None),
            Some(ts) => ts
                .iter()
                .map(|t| match names {
                    TypeNames::Chatbot => SourceType::parse_chatbot(t)
                        .ok_or_else(|| DomainError::field("types", "must contain only text, url, file")),
                    TypeNames::Mind => SourceType::parse_mind(t)
                        .ok_or_else(|| DomainError::field("types", "must contain only text, url, document, podcast")),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
        });
        v.finish()?;
        let (Some(query), Some(top_k), Some(mode), Some(min_score), Some(types)) =
            (query, top_k, mode, min_score, types)
        else {
            unreachable!("validator finished without errors")
        };
        Ok(Self { query, top_k, mode, min_score, source_ids, types })
    }
}

/// One result of a search (docs/api.md §7).
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    pub chunk_id: String,
    pub source_id: SourceId,
    pub source_name: String,
    pub source_type: SourceType,
    pub content: String,
    pub score: f32,
    pub position: u32,
    pub url: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SearchResults {
    pub hits: Vec<SearchHit>,
    pub took_ms: f64,
}

/// Hybrid: fuses the semantic and keyword rankings, the semantic one leading unless the embedder
/// is `lexical_only` (module documentation).
pub fn fuse_hybrid(semantic: Vec<ChunkHit>, keyword: Vec<ChunkHit>, lexical_only: bool) -> Vec<ChunkHit> {
    if lexical_only { fuse(&keyword, &semantic) } else { fuse(&semantic, &keyword) }
}

/// Weighted reciprocal-rank fusion: Σ weight / (RRF_K + rank), rank from 1, the primary weighing 1
/// and the secondary [`SECONDARY_WEIGHT`], divided by the score of a chunk first in both. Best
/// first, equal scores by chunk id.
fn fuse(primary: &[ChunkHit], secondary: &[ChunkHit]) -> Vec<ChunkHit> {
    let mut fused: HashMap<String, (f32, ChunkHit)> = HashMap::new();
    for (ranking, weight) in [(primary, 1.0), (secondary, SECONDARY_WEIGHT)] {
        for (rank, hit) in ranking.iter().enumerate() {
            let add = weight / (RRF_K + rank as f32 + 1.0);
            fused.entry(hit.chunk_id.clone()).and_modify(|e| e.0 += add).or_insert((add, hit.clone()));
        }
    }
    let max = (1.0 + SECONDARY_WEIGHT) / (RRF_K + 1.0);
    let mut out: Vec<ChunkHit> = fused
        .into_values()
        .map(|(s, mut h)| {
            h.score = (s / max).min(1.0);
            h
        })
        .collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.chunk_id.cmp(&b.chunk_id)));
    out
}

impl App {
    /// The ready sources of an owner a search may look at, after the request's filters.
    async fn searchable_sources(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        req: &SearchRequest,
    ) -> Result<HashMap<SourceId, KnowledgeSource>, AppError> {
        let mut out = HashMap::new();
        let mut page = 1;
        loop {
            let filter = SourceFilter { status: Some(SourceStatus::Ready), source_type: None };
            let batch = self.ports.sources.list_sources(ws, owner, filter, PageRequest::new(page, 100)).await?;
            let done = batch.items.len() < 100;
            for s in batch.items {
                let by_id = req.source_ids.as_ref().is_none_or(|ids| ids.contains(&s.id));
                let by_type = req.types.as_ref().is_none_or(|ts| ts.contains(&s.source_type()));
                if by_id && by_type {
                    out.insert(s.id.clone(), s);
                }
            }
            if done {
                return Ok(out);
            }
            page += 1;
        }
    }

    pub async fn search_chatbot(
        &self,
        p: &Principal,
        chatbot: &ChatbotId,
        req: SearchRequest,
    ) -> Result<SearchResults, AppError> {
        self.search(p, &SourceOwner::Chatbot(chatbot.clone()), req).await
    }

    /// Searches a Mind's ready knowledge sources (docs/api.md §7).
    pub async fn search_mind(
        &self,
        p: &Principal,
        mind: &MindId,
        req: SearchRequest,
    ) -> Result<SearchResults, AppError> {
        self.search(p, &SourceOwner::Mind(mind.clone()), req).await
    }

    async fn search(&self, p: &Principal, owner: &SourceOwner, req: SearchRequest) -> Result<SearchResults, AppError> {
        self.own(p, owner).await?;
        self.search_in(p.workspace_id(), owner, req).await
    }

    /// Searches an owner of `ws` that the caller has been checked to own.
    pub(crate) async fn search_in(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        req: SearchRequest,
    ) -> Result<SearchResults, AppError> {
        let started = Instant::now();
        let sources = self.searchable_sources(ws, owner, &req).await?;
        let scope = SearchScope {
            workspace_id: ws.clone(),
            owner: owner.clone(),
            source_ids: sources.keys().cloned().collect(),
        };
        let depth = match req.mode {
            SearchMode::Hybrid => req.top_k * FUSION_DEPTH,
            _ => req.top_k,
        };
        let semantic = if req.mode != SearchMode::Keyword && !scope.source_ids.is_empty() {
            let vectors = self
                .ports
                .embedder
                .embed(std::slice::from_ref(&req.query))
                .await
                .map_err(|e| AppError::Storage(format!("embedding the query failed: {e}")))?;
            let q = vectors.into_iter().next().unwrap_or_default();
            let model = self.ports.embedder.model_id().to_owned();
            let mut hits = self.ports.index.semantic_search(&scope, &model, &q, depth).await?;
            for h in &mut hits {
                h.score = h.score.clamp(0.0, 1.0);
            }
            hits
        } else {
            Vec::new()
        };
        let keyword = if req.mode != SearchMode::Semantic {
            let mut hits = self.ports.index.keyword_search(&scope, &req.query, depth).await?;
            for h in &mut hits {
                let x = h.score.max(0.0);
                h.score = x / (1.0 + x);
            }
            hits
        } else {
            Vec::new()
        };
        let ranked = match req.mode {
            SearchMode::Semantic => semantic,
            SearchMode::Keyword => keyword,
            SearchMode::Hybrid => fuse_hybrid(semantic, keyword, self.ports.embedder.lexical_only()),
        };
        let hits = ranked
            .into_iter()
            .filter(|h| req.min_score.is_none_or(|m| h.score >= m))
            .filter_map(|h| {
                let s = sources.get(&h.source_id)?;
                Some(SearchHit {
                    chunk_id: h.chunk_id,
                    source_id: h.source_id,
                    source_name: s.name.clone(),
                    source_type: s.source_type(),
                    content: h.content,
                    score: h.score,
                    position: h.position,
                    url: h.url,
                })
            })
            .take(req.top_k)
            .collect();
        Ok(SearchResults { hits, took_ms: started.elapsed().as_secs_f64() * 1000.0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(id: &str) -> ChunkHit {
        ChunkHit {
            chunk_id: id.into(),
            source_id: SourceId::generate(),
            content: String::new(),
            position: 0,
            url: None,
            score: 0.0,
        }
    }

    fn ids(hits: &[ChunkHit]) -> Vec<&str> {
        hits.iter().map(|h| h.chunk_id.as_str()).collect()
    }

    fn ranking(ids: &[&str]) -> Vec<ChunkHit> {
        ids.iter().map(|id| hit(id)).collect()
    }

    #[test]
    fn hybrid_follows_the_primary_ranking_and_normalises_to_one() {
        let fused = fuse(&ranking(&["a", "b", "c"]), &ranking(&["b", "d"]));
        // a: 1/4 = 0.25; b: 1/5 + 0.25/4 = 0.2625; c: 1/6; d: 0.25/5 = 0.05.
        assert_eq!(ids(&fused), ["b", "a", "c", "d"], "agreement lifts b over a");
        let max = 1.25 / 4.0;
        for (h, raw) in fused.iter().zip([0.2625f32, 0.25, 1.0 / 6.0, 0.05]) {
            assert!((h.score - raw / max).abs() < 1e-6, "{}: {}", h.chunk_id, h.score);
        }
        let top = fuse(&ranking(&["x"]), &ranking(&["x"]));
        assert_eq!(top[0].score, 1.0, "first in both");
        assert!(fuse(&[], &[]).is_empty());
    }

    #[test]
    fn the_secondary_ranking_reorders_the_primary_candidates() {
        let primary = ranking(&["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "p10"]);
        // The secondary's first result, absent from the primary ranking, scores 0.25/4 = 0.0625,
        // below the primary's tenth (1/13): the secondary ranking reorders, it does not add.
        let fused = fuse(&primary, &ranking(&["s1"]));
        assert_eq!(fused.iter().position(|h| h.chunk_id == "s1"), Some(10));
        // The primary's fourth, first in the secondary, passes the primary's second and third.
        let fused = fuse(&primary, &ranking(&["p4"]));
        assert_eq!(ids(&fused)[..4], ["p1", "p4", "p2", "p3"]);
        assert!(fused.iter().all(|h| (0.0..=1.0).contains(&h.score)));
    }

    #[test]
    fn a_lexical_only_embedder_lets_the_keyword_ranking_lead() {
        let (semantic, keyword) = (ranking(&["s", "x", "both"]), ranking(&["k", "y", "both"]));
        assert_eq!(ids(&fuse_hybrid(semantic.clone(), keyword.clone(), false))[0], "s");
        assert_eq!(ids(&fuse_hybrid(semantic, keyword, true))[0], "k");
    }

    #[test]
    fn requests_are_validated_field_by_field() {
        let ok = SearchRequest::parse(Some(" refund "), None, None, None, None, None).unwrap();
        assert_eq!((ok.query.as_str(), ok.top_k, ok.mode), ("refund", 5, SearchMode::Hybrid));
        let e =
            SearchRequest::parse(Some(""), Some(0), Some("fuzzy"), Some(1.5), None, Some(&["pdf".into()])).unwrap_err();
        for f in ["query", "topK", "mode", "minScore", "types"] {
            assert!(e.fields.contains_key(f), "{f}: {e:?}");
        }
        assert!(SearchRequest::parse(Some(&"q".repeat(2001)), None, None, None, None, None).is_err());
        assert!(
            SearchRequest::parse(Some(&"q".repeat(2000)), Some(50), Some("keyword"), Some(0.0), None, None).is_ok()
        );
    }
}
