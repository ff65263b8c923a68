//! A knowledge source's spec (what to ingest) and its progress.

use crate::RecordError;
use lore_domain::Timestamp;
use lore_domain::audio::AudioFormat;
use lore_domain::document::DocumentKind;
use lore_domain::source::{CrawlDepth, Progress, RefreshInterval, SourceSpec, SourceType, StoredAudio, StoredFile};
use serde::{Deserialize, Serialize};

/// The spec of a source of any type; which fields are set depends on the source's type, stored
/// next to it (the spec does not repeat it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceSpecRecord {
    /// `text`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// `url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crawl_depth: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages_crawled: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_refreshed_at: Option<i64>,
    /// `url`: hours between scheduled refreshes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_interval_hours: Option<u32>,
    /// `file` and `podcast`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_url: Option<String>,
    /// The file's size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_size: Option<u64>,
    /// `file`: the document kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// `podcast`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio_format: Option<String>,
}

impl SourceSpecRecord {
    pub fn of(spec: &SourceSpec) -> Self {
        match spec {
            SourceSpec::Text { content } => Self { content: Some(content.clone()), ..Self::default() },
            SourceSpec::Url { url, crawl_depth, pages_crawled, last_refreshed_at, refresh_interval } => Self {
                url: Some(url.clone()),
                crawl_depth: Some(crawl_depth.get()),
                pages_crawled: Some(*pages_crawled),
                last_refreshed_at: last_refreshed_at.map(Timestamp::millis),
                refresh_interval_hours: refresh_interval.map(RefreshInterval::hours),
                ..Self::default()
            },
            SourceSpec::File(f) => Self {
                file_name: Some(f.file_name.clone()),
                mime_type: Some(f.mime_type.clone()),
                kind: Some(f.kind.as_str().to_owned()),
                blob_key: Some(f.blob_key.clone()),
                file_url: Some(f.file_url.clone()),
                file_size: Some(f.size_bytes),
                ..Self::default()
            },
            SourceSpec::Podcast(a) => Self {
                file_name: Some(a.file_name.clone()),
                mime_type: Some(a.mime_type.clone()),
                audio_format: Some(a.format.as_str().to_owned()),
                blob_key: Some(a.blob_key.clone()),
                file_url: Some(a.file_url.clone()),
                file_size: Some(a.size_bytes),
                ..Self::default()
            },
        }
    }

    /// The spec of a source of type `source_type`. Missing text reads as empty and a missing
    /// depth as 1, as the backends always did; an unknown audio format is an error (no reader
    /// could open the file).
    pub fn into_spec(self, source_type: SourceType) -> Result<SourceSpec, RecordError> {
        let text = |v: Option<String>| v.unwrap_or_default();
        Ok(match source_type {
            SourceType::Text => SourceSpec::Text { content: text(self.content) },
            SourceType::Url => SourceSpec::Url {
                url: text(self.url),
                crawl_depth: CrawlDepth::from_stored(self.crawl_depth.unwrap_or(1).clamp(1, 5)),
                pages_crawled: self.pages_crawled.unwrap_or(0),
                last_refreshed_at: self.last_refreshed_at.map(Timestamp::from_millis),
                refresh_interval: self.refresh_interval_hours.and_then(RefreshInterval::from_stored),
            },
            SourceType::File => SourceSpec::File(StoredFile {
                kind: DocumentKind::from_stored(self.kind.as_deref().unwrap_or_default()),
                file_name: text(self.file_name),
                mime_type: text(self.mime_type),
                blob_key: text(self.blob_key),
                file_url: text(self.file_url),
                size_bytes: self.file_size.unwrap_or(0),
            }),
            SourceType::Podcast => SourceSpec::Podcast(StoredAudio {
                format: self
                    .audio_format
                    .as_deref()
                    .and_then(AudioFormat::parse)
                    .ok_or_else(|| RecordError::of("audio format"))?,
                file_name: text(self.file_name),
                mime_type: text(self.mime_type),
                blob_key: text(self.blob_key),
                file_url: text(self.file_url),
                size_bytes: self.file_size.unwrap_or(0),
            }),
        })
    }
}

/// How far a processing run got.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgressRecord {
    pub stage: String,
    pub done: u64,
    pub total: u64,
}

impl ProgressRecord {
    pub fn of(p: &Progress) -> Self {
        Self { stage: p.stage.clone(), done: p.done, total: p.total }
    }

    pub fn into_progress(self) -> Progress {
        Progress::new(&self.stage, self.done, self.total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{from_json, to_json};

    fn round_trip(spec: SourceSpec, t: SourceType) {
        let back: SourceSpecRecord = from_json(&to_json(&SourceSpecRecord::of(&spec)), "spec").unwrap();
        assert_eq!(back.into_spec(t).unwrap(), spec);
    }

    #[test]
    fn every_spec_reads_back_as_written() {
        round_trip(SourceSpec::Text { content: "Refunds take 5 days.".into() }, SourceType::Text);
        round_trip(
            SourceSpec::Url {
                url: "https://example.com/".into(),
                crawl_depth: CrawlDepth::from_stored(3),
                pages_crawled: 12,
                last_refreshed_at: Some(Timestamp::from_millis(1_700_000_000_000)),
                refresh_interval: RefreshInterval::from_stored(24),
            },
            SourceType::Url,
        );
        round_trip(
            SourceSpec::Podcast(StoredAudio {
                file_name: "ep1.mp3".into(),
                mime_type: "audio/mpeg".into(),
                format: AudioFormat::parse("mp3").unwrap(),
                blob_key: "ws/upl/ep1.mp3".into(),
                file_url: "http://x/files/ws/upl/ep1.mp3".into(),
                size_bytes: 42,
            }),
            SourceType::Podcast,
        );
    }

    #[test]
    fn an_explicit_null_reads_as_unset() {
        // What the embedded backend wrote for a URL never refreshed.
        let old = r#"{"url":"https://e.com","crawlDepth":2,"pagesCrawled":0,"lastRefreshedAt":null}"#;
        let spec = from_json::<SourceSpecRecord>(old, "spec").unwrap().into_spec(SourceType::Url).unwrap();
        assert!(matches!(spec, SourceSpec::Url { last_refreshed_at: None, .. }));
    }

    #[test]
    fn a_podcast_without_a_known_format_is_malformed() {
        let err = SourceSpecRecord::default().into_spec(SourceType::Podcast).unwrap_err();
        assert_eq!(err.to_string(), "malformed stored audio format");
    }
}
