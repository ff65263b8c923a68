//! The analytics report of a busy chatbot: `GET …/analytics` of `lore serve` (embedded backend)
//! over 90 days for an owner with 100,000 messages, against the same report computed by scanning
//! the messages themselves (one SQL statement on the same database file, what a store without
//! counters would run). Budget: p99 ≤ 50 ms.
//!
//! The conversations are written through the conversation store's own writes (a conversation
//! with its welcome message, then each question and each answer appended with its tally), as
//! `lore serve` writes them, spread evenly over the 90 days; every tenth answer finds nothing and
//! every fifth is rated.

use crate::{Options, Result, Section, percentile, verdict};
use lore_app::ports::{ChatbotStore, ConversationStore};
use lore_domain::Timestamp;
use lore_domain::analytics::Tally;
use lore_domain::conversation::{
    Channel, Citation, Conversation, Feedback, GeneratedBy, Message, MessageContent, Rating,
};
use lore_domain::event::{Event, EventType};
use lore_domain::id::{ChatbotId, SourceId};
use lore_domain::source::{SourceOwner, SourceType};
use serde_json::json;
use std::fmt::Write;
use std::time::Instant;

const DAYS: i64 = 90;
const BUDGET_P99_MS: f64 = 50.0;

pub fn run(o: &Options) -> Result<Section> {
    let messages = if o.quick { 10_000 } else { 100_000 };
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let m = rt.block_on(measure(messages, if o.quick { 30 } else { 200 }))?;
    let (p50, p99) = (percentile(&m.ours_ms, 50.0), percentile(&m.ours_ms, 99.0));
    let (s50, s99) = (percentile(&m.scan_ms, 50.0), percentile(&m.scan_ms, 99.0));
    let met = p99 <= BUDGET_P99_MS;
    let mut md = String::new();
    md.push_str("### Conversation analytics\n\n");
    let _ = writeln!(
        md,
        "A chatbot of `lore serve` (embedded backend) with {} messages in {} conversations over {DAYS} days \
         (written in {:.1} s through the store's writes, daily counters included). *Report* is `GET \
         /api/v1/chatbots/{{id}}/analytics` over the 90 days through HTTP, {} times; *scan* computes the same day \
         counts from the messages (`json_extract` over every message of the owner, grouped by day) on the same \
         file, {} times.\n",
        m.messages,
        m.conversations,
        m.setup_secs,
        m.ours_ms.len(),
        m.scan_ms.len()
    );
    md.push_str("| measure | p50 ms | p99 ms |\n|---|---:|---:|\n");
    let _ = writeln!(md, "| report (HTTP, counters) | {p50:.2} | {p99:.2} |");
    let _ = writeln!(md, "| scan of the messages (SQL) | {s50:.2} | {s99:.2} |");
    let _ = writeln!(
        md,
        "\nBudget: report p99 ≤ {BUDGET_P99_MS} ms: {} ({:.0}× faster than the scan at p50).\n",
        verdict(met),
        s50 / p50
    );
    Ok(Section { markdown: md, met: vec![("analytics p99 ≤ 50 ms at 100k messages".into(), met)] })
}

struct Measured {
    messages: usize,
    conversations: usize,
    setup_secs: f64,
    ours_ms: Vec<f64>,
    scan_ms: Vec<f64>,
}

fn day_start(days_ago: i64) -> i64 {
    let now = Timestamp::now().millis();
    (now - now.rem_euclid(86_400_000)) - days_ago * 86_400_000
}

async fn measure(messages: usize, runs: usize) -> Result<Measured> {
    let dir = tempfile::tempdir()?;
    let running = lore::serve::start(lore::serve::ServeConfig {
        addr: "127.0.0.1:0".parse()?,
        data_dir: dir.path().to_path_buf(),
        backend: lore::compose::Backend::Local,
        overrides: lore::compose::Overrides {
            embedder: Some(std::sync::Arc::new(lore_embed::LocalEmbedder::new())),
            ..Default::default()
        },
    })
    .await
    .map_err(|e| e.to_string())?;
    let (ws, api) = crate::bench_workspace(&running, "analytics-bench").await?;
    let bot = api.post("/api/v1/chatbots", &json!({"name": "analytics bench"})).await?;
    let bot = ChatbotId::parse(bot["chatbot"]["id"].as_str().ok_or("no chatbot id")?).ok_or("bad chatbot id")?;
    let store = running.store.clone().ok_or("the embedded store")?;
    store.get_chatbot(&ws.id, &bot).await?.ok_or("the chatbot is stored")?;
    let owner = SourceOwner::Chatbot(bot.clone());
    let sources: Vec<SourceId> = (0..25).map(|_| SourceId::generate()).collect();

    // Five messages a conversation: the welcome message and two questions with their answers.
    let started = Instant::now();
    let conversations = messages / 5;
    let span = DAYS * 86_400_000;
    let first = day_start(DAYS - 1);
    for i in 0..conversations {
        let t = first + (i as i64 * span) / conversations as i64;
        let at = |k: i64| Timestamp::from_millis(t + k);
        let mut c = Conversation::start(ws.id.clone(), owner.clone(), Channel::Public, None, at(0));
        let welcome = Message::assistant(c.id.clone(), "Hello.".into(), vec![], GeneratedBy::Welcome, None, at(0));
        c.message_count = 1;
        store.insert_conversation(&c, std::slice::from_ref(&welcome), None).await?;
        for turn in 0..2usize {
            let n = i * 2 + turn;
            let content = MessageContent::parse("content", Some(&format!("Question {n} about refunds?")))?;
            let q = Message::user(c.id.clone(), content, at(1 + turn as i64 * 2));
            let tally = Tally::appended(&ws.id, &owner, std::slice::from_ref(&q), None);
            store.append_messages(&ws.id, &c.id, std::slice::from_ref(&q), 200, &tally).await?;
            let citations = if n % 10 == 0 {
                vec![]
            } else {
                let s = &sources[n % sources.len()];
                vec![Citation {
                    index: 1,
                    source_id: s.clone(),
                    source_name: format!("source {}", n % sources.len()),
                    source_type: SourceType::parse("text").ok_or("source type")?,
                    chunk_id: format!("{s}:0:0"),
                    url: None,
                    quote: "Refunds take 14 days.".into(),
                }]
            };
            let a = Message::assistant(
                c.id.clone(),
                "An answer [1].".into(),
                citations,
                GeneratedBy::Extractive,
                None,
                at(2 + turn as i64 * 2),
            );
            let tally = Tally::appended(&ws.id, &owner, std::slice::from_ref(&a), Some(&q));
            store.append_messages(&ws.id, &c.id, std::slice::from_ref(&a), 200, &tally).await?;
            if n % 5 == 0 {
                let f =
                    Feedback { rating: if n % 3 == 0 { Rating::Down } else { Rating::Up }, comment: None, at: at(5) };
                let e = Event::new(EventType::MessageRated, ws.id.clone(), json!({}));
                store.rate_message(&ws.id, &owner, &c.id, &a.id, &f, &e).await?;
            }
        }
    }
    let setup_secs = started.elapsed().as_secs_f64();
    eprintln!("  analytics: {messages} messages in {conversations} conversations, {setup_secs:.1} s");

    let today = lore_domain::analytics::Day::of(Timestamp::now());
    let from = lore_domain::analytics::Day::of(Timestamp::from_millis(first));
    let path = format!("/api/v1/chatbots/{bot}/analytics?from={from}&to={today}");
    let check = api.get(&path).await?;
    let counted = check["analytics"]["totals"]["messages"].as_u64().unwrap_or(0) as usize;
    if counted != conversations * 2 {
        return Err(format!("the report counts {counted} user messages, {} were written", conversations * 2).into());
    }
    let mut ours_ms = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let res = api.client.get(format!("{}{path}", api.base)).bearer_auth(&api.key).send().await?;
        res.bytes().await?;
        ours_ms.push(t.elapsed().as_secs_f64() * 1e3);
    }

    // The peer: the day counts from the messages, on a connection of its own to the same file.
    let db = rusqlite::Connection::open(dir.path().join("lore.db"))?;
    let scan = "SELECT date(m.created_at / 1000, 'unixepoch') AS day,
                       SUM(json_extract(m.body, '$.role') = 'user'),
                       SUM(json_extract(m.body, '$.answered') = 1 AND json_extract(m.body, '$.generatedBy') <> 'welcome'),
                       SUM(json_extract(m.body, '$.answered') = 0),
                       SUM(json_extract(m.body, '$.feedback.rating') = 'up'),
                       SUM(json_extract(m.body, '$.feedback.rating') = 'down')
                FROM messages m JOIN conversations c ON c.id = m.conversation_id
                WHERE c.owner_id = ?1 AND m.created_at >= ?2 GROUP BY day";
    let mut scan_ms = Vec::new();
    for _ in 0..runs.min(30) {
        let t = Instant::now();
        let mut st = db.prepare_cached(scan)?;
        let days: Vec<(String, i64)> = st
            .query_map(rusqlite::params![bot.as_str(), first], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        std::hint::black_box(days);
        scan_ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    running.stop().await.map_err(|e| e.to_string())?;
    Ok(Measured { messages: conversations * 5, conversations, setup_secs, ours_ms, scan_ms })
}
