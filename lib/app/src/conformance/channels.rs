//! Channels (`ChannelStore`, and the conversation's `channel_error`): the per-owner limit checked
//! in the write (races included); creation order; one workspace and one owner only, but found by
//! id alone for the platform's requests; credentials kept exactly; health updates; deliveries
//! remembered once (races included); threads bound once, rebound only from a stale
//! conversation; everything gone with the channel and with the owner.

use crate::ports::{ChannelStore, ChannelWrite, ChatbotStore, ConversationStore, WorkspaceStore};
use lore_domain::Timestamp;
use lore_domain::channel::{
    ChannelLink, ChannelStatus, ChannelThread, ConnectedChannel, Credentials, PhoneNumberId, PlatformFailure, Secret,
};
use lore_domain::conversation::{Channel, Conversation};
use lore_domain::id::{ChannelId, ConversationId, WorkspaceId};
use lore_domain::source::SourceOwner;
use std::sync::Arc;

/// The channel store and what its owners and conversations need to exist.
#[derive(Clone)]
pub struct ChannelStores {
    pub workspaces: Arc<dyn WorkspaceStore>,
    pub chatbots: Arc<dyn ChatbotStore>,
    pub conversations: Arc<dyn ConversationStore>,
    pub channels: Arc<dyn ChannelStore>,
}

fn slack() -> Credentials {
    Credentials::Slack {
        bot_token: Secret::from_stored("xoxb-1234-5678-AbCdEf".into()),
        signing_secret: Secret::from_stored("8f742231b10e8888abcd99yyyzzz85a5".into()),
        bot_user_id: Some("U0BOT".into()),
    }
}

fn whatsapp() -> Credentials {
    Credentials::Whatsapp {
        access_token: Secret::from_stored("EAAG\"quoted\"'x'#{}".into()),
        phone_number_id: PhoneNumberId::from_stored("106540352242922".into()),
        app_secret: Secret::from_stored("app-secret".into()),
        verify_token: Secret::from_stored("verify-me".into()),
    }
}

fn channel(ws: &WorkspaceId, owner: &SourceOwner, credentials: Credentials, created_ms: i64) -> ConnectedChannel {
    ConnectedChannel::new(ws.clone(), owner.clone(), credentials, Timestamp::from_millis(created_ms))
}

/// A workspace with two chatbots (two owners).
async fn owners(stores: &ChannelStores, name: &str) -> (WorkspaceId, SourceOwner, SourceOwner) {
    let ws = super::workspace(name);
    stores.workspaces.insert_workspace(&ws).await.unwrap();
    let bot = super::chatbot(&ws.id, "bot", 1_700_000_000_000);
    stores.chatbots.insert_chatbot(&bot).await.unwrap();
    let other = super::chatbot(&ws.id, "other-bot", 1_700_000_000_001);
    stores.chatbots.insert_chatbot(&other).await.unwrap();
    (ws.id, SourceOwner::Chatbot(bot.id), SourceOwner::Chatbot(other.id))
}

fn ids(channels: &[ConnectedChannel]) -> Vec<&ChannelId> {
    channels.iter().map(|c| &c.id).collect()
}

pub async fn channels(stores: &ChannelStores, unique: &str) {
    let store = &stores.channels;
    let (ws, bot, other_bot) = owners(stores, &format!("{unique}-channels")).await;
    let (other_ws, _, _) = owners(stores, &format!("{unique}-channels-other")).await;

    // The limit counts; creation order; credentials round-trip exactly.
    let a = channel(&ws, &bot, slack(), 1_000);
    let b = channel(&ws, &bot, whatsapp(), 2_000);
    assert_eq!(store.insert_channel(&a, 2).await.unwrap(), ChannelWrite::Written);
    assert_eq!(store.insert_channel(&b, 2).await.unwrap(), ChannelWrite::Written);
    let c = channel(&ws, &bot, slack(), 3_000);
    assert_eq!(store.insert_channel(&c, 2).await.unwrap(), ChannelWrite::LimitReached, "the owner's limit");
    assert_eq!(store.insert_channel(&c, 3).await.unwrap(), ChannelWrite::Written);
    let listed = store.list_channels(&ws, &bot).await.unwrap();
    assert_eq!(ids(&listed), vec![&a.id, &b.id, &c.id], "creation order");
    assert_eq!(listed[1], b, "a WhatsApp channel round-trips");
    assert_eq!(store.get_channel(&ws, &bot, &a.id).await.unwrap(), Some(a.clone()), "a Slack channel round-trips");

    // One workspace and one owner; found by id alone.
    assert_eq!(store.get_channel(&other_ws, &bot, &a.id).await.unwrap(), None, "another workspace");
    assert_eq!(store.get_channel(&ws, &other_bot, &a.id).await.unwrap(), None, "another owner");
    assert!(store.list_channels(&ws, &other_bot).await.unwrap().is_empty());
    assert_eq!(store.find_channel(&a.id).await.unwrap(), Some(a.clone()), "by id alone");
    assert_eq!(store.find_channel(&ChannelId::generate()).await.unwrap(), None);

    // Health: the status and last error, kept until replaced; when it last answered.
    let failure = PlatformFailure { message: "channel_not_found".into(), at: Timestamp::from_millis(5_000) };
    store.set_channel_health(&a.id, ChannelStatus::Failing, Some(&failure), None).await.unwrap();
    let read = store.find_channel(&a.id).await.unwrap().unwrap();
    assert_eq!((read.status, read.last_error.as_ref()), (ChannelStatus::Failing, Some(&failure)));
    assert_eq!(read.last_message_at, None);
    store.set_channel_health(&a.id, ChannelStatus::Active, None, Some(Timestamp::from_millis(6_000))).await.unwrap();
    let read = store.get_channel(&ws, &bot, &a.id).await.unwrap().unwrap();
    assert_eq!(read.status, ChannelStatus::Active);
    assert_eq!(read.last_error.as_ref(), Some(&failure), "the last error stays for the owner to read");
    assert_eq!(read.last_message_at, Some(Timestamp::from_millis(6_000)));
    assert_eq!(read.credentials, a.credentials, "health updates keep the credentials");
    store.set_channel_health(&ChannelId::generate(), ChannelStatus::Failing, Some(&failure), None).await.unwrap();
    assert!(store.find_channel(&ChannelId::generate()).await.unwrap().is_none(), "no channel made by a health update");

    // Deliveries: remembered once per channel.
    let now = Timestamp::from_millis(10_000);
    assert!(store.remember_delivery(&a.id, "Ev0001", now).await.unwrap());
    assert!(!store.remember_delivery(&a.id, "Ev0001", now).await.unwrap(), "a redelivery");
    assert!(store.remember_delivery(&b.id, "Ev0001", now).await.unwrap(), "another channel's delivery");

    // Threads: bound once; rebound only from the stale conversation named.
    let thread = "C1:1700000000.000100";
    let (first, second) = (ConversationId::generate(), ConversationId::generate());
    assert_eq!(store.thread_conversation(&a.id, thread).await.unwrap(), None);
    assert_eq!(store.bind_thread(&a.id, thread, &first, None).await.unwrap(), first);
    assert_eq!(store.bind_thread(&a.id, thread, &second, None).await.unwrap(), first, "bound already");
    assert_eq!(store.thread_conversation(&a.id, thread).await.unwrap(), Some(first.clone()));
    assert_eq!(store.bind_thread(&a.id, thread, &second, Some(&second)).await.unwrap(), first, "not that stale one");
    assert_eq!(store.bind_thread(&a.id, thread, &second, Some(&first)).await.unwrap(), second, "rebound");
    assert_eq!(store.thread_conversation(&b.id, thread).await.unwrap(), None, "threads are per channel");

    // Deleted with its threads and deliveries.
    assert!(!store.delete_channel(&other_ws, &bot, &a.id).await.unwrap(), "another workspace cannot delete");
    assert!(store.delete_channel(&ws, &bot, &a.id).await.unwrap());
    assert!(!store.delete_channel(&ws, &bot, &a.id).await.unwrap(), "twice");
    assert_eq!(store.find_channel(&a.id).await.unwrap(), None);
    assert_eq!(store.thread_conversation(&a.id, thread).await.unwrap(), None, "its threads went with it");
    assert!(store.remember_delivery(&a.id, "Ev0001", now).await.unwrap(), "its deliveries went with it");
    let d = channel(&ws, &bot, slack(), 4_000);
    assert_eq!(store.insert_channel(&d, 3).await.unwrap(), ChannelWrite::Written, "a delete frees room");

    // Everything of an owner goes with it.
    store.delete_owner_channels(&ws, &bot).await.unwrap();
    assert!(store.list_channels(&ws, &bot).await.unwrap().is_empty());
    assert_eq!(store.find_channel(&b.id).await.unwrap(), None);
    let e = channel(&ws, &bot, slack(), 5_000);
    assert_eq!(store.insert_channel(&e, 1).await.unwrap(), ChannelWrite::Written, "the count went too");

    // A conversation's link and channel error.
    let mut conversation =
        Conversation::start(ws.clone(), bot.clone(), Channel::Slack, None, Timestamp::from_millis(7_000));
    conversation.link = Some(ChannelLink {
        channel_id: e.id.clone(),
        thread: ChannelThread { chat: "C1".into(), thread: Some("1700000000.000100".into()) },
    });
    assert!(stores.conversations.insert_conversation(&conversation, &[], None).await.unwrap());
    let convs = &stores.conversations;
    let read = convs.get_conversation(&ws, &bot, &conversation.id).await.unwrap().unwrap();
    assert_eq!((read.link.as_ref(), read.channel), (conversation.link.as_ref(), Channel::Slack));
    assert_eq!(read.channel_error, None);
    let failure =
        PlatformFailure { message: "Forbidden: bot was blocked by the user".into(), at: Timestamp::from_millis(8_000) };
    convs.set_channel_error(&other_ws, &conversation.id, Some(&failure)).await.unwrap();
    let read = convs.get_conversation(&ws, &bot, &conversation.id).await.unwrap().unwrap();
    assert_eq!(read.channel_error, None, "another workspace cannot set it");
    convs.set_channel_error(&ws, &conversation.id, Some(&failure)).await.unwrap();
    let read = convs.get_conversation(&ws, &bot, &conversation.id).await.unwrap().unwrap();
    assert_eq!(read.channel_error.as_ref(), Some(&failure));
    assert_eq!(read.link, conversation.link, "the rest of the conversation is kept");
    convs.set_channel_error(&ws, &conversation.id, None).await.unwrap();
    assert_eq!(convs.get_conversation(&ws, &bot, &conversation.id).await.unwrap().unwrap().channel_error, None);
    convs.set_channel_error(&ws, &ConversationId::generate(), Some(&failure)).await.unwrap();
}

/// Concurrent writers: a redelivery racing the first delivery is remembered once; concurrent
/// inserts do not pass the limit; concurrent bindings of one thread agree on one conversation.
pub async fn channel_races(stores: &ChannelStores, unique: &str) {
    let store = &stores.channels;
    let (ws, bot, _) = owners(stores, &format!("{unique}-channel-races")).await;
    let tries: Vec<_> = (0..4)
        .map(|i| {
            let (store, c) = (store.clone(), channel(&ws, &bot, slack(), 1_000 + i));
            tokio::spawn(async move { store.insert_channel(&c, 2).await.unwrap() })
        })
        .collect();
    let mut written = 0;
    for t in tries {
        written += usize::from(t.await.unwrap() == ChannelWrite::Written);
    }
    assert_eq!(written, 2, "exactly the limit");
    let a = store.list_channels(&ws, &bot).await.unwrap().remove(0);

    let now = Timestamp::now();
    let tries: Vec<_> = (0..4)
        .map(|_| {
            let (store, id) = (store.clone(), a.id.clone());
            tokio::spawn(async move { store.remember_delivery(&id, "Ev-race", now).await.unwrap() })
        })
        .collect();
    let mut first = 0;
    for t in tries {
        first += usize::from(t.await.unwrap());
    }
    assert_eq!(first, 1, "one delivery is answered once");

    let candidates: Vec<ConversationId> = (0..4).map(|_| ConversationId::generate()).collect();
    let tries: Vec<_> = candidates
        .iter()
        .map(|c| {
            let (store, id, c) = (store.clone(), a.id.clone(), c.clone());
            tokio::spawn(async move { store.bind_thread(&id, "D1:1.2", &c, None).await.unwrap() })
        })
        .collect();
    let mut bound = Vec::new();
    for t in tries {
        bound.push(t.await.unwrap());
    }
    assert!(bound.windows(2).all(|w| w[0] == w[1]), "every caller got the same conversation: {bound:?}");
    assert!(candidates.contains(&bound[0]));
    assert_eq!(store.thread_conversation(&a.id, "D1:1.2").await.unwrap().as_ref(), Some(&bound[0]));
}
