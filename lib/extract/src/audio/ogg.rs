//! Ogg pages (RFC 3533) and the audio codecs carried in them.

/// The page continues a packet begun on the previous page.
pub const CONTINUED: u8 = 0x01;
/// First page of a logical stream.
pub const BEGIN_OF_STREAM: u8 = 0x02;
/// Last page of a logical stream.
pub const END_OF_STREAM: u8 = 0x04;

/// Offset of the CRC field in a page header.
pub const CRC_OFFSET: usize = 22;
/// Offset of the page sequence number.
pub const SEQUENCE_OFFSET: usize = 18;

/// One page, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub offset: usize,
    pub header_type: u8,
    pub granule_position: i64,
    pub serial: u32,
    pub sequence: u32,
    /// Segment lacing values.
    pub lacing: Vec<u8>,
    /// Header length (27 + segment count).
    pub header_len: usize,
    /// Body length (sum of the lacing values).
    pub body_len: usize,
}

impl Page {
    /// Parses the page at `offset`. `None` when there is no complete, well-formed page with a
    /// correct checksum there.
    pub fn parse(bytes: &[u8], offset: usize) -> Option<Self> {
        let head = bytes.get(offset..offset.checked_add(27)?)?;
        if &head[..4] != b"OggS" || head[4] != 0 {
            return None;
        }
        let segments = usize::from(head[26]);
        let lacing = bytes.get(offset + 27..offset + 27 + segments)?.to_vec();
        let header_len = 27 + segments;
        let body_len = lacing.iter().map(|&l| usize::from(l)).sum();
        let page = bytes.get(offset..offset + header_len + body_len)?;
        let stored = u32::from_le_bytes(page[CRC_OFFSET..CRC_OFFSET + 4].try_into().ok()?);
        if stored != page_crc(page) {
            return None;
        }
        Some(Self {
            offset,
            header_type: head[5],
            granule_position: i64::from_le_bytes(head[6..14].try_into().ok()?),
            serial: u32::from_le_bytes(head[14..18].try_into().ok()?),
            sequence: u32::from_le_bytes(head[SEQUENCE_OFFSET..SEQUENCE_OFFSET + 4].try_into().ok()?),
            lacing,
            header_len,
            body_len,
        })
    }

    pub fn len(&self) -> usize {
        self.header_len + self.body_len
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn end(&self) -> usize {
        self.offset + self.len()
    }

    /// How many packets end on this page (a lacing value below 255 ends a packet).
    pub fn packets_ended(&self) -> usize {
        self.lacing.iter().filter(|&&l| l < 255).count()
    }

    /// Whether the page's last packet continues on the next page.
    pub fn ends_inside_a_packet(&self) -> bool {
        self.lacing.last().is_none_or(|&l| l == 255)
    }

    /// The body of the page within `bytes`.
    pub fn body<'a>(&self, bytes: &'a [u8]) -> &'a [u8] {
        &bytes[self.offset + self.header_len..self.end()]
    }
}

/// Every page from the start of `bytes` while pages follow one another without a gap. Stops at
/// the first damaged or cut-off page.
pub fn pages(bytes: &[u8]) -> Vec<Page> {
    let mut out = Vec::new();
    let mut offset = 0;
    while let Some(page) = Page::parse(bytes, offset) {
        offset = page.end();
        out.push(page);
    }
    out
}

/// The audio codecs accepted in Ogg, by the first packet of the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OggCodec {
    Vorbis,
    Opus,
    Flac,
    Speex,
}

impl OggCodec {
    /// Recognises the identification packet. Video (Theora), Skeleton and unknown streams are `None`.
    pub fn identify(first_packet: &[u8]) -> Option<Self> {
        if first_packet.starts_with(b"\x01vorbis") {
            Some(Self::Vorbis)
        } else if first_packet.starts_with(b"OpusHead") {
            Some(Self::Opus)
        } else if first_packet.starts_with(b"\x7fFLAC") {
            Some(Self::Flac)
        } else if first_packet.starts_with(b"Speex   ") {
            Some(Self::Speex)
        } else {
            None
        }
    }

    /// How many header packets start the stream, given the identification packet; audio packets
    /// follow them. `None` when the count cannot be told.
    pub fn header_packets(self, first_packet: &[u8]) -> Option<usize> {
        match self {
            // Identification, comment, setup.
            Self::Vorbis => Some(3),
            // OpusHead, OpusTags.
            Self::Opus => Some(2),
            // The mapping header counts the metadata packets after it (0 = unknown).
            Self::Flac => {
                let count = u16::from_be_bytes(first_packet.get(7..9)?.try_into().ok()?);
                (count > 0).then_some(1 + usize::from(count))
            }
            // Header, comment, then `extra_headers` (offset 68).
            Self::Speex => {
                let extra = u32::from_le_bytes(first_packet.get(68..72)?.try_into().ok()?);
                usize::try_from(extra).ok()?.checked_add(2)
            }
        }
    }
}

/// The Ogg page checksum: CRC-32 with polynomial 0x04c11db7, not reflected, initial value and
/// final xor 0, computed with the CRC field taken as zero.
pub fn page_crc(page: &[u8]) -> u32 {
    let mut crc = 0u32;
    for (i, &byte) in page.iter().enumerate() {
        let byte = if (CRC_OFFSET..CRC_OFFSET + 4).contains(&i) { 0 } else { byte };
        crc = (crc << 8) ^ CRC_TABLE[usize::from((crc >> 24) as u8 ^ byte)];
    }
    crc
}

/// Rewrites a page's sequence number and header type and recomputes its checksum.
pub fn rewrite_page(page: &mut [u8], sequence: u32, header_type: u8) {
    page[5] = header_type;
    page[SEQUENCE_OFFSET..SEQUENCE_OFFSET + 4].copy_from_slice(&sequence.to_le_bytes());
    let crc = page_crc(page);
    page[CRC_OFFSET..CRC_OFFSET + 4].copy_from_slice(&crc.to_le_bytes());
}

const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut r = (i as u32) << 24;
        let mut bit = 0;
        while bit < 8 {
            r = if r & 0x8000_0000 != 0 { (r << 1) ^ 0x04c1_1db7 } else { r << 1 };
            bit += 1;
        }
        table[i] = r;
        i += 1;
    }
    table
};
