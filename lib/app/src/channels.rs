//! Channels (docs/api.md §24): a chatbot or a Mind answering in Slack, Telegram and WhatsApp.
//! Written once for both kinds of owner.
//!
//! A platform's request is checked (its signature or secret token) and acknowledged at once: the
//! message is remembered by its delivery id (a redelivery is answered once) and queued as a
//! [`ChannelJob`]; the job answers it like any turn (the owner's knowledge, settings,
//! corrections, actions, hand-off) in the conversation of its thread or chat, and sends the
//! answer back in the platform's formatting. A send that fails for good (after the adapter's
//! retries) is kept on the conversation and on the channel.

use crate::auth::Principal;
use crate::conversations::{NoSink, Transcript};
use crate::ports::{ChannelJob, ChannelWrite, OutboundMessage, PlatformError, RateBucket, RateDecision};
use crate::{App, AppError};
use lore_domain::channel::inbound::{self, InboundMessage, SlackRequest};
use lore_domain::channel::{
    ChannelKind, ChannelLink, ChannelStatus, ConnectedChannel, Credentials, MAX_CHANNELS_PER_OWNER, PlatformFailure,
    RawChannelSpec, channels_limit_reached, outbound, slack_signature_valid, whatsapp_signature_valid,
};
use lore_domain::conversation::{
    Conversation, GeneratedBy, MAX_CONTENT_CHARS, MAX_VISITOR_NAME, Message, MessageContent, Visitor,
};
use lore_domain::embed::UserId;
use lore_domain::id::{ChannelId, ConversationId, WorkspaceId};
use lore_domain::language::Language;
use lore_domain::source::SourceOwner;
use lore_domain::{DomainError, ErrorCode, Timestamp};
use std::time::Duration;

/// How often a turn refused because the workspace writes as many answers as it may is tried
/// again before the message is given up (the platform's visitor cannot press "send" again).
const BUSY_TRIES: u32 = 10;

/// How long an agent's reply may take to reach the platform before its request answers anyway.
const RELAY_WITHIN: Duration = Duration::from_secs(15);

/// What a Slack channel's events route answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlackReply {
    /// `url_verification`: the challenge, echoed.
    Challenge(String),
    /// Acknowledged (answered later, or not at all).
    Ack,
}

fn unauthorized(message: &str) -> AppError {
    AppError::Rejected(DomainError::new(ErrorCode::Unauthorized, message))
}

fn not_a_platform_request(kind: ChannelKind) -> AppError {
    AppError::Rejected(DomainError::new(
        ErrorCode::InvalidJson,
        format!("the body is not a {} webhook payload", kind.display()),
    ))
}

/// The member a platform's refusal of the credentials is about.
fn token_member(kind: ChannelKind) -> &'static str {
    match kind {
        ChannelKind::Slack | ChannelKind::Telegram => "botToken",
        ChannelKind::Whatsapp => "accessToken",
    }
}

fn connect_error(kind: ChannelKind, e: PlatformError, url: &str) -> AppError {
    AppError::Rejected(match e {
        // Telegram refuses a webhook it cannot use (not https, not public) with words about it:
        // that is Lore's address, not the token.
        PlatformError::Refused(said) if said.to_ascii_lowercase().contains("webhook") => DomainError::field(
            "type",
            format!(
                "{} refused Lore's address {url}: {said}. It needs a public https address: set LORE_PUBLIC_BASE_URL",
                kind.display()
            ),
        ),
        PlatformError::Refused(said) => {
            DomainError::field(token_member(kind), format!("{} refused it: {said}", kind.display()))
        }
        PlatformError::Failed(why) => {
            DomainError::field("type", format!("could not reach {} ({why}); try again", kind.display()))
        }
    })
}

/// The language a message is written in (a welcome, an agent's reply), English when unclear.
fn written_in(message: &Message) -> Language {
    Language::detect(&message.content).unwrap_or(Language::English)
}

impl App {
    // ---- the owner's routes --------------------------------------------------------------------

    /// Connects a channel: the credentials are checked with the platform (and, for Telegram,
    /// the webhook set to `public_base` + the channel's route) before it is stored.
    pub async fn connect_channel(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        raw: &RawChannelSpec,
        public_base: &str,
    ) -> Result<ConnectedChannel, AppError> {
        self.own(p, owner).await?;
        let credentials = raw.parse()?;
        let ws = p.workspace_id();
        let store = &self.ports.storage.channels;
        // Checked before the platform is called too, so a full owner sets up nothing there.
        if store.list_channels(ws, owner).await?.len() >= MAX_CHANNELS_PER_OWNER as usize {
            return Err(AppError::Rejected(channels_limit_reached()));
        }
        let mut channel = ConnectedChannel::new(ws.clone(), owner.clone(), credentials, Timestamp::now());
        let url = format!("{}{}", public_base.trim_end_matches('/'), channel.webhook_path());
        let kind = channel.kind();
        let platform = &self.ports.shared.channel_platform;
        channel.credentials =
            platform.connect(&channel.credentials, &url).await.map_err(|e| connect_error(kind, e, &url))?;
        match store.insert_channel(&channel, MAX_CHANNELS_PER_OWNER).await? {
            ChannelWrite::Written => Ok(channel),
            ChannelWrite::LimitReached => {
                platform.disconnect(&channel.credentials, &channel.webhook_path()).await;
                Err(AppError::Rejected(channels_limit_reached()))
            }
        }
    }

    pub async fn list_channels(&self, p: &Principal, owner: &SourceOwner) -> Result<Vec<ConnectedChannel>, AppError> {
        self.own(p, owner).await?;
        Ok(self.ports.storage.channels.list_channels(p.workspace_id(), owner).await?)
    }

    pub async fn get_channel(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        id: &ChannelId,
    ) -> Result<ConnectedChannel, AppError> {
        self.own(p, owner).await?;
        self.ports.storage.channels.get_channel(p.workspace_id(), owner, id).await?.ok_or(AppError::NotFound("channel"))
    }

    /// Deletes the channel; what it set up on the platform is undone where the platform allows
    /// (Telegram's webhook). Its conversations stay.
    pub async fn delete_channel(&self, p: &Principal, owner: &SourceOwner, id: &ChannelId) -> Result<(), AppError> {
        let channel = self.get_channel(p, owner, id).await?;
        if !self.ports.storage.channels.delete_channel(p.workspace_id(), owner, id).await? {
            return Err(AppError::NotFound("channel"));
        }
        self.ports.shared.channel_platform.disconnect(&channel.credentials, &channel.webhook_path()).await;
        Ok(())
    }

    /// The channels of an owner about to be deleted: read before the owner goes (the embedded
    /// store deletes them with it), undone after with [`Self::delete_owner_channels`].
    pub(crate) async fn owner_channels(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
    ) -> Result<Vec<ConnectedChannel>, AppError> {
        Ok(self.ports.storage.channels.list_channels(ws, owner).await?)
    }

    /// Removes the channels of a deleted owner (`channels`, read before it went), undoing their
    /// platform set-up.
    pub(crate) async fn delete_owner_channels(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        channels: &[ConnectedChannel],
    ) -> Result<(), AppError> {
        for channel in channels {
            self.ports.shared.channel_platform.disconnect(&channel.credentials, &channel.webhook_path()).await;
        }
        Ok(self.ports.storage.channels.delete_owner_channels(ws, owner).await?)
    }

    // ---- the platforms' routes -----------------------------------------------------------------

    /// The channel a platform's request names; `not_found` when there is none of that platform.
    async fn platform_channel(&self, id: &ChannelId, kind: ChannelKind) -> Result<ConnectedChannel, AppError> {
        match self.ports.storage.channels.find_channel(id).await? {
            Some(c) if c.kind() == kind => Ok(c),
            _ => Err(AppError::NotFound("channel")),
        }
    }

    /// A request to a Slack channel's events route: signed (`X-Slack-Signature`, v0, within 5
    /// minutes; else `unauthorized`), then answered at once.
    pub async fn slack_event(
        &self,
        id: &ChannelId,
        timestamp: Option<&str>,
        signature: Option<&str>,
        body: &[u8],
    ) -> Result<SlackReply, AppError> {
        let channel = self.platform_channel(id, ChannelKind::Slack).await?;
        let Credentials::Slack { signing_secret, bot_user_id, .. } = &channel.credentials else {
            return Err(AppError::NotFound("channel"));
        };
        if !slack_signature_valid(signing_secret, timestamp, signature, body, Timestamp::now()) {
            return Err(unauthorized(
                "X-Slack-Signature does not match this channel's signing secret, or X-Slack-Request-Timestamp is \
                 more than 5 minutes away",
            ));
        }
        match inbound::slack(body, bot_user_id.as_deref()).map_err(|_| not_a_platform_request(ChannelKind::Slack))? {
            SlackRequest::UrlVerification { challenge } => Ok(SlackReply::Challenge(challenge)),
            SlackRequest::Ignored => Ok(SlackReply::Ack),
            SlackRequest::Message(m) => {
                self.receive(&channel, m).await?;
                Ok(SlackReply::Ack)
            }
        }
    }

    /// An update to a Telegram channel's route: it must carry the secret token Lore gave
    /// `setWebhook` (`X-Telegram-Bot-Api-Secret-Token`; else `unauthorized`).
    pub async fn telegram_update(&self, id: &ChannelId, secret: Option<&str>, body: &[u8]) -> Result<(), AppError> {
        let channel = self.platform_channel(id, ChannelKind::Telegram).await?;
        let Credentials::Telegram { secret_token, .. } = &channel.credentials else {
            return Err(AppError::NotFound("channel"));
        };
        if !secret.is_some_and(|s| secret_token.matches(s)) {
            return Err(unauthorized("X-Telegram-Bot-Api-Secret-Token does not match this channel's"));
        }
        match inbound::telegram(body).map_err(|_| not_a_platform_request(ChannelKind::Telegram))? {
            Some(m) => self.receive(&channel, m).await,
            None => Ok(()),
        }
    }

    /// Meta's check of a WhatsApp channel's route (`hub.mode=subscribe`): the challenge when
    /// the verify token is the channel's, else `forbidden`.
    pub async fn whatsapp_verify(
        &self,
        id: &ChannelId,
        mode: Option<&str>,
        token: Option<&str>,
        challenge: Option<&str>,
    ) -> Result<String, AppError> {
        let channel = self.platform_channel(id, ChannelKind::Whatsapp).await?;
        let Credentials::Whatsapp { verify_token, .. } = &channel.credentials else {
            return Err(AppError::NotFound("channel"));
        };
        match (mode, token, challenge) {
            (Some("subscribe"), Some(t), Some(c)) if verify_token.matches(t) => Ok(c.to_owned()),
            _ => Err(AppError::Rejected(DomainError::new(
                ErrorCode::Forbidden,
                "hub.verify_token does not match this channel's verify token (or hub.mode is not subscribe)",
            ))),
        }
    }

    /// A WhatsApp Cloud API webhook: signed with the app secret (`X-Hub-Signature-256`; else
    /// `unauthorized`); its text messages to this channel's number are answered.
    pub async fn whatsapp_messages(
        &self,
        id: &ChannelId,
        signature: Option<&str>,
        body: &[u8],
    ) -> Result<(), AppError> {
        let channel = self.platform_channel(id, ChannelKind::Whatsapp).await?;
        let Credentials::Whatsapp { app_secret, phone_number_id, .. } = &channel.credentials else {
            return Err(AppError::NotFound("channel"));
        };
        if !whatsapp_signature_valid(app_secret, signature, body) {
            return Err(unauthorized("X-Hub-Signature-256 does not match this channel's app secret"));
        }
        let messages = inbound::whatsapp(body, phone_number_id.as_str())
            .map_err(|_| not_a_platform_request(ChannelKind::Whatsapp))?;
        for m in messages {
            self.receive(&channel, m).await?;
        }
        Ok(())
    }

    /// Counts the message against the owner's public budget and queues its answer. Whether it
    /// was answered already (a redelivery) is the job's to tell: a message is remembered only
    /// once it is queued, so a queue that failed loses nothing (the platform sends it again).
    async fn receive(&self, channel: &ConnectedChannel, message: InboundMessage) -> Result<(), AppError> {
        let bucket = RateBucket::ChatOwner(channel.owner.clone());
        let limit = self.config.public_chat_per_mind_per_minute;
        if let RateDecision::Limited { retry_after_secs } =
            self.ports.storage.rate_limiter.hit(&bucket, limit, Timestamp::now()).await?
        {
            // The platform delivers it again later.
            return Err(AppError::Busy {
                what: "this chatbot or Mind receives too many messages".into(),
                retry_after_secs,
            });
        }
        let job = ChannelJob { workspace_id: channel.workspace_id.clone(), channel_id: channel.id.clone(), message };
        Ok(self.ports.storage.jobs.enqueue(job.into()).await?)
    }

    // ---- answering -----------------------------------------------------------------------------

    /// Answers a queued platform message in its thread's conversation and sends the answer.
    /// Each platform message is answered at most once: its delivery id is remembered before
    /// anything else (a redelivery, or the same job run again after a batch failed, stops there).
    /// `Err` only when the store failed before that, so a queue may deliver the job again; what
    /// goes wrong afterwards is logged and kept on the conversation, not retried (a retry would
    /// store the question twice).
    pub(crate) async fn run_channel_job(&self, job: ChannelJob) -> Result<(), AppError> {
        let store = &self.ports.storage.channels;
        let Some(channel) = store.find_channel(&job.channel_id).await? else { return Ok(()) };
        if channel.workspace_id != job.workspace_id {
            return Ok(());
        }
        if !store.remember_delivery(&channel.id, &job.message.delivery_id, Timestamp::now()).await? {
            tracing::debug!(channel = %channel.id, "a platform message answered already");
            return Ok(());
        }
        if let Err(e) = self.answer_channel_message(&channel, job.message).await {
            tracing::error!(channel = %channel.id, error = %e, "a platform message was not answered");
        }
        Ok(())
    }

    /// The conversation of the message's thread, the turn, and the answer sent.
    async fn answer_channel_message(&self, channel: &ConnectedChannel, m: InboundMessage) -> Result<(), AppError> {
        let (conversation, opened) = match self.thread_conversation(channel, &m).await {
            Ok(found) => found,
            // The owner is gone.
            Err(AppError::NotFound(_)) => return Ok(()),
            Err(e) => return Err(e),
        };
        if m.greeting {
            let welcome = opened.into_iter().find(|w| w.generated_by == Some(GeneratedBy::Welcome));
            if let Some(welcome) = welcome {
                self.send_on_channel(channel, &conversation, &welcome, None, written_in(&welcome)).await;
            }
            return Ok(());
        }
        let text: String = m.text.chars().take(MAX_CONTENT_CHARS).collect();
        let content = MessageContent::parse("text", Some(&text))?;
        let reply_to = m.reply_to.as_deref();
        let (conversation, answered) = match self.answer_on_channel(channel, &conversation, content.clone()).await {
            // A long thread goes on in a new conversation.
            Err(AppError::Rejected(e)) if e.code == ErrorCode::ConversationFull => {
                let (next, _) = self.open_thread_conversation(channel, &m, Some(&conversation.id)).await?;
                let answered = self.answer_on_channel(channel, &next, content).await;
                (next, answered)
            }
            answered => (conversation, answered),
        };
        match answered {
            Ok(Some((answer, language))) => {
                self.send_on_channel(channel, &conversation, &answer, reply_to, language).await
            }
            Ok(None) => {}
            Err(e) => {
                // Not answered (the model failed, the workspace stayed busy, the store failed):
                // the owner sees why on the conversation.
                let failure = PlatformFailure { message: format!("not answered: {e}"), at: Timestamp::now() };
                let ws = &channel.workspace_id;
                self.ports.storage.conversations.set_channel_error(ws, &conversation.id, Some(&failure)).await?;
                return Err(e);
            }
        }
        Ok(())
    }

    /// The answer of one turn and its language (`None` when nobody answers: the conversation is
    /// handed off).
    /// A workspace writing as many answers as it may is waited for, a few times.
    async fn answer_on_channel(
        &self,
        channel: &ConnectedChannel,
        conversation: &Conversation,
        content: MessageContent,
    ) -> Result<Option<(Message, Language)>, AppError> {
        let mut tries = 0;
        let turn = loop {
            match self.begin_turn(&channel.workspace_id, &channel.owner, &conversation.id, content.clone()).await {
                Err(AppError::Busy { retry_after_secs, .. }) if tries < BUSY_TRIES => {
                    tries += 1;
                    tokio::time::sleep(Duration::from_secs(retry_after_secs.clamp(1, 5))).await;
                }
                other => break other?,
            }
        };
        if turn.unanswered() {
            return Ok(None);
        }
        let language = turn.language();
        Ok(Some((self.finish_turn(turn, &NoSink).await?, language)))
    }

    /// The conversation of the message's thread or chat, with the messages it was opened with
    /// when it was opened now (a first message, or the previous conversation was deleted).
    async fn thread_conversation(
        &self,
        channel: &ConnectedChannel,
        m: &InboundMessage,
    ) -> Result<(Conversation, Vec<Message>), AppError> {
        let (ws, owner) = (&channel.workspace_id, &channel.owner);
        let bound = self.ports.storage.channels.thread_conversation(&channel.id, &m.thread.key()).await?;
        if let Some(id) = &bound
            && let Some(c) = self.ports.storage.conversations.get_conversation(ws, owner, id).await?
        {
            return Ok((c, Vec::new()));
        }
        self.open_thread_conversation(channel, m, bound.as_ref()).await
    }

    /// Opens a conversation for the thread and binds the thread to it (replacing `stale`), with
    /// the messages it was opened with; when a concurrent message bound the thread first, that
    /// conversation is used (with no messages) and this one deleted.
    async fn open_thread_conversation(
        &self,
        channel: &ConnectedChannel,
        m: &InboundMessage,
        stale: Option<&ConversationId>,
    ) -> Result<(Conversation, Vec<Message>), AppError> {
        let (ws, owner) = (&channel.workspace_id, &channel.owner);
        let name = m.user_name.as_ref().map(|n| n.chars().take(MAX_VISITOR_NAME).collect::<String>());
        let visitor = Visitor { email: None, name, user_id: UserId::parse(&m.user_id) };
        let link = ChannelLink { channel_id: channel.id.clone(), thread: m.thread.clone() };
        let kind = channel.kind().conversation_channel();
        let Transcript { conversation, messages } =
            self.open_conversation(ws, owner, kind, Some(visitor), None, false, Some(link)).await?;
        let store = &self.ports.storage.channels;
        let winner = store.bind_thread(&channel.id, &m.thread.key(), &conversation.id, stale).await?;
        if winner == conversation.id {
            return Ok((conversation, messages));
        }
        self.ports.storage.conversations.delete_conversation(ws, owner, &conversation.id).await?;
        Ok((self.find_conversation(ws, owner, &winner).await?, Vec::new()))
    }

    /// Sends `message` (an answer, a welcome, an agent's reply) to the conversation's thread, its
    /// sources titled in `language`; the outcome is kept on the channel and, when it failed for
    /// good, on the conversation.
    pub(crate) async fn send_on_channel(
        &self,
        channel: &ConnectedChannel,
        conversation: &Conversation,
        message: &Message,
        reply_to: Option<&str>,
        language: Language,
    ) {
        let Some(link) = &conversation.link else { return };
        let kind = channel.kind();
        let outgoing = OutboundMessage {
            thread: link.thread.clone(),
            reply_to: reply_to.map(str::to_owned),
            pieces: outbound::render(kind, &message.content, &message.citations, language),
        };
        let sent = self.ports.shared.channel_platform.send(&channel.credentials, &outgoing).await;
        let (ws, store) = (&channel.workspace_id, &self.ports.storage);
        let now = Timestamp::now();
        let recorded = match sent {
            Ok(()) => {
                let cleared = async {
                    if conversation.channel_error.is_some() {
                        store.conversations.set_channel_error(ws, &conversation.id, None).await?;
                    }
                    Ok::<_, crate::StoreError>(())
                };
                let health = store.channels.set_channel_health(&channel.id, ChannelStatus::Active, None, Some(now));
                let (a, b) = tokio::join!(cleared, health);
                a.and(b)
            }
            Err(e) => {
                tracing::warn!(channel = %channel.id, conversation = %conversation.id, error = %e, "a message did not reach {}", kind.display());
                let failure =
                    PlatformFailure { message: format!("{} did not take the message: {e}", kind.display()), at: now };
                let on_conversation = store.conversations.set_channel_error(ws, &conversation.id, Some(&failure));
                let on_channel =
                    store.channels.set_channel_health(&channel.id, ChannelStatus::Failing, Some(&failure), None);
                let (a, b) = tokio::join!(on_conversation, on_channel);
                a.and(b)
            }
        };
        if let Err(e) = recorded {
            tracing::error!(channel = %channel.id, error = %e, "a channel's outcome could not be stored");
        }
    }

    /// An agent's reply in a hand-off reaches the platform the conversation is held on, within
    /// [`RELAY_WITHIN`] (the agent's request waits for it: an API Gateway answers within 29 s).
    pub(crate) async fn relay_agent_reply(&self, conversation: &Conversation, reply: &Message) {
        let Some(link) = &conversation.link else { return };
        match self.ports.storage.channels.find_channel(&link.channel_id).await {
            Ok(Some(channel)) if channel.workspace_id == conversation.workspace_id => {
                let sent = self.send_on_channel(&channel, conversation, reply, None, written_in(reply));
                if tokio::time::timeout(RELAY_WITHIN, sent).await.is_err() {
                    let failure = PlatformFailure {
                        message: format!(
                            "{} did not take the agent's reply within {} s; it stays here",
                            channel.kind().display(),
                            RELAY_WITHIN.as_secs()
                        ),
                        at: Timestamp::now(),
                    };
                    let ws = &conversation.workspace_id;
                    let kept = self.ports.storage.conversations.set_channel_error(ws, &conversation.id, Some(&failure));
                    if let Err(e) = kept.await {
                        tracing::error!(conversation = %conversation.id, error = %e, "a relay's failure could not be kept");
                    }
                }
            }
            Ok(_) => {
                tracing::info!(conversation = %conversation.id, "the conversation's channel is gone; the reply stays in Lore")
            }
            Err(e) => {
                tracing::error!(conversation = %conversation.id, error = %e, "the conversation's channel could not be read")
            }
        }
    }
}
