//! Cutting real audio files (tests/fixtures/audio) under a small per-request limit: every piece
//! within the limit, valid on its own, and the pieces together hold all of the audio in order.

mod support;

use bytes::Bytes;
use lore_app::ports::TranscribeError;
use lore_domain::audio::AudioFormat;
use lore_extract::audio::{mpeg, ogg};
use lore_transcribe::split::{Piece, plan};
use support::*;

/// The pieces' bytes, after checking each is within `limit` and its planned length.
fn cut(file: &[u8], format: AudioFormat, limit: usize) -> Vec<Bytes> {
    let file = Bytes::copy_from_slice(file);
    let pieces = plan(&file, format, limit).unwrap();
    pieces
        .iter()
        .map(|piece| {
            let bytes = piece.build(&file);
            assert_eq!(bytes.len(), piece.len());
            assert!(bytes.len() <= limit, "a piece of {} bytes over the limit {limit}", bytes.len());
            assert_valid_piece(&bytes, format);
            bytes
        })
        .collect()
}

#[test]
fn a_file_within_the_limit_is_one_untouched_piece() {
    for (name, format) in [
        ("tone.mp3", AudioFormat::Mp3),
        ("tone-id3.mp3", AudioFormat::Mp3),
        ("tone.wav", AudioFormat::Wav),
        ("tone.ogg", AudioFormat::Ogg),
        ("tone.m4a", AudioFormat::M4a),
    ] {
        let bytes = fixture(name);
        let pieces = plan(&bytes, format, bytes.len()).unwrap();
        assert_eq!(pieces, vec![Piece::Range(0..bytes.len())], "{name}");
    }
}

#[test]
fn mp3_is_cut_at_frame_boundaries() {
    let bytes = fixture("tone.mp3"); // 12,225 bytes, frames of 104-105 bytes
    let pieces = cut(&bytes, AudioFormat::Mp3, 4000);
    assert_eq!(pieces.len(), 4);
    // Even pieces: none shorter than 3/4 of the largest.
    let largest = pieces.iter().map(Bytes::len).max().unwrap();
    assert!(
        pieces.iter().all(|p| p.len() * 4 >= largest * 3),
        "{:?}",
        pieces.iter().map(Bytes::len).collect::<Vec<_>>()
    );
    // Together, exactly the file's frames in order.
    assert_eq!(pieces.concat(), bytes);
}

#[test]
fn mp3_pieces_leave_out_the_id3_tag_and_the_xing_frame() {
    let bytes = fixture("tone-id3.mp3");
    let frames = mpeg::frames(&bytes);
    assert!(frames[0].header.is_vbr_info_frame(&bytes[frames[0].offset..]));
    let pieces = cut(&bytes, AudioFormat::Mp3, 3000);
    assert_eq!(pieces.len(), 3);
    assert_eq!(pieces.concat(), &bytes[frames[1].offset..]);
    for piece in &pieces {
        let first = mpeg::frames(piece)[0];
        assert!(!first.header.is_vbr_info_frame(piece), "no piece starts with the Xing frame");
    }
}

#[test]
fn wav_is_cut_at_sample_frames_behind_fresh_headers() {
    let bytes = fixture("tone.wav"); // 8 kHz mono 16-bit: 16,000 bytes of samples behind a LIST chunk
    let samples = wav_samples(&bytes);
    let pieces = cut(&bytes, AudioFormat::Wav, 5000);
    assert_eq!(pieces.len(), 4);
    assert!(pieces.iter().all(|p| p.len() == 44 + 4000), "even pieces of 2,000 samples");
    let joined: Vec<u8> = pieces.iter().flat_map(|p| wav_samples(p)).collect();
    assert_eq!(joined, samples);
}

#[test]
fn wav_with_an_odd_frame_size_gets_pad_bytes() {
    // 24-bit mono: 3-byte sample frames, so a piece's data can have an odd length.
    let mut fmt = b"fmt \x10\0\0\0\x01\0\x01\0".to_vec();
    fmt.extend_from_slice(&8000u32.to_le_bytes());
    fmt.extend_from_slice(&24_000u32.to_le_bytes());
    fmt.extend_from_slice(&3u16.to_le_bytes());
    fmt.extend_from_slice(&24u16.to_le_bytes());
    let data: Vec<u8> = (0..3 * 1001).map(|i| (i % 251) as u8).collect();
    let mut bytes = lore_extract::audio::wav::header(&fmt, data.len());
    bytes.extend_from_slice(&data);
    bytes.push(0);
    let pieces = cut(&bytes, AudioFormat::Wav, 1000);
    let joined: Vec<u8> = pieces.iter().flat_map(|p| wav_samples(p)).collect();
    assert_eq!(joined, data);
    assert!(pieces.iter().any(|p| p.len() % 2 == 0 && wav_samples(p).len() % 2 == 1), "a padded piece");
}

#[test]
fn wav_in_a_compressed_codec_is_refused_not_cut() {
    // WAVE_FORMAT_MPEGLAYER3 (0x55): its data is MP3 frames, not sample frames.
    let mut fmt = b"fmt \x10\0\0\0\x55\0\x01\0".to_vec();
    fmt.extend_from_slice(&8000u32.to_le_bytes());
    fmt.extend_from_slice(&4000u32.to_le_bytes());
    fmt.extend_from_slice(&1u16.to_le_bytes());
    fmt.extend_from_slice(&0u16.to_le_bytes());
    let mut bytes = lore_extract::audio::wav::header(&fmt, 5000);
    bytes.extend(std::iter::repeat_n(0x11, 5000));
    let err = plan(&bytes, AudioFormat::Wav, 1000).unwrap_err();
    assert!(matches!(&err, TranscribeError::TooLarge(m) if m.contains("0x0055") && m.contains("convert")), "{err}");
}

#[test]
fn ogg_vorbis_and_opus_pieces_repeat_the_headers_and_hold_every_audio_page() {
    for (name, limit, expected) in [("tone.ogg", 4600, 3), ("tone.opus.ogg", 2000, 4)] {
        let bytes = fixture(name);
        let original = ogg::pages(&bytes);
        // Vorbis: identification, then comment + setup on one page; Opus: OpusHead, OpusTags.
        let header_pages = 2;
        let headers: Vec<&[u8]> = original[..header_pages].iter().map(|p| p.body(&bytes)).collect();
        let audio: Vec<u8> = original[header_pages..].iter().flat_map(|p| p.body(&bytes).to_vec()).collect();

        let pieces = cut(&bytes, AudioFormat::Ogg, limit);
        assert_eq!(pieces.len(), expected, "{name}");
        let mut joined = Vec::new();
        for piece in &pieces {
            let pages = ogg_pages(piece);
            let piece_headers: Vec<&[u8]> = pages[..header_pages].iter().map(|p| p.body(piece)).collect();
            assert_eq!(piece_headers, headers, "{name}: the header pages open every piece");
            assert!(pages.len() > header_pages, "{name}: audio in every piece");
            joined.extend(pages[header_pages..].iter().flat_map(|p| p.body(piece).to_vec()));
        }
        assert_eq!(joined, audio, "{name}: every audio page once, in order");
    }
}

#[test]
fn ogg_pieces_start_only_where_a_packet_starts() {
    // Packets of 700 bytes on pages of at most 510 bytes of body: most pages continue a packet.
    let mut packets = opus_headers(20);
    packets.extend((0..40).map(|i| vec![i as u8; 700]));
    let bytes = ogg_stream(&packets, 2, 510, 7);
    assert_eq!(ogg_packets(&bytes), packets, "the test muxer is sound");
    let continued = ogg::pages(&bytes).iter().filter(|p| p.header_type & ogg::CONTINUED != 0).count();
    assert!(continued >= 30, "{continued} continued pages");

    let pieces = cut(&bytes, AudioFormat::Ogg, 6000);
    assert!(pieces.len() >= 5, "{}", pieces.len());
    let mut audio = Vec::new();
    for piece in &pieces {
        let pages = ogg_pages(piece);
        // Page 0 and 1 are the headers; the first audio page must not continue a packet.
        assert_eq!(pages[2].header_type & ogg::CONTINUED, 0);
        let piece_packets = ogg_packets(piece);
        assert_eq!(piece_packets[..2], packets[..2]);
        audio.extend_from_slice(&piece_packets[2..]);
    }
    assert_eq!(audio, packets[2..], "whole packets, each once, in order");
}

#[test]
fn ogg_that_cannot_be_cut_is_refused_with_the_reason() {
    let audio: Vec<Vec<u8>> = (0..20).map(|i| vec![i as u8; 400]).collect();
    // Cover art in the comment header: repeated in every piece, it would leave no room.
    let mut big_headers = opus_headers(3000);
    big_headers.extend(audio.clone());
    let bytes = ogg_stream(&big_headers, 2, 4000, 1);
    let err = plan(&bytes, AudioFormat::Ogg, 3500).unwrap_err();
    assert!(matches!(&err, TranscribeError::TooLarge(m) if m.contains("header pages")), "{err}");

    // Two interleaved streams (a chained or multiplexed file).
    let mut packets = opus_headers(10);
    packets.extend(audio.clone());
    let mut bytes = ogg_stream(&packets, 2, 1000, 1);
    let last = ogg::pages(&bytes).pop().unwrap();
    bytes[last.offset + 14..last.offset + 18].copy_from_slice(&2u32.to_le_bytes());
    let (sequence, header_type) = (last.sequence, last.header_type);
    ogg::rewrite_page(&mut bytes[last.offset..], sequence, header_type);
    let err = plan(&bytes, AudioFormat::Ogg, 2000).unwrap_err();
    assert!(matches!(&err, TranscribeError::TooLarge(m) if m.contains("several streams")), "{err}");

    // Theora video is not audio at all.
    let mut theora = vec![b"\x80theora".to_vec()];
    theora.extend(audio);
    let bytes = ogg_stream(&theora, 3, 1000, 1);
    assert!(matches!(plan(&bytes, AudioFormat::Ogg, 2000), Err(TranscribeError::Unsupported(_))));
}

#[test]
fn m4a_over_the_limit_is_refused_with_advice() {
    let bytes = fixture("tone.m4a");
    let err = plan(&bytes, AudioFormat::M4a, 24_000_000.min(bytes.len() - 1)).unwrap_err();
    assert!(
        matches!(&err, TranscribeError::TooLarge(m) if m.contains("M4A") && m.contains("convert it to MP3")),
        "{err}"
    );
    assert!(err.to_string().starts_with("the audio is too large to transcribe: "), "{err}");
}

#[test]
fn bytes_that_are_not_the_format_are_unsupported() {
    let garbage = vec![0x42u8; 10_000];
    for format in [AudioFormat::Mp3, AudioFormat::Wav, AudioFormat::Ogg] {
        let err = plan(&garbage, format, 1000).unwrap_err();
        assert!(matches!(err, TranscribeError::Unsupported(_)), "{format}: {err}");
    }
    assert!(matches!(plan(&[], AudioFormat::Mp3, 1000), Err(TranscribeError::Unsupported(_))));
}

#[test]
fn a_limit_below_one_unit_is_a_clear_error() {
    let bytes = fixture("tone.mp3");
    let err = plan(&bytes, AudioFormat::Mp3, 100).unwrap_err();
    assert!(matches!(&err, TranscribeError::TooLarge(m) if m.contains("limit of 100 bytes")), "{err}");
}
