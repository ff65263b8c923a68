//! ISO base media (MP4) boxes: enough to tell an M4A audio file from a video.

use std::ops::Range;

/// Brands of files that may hold audio only: iTunes audio and audiobooks, the generic ISO and
/// MP4 brands, and the 3GPP audio brands.
const AUDIO_BRANDS: &[&[u8; 4]] = &[
    b"M4A ", b"M4B ", b"M4P ", b"mp41", b"mp42", b"isom", b"iso2", b"iso4", b"iso5", b"iso6", b"dash", b"3gp4",
    b"3gp5", b"3gp6", b"3g2a", b"F4A ",
];
/// Brands that say "audio file" even when a track of images is present (the chapter images of
/// enhanced podcasts are a `vide` track).
const AUDIO_ONLY_BRANDS: &[&[u8; 4]] = &[b"M4A ", b"M4B ", b"M4P ", b"F4A "];

/// Nesting depth searched for tracks; `moov/trak/mdia/hdlr` is 4 deep.
const MAX_DEPTH: usize = 4;

/// A box: its type and where its body is within the bytes (cut at the end of the data).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Atom {
    kind: [u8; 4],
    body: Range<usize>,
    /// Where the next box starts.
    end: usize,
}

fn atom_at(bytes: &[u8], offset: usize, limit: usize) -> Option<Atom> {
    let header = bytes.get(offset..offset.checked_add(8)?)?;
    let size = u64::from(u32::from_be_bytes(header[..4].try_into().ok()?));
    let kind: [u8; 4] = header[4..8].try_into().ok()?;
    let (header_len, size) = match size {
        0 => (8, (limit - offset) as u64),
        1 => (16, u64::from_be_bytes(bytes.get(offset + 8..offset + 16)?.try_into().ok()?)),
        n => (8, n),
    };
    if size < header_len as u64 {
        return None;
    }
    let end = offset.checked_add(usize::try_from(size).ok()?)?;
    let body = (offset + header_len).min(limit)..end.min(limit);
    Some(Atom { kind, body, end })
}

/// The boxes directly inside `range`.
fn children(bytes: &[u8], range: Range<usize>) -> Vec<Atom> {
    let mut out = Vec::new();
    let mut offset = range.start;
    while offset + 8 <= range.end {
        let Some(atom) = atom_at(bytes, offset, range.end) else { break };
        offset = atom.end;
        out.push(atom);
    }
    out
}

/// Whether the bytes are an M4A audio file: an `ftyp` box first, naming an audio-capable brand;
/// and, when the `moov` box is within the bytes, a sound track in it, and no video track unless
/// the brand says audio. When only the head of a file is given (`moov` at its end, not seen),
/// the brand decides.
pub fn is_m4a(bytes: &[u8]) -> bool {
    let Some(ftyp) = atom_at(bytes, 0, bytes.len()) else { return false };
    if &ftyp.kind != b"ftyp" || ftyp.end > 4096 || ftyp.body.len() < 8 || ftyp.end > bytes.len() {
        return false;
    }
    let major: [u8; 4] = bytes[ftyp.body.start..ftyp.body.start + 4].try_into().expect("4 bytes");
    let compatible = bytes[ftyp.body.start + 8..ftyp.body.end].chunks_exact(4);
    let brands: Vec<&[u8]> = std::iter::once(&major[..]).chain(compatible).collect();
    let has = |list: &[&[u8; 4]]| brands.iter().any(|b| list.iter().any(|l| &l[..] == *b));
    if !has(AUDIO_BRANDS) {
        return false;
    }
    let top = children(bytes, 0..bytes.len());
    let Some(moov) = top.iter().find(|a| &a.kind == b"moov") else { return true };
    let handlers = handler_types(bytes, moov.body.clone(), 1);
    let audio_only_brand = has(AUDIO_ONLY_BRANDS);
    handlers.iter().any(|h| h == b"soun") && (audio_only_brand || !handlers.iter().any(|h| h == b"vide"))
}

/// The `hdlr` handler types of the tracks under `range` (`soun`, `vide`, `text`, …).
fn handler_types(bytes: &[u8], range: Range<usize>, depth: usize) -> Vec<[u8; 4]> {
    let mut out = Vec::new();
    for atom in children(bytes, range) {
        match &atom.kind {
            // Full box: version and flags (4), pre-defined (4), then the handler type.
            b"hdlr" => {
                if let Some(kind) = bytes.get(atom.body.start + 8..atom.body.start + 12) {
                    out.push(kind.try_into().expect("4 bytes"));
                }
            }
            b"trak" | b"mdia" if depth < MAX_DEPTH => out.extend(handler_types(bytes, atom.body, depth + 1)),
            _ => {}
        }
    }
    out
}
