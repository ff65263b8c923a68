//! The BERT encoder of all-MiniLM-L6-v2, computed directly on f32 buffers: matrix products by the
//! `gemm` crate (the kernels candle itself calls), every element-wise step fused into one pass
//! (`kernels.rs`), and no padding at all.
//!
//! Why not candle's BERT (used until 2026-11-27): it computed the same products, but each
//! element-wise step (bias, GELU by scalar `erf`, masking, softmax in four passes, residual adds)
//! was a separate operator over a freshly allocated tensor, and together they took ~70 % of the
//! time (docs/benchmarks.md, "Ingest embedding"). A batch was also padded to its longest input.
//!
//! Padding is not needed because no token attends to another input's tokens: the dense layers
//! run on all the batch's tokens at once (one row per token), and attention runs per input and
//! head over that input's own tokens only. A padded token in candle's batch was masked out of
//! every real token's attention, so the vectors are those of candle's forward pass, up to float
//! rounding (tests/minilm.rs holds them to sentence-transformers' reference vectors).

use super::VectorWithTokenStates;
use super::kernels::Kernels;
use super::weights::FileTensors;
use gemm::{Parallelism, gemm};
use rayon::prelude::*;

/// The shape of the network, from the model's `config.json`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Config {
    pub(super) vocab_size: usize,
    pub(super) hidden_size: usize,
    pub(super) layers: usize,
    pub(super) heads: usize,
    pub(super) intermediate_size: usize,
    pub(super) max_positions: usize,
    pub(super) token_types: usize,
    pub(super) layer_norm_eps: f32,
}

impl Config {
    /// Reads a BERT `config.json`; only the exact-GELU BERT this encoder computes is accepted.
    pub(super) fn parse(json: &serde_json::Value) -> Result<Self, String> {
        let number = |key: &str| -> Result<usize, String> {
            json.get(key)
                .and_then(serde_json::Value::as_u64)
                .filter(|&n| n > 0 && n <= 1 << 20)
                .map(|n| n as usize)
                .ok_or_else(|| format!("not a BERT configuration: {key} missing or out of range"))
        };
        let activation = json.get("hidden_act").and_then(serde_json::Value::as_str);
        if activation != Some("gelu") {
            return Err(format!("hidden_act {activation:?}, expected \"gelu\""));
        }
        let config = Self {
            vocab_size: number("vocab_size")?,
            hidden_size: number("hidden_size")?,
            layers: number("num_hidden_layers")?,
            heads: number("num_attention_heads")?,
            intermediate_size: number("intermediate_size")?,
            max_positions: number("max_position_embeddings")?,
            token_types: number("type_vocab_size")?,
            layer_norm_eps: json.get("layer_norm_eps").and_then(serde_json::Value::as_f64).unwrap_or(1e-12) as f32,
        };
        if !config.hidden_size.is_multiple_of(config.heads) {
            return Err(format!("hidden_size {} is not a multiple of {} heads", config.hidden_size, config.heads));
        }
        Ok(config)
    }

    fn head_size(&self) -> usize {
        self.hidden_size / self.heads
    }
}

/// A dense layer as PyTorch stores it: `weight` is `outputs × inputs`, row-major.
struct Dense {
    weight: Vec<f32>,
    bias: Vec<f32>,
    inputs: usize,
    outputs: usize,
}

/// A layer normalisation's scale and shift.
struct Norm {
    gamma: Vec<f32>,
    beta: Vec<f32>,
}

/// One transformer layer. Query, key and value are one dense layer of three times the width,
/// so that one matrix product computes all three.
struct Layer {
    query_key_value: Dense,
    attention_output: Dense,
    attention_norm: Norm,
    intermediate: Dense,
    output: Dense,
    output_norm: Norm,
}

/// The network's weights, and the kernels for this processor.
pub(super) struct Encoder {
    config: Config,
    word_embeddings: Vec<f32>,
    position_embeddings: Vec<f32>,
    token_type_embeddings: Vec<f32>,
    embedding_norm: Norm,
    layers: Vec<Layer>,
    kernels: Kernels,
}

/// One input: its token ids and token type ids (the same length).
pub(super) struct Input<'a> {
    pub(super) ids: &'a [u32],
    pub(super) type_ids: &'a [u32],
}

/// The buffers of a batch, kept from one batch to the next: every batch of an embedding call
/// reuses the same memory instead of asking the kernel for fresh pages.
#[derive(Default)]
pub(super) struct Scratch {
    hidden: Vec<f32>,
    query_key_value: Vec<f32>,
    context: Vec<f32>,
    intermediate: Vec<f32>,
}

impl Encoder {
    /// Reads every weight from `tensors`, checking its shape against `config`.
    pub(super) fn load(tensors: &FileTensors, config: Config) -> Result<Self, String> {
        // sentence-transformers saves the bare encoder; a full BERT checkpoint has a `bert.` prefix.
        let prefix = if tensors.contains("bert.embeddings.word_embeddings.weight") { "bert." } else { "" };
        let read = |name: &str, shape: &[usize]| tensors.read(&format!("{prefix}{name}"), shape);
        // Older checkpoints call a layer norm's weight and bias gamma and beta.
        let norm = |name: &str, width: usize| -> Result<Norm, String> {
            let named = |new: &str, old: &str| {
                let new = format!("{name}.{new}");
                if tensors.contains(&format!("{prefix}{new}")) { new } else { format!("{name}.{old}") }
            };
            Ok(Norm {
                gamma: read(&named("weight", "gamma"), &[width])?,
                beta: read(&named("bias", "beta"), &[width])?,
            })
        };
        let dense = |name: &str, inputs: usize, outputs: usize| -> Result<Dense, String> {
            Ok(Dense {
                weight: read(&format!("{name}.weight"), &[outputs, inputs])?,
                bias: read(&format!("{name}.bias"), &[outputs])?,
                inputs,
                outputs,
            })
        };
        let (h, i) = (config.hidden_size, config.intermediate_size);
        let layers = (0..config.layers)
            .map(|n| {
                let at = |part: &str| format!("encoder.layer.{n}.{part}");
                let [q, k, v] = ["query", "key", "value"].map(|p| dense(&at(&format!("attention.self.{p}")), h, h));
                let (q, k, v) = (q?, k?, v?);
                let query_key_value = Dense {
                    weight: [q.weight, k.weight, v.weight].concat(),
                    bias: [q.bias, k.bias, v.bias].concat(),
                    inputs: h,
                    outputs: 3 * h,
                };
                Ok(Layer {
                    query_key_value,
                    attention_output: dense(&at("attention.output.dense"), h, h)?,
                    attention_norm: norm(&at("attention.output.LayerNorm"), h)?,
                    intermediate: dense(&at("intermediate.dense"), h, i)?,
                    output: dense(&at("output.dense"), i, h)?,
                    output_norm: norm(&at("output.LayerNorm"), h)?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Self {
            word_embeddings: read("embeddings.word_embeddings.weight", &[config.vocab_size, h])?,
            position_embeddings: read("embeddings.position_embeddings.weight", &[config.max_positions, h])?,
            token_type_embeddings: read("embeddings.token_type_embeddings.weight", &[config.token_types, h])?,
            embedding_norm: norm("embeddings.LayerNorm", h)?,
            layers,
            config,
            kernels: Kernels::for_this_cpu(),
        })
    }

    /// The mean-pooled, L2-normalised vector of each input (the sentence embedding). Runs its
    /// parallel parts on the current rayon pool. An id or position the model does not have is an
    /// error.
    pub(super) fn embed(&self, inputs: &[Input<'_>], scratch: &mut Scratch) -> Result<Vec<Vec<f32>>, String> {
        self.read_out(inputs, scratch, |rows| self.pool(rows))
    }

    /// Mean pooling of an input's rows, then unit length.
    fn pool(&self, rows: &[f32]) -> Result<Vec<f32>, String> {
        // The sum, not the mean: the mean's 1/n cancels in the normalisation.
        let mut sum = vec![0f32; self.config.hidden_size];
        for row in rows.chunks_exact(self.config.hidden_size) {
            sum.iter_mut().zip(row).for_each(|(s, x)| *s += x);
        }
        unit(&mut sum)?;
        Ok(sum)
    }

    /// Per input, its sentence vector (as [`Self::embed`] makes it) and the final hidden state of
    /// each of its tokens (`[CLS]` and `[SEP]` included), each scaled to unit length, one row of
    /// `hidden_size` after another: what a late-interaction score (MaxSim) compares. One pass
    /// gives both.
    pub(super) fn embed_with_token_states(
        &self,
        inputs: &[Input<'_>],
        scratch: &mut Scratch,
    ) -> Result<Vec<VectorWithTokenStates>, String> {
        self.read_out(inputs, scratch, |rows| {
            let mut states = rows.to_vec();
            states.chunks_exact_mut(self.config.hidden_size).try_for_each(unit)?;
            Ok(VectorWithTokenStates { vector: self.pool(rows)?, token_states: states })
        })
    }

    /// Runs the network over `inputs` and turns each input's final hidden states (its rows) into
    /// its output with `f`.
    fn read_out<T>(
        &self,
        inputs: &[Input<'_>],
        scratch: &mut Scratch,
        f: impl Fn(&[f32]) -> Result<T, String>,
    ) -> Result<Vec<T>, String> {
        let starts = self.forward(inputs, scratch)?;
        let h = self.config.hidden_size;
        inputs
            .iter()
            .zip(&starts)
            .map(|(input, &start)| f(&scratch.hidden[start * h..(start + input.ids.len()) * h]))
            .collect()
    }

    /// Runs the network over `inputs` (unpadded, one after another in `scratch.hidden`) and
    /// returns where each input's rows start.
    fn forward(&self, inputs: &[Input<'_>], scratch: &mut Scratch) -> Result<Vec<usize>, String> {
        let c = &self.config;
        let h = c.hidden_size;
        let mut starts = Vec::with_capacity(inputs.len());
        let mut tokens = 0;
        for input in inputs {
            if input.ids.is_empty() || input.ids.len() > c.max_positions || input.type_ids.len() != input.ids.len() {
                return Err(format!(
                    "an input of {} tokens (the model reads 1 to {})",
                    input.ids.len(),
                    c.max_positions
                ));
            }
            starts.push(tokens);
            tokens += input.ids.len();
        }
        let Scratch { hidden, query_key_value, context, intermediate } = scratch;
        let widths = [h, 3 * h, h, c.intermediate_size];
        for (buffer, width) in
            [&mut *hidden, &mut *query_key_value, &mut *context, &mut *intermediate].into_iter().zip(widths)
        {
            buffer.clear();
            buffer.resize(tokens * width, 0.0);
        }

        // Embeddings: word + position + token type, then layer norm.
        for (input, &start) in inputs.iter().zip(&starts) {
            for (position, (&id, &type_id)) in input.ids.iter().zip(input.type_ids).enumerate() {
                let (id, type_id) = (id as usize, type_id as usize);
                if id >= c.vocab_size || type_id >= c.token_types {
                    return Err(format!("token id {id} or type {type_id} is not in the model's vocabulary"));
                }
                let row = &mut hidden[(start + position) * h..][..h];
                let word = &self.word_embeddings[id * h..][..h];
                let place = &self.position_embeddings[position * h..][..h];
                let kind = &self.token_type_embeddings[type_id * h..][..h];
                for (((x, w), p), t) in row.iter_mut().zip(word).zip(place).zip(kind) {
                    *x = w + t + p;
                }
            }
        }
        let zeros = vec![0.0; h];
        self.norm_rows(hidden, &zeros, &self.embedding_norm);

        for layer in &self.layers {
            // hidden → query, key and value of every token; attention per input and head.
            for row in query_key_value.chunks_exact_mut(3 * h) {
                row.copy_from_slice(&layer.query_key_value.bias);
            }
            layer.query_key_value.multiply(hidden, tokens, query_key_value, true);
            self.attend(query_key_value, context, inputs, &starts);
            // Residual: hidden += context · Wᵀ, then hidden = norm(hidden + bias).
            layer.attention_output.multiply(context, tokens, hidden, true);
            self.norm_rows(hidden, &layer.attention_output.bias, &layer.attention_norm);
            // Feed-forward: GELU(hidden · W₁ᵀ + b₁) · W₂ᵀ, added to hidden, then the norm.
            layer.intermediate.multiply(hidden, tokens, intermediate, false);
            for_each_part(intermediate, c.intermediate_size, |part| {
                (self.kernels.bias_gelu)(part, &layer.intermediate.bias)
            });
            layer.output.multiply(intermediate, tokens, hidden, true);
            self.norm_rows(hidden, &layer.output.bias, &layer.output_norm);
        }

        Ok(starts)
    }

    /// `rows = norm(rows + bias)`, the rows split across the pool.
    fn norm_rows(&self, rows: &mut [f32], bias: &[f32], norm: &Norm) {
        let eps = self.config.layer_norm_eps;
        for_each_part(rows, self.config.hidden_size, |part| {
            (self.kernels.bias_layer_norm)(part, bias, &norm.gamma, &norm.beta, eps)
        });
    }

    /// Scaled dot-product attention of each input over its own tokens, one task per input and
    /// head: `context = softmax(Q·Kᵀ / √d) · V`, written into that head's columns of `context`.
    fn attend(&self, query_key_value: &[f32], context: &mut [f32], inputs: &[Input<'_>], starts: &[usize]) {
        let c = &self.config;
        let (h, d) = (c.hidden_size, c.head_size());
        let stride = 3 * h;
        let scale = 1.0 / (d as f32).sqrt();
        let out = SharedMut(context.as_mut_ptr());
        let out = &out;
        (0..inputs.len() * c.heads).into_par_iter().for_each_init(Vec::new, |scores: &mut Vec<f32>, task| {
            let (n, head) = (task / c.heads, task % c.heads);
            let (start, len) = (starts[n], inputs[n].ids.len());
            scores.clear();
            scores.resize(len * len, 0.0);
            let rows = &query_key_value[start * stride..(start + len) * stride];
            let (query, key, value) = (&rows[head * d..], &rows[h + head * d..], &rows[2 * h + head * d..]);
            // SAFETY: every pointer stays inside its slice: the query, key and value of token j
            // (j < len) are `d` values at j · stride within `rows`, which holds len · stride values
            // from each head's offset (< 3h ≤ stride) on; `scores` holds len × len. The task
            // writes only its own head's `d` columns of its own input's `len` rows of `context`
            // (rows start..start + len of `h` values), which no other task touches, and
            // `context` outlives the parallel loop.
            unsafe {
                // scores = scale · Q · Kᵀ (len × len)
                gemm(
                    len,
                    len,
                    d,
                    scores.as_mut_ptr(),
                    1,
                    len as isize,
                    false,
                    query.as_ptr(),
                    1,
                    stride as isize,
                    key.as_ptr(),
                    stride as isize,
                    1,
                    1.0,
                    scale,
                    false,
                    false,
                    false,
                    Parallelism::None,
                );
                (self.kernels.softmax)(scores, len);
                // context rows of this input, this head's columns = scores · V (len × d)
                gemm(
                    len,
                    d,
                    len,
                    out.0.add(start * h + head * d),
                    1,
                    h as isize,
                    false,
                    scores.as_ptr(),
                    1,
                    len as isize,
                    value.as_ptr(),
                    1,
                    stride as isize,
                    1.0,
                    1.0,
                    false,
                    false,
                    false,
                    Parallelism::None,
                );
            }
        });
    }
}

impl Dense {
    /// `out = (accumulate ? out : 0) + x · weightᵀ` for `rows` rows of `x`.
    fn multiply(&self, x: &[f32], rows: usize, out: &mut [f32], accumulate: bool) {
        assert!(x.len() >= rows * self.inputs && out.len() >= rows * self.outputs, "buffers sized for the batch");
        let threads = rayon::current_num_threads();
        let parallelism = if threads > 1 { Parallelism::Rayon(threads) } else { Parallelism::None };
        // SAFETY: the assertion above: `x` holds rows × inputs values (row-major), `out` rows ×
        // outputs, and `weight` outputs × inputs (read as its transpose: inputs × outputs with a
        // row stride of 1 and a column stride of `inputs`).
        unsafe {
            gemm(
                rows,
                self.outputs,
                self.inputs,
                out.as_mut_ptr(),
                1,
                self.outputs as isize,
                accumulate,
                x.as_ptr(),
                1,
                self.inputs as isize,
                self.weight.as_ptr(),
                self.inputs as isize,
                1,
                1.0,
                1.0,
                false,
                false,
                false,
                parallelism,
            );
        }
    }
}

/// Scales `v` to unit length; a zero or non-finite vector is an error.
fn unit(v: &mut [f32]) -> Result<(), String> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if !norm.is_finite() || norm == 0.0 {
        return Err("a vector is not finite".to_owned());
    }
    v.iter_mut().for_each(|x| *x /= norm);
    Ok(())
}

/// `f` over `rows` (of `width` values each) cut into one run of whole rows per thread of the
/// current pool.
fn for_each_part(rows: &mut [f32], width: usize, f: impl Fn(&mut [f32]) + Sync + Send) {
    let per_thread = (rows.len() / width).div_ceil(rayon::current_num_threads()).max(1);
    rows.par_chunks_mut(per_thread * width).for_each(f);
}

/// A pointer that parallel tasks write through, each to its own region (see [`Encoder::attend`]).
struct SharedMut(*mut f32);
// SAFETY: only used by `Encoder::attend`, whose tasks write disjoint regions.
unsafe impl Sync for SharedMut {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_configuration_must_be_an_exact_gelu_bert() {
        let json = serde_json::json!({
            "vocab_size": 30522, "hidden_size": 384, "num_hidden_layers": 6, "num_attention_heads": 12,
            "intermediate_size": 1536, "max_position_embeddings": 512, "type_vocab_size": 2,
            "layer_norm_eps": 1e-12, "hidden_act": "gelu"
        });
        let config = Config::parse(&json).unwrap();
        assert_eq!((config.hidden_size, config.heads, config.head_size(), config.layers), (384, 12, 32, 6));
        let with = |key: &str, value: serde_json::Value| {
            let mut changed = json.clone();
            changed[key] = value;
            Config::parse(&changed)
        };
        assert!(with("hidden_act", "gelu_new".into()).unwrap_err().contains("hidden_act"));
        assert!(with("num_attention_heads", 5.into()).unwrap_err().contains("multiple"));
        assert!(with("hidden_size", 0.into()).unwrap_err().contains("hidden_size"));
        assert!(with("vocab_size", (-1).into()).unwrap_err().contains("vocab_size"));
    }
}
