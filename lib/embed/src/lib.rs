//! Embedding providers implementing [`lore_app::ports::Embedder`]:
//!
//! - [`MiniLmEmbedder`] (`all-minilm-l6-v2`, 384 dimensions): the all-MiniLM-L6-v2 sentence model
//!   run on the CPU by our own encoder (`gemm` matrix kernels), from files put in place by `scripts/fetch-model.sh`; semantic
//!   similarity, offline.
//! - [`LocalEmbedder`] (`lore-local-hash-v1`, 384 dimensions): built in, deterministic, offline;
//!   lexical similarity only. The fallback when the MiniLM files are missing.
//! - [`OpenAiEmbedder`]: OpenAI or any OpenAI-compatible server, over `async-openai`, batched within
//!   the API's limits ([`batch`]) and retried with backoff.
//!
//! - [`HttpReranker`]: an optional re-ranking model behind a `/rerank` API (Cohere's shape), for
//!   hybrid search's best candidates ([`RerankerConfig::from_lookup`]).
//!
//! [`EmbedderSettings::from_lookup`] parses `LORE_EMBEDDER`, `LORE_MODEL_DIR` and the rest (as the
//! settings read them, at start); [`EmbedderSettings::config`] picks one. Every vector returned has unit length; with `local` and `openai` a text without
//! content gets a fixed unit vector, with MiniLM the model's vector of `[CLS] [SEP]`.

pub mod batch;
#[cfg(any(feature = "minilm", feature = "e5"))]
mod bert;
pub mod config;
pub mod e5;
mod error;
pub mod local;
pub mod minilm;
pub mod openai;
pub mod rerank;

pub use batch::BatchLimits;
pub use config::{ConfigError, EmbedderConfig, EmbedderSettings, model_dir_from_lookup};
pub use e5::{E5_DIMENSIONS, E5_MODEL_ID};
#[cfg(feature = "e5")]
pub use e5::{E5Embedder, E5Error};
pub use local::{LOCAL_DIMENSIONS, LOCAL_MODEL_ID, LocalEmbedder};
pub use lore_app::ports::{EmbedError, Embedder};
pub use minilm::{MINILM_DIMENSIONS, MINILM_MAX_TOKENS, MINILM_MODEL_ID};
#[cfg(feature = "minilm")]
pub use minilm::{MiniLmEmbedder, MiniLmError};
pub use openai::{OpenAiEmbedder, OpenAiEmbedderConfig};
pub use rerank::{HttpReranker, RerankerConfig};
