//! What keyword search ranks by, written once for both chunk indexes: the embedded one
//! (lib/local/src/keywords.rs, postings in memory) and the PostgreSQL one (lib/pgvector, postings
//! in tables). Both cut text into terms with the same Rust tokenizer ([`each_term`]: Unicode word
//! boundaries, character pairs for Chinese and Japanese, the Snowball stemmer of the chunk's
//! language), take the same words of a question ([`query_words`], [`query_terms`], folded for
//! every language the knowledge holds, each chunk counting only its own language's folding) and
//! score with the same BM25 arithmetic ([`Bm25`]), so one knowledge base ranks alike — to the
//! bit, given the same statistics — on either backend.

mod tokens;

use lore_domain::conversation::is_stop_word;
use lore_domain::language::Language;
use std::cmp::Ordering;
use std::collections::BinaryHeap;
pub use tokens::each_term;

/// BM25's term-frequency saturation (FTS5's value).
pub const K1: f64 = 1.2;
/// BM25's length normalisation (FTS5's value).
pub const B: f64 = 0.75;
/// FTS5's floor for the IDF of a term in more than half the chunks (it would be negative).
pub const MIN_IDF: f64 = 1e-6;
/// Words of a question looked for at most; the rest are ignored.
pub const MAX_QUERY_WORDS: usize = 64;

/// BM25 over one owner's chunks: `rows` chunks holding `total_terms` terms in all.
#[derive(Debug, Clone, Copy)]
pub struct Bm25 {
    rows: f64,
    average: f64,
}

impl Bm25 {
    pub fn new(rows: u64, total_terms: u64) -> Bm25 {
        let rows = rows as f64;
        Bm25 { rows, average: if rows > 0.0 { total_terms as f64 / rows } else { 0.0 } }
    }

    /// The IDF of a term held by `n` of the chunks (FTS5's formula and floor).
    pub fn idf(&self, n: u64) -> f64 {
        let n = n as f64;
        let idf = ((self.rows - n + 0.5) / (n + 0.5)).ln();
        if idf <= 0.0 { MIN_IDF } else { idf }
    }

    /// What a term of `idf` found `count` times in a chunk `length` terms long adds to its score.
    /// The same operations in the same order as FTS5's `bm25()`, so the sums agree to the bit.
    pub fn weight(&self, idf: f64, count: u32, length: u32) -> f64 {
        let f = f64::from(count);
        let length = f64::from(length);
        idf * ((f * (K1 + 1.0)) / (f + K1 * (1.0 - B + B * length / self.average)))
    }

    /// The most a term of `idf` can add to any chunk's score (the bound of `weight` as the count
    /// grows): what a top-k search may skip a term's postings by.
    pub fn bound(idf: f64) -> f64 {
        idf * (K1 + 1.0)
    }
}

/// The best `k` of `candidates` `(score, key)`: highest score first, ties by the lower key. A
/// bounded heap: memory grows with `k`, not with the candidates.
pub fn best_k<K: Ord>(candidates: impl IntoIterator<Item = (f64, K)>, k: usize) -> Vec<(f64, K)> {
    let mut best: BinaryHeap<Ranked<K>> = BinaryHeap::with_capacity(k + 1);
    for (score, key) in candidates {
        let candidate = Ranked(score, key);
        if best.len() < k {
            best.push(candidate);
        } else if best.peek().is_some_and(|worst| candidate < *worst) {
            best.pop();
            best.push(candidate);
        }
    }
    let mut out = best.into_vec();
    out.sort();
    out.into_iter().map(|r| (r.0, r.1)).collect()
}

/// A scored candidate; "less" is better (higher score, then lower key), so the max-heap's top is
/// the worst of the best k.
struct Ranked<K>(f64, K);

impl<K: Ord> PartialEq for Ranked<K> {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl<K: Ord> Eq for Ranked<K> {}
impl<K: Ord> PartialOrd for Ranked<K> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<K: Ord> Ord for Ranked<K> {
    fn cmp(&self, o: &Self) -> Ordering {
        o.0.total_cmp(&self.0).then(self.1.cmp(&o.1))
    }
}

/// The words of a user's question that keyword search looks for: lower-cased, each once, and
/// without its stop words unless it has nothing else. Words nearly every chunk has add next to
/// nothing to BM25, yet would make nearly every chunk a candidate. No query syntax gets through:
/// only runs of letters and digits are words.
pub fn query_words(query: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for w in query.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).take(MAX_QUERY_WORDS) {
        let w = w.to_lowercase();
        if !words.contains(&w) {
            words.push(w);
        }
    }
    if words.iter().any(|w| !is_stop_word(w)) {
        words.retain(|w| !is_stop_word(w));
    }
    words
}

/// A term of a question, and the chunk languages whose folding of a question word gives it: a
/// chunk counts the term only when written in one of them. An English question folded for French
/// as well ("tests" -> "test" by French rules too) must not match a French chunk's "test" by the
/// English folding, nor an unstemmed code listing's "test" by either: each chunk is scored by the
/// question as its own language folds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryTerm {
    pub term: Vec<u8>,
    pub languages: LanguageSet,
    /// The piece of the question it folds (a word, or one character pair of a Chinese or
    /// Japanese run): the terms of one piece share their rarity ([`shared_df`]).
    pub piece: u32,
}

impl QueryTerm {
    /// Whether a chunk whose language is at `position` ([`LanguageSet::position`]) counts it.
    pub fn counts_in(&self, position: u8) -> bool {
        self.languages.0 & (1u64 << (position & 63)) != 0
    }
}

/// The query's distinct terms, in order, from its words: each word folded as a chunk of each of
/// `languages` would have it (`None`: a chunk of no detected language), since a question is
/// often too short to tell its language and may be asked of knowledge in several.
pub fn query_terms(words: &[String], languages: &[Option<Language>]) -> Vec<QueryTerm> {
    let mut terms: Vec<QueryTerm> = Vec::new();
    let mut pieces: Vec<(usize, usize)> = Vec::new();
    for (w, word) in words.iter().enumerate() {
        for &language in languages {
            let mut k = 0usize;
            each_term(word, language, |t| {
                let piece = match pieces.iter().position(|&p| p == (w, k)) {
                    Some(i) => i,
                    None => {
                        pieces.push((w, k));
                        pieces.len() - 1
                    }
                } as u32;
                k += 1;
                match terms.iter_mut().find(|have| have.term == t) {
                    Some(have) => have.languages.insert(language),
                    None => {
                        let mut languages = LanguageSet::default();
                        languages.insert(language);
                        terms.push(QueryTerm { term: t.to_vec(), languages, piece });
                    }
                }
            });
        }
    }
    terms
}

/// The number of chunks each term of a question is weighed by, given each term's piece
/// ([`QueryTerm::piece`]) and the owner's chunks holding it: the most of any term of its piece
/// (at most `rows`). A word is as rare whichever language folds it; counted per term instead, the
/// unstemmed "dependencies" of a few code listings would outweigh the English "depend" of every
/// page that explains it. The most, not the sum: the sum counts a chunk holding two folds twice,
/// and measured lower (docs/decisions.md, "Keyword search in every language").
pub fn shared_df(pieces_and_df: &[(u32, u64)], rows: u64) -> Vec<u64> {
    let mut per_piece: Vec<u64> = Vec::new();
    for &(piece, n) in pieces_and_df {
        let p = piece as usize;
        if per_piece.len() <= p {
            per_piece.resize(p + 1, 0);
        }
        per_piece[p] = per_piece[p].max(n);
    }
    pieces_and_df.iter().map(|&(piece, _)| per_piece[piece as usize].min(rows)).collect()
}

/// A chunk's distinct terms with their counts (sorted by term), and its length in terms.
pub fn chunk_terms(text: &str, language: Option<Language>) -> (Vec<(Vec<u8>, u32)>, u32) {
    let mut all: Vec<Vec<u8>> = Vec::new();
    each_term(text, language, |t| all.push(t.to_vec()));
    let length = u32::try_from(all.len()).unwrap_or(u32::MAX);
    all.sort_unstable();
    let mut counted: Vec<(Vec<u8>, u32)> = Vec::new();
    for term in all {
        match counted.last_mut() {
            Some((last, count)) if *last == term => *count = count.saturating_add(1),
            _ => counted.push((term, 1)),
        }
    }
    (counted, length)
}

/// A set of chunk languages (`None` included) as bits: what an index keeps per source to know
/// which languages a question must be folded for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LanguageSet(pub u64);

impl LanguageSet {
    /// A chunk language as one small number (its bit in a set): what an index keeps per chunk.
    pub fn position(language: Option<Language>) -> u8 {
        match language {
            None => 0,
            Some(l) => Language::ALL.iter().position(|&x| x == l).map_or(63, |i| (i + 1).min(63) as u8),
        }
    }

    fn bit(language: Option<Language>) -> u64 {
        1u64 << Self::position(language)
    }

    pub fn insert(&mut self, language: Option<Language>) {
        self.0 |= Self::bit(language);
    }

    pub fn union(self, other: LanguageSet) -> LanguageSet {
        LanguageSet(self.0 | other.0)
    }

    /// The languages in the set, no language first; an empty set reads as English (a question
    /// asked of no knowledge still gets its usual terms).
    pub fn languages(self) -> Vec<Option<Language>> {
        if self.0 == 0 {
            return vec![Some(Language::English)];
        }
        std::iter::once(None)
            .chain(Language::ALL.iter().map(|&l| Some(l)))
            .filter(|&l| self.0 & Self::bit(l) != 0)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_is_searched_by_its_content_words() {
        assert_eq!(query_words("Refund policy?"), ["refund", "policy"]);
        assert_eq!(query_words("\"x\" NEAR(b) *"), ["x", "near", "b"], "no query syntax");
        assert!(query_words("  ?! ").is_empty());
        assert_eq!(
            query_words("How do I pause my program for a few seconds?"),
            ["pause", "program", "few", "seconds"],
            "stop words are left out"
        );
        assert_eq!(query_words("to be or not to be"), ["not"], "and repeats");
        assert_eq!(query_words("Who are you?"), ["who", "are", "you"], "all stop words: kept");
    }

    #[test]
    fn a_chunk_is_counted_by_term_and_a_question_folded_for_each_language() {
        let (terms, length) = chunk_terms("Refunds refund the REFUND; café", Some(Language::English));
        assert_eq!(length, 5);
        let shown: Vec<(String, u32)> = terms.into_iter().map(|(t, n)| (String::from_utf8(t).unwrap(), n)).collect();
        assert_eq!(shown, [("cafe".to_owned(), 1), ("refund".to_owned(), 3), ("the".to_owned(), 1)]);
        let words = query_words("Refunds and cafés?");
        let shown = |terms: Vec<QueryTerm>| {
            terms.into_iter().map(|t| (String::from_utf8(t.term).unwrap(), t.languages.languages())).collect::<Vec<_>>()
        };
        let en = Some(Language::English);
        assert_eq!(shown(query_terms(&words, &[en])), [("refund".to_owned(), vec![en]), ("cafe".to_owned(), vec![en])]);
        let both = query_terms(&words, &[None, en]);
        assert_eq!(
            shown(both),
            [
                ("refunds".to_owned(), vec![None]),
                ("refund".to_owned(), vec![en]),
                ("cafes".to_owned(), vec![None]),
                ("cafe".to_owned(), vec![en])
            ],
            "each term with the languages whose folding gives it"
        );
        let fr = Some(Language::French);
        let tests = query_terms(&query_words("tests"), &[None, en, fr]);
        assert_eq!(shown(tests.clone()), [("tests".to_owned(), vec![None]), ("test".to_owned(), vec![en, fr])]);
        let (none, english, french) =
            (LanguageSet::position(None), LanguageSet::position(en), LanguageSet::position(fr));
        assert!(tests[0].counts_in(none) && !tests[0].counts_in(english));
        assert!(tests[1].counts_in(english) && tests[1].counts_in(french) && !tests[1].counts_in(none));
        assert!(!tests[1].counts_in(LanguageSet::position(Some(Language::German))));
    }

    #[test]
    fn the_folds_of_one_word_share_its_rarity() {
        let en = Some(Language::English);
        let terms = query_terms(&query_words("dependencies build"), &[None, en]);
        let pieces: Vec<(String, u32)> =
            terms.iter().map(|t| (String::from_utf8(t.term.clone()).unwrap(), t.piece)).collect();
        assert_eq!(pieces, [("dependencies".to_owned(), 0), ("depend".to_owned(), 0), ("build".to_owned(), 1)]);
        let with_df = |df: [u64; 3]| terms.iter().zip(df).map(|(t, n)| (t.piece, n)).collect::<Vec<_>>();
        assert_eq!(shared_df(&with_df([2, 40, 7]), 100), [40, 40, 7], "the common fold's count for both");
        assert_eq!(shared_df(&with_df([80, 40, 7]), 100), [80, 80, 7]);
        assert_eq!(shared_df(&with_df([80, 40, 7]), 50), [50, 50, 7], "never more than the chunks");
        let cjk = query_terms(&query_words("東京都"), &[None, Some(Language::Japanese)]);
        assert_eq!(cjk.iter().map(|t| t.piece).collect::<Vec<_>>(), [0, 1], "each character pair its own piece");
    }

    #[test]
    fn a_language_set_lists_its_languages() {
        let mut set = LanguageSet::default();
        assert_eq!(set.languages(), [Some(Language::English)], "empty: English");
        set.insert(Some(Language::Japanese));
        set.insert(None);
        set.insert(Some(Language::French));
        assert_eq!(set.languages(), [None, Some(Language::French), Some(Language::Japanese)]);
        let mut other = LanguageSet::default();
        other.insert(Some(Language::English));
        assert_eq!(set.union(other).languages().len(), 4);
    }

    #[test]
    fn the_best_k_are_kept_best_first_ties_by_key() {
        let got = best_k([(1.0, 5), (3.0, 9), (3.0, 2), (0.5, 1), (2.0, 7)], 3);
        assert_eq!(got, [(3.0, 2), (3.0, 9), (2.0, 7)]);
        assert!(best_k([(1.0, 1)], 0).is_empty());
    }

    #[test]
    fn rarer_terms_weigh_more_and_common_ones_next_to_nothing() {
        let bm25 = Bm25::new(1000, 100_000);
        assert!(bm25.idf(1) > bm25.idf(100));
        assert_eq!(bm25.idf(900), MIN_IDF, "in most chunks: floored, never negative");
        let idf = bm25.idf(10);
        assert!(bm25.weight(idf, 2, 100) > bm25.weight(idf, 1, 100));
        assert!(bm25.weight(idf, 1, 50) > bm25.weight(idf, 1, 200), "shorter chunks first");
        assert!(bm25.weight(idf, 1_000_000, 1) < Bm25::bound(idf));
    }
}
