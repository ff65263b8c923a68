//! Late interaction: scoring a passage against a question token by token rather than by one
//! sentence vector each (ColBERT's MaxSim, Khattab and Zaharia, SIGIR 2020). For each of the
//! question's tokens, the best match among the passage's tokens; the score is the mean of those.
//!
//! The token states are the embedding model's own final hidden states (zero-shot: the model was
//! trained for sentence vectors, yet its token states rank docstrings and manuals better than its
//! sentence vectors do, docs/benchmarks.md "Late interaction"). A question keeps its states as
//! numbers ([`TokenStates`]); a stored passage keeps, for each two consecutive tokens, one bit a
//! dimension: the sign of their mean ([`TokenSigns`]: 48 bytes a row at 384 dimensions, 1/64 of
//! the numbers). Measured on both retrieval corpora, that ranks better than the numbers
//! themselves, and better than a bit per token on the tuning halves at half the size.

use crate::vector::dot_wide;

/// Consecutive tokens of a passage that share one row of signs.
pub const TOKENS_PER_SIGN_ROW: usize = 2;

/// Unit-length token states of one text, one row of `dims` values a token, the model's special
/// tokens (`[CLS]`, `[SEP]`) left out.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenStates {
    dims: usize,
    values: Vec<f32>,
}

/// A text's token states as stored: per [`TOKENS_PER_SIGN_ROW`] consecutive tokens, the sign of
/// every dimension of their mean, one bit each (set when not negative), `dims / 8` bytes a row,
/// row after row. What the index keeps per chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenSigns {
    dims: usize,
    bytes: Vec<u8>,
}

/// Rows need a whole number of bytes of signs.
fn valid_dims(dims: usize) -> bool {
    dims > 0 && dims.is_multiple_of(8)
}

impl TokenStates {
    /// `values` holds at least one row of `dims` values, every value finite; `None` otherwise.
    pub fn new(values: Vec<f32>, dims: usize) -> Option<Self> {
        let whole_rows = valid_dims(dims) && !values.is_empty() && values.len().is_multiple_of(dims);
        (whole_rows && values.iter().all(|v| v.is_finite())).then_some(Self { dims, values })
    }

    pub fn dims(&self) -> usize {
        self.dims
    }

    /// The rows, one after another.
    pub fn values(&self) -> &[f32] {
        &self.values
    }

    /// How many tokens.
    pub fn len(&self) -> usize {
        self.values.len() / self.dims
    }

    /// Never: a value has at least one row.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The stored form of these states (the sign of a mean is the sign of the sum).
    pub fn signs(&self) -> TokenSigns {
        let mut bytes = Vec::with_capacity(self.len().div_ceil(TOKENS_PER_SIGN_ROW) * self.dims / 8);
        let mut sum = vec![0f32; self.dims];
        for rows in self.values.chunks(self.dims * TOKENS_PER_SIGN_ROW) {
            sum.fill(0.0);
            for row in rows.chunks_exact(self.dims) {
                sum.iter_mut().zip(row).for_each(|(s, v)| *s += v);
            }
            for values in sum.chunks_exact(8) {
                let bits = values.iter().enumerate().filter(|(_, v)| **v >= 0.0).map(|(bit, _)| 1u8 << bit);
                bytes.push(bits.fold(0, |byte, bit| byte | bit));
            }
        }
        TokenSigns { dims: self.dims, bytes }
    }

    /// MaxSim of this question against a passage's `signs`: per question token, the largest
    /// dot product with a row of signs scaled to unit length (each dimension ±1/√dims),
    /// averaged over the question's tokens. At most 1 (for unit rows); `None` when
    /// the two come from models of other sizes.
    pub fn max_sim(&self, signs: &TokenSigns) -> Option<f32> {
        if signs.dims != self.dims {
            return None;
        }
        let mut best = vec![f32::NEG_INFINITY; self.len()];
        best_matches_for_this_cpu()(&self.values, &signs.bytes, self.dims, &mut best);
        let scale = (self.dims as f32).sqrt();
        Some(best.iter().sum::<f32>() / (best.len() as f32 * scale))
    }
}

/// Per question token (rows of `dims` in `question`), the largest dot product with a row of
/// `signs` read as ±1 values, into `best`.
#[inline(always)]
fn best_matches(question: &[f32], signs: &[u8], dims: usize, best: &mut [f32]) {
    let mut expanded = vec![0f32; dims];
    for row in signs.chunks_exact(dims / 8) {
        // ±1 per dimension once per row, eight at a time, then one dot product per question
        // token.
        for (values, byte) in expanded.chunks_exact_mut(8).zip(row) {
            values.copy_from_slice(&SIGNS_OF_BYTE[usize::from(*byte)]);
        }
        for (best, question) in best.iter_mut().zip(question.chunks_exact(dims)) {
            *best = best.max(dot_wide(&expanded, question));
        }
    }
}

crate::for_this_cpu! {
    /// [`best_matches`] for this processor: with AVX2 the same code takes about 60 % of the time
    /// (2.2 ms against 3.6–3.8 ms for a 12-token question and 50 chunks of 150 tokens, EPYC). Both
    /// add in the same order, so the scores are the same.
    fn best_matches_for_this_cpu = best_matches(question: &[f32], signs: &[u8], dims: usize, best: &mut [f32])
}

/// The eight ±1 values each byte of signs stands for (bit `i` set: dimension `i` is +1).
const SIGNS_OF_BYTE: [[f32; 8]; 256] = {
    let mut table = [[-1.0f32; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut bit = 0;
        while bit < 8 {
            if byte & (1 << bit) != 0 {
                table[byte][bit] = 1.0;
            }
            bit += 1;
        }
        byte += 1;
    }
    table
};

impl TokenSigns {
    /// Signs as stored: a whole number of rows of `dims / 8` bytes, at least one; `None` otherwise.
    pub fn from_bytes(bytes: Vec<u8>, dims: usize) -> Option<Self> {
        let whole_rows = valid_dims(dims) && !bytes.is_empty() && bytes.len().is_multiple_of(dims / 8);
        whole_rows.then_some(Self { dims, bytes })
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    pub fn dims(&self) -> usize {
        self.dims
    }

    /// How many rows (a row per [`TOKENS_PER_SIGN_ROW`] tokens).
    pub fn len(&self) -> usize {
        self.bytes.len() / (self.dims / 8)
    }

    /// Never: a value has at least one row.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: &[f32]) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / n).collect()
    }

    #[test]
    fn values_are_whole_rows() {
        assert!(TokenStates::new(vec![0.5; 16], 8).is_some());
        assert!(TokenStates::new(vec![0.5; 12], 8).is_none(), "a row and a half");
        assert!(TokenStates::new(Vec::new(), 8).is_none(), "no row");
        assert!(TokenStates::new(vec![0.5; 6], 6).is_none(), "a row must fill whole bytes of signs");
        assert!(TokenStates::new(vec![f32::NAN; 8], 8).is_none());
        assert_eq!(TokenSigns::from_bytes(vec![0; 96], 384).map(|s| s.len()), Some(2));
        assert!(TokenSigns::from_bytes(vec![0; 50], 384).is_none());
        assert!(TokenSigns::from_bytes(Vec::new(), 384).is_none());
    }

    #[test]
    fn signs_are_one_bit_a_dimension_of_each_pair_of_tokens() {
        let first = [1.0, -1.0, 0.0, -0.5, 0.5, -2.0, -3.0, 4.0];
        let second = [-0.5, 1.5, 1.0, -1.0, -1.0, 1.0, 2.0, -5.0];
        let third = [-1.0, 1.0, -1.0, -1.0, -1.0, -1.0, -1.0, 1.0];
        let states = TokenStates::new([first, second, third].concat(), 8).unwrap();
        let signs = states.signs();
        // Sums of the first pair: 0.5, 0.5, 1, -1.5, -0.5, -1, -1, -1; the third token alone.
        assert_eq!(signs.as_bytes(), [0b0000_0111, 0b1000_0010]);
        assert_eq!(signs.len(), 2);
        assert_eq!(TokenSigns::from_bytes(signs.as_bytes().to_vec(), 8), Some(signs));
    }

    #[test]
    fn every_kernel_gives_the_same_best_matches() {
        let mut x: u32 = 7;
        let mut next = || {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (x >> 8) as f32 / (1 << 23) as f32 - 1.0
        };
        let question: Vec<f32> = (0..5 * 40).map(|_| next()).collect();
        let signs = TokenStates::new((0..9 * 40).map(|_| next()).collect(), 40).unwrap().signs();
        let run = |kernel: fn(&[f32], &[u8], usize, &mut [f32])| {
            let mut best = vec![f32::NEG_INFINITY; 5];
            kernel(&question, signs.as_bytes(), 40, &mut best);
            best
        };
        let portable = run(best_matches);
        assert_eq!(run(best_matches_for_this_cpu()), portable);
        // The portable kernel is the plain arithmetic: ±1 per bit, a dot product per row.
        for (t, best) in portable.iter().enumerate() {
            let q = &question[t * 40..(t + 1) * 40];
            let plain = signs
                .as_bytes()
                .chunks_exact(5)
                .map(|row| (0..40).map(|d| if row[d / 8] & (1 << (d % 8)) != 0 { q[d] } else { -q[d] }).sum::<f32>())
                .fold(f32::NEG_INFINITY, f32::max);
            assert!((best - plain).abs() < 1e-5, "{best} vs {plain}");
        }
    }

    #[test]
    fn max_sim_takes_each_question_tokens_best_match() {
        let dims = 8;
        let half = [1., 1., 1., 1., -1., -1., -1., -1.];
        // Two rows of signs: all positive (two such tokens), and positive on the first half only.
        let passage = TokenStates::new([[1.0; 8], [1.0; 8], half].concat(), dims).unwrap().signs();
        assert_eq!(passage.len(), 2);
        // A question token equal to the first row scores 1 (unit vectors); one equal to the
        // second scores 1 too: the mean is 1.
        let exact = TokenStates::new([unit(&[1.0; 8]), unit(&half)].concat(), dims);
        let score = exact.unwrap().max_sim(&passage).unwrap();
        assert!((score - 1.0).abs() < 1e-6, "{score}");
        // A token opposite to both scores its best: 0 against the second (half the signs agree),
        // so adding it halves the mean.
        let opposite = [unit(&[1.0; 8]), unit(&[-1.0; 8])].concat();
        let score = TokenStates::new(opposite, dims).unwrap().max_sim(&passage).unwrap();
        assert!((score - 0.5).abs() < 1e-6, "{score}");
        // The score only uses dimensions of the same model.
        let other = TokenStates::new(vec![0.25; 16], 16).unwrap();
        assert_eq!(other.max_sim(&passage), None);
    }
}
