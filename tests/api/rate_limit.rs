use crate::support::{TestApp, expect_error};
use lore_domain::workspace::LimitsPatch;
use reqwest::Method;

#[tokio::test]
async fn the_first_n_requests_pass_then_429_with_retry_after_per_key() {
    let t = TestApp::spawn().await;
    let ws = t.workspace("limited", LimitsPatch { rate_limit_per_minute: Some(5), ..Default::default() }).await;
    let key = t.key(&ws, "chatbot:read").await;
    let other = t.key(&ws, "chatbot:read").await;
    for i in 0..5 {
        let res = t.req(Method::GET, "/api/v1/chatbots", &key).send().await.unwrap();
        assert_eq!(res.status(), 200, "request {i}");
    }
    for _ in 0..3 {
        let res = t.req(Method::GET, "/api/v1/chatbots", &key).send().await.unwrap();
        let retry: u64 = res.headers()["retry-after"].to_str().unwrap().parse().expect("integer Retry-After");
        assert!((1..=60).contains(&retry), "{retry}");
        expect_error(res, 429, "rate_limited").await;
    }
    // Limits are per key: another key of the same workspace still passes.
    assert_eq!(t.req(Method::GET, "/api/v1/chatbots", &other).send().await.unwrap().status(), 200);
    // The default workspace (600/min) is unaffected.
    assert_eq!(t.req(Method::GET, "/api/v1/chatbots", &t.dev_key).send().await.unwrap().status(), 200);
    t.stop().await;
}
