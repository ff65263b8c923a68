//! The BERT encoder both local models run (all-MiniLM-L6-v2, `minilm/`; multilingual-e5-small,
//! `e5/`), on f32 buffers: matrix products by the `gemm` crate, every element-wise step fused into
//! one pass (`kernels.rs`), and no padding.
//!
//! Why not candle's BERT (used until 2026-11-27): it computed the same products, but each
//! element-wise step (bias, GELU by scalar `erf`, masking, softmax in four passes, residual adds)
//! was a separate operator over a freshly allocated tensor, and together they took ~70 % of the
//! time (docs/benchmarks.md, "Ingest embedding"). A batch was also padded to its longest input.
//!
//! Padding is not needed because no token attends to another input's tokens: the dense layers
//! run on all the batch's tokens at once (one row per token), and attention runs per input and
//! head over that input's own tokens only, so an input gets the vector it would get alone.
//!
//! Each model reads its own file and makes its own token embeddings (MiniLM's are f32 with token
//! types, e5's 4-bit rows); from the embeddings' sum on, the network is this one.

mod kernels;

use gemm::{Parallelism, gemm};
use kernels::Kernels;
use rayon::prelude::*;

/// The sizes of the network.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Shape {
    pub(crate) hidden: usize,
    pub(crate) heads: usize,
    pub(crate) intermediate: usize,
    /// The most tokens of one input, special tokens included.
    pub(crate) max_positions: usize,
    /// The layer norms' epsilon.
    pub(crate) eps: f32,
}

/// A dense layer. `weight` is `inputs × outputs`, row-major: the transpose of PyTorch's layout,
/// the one `gemm` multiplies by without repacking the weights on every call (repacking doubled
/// the time of a short query).
pub(crate) struct Dense {
    pub(crate) weight: Vec<f32>,
    pub(crate) bias: Vec<f32>,
    pub(crate) inputs: usize,
    pub(crate) outputs: usize,
}

impl Dense {
    /// From PyTorch's layout: `weight` is `outputs × inputs`, row-major.
    pub(crate) fn from_pytorch(weight: &[f32], bias: Vec<f32>, inputs: usize, outputs: usize) -> Dense {
        assert_eq!((weight.len(), bias.len()), (inputs * outputs, outputs), "a dense layer's sizes");
        Dense { weight: transpose(weight, inputs), bias, inputs, outputs }
    }

    /// Query, key and value (each `width × width` in PyTorch's layout, with its bias) as one
    /// layer three times as wide, so that one product computes all three.
    pub(crate) fn stacked(parts: [(Vec<f32>, Vec<f32>); 3], width: usize) -> Dense {
        let [(q, qb), (k, kb), (v, vb)] = parts;
        Self::from_pytorch(&[q, k, v].concat(), [qb, kb, vb].concat(), width, 3 * width)
    }

    /// `out = (accumulate ? out : 0) + x · weight` for `rows` rows of `x`.
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

/// A layer normalisation's scale and shift.
pub(crate) struct Norm {
    pub(crate) gamma: Vec<f32>,
    pub(crate) beta: Vec<f32>,
}

/// One transformer layer.
pub(crate) struct Layer {
    pub(crate) query_key_value: Dense,
    pub(crate) attention_output: Dense,
    pub(crate) attention_norm: Norm,
    pub(crate) intermediate: Dense,
    pub(crate) output: Dense,
    pub(crate) output_norm: Norm,
}

/// The network after the token embeddings, and the kernels for this processor.
pub(crate) struct Encoder {
    shape: Shape,
    embedding_norm: Norm,
    layers: Vec<Layer>,
    kernels: Kernels,
}

/// The buffers of a batch, kept from one batch to the next: every batch of an embedding call
/// reuses the same memory instead of asking the kernel for fresh pages.
#[derive(Default)]
pub(crate) struct Scratch {
    hidden: Vec<f32>,
    query_key_value: Vec<f32>,
    context: Vec<f32>,
    intermediate: Vec<f32>,
}

impl Encoder {
    pub(crate) fn new(shape: Shape, embedding_norm: Norm, layers: Vec<Layer>) -> Self {
        Self { shape, embedding_norm, layers, kernels: Kernels::for_this_cpu() }
    }

    #[cfg(all(test, feature = "e5"))]
    pub(crate) fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// Runs the network over inputs of `lengths` tokens, one after another in the scratch's
    /// rows: `embed(input, position, row)` writes the embedding of each token (word + position +
    /// token type) into its row, then come the embedding norm and the layers. Returns where each
    /// input's rows start ([`Encoder::rows`]). An input of no token or of more than
    /// `max_positions` is an error. Runs its parallel parts on the current rayon pool.
    pub(crate) fn forward(
        &self,
        lengths: &[usize],
        scratch: &mut Scratch,
        embed: impl Fn(usize, usize, &mut [f32]) + Sync,
    ) -> Result<Vec<usize>, String> {
        let s = &self.shape;
        let h = s.hidden;
        let mut starts = Vec::with_capacity(lengths.len());
        let mut tokens = 0;
        for &len in lengths {
            if len == 0 || len > s.max_positions {
                return Err(format!("an input of {len} tokens (the model reads 1 to {})", s.max_positions));
            }
            starts.push(tokens);
            tokens += len;
        }
        let Scratch { hidden, query_key_value, context, intermediate } = scratch;
        for (buffer, width) in
            [(&mut *hidden, h), (query_key_value, 3 * h), (context, h), (intermediate, s.intermediate)]
        {
            buffer.clear();
            buffer.resize(tokens * width, 0.0);
        }

        let rows: Vec<(usize, usize)> =
            lengths.iter().enumerate().flat_map(|(n, &len)| (0..len).map(move |p| (n, p))).collect();
        hidden.par_chunks_mut(h).zip(&rows).for_each(|(row, &(n, position))| embed(n, position, row));
        let zeros = vec![0.0; h];
        self.norm_rows(hidden, &zeros, &self.embedding_norm);

        for layer in &self.layers {
            // hidden → query, key and value of every token; attention per input and head.
            for row in query_key_value.chunks_exact_mut(3 * h) {
                row.copy_from_slice(&layer.query_key_value.bias);
            }
            layer.query_key_value.multiply(hidden, tokens, query_key_value, true);
            self.attend(query_key_value, context, lengths, &starts);
            // Residual: hidden += context · W, then hidden = norm(hidden + bias).
            layer.attention_output.multiply(context, tokens, hidden, true);
            self.norm_rows(hidden, &layer.attention_output.bias, &layer.attention_norm);
            // Feed-forward: GELU(hidden · W₁ + b₁) · W₂, added to hidden, then the norm.
            layer.intermediate.multiply(hidden, tokens, intermediate, false);
            for_each_part(intermediate, s.intermediate, |part| {
                (self.kernels.bias_gelu)(part, &layer.intermediate.bias)
            });
            layer.output.multiply(intermediate, tokens, hidden, true);
            self.norm_rows(hidden, &layer.output.bias, &layer.output_norm);
        }
        Ok(starts)
    }

    /// The final hidden states of the input whose rows start at `start` and number `len`.
    pub(crate) fn rows<'s>(&self, scratch: &'s Scratch, start: usize, len: usize) -> &'s [f32] {
        let h = self.shape.hidden;
        &scratch.hidden[start * h..(start + len) * h]
    }

    /// `rows = norm(rows + bias)`, the rows split across the pool.
    fn norm_rows(&self, rows: &mut [f32], bias: &[f32], norm: &Norm) {
        let s = &self.shape;
        for_each_part(rows, s.hidden, |part| {
            (self.kernels.bias_layer_norm)(part, bias, &norm.gamma, &norm.beta, s.eps)
        });
    }

    /// Scaled dot-product attention of each input over its own tokens, one task per input and
    /// head: `context = softmax(Q·Kᵀ / √d) · V`, written into that head's columns of `context`.
    fn attend(&self, query_key_value: &[f32], context: &mut [f32], lengths: &[usize], starts: &[usize]) {
        let s = &self.shape;
        let (h, d) = (s.hidden, s.hidden / s.heads);
        let stride = 3 * h;
        let scale = 1.0 / (d as f32).sqrt();
        let out = SharedMut(context.as_mut_ptr());
        let out = &out;
        (0..lengths.len() * s.heads).into_par_iter().for_each_init(Vec::new, |scores: &mut Vec<f32>, task| {
            let (n, head) = (task / s.heads, task % s.heads);
            let (start, len) = (starts[n], lengths[n]);
            scores.clear();
            scores.resize(len * len, 0.0);
            let rows = &query_key_value[start * stride..(start + len) * stride];
            let (query, key, value) = (&rows[head * d..], &rows[h + head * d..], &rows[2 * h + head * d..]);
            // SAFETY: every pointer stays inside its slice: the query, key and value of token j
            // (j < len) are `d` values at j · stride within `rows`, which holds len · stride values
            // from each head's offset (< 3h = stride) on; `scores` holds len × len. The task
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

/// `f` over `rows` (of `width` values each) cut into one run of whole rows per thread of the
/// current pool.
fn for_each_part(rows: &mut [f32], width: usize, f: impl Fn(&mut [f32]) + Sync + Send) {
    let per_thread = (rows.len() / width).div_ceil(rayon::current_num_threads()).max(1);
    rows.par_chunks_mut(per_thread * width).for_each(f);
}

/// The transpose of `matrix`, row-major with rows of `width` values; by tiles, so that reads and
/// writes both stay within a few cache lines (a plain double loop took ~0.15 s for e5's layers).
fn transpose(matrix: &[f32], width: usize) -> Vec<f32> {
    const TILE: usize = 16;
    let rows = matrix.len() / width;
    let mut out = vec![0f32; matrix.len()];
    for r0 in (0..rows).step_by(TILE) {
        for c0 in (0..width).step_by(TILE) {
            for r in r0..(r0 + TILE).min(rows) {
                for c in c0..(c0 + TILE).min(width) {
                    out[c * rows + r] = matrix[r * width + c];
                }
            }
        }
    }
    out
}

/// A pointer that parallel tasks write through, each to its own region (see [`Encoder::attend`]).
struct SharedMut(*mut f32);
// SAFETY: only used by `Encoder::attend`, whose tasks write disjoint regions.
unsafe impl Sync for SharedMut {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_swaps_rows_and_columns_across_tiles() {
        let (rows, width) = (21, 35);
        let m: Vec<f32> = (0..rows * width).map(|i| i as f32).collect();
        let t = transpose(&m, width);
        for r in 0..rows {
            for c in 0..width {
                assert_eq!(t[c * rows + r], m[r * width + c]);
            }
        }
    }

    #[test]
    fn a_dense_layer_multiplies_by_pytorch_s_weights() {
        // PyTorch: y = x · Wᵀ + b with W outputs × inputs = [[1, 2], [3, 4], [5, 6]].
        let dense = Dense::from_pytorch(&[1., 2., 3., 4., 5., 6.], vec![0.; 3], 2, 3);
        let mut out = vec![0.0; 3];
        dense.multiply(&[1.0, 10.0], 1, &mut out, false);
        assert_eq!(out, vec![21.0, 43.0, 65.0]);
    }
}
