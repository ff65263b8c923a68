//! Fixtures and validity checks of audio pieces, shared by the tests.

#![allow(dead_code)]

use lore_domain::audio::AudioFormat;
use lore_extract::audio::ogg::{self, Page};
use lore_extract::audio::{mpeg, wav};

pub fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/../../tests/fixtures/audio/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The sample data of a WAV file, after checking that its header is consistent with its length.
pub fn wav_samples(bytes: &[u8]) -> Vec<u8> {
    let layout = wav::WavLayout::parse(bytes).expect("a WAV file");
    let riff = u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
    assert_eq!(riff, bytes.len() - 8, "RIFF size");
    let declared = u32::from_le_bytes(bytes[layout.data.start - 4..layout.data.start].try_into().unwrap()) as usize;
    assert_eq!(declared, layout.data.len(), "data size");
    assert_eq!(layout.data.end + (declared & 1), bytes.len(), "nothing after the data");
    assert_eq!(declared % usize::from(layout.block_align), 0, "whole sample frames");
    bytes[layout.data.clone()].to_vec()
}

/// The frames of an MP3 piece, after checking that it is nothing but whole frames.
pub fn mp3_frames(bytes: &[u8]) -> Vec<&[u8]> {
    assert_ne!(&bytes[..3], b"ID3", "no ID3 tag in a piece");
    let frames = mpeg::frames(bytes);
    assert_eq!(frames.first().map(|f| f.offset), Some(0), "a frame starts the piece");
    let mut end = 0;
    for frame in &frames {
        assert_eq!(frame.offset, end, "frames follow one another");
        end += frame.header.frame_len;
    }
    assert_eq!(end, bytes.len(), "the last frame ends the piece");
    frames.iter().map(|f| &bytes[f.offset..f.offset + f.header.frame_len]).collect()
}

/// The pages of an Ogg piece, after checking that every page parses (checksums included), the
/// sequence numbers count from 0, and only the first page begins and only the last ends the stream.
pub fn ogg_pages(bytes: &[u8]) -> Vec<Page> {
    let pages = ogg::pages(bytes);
    assert_eq!(pages.last().map(Page::end), Some(bytes.len()), "every page parses");
    for (i, page) in pages.iter().enumerate() {
        assert_eq!(page.sequence as usize, i, "sequence number");
        assert_eq!(page.serial, pages[0].serial, "one stream");
        assert_eq!(page.header_type & ogg::BEGIN_OF_STREAM != 0, i == 0, "BOS on page {i}");
        assert_eq!(page.header_type & ogg::END_OF_STREAM != 0, i == pages.len() - 1, "EOS on page {i}");
    }
    pages
}

/// Checks that a piece is valid audio of `format` on its own.
pub fn assert_valid_piece(bytes: &[u8], format: AudioFormat) {
    assert_eq!(lore_extract::audio::sniff_audio(bytes), Some(format), "a piece is recognised as {format}");
    match format {
        AudioFormat::Wav => drop(wav_samples(bytes)),
        AudioFormat::Mp3 => drop(mp3_frames(bytes)),
        AudioFormat::Ogg => drop(ogg_pages(bytes)),
        AudioFormat::M4a => {}
    }
}

/// A minimal Ogg muxer: `packets` in one stream, pages of at most `max_body` (≥ 255) bytes of
/// body, a packet that does not fit continuing on the next page. The first `headers` packets each
/// end their page, as codecs require.
pub fn ogg_stream(packets: &[Vec<u8>], headers: usize, max_body: usize, serial: u32) -> Vec<u8> {
    struct Muxer {
        out: Vec<u8>,
        serial: u32,
        sequence: u32,
        lacing: Vec<u8>,
        body: Vec<u8>,
        /// The page being filled starts inside a packet.
        continued: bool,
        /// Packets completed so far (the granule position of a page ending on a packet end).
        completed: i64,
    }
    impl Muxer {
        fn flush(&mut self) {
            if self.lacing.is_empty() {
                return;
            }
            let ends_a_packet = self.lacing.last().is_some_and(|&l| l < 255);
            let granule = if ends_a_packet { self.completed } else { -1 };
            let mut page = b"OggS\0".to_vec();
            page.push(0);
            page.extend_from_slice(&granule.to_le_bytes());
            page.extend_from_slice(&self.serial.to_le_bytes());
            page.extend_from_slice(&[0; 8]); // sequence number and CRC: written by rewrite_page
            page.push(self.lacing.len() as u8);
            page.append(&mut self.lacing);
            page.append(&mut self.body);
            let mut header_type = if self.continued { ogg::CONTINUED } else { 0 };
            if self.sequence == 0 {
                header_type |= ogg::BEGIN_OF_STREAM;
            }
            ogg::rewrite_page(&mut page, self.sequence, header_type);
            self.out.extend_from_slice(&page);
            self.sequence += 1;
        }
    }
    let mut m =
        Muxer { out: vec![], serial, sequence: 0, lacing: vec![], body: vec![], continued: false, completed: 0 };
    for (index, packet) in packets.iter().enumerate() {
        // Lacing: 255 per full segment, then the remainder (0 when a multiple of 255).
        let mut segments = vec![255; packet.len() / 255];
        segments.push(packet.len() % 255);
        let mut at = 0;
        for (k, &segment) in segments.iter().enumerate() {
            if m.lacing.len() == 255 || m.body.len() + segment > max_body {
                m.flush();
                m.continued = k > 0;
            }
            m.lacing.push(segment as u8);
            m.body.extend_from_slice(&packet[at..at + segment]);
            at += segment;
        }
        m.completed += 1;
        if index < headers || index + 1 == packets.len() {
            m.flush();
            m.continued = false;
        }
    }
    let last = ogg::pages(&m.out).pop().expect("pages");
    let header_type = last.header_type | ogg::END_OF_STREAM;
    ogg::rewrite_page(&mut m.out[last.offset..], last.sequence, header_type);
    m.out
}

/// The packets of a single-stream Ogg file, reassembled from its pages.
pub fn ogg_packets(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut packets = Vec::new();
    let mut current = Vec::new();
    for page in ogg::pages(bytes) {
        let mut at = page.offset + page.header_len;
        for &l in &page.lacing {
            current.extend_from_slice(&bytes[at..at + usize::from(l)]);
            at += usize::from(l);
            if l < 255 {
                packets.push(std::mem::take(&mut current));
            }
        }
    }
    packets
}

/// An Opus identification header (mono, 48 kHz) and a comment header with `comment_len` bytes of
/// vendor string.
pub fn opus_headers(comment_len: usize) -> Vec<Vec<u8>> {
    let mut head = b"OpusHead\x01\x01".to_vec();
    head.extend_from_slice(&312u16.to_le_bytes());
    head.extend_from_slice(&48_000u32.to_le_bytes());
    head.extend_from_slice(&[0, 0, 0]);
    let mut tags = b"OpusTags".to_vec();
    tags.extend_from_slice(&(comment_len as u32).to_le_bytes());
    tags.extend(std::iter::repeat_n(b'v', comment_len));
    tags.extend_from_slice(&0u32.to_le_bytes());
    vec![head, tags]
}
