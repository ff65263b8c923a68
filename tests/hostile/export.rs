//! A large export streams in bounded memory (docs/api.md §19, docs/limits.md): 20,000 messages of
//! 4,000 characters (~80 MB of JSONL, as much CSV) leave `lore serve`'s resident set within a
//! few MiB of where it was, in both formats.

use crate::support::{Server, serve};
use futures::StreamExt;
use lore_app::ports::{ChatbotStore, ConversationStore, WorkspaceStore};
use lore_domain::Timestamp;
use lore_domain::conversation::{Channel, Conversation, Message, MessageContent};
use lore_domain::id::ChatbotId;
use lore_domain::source::SourceOwner;
use serde_json::{Value, json};

const CONVERSATIONS: usize = 100;
const PER_CONVERSATION: usize = 200;
/// How far above its resident set before the export the server may go while streaming it.
const GROWTH_BUDGET_KIB: u64 = 48 * 1024;

/// Writes the conversations straight into the server's database file (a second pool on the same
/// file, as the CLI opens it): seeding 20,000 messages over HTTP would take most of the test.
async fn seed(server: &Server, chatbot: &str) {
    let store = lore_local::SqliteStore::open(&server.dir.path().join("lore.db")).expect("open the server's file");
    let id = ChatbotId::parse(chatbot).unwrap();
    let ws = workspace_of(&store, &id).await;
    let owner = SourceOwner::Chatbot(id);
    // Every character class CSV and JSON must carry: commas, quotes, line breaks, non-ASCII.
    let text: String = "Refunds, \"fast\"\nand fair — café 🙂. ".chars().cycle().take(4_000).collect();
    for i in 0..CONVERSATIONS {
        let t0 = Timestamp::from_millis(1_780_000_000_000 + i as i64 * 1_000_000);
        let mut c = Conversation::start(ws.clone(), owner.clone(), Channel::Api, None, t0);
        let messages: Vec<Message> = (0..PER_CONVERSATION)
            .map(|j| {
                let content = MessageContent::parse("content", Some(&text)).unwrap();
                Message::agent(c.id.clone(), content, Timestamp::from_millis(t0.millis() + j as i64))
            })
            .collect();
        c.message_count = messages.len() as u64;
        assert!(store.insert_conversation(&c, &messages, None).await.unwrap());
    }
}

/// The workspace the chatbot was created in (the server's default one).
async fn workspace_of(store: &lore_local::SqliteStore, id: &ChatbotId) -> lore_domain::id::WorkspaceId {
    for ws in store.list_workspaces().await.unwrap() {
        if store.get_chatbot(&ws.id, id).await.unwrap().is_some() {
            return ws.id;
        }
    }
    panic!("the chatbot is in no workspace");
}

/// Streams the export, counting its records; the server's peak resident set while it did.
async fn export(server: &Server, chatbot: &str, format: &str) -> (usize, u64, u64) {
    let url = server.url(&format!("/api/v1/chatbots/{chatbot}/conversations/export?format={format}"));
    let res = server.client.get(&url).bearer_auth(&server.key).send().await.unwrap();
    assert_eq!(res.status().as_u16(), 200);
    let mut stream = res.bytes_stream();
    let (mut bytes, mut peak, mut records) = (0u64, 0u64, 0usize);
    let mut line = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.expect("chunk");
        bytes += chunk.len() as u64;
        peak = peak.max(server.rss_kib());
        for b in chunk.iter() {
            if *b == b'\n' {
                if format == "jsonl" {
                    let v: Value = serde_json::from_slice(&line).expect("each line is one JSON object");
                    records += v["messages"].as_array().map_or(0, Vec::len);
                }
                line.clear();
            } else if format == "jsonl" {
                line.push(*b);
            }
        }
        if format == "csv" {
            // A row ends with CRLF; line breaks inside quoted content are bare LF.
            records += chunk.windows(2).filter(|w| w == b"\r\n").count();
        }
    }
    (records, bytes, peak)
}

#[tokio::test]
async fn an_export_of_20000_messages_streams_in_bounded_memory() {
    let server = serve(&[]);
    let res = server.client.post(server.url("/api/v1/chatbots")).bearer_auth(&server.key);
    let body: Value = res.json(&json!({"name": "Big"})).send().await.unwrap().json().await.unwrap();
    let chatbot = body["chatbot"]["id"].as_str().unwrap().to_owned();
    seed(&server, &chatbot).await;

    let before = server.rss_kib();
    let (messages, bytes, peak) = export(&server, &chatbot, "jsonl").await;
    assert_eq!(messages, CONVERSATIONS * PER_CONVERSATION, "every message exported");
    assert!(bytes > 80_000_000, "the export is larger than the budget it must stay within: {bytes} bytes");
    let growth = peak.saturating_sub(before);
    eprintln!("jsonl: {bytes} bytes, server {before} KiB before, peak {peak} KiB");
    assert!(growth < GROWTH_BUDGET_KIB, "JSONL export grew the server by {} MiB", growth / 1024);

    let before = server.rss_kib();
    let (rows, bytes, peak) = export(&server, &chatbot, "csv").await;
    // The header row and one row per message; CRLF only at row ends (content has bare LFs,
    // quoted).
    assert_eq!(rows, 1 + CONVERSATIONS * PER_CONVERSATION);
    assert!(bytes > 80_000_000, "{bytes} bytes");
    let growth = peak.saturating_sub(before);
    eprintln!("csv: {bytes} bytes, server {before} KiB before, peak {peak} KiB");
    assert!(growth < GROWTH_BUDGET_KIB, "CSV export grew the server by {} MiB", growth / 1024);
    server.assert_peak_within_budget("two exports of 20,000 messages");
}
