//! Cutting an audio file into pieces under a per-request size limit, at boundaries where each
//! piece is valid audio on its own.
//!
//! - **MP3**: whole MPEG frames, as contiguous ranges of the file (no copy). The ID3v2 tag (often
//!   large cover art) and a Xing/Info/VBRI frame (it states the frame count of the whole file) are
//!   left out of every piece. A piece's first frame may refer to bit-reservoir bytes of the frame
//!   before it, so a decoder may lose a few milliseconds at each cut; nothing a transcript notices.
//! - **WAV**: whole sample frames (`block_align` bytes) of the `data` chunk, each piece behind a
//!   fresh header carrying the original `fmt ` chunk and correct RIFF and data sizes. Only
//!   formats whose data is a plain sequence of sample frames (PCM, float, A-law, µ-law) are cut.
//! - **OGG**: whole pages of a single logical stream (Vorbis, Opus, FLAC, Speex), each piece
//!   starting at a page that begins a packet, preceded by the stream's header pages (identification,
//!   comment, setup) so every piece decodes alone. Pages are renumbered from 0, the last page of a
//!   piece is marked end-of-stream, and the checksums are recomputed.
//! - **M4A**: not cut. Its sample tables sit in one `moov` box indexing the whole file, so a valid
//!   piece needs a rewritten `moov` (a remuxer); such files are refused with advice to convert.
//!
//! A file within the limit is sent exactly as it is. Checked with ffmpeg 5.1 on the fixtures
//! (`tests/fixtures/audio`): every piece of every format decodes without a warning; at each cut
//! a Vorbis decoder drops one block of overlap (~30 ms) and an Opus decoder its pre-skip (~6 ms).

use bytes::{Bytes, BytesMut};
use lore_app::ports::TranscribeError;
use lore_domain::audio::AudioFormat;
use lore_extract::audio::ogg::{self, OggCodec, Page};
use lore_extract::audio::{mpeg, wav};
use std::ops::Range;

/// One request's worth of audio, described by where its bytes come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// A contiguous range of the file, sent as-is.
    Range(Range<usize>),
    /// A WAV header for `data`, then the samples (and a pad byte when their length is odd).
    Wav { fmt_chunk: Range<usize>, data: Range<usize> },
    /// The header pages `headers`, then the pages in `pages`, renumbered.
    Ogg { headers: Range<usize>, pages: Range<usize> },
}

impl Piece {
    /// Length of the piece's bytes.
    pub fn len(&self) -> usize {
        match self {
            Piece::Range(range) => range.len(),
            Piece::Wav { fmt_chunk, data } => wav_header_len(fmt_chunk.len()) + data.len() + (data.len() & 1),
            Piece::Ogg { headers, pages } => headers.len() + pages.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The piece's bytes. A `Range` shares the file's buffer; the others are copied.
    pub fn build(&self, file: &Bytes) -> Bytes {
        match self {
            Piece::Range(range) => file.slice(range.clone()),
            Piece::Wav { fmt_chunk, data } => {
                let mut out = BytesMut::with_capacity(self.len());
                out.extend_from_slice(&wav::header(&file[fmt_chunk.clone()], data.len()));
                out.extend_from_slice(&file[data.clone()]);
                if data.len() & 1 == 1 {
                    out.extend_from_slice(&[0]);
                }
                out.freeze()
            }
            Piece::Ogg { headers, pages } => {
                let mut out = BytesMut::with_capacity(self.len());
                out.extend_from_slice(&file[headers.clone()]);
                out.extend_from_slice(&file[pages.clone()]);
                // Renumber from 0, keep BOS on the first page only, EOS on the last only.
                let mut offset = 0;
                let mut sequence = 0u32;
                while offset < out.len() {
                    let page = Page::parse(&out, offset).expect("pages were validated when planned");
                    let mut header_type = page.header_type & !(ogg::BEGIN_OF_STREAM | ogg::END_OF_STREAM);
                    if sequence == 0 {
                        header_type |= ogg::BEGIN_OF_STREAM;
                    }
                    if page.end() == out.len() {
                        header_type |= ogg::END_OF_STREAM;
                    }
                    let end = page.end();
                    ogg::rewrite_page(&mut out[offset..end], sequence, header_type);
                    sequence += 1;
                    offset = end;
                }
                out.freeze()
            }
        }
    }
}

/// The pieces of `file` so that each is at most `limit` bytes: the whole file when it fits.
pub fn plan(file: &[u8], format: AudioFormat, limit: usize) -> Result<Vec<Piece>, TranscribeError> {
    if file.is_empty() {
        return Err(TranscribeError::Unsupported("the file is empty".to_owned()));
    }
    if file.len() <= limit {
        return Ok(vec![Piece::Range(0..file.len())]);
    }
    match format {
        AudioFormat::Mp3 => plan_mp3(file, limit),
        AudioFormat::Wav => plan_wav(file, limit),
        AudioFormat::Ogg => plan_ogg(file, limit),
        AudioFormat::M4a => Err(TranscribeError::TooLarge(format!(
            "an M4A file over {} cannot be split (its index covers the whole file); convert it to MP3",
            megabytes(limit)
        ))),
    }
}

fn plan_mp3(file: &[u8], limit: usize) -> Result<Vec<Piece>, TranscribeError> {
    let mut frames = mpeg::frames(file);
    if frames.first().is_some_and(|f| f.header.is_vbr_info_frame(&file[f.offset..])) {
        frames.remove(0);
    }
    if frames.is_empty() {
        return Err(TranscribeError::Unsupported("no MP3 audio frames were found".to_owned()));
    }
    // Damaged stretches between frames stay inside a piece (decoders skip them as the original did).
    let units: Vec<Range<usize>> = frames.iter().map(|f| f.offset..f.offset + f.header.frame_len).collect();
    Ok(group(&units, limit, "MP3 frame")?.into_iter().map(Piece::Range).collect())
}

fn plan_wav(file: &[u8], limit: usize) -> Result<Vec<Piece>, TranscribeError> {
    let layout = wav::WavLayout::parse(file)
        .ok_or_else(|| TranscribeError::Unsupported("the WAV file's format chunk is missing or damaged".to_owned()))?;
    if !layout.is_framed() {
        return Err(TranscribeError::TooLarge(format!(
            "a WAV file in codec 0x{:04x} over {} cannot be split; convert it to MP3 or PCM WAV",
            layout.format,
            megabytes(limit)
        )));
    }
    let block = usize::from(layout.block_align);
    let blocks = layout.data.len() / block;
    if blocks == 0 {
        return Err(TranscribeError::Unsupported("the WAV file has no audio data".to_owned()));
    }
    // Room for the header and a possible pad byte.
    let room = limit.saturating_sub(wav_header_len(layout.fmt_chunk.len()) + 1) / block;
    if room == 0 {
        return Err(too_small(limit, "a WAV header and one sample frame"));
    }
    // Even pieces rather than full ones and a short tail.
    let per_piece = blocks.div_ceil(blocks.div_ceil(room));
    let start = layout.data.start;
    Ok((0..blocks)
        .step_by(per_piece)
        .map(|first| {
            let end = (first + per_piece).min(blocks);
            Piece::Wav { fmt_chunk: layout.fmt_chunk.clone(), data: start + first * block..start + end * block }
        })
        .collect())
}

fn plan_ogg(file: &[u8], limit: usize) -> Result<Vec<Piece>, TranscribeError> {
    let cannot = |why: &str| {
        Err(TranscribeError::TooLarge(format!(
            "an OGG file over {} cannot be split ({why}); convert it to MP3",
            megabytes(limit)
        )))
    };
    let pages = ogg::pages(file);
    let Some(first) = pages.first() else {
        return Err(TranscribeError::Unsupported("the OGG file's first page is damaged".to_owned()));
    };
    if pages.iter().any(|p| p.serial != first.serial) {
        return cannot("it holds several streams");
    }
    let first_packet = first.body(file);
    let Some(codec) = OggCodec::identify(first_packet) else {
        return Err(TranscribeError::Unsupported("the OGG file holds no Vorbis, Opus, FLAC or Speex audio".to_owned()));
    };
    let Some(header_packets) = codec.header_packets(first_packet) else {
        return cannot("its number of header packets is not declared");
    };
    // The header packets must end exactly at a page end: codecs start audio on a fresh page.
    let mut ended = 0;
    let Some(last_header) = pages.iter().position(|page| {
        ended += page.packets_ended();
        ended >= header_packets
    }) else {
        return Err(TranscribeError::Unsupported("the OGG file has no audio after its headers".to_owned()));
    };
    if ended != header_packets || pages[last_header].ends_inside_a_packet() {
        return cannot("audio starts on a page with header data");
    }
    let headers = 0..pages[last_header].end();
    let audio = &pages[last_header + 1..];
    if audio.is_empty() {
        return Err(TranscribeError::Unsupported("the OGG file has no audio after its headers".to_owned()));
    }
    if pages.last().is_some_and(|p| p.end() < file.len()) {
        tracing::warn!(valid = pages.last().map(Page::end), bytes = file.len(), "damaged OGG tail left out");
    }
    // A piece may begin only where a packet begins: a page continuing a packet joins the unit before it.
    let mut units: Vec<Range<usize>> = Vec::new();
    for page in audio {
        match units.last_mut() {
            Some(unit) if page.header_type & ogg::CONTINUED != 0 => unit.end = page.end(),
            _ => units.push(page.offset..page.end()),
        }
    }
    // The headers repeat in every piece; cover art in the comment header can make them large.
    let room = limit.saturating_sub(headers.len());
    if room < limit / 4 {
        return cannot(&format!("its header pages take {} of every piece", megabytes(headers.len())));
    }
    Ok(group(&units, room, "OGG page")?
        .into_iter()
        .map(|pages| Piece::Ogg { headers: headers.clone(), pages })
        .collect())
}

/// Groups consecutive units into ranges of at most `limit` bytes: the fewest pieces that fit,
/// made as even as the units allow rather than full pieces and a short tail (some providers
/// refuse audio shorter than a tenth of a second).
fn group(units: &[Range<usize>], limit: usize, unit: &str) -> Result<Vec<Range<usize>>, TranscribeError> {
    let (Some(first), Some(last)) = (units.first(), units.last()) else { return Ok(vec![]) };
    let biggest = units.iter().map(Range::len).max().unwrap_or(0);
    if biggest > limit {
        return Err(too_small(limit, &format!("one {unit} of {biggest} bytes")));
    }
    // Filling each piece up to the limit gives the fewest pieces; the smallest cap that keeps
    // that count (binary search: the count only falls as the cap grows) evens out their sizes.
    let fewest = fill(units, limit).len();
    let (mut low, mut high) = (biggest, limit);
    while low < high {
        let cap = low + (high - low) / 2;
        if fill(units, cap).len() <= fewest { high = cap } else { low = cap + 1 }
    }
    // Filling up to that cap can still leave a short tail; cutting near equal shares avoids it
    // whenever that keeps the count.
    let even = cut_near_shares(units, high, (last.end - first.start).div_ceil(fewest));
    Ok(if even.len() == fewest { even } else { fill(units, high) })
}

/// Greedy: each piece takes units while it stays within `cap`.
fn fill(units: &[Range<usize>], cap: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut current = units[0].clone();
    for unit in &units[1..] {
        if unit.end - current.start > cap {
            out.push(std::mem::replace(&mut current, unit.clone()));
        } else {
            current.end = unit.end;
        }
    }
    out.push(current);
    out
}

/// Cuts at the unit boundary nearest to each multiple of `share`, and wherever `cap` forces it.
fn cut_near_shares(units: &[Range<usize>], cap: usize, share: usize) -> Vec<Range<usize>> {
    let start = units[0].start;
    let mut out = Vec::new();
    let mut current = units[0].clone();
    for unit in &units[1..] {
        let boundary = start + share * (out.len() + 1);
        let over_cap = unit.end - current.start > cap;
        let nearer_without =
            current.end >= boundary || (unit.end > boundary && unit.end - boundary > boundary - current.end);
        if over_cap || nearer_without {
            out.push(std::mem::replace(&mut current, unit.clone()));
        } else {
            current.end = unit.end;
        }
    }
    out.push(current);
    out
}

fn wav_header_len(fmt_chunk_len: usize) -> usize {
    12 + fmt_chunk_len + (fmt_chunk_len & 1) + 8
}

fn too_small(limit: usize, what: &str) -> TranscribeError {
    TranscribeError::TooLarge(format!("the per-request limit of {limit} bytes cannot hold {what}"))
}

/// `24 MB`, `1.5 MB`, `800 KB` (decimal units, as providers state their limits).
pub fn megabytes(bytes: usize) -> String {
    if bytes >= 1_000_000 {
        let mb = bytes as f64 / 1e6;
        if mb.fract() < 0.05 { format!("{mb:.0} MB") } else { format!("{mb:.1} MB") }
    } else {
        format!("{} KB", bytes.div_ceil(1000))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_few_even_and_within_the_limit() {
        let units: Vec<Range<usize>> = (0..10).map(|i| i * 100..(i + 1) * 100).collect();
        // 1000 bytes, limit 450: 3 pieces near a third each, not 400 + 400 + 200.
        assert_eq!(group(&units, 450, "unit").unwrap(), vec![0..300, 300..700, 700..1000]);
        assert_eq!(group(&units, 1000, "unit").unwrap(), vec![0..1000]);
        assert_eq!(group(&units, 100, "unit").unwrap().len(), 10);
        // 1000 bytes, limit 600: 2 pieces of 500, not 600 + 400.
        assert_eq!(group(&units, 600, "unit").unwrap(), vec![0..500, 500..1000]);
        let err = group(&units, 99, "unit").unwrap_err();
        assert!(matches!(&err, TranscribeError::TooLarge(m) if m.contains("one unit of 100 bytes")), "{err}");
    }

    #[test]
    fn uneven_units_still_give_the_fewest_pieces() {
        // Filling to the limit (1000) gives 3 pieces: 900 | 900 | 900 (units 450 can't pair with 600).
        let sizes = [450, 450, 600, 300, 450, 450];
        let mut units = Vec::new();
        let mut at = 0;
        for size in sizes {
            units.push(at..at + size);
            at += size;
        }
        let groups = group(&units, 1000, "unit").unwrap();
        assert_eq!(groups.len(), fill(&units, 1000).len());
        assert!(groups.iter().all(|g| g.len() <= 1000), "{groups:?}");
        assert_eq!(groups.first().unwrap().start, 0);
        assert_eq!(groups.last().unwrap().end, at);
        for pair in groups.windows(2) {
            assert_eq!(pair[0].end, pair[1].start);
        }
    }

    #[test]
    fn a_gap_between_units_counts_toward_the_piece() {
        // The first two units hold 200 bytes but span 250 with the damaged bytes between them.
        let units = vec![0..100, 150..250, 250..350];
        assert_eq!(group(&units, 240, "unit").unwrap(), vec![0..100, 150..350]);
    }

    #[test]
    fn megabytes_are_decimal() {
        assert_eq!(megabytes(24_000_000), "24 MB");
        assert_eq!(megabytes(1_500_000), "1.5 MB");
        assert_eq!(megabytes(4_000), "4 KB");
    }
}
