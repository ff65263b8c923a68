//! Semantic, keyword and hybrid search over a knowledge base (CONTRACT §7).
//!
//! Hybrid is reciprocal-rank fusion (RRF, k = 60) of the semantic and keyword rankings, each
//! fetched four times deeper than `topK`: a chunk's fused score is Σ 1/(60 + rank) over the
//! rankings it appears in, reported divided by its maximum 2/61 so that scores lie in 0..1.
//! Semantic scores are cosine similarities clipped to 0..1; keyword scores are BM25 relevance
//! mapped to 0..1 by x/(1+x).

use crate::auth::Principal;
use crate::knowledge_ports::{ChunkHit, SearchScope, SourceFilter};
use crate::{App, AppError};
use lore_domain::id::{ChatbotId, SourceId};
use lore_domain::pagination::PageRequest;
use lore_domain::source::{KnowledgeSource, SourceStatus, SourceType};
use lore_domain::{DomainError, error::Validator};
use std::collections::HashMap;
use std::time::Instant;

pub const MAX_QUERY_CHARS: usize = 2_000;
pub const MAX_TOP_K: u32 = 50;
const RRF_K: f32 = 60.0;
const FUSION_DEPTH: usize = 4;

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

impl SearchRequest {
    pub fn parse(
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
                .map(|t| {
                    SourceType::parse(t).ok_or_else(|| DomainError::field("types", "must contain only text, url, file"))
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

/// One result of a search (CONTRACT §7).
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

fn fuse(rankings: &[Vec<ChunkHit>]) -> Vec<ChunkHit> {
    let mut fused: HashMap<String, (f32, ChunkHit)> = HashMap::new();
    for ranking in rankings {
        for (rank, hit) in ranking.iter().enumerate() {
            let add = 1.0 / (RRF_K + rank as f32 + 1.0);
            fused.entry(hit.chunk_id.clone()).and_modify(|e| e.0 += add).or_insert((add, hit.clone()));
        }
    }
    let max = rankings.len() as f32 / (RRF_K + 1.0);
    let mut out: Vec<ChunkHit> = fused
        .into_values()
        .map(|(s, mut h)| {
            h.score = s / max;
            h
        })
        .collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.chunk_id.cmp(&b.chunk_id)));
    out
}

impl App {
    /// The ready sources of a chatbot a search may look at, after the request's filters.
    async fn searchable_sources(
        &self,
        p: &Principal,
        chatbot: &ChatbotId,
        req: &SearchRequest,
    ) -> Result<HashMap<SourceId, KnowledgeSource>, AppError> {
        let mut out = HashMap::new();
        let mut page = 1;
        loop {
            let filter = SourceFilter { status: Some(SourceStatus::Ready), source_type: None };
            let batch =
                self.ports.sources.list_sources(p.workspace_id(), chatbot, filter, PageRequest::new(page, 100)).await?;
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
        let started = Instant::now();
        self.get_chatbot(p, chatbot).await?;
        let sources = self.searchable_sources(p, chatbot, &req).await?;
        let scope = SearchScope {
            workspace_id: p.workspace_id().clone(),
            chatbot_id: chatbot.clone(),
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
            SearchMode::Hybrid => fuse(&[semantic, keyword]),
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

    #[test]
    fn rrf_rewards_agreement_and_normalises_to_one() {
        let fused = fuse(&[vec![hit("a"), hit("b"), hit("c")], vec![hit("b"), hit("d")]]);
        let ids: Vec<&str> = fused.iter().map(|h| h.chunk_id.as_str()).collect();
        assert_eq!(ids[0], "b", "in both rankings");
        assert!(fused[0].score <= 1.0 && fused[0].score > 0.9);
        let top = fuse(&[vec![hit("x")], vec![hit("x")]]);
        assert!((top[0].score - 1.0).abs() < 1e-6);
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
