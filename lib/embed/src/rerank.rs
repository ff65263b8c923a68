//! A re-ranking model behind the `/rerank` API that Cohere made common and that Jina, vLLM,
//! Infinity, llama.cpp's server and others serve: `POST {base_url}/rerank` with
//! `{model, query, documents, top_n}`, answered by `{results: [{index, relevance_score}]}`.
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `LORE_RERANK_BASE_URL` | the API base, up to its version (`https://api.cohere.com/v2`, `http://localhost:8000/v1`); set: re-ranking on | — (off) |
//! | `LORE_RERANK_API_KEY` | sent as `Authorization: Bearer …` | none sent |
//! | `LORE_RERANK_MODEL` | the request's `model` | not sent (servers of one model) |
//! | `LORE_RERANK_TIMEOUT_MS` | the deadline of one re-ranking, retry included (1–60,000) | 2,000 |
//!
//! Answers are read leniently, for the servers that differ: the list under `results` or `data`
//! or the answer itself, each score under `relevance_score` or `score`. Scores in 0..1 are kept;
//! a model answering raw logits (any score outside 0..1) has them mapped through the logistic
//! function, so that a search's scores stay in 0..1. An answer over 1 MiB, an index it was not
//! given or a score that is not a number is malformed. One retry of a transient failure (429,
//! 5xx, transport) within the deadline.

use crate::error::ConfigError;
use async_trait::async_trait;
use lore_app::ports::{Relevance, RerankError, Reranker};
use lore_openai::{Failure, Retries, post_json_capped};
use serde_json::{Value, json};
use std::time::Duration;

pub const ENV_RERANK_BASE_URL: &str = "LORE_RERANK_BASE_URL";
pub const ENV_RERANK_API_KEY: &str = "LORE_RERANK_API_KEY";
pub const ENV_RERANK_MODEL: &str = "LORE_RERANK_MODEL";
pub const ENV_RERANK_TIMEOUT_MS: &str = "LORE_RERANK_TIMEOUT_MS";

/// Every variable of the module documentation.
pub const RERANK_VARS: &[&str] = &[ENV_RERANK_BASE_URL, ENV_RERANK_API_KEY, ENV_RERANK_MODEL, ENV_RERANK_TIMEOUT_MS];

/// The default deadline of one re-ranking: a visitor waits for it before the answer starts.
pub const DEFAULT_RERANK_TIMEOUT: Duration = Duration::from_secs(2);
/// The largest answer read: a hundred scores take a few kilobytes.
pub const MAX_ANSWER_BYTES: usize = 1024 * 1024;

/// Settings of [`HttpReranker`].
#[derive(Clone, PartialEq, Eq)]
pub struct RerankerConfig {
    /// Up to the version segment; `/rerank` is appended.
    pub base_url: String,
    pub api_key: Option<String>,
    pub model: Option<String>,
    /// One re-ranking's deadline, retry included.
    pub timeout: Duration,
}

impl std::fmt::Debug for RerankerConfig {
    // The key is a secret: never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RerankerConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("model", &self.model)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl RerankerConfig {
    /// The variables of the module documentation through `lookup` (which gives each value
    /// trimmed, and none for an empty one); `None` without `LORE_RERANK_BASE_URL` (re-ranking
    /// off). Every value is checked either way.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Option<Self>, ConfigError> {
        let timeout = match lookup(ENV_RERANK_TIMEOUT_MS) {
            None => DEFAULT_RERANK_TIMEOUT,
            Some(raw) => match raw.parse::<u64>() {
                Ok(ms) if (1..=60_000).contains(&ms) => Duration::from_millis(ms),
                _ => return Err(ConfigError::InvalidSetting { name: ENV_RERANK_TIMEOUT_MS, value: raw }),
            },
        };
        let Some(base_url) = lookup(ENV_RERANK_BASE_URL) else { return Ok(None) };
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(ConfigError::InvalidSetting { name: ENV_RERANK_BASE_URL, value: base_url });
        }
        Ok(Some(Self {
            base_url: base_url.trim_end_matches('/').to_owned(),
            api_key: lookup(ENV_RERANK_API_KEY),
            model: lookup(ENV_RERANK_MODEL),
            timeout,
        }))
    }

    /// With `key` (read from a secret store) as the key when `LORE_RERANK_API_KEY` gave none.
    pub fn with_api_key_if_missing(mut self, key: Option<&str>) -> Self {
        if self.api_key.is_none() {
            self.api_key = key.map(str::to_owned);
        }
        self
    }

    pub fn build(self) -> Result<HttpReranker, ConfigError> {
        let http = lore_openai::http_client(self.timeout).map_err(ConfigError::HttpClient)?;
        Ok(HttpReranker { url: format!("{}/rerank", self.base_url), http, config: self })
    }
}

/// [`Reranker`] over HTTP (module documentation).
pub struct HttpReranker {
    config: RerankerConfig,
    url: String,
    http: reqwest::Client,
}

#[async_trait]
impl Reranker for HttpReranker {
    async fn rerank(&self, query: &str, documents: &[String]) -> Result<Vec<Relevance>, RerankError> {
        if documents.is_empty() {
            return Ok(Vec::new());
        }
        let mut body = json!({ "query": query, "documents": documents, "top_n": documents.len() });
        if let Some(model) = &self.config.model {
            body["model"] = json!(model);
        }
        let retries = Retries {
            max_retries: 1,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(100),
            // A longer wait than that would miss the deadline anyway.
            max_retry_after: self.config.timeout / 4,
        };
        let key = self.config.api_key.as_deref();
        let attempts = retries.run(
            || post_json_capped(&self.http, &self.url, key, &body, MAX_ANSWER_BYTES),
            |n, delay, why| tracing::debug!(retry = n, ?delay, %why, "re-ranker: retrying"),
        );
        let answer = match tokio::time::timeout(self.config.timeout, attempts).await {
            Err(_) => return Err(RerankError::Unavailable(format!("no answer within {:?}", self.config.timeout))),
            Ok(Err(Failure::Permanent(m) | Failure::TooLarge(m) | Failure::Transient { message: m, .. })) => {
                return Err(RerankError::Unavailable(m));
            }
            Ok(Ok(bytes)) => bytes,
        };
        parse_answer(&answer, documents.len())
    }

    fn describe(&self) -> String {
        match &self.config.model {
            Some(model) => format!("{model} at {}", self.config.base_url),
            None => self.config.base_url.clone(),
        }
    }
}

/// The relevances of a `/rerank` answer about `count` documents, best first, in 0..1 (module
/// documentation).
pub fn parse_answer(bytes: &[u8], count: usize) -> Result<Vec<Relevance>, RerankError> {
    let malformed = |why: &str| RerankError::Malformed(why.to_owned());
    let answer: Value = serde_json::from_slice(bytes).map_err(|e| RerankError::Malformed(e.to_string()))?;
    let list = match &answer {
        Value::Array(items) => items,
        Value::Object(o) => match o.get("results").or_else(|| o.get("data")) {
            Some(Value::Array(items)) => items,
            _ => return Err(malformed("no `results` list")),
        },
        _ => return Err(malformed("not a JSON object or list")),
    };
    let mut out = Vec::with_capacity(list.len().min(count));
    for item in list {
        let index = item.get("index").and_then(Value::as_u64).ok_or_else(|| malformed("a result without `index`"))?;
        let index = usize::try_from(index).ok().filter(|i| *i < count).ok_or_else(|| malformed("an unknown index"))?;
        let score = item
            .get("relevance_score")
            .or_else(|| item.get("score"))
            .and_then(Value::as_f64)
            .filter(|s| s.is_finite())
            .ok_or_else(|| malformed("a result without a numeric score"))?;
        out.push((index, score));
    }
    let probabilities = out.iter().all(|(_, s)| (0.0..=1.0).contains(s));
    let mut relevance: Vec<Relevance> = out
        .into_iter()
        .map(|(index, s)| Relevance { index, score: if probabilities { s } else { 1.0 / (1.0 + (-s).exp()) } as f32 })
        .collect();
    relevance.sort_by(|a, b| b.score.total_cmp(&a.score));
    Ok(relevance)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> Result<Option<RerankerConfig>, ConfigError> {
        let vars: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        RerankerConfig::from_lookup(|name| vars.get(name).cloned())
    }

    #[test]
    fn off_unless_a_base_url_is_set_and_every_value_is_checked() {
        assert_eq!(config(&[]).unwrap(), None);
        let c = config(&[(ENV_RERANK_BASE_URL, "http://127.0.0.1:9/v1/"), (ENV_RERANK_API_KEY, "sk-secret")])
            .unwrap()
            .unwrap();
        assert_eq!(
            (c.base_url.as_str(), c.timeout, c.model.as_deref()),
            ("http://127.0.0.1:9/v1", DEFAULT_RERANK_TIMEOUT, None)
        );
        assert!(!format!("{c:?}").contains("sk-secret"), "the key is never printed");
        let c = config(&[
            (ENV_RERANK_BASE_URL, "https://x"),
            (ENV_RERANK_MODEL, "rerank-v3.5"),
            (ENV_RERANK_TIMEOUT_MS, "750"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!((c.model.as_deref(), c.timeout), (Some("rerank-v3.5"), Duration::from_millis(750)));
        for (name, value) in [
            (ENV_RERANK_BASE_URL, "localhost:8000"),
            (ENV_RERANK_TIMEOUT_MS, "0"),
            (ENV_RERANK_TIMEOUT_MS, "60001"),
            (ENV_RERANK_TIMEOUT_MS, "2s"),
        ] {
            let mut vars = vec![(ENV_RERANK_BASE_URL, "http://x")];
            vars.push((name, value));
            let e = config(&vars).unwrap_err();
            assert!(e.to_string().contains(name), "{e}");
        }
    }

    #[test]
    fn answers_in_each_servers_shape_are_read_best_first() {
        let cohere =
            br#"{"id":"x","results":[{"index":1,"relevance_score":0.2},{"index":0,"relevance_score":0.9}],"meta":{}}"#;
        let voyage =
            br#"{"object":"list","data":[{"index":0,"relevance_score":0.9},{"index":1,"relevance_score":0.2}]}"#;
        let tei = br#"[{"index":1,"score":0.2},{"index":0,"score":0.9}]"#;
        for answer in [&cohere[..], &voyage[..], &tei[..]] {
            let r = parse_answer(answer, 2).unwrap();
            assert_eq!(r, [Relevance { index: 0, score: 0.9 }, Relevance { index: 1, score: 0.2 }]);
        }
    }

    #[test]
    fn logits_are_mapped_into_0_to_1_in_their_order() {
        let r = parse_answer(br#"{"results":[{"index":0,"relevance_score":-3.5},{"index":1,"relevance_score":4.0},{"index":2,"relevance_score":0.5}]}"#, 3)
            .unwrap();
        assert_eq!(r.iter().map(|r| r.index).collect::<Vec<_>>(), [1, 2, 0]);
        assert!(r.iter().all(|r| (0.0..=1.0).contains(&r.score)));
        assert!((r[1].score - 0.622_459).abs() < 1e-4, "0.5 is a logit here too: {r:?}");
    }

    #[test]
    fn malformed_answers_are_refused() {
        for answer in [
            &b"not json"[..],
            br#"{"results":"no"}"#,
            br#"{"results":[{"relevance_score":0.5}]}"#,
            br#"{"results":[{"index":2,"relevance_score":0.5}]}"#,
            br#"{"results":[{"index":0,"relevance_score":"high"}]}"#,
            br#"{"results":[{"index":-1,"relevance_score":0.5}]}"#,
            br#""text""#,
        ] {
            assert!(
                matches!(parse_answer(answer, 2), Err(RerankError::Malformed(_))),
                "{}",
                String::from_utf8_lossy(answer)
            );
        }
    }
}
