//! Feedback, corrections and hand-off (docs/api.md §19) over HTTP, on whichever backend the run
//! uses, for Minds (`/m/…`, `/api/v1/minds/…`) and chatbots (`/c/…`, `/api/v1/chatbots/…`) alike:
//! `answered` and `feedback` on messages, `message.rated`, corrections given verbatim to the
//! same question (folded, or as similar as `correctionThreshold`), hand-off with agent replies the
//! visitor reads, resume, and `conversation.handoff_requested`.

use crate::receiver::Receiver;
use crate::support::{TestApp, expect_error, parts};
use reqwest::{Method, Response};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const POLICY: &str = "Refunds are paid within fourteen days of the return. Shipping costs are not refunded.";
const NOTHING: &str = "I don't have anything in my knowledge about that yet.";

/// A Mind (`m`) or a chatbot (`c`).
#[derive(Clone, Debug)]
struct Owner {
    kind: &'static str,
    id: String,
    slug: String,
}

impl Owner {
    fn api(&self, rest: &str) -> String {
        match self.kind {
            "m" => format!("/api/v1/minds/{}{rest}", self.id),
            _ => format!("/api/v1/chatbots/{}{rest}", self.id),
        }
    }

    fn public(&self, rest: &str) -> String {
        format!("/{}/{}{rest}", self.kind, self.slug)
    }

    fn owner_key(&self) -> &'static str {
        if self.kind == "m" { "mindId" } else { "chatbotId" }
    }

    fn member(&self) -> &'static str {
        if self.kind == "m" { "mind" } else { "chatbot" }
    }
}

/// A published Mind or chatbot with the refunds policy (ready), a welcome message and `settings`.
async fn published(t: &TestApp, kind: &'static str, name: &str, settings: Value) -> Owner {
    let created = match kind {
        "m" => t.mind(&t.dev_key, json!({"name": name})).await,
        _ => t.create_chatbot(&t.dev_key, json!({"name": name})).await,
    };
    let o = Owner {
        kind,
        id: created["id"].as_str().unwrap().to_owned(),
        slug: created["slug"].as_str().unwrap().to_owned(),
    };
    let mut body = json!({"welcomeMessage": "Hello, visitor."});
    body.as_object_mut().unwrap().extend(settings.as_object().unwrap().clone());
    let (status, patched) = parts(t.req(Method::PATCH, &o.api(""), &t.dev_key).json(&body).send().await.unwrap()).await;
    assert_eq!(status, 200, "{patched}");
    if kind == "c" {
        let body = json!({"type": "text", "name": "policy.md", "content": POLICY});
        let (status, body) = t.post_source(&t.dev_key, &o.id, body).await;
        assert_eq!(status, 201, "{body}");
        let id = body["source"]["id"].as_str().unwrap().to_owned();
        t.process(&o.id, &id).await;
        assert_eq!(t.settle(&o.id, &id).await["status"], "ready");
    } else {
        let res = t.req(Method::POST, &o.api("/knowledge"), &t.dev_key);
        let (status, body) = parts(res.json(&json!({"type": "text", "content": POLICY})).send().await.unwrap()).await;
        assert_eq!(status, 201, "{body}");
        let source = body["source"]["id"].as_str().unwrap().to_owned();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let res = t.req(Method::GET, &o.api(&format!("/knowledge/{source}")), &t.dev_key);
            let (_, s) = parts(res.send().await.unwrap()).await;
            if s["source"]["status"] == "ready" {
                break;
            }
            assert!(Instant::now() < deadline && s["source"]["status"] != "failed", "{s}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    let res = t.req(Method::POST, &o.api("/publish"), &t.dev_key).json(&json!({}));
    let (status, body) = parts(res.send().await.unwrap()).await;
    assert_eq!(status, 200, "{body}");
    o
}

/// A client whose requests come from 127.0.0.`last`: its own public-chat budget.
fn from(last: u8) -> reqwest::Client {
    reqwest::Client::builder().local_address(std::net::IpAddr::from([127, 0, 0, last])).build().unwrap()
}

fn visitor(
    c: &reqwest::Client,
    t: &TestApp,
    method: Method,
    path: &str,
    token: Option<&str>,
) -> reqwest::RequestBuilder {
    let req = c.request(method, t.url(path));
    match token {
        Some(tok) => req.header("authorization", format!("Visitor {tok}")),
        None => req,
    }
}

/// Opens a visitor conversation: `(conversation id, token, body)`.
async fn opened(c: &reqwest::Client, t: &TestApp, o: &Owner, body: Value) -> (String, String, Value) {
    let res = visitor(c, t, Method::POST, &o.public("/conversations"), None).json(&body).send().await.unwrap();
    let (status, json) = parts(res).await;
    assert_eq!(status, 201, "{json}");
    let conv = json["conversation"]["id"].as_str().unwrap().to_owned();
    (conv, json["visitorToken"].as_str().unwrap().to_owned(), json)
}

async fn visitor_read(c: &reqwest::Client, t: &TestApp, o: &Owner, conv: &str, token: &str) -> Value {
    let res = visitor(c, t, Method::GET, &o.public(&format!("/conversations/{conv}")), Some(token)).send().await;
    let (status, body) = parts(res.unwrap()).await;
    assert_eq!(status, 200, "{body}");
    body
}

async fn keyed(t: &TestApp, method: Method, path: impl AsRef<str>, body: Option<Value>) -> Response {
    let mut req = t.req(method, path.as_ref(), &t.dev_key);
    if let Some(b) = body {
        req = req.json(&b);
    }
    req.send().await.unwrap()
}

/// A keyed question in conversation `conv`: the answer.
async fn ask(t: &TestApp, o: &Owner, conv: &str, question: &str) -> Value {
    let path = o.api(&format!("/conversations/{conv}/messages"));
    let (status, body) = parts(keyed(t, Method::POST, &path, Some(json!({"content": question}))).await).await;
    assert_eq!(status, 201, "{body}");
    body["message"].clone()
}

/// A keyed conversation (no message yet): its id.
async fn conversation(t: &TestApp, o: &Owner) -> String {
    let (status, body) = parts(keyed(t, Method::POST, &o.api("/conversations"), Some(json!({}))).await).await;
    assert_eq!(status, 201, "{body}");
    body["conversation"]["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn answers_say_whether_they_answered_and_visitors_rate_them() {
    let t = TestApp::spawn_webhooks("200ms").await;
    let rx = Receiver::start().await;
    for (n, kind) in ["m", "c"].into_iter().enumerate() {
        let o = published(&t, kind, &format!("Rated {kind}"), json!({})).await;
        let hook_path = format!("/rated-{kind}");
        t.hook(json!({"hookUrl": rx.url(&hook_path), "event": "message.rated", o.owner_key(): o.id})).await;
        let c = from(60 + n as u8);
        let (conv, token, created) = opened(&c, &t, &o, json!({"message": "How long do refunds take?"})).await;
        let [welcome, question, answer] = [0, 1, 2].map(|i| created["messages"][i].clone());
        assert_eq!((welcome["answered"].clone(), welcome["feedback"].clone()), (json!(true), Value::Null), "{welcome}");
        assert_eq!(question["answered"], Value::Null, "{question}");
        assert_eq!(answer["answered"], true, "{answer}");
        assert_eq!(answer["feedback"], Value::Null);
        assert_eq!(created["conversation"]["status"], "open");
        let answer_id = answer["id"].as_str().unwrap().to_owned();

        // Nothing in the knowledge: not answered.
        let res = visitor(&c, &t, Method::POST, &o.public(&format!("/conversations/{conv}/messages")), Some(&token))
            .json(&json!({"content": "What is the capital of Peru?"}))
            .send()
            .await
            .unwrap();
        let (status, unanswered) = parts(res).await;
        assert_eq!(status, 201, "{unanswered}");
        assert_eq!(unanswered["message"]["content"], NOTHING);
        assert_eq!(unanswered["message"]["answered"], false, "{unanswered}");

        // The visitor rates the answer.
        let feedback = |id: &str, tok: Option<&str>, body: Value| {
            visitor(&c, &t, Method::POST, &o.public(&format!("/conversations/{conv}/messages/{id}/feedback")), tok)
                .json(&body)
                .send()
        };
        let (status, rated) =
            parts(feedback(&answer_id, Some(&token), json!({"rating": "up", "comment": "Clear."})).await.unwrap())
                .await;
        assert_eq!(status, 200, "{rated}");
        assert_eq!(rated["message"]["id"], answer_id);
        assert_eq!(rated["message"]["feedback"]["rating"], "up");
        assert_eq!(rated["message"]["feedback"]["comment"], "Clear.");
        assert!(rated["message"]["feedback"]["at"].as_str().unwrap().ends_with('Z'), "{rated}");
        let got = rx.next(Duration::from_secs(20)).await;
        assert_eq!(got.path, hook_path);
        let env = got.json();
        assert_eq!(env["eventType"], "message.rated");
        assert_eq!(
            env["data"],
            json!({o.owner_key(): o.id, "conversationId": conv, "messageId": answer_id, "rating": "up",
                   "comment": "Clear."})
        );

        // With a key, a second rating replaces the first.
        let path = o.api(&format!("/conversations/{conv}/messages/{answer_id}/feedback"));
        let (status, again) = parts(keyed(&t, Method::POST, &path, Some(json!({"rating": "down"}))).await).await;
        assert_eq!(status, 200, "{again}");
        assert_eq!(again["message"]["feedback"]["rating"], "down");
        assert_eq!(again["message"]["feedback"]["comment"], Value::Null);
        let env = rx.next(Duration::from_secs(20)).await.json();
        assert_eq!(
            env["data"],
            json!({o.owner_key(): o.id, "conversationId": conv, "messageId": answer_id, "rating": "down",
                   "comment": null})
        );
        let read = visitor_read(&c, &t, &o, &conv, &token).await;
        assert_eq!(read["messages"][2]["feedback"]["rating"], "down", "{read}");
        assert_eq!(read["messages"][4]["answered"], false);

        // Refusals: a user message, a bad rating or comment, another visitor's token.
        let question_id = question["id"].as_str().unwrap();
        let e = expect_error(
            feedback(question_id, Some(&token), json!({"rating": "up"})).await.unwrap(),
            400,
            "invalid_operation",
        )
        .await;
        assert!(e["error"]["message"].as_str().unwrap().contains("assistant"), "{e}");
        let e = expect_error(
            feedback(&answer_id, Some(&token), json!({"rating": "meh"})).await.unwrap(),
            400,
            "validation_error",
        )
        .await;
        assert!(e["error"]["details"]["fields"]["rating"].is_string(), "{e}");
        let long = json!({"rating": "up", "comment": "x".repeat(1_001)});
        let e = expect_error(feedback(&answer_id, Some(&token), long).await.unwrap(), 400, "validation_error").await;
        assert!(e["error"]["details"]["fields"]["comment"].is_string(), "{e}");
        let ok = json!({"rating": "up", "comment": "y".repeat(1_000)});
        assert_eq!(feedback(&answer_id, Some(&token), ok).await.unwrap().status(), 200);
        rx.next(Duration::from_secs(20)).await;
        let (_, other_token, _) = opened(&c, &t, &o, json!({})).await;
        expect_error(
            feedback(&answer_id, Some(&other_token), json!({"rating": "up"})).await.unwrap(),
            404,
            "not_found",
        )
        .await;
        expect_error(feedback(&answer_id, None, json!({"rating": "up"})).await.unwrap(), 404, "not_found").await;
        let missing = "msg_01jq3z5v7b8c9d0e1f2g3h4j5k";
        expect_error(feedback(missing, Some(&token), json!({"rating": "up"})).await.unwrap(), 404, "not_found").await;
        let res = keyed(
            &t,
            Method::POST,
            &o.api(&format!("/conversations/{conv}/messages/{question_id}/feedback")),
            Some(json!({"rating": "up"})),
        )
        .await;
        expect_error(res, 400, "invalid_operation").await;
        rx.expect_none(Duration::from_millis(500)).await;
    }
    t.stop().await;
}

#[tokio::test]
async fn corrections_answer_the_same_question_verbatim_until_deleted() {
    let t = TestApp::spawn().await;
    for kind in ["m", "c"] {
        let o = published(&t, kind, &format!("Corrected {kind}"), json!({})).await;
        let detail = |t: &TestApp| {
            let o = o.clone();
            let t = t.req(Method::GET, &o.api(""), &t.dev_key).send();
            async move { parts(t.await.unwrap()).await.1[o.member()].clone() }
        };
        let d = detail(&t).await;
        assert_eq!((d["correctionThreshold"].clone(), d["handoffEnabled"].clone()), (json!(0.9), json!(false)), "{d}");
        for bad in [0.4, 1.1] {
            let res = keyed(&t, Method::PATCH, &o.api(""), Some(json!({"correctionThreshold": bad}))).await;
            let e = expect_error(res, 400, "validation_error").await;
            assert!(e["error"]["details"]["fields"]["correctionThreshold"].is_string(), "{e}");
        }
        let res = keyed(&t, Method::PATCH, &o.api(""), Some(json!({"correctionThreshold": null}))).await;
        expect_error(res, 400, "validation_error").await;
        let res = keyed(&t, Method::PATCH, &o.api(""), Some(json!({"correctionThreshold": 0.95}))).await;
        assert_eq!(res.status(), 200);
        assert_eq!(detail(&t).await["correctionThreshold"], 0.95);

        // The answer to correct.
        let (status, created) = parts(
            keyed(&t, Method::POST, &o.api("/conversations"), Some(json!({"message": "How long do refunds take?"})))
                .await,
        )
        .await;
        assert_eq!(status, 201, "{created}");
        let conv = created["conversation"]["id"].as_str().unwrap().to_owned();
        let (welcome, question, answer) =
            (&created["messages"][0]["id"], &created["messages"][1]["id"], &created["messages"][2]["id"]);
        assert_eq!(created["messages"][2]["generatedBy"], "extractive");
        let correct = |id: &Value, body: Value| {
            let path = o.api(&format!("/conversations/{conv}/messages/{}/correction", id.as_str().unwrap()));
            keyed(&t, Method::PUT, path, Some(body))
        };
        let content = "Refunds take ten days, by bank transfer.";
        let (status, put) = parts(correct(answer, json!({"content": content})).await).await;
        assert_eq!(status, 200, "{put}");
        let c = &put["correction"];
        assert!(c["id"].as_str().unwrap().starts_with("corr_"), "{put}");
        assert_eq!((c["question"].as_str(), c["content"].as_str()), (Some("How long do refunds take?"), Some(content)));
        let id = c["id"].as_str().unwrap().to_owned();
        expect_error(correct(question, json!({"content": "x"})).await, 400, "invalid_operation").await;
        expect_error(correct(welcome, json!({"content": "x"})).await, 400, "invalid_operation").await;
        expect_error(correct(answer, json!({"content": " "})).await, 400, "validation_error").await;
        expect_error(correct(answer, json!({"content": "x".repeat(4_001)})).await, 400, "validation_error").await;

        // The same question, folded: the correction, verbatim, with no citation.
        let other = conversation(&t, &o).await;
        let hit = ask(&t, &o, &other, "  how LONG do refunds\n  take? ").await;
        assert_eq!(hit["content"], content, "{hit}");
        assert_eq!(hit["generatedBy"], "correction");
        assert_eq!(
            (hit["answered"].clone(), hit["citations"].clone(), hit["model"].clone()),
            (json!(true), json!([]), Value::Null)
        );
        // Another question: answered from the knowledge.
        let miss = ask(&t, &o, &other, "Are shipping costs refunded?").await;
        assert_eq!(miss["generatedBy"], "extractive", "{miss}");
        assert!(miss["content"].as_str().unwrap().contains("Shipping costs are not refunded"), "{miss}");
        // Visitors get it too, streamed like any answer.
        let c = from(70 + u8::from(kind == "c"));
        let (vconv, token, _) = opened(&c, &t, &o, json!({})).await;
        let res = visitor(&c, &t, Method::POST, &o.public(&format!("/conversations/{vconv}/messages")), Some(&token))
            .header("accept", "text/event-stream")
            .json(&json!({"content": "How long do refunds take?"}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
        let stream = res.text().await.unwrap();
        assert!(stream.contains("event: citations\ndata: {\"citations\":[]}"), "{stream}");
        assert!(stream.contains(&format!("event: delta\ndata: {}", json!({"text": content}))), "{stream}");
        assert!(stream.contains("\"generatedBy\":\"correction\""), "{stream}");

        // A second correction of the same question replaces the first.
        let replaced = "Refunds take twelve days.";
        let (status, put) = parts(correct(answer, json!({"content": replaced})).await).await;
        assert_eq!(status, 200, "{put}");
        assert_eq!(put["correction"]["id"], id.as_str());
        let (status, list) = parts(keyed(&t, Method::GET, &o.api("/corrections"), None).await).await;
        assert_eq!(status, 200, "{list}");
        assert_eq!(list["pagination"]["total"], 1);
        let listed = &list["corrections"][0];
        assert_eq!(
            (listed["id"].as_str(), listed["question"].as_str(), listed["content"].as_str()),
            (Some(id.as_str()), Some("How long do refunds take?"), Some(replaced))
        );
        assert!(listed["createdAt"].is_string());
        assert_eq!(ask(&t, &o, &other, "how long do refunds take?").await["content"], replaced);

        // Deleted: the question is answered from the knowledge again.
        let res = keyed(&t, Method::DELETE, &o.api(&format!("/corrections/{id}")), None).await;
        let (status, deleted) = parts(res).await;
        assert_eq!((status, deleted["deleted"].clone(), deleted["id"].clone()), (200, json!(true), json!(id)));
        let again = ask(&t, &o, &other, "How long do refunds take?").await;
        assert_eq!(again["generatedBy"], "extractive", "{again}");
        expect_error(keyed(&t, Method::DELETE, &o.api(&format!("/corrections/{id}")), None).await, 404, "not_found")
            .await;
        let (_, list) = parts(keyed(&t, Method::GET, &o.api("/corrections"), None).await).await;
        assert_eq!(list["corrections"], json!([]));
    }
    t.stop().await;
}

/// all-MiniLM-L6-v2 (scripts/fetch-model.sh); `None` only when `LORE_SKIP_MODEL_TESTS=1`.
fn minilm() -> Option<lore_embed::MiniLmEmbedder> {
    let skip = std::env::var("LORE_SKIP_MODEL_TESTS").is_ok_and(|v| v == "1");
    let dir = lore_embed::model_dir_from_lookup(|name| std::env::var(name).ok());
    match dir.map(lore_embed::MiniLmEmbedder::load) {
        Some(Ok(model)) => Some(model),
        _ if skip => None,
        other => panic!("this test needs the model (bash scripts/fetch-model.sh): {:?}", other.map(|r| r.err())),
    }
}

/// With a real sentence model, a near paraphrase of a corrected question gets the correction
/// (its similarity reaches the threshold), an unrelated question does not.
#[tokio::test]
async fn with_minilm_a_paraphrase_gets_the_correction() {
    use lore_app::ports::Embedder;
    let Some(model) = minilm() else { return };
    let overrides =
        lore::compose::Overrides { embedder: Some(std::sync::Arc::new(model.clone())), ..Default::default() };
    let t = TestApp::spawn_with(overrides).await;
    let o = published(&t, "m", "Paraphrased", json!({"correctionThreshold": 0.8})).await;
    let (asked, paraphrase, unrelated) =
        ("How long do refunds take?", "How long does a refund take?", "Are shipping costs refunded?");
    let v = model.embed(&[asked.into(), paraphrase.into(), unrelated.into()]).await.unwrap();
    let cos = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
    assert!(cos(&v[0], &v[1]) >= 0.8, "the paraphrase is close: {}", cos(&v[0], &v[1]));
    assert!(cos(&v[0], &v[2]) < 0.8, "the other question is not: {}", cos(&v[0], &v[2]));

    let conv = conversation(&t, &o).await;
    let answer = ask(&t, &o, &conv, asked).await;
    let path = o.api(&format!("/conversations/{conv}/messages/{}/correction", answer["id"].as_str().unwrap()));
    let res = keyed(&t, Method::PUT, &path, Some(json!({"content": "Ten days."}))).await;
    assert_eq!(res.status(), 200);
    let hit = ask(&t, &o, &conv, paraphrase).await;
    assert_eq!((hit["content"].as_str(), hit["generatedBy"].as_str()), (Some("Ten days."), Some("correction")));
    let miss = ask(&t, &o, &conv, unrelated).await;
    assert_ne!(miss["generatedBy"], "correction", "{miss}");
    t.stop().await;
}

#[tokio::test]
async fn a_handed_off_conversation_is_answered_by_a_person_until_resumed() {
    let t = TestApp::spawn_webhooks("200ms").await;
    let rx = Receiver::start().await;
    t.hook(json!({"hookUrl": rx.url("/handoffs"), "event": "conversation.handoff_requested"})).await;
    for (n, kind) in ["m", "c"].into_iter().enumerate() {
        let o = published(&t, kind, &format!("Human {kind}"), json!({"handoffEnabled": true})).await;
        let d = parts(keyed(&t, Method::GET, &o.api(""), None).await).await.1;
        assert_eq!(d[o.member()]["handoffEnabled"], true);
        let page = t.client.get(t.url(&o.public(""))).header("accept", "text/html").send().await.unwrap();
        assert!(page.text().await.unwrap().contains("data-handoff=\"true\""), "the page offers a person");

        let c = from(80 + n as u8);
        let visitor_body = json!({"visitor": {"email": "ada@example.com", "name": "Ada"}});
        let (conv, token, _) = opened(&c, &t, &o, visitor_body).await;
        let handoff = |tok: Option<&str>, body: Value| {
            visitor(&c, &t, Method::POST, &o.public(&format!("/conversations/{conv}/handoff")), tok).json(&body).send()
        };
        let (_, other_token, _) = opened(&c, &t, &o, json!({})).await;
        expect_error(handoff(Some(&other_token), json!({})).await.unwrap(), 404, "not_found").await;
        let e = expect_error(
            handoff(Some(&token), json!({"reason": "x".repeat(1_001)})).await.unwrap(),
            400,
            "validation_error",
        )
        .await;
        assert!(e["error"]["details"]["fields"]["reason"].is_string(), "{e}");
        let (status, handed) = parts(handoff(Some(&token), json!({"reason": "I need a human."})).await.unwrap()).await;
        assert_eq!(status, 200, "{handed}");
        assert_eq!(handed["conversation"]["status"], "handoff");
        assert_eq!(handed["conversation"]["id"], conv.as_str());
        let env = rx.next(Duration::from_secs(20)).await.json();
        assert_eq!(env["eventType"], "conversation.handoff_requested");
        assert_eq!(
            env["data"],
            json!({o.owner_key(): o.id, "conversationId": conv,
                   "visitor": {"email": "ada@example.com", "name": "Ada", "userId": null}, "reason": "I need a human."})
        );
        // Asking again changes nothing and is no new request.
        let (status, again) = parts(handoff(Some(&token), json!({})).await.unwrap()).await;
        assert_eq!((status, again["conversation"]["status"].clone()), (200, json!("handoff")));
        // The owner reads why, in the list and in the conversation, while a person has it.
        assert_eq!(handed["conversation"]["handoffReason"], "I need a human.", "{handed}");
        let (_, read) = parts(keyed(&t, Method::GET, &o.api(&format!("/conversations/{conv}")), None).await).await;
        assert_eq!(read["conversation"]["handoffReason"], "I need a human.", "{read}");
        let (_, listed) = parts(keyed(&t, Method::GET, &o.api("/conversations"), None).await).await;
        let item = listed["conversations"].as_array().unwrap().iter().find(|c| c["id"] == conv.as_str()).unwrap();
        assert_eq!(item["handoffReason"], "I need a human.", "{item}");

        // The visitor's messages are stored and nobody answers them, JSON or streamed.
        let send = |content: &str, stream: bool| {
            let mut req =
                visitor(&c, &t, Method::POST, &o.public(&format!("/conversations/{conv}/messages")), Some(&token));
            if stream {
                req = req.header("accept", "text/event-stream");
            }
            req.json(&json!({"content": content})).send()
        };
        let (status, sent) = parts(send("Hello? Anyone there?", false).await.unwrap()).await;
        assert_eq!(status, 201, "{sent}");
        assert_eq!(
            (sent["message"]["role"].as_str(), sent["message"]["content"].as_str()),
            (Some("user"), Some("Hello? Anyone there?"))
        );
        let (status, sent_again) = parts(send("Hello? Anyone there?", false).await.unwrap()).await;
        assert_eq!(status, 201);
        assert_ne!(sent_again["message"]["id"], sent["message"]["id"], "a repeated message is stored again");
        let res = send("Still waiting.", true).await.unwrap();
        assert_eq!(res.status(), 200);
        let stream = res.text().await.unwrap();
        assert!(stream.starts_with("event: done\n"), "one done event: {stream}");
        assert!(!stream.contains("event: delta") && stream.contains("\"role\":\"user\""), "{stream}");
        let read = visitor_read(&c, &t, &o, &conv, &token).await;
        let roles: Vec<&str> =
            read["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
        assert_eq!(roles, ["assistant", "user", "user", "user"], "{read}");
        assert_eq!(read["conversation"]["status"], "handoff");

        // The owner replies as an agent; the visitor reads it.
        let messages = o.api(&format!("/conversations/{conv}/messages"));
        let reply = json!({"content": "Hi Ada, Grace here. How can I help?", "role": "agent"});
        let (status, agent) = parts(keyed(&t, Method::POST, &messages, Some(reply)).await).await;
        assert_eq!(status, 201, "{agent}");
        let m = &agent["message"];
        assert_eq!(
            (m["role"].as_str(), m["answered"].as_bool(), m["generatedBy"].clone()),
            (Some("agent"), Some(true), Value::Null)
        );
        let read = visitor_read(&c, &t, &o, &conv, &token).await;
        let last = read["messages"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(
            (last["role"].as_str(), last["content"].as_str()),
            (Some("agent"), Some("Hi Ada, Grace here. How can I help?"))
        );
        assert_eq!(read["conversation"]["messageCount"], 5);
        let e = expect_error(
            keyed(&t, Method::POST, &messages, Some(json!({"content": "x", "role": "robot"}))).await,
            400,
            "validation_error",
        )
        .await;
        assert!(e["error"]["details"]["fields"]["role"].is_string(), "{e}");
        expect_error(keyed(&t, Method::POST, &messages, Some(json!({"role": "agent"}))).await, 400, "validation_error")
            .await;

        // Resumed: the Mind or chatbot answers again.
        let (status, resumed) =
            parts(keyed(&t, Method::POST, &o.api(&format!("/conversations/{conv}/resume")), None).await).await;
        assert_eq!((status, resumed["conversation"]["status"].clone()), (200, json!("open")), "{resumed}");
        assert_eq!(resumed["conversation"]["handoffReason"], Value::Null, "handed back: no reason left");
        let (status, answered) = parts(send("How long do refunds take?", false).await.unwrap()).await;
        assert_eq!(status, 201);
        assert_eq!(answered["message"]["role"], "assistant", "{answered}");
        assert!(answered["message"]["content"].as_str().unwrap().contains("fourteen days"));

        // With a key, on an API conversation: the event has no visitor, no reason.
        let api_conv = conversation(&t, &o).await;
        let (status, handed) =
            parts(keyed(&t, Method::POST, &o.api(&format!("/conversations/{api_conv}/handoff")), None).await).await;
        assert_eq!((status, handed["conversation"]["status"].clone()), (200, json!("handoff")), "{handed}");
        let env = rx.next(Duration::from_secs(20)).await.json();
        assert_eq!(
            env["data"],
            json!({o.owner_key(): o.id, "conversationId": api_conv, "visitor": null, "reason": null})
        );
        let sent = ask(&t, &o, &api_conv, "How long do refunds take?").await;
        assert_eq!(sent["role"], "user", "keyed questions wait for the person too");
        let missing = "conv_01jq3z5v7b8c9d0e1f2g3h4j5k";
        expect_error(
            keyed(&t, Method::POST, &o.api(&format!("/conversations/{missing}/resume")), None).await,
            404,
            "not_found",
        )
        .await;
        rx.expect_none(Duration::from_millis(500)).await;
    }
    // A page without the setting renders the control off; the route works either way.
    let plain = published(&t, "c", "No human", json!({})).await;
    let page = t.client.get(t.url(&plain.public(""))).header("accept", "text/html").send().await.unwrap();
    assert!(page.text().await.unwrap().contains("data-handoff=\"false\""));
    let c = from(90);
    let (conv, token, _) = opened(&c, &t, &plain, json!({})).await;
    let res = visitor(&c, &t, Method::POST, &plain.public(&format!("/conversations/{conv}/handoff")), Some(&token))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "an empty body is no reason");
    let env = rx.next(Duration::from_secs(20)).await.json();
    assert_eq!(env["data"]["reason"], Value::Null);
    t.stop().await;
}

/// Today as the server counts it (UTC).
fn today() -> String {
    lore_domain::analytics::Day::of(lore_domain::Timestamp::now()).to_string()
}

async fn analytics(t: &TestApp, o: &Owner, query: &str) -> Value {
    let (status, body) = parts(keyed(t, Method::GET, o.api(&format!("/analytics{query}")), None).await).await;
    assert_eq!(status, 200, "{body}");
    body["analytics"].clone()
}

#[tokio::test]
async fn analytics_count_exactly_and_exports_carry_every_message() {
    let t = TestApp::spawn().await;
    for (n, kind) in ["m", "c"].into_iter().enumerate() {
        let o = published(&t, kind, &format!("Counted {kind}"), json!({})).await;
        let c = from(70 + n as u8);
        // A lead's visitor conversation: one answered question, one unanswered, rated.
        let body = json!({"message": "How long do refunds take?", "visitor": {"email": "ada@example.com"}});
        let (conv, token, created) = opened(&c, &t, &o, body).await;
        let answer = created["messages"][2]["id"].as_str().unwrap().to_owned();
        let res = visitor(&c, &t, Method::POST, &o.public(&format!("/conversations/{conv}/messages")), Some(&token))
            .json(&json!({"content": "Do you sell bicycles?"}))
            .send()
            .await
            .unwrap();
        let (status, missed) = parts(res).await;
        assert_eq!(status, 201, "{missed}");
        let missed_id = missed["message"]["id"].as_str().unwrap().to_owned();
        let rate = |id: String, rating: &'static str| {
            let path = o.api(&format!("/conversations/{conv}/messages/{id}/feedback"));
            let t = &t;
            async move { assert_eq!(keyed(t, Method::POST, &path, Some(json!({"rating": rating}))).await.status(), 200) }
        };
        rate(answer.clone(), "down").await;
        rate(answer.clone(), "up").await;
        rate(missed_id.clone(), "down").await;
        // A keyed conversation with a question whose content needs CSV quoting.
        let keyed_conv = conversation(&t, &o).await;
        let tricky = "Refunds, \"fast\" or slow?\nCafé 🙂";
        // Quoting the refunds passage, which says nothing fast, slow or café: unanswered.
        let tricky_answer = ask(&t, &o, &keyed_conv, tricky).await;
        assert_eq!(tricky_answer["answered"], false, "{tricky_answer}");

        let today = today();
        let a = analytics(&t, &o, "").await;
        assert_eq!(a["to"], today.as_str(), "{a}");
        assert_eq!(a["days"].as_array().unwrap().len(), 30, "the last 30 days by default");
        let totals = json!({"conversations": 2, "messages": 3, "leads": 1, "answered": 1, "unanswered": 2,
                            "ratingsUp": 1, "ratingsDown": 1});
        assert_eq!(a["totals"], totals, "{a}");
        let last = a["days"].as_array().unwrap().last().unwrap().clone();
        let mut expected = totals.clone();
        expected["date"] = json!(today);
        assert_eq!(last, expected, "today holds everything");
        assert_eq!(a["days"][0]["conversations"], 0, "days without activity are zeros");
        assert_eq!(a["topSources"].as_array().unwrap().len(), 1, "{a}");
        assert_eq!(a["topSources"][0]["citations"], 1, "the answered answer only: {a}");
        assert!(a["topSources"][0]["sourceId"].as_str().unwrap().starts_with("src_"), "{a}");
        let q = &a["unansweredQuestions"];
        assert_eq!(
            q,
            &json!([{"conversationId": keyed_conv, "messageId": tricky_answer["id"], "question": tricky,
                     "createdAt": tricky_answer["createdAt"]},
                    {"conversationId": conv, "messageId": missed_id, "question": "Do you sell bicycles?",
                     "createdAt": missed["message"]["createdAt"]}])
        );
        let one = analytics(&t, &o, &format!("?from={today}&to={today}")).await;
        assert_eq!((one["from"].clone(), one["days"].as_array().unwrap().len()), (json!(today), 1));
        assert_eq!(one["totals"], totals);

        // Refused ranges.
        for query in
            ["?from=2026-13-01", "?from=yesterday", "?from=2026-12-02&to=2026-12-01", "?from=2025-01-01&to=2026-01-02"]
        {
            let res = keyed(&t, Method::GET, o.api(&format!("/analytics{query}")), None).await;
            expect_error(res, 400, "validation_error").await;
        }

        // Export: JSONL (one conversation per line, newest first), CSV (RFC 4180).
        let res = keyed(&t, Method::GET, o.api("/conversations/export?format=jsonl"), None).await;
        assert_eq!(res.status(), 200);
        assert!(res.headers()["content-type"].to_str().unwrap().starts_with("application/jsonl"));
        let text = res.text().await.unwrap();
        let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert_eq!(lines[0]["id"], keyed_conv.as_str(), "newest first");
        assert_eq!(lines[1]["id"], conv.as_str());
        assert_eq!(lines[1]["visitor"]["email"], "ada@example.com");
        let roles: Vec<&str> =
            lines[1]["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
        assert_eq!(roles, ["assistant", "user", "assistant", "user", "assistant"]);
        assert_eq!(lines[1]["messages"][2]["feedback"]["rating"], "up");
        assert_eq!(lines[0]["messages"][1]["content"], tricky, "after its welcome message");

        let res = keyed(&t, Method::GET, o.api("/conversations/export?format=csv"), None).await;
        assert_eq!(res.status(), 200);
        assert!(res.headers()["content-type"].to_str().unwrap().starts_with("text/csv"));
        let csv = res.text().await.unwrap();
        let rows = parse_csv(&csv);
        assert_eq!(rows[0], ["conversationId", "messageId", "role", "content", "createdAt", "rating"]);
        assert_eq!(rows.len(), 1 + 3 + 5, "{csv}");
        assert_eq!(rows[2][..4], [keyed_conv.as_str(), rows[2][1].as_str(), "user", tricky], "quoted and restored");
        let rated: Vec<(&str, &str)> = rows.iter().skip(1).map(|r| (r[1].as_str(), r[5].as_str())).collect();
        assert!(rated.contains(&(answer.as_str(), "up")) && rated.contains(&(missed_id.as_str(), "down")), "{csv}");

        // The range bounds the export; a bad format or range is refused; another key's workspace
        // does not reach it.
        let res = keyed(&t, Method::GET, o.api("/conversations/export?from=2000-01-01&to=2000-01-31"), None).await;
        assert_eq!(res.text().await.unwrap(), "", "no conversation then");
        let res = keyed(&t, Method::GET, o.api(&format!("/conversations/export?from={today}")), None).await;
        assert_eq!(res.text().await.unwrap().lines().count(), 2);
        expect_error(
            keyed(&t, Method::GET, o.api("/conversations/export?format=xml"), None).await,
            400,
            "validation_error",
        )
        .await;
        expect_error(
            keyed(&t, Method::GET, o.api("/conversations/export?from=2026-12-02&to=2026-12-01"), None).await,
            400,
            "validation_error",
        )
        .await;
        let ws = t.workspace(&format!("other-{kind}"), Default::default()).await;
        let other = t.key(&ws, "all").await;
        for path in [o.api("/analytics"), o.api("/conversations/export")] {
            expect_error(t.req(Method::GET, &path, &other).send().await.unwrap(), 404, "not_found").await;
        }
        let reader = t.key("default", "chat:write,chatbot:read,minds:read").await;
        for path in [o.api("/analytics"), o.api("/conversations/export")] {
            expect_error(t.req(Method::GET, &path, &reader).send().await.unwrap(), 403, "insufficient_scope").await;
        }
    }
    t.stop().await;
}

/// The answered rule with the extractive responder (docs/api.md §19): an answer quoting a passage
/// that shares a word with the question but not what it asks about ("Italy") is unanswered, and
/// analytics count it so and list it.
#[tokio::test]
async fn an_extractive_answer_that_misses_what_the_question_names_is_unanswered() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let body =
        json!({"type": "text", "name": "shipping.md", "content": "We ship kettles to Germany, France and Spain."});
    let (status, body) = t.post_source(&t.dev_key, &bot, body).await;
    assert_eq!(status, 201, "{body}");
    let id = body["source"]["id"].as_str().unwrap().to_owned();
    t.process(&bot, &id).await;
    assert_eq!(t.settle(&bot, &id).await["status"], "ready");
    let o = Owner { kind: "c", id: bot, slug: String::new() };
    let conv = conversation(&t, &o).await;
    let italy = ask(&t, &o, &conv, "Do you ship to Italy?").await;
    assert_eq!(italy["generatedBy"], "extractive", "{italy}");
    assert_eq!(italy["citations"].as_array().map(Vec::len), Some(1), "it quotes the passage: {italy}");
    assert_eq!(italy["answered"], false, "{italy}");
    let france = ask(&t, &o, &conv, "Do you ship to France?").await;
    assert_eq!(france["answered"], true, "{france}");
    let a = analytics(&t, &o, "").await;
    assert_eq!((a["totals"]["answered"].clone(), a["totals"]["unanswered"].clone()), (json!(1), json!(1)), "{a}");
    assert_eq!(
        a["unansweredQuestions"],
        json!([{"conversationId": conv, "messageId": italy["id"], "question": "Do you ship to Italy?",
                "createdAt": italy["createdAt"]}])
    );
    t.stop().await;
}

/// Concurrent ratings and messages: the counts are exact.
#[tokio::test]
async fn analytics_stay_exact_under_concurrent_ratings_and_messages() {
    let t = TestApp::spawn().await;
    let o = published(&t, "c", "Busy", json!({})).await;
    let conv = conversation(&t, &o).await;
    let first = ask(&t, &o, &conv, "How long do refunds take?").await;
    let answer = first["id"].as_str().unwrap().to_owned();
    let convs: Vec<String> = futures::future::join_all((0..25).map(|_| conversation(&t, &o))).await;
    let work = (0..50).map(|i| {
        let (t, o, answer, conv, rated_conv) = (&t, &o, answer.clone(), convs[i % 25].clone(), conv.clone());
        async move {
            if i % 2 == 0 {
                let rating = if i % 4 == 0 { "up" } else { "down" };
                let path = o.api(&format!("/conversations/{rated_conv}/messages/{answer}/feedback"));
                assert_eq!(keyed(t, Method::POST, &path, Some(json!({"rating": rating}))).await.status(), 200);
            } else {
                // The workspace writes a few answers at a time: a refused one (429, nothing
                // stored) is sent again, as a client would.
                let path = o.api(&format!("/conversations/{conv}/messages"));
                loop {
                    let body = json!({"content": "Are shipping costs refunded?"});
                    let res = keyed(t, Method::POST, &path, Some(body)).await;
                    match res.status().as_u16() {
                        201 => break,
                        429 => tokio::time::sleep(Duration::from_millis(20)).await,
                        other => panic!("{other}: {}", res.text().await.unwrap()),
                    }
                }
            }
        }
    });
    futures::future::join_all(work).await;
    let a = analytics(&t, &o, "").await;
    let totals = &a["totals"];
    assert_eq!(totals["conversations"], 26, "{a}");
    assert_eq!(totals["messages"], 1 + 25, "every message once");
    assert_eq!(totals["answered"].as_u64().unwrap() + totals["unanswered"].as_u64().unwrap(), 26);
    let ratings = totals["ratingsUp"].as_u64().unwrap() + totals["ratingsDown"].as_u64().unwrap();
    assert_eq!(ratings, 1, "one answer holds one rating, however many raced");
    let (_, read) = parts(keyed(&t, Method::GET, o.api(&format!("/conversations/{conv}")), None).await).await;
    let stored = read["messages"].as_array().unwrap().iter().find(|m| m["id"] == answer.as_str()).unwrap()["feedback"]
        ["rating"]
        .clone();
    let counted = if totals["ratingsUp"] == 1 { "up" } else { "down" };
    assert_eq!(stored, counted, "the stored rating is the one counted");
    t.stop().await;
}

/// A minimal RFC 4180 reader for the test: quoted fields with doubled quotes and line breaks.
fn parse_csv(s: &str) -> Vec<Vec<String>> {
    let (mut rows, mut row, mut field) = (Vec::new(), Vec::new(), String::new());
    let mut chars = s.chars().peekable();
    let mut quoted = false;
    while let Some(ch) = chars.next() {
        match (quoted, ch) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\r') if chars.peek() == Some(&'\n') => {
                chars.next();
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => field.push(c),
        }
    }
    rows
}

/// A turn of an owner with corrections checks them and searches at once, and both want the
/// question's embedding: it is made once, the second asker waiting for the first.
#[tokio::test]
async fn a_turn_with_corrections_embeds_its_question_once() {
    // 26 characters: its stub vector is far from the corrected question's (25), so the check
    // finds no correction and the turn searches.
    let question = "Are gift cards refundable?";
    // The stub counts the requests that embed the question alone, and holds each until a second
    // one arrives (or 2 s pass): two asked at once overlap, whatever the timing.
    let (count, seen) = tokio::sync::watch::channel(0usize);
    let count = std::sync::Arc::new(count);
    let t = TestApp::with_stub_embedder(move |inputs| {
        let count = count.clone();
        async move {
            if inputs == [question] {
                count.send_modify(|n| *n += 1);
                let _ = tokio::time::timeout(Duration::from_secs(2), count.subscribe().wait_for(|n| *n >= 2)).await;
            }
        }
    })
    .await;
    let o = published(&t, "c", "Embedded once", json!({})).await;
    let conv = conversation(&t, &o).await;
    let answer = ask(&t, &o, &conv, "How long do refunds take?").await;
    let path = o.api(&format!("/conversations/{conv}/messages/{}/correction", answer["id"].as_str().unwrap()));
    let res = keyed(&t, Method::PUT, &path, Some(json!({"content": "Ten days."}))).await;
    assert_eq!(res.status(), 200);

    let fresh = conversation(&t, &o).await;
    let reply = ask(&t, &o, &fresh, question).await;
    assert_ne!(reply["generatedBy"], "correction", "{reply}");
    assert_eq!(*seen.borrow(), 1, "the correction check and the search shared one embedding");
    // Asked again, the cached embedding serves both.
    let again = conversation(&t, &o).await;
    ask(&t, &o, &again, question).await;
    assert_eq!(*seen.borrow(), 1);
    t.stop().await;
}
