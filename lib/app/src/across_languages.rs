//! A conversation's search across the knowledge's languages (docs/api.md §20, docs/decisions.md
//! "Languages of knowledge and answers"): when a language model is configured and the passages
//! found are in other languages than the question, the question is also translated into those
//! languages by the model and searched in each; the runs are merged, each passage at its best
//! score. Without a model, or when the translation fails, the first search stands.

use crate::search::{SearchHit, SearchRequest, SearchResults};
use crate::{App, AppError};
use lore_domain::id::WorkspaceId;
use lore_domain::language::Language;
use lore_domain::source::SourceOwner;
use std::collections::HashMap;
use std::time::Instant;
use tracing::Instrument;

/// Languages a question is translated into, at most: each is one more search.
pub const MAX_TRANSLATIONS: usize = 2;

impl App {
    /// [`App::search_in`], then again in the passages' other languages when the responder can
    /// translate (module documentation).
    pub(crate) async fn search_across_languages(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        req: SearchRequest,
    ) -> Result<SearchResults, AppError> {
        let started = Instant::now();
        let first = self.search_in(ws, owner, req.clone()).await?;
        let Some(question) = Language::detect_question(&req.query) else { return Ok(first) };
        let targets = other_languages(question, &first.hits);
        if targets.is_empty() {
            return Ok(first);
        }
        let translated = self
            .ports
            .shared
            .responder
            .translate_question(&req.query, &targets)
            .instrument(tracing::debug_span!("search.translate"))
            .await;
        let translations = match translated {
            Ok(t) if !t.is_empty() => t,
            Ok(_) => return Ok(first),
            Err(e) => {
                tracing::warn!(error = %e, "translating the question failed; searching it as written only");
                return Ok(first);
            }
        };
        let searches = translations.into_iter().map(|(_, query)| {
            let req = SearchRequest { query, ..req.clone() };
            self.search_in(ws, owner, req)
        });
        let mut runs = vec![first.hits];
        for results in futures::future::join_all(searches).await {
            // The first search stands: a translation's search that fails only narrows the answer.
            match results {
                Ok(r) => runs.push(r.hits),
                Err(e) => tracing::warn!(error = %e, "searching a translation of the question failed"),
            }
        }
        Ok(SearchResults { hits: merge_best(runs, req.top_k), took_ms: started.elapsed().as_secs_f64() * 1000.0 })
    }
}

/// The languages of `hits` other than `question`'s, most passages first (ties in the order first
/// seen), at most [`MAX_TRANSLATIONS`].
fn other_languages(question: Language, hits: &[SearchHit]) -> Vec<Language> {
    let others = hits.iter().filter_map(|h| h.language).filter(|l| *l != question);
    Language::by_frequency(others).into_iter().take(MAX_TRANSLATIONS).collect()
}

/// One ranking from several of the same knowledge: each passage once, at its best score
/// (scores of every mode are 0..1 relevances, comparable from one question to the next), best
/// first, ties in the order of the runs, the first `top_k`.
fn merge_best(runs: Vec<Vec<SearchHit>>, top_k: usize) -> Vec<SearchHit> {
    let mut best: HashMap<String, usize> = HashMap::new();
    let mut merged: Vec<SearchHit> = Vec::new();
    for hit in runs.into_iter().flatten() {
        match best.get(&hit.chunk_id) {
            Some(&i) if merged[i].score >= hit.score => {}
            Some(&i) => merged[i] = hit,
            None => {
                best.insert(hit.chunk_id.clone(), merged.len());
                merged.push(hit);
            }
        }
    }
    merged.sort_by(|a, b| b.score.total_cmp(&a.score));
    merged.truncate(top_k);
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_domain::id::SourceId;
    use lore_domain::source::SourceType;

    fn hit(id: &str, score: f32, language: Option<Language>) -> SearchHit {
        SearchHit {
            chunk_id: id.into(),
            source_id: SourceId::generate(),
            source_name: id.into(),
            source_type: SourceType::Text,
            content: String::new(),
            score,
            position: 0,
            url: None,
            language,
        }
    }

    #[test]
    fn the_passages_other_languages_most_first_at_most_two() {
        use Language::*;
        let hits = [
            hit("a", 0.9, Some(English)),
            hit("b", 0.8, Some(French)),
            hit("c", 0.7, Some(German)),
            hit("d", 0.6, Some(German)),
            hit("e", 0.5, None),
            hit("f", 0.4, Some(Japanese)),
        ];
        assert_eq!(other_languages(English, &hits), vec![German, French]);
        assert_eq!(other_languages(German, &hits), vec![English, French], "ties in the order seen");
        assert!(other_languages(English, &hits[..1]).is_empty(), "nothing to translate into");
        assert!(other_languages(English, &[]).is_empty());
    }

    #[test]
    fn runs_merge_with_each_passage_at_its_best_score() {
        let first = vec![hit("a", 0.30, None), hit("b", 0.20, None)];
        let translated = vec![hit("c", 0.80, None), hit("a", 0.50, None), hit("b", 0.10, None)];
        let merged = merge_best(vec![first, translated], 10);
        let got: Vec<(&str, f32)> = merged.iter().map(|h| (h.chunk_id.as_str(), h.score)).collect();
        assert_eq!(got, vec![("c", 0.80), ("a", 0.50), ("b", 0.20)]);
        assert_eq!(merge_best(vec![vec![hit("x", 0.5, None), hit("y", 0.5, None)]], 1)[0].chunk_id, "x");
    }
}
