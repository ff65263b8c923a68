//! Audio formats a podcast source may be (docs/api.md §9: MP3, WAV, M4A, OGG), decided by content
//! rather than by name.

use serde::Serialize;

/// Largest audio upload (docs/api.md §10).
pub const MAX_AUDIO_UPLOAD_BYTES: u64 = 500 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AudioFormat {
    /// MPEG-1/2/2.5 Layer III, with or without an ID3v2 tag.
    Mp3,
    /// RIFF/WAVE.
    Wav,
    /// ISO base media (MP4) audio, usually AAC.
    M4a,
    /// Ogg: Vorbis, Opus, FLAC or Speex.
    Ogg,
}

impl AudioFormat {
    pub const ALL: [AudioFormat; 4] = [AudioFormat::Mp3, AudioFormat::Wav, AudioFormat::M4a, AudioFormat::Ogg];

    pub fn mime_type(self) -> &'static str {
        match self {
            AudioFormat::Mp3 => "audio/mpeg",
            AudioFormat::Wav => "audio/wav",
            AudioFormat::M4a => "audio/mp4",
            AudioFormat::Ogg => "audio/ogg",
        }
    }

    /// The file extension transcription services recognise the format by (without the dot).
    pub fn extension(self) -> &'static str {
        match self {
            AudioFormat::Mp3 => "mp3",
            AudioFormat::Wav => "wav",
            AudioFormat::M4a => "m4a",
            AudioFormat::Ogg => "ogg",
        }
    }

    /// The stored name of the format (records of every backend use it).
    pub fn as_str(self) -> &'static str {
        self.extension()
    }

    /// Reads a stored name back.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.as_str() == s)
    }
}

impl std::fmt::Display for AudioFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            AudioFormat::Mp3 => "MP3",
            AudioFormat::Wav => "WAV",
            AudioFormat::M4a => "M4A",
            AudioFormat::Ogg => "OGG",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_names_round_trip() {
        for format in AudioFormat::ALL {
            assert_eq!(AudioFormat::parse(format.as_str()), Some(format));
        }
        assert_eq!(AudioFormat::parse("flac"), None);
        assert_eq!(AudioFormat::M4a.to_string(), "M4A");
        assert_eq!(serde_json::to_string(&AudioFormat::Ogg).unwrap(), "\"ogg\"");
    }
}
