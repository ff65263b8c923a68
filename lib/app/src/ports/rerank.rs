//! An optional re-ranking model: scores candidate passages against a question, one pair at a
//! time (a cross-encoder), more precisely than the index's rankings can. Off unless configured.

use async_trait::async_trait;

/// A re-ranker's relevance of one candidate: `index` into the documents it was given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Relevance {
    pub index: usize,
    /// In 0..1, higher is more relevant (the adapter maps the model's own scale there).
    pub score: f32,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RerankError {
    /// The model could not be reached or answered with an error, within its deadline.
    #[error("the re-ranker is unavailable: {0}")]
    Unavailable(String),
    /// The answer was not in a re-ranker's format (or named documents it was not given).
    #[error("the re-ranker's answer is malformed: {0}")]
    Malformed(String),
}

#[async_trait]
pub trait Reranker: Send + Sync {
    /// The relevance of each of `documents` to `query`, best first. Documents the model left out
    /// of its answer are missing from it.
    async fn rerank(&self, query: &str, documents: &[String]) -> Result<Vec<Relevance>, RerankError>;
    /// Which model re-ranks, for the start-up banner (no secrets).
    fn describe(&self) -> String;
}
