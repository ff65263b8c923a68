//! Splitting inputs into provider-sized requests, and the token estimate it relies on.
//!
//! No tokenizer is bundled, so tokens are *estimated*:
//!
//! - an ASCII character counts a quarter of a token (the usual "4 characters per token" rule of thumb
//!   for English with the `cl100k` tokenizer), so pure ASCII text estimates to `ceil(chars / 4)`;
//! - any other character counts a whole token. Non-Latin scripts (CJK, Cyrillic, Greek, emoji…) take
//!   one token or more per character with OpenAI's tokenizers, and `chars / 4` would under-estimate
//!   them four-fold, leading to inputs the API refuses. For accented Latin text the extra cost is small.
//!
//! The estimate can still be off for unusual ASCII (long runs of digits or symbols tokenise densely);
//! the budgets leave no margin beyond that, so keep [`BatchLimits`] below the provider's hard limits
//! if such content is common.

use std::ops::Range;

/// Per-request limits of an embeddings API. The defaults are OpenAI's published limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchLimits {
    /// Most inputs in one request (OpenAI: 2048).
    pub max_inputs: usize,
    /// Most estimated tokens summed over the inputs of one request (OpenAI: 300,000).
    pub max_request_tokens: usize,
    /// Most estimated tokens of one input; longer inputs are truncated (OpenAI: 8192; 8191 kept).
    pub max_input_tokens: usize,
}

impl Default for BatchLimits {
    fn default() -> Self {
        Self { max_inputs: 2048, max_request_tokens: 300_000, max_input_tokens: 8191 }
    }
}

/// Cost of a character in quarter tokens.
fn quarter_tokens(c: char) -> usize {
    if c.is_ascii() { 1 } else { 4 }
}

/// Estimated token count of `text` (see the module documentation): `ceil(chars / 4)` for ASCII.
pub fn estimate_tokens(text: &str) -> usize {
    text.chars().map(quarter_tokens).sum::<usize>().div_ceil(4)
}

/// The longest prefix of `text` whose estimate is at most `max_tokens`, cut on a character
/// boundary (never inside a UTF-8 sequence; words may be cut).
pub fn truncate_to_tokens(text: &str, max_tokens: usize) -> &str {
    let budget = max_tokens.saturating_mul(4);
    let mut used = 0usize;
    for (at, c) in text.char_indices() {
        used += quarter_tokens(c);
        if used > budget {
            return &text[..at];
        }
    }
    text
}

/// Splits `token_counts` (the estimated size of each input, in order) into consecutive ranges
/// holding at most `limits.max_inputs` inputs and at most `limits.max_request_tokens` tokens each.
/// An input larger than the request budget on its own gets a request of its own (callers truncate
/// inputs to `max_input_tokens` first, which keeps it within the budget).
pub fn plan_batches(token_counts: &[usize], limits: &BatchLimits) -> Vec<Range<usize>> {
    let max_inputs = limits.max_inputs.max(1);
    let mut batches = Vec::new();
    let mut start = 0;
    let mut tokens = 0usize;
    for (i, &count) in token_counts.iter().enumerate() {
        let full = i - start >= max_inputs || (i > start && tokens + count > limits.max_request_tokens);
        if full {
            batches.push(start..i);
            start = i;
            tokens = 0;
        }
        tokens += count;
    }
    if start < token_counts.len() {
        batches.push(start..token_counts.len());
    }
    batches
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_estimate_is_chars_over_four_rounded_up() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("a"), 1);
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("abcde"), 2);
        assert_eq!(estimate_tokens(&"x".repeat(32_764)), 8191);
    }

    #[test]
    fn non_ascii_characters_count_a_token_each() {
        assert_eq!(estimate_tokens("日本語"), 3);
        assert_eq!(estimate_tokens("café"), 2); // 3 quarters + 4 quarters = 7 quarters → 2
    }

    #[test]
    fn truncation_cuts_on_char_boundaries_within_budget() {
        let ascii = "y".repeat(40_000);
        assert_eq!(truncate_to_tokens(&ascii, 8191).len(), 32_764);
        assert_eq!(truncate_to_tokens("short", 8191), "short");

        let mixed = "aé".repeat(10); // each pair: 1 + 4 quarters
        let cut = truncate_to_tokens(&mixed, 3); // 12 quarters: "aé" "aé" "a" = 11 quarters
        assert_eq!(cut, "aéaéa");
        assert!(estimate_tokens(cut) <= 3);

        assert_eq!(truncate_to_tokens("日本語", 2), "日本");
        assert_eq!(truncate_to_tokens("日本語", 0), "");
    }

    #[test]
    fn batches_respect_the_input_count() {
        let counts = vec![1; 5000];
        let batches = plan_batches(&counts, &BatchLimits::default());
        assert_eq!(batches, vec![0..2048, 2048..4096, 4096..5000]);
    }

    #[test]
    fn batches_respect_the_token_budget() {
        let limits = BatchLimits { max_inputs: 100, max_request_tokens: 10, max_input_tokens: 10 };
        let batches = plan_batches(&[4, 4, 2, 1, 10, 3, 7], &limits);
        assert_eq!(batches, vec![0..3, 3..4, 4..5, 5..7]);
        // Contiguous, complete, in order.
        assert_eq!(batches.first().unwrap().start, 0);
        assert!(batches.windows(2).all(|w| w[0].end == w[1].start));
        assert_eq!(batches.last().unwrap().end, 7);
    }

    #[test]
    fn an_oversized_input_gets_a_request_of_its_own() {
        let limits = BatchLimits { max_inputs: 100, max_request_tokens: 10, max_input_tokens: 10 };
        assert_eq!(plan_batches(&[1, 50, 1], &limits), vec![0..1, 1..2, 2..3]);
        assert_eq!(plan_batches(&[], &limits), Vec::<Range<usize>>::new());
    }
}
