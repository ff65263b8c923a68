//! MPEG audio Layer III (MP3) frame headers and ID3v2 tags.

/// MPEG version of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MpegVersion {
    V1,
    V2,
    V2_5,
}

/// A parsed Layer III frame header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameHeader {
    pub version: MpegVersion,
    pub bitrate_kbps: u32,
    pub sample_rate: u32,
    pub mono: bool,
    /// A 16-bit CRC follows the header.
    pub protected: bool,
    /// Length of the whole frame, header included.
    pub frame_len: usize,
    /// Audio samples (per channel) the frame decodes to.
    pub samples: u32,
}

impl FrameHeader {
    /// Parses the 4 header bytes at the start of `bytes`. `None` for anything but a Layer III
    /// header with a fixed bitrate and valid sample rate (free-format streams are not accepted).
    pub fn parse(bytes: &[u8]) -> Option<Self> {
        let &[b0, b1, b2, b3, ..] = bytes else { return None };
        if b0 != 0xff || b1 & 0xe0 != 0xe0 {
            return None;
        }
        let version = match (b1 >> 3) & 3 {
            0 => MpegVersion::V2_5,
            2 => MpegVersion::V2,
            3 => MpegVersion::V1,
            _ => return None,
        };
        if (b1 >> 1) & 3 != 1 {
            return None; // not Layer III
        }
        let bitrate_index = usize::from(b2 >> 4);
        let rate_index = usize::from((b2 >> 2) & 3);
        if bitrate_index == 0 || bitrate_index == 15 || rate_index == 3 || b3 & 3 == 2 {
            return None; // free format, bad bitrate, reserved rate, reserved emphasis
        }
        const V1_KBPS: [u32; 15] = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
        const V2_KBPS: [u32; 15] = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
        let (bitrate_kbps, sample_rate, samples) = match version {
            MpegVersion::V1 => (V1_KBPS[bitrate_index], [44_100, 48_000, 32_000][rate_index], 1152),
            MpegVersion::V2 => (V2_KBPS[bitrate_index], [22_050, 24_000, 16_000][rate_index], 576),
            MpegVersion::V2_5 => (V2_KBPS[bitrate_index], [11_025, 12_000, 8_000][rate_index], 576),
        };
        let padding = usize::from((b2 >> 1) & 1);
        let coefficient = if version == MpegVersion::V1 { 144 } else { 72 };
        let frame_len = (coefficient * bitrate_kbps as usize * 1000) / sample_rate as usize + padding;
        Some(Self {
            version,
            bitrate_kbps,
            sample_rate,
            mono: b3 >> 6 == 3,
            protected: b1 & 1 == 0,
            frame_len,
            samples,
        })
    }

    /// Whether `other` can follow this frame in one stream (same version and sample rate).
    pub fn same_stream(&self, other: &FrameHeader) -> bool {
        self.version == other.version && self.sample_rate == other.sample_rate
    }

    /// Whether the frame starting at `frame` is a Xing/Info or VBRI header frame: silence carrying
    /// the frame count and seek table of the whole file, wrong for a piece of it.
    pub fn is_vbr_info_frame(&self, frame: &[u8]) -> bool {
        let side_info = match (self.version, self.mono) {
            (MpegVersion::V1, false) => 32,
            (MpegVersion::V1, true) => 17,
            (_, false) => 17,
            (_, true) => 9,
        };
        let xing = 4 + if self.protected { 2 } else { 0 } + side_info;
        let at = |offset: usize, tag: &[u8]| frame.get(offset..offset + tag.len()) == Some(tag);
        at(xing, b"Xing") || at(xing, b"Info") || at(36, b"VBRI")
    }
}

/// Length of the ID3v2 tag at the start of `bytes` (header, body and footer), if there is one.
pub fn id3v2_len(bytes: &[u8]) -> Option<usize> {
    let header = bytes.get(..10)?;
    if &header[..3] != b"ID3" || !(2..=4).contains(&header[3]) || header[4] == 0xff {
        return None;
    }
    let size = header[6..10].iter().try_fold(0usize, |acc, &b| (b < 0x80).then_some((acc << 7) | usize::from(b)))?;
    let footer = if header[5] & 0x10 != 0 { 10 } else { 0 };
    Some(10 + size + footer)
}

/// How many consecutive frames must agree before bytes count as an MP3 stream (fewer when the
/// data ends first).
const SYNC_RUN: usize = 3;

/// Whether a stream of consistent frames starts at `at`: a whole first frame, then [`SYNC_RUN`]
/// frames of the same stream in a row, or as many as there are until the end of the data (a
/// short file, or only the head of a file given, its last frame cut off).
pub fn frames_start_at(bytes: &[u8], at: usize) -> bool {
    let Some(first) = bytes.get(at..).and_then(FrameHeader::parse) else { return false };
    let mut position = at + first.frame_len;
    if position > bytes.len() {
        return false; // not even one whole frame
    }
    for _ in 1..SYNC_RUN {
        if position >= bytes.len() {
            return true;
        }
        match FrameHeader::parse(&bytes[position..]) {
            Some(next) if next.same_stream(&first) => position += next.frame_len,
            // Fewer than 4 bytes left: a head cut inside the next header.
            None if bytes.len() - position < 4 => return true,
            _ => return false,
        }
    }
    true
}

/// Where the first audio frame of an MP3 file starts: right after an ID3v2 tag (within
/// [`MAX_GAP`] bytes of padding or junk), or after leading zero bytes, or at 0.
pub fn first_frame(bytes: &[u8]) -> Option<usize> {
    match id3v2_len(bytes) {
        Some(tag_len) => {
            let end = bytes.len().min(tag_len.saturating_add(MAX_GAP));
            (tag_len..end).find(|&at| bytes[at] == 0xff && frames_start_at(bytes, at))
        }
        None => {
            let zeros = bytes.iter().take(MAX_GAP).take_while(|&&b| b == 0).count();
            frames_start_at(bytes, zeros).then_some(zeros)
        }
    }
}

/// Bytes searched for the first frame after an ID3 tag, or skipped as leading zeros.
pub const MAX_GAP: usize = 64 * 1024;

/// A frame of a stream: where it starts and its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    pub offset: usize,
    pub header: FrameHeader,
}

/// Every audio frame of an MP3 file in order, from [`first_frame`] on. Damaged stretches are
/// skipped by searching for the next run of consistent frames; trailing tags (ID3v1, APE) and
/// a cut-off last frame are left out. Empty when the bytes are not MP3.
pub fn frames(bytes: &[u8]) -> Vec<Frame> {
    let mut out = Vec::new();
    let Some(mut position) = first_frame(bytes) else { return out };
    let stream = FrameHeader::parse(&bytes[position..]).expect("first_frame found a header");
    while position < bytes.len() {
        match FrameHeader::parse(&bytes[position..]).filter(|h| h.same_stream(&stream)) {
            Some(header) if position + header.frame_len <= bytes.len() => {
                out.push(Frame { offset: position, header });
                position += header.frame_len;
            }
            Some(_) => break, // the last frame is cut off
            None => {
                let resync = (position + 1..bytes.len()).find(|&at| {
                    bytes[at] == 0xff
                        && frames_start_at(bytes, at)
                        && FrameHeader::parse(&bytes[at..]).is_some_and(|h| h.same_stream(&stream))
                });
                match resync {
                    Some(at) => position = at,
                    None => break,
                }
            }
        }
    }
    out
}
