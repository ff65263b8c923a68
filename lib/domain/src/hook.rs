//! Webhook subscriptions (REST hooks, docs/api.md §12–13): what a hook receives, where, and the
//! secret its deliveries are signed with.

use crate::error::DomainError;
use crate::event::{Event, EventType};
use crate::id::{ChatbotId, FormId, HookId, MindId, WorkspaceId};
use crate::time::Timestamp;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use std::fmt;

/// Consecutive failed deliveries after which a subscription is disabled (docs/api.md §13).
pub const DISABLE_AFTER_FAILURES: u32 = 20;
pub const SECRET_PREFIX: &str = "whsec_";
pub const MAX_HOOK_URL: usize = 2_048;

/// Which events a subscription receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HookFilter {
    /// `form_response`, of one form or of all forms.
    FormResponse,
    /// One knowledge-source event type, and only it.
    Exact(EventType),
    /// `knowledge.source.*`: the four knowledge-source events.
    AllKnowledge,
    /// `mind.lead.captured`, of one Mind or of all Minds.
    Lead,
    /// `chatbot.lead.captured`, of one chatbot or of all chatbots.
    ChatbotLead,
    /// `message.rated` or `conversation.handoff_requested` (docs/api.md §19), or
    /// `tests.run.completed` (§21), of one Mind, one chatbot, or all of them.
    Conversation(EventType),
    /// `privacy.visitor.erased` (docs/api.md §22), of the whole workspace.
    VisitorErased,
}

impl HookFilter {
    pub const ALL_KNOWLEDGE: &'static str = "knowledge.source.*";

    /// The `event` member of a subscribe request; absent means `form_response`.
    pub fn parse(event: Option<&str>) -> Result<Self, DomainError> {
        match event {
            None | Some("form_response") => Ok(Self::FormResponse),
            Some(Self::ALL_KNOWLEDGE) => Ok(Self::AllKnowledge),
            Some(s) => match EventType::parse(s) {
                Some(EventType::LeadCaptured) => Ok(Self::Lead),
                Some(EventType::ChatbotLeadCaptured) => Ok(Self::ChatbotLead),
                Some(
                    t @ (EventType::MessageRated
                    | EventType::HandoffRequested
                    | EventType::TestsRunCompleted
                    | EventType::ActionCalled),
                ) => Ok(Self::Conversation(t)),
                Some(EventType::PrivacyVisitorErased) => Ok(Self::VisitorErased),
                Some(t) if t.is_knowledge() => Ok(Self::Exact(t)),
                _ => Err(DomainError::field(
                    "event",
                    "must be form_response, knowledge.source.created, knowledge.source.ready, \
                     knowledge.source.error, knowledge.source.deleted, knowledge.source.refreshed, \
                     knowledge.source.*, mind.lead.captured, \
                     chatbot.lead.captured, message.rated, conversation.handoff_requested, \
                     tests.run.completed, conversation.action.called or privacy.visitor.erased",
                )),
            },
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::FormResponse => "form_response",
            Self::Exact(t) => t.as_str(),
            Self::AllKnowledge => Self::ALL_KNOWLEDGE,
            Self::Lead => EventType::LeadCaptured.as_str(),
            Self::ChatbotLead => EventType::ChatbotLeadCaptured.as_str(),
            Self::Conversation(t) => t.as_str(),
            Self::VisitorErased => EventType::PrivacyVisitorErased.as_str(),
        }
    }

    pub fn is_knowledge(self) -> bool {
        matches!(self, Self::Exact(_) | Self::AllKnowledge)
    }

    fn accepts(self, t: EventType) -> bool {
        match self {
            Self::FormResponse => t == EventType::FormResponse,
            Self::Exact(x) => t == x,
            Self::AllKnowledge => t.is_knowledge(),
            Self::Lead => t == EventType::LeadCaptured,
            Self::ChatbotLead => t == EventType::ChatbotLeadCaptured,
            Self::Conversation(x) => t == x,
            Self::VisitorErased => t == EventType::PrivacyVisitorErased,
        }
    }
}

/// A Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes. Its `Debug` never
/// prints it.
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookSecret(String);

impl WebhookSecret {
    pub fn generate() -> Self {
        let mut bytes = [0u8; 32];
        crate::text::random_bytes(&mut bytes);
        Self(format!("{SECRET_PREFIX}{}", STANDARD.encode(bytes)))
    }

    pub fn from_stored(s: String) -> Self {
        Self(s)
    }

    /// The HMAC key: the base64-decoded part after `whsec_`.
    pub fn key_bytes(&self) -> Vec<u8> {
        STANDARD.decode(self.0.strip_prefix(SECRET_PREFIX).unwrap_or(&self.0)).unwrap_or_default()
    }

    /// The secret itself: shown to the subscriber, and used to sign.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// `v1,<base64 HMAC-SHA256(key, "{id}.{timestamp}.{body}")>`: a Standard Webhooks signature.
    pub fn sign(&self, msg_id: &str, timestamp: i64, body: &[u8]) -> String {
        use hmac::{Hmac, Mac};
        let Ok(mut mac) = <Hmac<sha2::Sha256> as Mac>::new_from_slice(&self.key_bytes()) else {
            // HMAC takes keys of any length; this arm is never taken.
            return String::new();
        };
        mac.update(format!("{msg_id}.{timestamp}.").as_bytes());
        mac.update(body);
        format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
    }
}

impl fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WebhookSecret(<redacted>)")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HookStatus {
    Active,
    /// Its last [`DISABLE_AFTER_FAILURES`] deliveries all failed; subscribing again re-enables it.
    Disabled,
}

impl HookStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Disabled => "disabled",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Active, Self::Disabled].into_iter().find(|x| x.as_str() == s)
    }
}

/// A webhook subscription (the API's `hookId` names it): created by subscribing, removed by
/// unsubscribing or a `410 Gone`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hook {
    pub id: HookId,
    pub workspace_id: WorkspaceId,
    /// Checked by request protection when subscribed, and again at every connection.
    pub hook_url: String,
    pub filter: HookFilter,
    /// `form_response` of this form only; `None`: every form.
    pub form_id: Option<FormId>,
    /// Knowledge events of this chatbot only; `None`: every chatbot.
    pub chatbot_id: Option<ChatbotId>,
    /// Lead events of this Mind only; `None`: every Mind.
    pub mind_id: Option<MindId>,
    pub secret: WebhookSecret,
    /// The secret a rotation replaced, still signing until its grace period ends.
    pub retiring_secret: Option<RetiringSecret>,
    pub status: HookStatus,
    /// Deliveries that ended `failed` since the last one that succeeded.
    pub consecutive_failures: u32,
    pub created_at: Timestamp,
}

/// A replaced secret and when it stops signing: during a rotation's grace period deliveries
/// carry a signature by each secret, so a receiver can switch whenever it likes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetiringSecret {
    pub secret: WebhookSecret,
    pub until: Timestamp,
}

/// What a subscription narrows to, checked against its filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookTarget {
    pub filter: HookFilter,
    pub form_id: Option<FormId>,
    pub chatbot_id: Option<ChatbotId>,
    pub mind_id: Option<MindId>,
}

impl HookTarget {
    /// `formId` narrows form events only; `chatbotId` knowledge events only.
    pub fn new(
        filter: HookFilter,
        form_id: Option<FormId>,
        chatbot_id: Option<ChatbotId>,
    ) -> Result<Self, DomainError> {
        Self::narrowed(filter, form_id, chatbot_id, None)
    }

    /// [`HookTarget::new`], and `mindId`, which narrows lead events only.
    pub fn narrowed(
        filter: HookFilter,
        form_id: Option<FormId>,
        chatbot_id: Option<ChatbotId>,
        mind_id: Option<MindId>,
    ) -> Result<Self, DomainError> {
        let conversation = matches!(filter, HookFilter::Conversation(_));
        if mind_id.is_some() && filter != HookFilter::Lead && !conversation {
            return Err(DomainError::field(
                "mindId",
                "applies to mind.lead.captured, message.rated and conversation.handoff_requested subscriptions only",
            ));
        }
        if mind_id.is_some() && chatbot_id.is_some() {
            return Err(DomainError::field("mindId", "narrows to one Mind or one chatbot, not both"));
        }
        if form_id.is_some() && filter != HookFilter::FormResponse {
            return Err(DomainError::field("formId", "applies to form_response subscriptions only"));
        }
        if chatbot_id.is_some() && !filter.is_knowledge() && filter != HookFilter::ChatbotLead && !conversation {
            return Err(DomainError::field(
                "chatbotId",
                "applies to knowledge.source.*, chatbot.lead.captured, message.rated and \
                 conversation.handoff_requested subscriptions only",
            ));
        }
        Ok(Self { filter, form_id, chatbot_id, mind_id })
    }
}

impl Hook {
    /// The secrets a delivery at `now` is signed with: the current one, and the one a rotation
    /// replaced while its grace period lasts.
    pub fn signing_secrets(&self, now: Timestamp) -> Vec<WebhookSecret> {
        let mut secrets = vec![self.secret.clone()];
        if let Some(r) = self.retiring_secret.as_ref().filter(|r| now < r.until) {
            secrets.push(r.secret.clone());
        }
        secrets
    }

    pub fn new(workspace_id: WorkspaceId, hook_url: String, target: HookTarget, now: Timestamp) -> Self {
        Self {
            id: HookId::generate(),
            workspace_id,
            hook_url,
            filter: target.filter,
            form_id: target.form_id,
            chatbot_id: target.chatbot_id,
            mind_id: target.mind_id,
            secret: WebhookSecret::generate(),
            retiring_secret: None,
            status: HookStatus::Active,
            consecutive_failures: 0,
            created_at: now,
        }
    }

    /// Whether this subscription receives `event` (docs/api.md §16.20): same workspace, the
    /// filter accepts the type, and the form or chatbot it narrows to is the event's.
    pub fn matches(&self, event: &Event) -> bool {
        let narrowed = |want: Option<&str>, member: &str| match want {
            None => true,
            Some(id) => event.data.get(member).and_then(|v| v.as_str()) == Some(id),
        };
        self.workspace_id == event.workspace_id
            && self.filter.accepts(event.event_type)
            && narrowed(self.form_id.as_ref().map(FormId::as_str), "formId")
            && narrowed(self.chatbot_id.as_ref().map(ChatbotId::as_str), "chatbotId")
            && narrowed(self.mind_id.as_ref().map(MindId::as_str), "mindId")
    }

    /// Two requests for the same url and the same events are one subscription.
    pub fn same_target(&self, other: &Hook) -> bool {
        self.workspace_id == other.workspace_id
            && self.hook_url == other.hook_url
            && self.filter == other.filter
            && self.form_id == other.form_id
            && self.chatbot_id == other.chatbot_id
            && self.mind_id == other.mind_id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retiring_secret_signs_until_its_grace_ends() {
        let ws = WorkspaceId::generate();
        let mut h = Hook::new(
            ws,
            "https://x.example".into(),
            HookTarget::new(HookFilter::FormResponse, None, None).unwrap(),
            Timestamp::from_millis(0),
        );
        assert_eq!(h.signing_secrets(Timestamp::from_millis(5)), vec![h.secret.clone()]);
        let old = h.secret.clone();
        h.secret = WebhookSecret::generate();
        h.retiring_secret = Some(RetiringSecret { secret: old.clone(), until: Timestamp::from_millis(1_000) });
        assert_eq!(h.signing_secrets(Timestamp::from_millis(999)), vec![h.secret.clone(), old]);
        assert_eq!(h.signing_secrets(Timestamp::from_millis(1_000)), vec![h.secret.clone()], "over at `until`");
    }
    use serde_json::json;

    fn event(t: EventType, ws: &WorkspaceId, data: serde_json::Value) -> Event {
        Event::new(t, ws.clone(), data)
    }

    fn hook(ws: &WorkspaceId, filter: HookFilter, form: Option<&FormId>, bot: Option<&ChatbotId>) -> Hook {
        let target = HookTarget::new(filter, form.cloned(), bot.cloned()).unwrap();
        Hook::new(ws.clone(), "https://example.com/h".into(), target, Timestamp::now())
    }

    #[test]
    fn filters_parse_and_print() {
        for s in [
            "form_response",
            "knowledge.source.created",
            "knowledge.source.ready",
            "knowledge.source.error",
            "knowledge.source.deleted",
            "knowledge.source.refreshed",
            "knowledge.source.*",
        ] {
            assert_eq!(HookFilter::parse(Some(s)).unwrap().as_str(), s);
        }
        assert_eq!(HookFilter::parse(None).unwrap(), HookFilter::FormResponse);
        for bad in ["knowledge.source", "knowledge.*", "FORM_RESPONSE", ""] {
            assert!(HookFilter::parse(Some(bad)).unwrap_err().fields.contains_key("event"), "{bad}");
        }
        assert!(HookTarget::new(HookFilter::AllKnowledge, Some(FormId::generate()), None).is_err());
        assert!(HookTarget::new(HookFilter::FormResponse, None, Some(ChatbotId::generate())).is_err());
    }

    #[test]
    fn matching_rules() {
        let ws = WorkspaceId::generate();
        let (a, b) = (FormId::generate(), FormId::generate());
        let (x, y) = (ChatbotId::generate(), ChatbotId::generate());
        let on_a = event(EventType::FormResponse, &ws, json!({"formId": a}));
        let ready_x = event(EventType::SourceReady, &ws, json!({"chatbotId": x}));
        let deleted_y = event(EventType::SourceDeleted, &ws, json!({"chatbotId": y}));

        let all_forms = hook(&ws, HookFilter::FormResponse, None, None);
        assert!(all_forms.matches(&on_a) && !all_forms.matches(&ready_x));
        assert!(hook(&ws, HookFilter::FormResponse, Some(&a), None).matches(&on_a));
        assert!(!hook(&ws, HookFilter::FormResponse, Some(&b), None).matches(&on_a));
        assert!(!hook(&WorkspaceId::generate(), HookFilter::FormResponse, None, None).matches(&on_a));

        let every = hook(&ws, HookFilter::AllKnowledge, None, None);
        assert!(every.matches(&ready_x) && every.matches(&deleted_y) && !every.matches(&on_a));
        let ready_only = hook(&ws, HookFilter::Exact(EventType::SourceReady), None, None);
        assert!(ready_only.matches(&ready_x) && !ready_only.matches(&deleted_y));
        let only_x = hook(&ws, HookFilter::AllKnowledge, None, Some(&x));
        assert!(only_x.matches(&ready_x) && !only_x.matches(&deleted_y));
    }

    #[test]
    fn secrets_are_standard_webhooks_secrets_and_never_debug_printed() {
        let s = WebhookSecret::generate();
        assert!(s.expose().starts_with("whsec_"));
        assert_eq!(s.key_bytes().len(), 32);
        assert_ne!(s, WebhookSecret::generate());
        assert!(!format!("{s:?}").contains(s.expose()));
    }
}
