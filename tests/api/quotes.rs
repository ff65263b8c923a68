//! Citation quotes that support the sentence they mark (docs/api.md §17): a model answers several
//! claims, each marked with the passage it comes from, on knowledge whose chunks open with
//! headings and mix topics; every stored citation quotes the part of its chunk that says what
//! its marker claims.

use crate::conversations::events;
use crate::support::{TestApp, parts};
use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use reqwest::Method;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

const SERVICES: &str = "# Services\n\nPricing and how an engagement works\n\nWe advise hospitals, logistics firms \
    and retailers on their data platforms. We never take work from the defence or tobacco industries. Every \
    engagement is led by one of the two founders.";
const PRICING: &str = "## Pricing and how an engagement works\n\nEvery engagement starts with a free thirty-minute \
    call. An audit takes two weeks and costs 4,800 euros, paid when the report is delivered. Longer projects are \
    billed monthly at a rate agreed in advance. We do not work for defence or tobacco companies.";
const HEADINGS: [&str; 3] =
    ["# Services", "Pricing and how an engagement works", "## Pricing and how an engagement works"];
const QUESTION: &str = "Which industries do you work with, and how much does an engagement cost?";
/// The model's answer: `{services.md}` and `{pricing.md}` become the numbers the prompt gave those
/// passages. Several claims per passage, one marker in the middle of a sentence.
const ANSWER: &str = "They advise hospitals, logistics firms and retailers {services.md}, and they turn down defence \
    and tobacco work {services.md}. An audit costs 4,800 euros, paid once the report is delivered {pricing.md}. \
    Longer projects are billed monthly {pricing.md}.";

/// An OpenAI-compatible chat server that answers [`ANSWER`], citing each source by the number its
/// passage has in the prompt (a real model cites what it reads, in whatever order it was given).
async fn citing_model() -> String {
    async fn complete(State(answer): State<Arc<String>>, body: axum::body::Bytes) -> Response {
        let request: Value = serde_json::from_slice(&body).unwrap();
        let system = request["messages"][0]["content"].as_str().unwrap().to_owned();
        let mut text = answer.to_string();
        // Passages are listed as `[n] (from "name")`.
        for (i, _) in system.match_indices("] (from \"") {
            let open = system[..i].rfind('[').unwrap();
            let name_start = i + "] (from \"".len();
            let name = &system[name_start..name_start + system[name_start..].find('"').unwrap()];
            text = text.replace(&format!("{{{name}}}"), &format!("[{}]", &system[open + 1..i]));
        }
        assert!(!text.contains('{'), "every cited source was among the passages: {system}");
        let chunk = json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "stub-model",
            "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]});
        let body = format!("data: {chunk}\n\ndata: [DONE]\n\n");
        ([("content-type", "text/event-stream")], body).into_response()
    }
    let app = Router::new().route("/v1/chat/completions", post(complete)).with_state(Arc::new(ANSWER.to_owned()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    base_url
}

/// Content words, compared by their first five letters (a test's own crude stemming, independent
/// of the service's).
fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && (w.chars().count() >= 4 || w.chars().all(|c| c.is_ascii_digit())))
        .map(|w| w.to_lowercase().chars().take(5).collect())
        .filter(|w: &String| !["they", "their", "with", "from", "when", "once", "does", "much"].contains(&w.as_str()))
        .collect()
}

/// The share of a claim's content words its quote holds.
fn support(claim: &str, quote: &str) -> f64 {
    let claimed = words(claim);
    claimed.intersection(&words(quote)).count() as f64 / claimed.len().max(1) as f64
}

/// For each marker of `content`, the sentences (split at ". ") that carry it, markers removed.
/// Coarser than the service's reading (a marker in the middle of a sentence is counted for the
/// whole sentence), so the bar is a share of the words, not all of them.
fn claims_of(content: &str) -> BTreeMap<u64, Vec<String>> {
    let mut out: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for sentence in content.split(". ") {
        let mut bare = sentence.to_owned();
        let mut marks = Vec::new();
        while let Some(open) = bare.find('[') {
            let close = open + bare[open..].find(']').unwrap();
            marks.push(bare[open + 1..close].parse::<u64>().unwrap());
            bare.replace_range(open..=close, "");
        }
        marks.dedup();
        for n in marks {
            out.entry(n).or_default().push(bare.clone());
        }
    }
    out
}

/// Every citation of `message` quotes its own chunk verbatim, no heading, and holds at least half
/// the content words of each sentence that cites it. Returns quotes by source name.
async fn assert_quotes_support_claims(t: &TestApp, message: &Value) -> BTreeMap<String, String> {
    let content = message["content"].as_str().unwrap();
    let claims = claims_of(content);
    let citations = message["citations"].as_array().unwrap();
    assert_eq!(citations.len(), 2, "{message}");
    let mut quotes = BTreeMap::new();
    for c in citations {
        let quote = c["quote"].as_str().unwrap();
        let chunks = t.chunk_texts(c["sourceId"].as_str().unwrap()).await;
        assert!(chunks.iter().any(|chunk| chunk.contains(quote)), "{quote:?} is verbatim chunk text");
        assert!(!HEADINGS.contains(&quote) && !quote.starts_with('#'), "a heading is no quote: {quote:?}");
        let marked = &claims[&c["index"].as_u64().unwrap()];
        for claim in marked {
            let s = support(claim, quote);
            assert!(s >= 0.5, "{quote:?} supports {claim:?} ({s:.2} of its words)");
        }
        quotes.insert(c["sourceName"].as_str().unwrap().to_owned(), quote.to_owned());
    }
    quotes
}

#[tokio::test]
async fn each_citation_quotes_what_supports_the_sentences_that_cite_it() {
    let model = citing_model().await;
    let mut config = lore_chat::OpenAiResponderConfig::new(None);
    config.base_url = model;
    config.model = "stub-model".into();
    let responder = Arc::new(lore_chat::OpenAiResponder::new(config).unwrap());
    let t = TestApp::spawn_with(lore::compose::Overrides { responder: Some(responder), ..Default::default() }).await;
    let bot = t.chatbot().await;
    for (name, content) in [("services.md", SERVICES), ("pricing.md", PRICING)] {
        let (status, body) =
            t.post_source(&t.dev_key, &bot, json!({"type": "text", "name": name, "content": content})).await;
        assert_eq!(status, 201, "{body}");
        let id = body["source"]["id"].as_str().unwrap().to_owned();
        t.process(&bot, &id).await;
        assert_eq!(t.settle(&bot, &id).await["status"], "ready");
    }
    let path = format!("/api/v1/chatbots/{bot}/conversations");
    let res = t.req(Method::POST, &path, &t.dev_key).json(&json!({"message": QUESTION})).send().await.unwrap();
    let (status, created) = parts(res).await;
    assert_eq!(status, 201, "{created}");
    let answer = &created["messages"][1];
    assert_eq!(answer["generatedBy"], "llm");
    let quotes = assert_quotes_support_claims(&t, answer).await;
    assert_eq!(
        quotes["services.md"],
        "We advise hospitals, logistics firms and retailers on their data platforms. We never take work from the \
         defence or tobacco industries."
    );
    assert_eq!(
        quotes["pricing.md"],
        "An audit takes two weeks and costs 4,800 euros, paid when the report is delivered. Longer projects are \
         billed monthly at a rate agreed in advance."
    );

    // Streamed: the early `citations` event has the quotes chosen for the question; `done`, and
    // the message as read later, the ones chosen for the claims.
    let conv = created["conversation"]["id"].as_str().unwrap();
    let res = t
        .req(Method::POST, &format!("{path}/{conv}/messages"), &t.dev_key)
        .header("accept", "text/event-stream")
        .json(&json!({"content": QUESTION}))
        .send()
        .await
        .unwrap();
    let all = events(&res.text().await.unwrap());
    let (name, done) = all.last().unwrap();
    assert_eq!(name, "done", "{all:?}");
    let streamed = assert_quotes_support_claims(&t, &done["message"]).await;
    assert_eq!(streamed, quotes, "the same answer, the same quotes");
    let early: BTreeMap<&str, &str> = all[0].1["citations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["sourceName"].as_str().unwrap(), c["quote"].as_str().unwrap()))
        .collect();
    for (source, quote) in &quotes {
        eprintln!("{source}: for the question {:?}\n{source}: for the claims   {quote:?}", early[source.as_str()]);
    }
    let res = t.req(Method::GET, &format!("{path}/{conv}"), &t.dev_key).send().await.unwrap();
    let (_, read) = parts(res).await;
    assert_eq!(read["messages"][1], *answer, "stored as answered");
    assert_eq!(read["messages"][3], done["message"], "stored as streamed");
    t.stop().await;
}

#[tokio::test]
async fn an_extractive_answer_cites_exactly_the_text_it_answers_with() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    for (name, content) in [("services.md", SERVICES), ("pricing.md", PRICING)] {
        let (_, body) =
            t.post_source(&t.dev_key, &bot, json!({"type": "text", "name": name, "content": content})).await;
        let id = body["source"]["id"].as_str().unwrap().to_owned();
        t.process(&bot, &id).await;
        assert_eq!(t.settle(&bot, &id).await["status"], "ready");
    }
    let path = format!("/api/v1/chatbots/{bot}/conversations");
    let res = t.req(Method::POST, &path, &t.dev_key).json(&json!({"message": QUESTION})).send().await.unwrap();
    let (status, created) = parts(res).await;
    assert_eq!(status, 201, "{created}");
    let answer = &created["messages"][1];
    assert_eq!(answer["generatedBy"], "extractive");
    let content = answer["content"].as_str().unwrap();
    let citations = answer["citations"].as_array().unwrap();
    assert_eq!(citations.len(), 2, "{answer}");
    for c in citations {
        let quote = c["quote"].as_str().unwrap();
        assert!(content.contains(&format!("{quote} [{}]", c["index"])), "{quote:?} is what {content:?} says");
        assert!(!HEADINGS.contains(&quote) && !quote.starts_with('#'), "a heading is no answer: {quote:?}");
    }
    t.stop().await;
}
