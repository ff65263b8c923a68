//! Public chat (docs/api.md §17, "Public chat") over HTTP, on whichever backend the run uses:
//! visitors of a published Mind talk to it without a key, each conversation opened only by its
//! visitor token; the e-mail gate, hidden sources and the per-address budget.

use crate::support::{TestApp, expect_error, parts};
use reqwest::Method;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const POLICY: &str = "Refunds are paid within fourteen days of the return. Shipping costs are not refunded.";

impl TestApp {
    /// A published Mind with one ready source and `settings` applied; its id and slug.
    async fn published_mind(&self, settings: Value) -> (String, String) {
        let mind = self.mind(&self.dev_key, json!({"name": "Ada", "welcomeMessage": "Hello, visitor."})).await;
        let id = mind["id"].as_str().unwrap().to_owned();
        let res = self.req(Method::PATCH, &format!("/api/v1/minds/{id}"), &self.dev_key).json(&settings).send();
        assert_eq!(res.await.unwrap().status(), 200);
        let res = self.req(Method::POST, &format!("/api/v1/minds/{id}/knowledge"), &self.dev_key);
        let (status, body) = parts(res.json(&json!({"type": "text", "content": POLICY})).send().await.unwrap()).await;
        assert_eq!(status, 201, "{body}");
        let source = body["source"]["id"].as_str().unwrap().to_owned();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let res = self.req(Method::GET, &format!("/api/v1/minds/{id}/knowledge/{source}"), &self.dev_key);
            let (_, s) = parts(res.send().await.unwrap()).await;
            if s["source"]["status"] == "ready" {
                break;
            }
            assert!(Instant::now() < deadline, "{s}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let res = self.req(Method::POST, &format!("/api/v1/minds/{id}/publish"), &self.dev_key).json(&json!({}));
        let (status, published) = parts(res.send().await.unwrap()).await;
        assert_eq!(status, 200, "{published}");
        (id, mind["slug"].as_str().unwrap().to_owned())
    }

    /// A request without any key, optionally with a visitor token.
    fn visitor(&self, path: &str, token: Option<&str>) -> reqwest::RequestBuilder {
        let req = self.client.post(self.url(path));
        match token {
            Some(t) => req.header("authorization", format!("Visitor {t}")),
            None => req,
        }
    }
}

#[tokio::test]
async fn visitors_open_their_own_conversations_of_published_minds_only() {
    let t = TestApp::spawn().await;
    let (mind, slug) = t.published_mind(json!({})).await;
    let (status, a) = parts(t.visitor(&format!("/m/{slug}/conversations"), None).send().await.unwrap()).await;
    assert_eq!(status, 201, "an empty body opens a conversation: {a}");
    assert_eq!(a["conversation"]["channel"], "public");
    assert_eq!(a["messages"][0]["content"], "Hello, visitor.");
    let token_a = a["visitorToken"].as_str().unwrap().to_owned();
    assert!(token_a.starts_with("vt_"));
    let conv_a = a["conversation"]["id"].as_str().unwrap().to_owned();
    let (_, b) = parts(
        t.visitor(&format!("/m/{slug}/conversations"), None)
            .json(&json!({"message": "How long do refunds take?"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(b["messages"].as_array().unwrap().len(), 3, "welcome, question, answer: {b}");
    assert!(b["messages"][2]["content"].as_str().unwrap().contains("fourteen days"));
    assert_eq!(b["messages"][2]["citations"][0]["sourceType"], "text");
    let (token_b, conv_b) = (b["visitorToken"].as_str().unwrap().to_owned(), b["conversation"]["id"].as_str().unwrap());

    let ask = |conv: &str, token: Option<&str>| {
        t.visitor(&format!("/m/{slug}/conversations/{conv}/messages"), token)
            .json(&json!({"content": "Are shipping costs refunded?"}))
            .send()
    };
    let (status, answered) = parts(ask(&conv_a, Some(&token_a)).await.unwrap()).await;
    assert_eq!(status, 201, "{answered}");
    assert!(answered["message"]["content"].as_str().unwrap().contains("Shipping costs are not refunded"));
    // Another visitor's token, a malformed one, none, or a key: not found.
    expect_error(ask(&conv_a, Some(&token_b)).await.unwrap(), 404, "not_found").await;
    expect_error(ask(conv_b, Some(&token_a)).await.unwrap(), 404, "not_found").await;
    expect_error(ask(&conv_a, Some("vt_123")).await.unwrap(), 404, "not_found").await;
    expect_error(ask(&conv_a, None).await.unwrap(), 404, "not_found").await;
    let keyed = t
        .client
        .post(t.url(&format!("/m/{slug}/conversations/{conv_a}/messages")))
        .bearer_auth(&t.dev_key)
        .json(&json!({"content": "hi"}))
        .send()
        .await
        .unwrap();
    expect_error(keyed, 404, "not_found").await;

    // The owner reads visitors' conversations with conversations:read.
    let (_, listed) =
        parts(t.req(Method::GET, &format!("/api/v1/minds/{mind}/conversations"), &t.dev_key).send().await.unwrap())
            .await;
    assert_eq!(listed["pagination"]["total"], 2);
    assert!(listed["conversations"].as_array().unwrap().iter().all(|c| c["channel"] == "public"));

    // Unpublished, unknown: 404, and a visitor's token stops working.
    let res =
        t.req(Method::POST, &format!("/api/v1/minds/{mind}/publish"), &t.dev_key).json(&json!({"isPublished": false}));
    assert_eq!(res.send().await.unwrap().status(), 200);
    expect_error(t.visitor(&format!("/m/{slug}/conversations"), None).send().await.unwrap(), 404, "not_found").await;
    expect_error(ask(&conv_a, Some(&token_a)).await.unwrap(), 404, "not_found").await;
    expect_error(t.visitor("/m/no-such-mind/conversations", None).send().await.unwrap(), 404, "not_found").await;
    t.stop().await;
}

#[tokio::test]
async fn the_email_gate_and_hidden_sources_apply_to_visitors_only() {
    let t = TestApp::spawn().await;
    let (mind, slug) = t.published_mind(json!({"collectEmailBeforeChat": true, "showSources": false})).await;
    let open = |body: Value| t.visitor(&format!("/m/{slug}/conversations"), None).json(&body).send();
    let e = expect_error(open(json!({"message": "hi"})).await.unwrap(), 400, "email_required").await;
    assert!(e["error"]["details"]["fields"]["visitor.email"].is_string(), "{e}");
    expect_error(open(json!({"visitor": {"name": "Ada"}})).await.unwrap(), 400, "email_required").await;
    let e = expect_error(open(json!({"visitor": {"email": "<script>"}})).await.unwrap(), 400, "validation_error").await;
    assert!(!e.to_string().contains("<script>"), "no reflected content: {e}");

    let body = json!({"visitor": {"email": "ada@example.com", "name": "Ada"}, "message": "How long do refunds take?"});
    let (status, opened) = parts(open(body).await.unwrap()).await;
    assert_eq!(status, 201, "{opened}");
    assert_eq!(opened["conversation"]["visitor"]["email"], "ada@example.com");
    let answer = &opened["messages"][2];
    assert!(answer["content"].as_str().unwrap().contains("fourteen days"), "{answer}");
    assert!(!answer["content"].as_str().unwrap().contains('['), "no markers: {answer}");
    assert_eq!(answer["citations"], json!([]));

    // Streamed: an empty citations event and deltas without markers.
    let (conv, token) = (opened["conversation"]["id"].as_str().unwrap(), opened["visitorToken"].as_str().unwrap());
    let res = t
        .visitor(&format!("/m/{slug}/conversations/{conv}/messages"), Some(token))
        .header("accept", "text/event-stream")
        .json(&json!({"content": "Are shipping costs refunded?"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let text = res.text().await.unwrap();
    assert!(text.starts_with("event: citations\ndata: {\"citations\":[]}"), "{text}");
    assert!(text.contains("Shipping costs are not refunded") && !text.contains("[1]"), "{text}");

    // The owner's API still has them.
    let (_, read) = parts(
        t.req(Method::GET, &format!("/api/v1/minds/{mind}/conversations/{conv}"), &t.dev_key).send().await.unwrap(),
    )
    .await;
    let stored = &read["messages"][2];
    assert!(stored["content"].as_str().unwrap().contains("[1]"), "{stored}");
    assert_eq!(stored["citations"].as_array().unwrap().len(), 1);
    t.stop().await;
}

#[tokio::test]
async fn one_address_sends_at_most_twenty_public_requests_a_minute() {
    let t = TestApp::spawn().await;
    let (_, slug) = t.published_mind(json!({})).await;
    for i in 0..20 {
        let res = t.visitor(&format!("/m/{slug}/conversations"), None).send().await.unwrap();
        assert_eq!(res.status(), 201, "request {i}");
    }
    let res = t.visitor(&format!("/m/{slug}/conversations"), None).send().await.unwrap();
    let retry: u64 = res.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry));
    let e = expect_error(res, 429, "rate_limited").await;
    assert!(e["error"]["message"].as_str().unwrap().contains("this address"), "{e}");
    t.stop().await;
}

#[tokio::test]
async fn a_mind_takes_at_most_its_budget_from_all_addresses_together() {
    let t = TestApp::spawn_with(lore::compose::Overrides {
        public_chat_per_mind_per_minute: Some(5),
        ..Default::default()
    })
    .await;
    let (_, slug) = t.published_mind(json!({})).await;
    let (_, other) = t.published_mind(json!({})).await;
    // Five visitors from five addresses (loopback answers all of 127.0.0.0/8), one request each.
    let from =
        |last: u8| reqwest::Client::builder().local_address(std::net::IpAddr::from([127, 0, 0, last])).build().unwrap();
    for last in 2..7 {
        let res = from(last).post(t.url(&format!("/m/{slug}/conversations"))).send().await.unwrap();
        assert_eq!(res.status(), 201, "address 127.0.0.{last}");
    }
    let res = from(7).post(t.url(&format!("/m/{slug}/conversations"))).send().await.unwrap();
    assert!(res.headers().contains_key("retry-after"));
    let e = expect_error(res, 429, "rate_limited").await;
    assert!(e["error"]["message"].as_str().unwrap().contains("this Mind"), "{e}");
    // Another Mind has its own budget.
    let res = from(7).post(t.url(&format!("/m/{other}/conversations"))).send().await.unwrap();
    assert_eq!(res.status(), 201);
    t.stop().await;
}

#[tokio::test]
async fn a_gated_conversation_is_a_lead_delivered_to_its_subscribers() {
    use crate::receiver::Receiver;
    let t = TestApp::spawn_webhooks("200ms,200ms").await;
    let rx = Receiver::start().await;
    let (mind, slug) = t.published_mind(json!({"collectEmailBeforeChat": true})).await;
    let other = t.mind(&t.dev_key, json!({"name": "Other"})).await["id"].as_str().unwrap().to_owned();
    let hook = t.hook(json!({"hookUrl": rx.url("/leads"), "event": "mind.lead.captured", "mindId": mind})).await;
    assert_eq!((hook["event"].as_str(), hook["mindId"].as_str()), (Some("mind.lead.captured"), Some(mind.as_str())));
    t.hook(json!({"hookUrl": rx.url("/other"), "event": "mind.lead.captured", "mindId": other})).await;
    t.hook(json!({"hookUrl": rx.url("/forms")})).await;
    let (status, refused) = t.subscribe(&t.dev_key, json!({"hookUrl": rx.url("/x"), "mindId": mind})).await;
    assert_eq!(status, 400, "mindId narrows lead subscriptions only: {refused}");

    let body = json!({"visitor": {"email": "ada@example.com", "name": "Ada"}});
    let (status, opened) =
        parts(t.visitor(&format!("/m/{slug}/conversations"), None).json(&body).send().await.unwrap()).await;
    assert_eq!(status, 201, "{opened}");
    let got = rx.next(Duration::from_secs(20)).await;
    assert_eq!(got.path, "/leads");
    standardwebhooks::Webhook::new(hook["secret"].as_str().unwrap())
        .unwrap()
        .verify(&got.body, &got.headers)
        .expect("the lead delivery verifies with the Standard Webhooks library");
    let env = got.json();
    assert_eq!(env["eventType"], "mind.lead.captured");
    assert_eq!(
        env["data"],
        json!({"mindId": mind, "conversationId": opened["conversation"]["id"], "email": "ada@example.com", "name": "Ada",
               "userId": null})
    );
    rx.expect_none(Duration::from_millis(500)).await;

    // The sample endpoint shows the event's shape.
    let res = t.req(
        Method::GET,
        &format!("/api/integrations/webhooks/triggers/sample?event=mind.lead.captured&mindId={mind}"),
        &t.dev_key,
    );
    let (status, samples) = parts(res.send().await.unwrap()).await;
    assert_eq!(status, 200, "{samples}");
    assert_eq!(samples[0]["eventType"], "mind.lead.captured");
    assert_eq!(samples[0]["data"]["mindId"], mind.as_str());
    t.stop().await;
}

/// A local OpenAI-compatible speech server: answers every `/v1/audio/speech` with fixed bytes
/// and records the requests.
struct SpeechStub {
    base_url: String,
    requests: std::sync::Arc<std::sync::Mutex<Vec<Value>>>,
}

const MP3: &[u8] = b"ID3\x04\x00\x00\x00\x00\x00\x00 a spoken answer";

impl SpeechStub {
    async fn start() -> Self {
        use axum::extract::State;
        let requests = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        async fn speak(
            State(seen): State<std::sync::Arc<std::sync::Mutex<Vec<Value>>>>,
            body: axum::body::Bytes,
        ) -> impl axum::response::IntoResponse {
            seen.lock().unwrap().push(serde_json::from_slice(&body).unwrap());
            ([("content-type", "audio/mpeg")], MP3)
        }
        let app =
            axum::Router::new().route("/v1/audio/speech", axum::routing::post(speak)).with_state(requests.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self { base_url, requests }
    }
}

#[tokio::test]
async fn spoken_answers_are_generated_once_and_served_to_owner_and_visitor() {
    let stub = SpeechStub::start().await;
    let speech = lore_chat::OpenAiSpeech::new(&stub.base_url, None, "tts-test").unwrap();
    let t = TestApp::spawn_with(lore::compose::Overrides {
        speech: Some(std::sync::Arc::new(speech)),
        ..Default::default()
    })
    .await;
    let (mind, slug) = t.published_mind(json!({"voiceEnabled": true, "voiceId": "nova", "voiceSpeed": 1.5})).await;
    let body = json!({"message": "How long do refunds take?"});
    let (_, opened) =
        parts(t.visitor(&format!("/m/{slug}/conversations"), None).json(&body).send().await.unwrap()).await;
    let (conv, token) = (opened["conversation"]["id"].as_str().unwrap(), opened["visitorToken"].as_str().unwrap());
    let (question, answer) =
        (opened["messages"][1]["id"].as_str().unwrap(), opened["messages"][2]["id"].as_str().unwrap());
    let public = |message: &str, token: Option<&str>| {
        let req = t.client.get(t.url(&format!("/m/{slug}/conversations/{conv}/messages/{message}/speech")));
        match token {
            Some(tok) => req.header("authorization", format!("Visitor {tok}")),
            None => req,
        }
        .send()
    };
    for _ in 0..2 {
        let res = public(answer, Some(token)).await.unwrap();
        assert_eq!(res.status(), 200);
        assert_eq!(res.headers()["content-type"], "audio/mpeg");
        assert_eq!(res.bytes().await.unwrap().as_ref(), MP3);
    }
    let keyed = format!("/api/v1/minds/{mind}/conversations/{conv}/messages/{answer}/speech");
    let res = t.req(Method::GET, &keyed, &t.dev_key).send().await.unwrap();
    assert_eq!(res.bytes().await.unwrap().as_ref(), MP3);
    let requests = stub.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 1, "generated once, then kept: {requests:?}");
    assert_eq!((requests[0]["model"].as_str(), requests[0]["voice"].as_str()), (Some("tts-test"), Some("nova")));
    assert_eq!(requests[0]["speed"], 1.5);
    let spoken = requests[0]["input"].as_str().unwrap();
    assert!(spoken.contains("fourteen days") && !spoken.contains("[1]"), "markers are not read aloud: {spoken}");

    // Only assistant messages, only with the conversation's token.
    expect_error(public(question, Some(token)).await.unwrap(), 404, "not_found").await;
    expect_error(public(answer, None).await.unwrap(), 404, "not_found").await;
    let reader = t.key("default", "minds:read").await;
    expect_error(t.req(Method::GET, &keyed, &reader).send().await.unwrap(), 403, "insufficient_scope").await;

    // Voice off: 409, even with the speech kept.
    let res = t.req(Method::PATCH, &format!("/api/v1/minds/{mind}"), &t.dev_key).json(&json!({"voiceEnabled": false}));
    assert_eq!(res.send().await.unwrap().status(), 200);
    expect_error(public(answer, Some(token)).await.unwrap(), 409, "voice_disabled").await;
    expect_error(t.req(Method::GET, &keyed, &t.dev_key).send().await.unwrap(), 409, "voice_disabled").await;
    t.stop().await;
}

#[tokio::test]
async fn without_a_speech_model_speech_is_unavailable() {
    let t = TestApp::spawn().await;
    let (mind, slug) = t.published_mind(json!({"voiceEnabled": true})).await;
    let body = json!({"message": "How long do refunds take?"});
    let (_, opened) =
        parts(t.visitor(&format!("/m/{slug}/conversations"), None).json(&body).send().await.unwrap()).await;
    let (conv, answer) =
        (opened["conversation"]["id"].as_str().unwrap(), opened["messages"][2]["id"].as_str().unwrap());
    let keyed = format!("/api/v1/minds/{mind}/conversations/{conv}/messages/{answer}/speech");
    expect_error(t.req(Method::GET, &keyed, &t.dev_key).send().await.unwrap(), 503, "speech_unavailable").await;
    t.stop().await;
}

#[tokio::test]
async fn a_visitor_whose_first_answer_failed_can_go_on_in_the_conversation() {
    let stub = crate::conversations::ModelStub::start("Fourteen days [1].").await;
    let t = crate::conversations::spawn_with_model(&stub).await;
    let (_, slug) = t.published_mind(json!({})).await;
    let open = format!("/m/{slug}/conversations");
    let retry = |conv: &str, token: &str| {
        t.visitor(&format!("/m/{slug}/conversations/{conv}/messages"), Some(token))
            .json(&json!({"content": "When are refunds paid?"}))
            .send()
    };

    // JSON: the error names the conversation and the visitor token that opens it.
    stub.fail_next(3, 503);
    let res = t.visitor(&open, None).json(&json!({"message": "When are refunds paid?"})).send().await.unwrap();
    let e = expect_error(res, 502, "generation_failed").await;
    let conv = e["error"]["details"]["conversationId"].as_str().unwrap().to_owned();
    let token = e["error"]["details"]["visitorToken"].as_str().unwrap().to_owned();
    assert!(token.starts_with("vt_"), "{e}");
    let (status, body) = parts(retry(&conv, &token).await.unwrap()).await;
    assert_eq!(status, 201, "the kept question is answered: {body}");
    assert_eq!(body["message"]["content"], "Fourteen days [1].");

    // Streamed: the same in the `error` event.
    stub.fail_next(3, 503);
    let res = t.visitor(&open, None).header("accept", "text/event-stream").json(&json!({"message": "Refunds?"}));
    let text = res.send().await.unwrap().text().await.unwrap();
    let events = crate::conversations::events(&text);
    let (name, data) = events.last().unwrap();
    assert_eq!(name, "error", "{text}");
    let conv = data["error"]["details"]["conversationId"].as_str().unwrap().to_owned();
    let token = data["error"]["details"]["visitorToken"].as_str().unwrap().to_owned();
    let (status, body) = parts(retry(&conv, &token).await.unwrap()).await;
    assert_eq!(status, 201, "{body}");
    t.stop().await;
}

#[tokio::test]
async fn public_reads_are_metered_per_address() {
    let t = TestApp::spawn().await;
    let (_, slug) = t.published_mind(json!({})).await;
    // The page and the API document share one address's budget of 120 reads a minute.
    for i in 0..119 {
        let res = t.client.get(t.url(&format!("/m/{slug}"))).send().await.unwrap();
        assert_eq!(res.status(), 200, "read {i}");
    }
    assert_eq!(t.client.get(t.url("/api/v1/openapi.json")).send().await.unwrap().status(), 200);
    for path in [format!("/m/{slug}"), "/api/v1/openapi.json".to_owned()] {
        let res = t.client.get(t.url(&path)).send().await.unwrap();
        let retry: u64 = res.headers()["retry-after"].to_str().unwrap().parse().unwrap();
        assert!((1..=60).contains(&retry), "{path}");
        expect_error(res, 429, "rate_limited").await;
    }
    // Another address has its own budget.
    let other = reqwest::Client::builder().local_address(std::net::IpAddr::from([127, 0, 0, 9])).build().unwrap();
    assert_eq!(other.get(t.url(&format!("/m/{slug}"))).send().await.unwrap().status(), 200);
    t.stop().await;
}
