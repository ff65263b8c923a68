use crate::support::{TestApp, expect_error, parts};
use reqwest::Method;
use serde_json::json;

#[tokio::test]
async fn unknown_routes_and_wrong_methods_get_the_envelope() {
    let t = TestApp::spawn().await;
    for path in ["/", "/api/v1/nope", "/api/v2/chatbots", "/api/v1/chatbots/cb_x/unknown"] {
        expect_error(t.client.get(t.url(path)).send().await.unwrap(), 404, "not_found").await;
        expect_error(t.req(Method::GET, path, &t.dev_key).send().await.unwrap(), 404, "not_found").await;
    }
    let res = t.req(Method::PUT, "/api/v1/chatbots", &t.dev_key).send().await.unwrap();
    assert!(res.headers().get("allow").is_some());
    expect_error(res, 405, "method_not_allowed").await;
    let res = t.req(Method::POST, "/api/v1/chatbots/cb_01jq3z5v7b8c9d0e1f2g3h4j5k", &t.dev_key).send().await.unwrap();
    expect_error(res, 405, "method_not_allowed").await;
    t.stop().await;
}

#[tokio::test]
async fn malformed_bodies_are_invalid_json() {
    let t = TestApp::spawn().await;
    let post = || t.req(Method::POST, "/api/v1/chatbots", &t.dev_key);
    for body in ["{", "{\"name\": }", "not json", "", "{\"name\":\"a\"} trailing"] {
        let res = post().header("content-type", "application/json").body(body).send().await.unwrap();
        expect_error(res, 400, "invalid_json").await;
    }
    // Valid JSON with the wrong content type, or none.
    let res = post().header("content-type", "text/plain").body("{\"name\":\"a\"}").send().await.unwrap();
    expect_error(res, 400, "invalid_json").await;
    let res = post().body("{\"name\":\"a\"}").send().await.unwrap();
    expect_error(res, 400, "invalid_json").await;
    // `application/json; charset=utf-8` is JSON.
    let res = post().header("content-type", "application/json; charset=utf-8").body("{\"name\":\"a\"}").send();
    assert_eq!(res.await.unwrap().status(), 201);
    t.stop().await;
}

/// docs/api.md §2: a body that is JSON but not an object at the top is `invalid_json`, on every
/// route the served document says takes a JSON body. Keyed routes get ids of the right form that
/// name nothing (the body is refused before anything is looked up); public routes answer 404 for
/// an unpublished address first, so they get a published Mind's and chatbot's.
#[tokio::test]
async fn a_body_that_is_not_a_json_object_is_invalid_json_on_every_json_route() {
    let t = TestApp::spawn().await;
    let doc: serde_json::Value =
        t.client.get(t.url("/api/v1/openapi.json")).send().await.unwrap().json().await.unwrap();
    let ulid = "01jq3z5v7b8c9d0e1f2g3h4j5k";
    let mut slugs = Vec::new();
    for (kind, member) in [("minds", "mind"), ("chatbots", "chatbot")] {
        let res = t.req(Method::POST, &format!("/api/v1/{kind}"), &t.dev_key).json(&json!({"name": "Ada"}));
        let (status, created) = parts(res.send().await.unwrap()).await;
        assert_eq!(status, 201, "{created}");
        let id = created[member]["id"].as_str().unwrap();
        let res = t.req(Method::POST, &format!("/api/v1/{kind}/{id}/publish"), &t.dev_key).json(&json!({}));
        let (status, published) = parts(res.send().await.unwrap()).await;
        assert_eq!(status, 200, "{published}");
        slugs.push(published[member]["slug"].as_str().unwrap().to_owned());
    }
    let ids = [
        ("{chatbotId}", "cb"),
        ("{sourceId}", "src"),
        ("{mindId}", "mind"),
        ("{formId}", "form"),
        ("{hookId}", "hook"),
        ("{deliveryId}", "dlv"),
        ("{conversationId}", "conv"),
        ("{messageId}", "msg"),
        ("{testId}", "test"),
        ("{actionId}", "act"),
        ("{channelId}", "chan"),
    ];
    let mut routes = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            // The platforms' channel routes read the raw body to check its signature first: an
            // unknown channel is 404 and a bad signature 401 before the body is read as JSON.
            if operation["requestBody"]["content"]["application/json"].is_object() && !path.starts_with("/channels/") {
                let slug = if path.starts_with("/c/") { &slugs[1] } else { &slugs[0] };
                let url = ids.iter().fold(path.replace("{slug}", slug), |url, (name, prefix)| {
                    url.replace(name, &format!("{prefix}_{ulid}"))
                });
                routes.push((method.to_uppercase(), url));
            }
        }
    }
    assert!(routes.len() >= 15, "the document lists the JSON routes: {routes:?}");
    assert!(routes.iter().any(|(m, p)| m == "POST" && p == "/api/v1/minds"), "{routes:?}");
    let mut wrong = Vec::new();
    for (method, path) in &routes {
        for body in ["[]", "[1]", "1", "\"text\"", "null", "true"] {
            let res = t.req(method.parse().unwrap(), path, &t.dev_key).header("content-type", "application/json");
            let (status, answer) = parts(res.body(body).send().await.unwrap()).await;
            if (status, answer["error"]["code"].as_str()) != (400, Some("invalid_json")) {
                wrong.push(format!("{method} {path} {body}: {status} {answer}"));
            }
        }
    }
    assert!(wrong.is_empty(), "not invalid_json:\n{}", wrong.join("\n"));
    t.stop().await;
}

#[tokio::test]
async fn wrong_types_and_shapes_are_validation_errors_naming_the_field() {
    let t = TestApp::spawn().await;
    let post = |body| t.req(Method::POST, "/api/v1/chatbots", &t.dev_key).json(&body).send();
    let body = expect_error(post(json!({"name": 5})).await.unwrap(), 400, "validation_error").await;
    assert!(body["error"]["details"]["fields"]["name"].is_string(), "{body}");
    let body = expect_error(post(json!({"name": "ok", "slug": ["a"]})).await.unwrap(), 400, "validation_error").await;
    assert!(body["error"]["details"]["fields"]["slug"].is_string(), "{body}");
    // Unknown fields are ignored.
    let (status, body) = parts(post(json!({"name": "ok", "color": "blue"})).await.unwrap()).await;
    assert_eq!(status, 201, "{body}");
    t.stop().await;
}

#[tokio::test]
async fn oversize_bodies_are_payload_too_large() {
    let t = TestApp::spawn().await;
    let huge = format!("{{\"name\":\"x\",\"descriptor\":\"{}\"}}", "a".repeat(3 * 1024 * 1024));
    let res = t
        .req(Method::POST, "/api/v1/chatbots", &t.dev_key)
        .header("content-type", "application/json")
        .body(huge)
        .send()
        .await
        .unwrap();
    expect_error(res, 413, "payload_too_large").await;
    // The server is fine afterwards.
    assert_eq!(t.req(Method::GET, "/api/v1/chatbots", &t.dev_key).send().await.unwrap().status(), 200);
    t.stop().await;
}

#[tokio::test]
async fn request_ids_are_echoed_or_generated() {
    let t = TestApp::spawn().await;
    let res = t.req(Method::GET, "/api/v1/chatbots", &t.dev_key).header("x-request-id", "my-trace-42").send();
    let res = res.await.unwrap();
    assert_eq!(res.headers()["x-request-id"], "my-trace-42");
    let res = t.client.get(t.url("/api/v1/chatbots")).header("x-request-id", "err-7").send().await.unwrap();
    assert_eq!(res.headers()["x-request-id"], "err-7");
    assert_eq!(res.status(), 401);
    let a = t.client.get(t.url("/nope")).send().await.unwrap();
    let b = t.client.get(t.url("/nope")).send().await.unwrap();
    let (a, b) = (a.headers()["x-request-id"].to_str().unwrap(), b.headers()["x-request-id"].to_str().unwrap());
    assert!(a.starts_with("req_") && b.starts_with("req_") && a != b);
    t.stop().await;
}

#[tokio::test]
async fn malformed_ids_in_paths_are_not_found() {
    let t = TestApp::spawn().await;
    for id in
        ["nope", "cb_", "src_01jq3z5v7b8c9d0e1f2g3h4j5k", "cb_01JQ3Z5V7B8C9D0E1F2G3H4J5K", "cb_%ff", "..%2f..%2fetc"]
    {
        let res = t.req(Method::GET, &format!("/api/v1/chatbots/{id}"), &t.dev_key).send().await.unwrap();
        expect_error(res, 404, "not_found").await;
    }
    t.stop().await;
}
