//! Recognising podcast audio (MP3, WAV, M4A, OGG) by content, and the container layouts the
//! transcriber needs to cut a long file at valid boundaries.
//!
//! The name of a file is never consulted: an executable named `.mp3` is not audio. Each format
//! needs more than its magic number: an MP3 needs a run of consistent Layer III frame headers
//! (after an ID3v2 tag, if any), a WAV a valid `fmt ` chunk before its `data`, an Ogg file a
//! first page with a correct checksum opening an audio stream (Vorbis, Opus, FLAC, Speex — not
//! Theora video), an M4A an `ftyp` with an audio-capable brand and, when its `moov` box is within
//! the bytes, a sound track.

pub mod mp4;
pub mod mpeg;
pub mod ogg;
pub mod wav;

use lore_domain::audio::AudioFormat;

/// The audio format of `bytes` (the whole file, or at least its head), or `None` when the bytes
/// are not audio of a supported format.
pub fn sniff_audio(bytes: &[u8]) -> Option<AudioFormat> {
    if bytes.starts_with(b"RIFF") {
        return wav::WavLayout::parse(bytes).map(|_| AudioFormat::Wav);
    }
    if bytes.starts_with(b"OggS") {
        return is_ogg_audio(bytes).then_some(AudioFormat::Ogg);
    }
    if bytes.get(4..8) == Some(b"ftyp") {
        return mp4::is_m4a(bytes).then_some(AudioFormat::M4a);
    }
    mpeg::first_frame(bytes).map(|_| AudioFormat::Mp3)
}

/// The first page is a valid beginning-of-stream page whose first packet identifies an audio codec.
fn is_ogg_audio(bytes: &[u8]) -> bool {
    let Some(page) = ogg::Page::parse(bytes, 0) else { return false };
    page.header_type & ogg::BEGIN_OF_STREAM != 0 && ogg::OggCodec::identify(page.body(bytes)).is_some()
}

#[cfg(test)]
mod tests {
    use super::mpeg::{FrameHeader, MpegVersion};
    use super::*;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/audio");

    fn fixture(name: &str) -> Vec<u8> {
        std::fs::read(format!("{FIXTURES}/{name}")).unwrap_or_else(|e| panic!("fixture {name}: {e}"))
    }

    /// A 16-bit PCM WAV of `samples` frames.
    fn wav(channels: u16, rate: u32, samples: usize) -> Vec<u8> {
        let block = channels * 2;
        let mut fmt = b"fmt \x10\0\0\0\x01\0".to_vec();
        fmt.extend_from_slice(&channels.to_le_bytes());
        fmt.extend_from_slice(&rate.to_le_bytes());
        fmt.extend_from_slice(&(rate * u32::from(block)).to_le_bytes());
        fmt.extend_from_slice(&block.to_le_bytes());
        fmt.extend_from_slice(&16u16.to_le_bytes());
        let data_len = samples * usize::from(block);
        let mut out = wav::header(&fmt, data_len);
        out.extend((0..data_len).map(|i| (i * 7) as u8));
        out
    }

    #[test]
    fn real_files_are_recognised() {
        assert_eq!(sniff_audio(&fixture("tone.mp3")), Some(AudioFormat::Mp3));
        assert_eq!(sniff_audio(&fixture("tone-id3.mp3")), Some(AudioFormat::Mp3));
        assert_eq!(sniff_audio(&fixture("tone.wav")), Some(AudioFormat::Wav));
        assert_eq!(sniff_audio(&fixture("tone.m4a")), Some(AudioFormat::M4a));
        assert_eq!(sniff_audio(&fixture("tone.ogg")), Some(AudioFormat::Ogg));
        assert_eq!(sniff_audio(&fixture("tone.opus.ogg")), Some(AudioFormat::Ogg));
        assert_eq!(sniff_audio(&wav(2, 8000, 100)), Some(AudioFormat::Wav));
    }

    #[test]
    fn a_head_of_the_file_is_enough() {
        for name in ["tone.mp3", "tone-id3.mp3", "tone.wav", "tone.ogg", "tone.m4a"] {
            let bytes = fixture(name);
            let head = &bytes[..bytes.len().min(4096)];
            assert!(sniff_audio(head).is_some(), "{name}");
        }
    }

    #[test]
    fn executables_and_other_files_are_not_audio() {
        let not_audio: &[(&str, &[u8])] = &[
            ("ELF", b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x02\0\x3e\0\x01\0\0\0"),
            ("PE", b"MZ\x90\0\x03\0\0\0\x04\0\0\0\xff\xff\0\0\xb8\0\0\0\0\0\0\0@\0"),
            ("Mach-O", b"\xcf\xfa\xed\xfe\x07\0\0\x01\x03\0\0\0\x02\0\0\0"),
            ("universal Mach-O", b"\xca\xfe\xba\xbe\0\0\0\x02\x01\0\0\x07"),
            ("shell script", b"#!/bin/sh\nrm -rf /tmp/x\n"),
            ("text", b"ID3 tags explained: a guide"),
            ("PDF", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"),
            ("empty", b""),
            ("sync word only", b"\xff\xfb"),
            ("one frame header without its frame", b"\xff\xfb\x90\x64"),
        ];
        for (what, bytes) in not_audio {
            assert_eq!(sniff_audio(bytes), None, "{what}");
        }
        // A real ELF binary of this machine, whatever it is named.
        let ls = std::fs::read("/bin/ls").unwrap();
        assert_eq!(sniff_audio(&ls), None);
    }

    #[test]
    fn magic_numbers_alone_are_not_enough() {
        // An ID3 tag followed by an executable.
        let mut id3_elf = fixture("tone-id3.mp3")[..10].to_vec();
        id3_elf[6..10].copy_from_slice(&[0, 0, 0, 0]);
        id3_elf.extend_from_slice(&std::fs::read("/bin/ls").unwrap()[..8192]);
        assert_eq!(sniff_audio(&id3_elf), None);
        // One valid frame header followed by garbage.
        let mut one_frame = fixture("tone.mp3")[..4].to_vec();
        one_frame.extend(std::iter::repeat_n(0x55, 2000));
        assert_eq!(sniff_audio(&one_frame), None);
        // RIFF of another kind, and WAVE without a format chunk before its data.
        assert_eq!(sniff_audio(b"RIFF\x24\0\0\0AVI LIST\x04\0\0\0hdrl"), None);
        assert_eq!(sniff_audio(b"RIFF\x0c\0\0\0WAVEdata\0\0\0\0"), None);
        // An Ogg page with a broken checksum, and an Ogg Theora (video) stream.
        let mut ogg = fixture("tone.ogg");
        ogg[ogg::CRC_OFFSET] ^= 0xff;
        assert_eq!(sniff_audio(&ogg), None);
        let mut theora = fixture("tone.ogg");
        let first = ogg::Page::parse(&theora, 0).unwrap();
        let body = first.offset + first.header_len;
        theora[body..body + 7].copy_from_slice(b"\x80theora");
        let header_type = first.header_type;
        ogg::rewrite_page(&mut theora[..first.end()], 0, header_type);
        assert!(ogg::Page::parse(&theora, 0).is_some(), "the rewritten page is valid");
        assert_eq!(sniff_audio(&theora), None);
        // An MP4 video (`isom`, a video track): its `moov` is in the bytes and names a `vide` track.
        assert_eq!(sniff_audio(&fixture("video.mp4")), None);
        // A QuickTime movie brand.
        assert_eq!(sniff_audio(b"\0\0\0\x14ftypqt  \0\0\x02\0qt  \0\0\0\x08free"), None);
    }

    #[test]
    fn mpeg_frame_headers() {
        // MPEG-1 Layer III, 128 kb/s, 44.1 kHz, no padding, joint stereo: 417 bytes.
        let h = FrameHeader::parse(&[0xff, 0xfb, 0x90, 0x64]).unwrap();
        assert_eq!(
            (h.version, h.bitrate_kbps, h.sample_rate, h.frame_len, h.samples),
            (MpegVersion::V1, 128, 44_100, 417, 1152)
        );
        assert!(!h.mono && !h.protected);
        // Padding adds a byte; MPEG-2 16 kHz 32 kb/s mono: 72 * 32000 / 16000 = 144.
        assert_eq!(FrameHeader::parse(&[0xff, 0xfb, 0x92, 0x64]).unwrap().frame_len, 418);
        let v2 = FrameHeader::parse(&[0xff, 0xf3, 0x48, 0xc4]).unwrap();
        assert_eq!(
            (v2.version, v2.sample_rate, v2.frame_len, v2.samples, v2.mono),
            (MpegVersion::V2, 16_000, 144, 576, true)
        );
        // Layer II, free format, bad bitrate, reserved sample rate and version are refused.
        for bad in [
            [0xff, 0xfd, 0x90, 0x64],
            [0xff, 0xfb, 0x00, 0x64],
            [0xff, 0xfb, 0xf0, 0x64],
            [0xff, 0xfb, 0x9c, 0x64],
            [0xff, 0xeb, 0x90, 0x64],
        ] {
            assert_eq!(FrameHeader::parse(&bad), None, "{bad:x?}");
        }
    }

    #[test]
    fn mp3_frames_are_walked_to_the_end() {
        let bytes = fixture("tone-id3.mp3");
        let tag = mpeg::id3v2_len(&bytes).unwrap();
        let frames = mpeg::frames(&bytes);
        assert_eq!(frames[0].offset, tag, "the first frame follows the ID3 tag");
        for pair in frames.windows(2) {
            assert_eq!(pair[0].offset + pair[0].header.frame_len, pair[1].offset);
        }
        let last = frames.last().unwrap();
        assert_eq!(last.offset + last.header.frame_len, bytes.len());
        // ffmpeg writes a Xing/Info frame first.
        assert!(frames[0].header.is_vbr_info_frame(&bytes[frames[0].offset..]));
        assert!(!frames[1].header.is_vbr_info_frame(&bytes[frames[1].offset..]));
    }

    #[test]
    fn mp3_damage_is_skipped_and_trailing_tags_left_out() {
        let clean = fixture("tone.mp3");
        let count = mpeg::frames(&clean).len();
        let mut damaged = clean.clone();
        let third = mpeg::frames(&clean)[3];
        damaged[third.offset..third.offset + 4].copy_from_slice(b"junk");
        damaged.extend_from_slice(b"TAG");
        damaged.extend(std::iter::repeat_n(b' ', 125));
        let frames = mpeg::frames(&damaged);
        assert_eq!(frames.len(), count - 1, "only the damaged frame is lost");
        assert_eq!(frames.last().unwrap().offset + frames.last().unwrap().header.frame_len, clean.len());
    }

    #[test]
    fn wav_layout_and_header() {
        let bytes = wav(2, 8000, 100);
        let layout = wav::WavLayout::parse(&bytes).unwrap();
        assert_eq!((layout.format, layout.channels, layout.sample_rate, layout.block_align), (1, 2, 8000, 4));
        assert_eq!(layout.fmt_chunk, 12..36);
        assert_eq!(layout.data, 44..444);
        assert!(layout.is_framed());
        // The RIFF size counts everything after its own field.
        assert_eq!(u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize, bytes.len() - 8);
        // A declared data size past the end (a streamed file) is cut to the end.
        let mut streamed = bytes.clone();
        streamed[40..44].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(wav::WavLayout::parse(&streamed).unwrap().data, 44..444);
        // The real fixture: ffmpeg puts a LIST chunk between `fmt ` and `data`.
        let real = fixture("tone.wav");
        let layout = wav::WavLayout::parse(&real).unwrap();
        assert_eq!((layout.format, layout.channels, layout.sample_rate, layout.block_align), (1, 1, 8000, 2));
        assert_eq!(layout.data.end, real.len());
    }

    #[test]
    fn ogg_pages_and_codecs() {
        for (name, codec, headers) in
            [("tone.ogg", ogg::OggCodec::Vorbis, 3), ("tone.opus.ogg", ogg::OggCodec::Opus, 2)]
        {
            let bytes = fixture(name);
            let pages = ogg::pages(&bytes);
            assert!(pages.len() >= 3, "{name}");
            assert_eq!(pages.last().unwrap().end(), bytes.len(), "{name}: every page parses");
            assert!(pages[0].header_type & ogg::BEGIN_OF_STREAM != 0);
            assert!(pages.last().unwrap().header_type & ogg::END_OF_STREAM != 0);
            let first = pages[0].body(&bytes);
            assert_eq!(ogg::OggCodec::identify(first), Some(codec));
            assert_eq!(codec.header_packets(first), Some(headers));
            for (i, page) in pages.iter().enumerate() {
                assert_eq!(page.sequence as usize, i);
            }
        }
    }

    #[test]
    fn m4a_tracks_decide() {
        let bytes = fixture("tone.m4a");
        assert!(mp4::is_m4a(&bytes));
        // The same file with its sound track's handler renamed: no sound track, not audio.
        let at = bytes.windows(4).position(|w| w == b"soun").unwrap();
        let mut silent = bytes.clone();
        silent[at..at + 4].copy_from_slice(b"text");
        assert!(!mp4::is_m4a(&silent));
    }
}
