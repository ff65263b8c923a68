//! RIFF/WAVE layout: the `fmt ` chunk and where the sample data is.

use std::ops::Range;

/// `WAVE_FORMAT_PCM`, `_IEEE_FLOAT`, `_ALAW`, `_MULAW`: formats whose data is a plain sequence of
/// `block_align`-byte sample frames, so any whole number of frames is valid audio.
pub const FRAMED_FORMATS: [u16; 4] = [1, 3, 6, 7];
/// `WAVE_FORMAT_EXTENSIBLE`: the real format is the first two bytes of the sub-format GUID.
const EXTENSIBLE: u16 = 0xfffe;

/// Where the parts of a WAV file are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WavLayout {
    /// The whole `fmt ` chunk, header included (copied as-is into the pieces of a split file).
    pub fmt_chunk: Range<usize>,
    /// The codec: the format tag, or for `WAVE_FORMAT_EXTENSIBLE` the sub-format's.
    pub format: u16,
    pub channels: u16,
    pub sample_rate: u32,
    pub block_align: u16,
    /// The sample data present in the bytes (a declared size past the end is cut to the end, as
    /// streaming writers leave sizes unset).
    pub data: Range<usize>,
}

impl WavLayout {
    /// Parses a RIFF/WAVE file: `fmt ` must come before `data`. `None` when it is not a WAV file
    /// or its format chunk is invalid.
    pub fn parse(bytes: &[u8]) -> Option<Self> {
        if bytes.len() < 12 || &bytes[..4] != b"RIFF" || &bytes[8..12] != b"WAVE" {
            return None;
        }
        let mut position = 12;
        let mut fmt: Option<(Range<usize>, u16, u16, u32, u16)> = None;
        while position + 8 <= bytes.len() {
            let id = &bytes[position..position + 4];
            let size = u32_le(&bytes[position + 4..]) as usize;
            let body = position + 8;
            if id == b"data" {
                let (fmt_chunk, format, channels, sample_rate, block_align) = fmt?;
                let end = body.saturating_add(size).min(bytes.len());
                return Some(Self { fmt_chunk, format, channels, sample_rate, block_align, data: body..end });
            }
            if id == b"fmt " {
                let f = bytes.get(body..body.checked_add(size)?)?;
                if size < 16 {
                    return None;
                }
                let mut format = u16_le(f);
                if format == EXTENSIBLE {
                    format = if size >= 40 { u16_le(&f[24..]) } else { return None };
                }
                let channels = u16_le(&f[2..]);
                let sample_rate = u32_le(&f[4..]);
                let block_align = u16_le(&f[12..]);
                if channels == 0 || sample_rate == 0 || block_align == 0 {
                    return None;
                }
                fmt = Some((position..body + size, format, channels, sample_rate, block_align));
            }
            // Chunks are padded to an even length.
            position = body.checked_add(size)?.checked_add(size & 1)?;
        }
        None
    }

    /// Whether any whole number of sample frames of the data is valid audio of this format.
    pub fn is_framed(&self) -> bool {
        FRAMED_FORMATS.contains(&self.format)
    }
}

/// A canonical WAV header (`RIFF`, the given `fmt ` chunk, `data` header) for `data_len` bytes of
/// samples. The caller appends the data and, when `data_len` is odd, one pad byte.
pub fn header(fmt_chunk: &[u8], data_len: usize) -> Vec<u8> {
    let fmt_padded = fmt_chunk.len() + (fmt_chunk.len() & 1);
    let riff_len = 4 + fmt_padded + 8 + data_len + (data_len & 1);
    let mut out = Vec::with_capacity(12 + fmt_padded + 8);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(riff_len as u32).to_le_bytes());
    out.extend_from_slice(b"WAVE");
    out.extend_from_slice(fmt_chunk);
    if fmt_chunk.len() & 1 == 1 {
        out.push(0);
    }
    out.extend_from_slice(b"data");
    out.extend_from_slice(&(data_len as u32).to_le_bytes());
    out
}

fn u16_le(b: &[u8]) -> u16 {
    u16::from_le_bytes([b[0], b[1]])
}

fn u32_le(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}
