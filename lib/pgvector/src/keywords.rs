//! Keyword search on PostgreSQL by BM25, ranked as the embedded index ranks: the same terms
//! (SQLite FTS5's tokenizer, run here in Rust), the same question words, the same k1, b and IDF
//! floor, statistics over the owner's enabled chunks (`lore_keywords`). Tables and their layout:
//! `infra/sql/005_keywords.sql`.
//!
//! A search reads, in one snapshot: the owner's segments (N and the average length from their
//! partial sums, and which segments belong to the allowed sources), then every postings row of
//! its terms (one primary-key range per term, the postings stored in the index: n is the sum of
//! their `df`), and scores those of the allowed segments here.
//! The rows read grow with the chunks that hold the question's terms, not with every match's text,
//! which is what made `ts_rank_cd` cost a second at 100k chunks (docs/benchmarks.md).

use lore_domain::language::Language;
use lore_keywords::{Bm25, LanguageSet, QueryTerm};
use std::collections::{BTreeMap, HashMap};

/// Chunk positions per segment: a segment is the chunks of one source whose positions share
/// `position / SEGMENT_SPAN`. Small enough that a term's postings in a segment fit a btree entry
/// (`infra/sql/005_keywords.sql`), large enough that a big source is a few rows per term.
pub(crate) const SEGMENT_SPAN: u32 = 256;

/// Terms longer than this many bytes (base64 runs and the like) are kept as their first bytes and
/// a hash of the whole, so the btree key stays small and matching stays exact in practice.
const MAX_TERM_BYTES: usize = 128;

/// One segment as written: its block, statistics and per-term postings.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Segment {
    pub block: i32,
    /// One past the highest position offset in the segment (slots a search needs for it).
    pub span: i32,
    pub chunks: i32,
    pub terms: i64,
    /// The languages of its chunks.
    pub languages: LanguageSet,
    /// Per position offset, that chunk's language ([`LanguageSet::position`]).
    pub chunk_languages: Vec<u8>,
    /// Per term (sorted): the chunks holding it, and their packed postings.
    pub postings: BTreeMap<Vec<u8>, (i32, Vec<u8>)>,
}

/// The segments of a source's enabled chunks, given as `(position, text, language)`.
pub(crate) fn segments<'a>(chunks: impl IntoIterator<Item = (u32, &'a str, Option<Language>)>) -> Vec<Segment> {
    let mut sorted: Vec<(u32, &str, Option<Language>)> = chunks.into_iter().collect();
    sorted.sort_by_key(|c| c.0);
    // Ingest numbers a source's chunks 0..n, so positions are unique; should two share one, the
    // first is indexed (a hit is fetched by its position).
    sorted.dedup_by_key(|c| c.0);
    let mut out: BTreeMap<u32, Segment> = BTreeMap::new();
    for (position, text, language) in sorted {
        let block = position / SEGMENT_SPAN;
        let offset = position % SEGMENT_SPAN;
        let segment = out.entry(block).or_insert_with(|| Segment { block: block as i32, ..Segment::default() });
        let (terms, length) = lore_keywords::chunk_terms(text, language);
        segment.languages.insert(language);
        segment.chunk_languages.resize(offset as usize + 1, 0);
        segment.chunk_languages[offset as usize] = LanguageSet::position(language);
        segment.span = offset as i32 + 1;
        segment.chunks += 1;
        segment.terms += i64::from(length);
        for (term, count) in terms {
            let (df, packed) = segment.postings.entry(stored_term(term)).or_default();
            *df += 1;
            for v in [offset, count, length] {
                push_varint(packed, v);
            }
        }
    }
    out.into_values().collect()
}

/// A term as stored and looked up: itself, or for an overlong one its first bytes and a hash.
pub(crate) fn stored_term(mut term: Vec<u8>) -> Vec<u8> {
    if term.len() <= MAX_TERM_BYTES {
        return term;
    }
    // FNV-1a: stable across builds and platforms, unlike std's hasher.
    let hash = term.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    term.truncate(MAX_TERM_BYTES - 17);
    term.push(0xff); // not a byte of UTF-8 text: no real term ends like this
    term.extend_from_slice(format!("{hash:016x}").as_bytes());
    term
}

fn push_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The packed postings of one term in one segment: `(offset, count, length)` per chunk.
pub(crate) fn postings(mut packed: &[u8]) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
    let mut next = move || {
        let mut v = 0u32;
        for shift in (0..35).step_by(7) {
            let (&b, rest) = packed.split_first()?;
            packed = rest;
            v |= u32::from(b & 0x7f).checked_shl(shift)?;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    };
    std::iter::from_fn(move || Some((next()?, next()?, next()?)))
}

/// A segment a search may score: where its slots start in the score array.
pub(crate) struct Allowed {
    pub base: usize,
    pub span: usize,
    pub source: usize,
    pub block: u32,
    /// Per offset, the chunk's language; empty for a segment written before chunks had one
    /// there (its chunks count every term until the keyword backlog writes it again).
    pub chunk_languages: Vec<u8>,
}

/// One term of a question as a search reads it: which chunks count it, how many chunks of the
/// owner hold it (`df`), and its `(segment id, packed postings)` rows in allowed segments.
pub(crate) struct TermPostings {
    pub term: QueryTerm,
    pub df: u64,
    pub rows: Vec<(i64, Vec<u8>)>,
}

/// Scores the postings of `terms` (in the question's order; a chunk counts only its own
/// language's terms) and keeps the best `k` as `(source index, position, score)`, best first,
/// ties by source then position. `segments` are the allowed ones by ascending `base`, `index`
/// finds one by its id.
pub(crate) fn top_k(
    bm25: &Bm25,
    terms: &[TermPostings],
    segments: &[Allowed],
    index: &HashMap<i64, usize>,
    only: Option<&std::collections::HashSet<(usize, u32)>>,
    k: usize,
) -> Vec<(usize, u32, f64)> {
    let slots = segments.last().map_or(0, |s| s.base + s.span);
    let mut scores = vec![0.0f64; slots];
    let mut touched: Vec<usize> = Vec::new();
    for term in terms {
        let idf = bm25.idf(term.df);
        for (segment, packed) in &term.rows {
            let Some(seg) = index.get(segment).map(|&i| &segments[i]) else { continue };
            for (offset, count, length) in postings(packed) {
                let own_language = seg.chunk_languages.get(offset as usize).is_none_or(|&p| term.term.counts_in(p));
                if offset as usize >= seg.span || !own_language {
                    continue;
                }
                let slot = seg.base + offset as usize;
                if scores[slot] == 0.0 {
                    touched.push(slot);
                }
                scores[slot] += bm25.weight(idf, count, length);
            }
        }
    }
    // A slot's chunk: the segment whose range holds it (bases ascend), at its offset.
    let place = |slot: usize| {
        let seg = &segments[segments.partition_point(|s| s.base <= slot).saturating_sub(1)];
        (seg.source, seg.block * SEGMENT_SPAN + (slot - seg.base) as u32)
    };
    let candidates = touched
        .into_iter()
        .map(|slot| (scores[slot], place(slot)))
        .filter(|(_, at)| only.is_none_or(|o| o.contains(at)));
    lore_keywords::best_k(candidates, k)
        .into_iter()
        .map(|(score, (source, position))| (source, position, score))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postings_round_trip_and_segments_split_by_position() {
        let en = Some(Language::English);
        let chunks = [(3u32, "refund refund policy", en), (300, "refund", en), (0, "shipping", None)];
        let segs = segments(chunks);
        assert_eq!(segs.len(), 2);
        assert_eq!((segs[0].block, segs[0].span, segs[0].chunks, segs[0].terms), (0, 4, 2, 4));
        assert_eq!((segs[1].block, segs[1].span, segs[1].chunks, segs[1].terms), (1, 45, 1, 1));
        assert_eq!(segs[0].languages.languages(), [None, en], "the languages of its chunks");
        let english = LanguageSet::position(en);
        assert_eq!(segs[0].chunk_languages, [0, 0, 0, english], "each chunk's, by offset");
        let (df, packed) = &segs[0].postings[b"refund".as_slice()];
        assert_eq!((*df, postings(packed).collect::<Vec<_>>()), (1, vec![(3, 2, 3)]));
        let (_, packed) = &segs[1].postings[b"refund".as_slice()];
        assert_eq!(postings(packed).collect::<Vec<_>>(), [(44, 1, 1)]);
        let mut big = Vec::new();
        for v in [0, 127, 128, 300_000, u32::MAX, 1, 2] {
            push_varint(&mut big, v);
        }
        assert_eq!(postings(&big).collect::<Vec<_>>(), [(0, 127, 128), (300_000, u32::MAX, 1)]);
        assert_eq!(postings(&[0xff]).count(), 0, "a truncated value ends the list");
    }

    #[test]
    fn overlong_terms_are_kept_short_and_distinct() {
        let a = stored_term(vec![b'a'; 1000]);
        let mut other = vec![b'a'; 1000];
        other[999] = b'b';
        assert_eq!(a.len(), MAX_TERM_BYTES);
        assert_ne!(a, stored_term(other));
        assert_eq!(stored_term(b"refund".to_vec()), b"refund");
    }
}
