//! Spoken answers against a speech server that answers more than the cap (docs/limits.md
//! "Spoken answers"): the call stops at the cap, the listener gets `503 speech_unavailable`,
//! and nothing is kept.

use crate::support::{TestApp, expect_error, parts};
use reqwest::Method;
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

#[tokio::test]
async fn audio_over_the_cap_is_speech_unavailable_and_not_kept() {
    // 2 MiB of "audio" to every request, against a cap of 1 MiB.
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let app = axum::Router::new().route(
        "/v1/audio/speech",
        axum::routing::post(move || {
            counted.fetch_add(1, Ordering::SeqCst);
            async { ([("content-type", "audio/mpeg")], vec![0xFFu8; 2 << 20]) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let mut config = lore_chat::speech::SpeechConfig::new(&base_url, None, "tts-test");
    config.max_bytes = 1 << 20;
    let speech = lore_chat::OpenAiSpeech::with_config(config).unwrap();
    let t =
        TestApp::spawn_with(lore::compose::Overrides { speech: Some(Arc::new(speech)), ..Default::default() }).await;

    let res = t.req(Method::POST, "/api/v1/minds", &t.dev_key).json(&json!({"name": "Ada"}));
    let (status, mind) = parts(res.send().await.unwrap()).await;
    assert_eq!(status, 201, "{mind}");
    let mind = mind["mind"]["id"].as_str().unwrap().to_owned();
    let res = t.req(Method::PATCH, &format!("/api/v1/minds/{mind}"), &t.dev_key).json(&json!({"voiceEnabled": true}));
    assert_eq!(res.send().await.unwrap().status(), 200);
    let res = t.req(Method::POST, &format!("/api/v1/minds/{mind}/conversations"), &t.dev_key);
    let (status, asked) = parts(res.json(&json!({"message": "How long do refunds take?"})).send().await.unwrap()).await;
    assert_eq!(status, 201, "{asked}");
    let answer = asked["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(answer["role"], "assistant", "{asked}");
    let (conv, answer) = (asked["conversation"]["id"].as_str().unwrap(), answer["id"].as_str().unwrap());
    let path = format!("/api/v1/minds/{mind}/conversations/{conv}/messages/{answer}/speech");
    for n in 1..=2 {
        let body = expect_error(t.req(Method::GET, &path, &t.dev_key).send().await.unwrap(), 503, "speech_unavailable");
        let body = body.await;
        assert!(body["error"]["message"].as_str().unwrap().contains("try again"), "{body}");
        // Refused once (too large is not retried), and not kept: the next request asks again.
        assert_eq!(calls.load(Ordering::SeqCst), n);
    }
    t.stop().await;
}
