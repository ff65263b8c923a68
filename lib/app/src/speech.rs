//! Spoken answers (docs/api.md §17, `voiceEnabled`): an assistant message of a Mind, spoken with
//! its `voiceId` at its `voiceSpeed`, generated once and kept in blob storage beside the Mind's
//! files, so that replaying it costs no second model call.

use crate::auth::Principal;
use crate::ports::SpeechError;
use crate::{App, AppError};
use lore_domain::conversation::{MarkerFilter, Role, VisitorToken};
use lore_domain::id::{ConversationId, MessageId, MindId};
use lore_domain::mind::Mind;
use lore_domain::source::SourceOwner;
use lore_domain::{DomainError, ErrorCode};

fn voice_disabled() -> AppError {
    AppError::Rejected(DomainError::new(ErrorCode::VoiceDisabled, "this Mind's voice is not enabled (voiceEnabled)"))
}

fn speech_unavailable(why: &str) -> AppError {
    AppError::Rejected(DomainError::new(ErrorCode::SpeechUnavailable, format!("speech is unavailable: {why}")))
}

impl App {
    /// The keyed route: MP3 bytes of an assistant message of the Mind's conversation.
    pub async fn message_speech(
        &self,
        p: &Principal,
        mind: &MindId,
        conversation: &ConversationId,
        message: &MessageId,
    ) -> Result<Vec<u8>, AppError> {
        let mind = self.find_mind(p, mind).await?;
        self.find_conversation(&mind.workspace_id, &SourceOwner::Mind(mind.id.clone()), conversation).await?;
        self.speech_of(&mind, conversation, message).await
    }

    /// The visitor's route: the same, for the conversation the token opens.
    pub async fn public_message_speech(
        &self,
        slug: &str,
        conversation: &ConversationId,
        token: Option<&VisitorToken>,
        message: &MessageId,
        client: Option<std::net::IpAddr>,
    ) -> Result<Vec<u8>, AppError> {
        let published =
            self.visitor_access(lore_domain::embed::PublicKind::Mind, slug, conversation, token, client).await?;
        let mind = published.mind().ok_or(AppError::NotFound("mind"))?;
        self.speech_of(mind, conversation, message).await
    }

    /// `conversation` has been found to be the Mind's by the caller.
    async fn speech_of(&self, mind: &Mind, conversation: &ConversationId, id: &MessageId) -> Result<Vec<u8>, AppError> {
        if !mind.voice_enabled {
            return Err(voice_disabled());
        }
        let messages = self.ports.storage.conversations.list_messages(&mind.workspace_id, conversation).await?;
        let message = messages
            .into_iter()
            .find(|m| &m.id == id && m.role == Role::Assistant)
            .ok_or(AppError::NotFound("message"))?;
        // Kept per voice and speed: changing either speaks the message anew.
        let key = format!(
            "{}/{}/speech/{}-{}-{}.mp3",
            mind.workspace_id,
            mind.id,
            message.id,
            mind.voice_id.as_str(),
            (mind.voice_speed.value() * 100.0).round() as u32
        );
        if let Some(bytes) = self.ports.storage.blobs.get(&key).await? {
            return Ok(bytes);
        }
        let mut unmark = MarkerFilter::new([]);
        let mut text = unmark.push(&message.content);
        text.push_str(&unmark.finish());
        let audio = match self.ports.shared.speech.speak(&text, mind.voice_id.as_str(), mind.voice_speed.value()).await
        {
            Ok(audio) => audio,
            Err(SpeechError::NotConfigured) => return Err(speech_unavailable("no speech model is configured")),
            Err(SpeechError::Failed(why)) => {
                tracing::warn!(mind = %mind.id, error = %why, "speech failed");
                return Err(speech_unavailable("the speech model did not answer; try again"));
            }
        };
        self.ports.storage.blobs.put(&key, audio.clone(), "audio/mpeg").await?;
        Ok(audio)
    }
}
