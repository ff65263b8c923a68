//! A Mind's settings: everything about a Mind that no database looks at.

use crate::RecordError;
use lore_domain::Timestamp;
use lore_domain::id::{MindId, WorkspaceId};
use lore_domain::mind::{
    Bio, ExpertiseAreas, Headline, Mind, MindName, MindSourceCounts, SocialLinks, SystemPrompt, Temperature, VoiceId,
    VoiceSpeed, WebUrl,
};
use lore_domain::slug::Slug;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The settings of a Mind. An unset optional setting is `null` (the DynamoDB writer turns that
/// into an absent attribute, so an update removes it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MindSettingsRecord {
    pub name: String,
    #[serde(default)]
    pub headline: Option<String>,
    #[serde(default)]
    pub bio: Option<String>,
    #[serde(default)]
    pub avatar_url: Option<String>,
    #[serde(default)]
    pub system_prompt: Option<String>,
    #[serde(default)]
    pub expertise_areas: Vec<String>,
    pub temperature: f64,
    #[serde(default)]
    pub social_links: BTreeMap<String, String>,
    pub voice_enabled: bool,
    pub voice_id: String,
    pub voice_speed: f64,
    #[serde(flatten)]
    pub settings: crate::AssistantRecord,
}

/// What the backends keep by hand next to the settings: keys, the values their indexes and
/// conditions use, and the counters.
#[derive(Debug, Clone)]
pub struct MindKeys {
    pub id: MindId,
    pub workspace_id: WorkspaceId,
    pub slug: Slug,
    pub is_published: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub revision: u64,
    pub sources: MindSourceCounts,
    pub conversation_count: u64,
}

impl MindSettingsRecord {
    pub fn of(m: &Mind) -> Self {
        Self {
            name: m.name.as_str().to_owned(),
            headline: m.headline.as_ref().map(|v| v.as_str().to_owned()),
            bio: m.bio.as_ref().map(|v| v.as_str().to_owned()),
            avatar_url: m.avatar_url.as_ref().map(|v| v.as_str().to_owned()),
            system_prompt: m.system_prompt.as_ref().map(|v| v.as_str().to_owned()),
            expertise_areas: m.expertise_areas.as_slice().to_vec(),
            temperature: m.temperature.value(),
            social_links: m
                .social_links
                .entries()
                .into_iter()
                .map(|(k, u)| (k.to_owned(), u.as_str().to_owned()))
                .collect(),
            voice_enabled: m.voice_enabled,
            voice_id: m.voice_id.as_str().to_owned(),
            voice_speed: m.voice_speed.value(),
            settings: crate::AssistantRecord::of(&m.settings),
        }
    }

    pub fn into_mind(self, keys: MindKeys) -> Result<Mind, RecordError> {
        Ok(Mind {
            id: keys.id,
            workspace_id: keys.workspace_id,
            name: MindName::from_stored(self.name),
            slug: keys.slug,
            headline: self.headline.map(Headline::from_stored),
            bio: self.bio.map(Bio::from_stored),
            avatar_url: self.avatar_url.map(WebUrl::from_stored),
            system_prompt: self.system_prompt.map(SystemPrompt::from_stored),
            expertise_areas: ExpertiseAreas::from_stored(self.expertise_areas),
            is_published: keys.is_published,
            temperature: Temperature::from_stored(self.temperature),
            social_links: SocialLinks::from_entries(self.social_links.iter().map(|(k, v)| (k.as_str(), v.as_str()))),
            voice_enabled: self.voice_enabled,
            voice_id: VoiceId::parse(&self.voice_id).map_err(|_| RecordError::of("voice id"))?,
            voice_speed: VoiceSpeed::from_stored(self.voice_speed),
            settings: self.settings.into_settings(),
            created_at: keys.created_at,
            updated_at: keys.updated_at,
            revision: keys.revision,
            sources: keys.sources,
            conversation_count: keys.conversation_count,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{from_json, to_json};

    fn keys() -> MindKeys {
        MindKeys {
            id: MindId::generate(),
            workspace_id: WorkspaceId::generate(),
            slug: Slug::from_stored("ada".into()),
            is_published: true,
            created_at: Timestamp::from_millis(1),
            updated_at: Timestamp::from_millis(2),
            revision: 3,
            sources: MindSourceCounts::default(),
            conversation_count: 0,
        }
    }

    #[test]
    fn settings_read_back_as_written() {
        let raw = r##"{"name":"Ada","headline":"Engineer","bio":null,"avatarUrl":null,"systemPrompt":"Be brief.",
            "welcomeMessage":null,"suggestedQuestions":["Who are you?"],"expertiseAreas":[],"showSources":true,
            "collectEmail":false,"temperature":0.7,"theme":{"mode":"dark","primaryColor":"#112233"},
            "socialLinks":{"website":"https://ada.dev"},"voiceEnabled":true,"voiceId":"nova","voiceSpeed":1.25}"##;
        let mind = from_json::<MindSettingsRecord>(raw, "mind settings").unwrap().into_mind(keys()).unwrap();
        assert_eq!(mind.name.as_str(), "Ada");
        assert_eq!(mind.system_prompt.as_ref().map(|p| p.as_str()), Some("Be brief."));
        assert_eq!(mind.voice_id.as_str(), "nova");
        assert_eq!(mind.settings.theme.entries().len(), 2);
        assert!(mind.is_published);
        let record = MindSettingsRecord::of(&mind);
        let again = from_json::<MindSettingsRecord>(&to_json(&record), "mind settings").unwrap();
        assert_eq!(again, record);
    }

    #[test]
    fn an_unknown_voice_is_malformed() {
        let raw = r#"{"name":"Ada","showSources":true,"collectEmail":false,"temperature":0.7,"voiceEnabled":false,
            "voiceId":"robot","voiceSpeed":1.0}"#;
        let err = from_json::<MindSettingsRecord>(raw, "mind settings").unwrap().into_mind(keys()).unwrap_err();
        assert_eq!(err.to_string(), "malformed stored voice id");
    }
}
