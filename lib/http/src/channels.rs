//! Channels (docs/api.md §24): the keyed routes `…/channels` of Minds (api-minds) and chatbots
//! (api-chatbots), and the platforms' routes `/channels/{channelId}/…` (api-integrations), which
//! need no key: each request is checked with the channel's own secret.

use crate::api_router::{ApiRouter, api_routes};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{
    Authed, ChatbotRead, ChatbotWrite, JsonBody, MindsRead, MindsWrite, ParseId, PathId, PathIds, RawBody,
};
use crate::minds::served_base;
use crate::state::ApiState;
use crate::views::{Deleted, Status};
use axum::Json;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lore_app::channels::SlackReply;
use lore_domain::channel::{ConnectedChannel, Credentials, HIDDEN_VALUE, RawChannelSpec};
use lore_domain::id::{ChannelId, ChatbotId, MindId};
use lore_domain::mind::Field;
use lore_domain::source::SourceOwner;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

impl ParseId for ChannelId {
    const WHAT: &'static str = "channel";
    fn parse_id(s: &str) -> Option<Self> {
        Self::parse(s)
    }
}

pub fn mind_router() -> ApiRouter {
    mind_routes::router()
}

pub fn chatbot_router() -> ApiRouter {
    chatbot_routes::router()
}

/// The platforms' routes.
pub fn platform_router() -> ApiRouter {
    ApiRouter::new()
        .routes(api_routes!(slack_events))
        .routes(api_routes!(telegram_update))
        .routes(api_routes!(whatsapp_verify, whatsapp_messages))
}

// ---- views -------------------------------------------------------------------------------------

/// A platform call that failed for good.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlatformFailureView {
    /// What the platform said, or why there was no answer.
    pub message: String,
    pub at: String,
}

impl From<lore_domain::channel::PlatformFailure> for PlatformFailureView {
    fn from(f: lore_domain::channel::PlatformFailure) -> Self {
        Self { message: f.message, at: f.at.to_string() }
    }
}

/// A chatbot's or Mind's connection to Slack, Telegram or WhatsApp. Secrets read `•••`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChannelView {
    #[schema(example = "chan_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub id: String,
    /// `slack`, `telegram` or `whatsapp`.
    #[serde(rename = "type")]
    #[schema(example = "slack")]
    pub kind: String,
    /// `active`, or `failing` after a platform call that failed for good (see `lastError`).
    #[schema(example = "active")]
    pub status: String,
    /// Where the platform sends its messages: Slack's Request URL (Event Subscriptions),
    /// WhatsApp's Callback URL; Telegram's is set by Lore.
    pub webhook_url: String,
    /// Slack only: the same URL, by Slack's name for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events_url: Option<String>,
    /// Slack, Telegram: `•••`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bot_token: Option<String>,
    /// Slack: `•••`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signing_secret: Option<String>,
    /// Slack: the bot's user id (from `auth.test`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bot_user_id: Option<String>,
    /// WhatsApp: `•••`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access_token: Option<String>,
    /// WhatsApp: the sending number's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phone_number_id: Option<String>,
    /// WhatsApp: `•••`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app_secret: Option<String>,
    /// WhatsApp: `•••`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verify_token: Option<String>,
    /// The last platform call that failed for good; kept until the next one fails.
    pub last_error: Option<PlatformFailureView>,
    /// When the channel last answered a message.
    pub last_message_at: Option<String>,
    pub created_at: String,
}

fn hidden() -> Option<String> {
    Some(HIDDEN_VALUE.to_owned())
}

fn view(c: ConnectedChannel, base: &str) -> ChannelView {
    let webhook_url = format!("{}{}", base.trim_end_matches('/'), c.webhook_path());
    let mut v = ChannelView {
        id: c.id.to_string(),
        kind: c.kind().as_str().to_owned(),
        status: c.status.as_str().to_owned(),
        events_url: None,
        webhook_url,
        bot_token: None,
        signing_secret: None,
        bot_user_id: None,
        access_token: None,
        phone_number_id: None,
        app_secret: None,
        verify_token: None,
        last_error: c.last_error.map(Into::into),
        last_message_at: c.last_message_at.map(|t| t.to_string()),
        created_at: c.created_at.to_string(),
    };
    match c.credentials {
        Credentials::Slack { bot_user_id, .. } => {
            v.events_url = Some(v.webhook_url.clone());
            (v.bot_token, v.signing_secret, v.bot_user_id) = (hidden(), hidden(), bot_user_id);
        }
        Credentials::Telegram { .. } => v.bot_token = hidden(),
        Credentials::Whatsapp { phone_number_id, .. } => {
            (v.access_token, v.app_secret, v.verify_token) = (hidden(), hidden(), hidden());
            v.phone_number_id = Some(phone_number_id.as_str().to_owned());
        }
    }
    v
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ChannelEnvelope {
    pub status: Status,
    pub channel: ChannelView,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ChannelList {
    pub status: Status,
    /// In creation order (at most 10).
    pub channels: Vec<ChannelView>,
}

// ---- bodies ------------------------------------------------------------------------------------

/// A channel to connect: `type` and that platform's credentials (members of another platform
/// are refused).
// Secrets among them: no `Debug`, so none can be logged.
#[derive(Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChannelBody {
    /// `slack`, `telegram` or `whatsapp`.
    #[serde(default, rename = "type")]
    #[schema(value_type = String, example = "slack")]
    pub kind: Field<String>,
    /// Slack: the app's Bot User OAuth Token (`xoxb-…`); Telegram: the token BotFather gave.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub bot_token: Field<String>,
    /// Slack: the app's Signing Secret (Basic Information).
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub signing_secret: Field<String>,
    /// WhatsApp: a System User access token with `whatsapp_business_messaging`.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub access_token: Field<String>,
    /// WhatsApp: the Phone number ID (API Setup), digits.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub phone_number_id: Field<String>,
    /// WhatsApp: the Meta app's App Secret (signs every webhook).
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub app_secret: Field<String>,
    /// WhatsApp: a value of your choosing, pasted in the app's webhook settings too.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub verify_token: Field<String>,
}

impl ChannelBody {
    fn into_raw(self) -> RawChannelSpec {
        RawChannelSpec {
            kind: self.kind,
            bot_token: self.bot_token,
            signing_secret: self.signing_secret,
            access_token: self.access_token,
            phone_number_id: self.phone_number_id,
            app_secret: self.app_secret,
            verify_token: self.verify_token,
        }
    }
}

macro_rules! channel_routes {
    (
        $module:ident, $owner:path, $id:ty, $param:literal, $param_doc:literal, $read:ty, $write:ty,
        $read_scope:literal, $write_scope:literal,
        channels: $channels:literal, channel: $channel:literal,
        ops: [$op_create:literal, $op_list:literal, $op_get:literal, $op_delete:literal]
    ) => {
        mod $module {
            use super::*;

            pub fn router() -> ApiRouter {
                ApiRouter::new()
                    .routes(api_routes!(create_channel, list_channels))
                    .routes(api_routes!(get_channel, delete_channel))
            }

            /// Connect Slack, Telegram or WhatsApp. The credentials are checked with the platform
            /// first (Slack `auth.test`, Telegram `setWebhook` to `webhookUrl`, WhatsApp the
            /// number); at most 10 channels.
            #[utoipa::path(post, path = $channels, operation_id = $op_create, tag = "channels",
                params(($param = String, Path, description = $param_doc)),
                request_body = ChannelBody,
                security(("bearer" = [$write_scope])),
                responses(
                    (status = 201, body = ChannelEnvelope),
                    (status = 400, description = "`validation_error` naming each refused member (a credential \
                        the platform refused, too), `invalid_json`", body = ErrorBody),
                    (status = 403, description = "`channels_limit_reached`: 10 channels already", body = ErrorBody),
                ))]
            async fn create_channel(
                auth: Authed<$write>,
                State(s): State<ApiState>,
                headers: HeaderMap,
                PathId(owner): PathId<$id>,
                JsonBody(body): JsonBody<ChannelBody>,
            ) -> Result<(StatusCode, Json<ChannelEnvelope>), ApiError> {
                let base = served_base(&s, &headers);
                let c = s.app.connect_channel(&auth.principal, &$owner(owner), &body.into_raw(), &base).await?;
                Ok((StatusCode::CREATED, Json(ChannelEnvelope { status: Status::Success, channel: view(c, &base) })))
            }

            /// The channels, in creation order; secrets read `•••`.
            #[utoipa::path(get, path = $channels, operation_id = $op_list, tag = "channels",
                params(($param = String, Path, description = $param_doc)),
                security(("bearer" = [$read_scope])),
                responses((status = 200, body = ChannelList)))]
            async fn list_channels(
                auth: Authed<$read>,
                State(s): State<ApiState>,
                headers: HeaderMap,
                PathId(owner): PathId<$id>,
            ) -> Result<Json<ChannelList>, ApiError> {
                let base = served_base(&s, &headers);
                let channels = s.app.list_channels(&auth.principal, &$owner(owner)).await?;
                let channels = channels.into_iter().map(|c| view(c, &base)).collect();
                Ok(Json(ChannelList { status: Status::Success, channels }))
            }

            /// One channel, with its status and last error.
            #[utoipa::path(get, path = $channel, operation_id = $op_get, tag = "channels",
                params(($param = String, Path, description = $param_doc), ("channelId" = String, Path)),
                security(("bearer" = [$read_scope])),
                responses((status = 200, body = ChannelEnvelope)))]
            async fn get_channel(
                auth: Authed<$read>,
                State(s): State<ApiState>,
                headers: HeaderMap,
                PathIds(owner, id): PathIds<$id, ChannelId>,
            ) -> Result<Json<ChannelEnvelope>, ApiError> {
                let c = s.app.get_channel(&auth.principal, &$owner(owner), &id).await?;
                Ok(Json(ChannelEnvelope { status: Status::Success, channel: view(c, &served_base(&s, &headers)) }))
            }

            /// Disconnect a channel (Telegram's webhook is removed); its conversations stay.
            #[utoipa::path(delete, path = $channel, operation_id = $op_delete, tag = "channels",
                params(($param = String, Path, description = $param_doc), ("channelId" = String, Path)),
                security(("bearer" = [$write_scope])),
                responses((status = 200, body = Deleted)))]
            async fn delete_channel(
                auth: Authed<$write>,
                State(s): State<ApiState>,
                PathIds(owner, id): PathIds<$id, ChannelId>,
            ) -> Result<Json<Deleted>, ApiError> {
                s.app.delete_channel(&auth.principal, &$owner(owner), &id).await?;
                Ok(Json(Deleted::new(id)))
            }
        }
    };
}

channel_routes!(mind_routes, SourceOwner::Mind, MindId, "mindId", "Mind id (`mind_…`)", MindsRead, MindsWrite,
    "minds:read", "minds:write",
    channels: "/api/v1/minds/{mindId}/channels",
    channel: "/api/v1/minds/{mindId}/channels/{channelId}",
    ops: ["create_mind_channel", "list_mind_channels", "get_mind_channel", "delete_mind_channel"]);

channel_routes!(chatbot_routes, SourceOwner::Chatbot, ChatbotId, "chatbotId", "Chatbot id (`cb_…`)", ChatbotRead,
    ChatbotWrite, "chatbot:read", "chatbot:write",
    channels: "/api/v1/chatbots/{chatbotId}/channels",
    channel: "/api/v1/chatbots/{chatbotId}/channels/{channelId}",
    ops: ["create_chatbot_channel", "list_chatbot_channels", "get_chatbot_channel", "delete_chatbot_channel"]);

// ---- the platforms' routes ---------------------------------------------------------------------

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Acknowledged.
#[derive(Debug, Serialize, ToSchema)]
pub struct Acknowledged {
    pub status: Status,
}

fn acknowledged() -> Response {
    Json(Acknowledged { status: Status::Success }).into_response()
}

/// Slack's check of the Request URL: its challenge, echoed.
#[derive(Debug, Serialize, ToSchema)]
pub struct SlackChallenge {
    pub challenge: String,
}

/// Slack's Events API (no key: signed with the app's signing secret, `X-Slack-Signature` v0
/// over `v0:{X-Slack-Request-Timestamp}:{body}`, the timestamp within 5 minutes). Answers
/// `url_verification` with its challenge; acknowledges events at once and answers mentions and
/// direct messages in their thread (`chat.postMessage`) afterwards; a redelivered event (same
/// `event_id`) is answered once.
#[utoipa::path(post, path = "/channels/{channelId}/slack/events", tag = "channels", security(()),
    params(("channelId" = String, Path),
        ("X-Slack-Request-Timestamp" = String, Header), ("X-Slack-Signature" = String, Header)),
    request_body(content = std::collections::HashMap<String, serde_json::Value>, description = "A Slack Events API request"),
    responses(
        (status = 200, description = "`url_verification`: `{challenge}`; an event: acknowledged", body = SlackChallenge),
        (status = 400, description = "`invalid_json`: not an Events API request", body = ErrorBody),
        (status = 401, description = "`unauthorized`: the signature does not match or is too old", body = ErrorBody),
        (status = 404, description = "`not_found`: no Slack channel with this id", body = ErrorBody),
        (status = 413, description = "`payload_too_large`: over 2 MiB", body = ErrorBody),
        (status = 429, description = "`rate_limited`: the chatbot or Mind receives too many messages; Slack \
            sends the event again", body = ErrorBody),
    ))]
async fn slack_events(
    State(s): State<ApiState>,
    PathId(id): PathId<ChannelId>,
    headers: HeaderMap,
    RawBody(body): RawBody,
) -> Result<Response, ApiError> {
    let (ts, sig) = (header(&headers, "x-slack-request-timestamp"), header(&headers, "x-slack-signature"));
    Ok(match s.app.slack_event(&id, ts, sig, &body).await? {
        SlackReply::Challenge(challenge) => Json(SlackChallenge { challenge }).into_response(),
        SlackReply::Ack => acknowledged(),
    })
}

/// Telegram's updates (no key: `X-Telegram-Bot-Api-Secret-Token` must be the secret Lore gave
/// `setWebhook`). Text messages are answered with `sendMessage`, as a reply; one conversation
/// per chat; `/start` gets the welcome message.
#[utoipa::path(post, path = "/channels/{channelId}/telegram", tag = "channels", security(()),
    params(("channelId" = String, Path), ("X-Telegram-Bot-Api-Secret-Token" = String, Header)),
    request_body(content = std::collections::HashMap<String, serde_json::Value>, description = "A Telegram Update"),
    responses(
        (status = 200, description = "Acknowledged", body = Acknowledged),
        (status = 400, description = "`invalid_json`: not an Update", body = ErrorBody),
        (status = 401, description = "`unauthorized`: the secret token does not match", body = ErrorBody),
        (status = 404, description = "`not_found`: no Telegram channel with this id", body = ErrorBody),
        (status = 413, description = "`payload_too_large`: over 2 MiB", body = ErrorBody),
        (status = 429, description = "`rate_limited`; Telegram sends the update again", body = ErrorBody),
    ))]
async fn telegram_update(
    State(s): State<ApiState>,
    PathId(id): PathId<ChannelId>,
    headers: HeaderMap,
    RawBody(body): RawBody,
) -> Result<Response, ApiError> {
    s.app.telegram_update(&id, header(&headers, "x-telegram-bot-api-secret-token"), &body).await?;
    Ok(acknowledged())
}

/// The query of Meta's verification request.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct HubQuery {
    #[serde(rename = "hub.mode")]
    #[param(rename = "hub.mode")]
    pub mode: Option<String>,
    #[serde(rename = "hub.verify_token")]
    #[param(rename = "hub.verify_token")]
    pub verify_token: Option<String>,
    #[serde(rename = "hub.challenge")]
    #[param(rename = "hub.challenge")]
    pub challenge: Option<String>,
}

/// Meta's check of the Callback URL (no key): `hub.challenge` as text when `hub.verify_token`
/// is the channel's verify token.
#[utoipa::path(get, path = "/channels/{channelId}/whatsapp", tag = "channels", security(()),
    params(("channelId" = String, Path), HubQuery),
    responses(
        (status = 200, description = "The challenge", content_type = "text/plain", body = String),
        (status = 403, description = "`forbidden`: the verify token does not match", body = ErrorBody),
        (status = 404, description = "`not_found`: no WhatsApp channel with this id", body = ErrorBody),
    ))]
async fn whatsapp_verify(
    State(s): State<ApiState>,
    PathId(id): PathId<ChannelId>,
    Query(q): Query<HubQuery>,
) -> Result<Response, ApiError> {
    let challenge =
        s.app.whatsapp_verify(&id, q.mode.as_deref(), q.verify_token.as_deref(), q.challenge.as_deref()).await?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], challenge).into_response())
}

/// WhatsApp Cloud API webhooks (no key: `X-Hub-Signature-256` is the HMAC-SHA256 of the body
/// with the app secret). Text messages to the channel's number are answered
/// (`POST /{phoneNumberId}/messages`), one conversation per visitor's number.
#[utoipa::path(post, path = "/channels/{channelId}/whatsapp", tag = "channels", security(()),
    params(("channelId" = String, Path), ("X-Hub-Signature-256" = String, Header)),
    request_body(content = std::collections::HashMap<String, serde_json::Value>, description = "A WhatsApp webhook"),
    responses(
        (status = 200, description = "Acknowledged", body = Acknowledged),
        (status = 400, description = "`invalid_json`: not a WhatsApp webhook", body = ErrorBody),
        (status = 401, description = "`unauthorized`: the signature does not match", body = ErrorBody),
        (status = 404, description = "`not_found`: no WhatsApp channel with this id", body = ErrorBody),
        (status = 413, description = "`payload_too_large`: over 2 MiB", body = ErrorBody),
        (status = 429, description = "`rate_limited`; Meta sends it again", body = ErrorBody),
    ))]
async fn whatsapp_messages(
    State(s): State<ApiState>,
    PathId(id): PathId<ChannelId>,
    headers: HeaderMap,
    RawBody(body): RawBody,
) -> Result<Response, ApiError> {
    s.app.whatsapp_messages(&id, header(&headers, "x-hub-signature-256"), &body).await?;
    Ok(acknowledged())
}
