//! Conversations and messages: owner and workspace isolation, exact counts written with the
//! records, the message cap, oldest-first transcripts, deletes and the owner cascade; feedback,
//! status and corrections (docs/api.md §19).

use super::minds::MindStores;
use super::workspace;
use crate::ports::{Append, ConversationCursor};
use lore_domain::Timestamp;
use lore_domain::analytics::{Counts, Day, DayRange, Tally};
use lore_domain::chatbot::Chatbot;
use lore_domain::conversation::{
    Channel, Citation, Conversation, ConversationStatus, Email, Feedback, GeneratedBy, Message, MessageContent, Rating,
    Visitor,
};
use lore_domain::correction::{Correction, QuestionEmbedding};
use lore_domain::event::{Event, EventType};
use lore_domain::id::{ChatbotId, ConversationId, CorrectionId, SourceId, WorkspaceId};
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
    let theirs = s.count_conversations_since(&other.id, &owner, Timestamp::from_millis(0)).await.unwrap();
    assert_eq!(theirs, 0, "another workspace's owner id counts none");

    // Appends: oldest first, counted, capped.
    let (q, r) = (user(&a, "How long do refunds take?", 3_000), answer(&a, 3_001));
    let t = |ms: &[Message]| Tally::appended(&ws.id, &owner, ms, None);
    match s.append_messages(&ws.id, &a.id, &[q.clone(), r.clone()], 3, &t(&[])).await.unwrap() {
        Append::Appended(c) => {
            assert_eq!(c.message_count, 3);
            assert_eq!(c.updated_at, Timestamp::from_millis(3_001));
        }
        other => panic!("append: {other:?}"),
    }
    let transcript = s.list_messages(&ws.id, &a.id).await.unwrap();
    assert_eq!(transcript, vec![welcome.clone(), q.clone(), r.clone()], "every field round-trips, oldest first");
    // The last messages only (a turn's history): the end of the transcript, oldest first.
    assert_eq!(s.recent_messages(&ws.id, &a.id, 2).await.unwrap(), vec![q.clone(), r.clone()], "the last two");
    assert_eq!(s.recent_messages(&ws.id, &a.id, 1).await.unwrap(), vec![r.clone()]);
    assert_eq!(s.recent_messages(&ws.id, &a.id, 50).await.unwrap(), transcript, "fewer than asked: all");
    assert!(s.recent_messages(&ws.id, &a.id, 0).await.unwrap().is_empty());
    assert!(s.recent_messages(&other.id, &a.id, 50).await.unwrap().is_empty(), "another workspace's messages");
    assert!(s.recent_messages(&ws.id, &ConversationId::generate(), 5).await.unwrap().is_empty(), "no such one");
    assert!(s.recent_messages(&ws.id, &c.id, 5).await.unwrap().is_empty(), "no messages yet");
    assert_eq!(s.append_messages(&ws.id, &a.id, &[user(&a, "more", 4_000)], 3, &t(&[])).await.unwrap(), Append::Full);
    assert_eq!(s.list_messages(&ws.id, &a.id).await.unwrap().len(), 3, "a refused append stores nothing");
    assert_eq!(
        s.append_messages(&other.id, &a.id, &[user(&a, "x", 4_000)], 100, &t(&[])).await.unwrap(),
        Append::NotFound,
        "another workspace cannot append"
    );
    assert_eq!(
        s.append_messages(&ws.id, &ConversationId::generate(), &[user(&a, "x", 4_000)], 100, &t(&[])).await.unwrap(),
        Append::NotFound
    );

    // Concurrent appends at the cap: exactly the room left is taken.
    let racers = (0..6).map(|i| {
        let (s, ws, b, tally) = (s.clone(), ws.id.clone(), b.clone(), t(&[]));
        tokio::spawn(
            async move { s.append_messages(&ws, &b.id, &[user(&b, "race", 5_000 + i)], 4, &tally).await.unwrap() },
        )
    });
    let mut appended = 0;
    for r in futures::future::join_all(racers).await {
        if matches!(r.unwrap(), Append::Appended(_)) {
            appended += 1;
        }
    }
    assert_eq!(appended, 4, "the cap holds under concurrent appends");
    assert_eq!(s.get_conversation(&ws.id, &owner, &b.id).await.unwrap().unwrap().message_count, 4);
    let raced = s.list_messages(&ws.id, &b.id).await.unwrap();
    assert_eq!(s.recent_messages(&ws.id, &b.id, 3).await.unwrap(), raced[1..].to_vec(), "the newest three, in order");

    // Feedback (docs/api.md §19): set on the message with its event, once per call.
    let mut rated = s.list_messages(&ws.id, &a.id).await.unwrap()[2].clone();
    let feedback = Feedback { rating: Rating::Down, comment: Some("Vague.".into()), at: Timestamp::from_millis(6) };
    rated.feedback = Some(feedback.clone());
    let rated_event = Event::new(EventType::MessageRated, ws.id.clone(), serde_json::json!({"messageId": rated.id}));
    let rate = |w: &WorkspaceId, o: &SourceOwner, m: &Message| {
        let (s, w, o, m, f, e) = (s.clone(), w.clone(), o.clone(), m.clone(), feedback.clone(), rated_event.clone());
        async move { s.rate_message(&w, &o, &m.conversation_id, &m.id, &f, &e).await.unwrap() }
    };
    assert_eq!(rate(&other.id, &owner, &rated).await, None, "not from another workspace");
    assert_eq!(rate(&ws.id, &bot_owner, &rated).await, None, "not through another owner");
    assert_eq!(rate(&ws.id, &owner, &rated).await, Some(rated.clone()));
    assert_eq!(s.list_messages(&ws.id, &a.id).await.unwrap()[2], rated, "the feedback round-trips");
    let stray = user(&a, "never stored", 9_000);
    assert_eq!(rate(&ws.id, &owner, &stray).await, None, "an unknown message is not created");
    assert_eq!(s.list_messages(&ws.id, &a.id).await.unwrap().len(), 3);

    // Status: set for its owner only; round-trips.
    let handoff = ConversationStatus::Handoff;
    let why = Some("I want a person");
    assert_eq!(s.set_conversation_status(&ws.id, &bot_owner, &a.id, handoff, why, None).await.unwrap(), None);
    let set = s.set_conversation_status(&ws.id, &owner, &a.id, handoff, why, None).await.unwrap().unwrap();
    assert_eq!((set.status, set.message_count, set.handoff_reason.as_deref()), (handoff, 3, why));
    let read = s.get_conversation(&ws.id, &owner, &a.id).await.unwrap().unwrap();
    assert_eq!((read.status, read.handoff_reason.as_deref()), (handoff, why), "the reason round-trips");
    let open = s.set_conversation_status(&ws.id, &owner, &a.id, ConversationStatus::Open, None, None).await.unwrap();
    assert_eq!(open.map(|c| (c.status, c.handoff_reason)), Some((ConversationStatus::Open, None)));
    let read = s.get_conversation(&ws.id, &owner, &a.id).await.unwrap().unwrap();
    assert_eq!(read.handoff_reason, None, "handed back: the reason is gone");

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

fn at(day: &str, hh: u32) -> Timestamp {
    Timestamp::parse(&format!("{day}T{hh:02}:00:00.000Z")).unwrap()
}

fn cited(c: &Conversation, ms: Timestamp, sources: &[(&SourceId, &str)]) -> Message {
    let citations = sources
        .iter()
        .enumerate()
        .map(|(i, (id, name))| Citation {
            index: i as u32 + 1,
            source_id: (*id).clone(),
            source_name: (*name).into(),
            source_type: SourceType::parse("text").unwrap(),
            chunk_id: format!("{id}:0:0"),
            url: None,
            quote: "q".into(),
        })
        .collect();
    Message::assistant(c.id.clone(), "Yes [1].".into(), citations, GeneratedBy::Extractive, None, ms)
}

fn nothing(c: &Conversation, ms: Timestamp) -> Message {
    Message::assistant(c.id.clone(), "Nothing.".into(), Vec::new(), GeneratedBy::Extractive, None, ms)
}

/// Analytics (docs/api.md §19): exact daily counters written with the records, over several days
/// (one without any), under concurrent writes; top sources, unanswered questions, the range; a
/// deleted conversation keeps its counts but not its questions; the owner's delete takes all.
/// And the export walk (`conversations_before`): every conversation once, newest first.
pub async fn analytics(p: &MindStores, unique: &str) {
    let ws = workspace(&format!("stats-{unique}"));
    p.workspaces.insert_workspace(&ws).await.unwrap();
    let other = workspace(&format!("stats-other-{unique}"));
    p.workspaces.insert_workspace(&other).await.unwrap();
    let bot = Chatbot::create(
        ws.id.clone(),
        lore_domain::chatbot::NewChatbot::parse(Some("Bot"), None, None).unwrap(),
        Slug::parse("slug", &format!("stats-{unique}")).unwrap(),
        Timestamp::now(),
    );
    p.chatbots.insert_chatbot(&bot).await.unwrap();
    let s = &p.conversations;
    let owner = SourceOwner::Chatbot(bot.id.clone());
    let (d1, d3) = ("2026-03-01", "2026-03-03");
    let (pricing, faq) = (SourceId::generate(), SourceId::generate());

    // Day 1: a lead's conversation, two questions (one answered citing both sources, one not).
    let visitor = Visitor { email: Some(Email::parse("e", "v@example.com").unwrap()), name: None, user_id: None };
    let c1 = Conversation::start(ws.id.clone(), owner.clone(), Channel::Public, Some(visitor), at(d1, 9));
    let welcome = Message::assistant(c1.id.clone(), "Hi".into(), Vec::new(), GeneratedBy::Welcome, None, at(d1, 9));
    assert!(s.insert_conversation(&c1, std::slice::from_ref(&welcome), None).await.unwrap());
    let turn = |c: &Conversation, q: Message, a: Message| {
        let (s, ws, owner, c) = (s.clone(), ws.id.clone(), owner.clone(), c.clone());
        async move {
            let tq = Tally::appended(&ws, &owner, std::slice::from_ref(&q), None);
            assert!(matches!(
                s.append_messages(&ws, &c.id, std::slice::from_ref(&q), 200, &tq).await.unwrap(),
                Append::Appended(_)
            ));
            let ta = Tally::appended(&ws, &owner, std::slice::from_ref(&a), Some(&q));
            assert!(matches!(
                s.append_messages(&ws, &c.id, std::slice::from_ref(&a), 200, &ta).await.unwrap(),
                Append::Appended(_)
            ));
            a
        }
    };
    let a1 = turn(
        &c1,
        user(&c1, "Prices?", at(d1, 10).millis()),
        cited(&c1, at(d1, 10), &[(&pricing, "Pricing"), (&faq, "FAQ")]),
    )
    .await;
    let a2 = turn(&c1, user(&c1, "Opening hours?", at(d1, 11).millis()), nothing(&c1, at(d1, 11))).await;
    // Day 3 (day 2 has nothing): another conversation, answered citing the FAQ, renamed since.
    let c2 = Conversation::start(ws.id.clone(), owner.clone(), Channel::Api, None, at(d3, 8));
    assert!(s.insert_conversation(&c2, &[], None).await.unwrap());
    let a3 = turn(&c2, user(&c2, "Refunds?", at(d3, 8).millis()), cited(&c2, at(d3, 8), &[(&faq, "FAQ (2026)")])).await;
    let a4 = turn(&c2, user(&c2, "Parking?", at(d3, 9).millis()), nothing(&c2, at(d3, 9))).await;
    // An agent's message counts nothing.
    let agent = Message::agent(c2.id.clone(), MessageContent::parse("content", Some("Hello")).unwrap(), at(d3, 10));
    let ta = Tally::appended(&ws.id, &owner, std::slice::from_ref(&agent), None);
    assert!(ta.is_empty());
    s.append_messages(&ws.id, &c2.id, std::slice::from_ref(&agent), 200, &ta).await.unwrap();

    // Ratings count on the answer's day; a second rating replaces the first.
    let rate = |m: &Message, r: Rating| {
        let (s, ws, owner, m) = (s.clone(), ws.id.clone(), owner.clone(), m.clone());
        async move {
            let f = Feedback { rating: r, comment: None, at: Timestamp::now() };
            let e = Event::new(EventType::MessageRated, ws.clone(), serde_json::json!({}));
            s.rate_message(&ws, &owner, &m.conversation_id, &m.id, &f, &e).await.unwrap().unwrap()
        }
    };
    rate(&a1, Rating::Up).await;
    rate(&a3, Rating::Down).await;
    rate(&a3, Rating::Up).await;
    rate(&a4, Rating::Down).await;

    let range = DayRange::for_report(Some(d1), Some(d3), Day::parse(d3).unwrap()).unwrap();
    let got = s.analytics(&ws.id, &owner, &range).await.unwrap();
    let day = |d: &str| got.days.iter().filter(|(x, _)| x.to_string() == d).map(|(_, c)| *c).next().unwrap_or_default();
    assert_eq!(
        day(d1),
        Counts { conversations: 1, messages: 2, leads: 1, answered: 1, unanswered: 1, ratings_up: 1, ratings_down: 0 }
    );
    assert_eq!(day("2026-03-02"), Counts::default(), "a day without conversations");
    assert_eq!(
        day(d3),
        Counts { conversations: 1, messages: 2, leads: 0, answered: 1, unanswered: 1, ratings_up: 1, ratings_down: 1 }
    );
    let top: Vec<_> =
        got.top_sources.iter().map(|t| (t.source_id.clone(), t.source_name.as_str(), t.citations)).collect();
    assert_eq!(
        top,
        vec![(faq.clone(), "FAQ (2026)", 2), (pricing.clone(), "Pricing", 1)],
        "most cited first, latest name"
    );
    let questions: Vec<_> = got.unanswered.iter().map(|q| (q.question.as_str(), q.message_id.clone())).collect();
    assert_eq!(questions, vec![("Parking?", a4.id.clone()), ("Opening hours?", a2.id.clone())], "newest first");
    assert_eq!(got.unanswered[0].conversation_id, c2.id);

    // The range bounds everything; another workspace sees nothing.
    let only_d1 = DayRange::for_report(Some(d1), Some(d1), Day::parse(d1).unwrap()).unwrap();
    let got1 = s.analytics(&ws.id, &owner, &only_d1).await.unwrap();
    assert_eq!(got1.unanswered.len(), 1);
    assert_eq!(got1.top_sources.iter().map(|t| t.citations).sum::<u64>(), 2);
    assert_eq!(got1.days.len(), 1);
    let theirs = s.analytics(&other.id, &owner, &range).await.unwrap();
    assert!(theirs.days.is_empty() && theirs.top_sources.is_empty() && theirs.unanswered.is_empty());

    // Concurrency: 20 ratings of one message and 20 messages at once, counted exactly.
    let racers = (0..20).map(|i| {
        let (rate_it, m) = (
            rate(&a1, if i % 2 == 0 { Rating::Down } else { Rating::Up }),
            user(&c1, "again?", at(d1, 12).millis() + i),
        );
        let (s, ws, owner, c1) = (s.clone(), ws.id.clone(), owner.clone(), c1.clone());
        tokio::spawn(async move {
            let t = Tally::appended(&ws, &owner, std::slice::from_ref(&m), None);
            let (_, appended) =
                tokio::join!(rate_it, s.append_messages(&ws, &c1.id, std::slice::from_ref(&m), 200, &t));
            assert!(matches!(appended.unwrap(), Append::Appended(_)));
        })
    });
    for r in futures::future::join_all(racers).await {
        r.unwrap();
    }
    let after = s.analytics(&ws.id, &owner, &only_d1).await.unwrap().days[0].1;
    assert_eq!(after.messages, 22, "every message once");
    assert_eq!(after.ratings_up + after.ratings_down, 1, "one message holds one rating, whatever the races");
    let stored = s.list_messages(&ws.id, &c1.id).await.unwrap().into_iter().find(|m| m.id == a1.id).unwrap();
    let up = stored.feedback.unwrap().rating == Rating::Up;
    assert_eq!(
        (after.ratings_up, after.ratings_down),
        if up { (1, 0) } else { (0, 1) },
        "the stored rating is the counted one"
    );

    // The export walk: newest first, each once, only this owner's.
    let c3 = Conversation::start(ws.id.clone(), owner.clone(), Channel::Api, None, at(d3, 8));
    assert!(s.insert_conversation(&c3, &[], None).await.unwrap());
    let mut seen = Vec::new();
    let mut cursor: Option<ConversationCursor> = None;
    loop {
        let page = s.conversations_before(&ws.id, &owner, cursor.as_ref(), 2).await.unwrap();
        let Some(last) = page.last() else { break };
        cursor = Some(ConversationCursor::after(last));
        seen.extend(page.into_iter().map(|c| c.id));
    }
    let mut same_time = [c2.id.clone(), c3.id.clone()];
    same_time.sort_by(|a, b| b.cmp(a));
    assert_eq!(seen, vec![same_time[0].clone(), same_time[1].clone(), c1.id.clone()], "createdAt desc, id desc");
    assert!(s.conversations_before(&other.id, &owner, None, 10).await.unwrap().is_empty(), "another workspace's");

    // A deleted conversation keeps its counts; its unanswered question (the visitor's words) goes.
    assert!(s.delete_conversation(&ws.id, &owner, &c2.id).await.unwrap());
    let got = s.analytics(&ws.id, &owner, &range).await.unwrap();
    assert_eq!(got.unanswered.iter().map(|q| q.question.as_str()).collect::<Vec<_>>(), vec!["Opening hours?"]);
    assert_eq!(got.days.iter().map(|(_, c)| c.conversations).sum::<i64>(), 3);

    // The owner's delete takes its analytics.
    assert!(p.chatbots.delete_chatbot(&ws.id, &bot.id).await.unwrap());
    s.delete_owner_conversations(&ws.id, &owner).await.unwrap();
    let gone = s.analytics(&ws.id, &owner, &range).await.unwrap();
    assert!(gone.days.is_empty() && gone.top_sources.is_empty() && gone.unanswered.is_empty(), "{gone:?}");
}
