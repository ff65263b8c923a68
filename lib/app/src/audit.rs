//! The workspace's audit log (docs/api.md §22, "Audit log"; issue 60): who changed the
//! workspace's keys, chatbots, Minds, sources, identity secrets and webhooks, who erased a
//! person and who exported conversations — listed for `workspace:admin`, kept 365 days.
//!
//! The use cases make each entry ([`App::audited`]) from what is not secret: names, the names of
//! changed fields ([`chatbot_fields`], [`mind_fields`]), counts. Which entries are written in the
//! change's own store transaction and which right after it: docs/decisions.md, "The audit log".

use crate::App;
use crate::auth::Principal;
use crate::error::AppError;
use lore_domain::Timestamp;
use lore_domain::assistant::AssistantPatch;
use lore_domain::audit::{AuditAction, AuditDetails, AuditEntry};
use lore_domain::chatbot::ChatbotPatch;
use lore_domain::mind::MindPatch;
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::scope::Scope;

impl App {
    /// The caller's workspace's entries, of one action or all, newest first. Scope
    /// `workspace:admin`.
    pub async fn list_audit(
        &self,
        p: &Principal,
        action: Option<AuditAction>,
        page: PageRequest,
    ) -> Result<Page<AuditEntry>, AppError> {
        p.require(Scope::WorkspaceAdmin)?;
        Ok(self.ports.storage.audit.list_audit(p.workspace_id(), action, page).await?)
    }

    /// Deletes every entry older than 365 days at `now`; how many (none on DynamoDB, whose TTL
    /// deletes them). The retention sweep calls it with `expire_conversations`.
    pub async fn expire_audit(&self, now: Timestamp) -> Result<u64, AppError> {
        let n = self.ports.storage.audit.expire_audit(AuditEntry::cutoff(now)).await?;
        if n > 0 {
            tracing::info!(entries = n, "retention: deleted audit entries older than 365 days");
        }
        Ok(n)
    }

    /// An entry of the caller's workspace, made by the caller's key.
    pub(crate) fn audit_entry(
        p: &Principal,
        action: AuditAction,
        target: impl Into<String>,
        details: AuditDetails,
    ) -> AuditEntry {
        AuditEntry::new(p.workspace_id().clone(), Some(p.key_id.clone()), action, target, details)
    }

    /// Records `entry` after the change it describes was made (for the changes whose store write
    /// does not take the entry). The change stands when this fails; the failure is logged.
    pub(crate) async fn audited(&self, entry: AuditEntry) {
        if let Err(e) = self.ports.storage.audit.record_audit(&entry).await {
            tracing::error!(workspace = %entry.workspace_id, action = %entry.action, target = entry.target_id,
                error = %e, "could not record an audit entry");
        }
    }
}

/// The API names of the settings an [`AssistantPatch`] changes.
fn assistant_fields(p: &AssistantPatch, out: &mut Vec<&'static str>) {
    let named = [
        (p.welcome_message.is_some(), "welcomeMessage"),
        (p.suggested_questions.is_some(), "suggestedQuestions"),
        (p.show_sources.is_some(), "showSources"),
        (p.collect_email_before_chat.is_some(), "collectEmailBeforeChat"),
        (p.theme.is_some(), "theme"),
        (p.embed.allowed_origins.is_some(), "allowedOrigins"),
        (p.embed.identity_verification.is_some(), "identityVerification"),
        (p.reply.correction_threshold.is_some(), "correctionThreshold"),
        (p.reply.handoff_enabled.is_some(), "handoffEnabled"),
        (p.reply.knowledge_filter.is_some(), "knowledgeFilter"),
        (p.reply.language.is_some(), "language"),
        (p.retention.is_some(), "retentionDays"),
        (p.redact_personal_data.is_some(), "redactPersonalData"),
        (p.run_tests_on_change.is_some(), "runTestsOnChange"),
    ];
    out.extend(named.into_iter().filter(|(set, _)| *set).map(|(_, name)| name));
}

/// The API names of the fields a chatbot PATCH changes (names only: never their values).
pub fn chatbot_fields(p: &ChatbotPatch) -> Vec<&'static str> {
    let mut out = Vec::new();
    let named = [(p.name.is_some(), "name"), (p.slug.is_some(), "slug"), (p.descriptor.is_some(), "descriptor")];
    out.extend(named.into_iter().filter(|(set, _)| *set).map(|(_, name)| name));
    assistant_fields(&p.settings, &mut out);
    out
}

/// The API names of the fields a Mind PATCH changes (names only: never their values).
pub fn mind_fields(p: &MindPatch) -> Vec<&'static str> {
    let mut out = Vec::new();
    let named = [
        (p.name.is_some(), "name"),
        (p.slug.is_some(), "slug"),
        (p.headline.is_some(), "headline"),
        (p.bio.is_some(), "bio"),
        (p.avatar_url.is_some(), "avatarUrl"),
        (p.system_prompt.is_some(), "systemPrompt"),
        (p.expertise_areas.is_some(), "expertiseAreas"),
        (p.is_published.is_some(), "isPublished"),
        (p.temperature.is_some(), "temperature"),
        (p.social_links.is_some(), "socialLinks"),
        (p.voice_enabled.is_some(), "voiceEnabled"),
        (p.voice_id.is_some(), "voiceId"),
        (p.voice_speed.is_some(), "voiceSpeed"),
    ];
    out.extend(named.into_iter().filter(|(set, _)| *set).map(|(_, name)| name));
    assistant_fields(&p.settings, &mut out);
    out
}
