//! The events Lore delivers to webhook subscribers (docs/api.md §13), described in the OpenAPI
//! 3.1 document's `webhooks` section: one entry per event type, each a `POST` to the
//! subscriber's `hookUrl` with the envelope as body and the Standard Webhooks signature headers.
//!
//! The envelopes themselves are built by the domain (`lore_domain::event::Event::envelope`);
//! these types only describe them for the document. `tests/api/openapi.rs` checks every real
//! envelope (from the sample endpoint) against these schemas, so they cannot drift apart.

// Description-only types: built by no code, read by the document generator.
#![allow(dead_code)]

use lore_domain::event::EventType;
use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

/// The `eventType` of a form response.
#[derive(Serialize, ToSchema)]
pub enum FormResponseType {
    #[serde(rename = "form_response")]
    FormResponse,
}

/// The `eventType` of a knowledge source's change.
#[derive(Serialize, ToSchema)]
pub enum KnowledgeSourceType {
    #[serde(rename = "knowledge.source.created")]
    Created,
    #[serde(rename = "knowledge.source.ready")]
    Ready,
    #[serde(rename = "knowledge.source.error")]
    Error,
    #[serde(rename = "knowledge.source.deleted")]
    Deleted,
    #[serde(rename = "knowledge.source.refreshed")]
    Refreshed,
}

/// The `eventType` of a lead: of a Mind or of a chatbot.
#[derive(Serialize, ToSchema)]
pub enum LeadCapturedType {
    #[serde(rename = "mind.lead.captured")]
    LeadCaptured,
    #[serde(rename = "chatbot.lead.captured")]
    ChatbotLeadCaptured,
}

/// `form_response`: a form was answered (directly, through an embed, or by a chatbot).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FormResponseEvent {
    pub event_type: FormResponseType,
    /// The event's id; also the `webhook-id` header, the same on every attempt: de-duplicate by it.
    #[schema(example = "evt_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub event_id: String,
    /// RFC 3339, UTC.
    pub created_at: String,
    pub data: FormResponseData,
    pub metadata: FormResponseMetadata,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FormResponseData {
    pub form_id: String,
    pub form_name: String,
    pub response_id: String,
    /// Every field of the form in order (`value` null when unanswered), then the system fields
    /// `_formId` and `_responseId` (`type: "system"`).
    pub fields: Vec<FormResponseField>,
}

#[derive(Serialize, ToSchema)]
pub struct FormResponseField {
    pub key: String,
    pub label: String,
    /// The field's type (`short_text`, `email`, `number`, …), or `system`.
    #[serde(rename = "type")]
    pub field_type: String,
    /// The answer: a string, number, boolean or list of strings by type; null when unanswered.
    pub value: Value,
}

#[derive(Serialize, ToSchema)]
pub struct FormResponseMetadata {
    /// `direct`, `embed` or `chatbot`.
    pub source: String,
}

/// `knowledge.source.created`, `.ready`, `.error`, `.deleted`: a knowledge source of a chatbot
/// or a Mind changed state.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KnowledgeSourceEvent {
    pub event_type: KnowledgeSourceType,
    #[schema(example = "evt_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub event_id: String,
    pub created_at: String,
    pub data: KnowledgeSourceData,
    /// Empty.
    #[schema(value_type = HashMap<String, Value>)]
    pub metadata: Value,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KnowledgeSourceData {
    pub source_id: String,
    pub source_name: String,
    /// In the owner's vocabulary: `text`, `url`, `file` (chatbots); `text`, `url`, `document`,
    /// `podcast` (Minds).
    pub source_type: String,
    /// A chatbot's source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chatbot_id: Option<String>,
    /// A Mind's source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mind_id: Option<String>,
    /// The source's status in its owner's vocabulary; `deleted` on `knowledge.source.deleted`.
    pub status: String,
    /// `knowledge.source.ready` and `knowledge.source.refreshed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunk_count: Option<u64>,
    /// `knowledge.source.refreshed` only: the pages this crawl read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages_crawled: Option<u32>,
    /// `knowledge.source.refreshed` only: the pages since the crawl before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages: Option<PageChangesData>,
    /// `knowledge.source.error` only: the reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// How the pages of a refresh differ from the crawl before (a page is known by its URL and
/// changed when the chunks it gave changed).
#[derive(Serialize, ToSchema)]
pub struct PageChangesData {
    pub added: u32,
    pub changed: u32,
    pub removed: u32,
    pub unchanged: u32,
}

/// `mind.lead.captured`: a visitor of a Mind with `collectEmailBeforeChat` opened a public
/// conversation with their e-mail address.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LeadCapturedEvent {
    pub event_type: LeadCapturedType,
    #[schema(example = "evt_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub event_id: String,
    pub created_at: String,
    pub data: LeadCapturedData,
    /// Empty.
    #[schema(value_type = HashMap<String, Value>)]
    pub metadata: Value,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LeadCapturedData {
    /// `mind.lead.captured`: the Mind.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mind_id: Option<String>,
    /// `chatbot.lead.captured`: the chatbot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chatbot_id: Option<String>,
    pub conversation_id: String,
    pub email: String,
    pub name: Option<String>,
    /// The host site's user, when the owner verifies identities (docs/api.md §18); else `null`.
    pub user_id: Option<String>,
}

/// The `eventType` of a rating.
#[derive(Serialize, ToSchema)]
pub enum MessageRatedType {
    #[serde(rename = "message.rated")]
    MessageRated,
}

/// `message.rated`: a visitor (or the owner, with a key) rated an answer of a Mind or a chatbot
/// (docs/api.md §19); a new rating of the same message is delivered again.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MessageRatedEvent {
    pub event_type: MessageRatedType,
    #[schema(example = "evt_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub event_id: String,
    pub created_at: String,
    pub data: MessageRatedData,
    /// Empty.
    #[schema(value_type = HashMap<String, Value>)]
    pub metadata: Value,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MessageRatedData {
    /// A Mind's answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mind_id: Option<String>,
    /// A chatbot's answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chatbot_id: Option<String>,
    pub conversation_id: String,
    /// The assistant message rated.
    pub message_id: String,
    /// `up` or `down`.
    pub rating: String,
    pub comment: Option<String>,
}

/// The `eventType` of a hand-off request.
#[derive(Serialize, ToSchema)]
pub enum HandoffRequestedType {
    #[serde(rename = "conversation.handoff_requested")]
    HandoffRequested,
}

/// `conversation.handoff_requested`: a conversation of a Mind or a chatbot was handed to a person
/// (docs/api.md §19); reply with `POST …/conversations/{conversationId}/messages`
/// `{content, role: "agent"}`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HandoffRequestedEvent {
    pub event_type: HandoffRequestedType,
    #[schema(example = "evt_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub event_id: String,
    pub created_at: String,
    pub data: HandoffRequestedData,
    /// Empty.
    #[schema(value_type = HashMap<String, Value>)]
    pub metadata: Value,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HandoffRequestedData {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mind_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chatbot_id: Option<String>,
    pub conversation_id: String,
    /// The conversation's visitor, as in the conversation (`null` when they gave nothing).
    pub visitor: Option<crate::conversations::VisitorView>,
    /// What the visitor said they need, if anything.
    pub reason: Option<String>,
}

/// The `eventType` of an erasure.
#[derive(Serialize, ToSchema)]
pub enum VisitorErasedType {
    #[serde(rename = "privacy.visitor.erased")]
    PrivacyVisitorErased,
}

/// `privacy.visitor.erased`: a person's conversations (of every chatbot and Mind of the
/// workspace) were deleted on request with `POST /api/v1/privacy/erase` (docs/api.md §22).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VisitorErasedEvent {
    pub event_type: VisitorErasedType,
    #[schema(example = "evt_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub event_id: String,
    pub created_at: String,
    pub data: VisitorErasedData,
    /// Empty.
    #[schema(value_type = HashMap<String, Value>)]
    pub metadata: Value,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VisitorErasedData {
    /// The e-mail address the request named; `null` when it named a `userId`.
    pub email: Option<String>,
    /// The verified user id the request named; `null` when it named an e-mail address.
    pub user_id: Option<String>,
    /// How many conversations were deleted (0 when none matched).
    pub conversations: u64,
}

/// The `eventType` of a finished test run.
#[derive(Serialize, ToSchema)]
pub enum TestsRunCompletedType {
    #[serde(rename = "tests.run.completed")]
    TestsRunCompleted,
}

/// `tests.run.completed`: a run of a Mind's or chatbot's answer tests finished (docs/api.md §21);
/// its results are at `GET …/test-runs/{runId}`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TestsRunCompletedEvent {
    pub event_type: TestsRunCompletedType,
    #[schema(example = "evt_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub event_id: String,
    pub created_at: String,
    pub data: TestsRunCompletedData,
    /// Empty.
    #[schema(value_type = HashMap<String, Value>)]
    pub metadata: Value,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TestsRunCompletedData {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mind_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chatbot_id: Option<String>,
    #[schema(example = "run_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub run_id: String,
    pub total: u32,
    pub passed: u32,
    pub failed: u32,
    /// Tests that passed in their previous run and failed in this one.
    pub regressions: u32,
}

/// The `eventType` of an action call.
#[derive(Serialize, ToSchema)]
pub enum ActionCalledType {
    #[serde(rename = "conversation.action.called")]
    ActionCalled,
}

/// `conversation.action.called`: a model called one of the owner's actions while answering
/// (docs/api.md §23). Never the arguments or the answer; the message's `actions` has the call.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActionCalledEvent {
    pub event_type: ActionCalledType,
    #[schema(example = "evt_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub event_id: String,
    pub created_at: String,
    pub data: ActionCalledData,
    /// Empty.
    #[schema(value_type = HashMap<String, Value>)]
    pub metadata: Value,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActionCalledData {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mind_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chatbot_id: Option<String>,
    pub conversation_id: String,
    /// The answer that made the call.
    pub message_id: String,
    /// `null` when the model named no action of the owner's.
    pub action_id: Option<String>,
    #[schema(example = "lookup_order")]
    pub name: String,
    /// `ok`, `error`, `invalid` or `timeout`.
    #[schema(example = "ok")]
    pub status: String,
}

/// An envelope the sample endpoint returns, of the event asked for.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum SampleEnvelope {
    FormResponse(FormResponseEvent),
    KnowledgeSource(KnowledgeSourceEvent),
    LeadCaptured(LeadCapturedEvent),
    MessageRated(MessageRatedEvent),
    HandoffRequested(HandoffRequestedEvent),
    VisitorErased(VisitorErasedEvent),
    TestsRunCompleted(TestsRunCompletedEvent),
    ActionCalled(ActionCalledEvent),
}

/// The schema (in `components.schemas`) of each event type's envelope.
pub fn schema_of(event: EventType) -> &'static str {
    match event {
        EventType::FormResponse => "FormResponseEvent",
        EventType::LeadCaptured | EventType::ChatbotLeadCaptured => "LeadCapturedEvent",
        EventType::MessageRated => "MessageRatedEvent",
        EventType::HandoffRequested => "HandoffRequestedEvent",
        EventType::PrivacyVisitorErased => "VisitorErasedEvent",
        EventType::TestsRunCompleted => "TestsRunCompletedEvent",
        EventType::ActionCalled => "ActionCalledEvent",
        _ => "KnowledgeSourceEvent",
    }
}

fn summary(event: EventType) -> &'static str {
    match event {
        EventType::FormResponse => "A form was answered",
        EventType::SourceCreated => "A knowledge source was added",
        EventType::SourceReady => "A knowledge source is ready to search",
        EventType::SourceError => "A knowledge source failed to process",
        EventType::SourceDeleted => "A knowledge source was deleted",
        EventType::SourceRefreshed => "A url source was crawled again, with what changed",
        EventType::LeadCaptured => "A Mind's visitor left their e-mail address",
        EventType::ChatbotLeadCaptured => "A chatbot's visitor left their e-mail address",
        EventType::MessageRated => "An answer was rated",
        EventType::HandoffRequested => "A conversation was handed to a person",
        EventType::PrivacyVisitorErased => "A person's conversations were erased on request",
        EventType::TestsRunCompleted => "A run of answer tests finished",
        EventType::ActionCalled => "A model called one of the owner's actions while answering",
    }
}

/// The document's `webhooks` member: every event type as a `POST` to the subscriber.
pub fn webhooks() -> Value {
    let header = |name: &str, description: &str, example: &str| {
        json!({"name": name, "in": "header", "required": true, "description": description,
               "schema": {"type": "string"}, "example": example})
    };
    let headers = json!([
        header(
            "webhook-id",
            "The event's `eventId`: the same on every attempt and redelivery.",
            "evt_01jq3z5v7b8c9d0e1f2g3h4j5k"
        ),
        header("webhook-timestamp", "Unix seconds when this attempt was signed.", "1777636845"),
        header(
            "webhook-signature",
            "`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` keyed with the \
             subscription's secret (the bytes after `whsec_`, base64-decoded): the Standard Webhooks scheme, \
             verifiable with its libraries.",
            "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4="
        ),
    ]);
    let mut hooks = serde_json::Map::new();
    for event in EventType::ALL {
        let name = event.as_str();
        let operation = json!({
            "summary": summary(event),
            "description": format!(
                "Delivered to every subscription of `{name}` (docs/api.md §13). Answer 2xx within 30 s; any other \
                 answer, or none, is retried after 1 min, 5 min and 30 min. `410 Gone` removes the subscription."
            ),
            "operationId": format!("event_{}", name.replace('.', "_")),
            "tags": ["events"],
            "security": [],
            "parameters": headers,
            "requestBody": {
                "required": true,
                "content": {"application/json": {"schema": {"$ref": format!("#/components/schemas/{}", schema_of(event))}}},
            },
            "responses": {
                "200": {"description": "Received (any 2xx)."},
                "410": {"description": "Gone: Lore removes the subscription and sends it nothing more."},
            },
        });
        hooks.insert(name.to_owned(), json!({ "post": operation }));
    }
    Value::Object(hooks)
}
