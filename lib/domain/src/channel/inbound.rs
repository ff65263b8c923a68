//! What a platform's request to a channel's webhook route means: a question to answer, a check
//! of the route, or something Lore does not answer (a bot's message, an edit, a delivery
//! receipt). Read from the platforms' published payloads; members Lore does not use are ignored.

use super::ChannelThread;
use serde::Deserialize;

/// A visitor's message on a platform, to be answered there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboundMessage {
    pub thread: ChannelThread,
    /// The platform's id of the person who wrote (becomes the conversation's `visitor.userId`).
    pub user_id: String,
    pub user_name: Option<String>,
    /// The question, with the mention of the bot taken out; empty for a greeting.
    pub text: String,
    /// The platform's id of the message, answered as a reply to it (Telegram, WhatsApp).
    pub reply_to: Option<String>,
    /// The platform's id of this delivery: a redelivery carries the same one.
    pub delivery_id: String,
    /// Telegram's `/start`: the visitor opened the chat; answered with the welcome message.
    pub greeting: bool,
}

/// The body is not the platform's payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotAPayload;

/// A request to a Slack channel's events route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlackRequest {
    /// Slack checks the route when the owner pastes it: answered with `challenge`.
    UrlVerification {
        challenge: String,
    },
    Message(InboundMessage),
    /// Acknowledged and not answered (a bot's message, an edit, another event type).
    Ignored,
}

#[derive(Deserialize)]
struct SlackEnvelope {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    challenge: Option<String>,
    #[serde(default)]
    event_id: Option<String>,
    #[serde(default)]
    event: Option<SlackEvent>,
}

#[derive(Deserialize)]
struct SlackEvent {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    subtype: Option<String>,
    #[serde(default)]
    bot_id: Option<String>,
    #[serde(default)]
    user: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    ts: Option<String>,
    #[serde(default)]
    thread_ts: Option<String>,
    #[serde(default)]
    channel: Option<String>,
    #[serde(default)]
    channel_type: Option<String>,
}

/// Reads a Slack Events API request (JSON). `Err` when it is not one.
pub fn slack(body: &[u8], bot_user_id: Option<&str>) -> Result<SlackRequest, NotAPayload> {
    let envelope: SlackEnvelope = serde_json::from_slice(body).map_err(|_| NotAPayload)?;
    match envelope.kind.as_str() {
        "url_verification" => {
            return envelope.challenge.map(|challenge| SlackRequest::UrlVerification { challenge }).ok_or(NotAPayload);
        }
        "event_callback" => {}
        _ => return Ok(SlackRequest::Ignored),
    }
    let (Some(event), Some(_)) = (envelope.event, envelope.event_id) else { return Err(NotAPayload) };
    // A mention anywhere, or a message in a direct conversation with the bot; never a bot's
    // message (its own answers included), an edit, a deletion or a join.
    let answered = match event.kind.as_str() {
        "app_mention" => true,
        "message" => event.channel_type.as_deref() == Some("im"),
        _ => false,
    };
    let from_bot = event.bot_id.is_some() || (bot_user_id.is_some() && event.user.as_deref() == bot_user_id);
    if !answered || from_bot || event.subtype.is_some() {
        return Ok(SlackRequest::Ignored);
    }
    let (Some(user), Some(channel), Some(ts)) = (event.user, event.channel, event.ts) else {
        return Ok(SlackRequest::Ignored);
    };
    let text = without_mention(event.text.as_deref().unwrap_or(""), bot_user_id);
    if text.is_empty() {
        return Ok(SlackRequest::Ignored);
    }
    // The answer goes in the thread of the message: the thread it is in, or the one it starts.
    let thread = event.thread_ts.unwrap_or_else(|| ts.clone());
    // A message is known by where it was written, not by the event that told of it: Slack may
    // send both `app_mention` and `message.im` for one message, each with its own event id.
    let delivery_id = format!("{channel}:{ts}");
    Ok(SlackRequest::Message(InboundMessage {
        thread: ChannelThread { chat: channel, thread: Some(thread) },
        user_id: user,
        user_name: None,
        text,
        reply_to: Some(ts),
        delivery_id,
        greeting: false,
    }))
}

/// The text without the mention of the bot (`<@U123>`, or any mention when the bot's id is
/// not known: a question rarely starts with one).
fn without_mention(text: &str, bot_user_id: Option<&str>) -> String {
    let mut out = text.to_owned();
    match bot_user_id {
        Some(id) => out = out.replace(&format!("<@{id}>"), " "),
        None => {
            let trimmed = out.trim_start();
            if let Some(rest) = trimmed.strip_prefix("<@").and_then(|r| r.split_once('>')) {
                out = rest.1.to_owned();
            }
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[derive(Deserialize)]
struct TelegramUpdate {
    update_id: i64,
    #[serde(default)]
    message: Option<TelegramMessage>,
}

#[derive(Deserialize)]
struct TelegramMessage {
    message_id: i64,
    #[serde(default)]
    from: Option<TelegramUser>,
    chat: TelegramChat,
    #[serde(default)]
    text: Option<String>,
}

#[derive(Deserialize)]
struct TelegramUser {
    id: i64,
    #[serde(default)]
    is_bot: bool,
    #[serde(default)]
    first_name: Option<String>,
    #[serde(default)]
    last_name: Option<String>,
}

#[derive(Deserialize)]
struct TelegramChat {
    id: i64,
}

/// Reads a Telegram `Update`. `Ok(None)` for updates Lore does not answer (an edit, a bot's
/// message, a photo without text, a channel post); `Err` when it is not an update.
pub fn telegram(body: &[u8]) -> Result<Option<InboundMessage>, NotAPayload> {
    let update: TelegramUpdate = serde_json::from_slice(body).map_err(|_| NotAPayload)?;
    let Some(message) = update.message else { return Ok(None) };
    let Some(from) = message.from.filter(|f| !f.is_bot) else { return Ok(None) };
    let Some(text) = message.text.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()) else { return Ok(None) };
    // `/start@TheBot` in a group.
    let greeting = text == "/start" || text.starts_with("/start ") || text.starts_with("/start@");
    let name = [from.first_name, from.last_name].into_iter().flatten().collect::<Vec<_>>().join(" ");
    Ok(Some(InboundMessage {
        thread: ChannelThread { chat: message.chat.id.to_string(), thread: None },
        user_id: from.id.to_string(),
        user_name: (!name.trim().is_empty()).then(|| name.trim().to_owned()),
        text: if greeting { String::new() } else { text },
        reply_to: Some(message.message_id.to_string()),
        delivery_id: update.update_id.to_string(),
        greeting,
    }))
}

#[derive(Deserialize)]
struct WhatsappPayload {
    #[serde(default)]
    entry: Vec<WhatsappEntry>,
}

#[derive(Deserialize)]
struct WhatsappEntry {
    #[serde(default)]
    changes: Vec<WhatsappChange>,
}

#[derive(Deserialize)]
struct WhatsappChange {
    #[serde(default)]
    value: Option<WhatsappValue>,
}

#[derive(Deserialize)]
struct WhatsappValue {
    #[serde(default)]
    metadata: Option<WhatsappMetadata>,
    #[serde(default)]
    contacts: Vec<WhatsappContact>,
    #[serde(default)]
    messages: Vec<WhatsappMessage>,
}

#[derive(Deserialize)]
struct WhatsappMetadata {
    #[serde(default)]
    phone_number_id: Option<String>,
}

#[derive(Deserialize)]
struct WhatsappContact {
    #[serde(default)]
    wa_id: Option<String>,
    #[serde(default)]
    profile: Option<WhatsappProfile>,
}

#[derive(Deserialize)]
struct WhatsappProfile {
    #[serde(default)]
    name: Option<String>,
}

#[derive(Deserialize)]
struct WhatsappMessage {
    #[serde(default)]
    from: String,
    #[serde(default)]
    id: String,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    text: Option<WhatsappText>,
}

#[derive(Deserialize)]
struct WhatsappText {
    body: String,
}

/// Reads a WhatsApp Cloud API webhook: the text messages to `phone_number_id` (an app's webhook
/// hears every number of the app), in order. Delivery receipts (`statuses`) and other message
/// types hold none. `Err` when it is not such a payload.
pub fn whatsapp(body: &[u8], phone_number_id: &str) -> Result<Vec<InboundMessage>, NotAPayload> {
    let payload: WhatsappPayload = serde_json::from_slice(body).map_err(|_| NotAPayload)?;
    let mut out = Vec::new();
    for value in payload.entry.into_iter().flat_map(|e| e.changes).filter_map(|c| c.value) {
        if value.metadata.as_ref().and_then(|m| m.phone_number_id.as_deref()) != Some(phone_number_id) {
            continue;
        }
        for m in value.messages {
            let Some(text) = m.text.filter(|_| m.kind == "text").map(|t| t.body.trim().to_owned()) else { continue };
            // A message without its sender or id cannot be answered; the others still are.
            if text.is_empty() || m.from.is_empty() || m.id.is_empty() {
                continue;
            }
            let name = value
                .contacts
                .iter()
                .find(|c| c.wa_id.as_deref() == Some(m.from.as_str()))
                .and_then(|c| c.profile.as_ref()?.name.clone());
            out.push(InboundMessage {
                thread: ChannelThread { chat: m.from.clone(), thread: None },
                user_id: m.from,
                user_name: name,
                text,
                reply_to: Some(m.id.clone()),
                delivery_id: m.id,
                greeting: false,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slack_event(event: serde_json::Value) -> Vec<u8> {
        serde_json::json!({"type": "event_callback", "event_id": "Ev1", "team_id": "T1", "event": event})
            .to_string()
            .into_bytes()
    }

    #[test]
    fn slack_mentions_and_direct_messages_are_answered_in_their_thread() {
        let body = slack_event(serde_json::json!({"type": "app_mention", "user": "U1", "channel": "C1",
            "text": "<@UBOT> where is my order?", "ts": "1700.0001"}));
        let SlackRequest::Message(m) = slack(&body, Some("UBOT")).unwrap() else { panic!() };
        assert_eq!(m.text, "where is my order?");
        assert_eq!(m.thread, ChannelThread { chat: "C1".into(), thread: Some("1700.0001".into()) });
        assert_eq!(m.delivery_id, "C1:1700.0001", "known by where it was written");
        let body = slack_event(serde_json::json!({"type": "message", "channel_type": "im", "user": "U1",
            "channel": "D1", "text": "and returns?", "ts": "1700.0009", "thread_ts": "1700.0001"}));
        let SlackRequest::Message(m) = slack(&body, Some("UBOT")).unwrap() else { panic!() };
        assert_eq!(m.thread.thread.as_deref(), Some("1700.0001"), "a reply in a thread stays in it");
    }

    #[test]
    fn slack_bots_edits_and_channel_chatter_are_not_answered() {
        for event in [
            serde_json::json!({"type": "message", "channel_type": "im", "user": "UBOT", "channel": "D1", "text": "x", "ts": "1"}),
            serde_json::json!({"type": "message", "channel_type": "im", "bot_id": "B1", "channel": "D1", "text": "x", "ts": "1"}),
            serde_json::json!({"type": "message", "channel_type": "im", "subtype": "message_changed", "channel": "D1", "ts": "1"}),
            serde_json::json!({"type": "message", "channel_type": "channel", "user": "U1", "channel": "C1", "text": "x", "ts": "1"}),
            serde_json::json!({"type": "app_mention", "user": "U1", "channel": "C1", "text": "<@UBOT>", "ts": "1"}),
        ] {
            assert_eq!(slack(&slack_event(event.clone()), Some("UBOT")).unwrap(), SlackRequest::Ignored, "{event}");
        }
        let check = br#"{"type":"url_verification","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","token":"x"}"#;
        assert_eq!(
            slack(check, None).unwrap(),
            SlackRequest::UrlVerification { challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P".into() }
        );
        assert!(slack(b"payload=x", None).is_err());
    }

    #[test]
    fn telegram_text_messages_and_start() {
        let body = br#"{"update_id":10,"message":{"message_id":5,"from":{"id":42,"is_bot":false,"first_name":"Ana","last_name":"Silva"},"chat":{"id":42,"type":"private"},"date":1,"text":"Hello?"}}"#;
        let m = telegram(body).unwrap().unwrap();
        assert_eq!((m.thread.chat.as_str(), m.user_id.as_str(), m.text.as_str()), ("42", "42", "Hello?"));
        assert_eq!(
            (m.user_name.as_deref(), m.reply_to.as_deref(), m.delivery_id.as_str()),
            (Some("Ana Silva"), Some("5"), "10")
        );
        let start = br#"{"update_id":11,"message":{"message_id":6,"from":{"id":42,"is_bot":false},"chat":{"id":42},"text":"/start"}}"#;
        assert!(telegram(start).unwrap().unwrap().greeting);
        let edit = br#"{"update_id":12,"edited_message":{"message_id":5,"from":{"id":42,"is_bot":false},"chat":{"id":42},"text":"x"}}"#;
        assert_eq!(telegram(edit).unwrap(), None);
        let bot =
            br#"{"update_id":13,"message":{"message_id":7,"from":{"id":9,"is_bot":true},"chat":{"id":42},"text":"x"}}"#;
        assert_eq!(telegram(bot).unwrap(), None);
        assert!(telegram(b"[]").is_err());
    }

    #[test]
    fn whatsapp_text_messages_to_this_number() {
        let body = br#"{"object":"whatsapp_business_account","entry":[{"id":"1","changes":[{"field":"messages","value":{"messaging_product":"whatsapp","metadata":{"display_phone_number":"1555","phone_number_id":"1065"},"contacts":[{"profile":{"name":"Ana"},"wa_id":"4915"}],"messages":[{"from":"4915","id":"wamid.A","timestamp":"1","type":"text","text":{"body":"Hi"}},{"from":"4915","id":"wamid.B","timestamp":"1","type":"image","image":{"id":"x"}}]}},{"field":"messages","value":{"metadata":{"phone_number_id":"999"},"messages":[{"from":"1","id":"wamid.C","type":"text","text":{"body":"other number"}}]}}]}]}"#;
        let got = whatsapp(body, "1065").unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(
            (got[0].text.as_str(), got[0].user_name.as_deref(), got[0].delivery_id.as_str()),
            ("Hi", Some("Ana"), "wamid.A")
        );
        let receipt = br#"{"object":"whatsapp_business_account","entry":[{"changes":[{"value":{"metadata":{"phone_number_id":"1065"},"statuses":[{"id":"wamid.A","status":"read"}]}}]}]}"#;
        assert!(whatsapp(receipt, "1065").unwrap().is_empty());
    }
}
