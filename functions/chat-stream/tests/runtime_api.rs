//! The built `chat-stream` binary, run as Lambda runs it against a Runtime API emulator, fed the
//! function-URL events of `events/chat-stream/`: it answers in the Lambda streaming protocol (an
//! HTTP prelude, then the body), and a conversation answer comes as server-sent events whose
//! citation quotes the knowledge it was given.

#[path = "../../runtime_api.rs"]
mod runtime_api;
#[allow(dead_code)]
#[path = "../../test_support.rs"]
mod support;

use lore_app::conversations::NoSink;
use lore_app::sources::NewSource;
use lore_domain::chatbot::NewChatbot;
use lore_domain::conversation::{Channel, MessageContent};
use lore_domain::source::SourceOwner;
use lore_domain::source::{SourceInput, SourceVocabulary};
use runtime_api::{Function, Posted, RuntimeApi};
use serde_json::Value;
use support::{Event, SAMPLE_CHATBOT_ID, Tenant};

const FUNCTION_NAME: &str = "chat-stream";
const PROGRAM: &str = env!("CARGO_BIN_EXE_chat-stream");
const SAMPLE_CONVERSATION_ID: &str = "conv_01jq3z5v7b8c9d0e1f2g3h4j5k";
const POLICY: &str = "Refunds are paid within fourteen days of the return reaching our warehouse.";

/// A chatbot with one ready text source and an empty conversation, in the tenant's data dir:
/// (chatbot id, conversation id).
async fn chatbot_with_knowledge(tenant: &Tenant) -> (String, String) {
    let mut c = lore::compose::embedded(tenant.dir.path(), "http://localhost:3000", &Default::default())
        .expect("the embedded composition opens");
    let jobs = c.jobs.take().expect("an in-process queue");
    let app = c.app;
    let p = app.authenticate_and_admit(Some(&format!("Bearer {}", tenant.key))).await.expect("the key works");
    let bot = app.create_chatbot(&p, NewChatbot::parse(Some("Support"), None, None).unwrap()).await.unwrap();
    let text = NewSource::parse(
        SourceVocabulary::Chatbot,
        SourceInput { source_type: Some("text"), name: Some("policy.md"), content: Some(POLICY), ..Default::default() },
    )
    .unwrap();
    let source = app.create_source(&p, &bot.id, text).await.unwrap();
    app.process_source(&p, &bot.id, &source.id).await.unwrap();
    while let Some(taken) = jobs.try_take() {
        app.run_job(taken.job.clone()).await.expect("the job runs");
    }
    let owner = SourceOwner::Chatbot(bot.id.clone());
    let t = app.start_conversation(&p, &owner, Channel::Api, None).await.unwrap();
    // One answered turn first, so the streamed one has history (and proves the stored shape reads back).
    let content = MessageContent::parse("content", Some("Hello")).unwrap();
    app.send_message(&p, &owner, &t.conversation.id, content, &NoSink).await.unwrap();
    (bot.id.to_string(), t.conversation.id.to_string())
}

/// The events of an SSE body, as (event, data).
fn events(body: &str) -> Vec<(String, Value)> {
    body.split("\n\n")
        .filter(|block| !block.trim().is_empty())
        .map(|block| {
            let name = block.lines().find_map(|l| l.strip_prefix("event: ")).unwrap_or("").to_owned();
            let data = block.lines().find_map(|l| l.strip_prefix("data: ")).unwrap_or("null");
            (name, serde_json::from_str(data).unwrap())
        })
        .collect()
}

#[tokio::test]
async fn binary_streams_an_answer_through_the_runtime_api() {
    let tenant = Tenant::new().await;
    let (bot, conversation) = chatbot_with_knowledge(&tenant).await;
    let mut runtime = RuntimeApi::start(FUNCTION_NAME).await;
    let data_dir = tenant.dir.path().to_str().unwrap();
    let mut function = Function::spawn(&runtime, PROGRAM, FUNCTION_NAME, &[("LORE_DATA_DIR", data_dir)]);

    let event = Event::load("send-message-stream.json")
        .with_key(&tenant.key)
        .with(SAMPLE_CHATBOT_ID, &bot)
        .with(SAMPLE_CONVERSATION_ID, &conversation);
    let (prelude, body) = match function.invoke(&mut runtime, "req-stream-1", event.json()).await {
        Posted::Streamed { request_id, prelude, body } => {
            assert_eq!(request_id, "req-stream-1");
            (prelude, body)
        }
        other => panic!("expected a streamed response, got {other:?}; log:\n{}", function.log()),
    };
    assert_eq!(prelude["statusCode"], 200, "{prelude}");
    assert_eq!(prelude["headers"]["content-type"], "text/event-stream", "{prelude}");
    let all = events(std::str::from_utf8(&body).unwrap());
    let names: Vec<&str> = all.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.first(), Some(&"citations"), "{names:?}");
    assert_eq!(names.last(), Some(&"done"), "{names:?}");
    assert!(names.contains(&"delta"));
    let message = &all.last().unwrap().1["message"];
    assert_eq!(message["generatedBy"], "extractive");
    assert_eq!(message["citations"][0]["quote"], POLICY, "{message}");
    assert!(message["content"].as_str().unwrap().contains("[1]"));

    // A refusal is an ordinary JSON answer through the same protocol.
    let bad = Event::load("send-message-stream.json")
        .with(SAMPLE_CHATBOT_ID, &bot)
        .with(SAMPLE_CONVERSATION_ID, &conversation);
    match function.invoke(&mut runtime, "req-stream-2", bad.json()).await {
        Posted::Streamed { prelude, body, .. } => {
            assert_eq!(prelude["statusCode"], 401, "{prelude}");
            let body: Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(body["error"]["code"], "unauthorized");
        }
        other => panic!("expected a streamed response, got {other:?}"),
    }
}

/// The service's own origin (`LORE_PUBLIC_BASE_URL`) in the public sample events: the page served
/// through API Gateway calls the function URL from there.
const PAGE_ORIGIN: &str = "https://abcdef1234.execute-api.eu-west-1.amazonaws.com";

/// A published chatbot's page streams its visitors' answers from the function URL: the browser's
/// CORS preflight is answered for the service's own origin, and the visitor's streamed create
/// comes as events with the CORS header (docs/api.md §18, "On AWS").
#[tokio::test]
async fn the_public_page_streams_from_the_function_url_across_origins() {
    let tenant = Tenant::new().await;
    let (bot, _) = chatbot_with_knowledge(&tenant).await;
    {
        let c = lore::compose::embedded(tenant.dir.path(), "http://localhost:3000", &Default::default())
            .expect("the embedded composition opens");
        let p = c.app.authenticate_and_admit(Some(&format!("Bearer {}", tenant.key))).await.unwrap();
        let id = lore_domain::id::ChatbotId::parse(&bot).unwrap();
        let published = c.app.publish_chatbot(&p, &id, true).await.unwrap();
        assert_eq!(published.slug.as_str(), "support", "the slug of the sample events");
    }
    let mut runtime = RuntimeApi::start(FUNCTION_NAME).await;
    let data_dir = tenant.dir.path().to_str().unwrap();
    let env = [("LORE_DATA_DIR", data_dir), ("LORE_PUBLIC_BASE_URL", PAGE_ORIGIN)];
    let mut function = Function::spawn(&runtime, PROGRAM, FUNCTION_NAME, &env);

    let preflight = Event::load("public-preflight.json");
    match function.invoke(&mut runtime, "req-preflight", preflight.json()).await {
        Posted::Streamed { prelude, .. } => {
            assert_eq!(prelude["statusCode"], 204, "{prelude}");
            assert_eq!(prelude["headers"]["access-control-allow-origin"], PAGE_ORIGIN, "{prelude}");
            let allowed = prelude["headers"]["access-control-allow-headers"].as_str().unwrap_or("");
            assert!(allowed.contains("Content-Type") && allowed.contains("Accept"), "{prelude}");
        }
        other => panic!("expected a streamed response, got {other:?}; log:\n{}", function.log()),
    }

    let open = Event::load("public-open-conversation-stream.json");
    let (prelude, body) = match function.invoke(&mut runtime, "req-public-open", open.json()).await {
        Posted::Streamed { prelude, body, .. } => (prelude, body),
        other => panic!("expected a streamed response, got {other:?}; log:\n{}", function.log()),
    };
    assert_eq!(prelude["statusCode"], 200, "{prelude}");
    assert_eq!(prelude["headers"]["content-type"], "text/event-stream", "{prelude}");
    assert_eq!(prelude["headers"]["access-control-allow-origin"], PAGE_ORIGIN, "{prelude}");
    let all = events(std::str::from_utf8(&body).unwrap());
    let (name, done) = all.last().expect("events");
    assert_eq!(name, "done", "{all:?}");
    assert_eq!(done["message"]["citations"][0]["quote"], POLICY, "{done}");
    assert!(done["visitorToken"].as_str().is_some_and(|t| t.starts_with("vt_")), "{done}");

    // Another origin is not answered CORS (the browser refuses to hand it the answer).
    let foreign = open.with(PAGE_ORIGIN, "https://evil.example");
    match function.invoke(&mut runtime, "req-foreign", foreign.json()).await {
        Posted::Streamed { prelude, .. } => {
            assert!(prelude["headers"].get("access-control-allow-origin").is_none(), "{prelude}");
        }
        other => panic!("expected a streamed response, got {other:?}"),
    }
}
