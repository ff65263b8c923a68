//! Semantic, keyword and hybrid search over a knowledge base (docs/api.md §7).
//!
//! **Scores** are in 0..1 and mean the same on every backend and at every knowledge-base size, so
//! that `minScore` never silently drops real matches:
//! - semantic: the cosine similarity of the query's and the chunk's vectors, clipped to 0..1;
//! - keyword: BM25 orders the hits; the first scores the share of the query's content words it
//!   contains, every other one that share times its BM25 relative to the first's
//!   ([`score_keyword_hits`]);
//! - hybrid: the fusion below, over the semantic ranking rescored by late interaction when the
//!   embedder gives token states.
//!
//! **Late interaction.** When the embedder gives token states (all-MiniLM-L6-v2,
//! [`Embedder::has_token_states`](crate::ports::Embedder::has_token_states)), hybrid search
//! fetches at least [`rescore_candidates`](crate::AppConfig::rescore_candidates) (50) chunks by
//! cosine and rescores them
//!
//! ```text
//! rescored = (1 − w) · cosine + w · MaxSim,   w = LATE_INTERACTION_WEIGHT = 0.9
//! ```
//!
//! where MaxSim compares the question's tokens with the chunk's, each question token with its
//! best match, averaged (`lore_domain::late_interaction`; the chunk's side stored as one bit a
//! dimension of each two tokens). A sentence vector is one average of a text's tokens; matching
//! token by token keeps what the average blurs (an identifier, a rare term, a phrase). Zero-shot
//! with the model we ship, it gained 0.03 to 0.06 nDCG@10 over the cosine on both benchmark
//! corpora, on their held-out halves too (docs/benchmarks.md, "Late interaction"); w and the form
//! of the stored states were chosen on the tuning halves. The semantic mode stays the cosine of
//! sentence vectors: its scores are the ones its users set `minScore` by, and it is the single
//! signal hybrid is measured against. Embedders without token states (the hashing embedder,
//! OpenAI's) rank hybrid's semantic side by the cosine alone.
//!
//! **One source, many chunks.** After fusing, each chunk's score is multiplied by
//! [`REPEAT_WEIGHT`] (0.8) once for every chunk of the same source ranked above it
//! ([`demote_repeated_sources`]): a long passage cut into several chunks no longer fills the top
//! of the list with near-copies of one answer (+0.011 nDCG@10 on the Cargo book, the other two
//! corpora unchanged; docs/decisions.md). A source's own chunks keep their order.
//!
//! **Re-ranking** (optional, off unless `LORE_RERANK_BASE_URL` names a re-ranking model: a
//! cross-encoder reading question and passage together): hybrid search's best
//! [`rerank_candidates`](crate::AppConfig::rerank_candidates) fused candidates (20, at least
//! `topK`) are scored by it, and its scores order them and become their scores
//! ([`apply_relevance`]). Only hybrid (the default, and what conversations retrieve with): the
//! single modes keep the scores their users set `minScore` by. A re-ranker that fails or misses
//! its deadline leaves the fused ranking (logged as a warning).
//!
//! **Hybrid** is a convex combination of the two modes' scores (Bruch, Gai and Ingber, "An
//! Analysis of Fusion Functions for Hybrid Retrieval", ACM TOIS 2023, who found such
//! combinations of normalised scores to beat reciprocal-rank fusion and to need few queries to
//! set), in which the weight of the secondary ranking follows its own evidence for the query: each
//! ranking is fetched [`FUSION_DEPTH`] (4) times deeper than `topK`, and a chunk scores
//!
//! ```text
//! score = α · primary + (1 − α) · best_secondary · secondary,   α = PRIMARY_WEIGHT = 0.9
//! ```
//!
//! where `primary` and `secondary` are its scores in the two rankings (0 when absent) and
//! `best_secondary` is the secondary ranking's best score for this query. The primary ranking is
//! the semantic one, unless the embedder only measures shared words
//! ([`Embedder::lexical_only`](crate::ports::Embedder::lexical_only), the built-in hashing
//! embedder), or the question is in another script than Latin and in a language the model was not
//! trained on ([`Embedder::reads`](crate::ports::Embedder::reads): all-MiniLM-L6-v2 reads English
//! only, and ranks a Japanese question's passages far below BM25, while French or German still
//! share many of its word pieces): then BM25 is the better ranker and leads. When the semantic ranking was
//! rescored by late interaction, α is [`PRIMARY_WEIGHT_LATE_INTERACTION`] (0.97): rescored scores
//! lie closer together than cosines, so the same keyword bonus would reorder far more (chosen by
//! the same rule on the same tuning halves, docs/benchmarks.md "Fusion").
//!
//! Why: the keyword ranking's value differs from query to query. When the best keyword hit holds
//! every content word of the question (an identifier, an option name, an error message), BM25 has
//! real evidence and weighs up to 0.1 of the score, enough to reorder close semantic candidates
//! and to lift a passage both rankings agree on; when its best hit shares one incidental word of a
//! long paraphrased question, its weight shrinks with that coverage. One setting (α 0.9, depth 4 ×
//! topK) was chosen on the tuning halves of both benchmark corpora (docs/benchmarks.md, "Fusion"):
//! CPython docstrings, where keyword search is weak (semantic alone is within noise of the best any
//! fusion reaches), and the Cargo book, long technical prose where keyword and semantic search are
//! close and combining them gains 0.03 to 0.05 nDCG@10. The weighted reciprocal-rank fusion used
//! before (k 3, weight 0.25) had been tuned on the first corpus alone and gained half as much on
//! the second. No extra model call: the one query embedding of semantic search.

use crate::auth::Principal;
use crate::ports::{ChunkHit, Embedding, Relevance, SearchScope, SourceLabel};
use crate::{App, AppError};
use lore_domain::id::{ChatbotId, MindId, SourceId, WorkspaceId};
use lore_domain::late_interaction::TokenStates;
use lore_domain::metadata::Filter;
use lore_domain::source::{SourceOwner, SourceType};
use lore_domain::{DomainError, error::Validator};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;
use tracing::Instrument;

pub const MAX_QUERY_CHARS: usize = 2_000;
pub const MAX_TOP_K: u32 = 50;
/// Hybrid: the weight α of the primary ranking's score (see the module documentation).
pub const PRIMARY_WEIGHT: f32 = 0.9;
/// Hybrid: α when the primary ranking is the semantic one rescored by late interaction, whose
/// scores lie closer together than cosines do: the same keyword bonus would reorder far more.
pub const PRIMARY_WEIGHT_LATE_INTERACTION: f32 = 0.97;
/// Hybrid: each ranking is fetched this many times `topK` deep before fusing.
pub const FUSION_DEPTH: usize = 4;
/// Hybrid: a chunk's score is multiplied by this once for every chunk of its source that ranks
/// above it ([`demote_repeated_sources`]).
pub const REPEAT_WEIGHT: f32 = 0.8;
/// Late interaction: the weight w of MaxSim in a rescored semantic score (module documentation).
pub const LATE_INTERACTION_WEIGHT: f32 = 0.9;
/// Late interaction: the semantic candidates a hybrid search rescores by default, at least (more
/// when it fetches more; `LORE_RESCORE_CANDIDATES`).
pub const LATE_INTERACTION_CANDIDATES: usize = 50;
/// Re-ranking: the fused candidates a configured re-ranker scores by default, at least `topK`
/// (`LORE_RERANK_CANDIDATES`).
pub const RERANK_CANDIDATES: usize = 20;

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
    /// Only sources whose metadata passes it.
    pub filter: Option<Filter>,
    /// Only chunks in this language (docs/api.md §20).
    pub language: Option<lore_domain::language::Language>,
}

/// Whose vocabulary a request's `types` are in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeNames {
    /// `text`, `url`, `file`.
    Chatbot,
    /// `text`, `url`, `document`, `podcast`.
    Mind,
}

/// A search as a client sent it, before validation.
#[derive(Debug, Clone, Copy, Default)]
pub struct SearchInput<'a> {
    pub query: Option<&'a str>,
    pub top_k: Option<i64>,
    pub mode: Option<&'a str>,
    pub min_score: Option<f64>,
    pub source_ids: Option<&'a [String]>,
    pub types: Option<&'a [String]>,
    pub filter: Option<&'a serde_json::Value>,
    pub language: Option<&'a str>,
}

impl SearchRequest {
    /// A chatbot search (`types` in `text`, `url`, `file`).
    pub fn parse(input: SearchInput<'_>) -> Result<Self, DomainError> {
        Self::parse_for(TypeNames::Chatbot, input)
    }

    pub fn parse_for(names: TypeNames, input: SearchInput<'_>) -> Result<Self, DomainError> {
        let SearchInput { query, top_k, mode, min_score, source_ids, types, filter, language } = input;
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
        let filter = v.check(Filter::parse("filter", filter));
        let language = match language {
            None => None,
            Some(l) => v.check(lore_domain::language::parse_language("language", l)),
        };
        v.finish()?;
        let (Some(query), Some(top_k), Some(mode), Some(min_score), Some(types), Some(filter)) =
            (query, top_k, mode, min_score, types, filter)
        else {
            unreachable!("validator finished without errors")
        };
        Ok(Self { query, top_k, mode, min_score, source_ids, types, filter, language })
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
    pub language: Option<lore_domain::language::Language>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SearchResults {
    pub hits: Vec<SearchHit>,
    pub took_ms: f64,
}

/// Keyword scores in 0..1, the same on every backend and in a knowledge base of three chunks:
/// the index's BM25 order is kept; the first hit scores the share of the query's content words it
/// contains, and every other hit that share times its BM25 relative to the first hit's. A raw
/// BM25 is no score by itself: its scale depends on the knowledge base and the query, and it is about 0 for a word found in half the chunks of a small knowledge base
/// (so `minScore` used to drop real matches).
pub fn score_keyword_hits(query: &str, hits: &mut [ChunkHit]) {
    let Some(first) = hits.first() else { return };
    let wanted = lore_domain::conversation::terms(query);
    let coverage = |content: &str| -> f32 {
        if wanted.is_empty() {
            return 1.0;
        }
        let found = lore_domain::conversation::terms(content);
        wanted.iter().filter(|t| found.contains(*t)).count() as f32 / wanted.len() as f32
    };
    let top_raw = first.score.max(0.0);
    // A match always has at least one query word, even when stemming differs between the index
    // and `terms`.
    let floor = 1.0 / wanted.len().max(1) as f32;
    let top = coverage(&first.content).max(floor);
    for h in hits.iter_mut() {
        let raw = h.score.max(0.0);
        h.score = if top_raw > 0.0 { top * (raw / top_raw).min(1.0) } else { coverage(&h.content).max(floor) };
    }
}

/// Hybrid with token states: rescores the semantic candidates by late interaction, best first
/// (module documentation); returns whether it did. Unchanged unless every hit has token signs the
/// question can be compared with: chunks stored before their embedder gave token states are
/// never ranked against ones that have them.
pub fn rescore_late_interaction(hits: &mut [ChunkHit], question: &TokenStates) -> bool {
    let max_sims: Option<Vec<f32>> =
        hits.iter().map(|h| h.token_signs.as_ref().and_then(|signs| question.max_sim(signs))).collect();
    let Some(max_sims) = max_sims else { return false };
    let w = LATE_INTERACTION_WEIGHT;
    for (h, max_sim) in hits.iter_mut().zip(max_sims) {
        h.score = ((1.0 - w) * h.score + w * max_sim).clamp(0.0, 1.0);
    }
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.chunk_id.cmp(&b.chunk_id)));
    true
}

/// Hybrid: fuses the semantic and keyword rankings, the semantic one leading unless
/// `keyword_leads` (a lexical embedder, or a question the model cannot read: module
/// documentation). Both carry their mode's scores; `rescored`: the semantic ones are late
/// interaction's.
pub fn fuse_hybrid(
    semantic: Vec<ChunkHit>,
    keyword: Vec<ChunkHit>,
    keyword_leads: bool,
    rescored: bool,
) -> Vec<ChunkHit> {
    let mut fused = match (keyword_leads, rescored) {
        (true, _) => fuse(keyword, semantic, PRIMARY_WEIGHT),
        (false, false) => fuse(semantic, keyword, PRIMARY_WEIGHT),
        (false, true) => fuse(semantic, keyword, PRIMARY_WEIGHT_LATE_INTERACTION),
    };
    demote_repeated_sources(&mut fused, |h| h.source_id.clone(), |h| &mut h.score);
    // The demotion keeps each source's own chunks in order; the sort is stable.
    fused.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.chunk_id.cmp(&b.chunk_id)));
    fused
}

/// Hybrid: in a ranking sorted best first, multiplies the score of each chunk by
/// [`REPEAT_WEIGHT`] once for every chunk of the same source ranked above it (the second chunk
/// of a source × 0.8, the third × 0.64, …). The caller sorts again. A long passage cut into
/// several chunks otherwise fills the top of the results with near-copies of one answer and
/// pushes other sources out (module documentation).
pub fn demote_repeated_sources<T, K: Eq + std::hash::Hash>(
    ranked: &mut [T],
    source: impl Fn(&T) -> K,
    score: impl Fn(&mut T) -> &mut f32,
) {
    let mut above: HashMap<K, i32> = HashMap::new();
    for item in ranked.iter_mut() {
        let n = above.entry(source(item)).or_insert(0);
        if *n > 0 {
            *score(item) *= REPEAT_WEIGHT.powi(*n);
        }
        *n += 1;
    }
}

/// α · primary + (1 − α) · best secondary · secondary, best first, equal scores by chunk id.
fn fuse(primary: Vec<ChunkHit>, secondary: Vec<ChunkHit>, alpha: f32) -> Vec<ChunkHit> {
    let best_secondary = secondary.iter().map(|h| h.score).fold(0.0f32, f32::max);
    let weight = (1.0 - alpha) * best_secondary;
    let mut fused: HashMap<String, (f32, ChunkHit)> = HashMap::new();
    for (ranking, w) in [(primary, alpha), (secondary, weight)] {
        for hit in ranking {
            let add = w * hit.score.clamp(0.0, 1.0);
            fused.entry(hit.chunk_id.clone()).and_modify(|e| e.0 += add).or_insert((add, hit));
        }
    }
    let mut out: Vec<ChunkHit> = fused
        .into_values()
        .map(|(s, mut h)| {
            h.score = s.min(1.0);
            h
        })
        .collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.chunk_id.cmp(&b.chunk_id)));
    out
}

/// Query embeddings most recently made, by query text: a question asked again (suggested
/// questions, a chat's retries, a client polling the same search) is not embedded again. With
/// all-MiniLM-L6-v2 an embedding is most of a search's time (docs/benchmarks.md). Bounded by bytes,
/// not entries: a question's token states grow with its length.
pub struct QueryEmbeddings {
    budget_bytes: usize,
    inner: std::sync::Mutex<QueryEmbeddingsInner>,
    /// One turn per query being embedded: a caller that finds its query in here waits for the
    /// one making it, then reads the cache, rather than embedding it a second time at once (a
    /// conversation turn's correction check and its search ask for the same question together).
    in_flight: std::sync::Mutex<HashMap<String, Line>>,
}

/// The callers of one query take turns; a turn that made the embedding, or failed to, leaves
/// the outcome here for the next (the cache may not keep it: a budget of 0, or one too large).
type Line = Arc<tokio::sync::Mutex<Option<Result<Arc<Embedding>, String>>>>;

/// A caller's place in the line for a query's embedding; the last to leave removes the line,
/// also when its future is dropped part-way.
struct InFlight<'a> {
    cache: &'a QueryEmbeddings,
    query: &'a str,
    turn: Line,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        let mut lines = self.cache.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        // The map's handle and this one: nobody else is waiting.
        if Arc::strong_count(&self.turn) == 2 && lines.get(self.query).is_some_and(|t| Arc::ptr_eq(t, &self.turn)) {
            lines.remove(self.query);
        }
    }
}

#[derive(Default)]
struct QueryEmbeddingsInner {
    /// query → (last use, embedding, bytes it holds)
    entries: HashMap<String, (u64, Arc<Embedding>, usize)>,
    bytes: usize,
    clock: u64,
}

/// Bytes of query embeddings kept per process by default (about 800 questions of a dozen words
/// with all-MiniLM-L6-v2's token states, 10,000 vectors without them; `LORE_QUERY_CACHE_BYTES`).
pub const QUERY_EMBEDDINGS_BYTES: usize = 16 * 1024 * 1024;

/// What an embedding holds in memory, roughly: its numbers and its query text.
fn held_bytes(query: &str, e: &Embedding) -> usize {
    let states = e.token_states.as_ref().map_or(0, |t| t.len() * t.dims());
    query.len() + (e.vector.len() + states) * std::mem::size_of::<f32>()
}

impl QueryEmbeddings {
    pub fn new(budget_bytes: usize) -> Self {
        Self { budget_bytes, inner: Default::default(), in_flight: Default::default() }
    }

    /// The cached embedding of `query` when `usable` takes it, else the one `make` makes (and
    /// the cache keeps). Callers asking for the same query at once make it once: the others wait
    /// for the first and take its outcome — its embedding when usable to them (else they make
    /// their own), or its failure: an embedder that fails or times out is not asked again by
    /// each caller in turn, which would multiply the time a turn takes to fail.
    pub async fn get_or_make<F>(
        &self,
        query: &str,
        usable: impl Fn(&Embedding) -> bool,
        make: impl FnOnce() -> F,
    ) -> Result<Arc<Embedding>, String>
    where
        F: std::future::Future<Output = Result<Embedding, String>>,
    {
        let cached = || self.get(query).filter(|e| usable(e));
        if let Some(e) = cached() {
            return Ok(e);
        }
        let turn = {
            let mut lines = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
            lines.entry(query.to_owned()).or_default().clone()
        };
        let flight = InFlight { cache: self, query, turn };
        let mut turn = flight.turn.lock().await;
        match turn.as_ref() {
            Some(Err(failed)) => return Err(failed.clone()),
            Some(Ok(e)) if usable(e) => return Ok(e.clone()),
            _ => {}
        }
        if let Some(e) = cached() {
            return Ok(e);
        }
        let made = make().await.map(Arc::new);
        if let Ok(e) = &made {
            self.put(query, e.clone());
        }
        *turn = Some(made.clone());
        made
    }

    pub fn get(&self, query: &str) -> Option<Arc<Embedding>> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.clock += 1;
        let now = inner.clock;
        inner.entries.get_mut(query).map(|(used, e, _)| {
            *used = now;
            e.clone()
        })
    }

    /// Keeps `embedding` for `query`, forgetting the least recently used queries until it fits.
    /// One larger than the whole budget is not kept.
    pub fn put(&self, query: &str, embedding: Arc<Embedding>) {
        let size = held_bytes(query, &embedding);
        if size > self.budget_bytes {
            return;
        }
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.clock += 1;
        let now = inner.clock;
        if let Some((_, _, old)) = inner.entries.remove(query) {
            inner.bytes -= old;
        }
        while inner.bytes + size > self.budget_bytes {
            // A scan of the entries, only when a new query arrives at a full cache.
            let Some(oldest) = inner.entries.iter().min_by_key(|(_, (used, _, _))| *used).map(|(q, _)| q.clone())
            else {
                break;
            };
            if let Some((_, _, freed)) = inner.entries.remove(&oldest) {
                inner.bytes -= freed;
            }
        }
        inner.bytes += size;
        inner.entries.insert(query.to_owned(), (now, embedding, size));
    }
}

/// Hybrid with a re-ranker: the scores it gave the first candidates (indexes into them) order
/// those, best first; a candidate it left out follows them, as does every later candidate, in
/// the fused order with its score capped at the lowest the re-ranker gave, so that scores never
/// rise down the list. A document scored twice keeps its first score.
pub fn apply_relevance(fused: Vec<ChunkHit>, relevance: &[Relevance]) -> Vec<ChunkHit> {
    let mut scores: Vec<Option<f32>> = vec![None; fused.len()];
    for r in relevance {
        if let Some(slot @ None) = scores.get_mut(r.index) {
            *slot = Some(r.score.clamp(0.0, 1.0));
        }
    }
    let lowest = scores.iter().flatten().copied().fold(1.0f32, f32::min);
    let (mut scored, mut rest): (Vec<_>, Vec<_>) =
        fused.into_iter().zip(scores).enumerate().partition(|(_, (_, score))| score.is_some());
    // Equal scores keep the fused order (a stable sort).
    scored.sort_by(|(_, (_, a)), (_, (_, b))| b.unwrap_or(0.0).total_cmp(&a.unwrap_or(0.0)));
    for (_, (hit, score)) in &mut scored {
        hit.score = score.unwrap_or(0.0);
    }
    rest.sort_by_key(|(i, _)| *i);
    for (_, (hit, _)) in &mut rest {
        hit.score = hit.score.min(lowest);
    }
    scored.into_iter().chain(rest).map(|(_, (hit, _))| hit).collect()
}

impl App {
    /// Hybrid's last stage when a re-ranker is configured: it scores the best
    /// [`rerank_candidates`](crate::AppConfig::rerank_candidates) fused candidates (at least
    /// `top_k`), whose order and scores become its ([`apply_relevance`]). A re-ranker that fails
    /// or is late leaves the fused ranking as it was: it is an improvement, never a reason for a
    /// search or an answer to fail.
    async fn rerank(&self, query: &str, fused: Vec<ChunkHit>, top_k: usize) -> Vec<ChunkHit> {
        let Some(reranker) = &self.ports.shared.reranker else { return fused };
        let n = self.config.rerank_candidates.max(top_k).min(fused.len());
        if n == 0 {
            return fused;
        }
        let documents: Vec<String> = fused[..n].iter().map(|h| h.content.clone()).collect();
        match reranker.rerank(query, &documents).await {
            Ok(relevance) => apply_relevance(fused, &relevance),
            Err(e) => {
                tracing::warn!(error = %e, "re-ranking failed; the fused order stands");
                fused
            }
        }
    }

    /// The query's embedding from the embedder in use, with its token states when `states` asks
    /// for them and the embedder has them (hybrid's rescoring), made once per
    /// [`QueryEmbeddings`] lifetime, also when asked for twice at once. A caller that reads only
    /// the vector (the semantic mode) takes any cached embedding and makes none of the states:
    /// they cost memory in the cache and time in the pass. (A conversation turn's correction
    /// check asks for them: its hybrid search, running beside it, reads them from the same pass.)
    pub(crate) async fn query_embedding(&self, query: &str, states: bool) -> Result<Arc<Embedding>, AppError> {
        let states = states && self.ports.shared.embedder.has_token_states();
        let usable = |e: &Embedding| !states || e.token_states.is_some();
        let make = || async {
            let failed = |e: crate::ports::EmbedError| format!("embedding the query failed: {e}");
            let texts = [query.to_owned()];
            let embedded = if states {
                self.ports.shared.embedder.embed_with_token_states(&texts).await.map_err(failed)?.into_iter().next()
            } else {
                let vector = self.ports.shared.embedder.embed_queries(&texts).await.map_err(failed)?.into_iter().next();
                vector.map(|vector| Embedding { vector, token_states: None })
            };
            Ok(embedded.unwrap_or(Embedding { vector: Vec::new(), token_states: None }))
        };
        self.query_embeddings.get_or_make(query, usable, make).await.map_err(AppError::Storage)
    }

    /// The ready sources of an owner a search may look at, after the request's filters.
    async fn searchable_sources(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        req: &SearchRequest,
    ) -> Result<HashMap<SourceId, SourceLabel>, AppError> {
        let labels = self.ports.storage.sources.ready_source_labels(ws, owner).await?;
        Ok(labels
            .into_iter()
            .filter(|s| req.source_ids.as_ref().is_none_or(|ids| ids.contains(&s.id)))
            .filter(|s| req.types.as_ref().is_none_or(|ts| ts.contains(&s.source_type)))
            // The filter decides which sources the index may look at, so it holds inside the
            // index's ranking (top K of the matching sources), not after it.
            .filter(|s| req.filter.as_ref().is_none_or(|f| f.matches(&s.metadata)))
            .map(|s| (s.id.clone(), s))
            .collect())
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
        // Stages as DEBUG spans (`search.*`), timed by the perf bench (benches/perf/chat.rs).
        // The question is embedded while the owner's ready sources are read (on DynamoDB a
        // round trip or two): neither needs the other. With no ready source the vector is not
        // used, and an embedder's failure then does not fail the search. A remote embedder (a
        // paid request each time) waits for the sources instead: an empty knowledge base costs
        // no call.
        let embedding = async {
            if req.mode == SearchMode::Keyword {
                return Ok(None);
            }
            // Only hybrid rescores, so only hybrid asks for token states.
            let hybrid = req.mode == SearchMode::Hybrid;
            self.query_embedding(&req.query, hybrid).instrument(tracing::debug_span!("search.embed")).await.map(Some)
        };
        let sources = self.searchable_sources(ws, owner, &req).instrument(tracing::debug_span!("search.sources"));
        let (sources, embedding) = if self.ports.shared.embedder.remote() {
            match sources.await {
                Ok(found) if !found.is_empty() => (Ok(found), embedding.await),
                other => (other, Ok(None)),
            }
        } else {
            futures::join!(sources, embedding)
        };
        let sources = sources?;
        let embedding = if sources.is_empty() { None } else { embedding? };
        let scope = SearchScope {
            workspace_id: ws.clone(),
            owner: owner.clone(),
            source_ids: sources.keys().cloned().collect(),
            language: req.language,
        };
        let depth = match req.mode {
            SearchMode::Hybrid => req.top_k * FUSION_DEPTH,
            _ => req.top_k,
        };
        // The two rankings of hybrid search are fetched at once: the keyword search overlaps the
        // question's embedding and the semantic search (on PostgreSQL each is a query of its own).
        let semantic = self.semantic_ranking(&scope, embedding, req.mode, depth);
        let keyword = self
            .keyword_ranking(&scope, &req.query, req.mode, depth)
            .instrument(tracing::debug_span!("search.keyword"));
        let ((semantic, rescored), keyword) = futures::try_join!(semantic, keyword)?;
        let ranked = match req.mode {
            SearchMode::Semantic => semantic,
            SearchMode::Keyword => keyword,
            SearchMode::Hybrid => {
                let embedder = &self.ports.shared.embedder;
                // Only other scripts than Latin: a question's Latin-script language is often
                // unsure, and an English model still reads much of French or German.
                let unread = lore_domain::language::Language::detect_question(&req.query)
                    .is_some_and(|l| !l.latin_script() && !embedder.reads(l));
                let keyword_leads = embedder.lexical_only() || unread;
                let fused = tracing::debug_span!("search.fuse")
                    .in_scope(|| fuse_hybrid(semantic, keyword, keyword_leads, rescored));
                self.rerank(&req.query, fused, req.top_k).instrument(tracing::debug_span!("search.rerank")).await
            }
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
                    source_type: s.source_type,
                    content: h.content,
                    score: h.score,
                    position: h.position,
                    url: h.url,
                    language: h.language,
                })
            })
            .take(req.top_k)
            .collect();
        Ok(SearchResults { hits, took_ms: started.elapsed().as_secs_f64() * 1000.0 })
    }

    /// The semantic ranking's best `depth` (none without a question vector), and whether hybrid's
    /// late-interaction rescoring reordered them. Only hybrid rescores: the semantic mode stays
    /// the cosine of sentence vectors, with the scores its users set `minScore` by, and neither
    /// makes nor reads token states.
    async fn semantic_ranking(
        &self,
        scope: &SearchScope,
        embedding: Option<Arc<Embedding>>,
        mode: SearchMode,
        depth: usize,
    ) -> Result<(Vec<ChunkHit>, bool), AppError> {
        let Some(q) = embedding else {
            return Ok((Vec::new(), false));
        };
        let model = self.index_model();
        let late = mode == SearchMode::Hybrid && q.token_states.is_some();
        let fetch = if late { depth.max(self.config.rescore_candidates) } else { depth };
        let mut hits = self
            .ports
            .storage
            .index
            .semantic_search(scope, model, &q.vector, fetch, late)
            .instrument(tracing::debug_span!("search.semantic"))
            .await?;
        for h in &mut hits {
            h.score = h.score.clamp(0.0, 1.0);
        }
        let mut rescored = false;
        if late {
            // CPU work (up to 50 chunks of 128 rows, against up to 254 question tokens): kept
            // off the async threads.
            let span = tracing::debug_span!("search.rescore");
            (hits, rescored) = tokio::task::spawn_blocking(move || match &q.token_states {
                Some(question) => {
                    let _rescoring = span.entered();
                    let rescored = rescore_late_interaction(&mut hits, question);
                    (hits, rescored)
                }
                None => (hits, false),
            })
            .await
            .map_err(|e| AppError::Storage(format!("rescoring failed: {e}")))?;
        }
        hits.truncate(depth);
        Ok((hits, rescored))
    }

    /// The keyword ranking's best `depth` (none for the semantic mode or an empty scope), with
    /// the scores keyword search shows.
    async fn keyword_ranking(
        &self,
        scope: &SearchScope,
        query: &str,
        mode: SearchMode,
        depth: usize,
    ) -> Result<Vec<ChunkHit>, AppError> {
        if mode == SearchMode::Semantic || scope.source_ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut hits = self.ports.storage.index.keyword_search(scope, query, depth).await?;
        score_keyword_hits(query, &mut hits);
        Ok(hits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(id: &str, score: f32) -> ChunkHit {
        ChunkHit {
            language: None,
            chunk_id: id.into(),
            source_id: SourceId::generate(),
            content: String::new(),
            position: 0,
            url: None,
            score,
            token_signs: None,
        }
    }

    fn ids(hits: &[ChunkHit]) -> Vec<&str> {
        hits.iter().map(|h| h.chunk_id.as_str()).collect()
    }

    fn ranking(scored: &[(&str, f32)]) -> Vec<ChunkHit> {
        scored.iter().map(|&(id, s)| hit(id, s)).collect()
    }

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn hybrid_adds_the_secondary_score_weighted_by_its_best() {
        let primary = ranking(&[("a", 0.62), ("b", 0.60), ("c", 0.40)]);
        let secondary = ranking(&[("b", 1.0), ("d", 0.5)]);
        let fused = fuse(primary, secondary, PRIMARY_WEIGHT);
        // a: 0.9·0.62 = 0.558; b: 0.9·0.60 + 0.1·1·1 = 0.64; c: 0.36; d: 0.1·1·0.5 = 0.05.
        assert_eq!(ids(&fused), ["b", "a", "c", "d"], "agreement lifts b over a");
        for (h, want) in fused.iter().zip([0.64f32, 0.558, 0.36, 0.05]) {
            assert!(close(h.score, want), "{}: {}", h.chunk_id, h.score);
        }
        let top = fuse(ranking(&[("x", 1.0)]), ranking(&[("x", 1.0)]), PRIMARY_WEIGHT);
        assert!(close(top[0].score, 1.0), "perfect in both: {}", top[0].score);
        assert!(fuse(Vec::new(), Vec::new(), PRIMARY_WEIGHT).is_empty());
    }

    #[test]
    fn weak_keyword_evidence_weighs_little() {
        let primary = ranking(&[("p1", 0.60), ("p2", 0.58)]);
        // The best keyword hit holds a third of the query's words: its weight is 0.1 · 1/3, too
        // little to pass p1 (0.9·0.58 + 0.1·(1/3)·(1/3) = 0.533 < 0.54).
        let fused = fuse(primary.clone(), ranking(&[("p2", 1.0 / 3.0)]), PRIMARY_WEIGHT);
        assert_eq!(ids(&fused), ["p1", "p2"]);
        // The same keyword hit holding every word of the query does (0.522 + 0.1 = 0.622).
        let fused = fuse(primary, ranking(&[("p2", 1.0)]), PRIMARY_WEIGHT);
        assert_eq!(ids(&fused), ["p2", "p1"]);
        assert!(fused.iter().all(|h| (0.0..=1.0).contains(&h.score)));
    }

    #[test]
    fn a_lexical_only_embedder_lets_the_keyword_ranking_lead() {
        let semantic = ranking(&[("s", 0.9), ("x", 0.5), ("both", 0.4)]);
        let keyword = ranking(&[("k", 0.9), ("y", 0.5), ("both", 0.4)]);
        assert_eq!(ids(&fuse_hybrid(semantic.clone(), keyword.clone(), false, false))[0], "s");
        assert_eq!(ids(&fuse_hybrid(semantic.clone(), keyword.clone(), true, false))[0], "k");
        assert_eq!(
            ids(&fuse_hybrid(semantic, keyword, true, true))[0],
            "k",
            "late interaction only rescores the semantic ranking"
        );
    }

    #[test]
    fn keyword_evidence_weighs_less_against_late_interaction_scores() {
        let semantic = ranking(&[("a", 0.50), ("b", 0.45)]);
        let keyword = ranking(&[("b", 1.0)]);
        // Cosines: b 0.9 · 0.45 + 0.1 = 0.505 passes a's 0.45.
        assert_eq!(ids(&fuse_hybrid(semantic.clone(), keyword.clone(), false, false)), ["b", "a"]);
        // Rescored, α 0.97: b 0.97 · 0.45 + 0.03 = 0.4665 stays under a's 0.485.
        let fused = fuse_hybrid(semantic, keyword, false, true);
        assert_eq!(ids(&fused), ["a", "b"]);
        assert!(close(fused[0].score, 0.485) && close(fused[1].score, 0.4665), "{fused:?}");
    }

    #[test]
    fn further_chunks_of_one_source_give_way_to_other_sources() {
        let (long, other) = (SourceId::generate(), SourceId::generate());
        let of = |source: &SourceId, id: &str, s: f32| ChunkHit { source_id: source.clone(), ..hit(id, s) };
        // Three chunks of one long passage lead the cosines; another source's chunk is close.
        let semantic = vec![of(&long, "l1", 0.70), of(&long, "l2", 0.68), of(&long, "l3", 0.66), of(&other, "o", 0.60)];
        let fused = fuse_hybrid(semantic, Vec::new(), false, false);
        // l1 0.63; l2 0.9 · 0.68 · 0.8 = 0.4896; l3 0.9 · 0.66 · 0.64 = 0.38016; o 0.54.
        assert_eq!(ids(&fused), ["l1", "o", "l2", "l3"]);
        for (h, want) in fused.iter().zip([0.63f32, 0.54, 0.4896, 0.38016]) {
            assert!(close(h.score, want), "{}: {}", h.chunk_id, h.score);
        }
        // One chunk per source: nothing changes.
        let fused = fuse_hybrid(ranking(&[("a", 0.7), ("b", 0.6)]), Vec::new(), false, false);
        assert!(close(fused[1].score, 0.54), "{fused:?}");
        // The demotion counts chunks above, in the order given.
        let mut ranked = vec![("x", 1.0f32), ("y", 1.0), ("x", 1.0), ("x", 1.0)];
        demote_repeated_sources(&mut ranked, |r| r.0, |r| &mut r.1);
        let scores: Vec<f32> = ranked.iter().map(|r| r.1).collect();
        assert!(scores.iter().zip([1.0f32, 1.0, 0.8, 0.64]).all(|(a, b)| close(*a, b)), "{scores:?}");
    }

    fn relevance(pairs: &[(usize, f32)]) -> Vec<Relevance> {
        pairs.iter().map(|&(index, score)| Relevance { index, score }).collect()
    }

    #[test]
    fn a_rerankers_scores_order_the_candidates_it_scored() {
        let fused = ranking(&[("a", 0.9), ("b", 0.8), ("c", 0.7), ("d", 0.6)]);
        // It scored the first three candidates (d was beyond them): c best, then a, then b.
        let out = apply_relevance(fused, &relevance(&[(2, 0.95), (0, 0.40), (1, 0.10)]));
        assert_eq!(ids(&out), ["c", "a", "b", "d"]);
        let scores: Vec<f32> = out.iter().map(|h| h.score).collect();
        assert_eq!(scores, [0.95, 0.40, 0.10, 0.10], "d's 0.6 is capped at the lowest re-ranked score");
    }

    #[test]
    fn candidates_a_reranker_left_out_follow_in_the_fused_order() {
        let fused = ranking(&[("a", 0.9), ("b", 0.8), ("c", 0.7), ("d", 0.05)]);
        // A server answering its top 2 only; an index out of range and a repeated one are ignored.
        let out = apply_relevance(fused, &relevance(&[(1, 0.7), (3, 0.2), (1, 0.99), (9, 1.0)]));
        assert_eq!(ids(&out), ["b", "d", "a", "c"]);
        let scores: Vec<f32> = out.iter().map(|h| h.score).collect();
        assert_eq!(scores, [0.7, 0.2, 0.2, 0.2]);
        // Equal scores keep the fused order; scores outside 0..1 are clipped.
        let out = apply_relevance(ranking(&[("x", 0.9), ("y", 0.8)]), &relevance(&[(1, 3.0), (0, 3.0)]));
        assert_eq!(ids(&out), ["x", "y"]);
        assert!(out.iter().all(|h| h.score == 1.0));
        // Nothing scored: the fused ranking as it was.
        let out = apply_relevance(ranking(&[("x", 0.9), ("y", 0.8)]), &[]);
        assert_eq!((ids(&out), out[1].score), (vec!["x", "y"], 0.8));
    }

    fn with_content(id: &str, raw: f32, content: &str) -> ChunkHit {
        ChunkHit { content: content.into(), ..hit(id, raw) }
    }

    #[test]
    fn keyword_scores_are_meaningful_in_a_tiny_knowledge_base() {
        // BM25 of a word found in two chunks of three is about 0 (SQLite's IDF floor): the scores
        // must not be.
        let mut hits = vec![
            with_content("a", 1e-6, "Refunds are issued within 14 days."),
            with_content("b", 0.9e-6, "We do not offer refunds on gift cards."),
        ];
        score_keyword_hits("refunds", &mut hits);
        assert!(close(hits[0].score, 1.0) && close(hits[1].score, 0.9), "{hits:?}");
        // Half of the query's content words in the best hit: 0.5, the rest relative to it.
        let mut hits =
            vec![with_content("a", 8.0, "Proxy settings live in the config."), with_content("b", 2.0, "A proxy.")];
        score_keyword_hits("how do I set a proxy timeout", &mut hits);
        // Content words: set, proxy, timeout; "settings" is not "set" to the crude stemmer, so
        // the best hit holds 1 of 3.
        assert!(close(hits[0].score, 1.0 / 3.0) && close(hits[1].score, 1.0 / 12.0), "{hits:?}");
        // Scores never increase down the ranking and stay in 0..1.
        assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
        score_keyword_hits("anything", &mut []);
    }

    fn embedding(x: f32) -> Arc<Embedding> {
        Arc::new(Embedding { vector: vec![x; 4], token_states: None })
    }

    #[test]
    fn query_embeddings_forget_the_least_recently_used() {
        // Room for two: 1 byte of query text and 16 of numbers each.
        let cache = QueryEmbeddings::new(2 * 17);
        cache.put("a", embedding(1.0));
        cache.put("b", embedding(2.0));
        assert_eq!(cache.get("a").unwrap().vector[0], 1.0, "a used after b");
        cache.put("c", embedding(3.0));
        assert!(cache.get("b").is_none(), "b was the least recently used");
        assert_eq!(cache.get("a").unwrap().vector[0], 1.0);
        assert_eq!(cache.get("c").unwrap().vector[0], 3.0);
        cache.put("c", embedding(4.0));
        assert_eq!(cache.get("c").unwrap().vector[0], 4.0, "replaced, nothing evicted");
        assert!(cache.get("a").is_some());
        // A question's token states count: one with 8 rows of 4 takes the room of both.
        let states = TokenStates::new(vec![0.5; 32], 8).unwrap();
        let long = Arc::new(Embedding { vector: vec![0.0; 4], token_states: Some(states) });
        QueryEmbeddings::new(2 * 17).put("long", long.clone());
        // 17 + (4 + 16 + 128) = 165 bytes fit in 170; a third entry does not.
        let roomy = QueryEmbeddings::new(170);
        roomy.put("a", embedding(1.0));
        roomy.put("long", long);
        assert!(roomy.get("long").is_some() && roomy.get("a").is_some());
        roomy.put("b", embedding(2.0));
        assert!(roomy.get("long").is_none(), "the least recently used is forgotten to make room");
        assert!(roomy.get("a").is_some() && roomy.get("b").is_some());
        let tiny = QueryEmbeddings::new(2 * 17);
        tiny.put(
            "long",
            Arc::new(Embedding { vector: vec![0.0; 4], token_states: TokenStates::new(vec![0.5; 32], 8) }),
        );
        assert!(tiny.get("long").is_none(), "larger than the whole budget: not kept");
    }

    /// A `make` that counts its calls and yields before answering, so that callers joined with
    /// it overlap it.
    async fn slow_make(
        made: &std::sync::atomic::AtomicUsize,
        answer: Result<Embedding, &'static str>,
    ) -> Result<Embedding, String> {
        made.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        for _ in 0..3 {
            tokio::task::yield_now().await;
        }
        answer.map_err(str::to_owned)
    }

    fn plain(x: f32) -> Embedding {
        Embedding { vector: vec![x; 4], token_states: None }
    }

    #[tokio::test]
    async fn a_query_asked_twice_at_once_is_embedded_once() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let cache = QueryEmbeddings::new(1024);
        let made = AtomicUsize::new(0);
        let any = |_: &Embedding| true;
        let (a, b) = futures::join!(
            cache.get_or_make("q", any, || slow_make(&made, Ok(plain(1.0)))),
            cache.get_or_make("q", any, || slow_make(&made, Ok(plain(2.0)))),
        );
        let (a, b) = (a.unwrap(), b.unwrap());
        assert_eq!(made.load(Ordering::SeqCst), 1, "the second caller waited for the first's embedding");
        assert!(Arc::ptr_eq(&a, &b) && a.vector[0] == 1.0);
        assert!(cache.in_flight.lock().unwrap().is_empty(), "the line is gone with its callers");

        // Another query is not held up by it, and is made by its own caller.
        let (c, d) = futures::join!(
            cache.get_or_make("q", any, || slow_make(&made, Ok(plain(3.0)))),
            cache.get_or_make("other", any, || slow_make(&made, Ok(plain(4.0)))),
        );
        assert_eq!((c.unwrap().vector[0], d.unwrap().vector[0]), (1.0, 4.0), "q cached, other made");
        assert_eq!(made.load(Ordering::SeqCst), 2);

        // The first caller failed: the one waiting shares the failure rather than asking the
        // embedder again (a timing-out embedder would make it wait twice); a later caller asks.
        let (e, f) = futures::join!(
            cache.get_or_make("r", any, || slow_make(&made, Err("embedder down"))),
            cache.get_or_make("r", any, || slow_make(&made, Ok(plain(5.0)))),
        );
        assert_eq!((e.unwrap_err(), f.unwrap_err()), ("embedder down".to_owned(), "embedder down".to_owned()));
        assert_eq!(made.load(Ordering::SeqCst), 3);
        assert!(cache.in_flight.lock().unwrap().is_empty());
        let later = cache.get_or_make("r", any, || slow_make(&made, Ok(plain(5.0)))).await;
        assert_eq!(later.unwrap().vector[0], 5.0);
        assert_eq!(made.load(Ordering::SeqCst), 4);

        // One that needs token states does not take an embedding without them.
        let states = |e: &Embedding| e.token_states.is_some();
        let with_states = Embedding { vector: vec![6.0; 4], token_states: TokenStates::new(vec![0.5; 32], 8) };
        let (g, h) = futures::join!(
            cache.get_or_make("s", any, || slow_make(&made, Ok(plain(6.0)))),
            cache.get_or_make("s", states, || slow_make(&made, Ok(with_states))),
        );
        assert!(g.unwrap().token_states.is_none() && h.unwrap().token_states.is_some());
        assert_eq!(made.load(Ordering::SeqCst), 6);
        assert!(cache.in_flight.lock().unwrap().is_empty());

        // A cache that keeps nothing (a budget of 0) still hands the embedding to the one waiting.
        let keeps_none = QueryEmbeddings::new(0);
        let (i, j) = futures::join!(
            keeps_none.get_or_make("q", any, || slow_make(&made, Ok(plain(7.0)))),
            keeps_none.get_or_make("q", any, || slow_make(&made, Ok(plain(8.0)))),
        );
        assert_eq!((i.unwrap().vector[0], j.unwrap().vector[0]), (7.0, 7.0));
        assert_eq!(made.load(Ordering::SeqCst), 7);
        assert!(keeps_none.get("q").is_none() && keeps_none.in_flight.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_caller_that_gives_up_leaves_no_line_behind() {
        let cache = QueryEmbeddings::new(1024);
        let made = std::sync::atomic::AtomicUsize::new(0);
        let any = |_: &Embedding| true;
        let first = cache.get_or_make("q", any, || slow_make(&made, Ok(plain(1.0))));
        // Dropped while making: the turn is released and the line removed.
        let gave_up = futures::FutureExt::now_or_never(first);
        assert!(gave_up.is_none(), "still making when dropped");
        assert!(cache.in_flight.lock().unwrap().is_empty());
        let again = cache.get_or_make("q", any, || slow_make(&made, Ok(plain(2.0)))).await.unwrap();
        assert_eq!(again.vector[0], 2.0, "a later caller makes it");
    }

    fn signed(id: &str, cosine: f32, rows: &[[f32; 8]]) -> ChunkHit {
        let signs = TokenStates::new(rows.concat(), 8).map(|s| s.signs());
        ChunkHit { token_signs: signs, ..hit(id, cosine) }
    }

    #[test]
    fn late_interaction_reorders_the_semantic_candidates() {
        let unit = |v: [f32; 8]| v.map(|x| x / 8f32.sqrt());
        let question = TokenStates::new([unit([1.0; 8]), unit([1., 1., 1., 1., -1., -1., -1., -1.])].concat(), 8);
        let question = question.unwrap();
        // b matches both question tokens exactly (MaxSim 1), a only the first (MaxSim 0.5).
        let a = signed("a", 0.70, &[[1.0; 8], [1.0; 8]]);
        let b = signed("b", 0.60, &[[1.0; 8], [1.0; 8], [1., 1., 1., 1., -1., -1., -1., -1.]]);
        let mut hits = vec![a.clone(), b.clone()];
        assert!(rescore_late_interaction(&mut hits, &question));
        assert_eq!(ids(&hits), ["b", "a"]);
        // b: 0.1 · 0.6 + 0.9 · 1 = 0.96; a: 0.1 · 0.7 + 0.9 · 0.5 = 0.52.
        assert!(close(hits[0].score, 0.96) && close(hits[1].score, 0.52), "{hits:?}");
        // A candidate without signs (stored before): the cosine order stands, scores untouched.
        let mut mixed = vec![a, b, hit("old", 0.5)];
        assert!(!rescore_late_interaction(&mut mixed, &question));
        assert_eq!(ids(&mixed), ["a", "b", "old"]);
        assert!(close(mixed[0].score, 0.70));
    }

    #[test]
    fn requests_are_validated_field_by_field() {
        let ok = SearchRequest::parse(SearchInput { query: Some(" refund "), ..Default::default() }).unwrap();
        assert_eq!((ok.query.as_str(), ok.top_k, ok.mode, ok.filter), ("refund", 5, SearchMode::Hybrid, None));
        let types = ["pdf".to_owned()];
        let filter = serde_json::json!({"type": "like"});
        let e = SearchRequest::parse(SearchInput {
            query: Some(""),
            top_k: Some(0),
            mode: Some("fuzzy"),
            min_score: Some(1.5),
            source_ids: None,
            types: Some(&types),
            filter: Some(&filter),
            language: Some("xx"),
        })
        .unwrap_err();
        for f in ["query", "topK", "mode", "minScore", "types", "filter", "language"] {
            assert!(e.fields.contains_key(f), "{f}: {e:?}");
        }
        let long = "q".repeat(2001);
        assert!(SearchRequest::parse(SearchInput { query: Some(&long), ..Default::default() }).is_err());
        let longest = "q".repeat(2000);
        let filter = serde_json::json!({"type": "eq", "key": "lang", "value": "en"});
        let ok = SearchRequest::parse(SearchInput {
            query: Some(&longest),
            top_k: Some(50),
            mode: Some("keyword"),
            min_score: Some(0.0),
            filter: Some(&filter),
            ..Default::default()
        })
        .unwrap();
        assert!(ok.filter.is_some());
    }
}
