//! Conversations and messages: owner and workspace isolation, exact counts written with the
//! records, the message cap, oldest-first transcripts, deletes and the owner cascade; feedback,
//! status and corrections (docs/api.md §19).

use super::minds::MindStores;
use super::workspace;
use crate::ports::Append;
use lore_domain::Timestamp;
use lore_domain::chatbot::Chatbot;
use lore_domain::conversation::{
    Channel, Citation, Conversation, ConversationStatus, Email, Feedback, GeneratedBy, Message, MessageContent, Rating,
    Visitor,
};
use lore_domain::correction::{Correction, QuestionEmbedding};
use lore_domain::event::{Event, EventType};
use lore_domain::id::{ChatbotId, ConversationId, CorrectionId, SourceId};
use lore_domain::mind::{Field, Mind, NewMind, RawMind};
use lore_domain::pagination::PageRequest;
use lore_domain::slug::Slug;
use lore_domain::source::{SourceOwner, SourceType};

fn user(c: &Conversation, text: &str, ms: i64) -> Message {
    Message::user(c.id.clone(), MessageContent::parse("content", Some(text)).unwrap(), Timestamp::from_millis(ms))
}

fn answer(c: &Conversation, ms: i64) -> Message {
    let citation = Citation {
        index: 1,
        source_id: SourceId::generate(),
        source_name: "policy.md".into(),
        source_type: SourceType::parse("text").unwrap(),
        chunk_id: "src_x:0:0".into(),
        url: Some("https://example.com/p".into()),
        quote: "Refunds take 14 days.".into(),
    };
    Message::assistant(
        c.id.clone(),
        "Refunds take 14 days [1].".into(),
        vec![citation],
        GeneratedBy::Llm,
        Some("m".into()),
        Timestamp::from_millis(ms),
    )
}

pub async fn conversations(p: &MindStores, unique: &str) {
    let ws = workspace(&format!("conv-{unique}"));
    p.workspaces.insert_workspace(&ws).await.unwrap();
    let other = workspace(&format!("conv-other-{unique}"));
    p.workspaces.insert_workspace(&other).await.unwrap();
    let raw = RawMind { name: Field::Value("Ada".into()), ..Default::default() };
    let mind = Mind::create(
        ws.id.clone(),
        NewMind::parse(&raw).unwrap(),
        Slug::parse("slug", &format!("conv-{unique}")).unwrap(),
        Timestamp::now(),
    );
    p.minds.insert_mind(&mind, 100).await.unwrap();
    let bot = Chatbot::create(
        ws.id.clone(),
        lore_domain::chatbot::NewChatbot::parse(Some("Bot"), None, None).unwrap(),
        Slug::parse("slug", &format!("conv-bot-{unique}")).unwrap(),
        Timestamp::now(),
    );
    p.chatbots.insert_chatbot(&bot).await.unwrap();
    let s = &p.conversations;
    let owner = SourceOwner::Mind(mind.id.clone());
    let bot_owner = SourceOwner::Chatbot(bot.id.clone());

    // A conversation with its welcome message; the visitor and channel round-trip.
    let visitor =
        Visitor { email: Some(Email::parse("e", "ada@example.com").unwrap()), name: Some("Ada".into()), user_id: None };
    let mut a =
        Conversation::start(ws.id.clone(), owner.clone(), Channel::Api, Some(visitor), Timestamp::from_millis(1_000));
    let welcome = Message::assistant(a.id.clone(), "Hi!".into(), Vec::new(), GeneratedBy::Welcome, None, a.created_at);
    a.message_count = 1;
    assert!(s.insert_conversation(&a, std::slice::from_ref(&welcome), None).await.unwrap());
    assert_eq!(s.get_conversation(&ws.id, &owner, &a.id).await.unwrap().as_ref(), Some(&a), "round-trips");
    let b = Conversation::start(ws.id.clone(), owner.clone(), Channel::Public, None, Timestamp::from_millis(2_000));
    assert!(s.insert_conversation(&b, &[], None).await.unwrap());
    let now = Timestamp::now();
    let c = Conversation::start(ws.id.clone(), bot_owner.clone(), Channel::Api, None, now);
    assert!(s.insert_conversation(&c, &[], None).await.unwrap());

    // Isolation: another owner, another workspace, an owner that does not exist.
    assert_eq!(s.get_conversation(&ws.id, &bot_owner, &a.id).await.unwrap(), None, "another owner's");
    assert_eq!(s.get_conversation(&other.id, &owner, &a.id).await.unwrap(), None, "another workspace's");
    assert!(s.list_messages(&other.id, &a.id).await.unwrap().is_empty(), "another workspace's messages");
    let ghost = Conversation::start(other.id.clone(), owner.clone(), Channel::Api, None, now);
    assert!(!s.insert_conversation(&ghost, &[], None).await.unwrap(), "the owner is not in that workspace");
    let missing = SourceOwner::Chatbot(ChatbotId::generate());
    let ghost = Conversation::start(ws.id.clone(), missing, Channel::Api, None, now);
    assert!(!s.insert_conversation(&ghost, &[], None).await.unwrap(), "no such owner");

    // Counts: on the owner, exact, with the records.
    assert_eq!(p.minds.get_mind(&ws.id, &mind.id).await.unwrap().unwrap().conversation_count, 2);
    assert_eq!(p.chatbots.get_chatbot(&ws.id, &bot.id).await.unwrap().unwrap().conversation_count, 1);
    let page = s.list_conversations(&ws.id, &owner, PageRequest::new(1, 1)).await.unwrap();
    assert_eq!((page.total, page.items.len()), (2, 1));
    assert_eq!(page.items[0].id, b.id, "newest first");
    let page = s.list_conversations(&ws.id, &owner, PageRequest::new(2, 1)).await.unwrap();
    assert_eq!(page.items[0].id, a.id);
    assert_eq!(s.list_conversations(&other.id, &owner, PageRequest::new(1, 20)).await.unwrap().items.len(), 0);
    let recent = s.count_conversations_since(&ws.id, &owner, Timestamp::from_millis(1_500)).await.unwrap();
    assert_eq!(recent, 1, "created at or after");
    assert_eq!(s.count_conversations_since(&ws.id, &bot_owner, Timestamp::from_millis(0)).await.unwrap(), 1);

    // Appends: oldest first, counted, capped.
    let (q, r) = (user(&a, "How long do refunds take?", 3_000), answer(&a, 3_001));
    match s.append_messages(&ws.id, &a.id, &[q.clone(), r.clone()], 3).await.unwrap() {
        Append::Appended(c) => {
            assert_eq!(c.message_count, 3);
            assert_eq!(c.updated_at, Timestamp::from_millis(3_001));
        }
        other => panic!("append: {other:?}"),
    }
    let transcript = s.list_messages(&ws.id, &a.id).await.unwrap();
    assert_eq!(transcript, vec![welcome.clone(), q, r], "every field round-trips, oldest first");
    assert_eq!(s.append_messages(&ws.id, &a.id, &[user(&a, "more", 4_000)], 3).await.unwrap(), Append::Full);
    assert_eq!(s.list_messages(&ws.id, &a.id).await.unwrap().len(), 3, "a refused append stores nothing");
    assert_eq!(
        s.append_messages(&other.id, &a.id, &[user(&a, "x", 4_000)], 100).await.unwrap(),
        Append::NotFound,
        "another workspace cannot append"
    );
    assert_eq!(
        s.append_messages(&ws.id, &ConversationId::generate(), &[user(&a, "x", 4_000)], 100).await.unwrap(),
        Append::NotFound
    );

    // Concurrent appends at the cap: exactly the room left is taken.
    let racers = (0..6).map(|i| {
        let (s, ws, b) = (s.clone(), ws.id.clone(), b.clone());
        tokio::spawn(async move { s.append_messages(&ws, &b.id, &[user(&b, "race", 5_000 + i)], 4).await.unwrap() })
    });
    let mut appended = 0;
    for r in futures::future::join_all(racers).await {
        if matches!(r.unwrap(), Append::Appended(_)) {
            appended += 1;
        }
    }
    assert_eq!(appended, 4, "the cap holds under concurrent appends");
    assert_eq!(s.get_conversation(&ws.id, &owner, &b.id).await.unwrap().unwrap().message_count, 4);

    // Feedback (docs/api.md §19): the message replaced with its event, once per call.
    let mut rated = s.list_messages(&ws.id, &a.id).await.unwrap()[2].clone();
    rated.feedback =
        Some(Feedback { rating: Rating::Down, comment: Some("Vague.".into()), at: Timestamp::from_millis(6) });
    let rated_event = Event::new(EventType::MessageRated, ws.id.clone(), serde_json::json!({"messageId": rated.id}));
    assert!(!s.replace_message(&other.id, &rated, Some(&rated_event)).await.unwrap(), "not from another workspace");
    assert!(s.replace_message(&ws.id, &rated, Some(&rated_event)).await.unwrap());
    assert_eq!(s.list_messages(&ws.id, &a.id).await.unwrap()[2], rated, "the feedback round-trips");
    let stray = user(&a, "never stored", 9_000);
    assert!(!s.replace_message(&ws.id, &stray, None).await.unwrap(), "an unknown message is not created");
    assert_eq!(s.list_messages(&ws.id, &a.id).await.unwrap().len(), 3);

    // Status: set for its owner only; round-trips.
    let handoff = ConversationStatus::Handoff;
    assert_eq!(s.set_conversation_status(&ws.id, &bot_owner, &a.id, handoff, None).await.unwrap(), None);
    let set = s.set_conversation_status(&ws.id, &owner, &a.id, handoff, None).await.unwrap().unwrap();
    assert_eq!((set.status, set.message_count), (handoff, 3));
    assert_eq!(s.get_conversation(&ws.id, &owner, &a.id).await.unwrap().unwrap().status, handoff);
    let open = s.set_conversation_status(&ws.id, &owner, &a.id, ConversationStatus::Open, None).await.unwrap();
    assert_eq!(open.unwrap().status, ConversationStatus::Open);

    // Corrections: per owner, newest first, replaced by id, deleted once, gone with the owner.
    let correction = |o: &SourceOwner, q: &str, ms: i64| Correction {
        id: CorrectionId::generate(),
        workspace_id: ws.id.clone(),
        owner: o.clone(),
        question: q.into(),
        content: "Ten days.".into(),
        embedding: Some(QuestionEmbedding { model: "m".into(), vector: vec![0.25, -1.5, 3.0] }),
        created_at: Timestamp::from_millis(ms),
    };
    let (c1, mut c2, c3) =
        (correction(&owner, "How long?", 10), correction(&owner, "Where?", 20), correction(&bot_owner, "Who?", 30));
    for c in [&c1, &c2, &c3] {
        s.put_correction(c).await.unwrap();
    }
    assert_eq!(s.list_corrections(&ws.id, &owner).await.unwrap(), vec![c2.clone(), c1.clone()], "newest first");
    assert!(s.list_corrections(&other.id, &owner).await.unwrap().is_empty(), "another workspace's");
    c2.content = "Lyon.".into();
    c2.embedding = None;
    s.put_correction(&c2).await.unwrap();
    assert_eq!(s.list_corrections(&ws.id, &owner).await.unwrap()[0], c2, "replaced in place");
    assert!(!s.delete_correction(&ws.id, &bot_owner, &c1.id).await.unwrap(), "not through another owner");
    assert!(s.delete_correction(&ws.id, &owner, &c1.id).await.unwrap());
    assert!(!s.delete_correction(&ws.id, &owner, &c1.id).await.unwrap(), "once");
    assert_eq!(s.list_corrections(&ws.id, &owner).await.unwrap(), vec![c2.clone()]);

    // Deletes: the conversation, its messages and its count.
    assert!(!s.delete_conversation(&ws.id, &bot_owner, &a.id).await.unwrap(), "not through another owner");
    assert!(!s.delete_conversation(&other.id, &owner, &a.id).await.unwrap(), "not from another workspace");
    assert!(s.delete_conversation(&ws.id, &owner, &a.id).await.unwrap());
    assert!(!s.delete_conversation(&ws.id, &owner, &a.id).await.unwrap(), "once");
    assert_eq!(s.get_conversation(&ws.id, &owner, &a.id).await.unwrap(), None);
    assert!(s.list_messages(&ws.id, &a.id).await.unwrap().is_empty(), "its messages are gone");
    assert_eq!(p.minds.get_mind(&ws.id, &mind.id).await.unwrap().unwrap().conversation_count, 1);

    // The owner's delete: every conversation goes with it.
    assert!(p.minds.delete_mind(&ws.id, &mind.id).await.unwrap().is_some());
    s.delete_owner_conversations(&ws.id, &owner).await.unwrap();
    assert_eq!(s.get_conversation(&ws.id, &owner, &b.id).await.unwrap(), None);
    assert!(s.list_messages(&ws.id, &b.id).await.unwrap().is_empty());
    assert_eq!(s.list_conversations(&ws.id, &owner, PageRequest::new(1, 20)).await.unwrap().total, 0);
    assert!(s.get_conversation(&ws.id, &bot_owner, &c.id).await.unwrap().is_some(), "another owner's stay");
    assert!(s.list_corrections(&ws.id, &owner).await.unwrap().is_empty(), "its corrections went with it");
    assert_eq!(s.list_corrections(&ws.id, &bot_owner).await.unwrap(), vec![c3], "another owner's stay");
}
