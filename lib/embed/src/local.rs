//! The built-in local embedder: feature hashing of words and character trigrams.

use async_trait::async_trait;
use lore_app::ports::{EmbedError, Embedder};
use std::collections::BTreeMap;

/// Model id of [`LocalEmbedder`]. Any change to the algorithm that changes a vector must change
/// this id (vectors of different models are never mixed in one index).
pub const LOCAL_MODEL_ID: &str = "lore-local-hash-v1";
/// Dimensions of [`LocalEmbedder`] vectors.
pub const LOCAL_DIMENSIONS: usize = 384;

/// Weight of a word (stem) feature.
const WORD_WEIGHT: f64 = 1.0;
/// Total weight of the trigrams of one word occurrence, shared evenly among them (so that long words
/// do not dominate).
const TRIGRAMS_WEIGHT: f64 = 0.75;
/// Inputs larger than this (bytes, summed) are hashed on the blocking thread pool.
const BLOCKING_THRESHOLD_BYTES: usize = 256 * 1024;

/// Namespaces of the hashed features, so that the word "abc" and the trigram "abc" differ.
const WORD_NAMESPACE: u8 = b'w';
const TRIGRAM_NAMESPACE: u8 = b'g';

/// A deterministic, offline embedder: no network, no model download, microseconds per text.
///
/// # What it computes
///
/// 1. **Tokens**: the text is lower-cased and split on every character that is not alphanumeric
///    (Unicode-aware: `café`, `Straße`, `日本語` are words). Single ASCII letters are dropped.
/// 2. **Stopwords**: a short English list ([`STOPWORDS`]) is dropped, unless the text consists of
///    stopwords only (then they are kept, so "to be or not to be" is not empty).
/// 3. **Stemming**: a light suffix stemmer (see [`stem`]) maps `invoice`, `invoices`, `invoicing`,
///    `invoiced` to one stem, `policy`/`policies` to another.
/// 4. **Features**: each stem is a feature of weight 1; each character trigram of the stem with
///    boundary markers (`^invoic$` → `^in`, `inv`, …, `ic$`) is a feature, the trigrams of one word
///    sharing a weight of 0.75. Trigrams make morphological neighbours the stemmer misses (`refund` /
///    `refundable`, typos) land close.
/// 5. **Sublinear tf**: a feature seen `tf` times weighs `1 + ln tf` times its weight.
/// 6. **Signed hashing**: each feature is hashed with FNV-1a 64 (finalised by the SplitMix64 mixer;
///    stable across runs, platforms and Rust versions) to one of 384 buckets and a sign ±1.
/// 7. **L2 normalisation**. A text without any token (empty, whitespace, punctuation) gets a fixed
///    unit vector ([`empty_text_vector`]), so cosine similarity is always defined.
///
/// # Good for / not good for
///
/// Cosine similarity of these vectors measures **lexical** overlap: texts sharing words or word
/// forms score high, so keyword-like queries ("refund for an invoice") find the passages that use
/// those words. It knows nothing of meaning: **synonyms** ("car" / "automobile"), paraphrases,
/// translations and related concepts score as unrelated, and word order is ignored. Hash collisions
/// in 384 buckets add noise of roughly ±0.05 to the cosine of unrelated texts. It is the zero-setup
/// default and a test double, not a substitute for a semantic model.
#[derive(Debug, Clone, Copy, Default)]
pub struct LocalEmbedder;

impl LocalEmbedder {
    pub fn new() -> Self {
        Self
    }

    /// The unit vector of one text (synchronous; [`Embedder::embed`] batches over it).
    pub fn embed_text(&self, text: &str) -> Vec<f32> {
        embed_text(text)
    }
}

#[async_trait]
impl Embedder for LocalEmbedder {
    fn model_id(&self) -> &str {
        LOCAL_MODEL_ID
    }

    fn dimensions(&self) -> usize {
        LOCAL_DIMENSIONS
    }

    /// Lexical overlap only (see above): hybrid search lets BM25 lead.
    fn lexical_only(&self) -> bool {
        true
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let bytes: usize = texts.iter().map(String::len).sum();
        if bytes < BLOCKING_THRESHOLD_BYTES {
            return Ok(texts.iter().map(|t| embed_text(t)).collect());
        }
        let owned = texts.to_vec();
        tokio::task::spawn_blocking(move || owned.iter().map(|t| embed_text(t)).collect())
            .await
            .map_err(|e| EmbedError::Permanent(format!("local embedding task failed: {e}")))
    }
}

/// The vector given to texts without any token: every component `1/sqrt(dimensions)`. Its cosine
/// with a real text is the (near zero) mean of that text's signed components.
pub fn empty_text_vector(dimensions: usize) -> Vec<f32> {
    vec![(1.0 / (dimensions as f64).sqrt()) as f32; dimensions]
}

fn embed_text(text: &str) -> Vec<f32> {
    // Feature hash → (weight sum, occurrences). A BTreeMap keeps the summation order, and so the
    // floating-point result, identical on every run.
    let mut features: BTreeMap<u64, (f64, u32)> = BTreeMap::new();
    let mut add = |hash: u64, weight: f64| {
        let entry = features.entry(hash).or_insert((0.0, 0));
        entry.0 += weight;
        entry.1 += 1;
    };
    for word in words(text) {
        add(feature_hash(WORD_NAMESPACE, &word), WORD_WEIGHT);
        let trigrams = trigrams(&word);
        let weight = TRIGRAMS_WEIGHT / (trigrams.len() as f64).sqrt();
        for trigram in &trigrams {
            add(feature_hash(TRIGRAM_NAMESPACE, trigram), weight);
        }
    }
    if features.is_empty() {
        return empty_text_vector(LOCAL_DIMENSIONS);
    }

    let mut vector = [0f64; LOCAL_DIMENSIONS];
    for (hash, (weight_sum, tf)) in features {
        let mean_weight = weight_sum / f64::from(tf);
        let value = mean_weight * (1.0 + f64::from(tf).ln());
        let bucket = (hash % LOCAL_DIMENSIONS as u64) as usize;
        let sign = if hash >> 63 == 0 { 1.0 } else { -1.0 };
        vector[bucket] += sign * value;
    }
    let norm = vector.iter().map(|v| v * v).sum::<f64>().sqrt();
    if norm == 0.0 {
        // Every feature cancelled out in its bucket: vanishingly unlikely, still defined.
        return empty_text_vector(LOCAL_DIMENSIONS);
    }
    vector.iter().map(|v| (v / norm) as f32).collect()
}

/// The normalised words of `text`: lower-cased, split on non-alphanumerics, single ASCII letters
/// dropped, stopwords dropped (unless nothing else is left), stemmed.
fn words(text: &str) -> Vec<String> {
    let tokens: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty() && (t.len() != 1 || !t.as_bytes()[0].is_ascii_alphabetic()))
        .map(str::to_lowercase)
        .collect();
    let content: Vec<&String> = tokens.iter().filter(|t| !STOPWORDS.contains(&t.as_str())).collect();
    let kept = if content.is_empty() { tokens.iter().collect() } else { content };
    kept.into_iter().map(|t| stem(t)).collect()
}

/// Character trigrams of `word` with `^`/`$` boundary markers (`ab` → `^ab`, `ab$`).
fn trigrams(word: &str) -> Vec<String> {
    let chars: Vec<char> = std::iter::once('^').chain(word.chars()).chain(std::iter::once('$')).collect();
    chars.windows(3).map(|w| w.iter().collect()).collect()
}

/// English stopwords dropped from the features (lower case).
pub const STOPWORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "before", "being",
    "but", "by", "can", "could", "did", "do", "does", "doing", "for", "from", "had", "has", "have", "having", "he",
    "her", "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "just", "me", "more",
    "most", "my", "no", "nor", "not", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "out", "over",
    "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "then",
    "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we",
    "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your",
    "yours",
];

fn is_vowel(c: char) -> bool {
    matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y')
}

/// A light English suffix stemmer, deliberately simple (a subset of Porter's step 1). On a lower-case
/// word, in order:
///
/// 1. plurals: `-sses` → `-ss`; `-ies` → `-i`; `-es` after `x`, `z`, `ch`, `sh` dropped; `-s` dropped
///    unless after `s`, `u` or `i` (`class`, `status`, `analysis` keep theirs);
/// 2. verb and adverb endings: `-ied` → `-i`; `-ing` and `-ed` dropped when a vowel remains, then a
///    doubled final consonant other than `l`, `s`, `z` is undoubled (`shipping` → `ship`,
///    `billing` → `bill`); `-ly` dropped when at least four letters remain and the last is a
///    consonant other than `p` (`quickly` → `quick`; `family`, `supply`, `only` kept);
/// 3. a final `-y` becomes `-i` and a final `-e` is dropped, so `policy`/`policies` and
///    `invoice`/`invoicing` meet.
///
/// A suffix is only removed when at least three characters remain. Over- and under-stemming happen
/// (`string` is kept, `assembly` → `assemb`); consistency between forms of one word is what matters.
pub fn stem(word: &str) -> String {
    let mut w: Vec<char> = word.chars().collect();
    let ends = |w: &[char], suffix: &str| {
        let s: Vec<char> = suffix.chars().collect();
        w.len() >= s.len() + 3 && w[w.len() - s.len()..] == s[..]
    };

    // Step 1: plurals. `-sses` → `-ss`, `-ies` → `-i`, `-xes`/`-zes`/`-ches`/`-shes` → no `-es`: all
    // drop the last two letters.
    let drops_two = ["sses", "ies", "xes", "zes", "ches", "shes"];
    if drops_two.iter().any(|suffix| ends(&w, suffix)) {
        w.truncate(w.len() - 2);
    } else if ends(&w, "s") && !matches!(w[w.len() - 2], 's' | 'u' | 'i') {
        w.truncate(w.len() - 1);
    }

    // Step 2: verb and adverb endings.
    if ends(&w, "ied") {
        w.truncate(w.len() - 2);
    } else if ends(&w, "ing") || ends(&w, "ed") {
        let cut = if ends(&w, "ing") { 3 } else { 2 };
        if w[..w.len() - cut].iter().copied().any(is_vowel) {
            w.truncate(w.len() - cut);
            let n = w.len();
            if n >= 4 && w[n - 1] == w[n - 2] && !is_vowel(w[n - 1]) && !matches!(w[n - 1], 'l' | 's' | 'z') {
                w.truncate(n - 1);
            }
        }
    } else if w.len() >= 6 && ends(&w, "ly") {
        let last = w[w.len() - 3];
        if last.is_alphabetic() && !is_vowel(last) && last != 'p' {
            w.truncate(w.len() - 2);
        }
    }

    // Step 3: final -y / -e.
    let n = w.len();
    if n >= 3 && w[n - 1] == 'y' {
        w[n - 1] = 'i';
    } else if n >= 4 && w[n - 1] == 'e' {
        w.truncate(n - 1);
    }
    w.into_iter().collect()
}

/// FNV-1a 64 of `namespace` followed by the UTF-8 bytes of `feature`, finalised with the SplitMix64
/// mixer so that the bucket (low bits) and the sign (top bit) are well distributed.
fn feature_hash(namespace: u8, feature: &str) -> u64 {
    let mut hash = fnv1a64(&[namespace], FNV_OFFSET);
    hash = fnv1a64(feature.as_bytes(), hash);
    mix64(hash)
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

fn fnv1a64(bytes: &[u8], mut hash: u64) -> u64 {
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(FNV_PRIME);
    }
    hash
}

fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pins the algorithm: if this fails, stored vectors are no longer comparable with new ones,
    /// so the change must come with a new `LOCAL_MODEL_ID`.
    #[test]
    fn golden_vector_is_stable() {
        assert_eq!(LOCAL_MODEL_ID, "lore-local-hash-v1");
        assert_eq!(feature_hash(WORD_NAMESPACE, "invoic"), 0xea91_a328_3013_66d1);
        let v = embed_text("Refund for an invoice");
        // Two word features of weight 1 and 2 × 6 trigrams of weight 0.75/√6, no collision:
        // norm² = 2 + 12 × 0.09375 = 3.125.
        let word = (1.0 / 3.125f64.sqrt()) as f32;
        let trigram = ((0.75 / 6f64.sqrt()) / 3.125f64.sqrt()) as f32;
        assert!((v[81] + word).abs() < 1e-6 && (v[359] + word).abs() < 1e-6, "{} {}", v[81], v[359]);
        assert!((v[4] - trigram).abs() < 1e-6 && (v[5] - trigram).abs() < 1e-6, "{} {}", v[4], v[5]);
        assert_eq!(v.iter().filter(|x| **x != 0.0).count(), 14);
    }

    #[test]
    fn fnv1a64_matches_the_reference_values() {
        assert_eq!(fnv1a64(b"", FNV_OFFSET), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a", FNV_OFFSET), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar", FNV_OFFSET), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn stemmer_conflates_the_forms_of_a_word() {
        let groups: &[&[&str]] = &[
            &["invoice", "invoices", "invoicing", "invoiced"],
            &["refund", "refunds", "refunded", "refunding"],
            &["policy", "policies"],
            &["apply", "applied", "applies"],
            &["ship", "ships", "shipping", "shipped"],
            &["bill", "bills", "billing", "billed"],
            &["box", "boxes"],
            &["match", "matches", "matching", "matched"],
            &["class", "classes"],
            &["quick", "quickly"],
            &["family", "families"],
            &["make", "makes", "making"],
        ];
        for group in groups {
            let stems: Vec<String> = group.iter().map(|w| stem(w)).collect();
            assert!(stems.iter().all(|s| s == &stems[0]), "{group:?} → {stems:?}");
        }
    }

    #[test]
    fn stemmer_leaves_short_and_exceptional_words_alone() {
        for (word, expected) in [
            ("status", "status"),
            ("analysis", "analysis"),
            ("string", "string"),
            ("thing", "thing"),
            ("only", "onli"),
            ("supply", "suppli"),
            ("use", "use"),
            ("is", "is"),
            ("café", "café"),
            ("日本語", "日本語"),
        ] {
            assert_eq!(stem(word), expected, "{word}");
        }
    }

    #[test]
    fn words_are_unicode_aware_and_drop_stopwords() {
        assert_eq!(words("The invoices, and a REFUND!"), vec!["invoic", "refund"]);
        assert_eq!(words("Crème brûlée — Straße 12"), vec!["crèm", "brûlé", "straß", "12"]);
        assert_eq!(words("to be or not to be"), vec!["to", "be", "or", "not", "to", "be"]);
        assert!(words("  ... !!! ").is_empty());
        assert_eq!(words("don't"), vec!["don"]);
    }

    #[test]
    fn trigrams_have_boundary_markers() {
        assert_eq!(trigrams("ab"), vec!["^ab", "ab$"]);
        assert_eq!(trigrams("invoic"), vec!["^in", "inv", "nvo", "voi", "oic", "ic$"]);
    }
}
