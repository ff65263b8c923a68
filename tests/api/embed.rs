//! Chat on other sites (docs/api.md §18) over HTTP, on whichever backend the run uses: chatbots
//! published like Minds under `/c/{slug}`, their public settings, `allowedOrigins` (the page's
//! `frame-ancestors` and CORS on the visitor routes), the embed page and `widget.js`, the visitor
//! read that lets a page reload continue a conversation, identity verification and the leads of
//! chatbots' e-mail gates.

use crate::receiver::Receiver;
use crate::support::{TestApp, expect_error, parts};
use futures::FutureExt;
use lore_domain::workspace::LimitsPatch;
use reqwest::header::HeaderMap;
use reqwest::{Method, Response};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const POLICY: &str = "Refunds are paid within fourteen days of the return. Shipping costs are not refunded.";
/// What a browser sends when it navigates to a page.
const BROWSER_ACCEPT: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/// A Mind (`/m/…`, `/api/v1/minds/…`) or a chatbot (`/c/…`, `/api/v1/chatbots/…`): the same
/// checks run against both.
#[derive(Clone, Debug)]
struct Owner {
    /// `m` or `c`.
    kind: &'static str,
    id: String,
    slug: String,
}

impl Owner {
    /// `/api/v1/minds/{id}` or `/api/v1/chatbots/{id}`.
    fn api(&self) -> String {
        match self.kind {
            "m" => format!("/api/v1/minds/{}", self.id),
            _ => format!("/api/v1/chatbots/{}", self.id),
        }
    }

    /// The detail's member in `{status, mind}` / `{status, chatbot}`.
    fn member(&self) -> &'static str {
        match self.kind {
            "m" => "mind",
            _ => "chatbot",
        }
    }

    /// The conversation's owner member (`mindId` / `chatbotId`).
    fn owner_key(&self) -> &'static str {
        match self.kind {
            "m" => "mindId",
            _ => "chatbotId",
        }
    }

    /// `/m/{slug}` or `/c/{slug}` followed by `rest`.
    fn public(&self, rest: &str) -> String {
        format!("/{}/{}{rest}", self.kind, self.slug)
    }
}

/// A Mind or chatbot named `name` (not published), with one ready text source when `source`.
async fn owner(t: &TestApp, kind: &'static str, name: &str, source: bool) -> Owner {
    let created = match kind {
        "m" => t.mind(&t.dev_key, json!({"name": name})).await,
        _ => t.create_chatbot(&t.dev_key, json!({"name": name})).await,
    };
    let o = Owner {
        kind,
        id: created["id"].as_str().unwrap().to_owned(),
        slug: created["slug"].as_str().unwrap().to_owned(),
    };
    if source {
        add_policy(t, &o).await;
    }
    o
}

/// Adds the refunds policy as a text source and waits until it is ready.
async fn add_policy(t: &TestApp, o: &Owner) {
    if o.kind == "c" {
        let body = json!({"type": "text", "name": "policy.md", "content": POLICY});
        let (status, body) = t.post_source(&t.dev_key, &o.id, body).await;
        assert_eq!(status, 201, "{body}");
        let id = body["source"]["id"].as_str().unwrap().to_owned();
        t.process(&o.id, &id).await;
        assert_eq!(t.settle(&o.id, &id).await["status"], "ready");
        return;
    }
    let res = t.req(Method::POST, &format!("{}/knowledge", o.api()), &t.dev_key);
    let (status, body) = parts(res.json(&json!({"type": "text", "content": POLICY})).send().await.unwrap()).await;
    assert_eq!(status, 201, "{body}");
    let source = body["source"]["id"].as_str().unwrap().to_owned();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let res = t.req(Method::GET, &format!("{}/knowledge/{source}", o.api()), &t.dev_key);
        let (_, s) = parts(res.send().await.unwrap()).await;
        if s["source"]["status"] == "ready" {
            return;
        }
        assert!(Instant::now() < deadline && s["source"]["status"] != "failed", "{s}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A published Mind or chatbot with `settings` PATCHed first.
async fn published(t: &TestApp, kind: &'static str, name: &str, source: bool, settings: Value) -> Owner {
    let o = owner(t, kind, name, source).await;
    let (status, body) = patch(t, &o, settings).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = publish(t, &t.dev_key, &o, Some(json!({}))).await;
    assert_eq!(status, 200, "{body}");
    o
}

async fn patch(t: &TestApp, o: &Owner, body: Value) -> (u16, Value) {
    parts(t.req(Method::PATCH, &o.api(), &t.dev_key).json(&body).send().await.unwrap()).await
}

async fn detail(t: &TestApp, o: &Owner) -> Value {
    let (status, body) = parts(t.req(Method::GET, &o.api(), &t.dev_key).send().await.unwrap()).await;
    assert_eq!(status, 200, "{body}");
    body[o.member()].clone()
}

async fn publish(t: &TestApp, key: &str, o: &Owner, body: Option<Value>) -> (u16, Value) {
    let mut req = t.req(Method::POST, &format!("{}/publish", o.api()), key);
    if let Some(b) = body {
        req = req.json(&b);
    }
    parts(req.send().await.unwrap()).await
}

/// A client whose requests come from 127.0.0.`last`: each has its own public-chat budget.
fn from(last: u8) -> reqwest::Client {
    reqwest::Client::builder().local_address(std::net::IpAddr::from([127, 0, 0, last])).build().unwrap()
}

/// A visitor's request (no key), with `Authorization: Visitor <token>` when given.
fn visitor(
    client: &reqwest::Client,
    t: &TestApp,
    method: Method,
    path: &str,
    token: Option<&str>,
) -> reqwest::RequestBuilder {
    let req = client.request(method, t.url(path));
    match token {
        Some(tok) => req.header("authorization", format!("Visitor {tok}")),
        None => req,
    }
}

/// `POST /{m|c}/{slug}/conversations` with `body`.
async fn open(client: &reqwest::Client, t: &TestApp, o: &Owner, body: Value) -> Response {
    visitor(client, t, Method::POST, &o.public("/conversations"), None).json(&body).send().await.unwrap()
}

/// Opens a conversation that must succeed: `(conversation id, visitor token, body)`.
async fn opened(client: &reqwest::Client, t: &TestApp, o: &Owner, body: Value) -> (String, String, Value) {
    let (status, json) = parts(open(client, t, o, body).await).await;
    assert_eq!(status, 201, "{json}");
    let conv = json["conversation"]["id"].as_str().unwrap().to_owned();
    let token = json["visitorToken"].as_str().unwrap().to_owned();
    (conv, token, json)
}

/// The visitor read of a conversation.
async fn visitor_read(client: &reqwest::Client, t: &TestApp, o: &Owner, conv: &str, token: Option<&str>) -> Response {
    visitor(client, t, Method::GET, &o.public(&format!("/conversations/{conv}")), token).send().await.unwrap()
}

/// The owner's read of a conversation (`conversations:read`).
async fn keyed_read(t: &TestApp, o: &Owner, conv: &str) -> Value {
    let res = t.req(Method::GET, &format!("{}/conversations/{conv}", o.api()), &t.dev_key).send().await.unwrap();
    let (status, body) = parts(res).await;
    assert_eq!(status, 200, "{body}");
    body
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The comma-separated values of every `name` header, lower-cased.
fn header_list(headers: &HeaderMap, name: &str) -> Vec<String> {
    headers
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|v| v.trim().to_ascii_lowercase())
        .filter(|v| !v.is_empty())
        .collect()
}

/// An answer to a request from allowed `origin`: the CORS headers for exactly that origin.
fn assert_cors(headers: &HeaderMap, origin: &str, what: &str) {
    assert_eq!(header(headers, "access-control-allow-origin"), Some(origin), "{what}: {headers:?}");
    assert!(header_list(headers, "vary").contains(&"origin".to_owned()), "{what}: Vary: Origin: {headers:?}");
}

/// An answer without any CORS header.
fn assert_no_cors(headers: &HeaderMap, what: &str) {
    for name in [
        "access-control-allow-origin",
        "access-control-allow-methods",
        "access-control-allow-headers",
        "access-control-allow-credentials",
        "access-control-max-age",
    ] {
        assert!(!headers.contains_key(name), "{what}: no {name} expected: {headers:?}");
    }
}

/// `OPTIONS path` as a browser's preflight of a POST from `origin`.
async fn preflight(client: &reqwest::Client, t: &TestApp, path: &str, origin: &str) -> Response {
    client
        .request(Method::OPTIONS, t.url(path))
        .header("origin", origin)
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "authorization,content-type")
        .send()
        .await
        .unwrap()
}

/// A preflight from an allowed origin: 204 with every CORS header the contract names.
fn assert_preflight_allowed(res: &Response, origin: &str, what: &str) {
    let h = res.headers();
    assert_eq!(res.status(), 204, "{what}: {h:?}");
    assert_cors(h, origin, what);
    let methods = header_list(h, "access-control-allow-methods");
    for m in ["post", "get"] {
        assert!(methods.contains(&m.to_owned()), "{what}: {m} in {methods:?}");
    }
    let allowed = header_list(h, "access-control-allow-headers");
    for name in ["authorization", "content-type", "accept"] {
        assert!(allowed.contains(&name.to_owned()), "{what}: {name} in {allowed:?}");
    }
    let max_age = header(h, "access-control-max-age").unwrap_or_else(|| panic!("{what}: no Max-Age: {h:?}"));
    assert!(max_age.parse::<u64>().is_ok_and(|s| s > 0), "{what}: Max-Age {max_age:?}");
}

/// The value of the CSP directive `name` (everything after its name).
fn csp_directive(headers: &HeaderMap, name: &str) -> String {
    let csp = header(headers, "content-security-policy").expect("a CSP");
    let found: Vec<&str> = csp
        .split(';')
        .map(str::trim)
        .filter(|d| d.split_whitespace().next() == Some(name))
        .map(|d| d[name.len()..].trim())
        .collect();
    assert_eq!(found.len(), 1, "exactly one {name} directive in {csp:?}");
    found[0].to_owned()
}

/// Lowercase hex HMAC-SHA256 keyed with the UTF-8 bytes of `secret` over `user_id`.
fn user_hash(secret: &str, user_id: &str) -> String {
    use hmac::{Hmac, Mac};
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).expect("any key length");
    mac.update(user_id.as_bytes());
    mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect()
}

/// `POST …/identity-secret` with `key`: status and body.
async fn identity_secret(t: &TestApp, key: &str, o: &Owner) -> (u16, Value) {
    parts(t.req(Method::POST, &format!("{}/identity-secret", o.api()), key).send().await.unwrap()).await
}

/// A new identity secret (asserts the 201 and its shape).
async fn new_secret(t: &TestApp, o: &Owner) -> String {
    let (status, body) = identity_secret(t, &t.dev_key, o).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["status"], "success", "{body}");
    let secret = body["identitySecret"].as_str().unwrap_or_else(|| panic!("identitySecret: {body}")).to_owned();
    assert!(secret.chars().count() >= 32, "{secret:?}");
    secret
}

// ---------------------------------------------------------------------------------------------
// Chatbot records: the public settings

#[tokio::test]
async fn chatbot_detail_and_list_carry_the_public_settings_with_their_defaults() {
    let t = TestApp::spawn().await;
    let c = t.create_chatbot(&t.dev_key, json!({"name": "Help Desk"})).await;
    let mind = t.mind(&t.dev_key, json!({"name": "Ada"})).await;
    let expected = json!({
        "isPublished": false,
        "publicUrl": t.url("/c/help-desk"),
        "welcomeMessage": null,
        "suggestedQuestions": [],
        "collectEmailBeforeChat": false,
        "showSources": true,
        "allowedOrigins": [],
        "identityVerification": false,
    });
    for (key, value) in expected.as_object().unwrap() {
        assert!(c.as_object().unwrap().contains_key(key), "the create answer has {key}: {c}");
        assert_eq!(&c[key], value, "create answer's {key}: {c}");
    }
    assert!(c.as_object().unwrap().contains_key("theme"), "{c}");
    assert_eq!(c["theme"], mind["theme"], "a chatbot's theme defaults as a Mind's does: {c}");
    let o = Owner { kind: "c", id: c["id"].as_str().unwrap().to_owned(), slug: "help-desk".into() };
    assert_eq!(detail(&t, &o).await, c, "the detail is the create answer");

    let res = t.req(Method::GET, "/api/v1/chatbots", &t.dev_key).send().await.unwrap();
    let (status, list) = parts(res).await;
    assert_eq!(status, 200, "{list}");
    let item = &list["chatbots"][0];
    assert_eq!(item["id"], c["id"], "{list}");
    for (key, value) in expected.as_object().unwrap() {
        assert!(item.as_object().unwrap().contains_key(key), "the list item has {key}: {item}");
        assert_eq!(&item[key], value, "list item's {key}: {item}");
    }
    assert_eq!(item["theme"], c["theme"]);

    // Minds' detail gains the two embedding settings too.
    for key in ["allowedOrigins", "identityVerification"] {
        assert!(mind.as_object().unwrap().contains_key(key), "the Mind's detail has {key}: {mind}");
    }
    assert_eq!(
        (mind["allowedOrigins"].clone(), mind["identityVerification"].clone()),
        (json!([]), json!(false)),
        "{mind}"
    );
    let m = Owner { kind: "m", id: mind["id"].as_str().unwrap().to_owned(), slug: "ada".into() };
    assert_eq!(detail(&t, &m).await["allowedOrigins"], json!([]));

    // publicUrl follows the slug.
    let (status, body) = patch(&t, &o, json!({"slug": "desk"})).await;
    assert_eq!((status, body["chatbot"]["publicUrl"].clone()), (200, json!(t.url("/c/desk"))), "{body}");
    t.stop().await;
}

#[tokio::test]
async fn chatbot_public_settings_follow_the_minds_rules() {
    let t = TestApp::spawn().await;
    let o = owner(&t, "c", "Settings Bot", false).await;
    let q = |n: usize| (0..n).map(|i| format!("Question {i}?")).collect::<Vec<_>>();
    let (status, body) = patch(
        &t,
        &o,
        json!({"welcomeMessage": "Hi! Ask me about refunds.", "suggestedQuestions": q(4),
               "collectEmailBeforeChat": true, "showSources": false,
               "theme": {"primaryColor": "#FF5500", "backgroundColor": "#fff", "fontFamily": "Inter, sans-serif",
                         "mode": "dark"}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let c = body["chatbot"].clone();
    assert_eq!(c["welcomeMessage"], "Hi! Ask me about refunds.");
    assert_eq!(c["suggestedQuestions"], json!(q(4)));
    assert_eq!((c["collectEmailBeforeChat"].clone(), c["showSources"].clone()), (json!(true), json!(false)));
    assert_eq!(
        c["theme"],
        json!({"primaryColor": "#ff5500", "backgroundColor": "#fff", "fontFamily": "Inter, sans-serif", "mode": "dark"})
    );
    assert_eq!(detail(&t, &o).await, c, "the settings persisted");

    // Refused as on Minds, naming the field; a refused PATCH changes nothing.
    for (body, field) in [
        (json!({"suggestedQuestions": q(5)}), "suggestedQuestions"),
        (json!({"suggestedQuestions": ["ok", ""]}), "suggestedQuestions"),
        (json!({"suggestedQuestions": "one?"}), "suggestedQuestions"),
        (json!({"showSources": "yes"}), "showSources"),
        (json!({"collectEmailBeforeChat": "yes"}), "collectEmailBeforeChat"),
        (json!({"theme": {"primaryColor": "red"}}), "theme.primaryColor"),
        (json!({"theme": {"fontFamily": "x;}</style><script>alert(1)</script>"}}), "theme.fontFamily"),
        (json!({"theme": "dark"}), "theme"),
    ] {
        let res = t.req(Method::PATCH, &o.api(), &t.dev_key).json(&body).send().await.unwrap();
        let e = expect_error(res, 400, "validation_error").await;
        let fields: Vec<&String> = e["error"]["details"]["fields"].as_object().unwrap().keys().collect();
        assert_eq!(fields, [field], "{body}: {e}");
    }
    assert_eq!(detail(&t, &o).await, c, "refused PATCHes changed nothing");

    // null clears the welcome message and the theme.
    let (status, body) = patch(&t, &o, json!({"welcomeMessage": null, "theme": null})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["chatbot"]["welcomeMessage"].clone(), body["chatbot"]["theme"].clone()),
        (Value::Null, Value::Null)
    );
    t.stop().await;
}

// ---------------------------------------------------------------------------------------------
// Publishing chatbots

#[tokio::test]
async fn publishing_a_chatbot_opens_its_page_and_unpublishing_closes_it() {
    let t = TestApp::spawn().await;
    let o = owner(&t, "c", "Public Bot", true).await;
    let (status, body) =
        patch(&t, &o, json!({"welcomeMessage": "Welcome, <friend>!", "suggestedQuestions": ["Refunds?"]})).await;
    assert_eq!(status, 200, "{body}");
    expect_error(t.client.get(t.url("/c/public-bot")).send().await.unwrap(), 404, "not_found").await;
    expect_error(open(&t.client, &t, &o, json!({})).await, 404, "not_found").await;

    // Scope: chatbot:write.
    let reader = t.key("default", "chatbot:read,minds:write").await;
    let e = expect_error(
        t.req(Method::POST, &format!("{}/publish", o.api()), &reader).send().await.unwrap(),
        403,
        "insufficient_scope",
    )
    .await;
    assert_eq!(e["error"]["details"]["required"], "chatbot:write", "{e}");
    let writer = t.key("default", "chatbot:write").await;

    // An empty body publishes; the answer is the whole chatbot.
    let (status, body) = publish(&t, &writer, &o, None).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "success");
    assert_eq!(body["chatbot"]["isPublished"], true, "{body}");
    assert_eq!(body["chatbot"]["publicUrl"], t.url("/c/public-bot"));
    assert_eq!(body["chatbot"]["welcomeMessage"], "Welcome, <friend>!", "the full chatbot: {body}");
    assert_eq!(body["chatbot"], detail(&t, &o).await, "the full chatbot, as read back");

    let res = t.client.get(t.url("/c/public-bot")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(header(res.headers(), "content-type"), Some("text/html; charset=utf-8"));
    let html = res.text().await.unwrap();
    assert!(html.contains("Public Bot"), "the chatbot's name: {html}");
    assert!(html.contains("Welcome, &lt;friend&gt;!"), "the welcome message, escaped: {html}");
    assert!(html.contains("Refunds?"), "the suggested question: {html}");
    assert!(!html.contains("<friend>"));

    // {"isPublished": false} unpublishes: the page and the visitor routes are gone.
    let (_, _, first) = opened(&t.client, &t, &o, json!({})).await;
    let (conv, token) = (first["conversation"]["id"].as_str().unwrap(), first["visitorToken"].as_str().unwrap());
    let (status, body) = publish(&t, &t.dev_key, &o, Some(json!({"isPublished": false}))).await;
    assert_eq!((status, body["chatbot"]["isPublished"].clone()), (200, json!(false)), "{body}");
    assert_eq!(body["chatbot"]["publicUrl"], t.url("/c/public-bot"), "publicUrl stays: {body}");
    expect_error(t.client.get(t.url("/c/public-bot")).send().await.unwrap(), 404, "not_found").await;
    expect_error(open(&t.client, &t, &o, json!({})).await, 404, "not_found").await;
    expect_error(visitor_read(&t.client, &t, &o, conv, Some(token)).await, 404, "not_found").await;
    let res = visitor(&t.client, &t, Method::POST, &o.public(&format!("/conversations/{conv}/messages")), Some(token))
        .json(&json!({"content": "Refunds?"}))
        .send()
        .await
        .unwrap();
    expect_error(res, 404, "not_found").await;

    // `{}` publishes again; a bad switch is refused.
    let (status, body) = publish(&t, &t.dev_key, &o, Some(json!({}))).await;
    assert_eq!((status, body["chatbot"]["isPublished"].clone()), (200, json!(true)), "{body}");
    let (status, body) = publish(&t, &t.dev_key, &o, Some(json!({"isPublished": "yes"}))).await;
    assert_eq!((status, body["error"]["code"].as_str()), (400, Some("validation_error")), "{body}");
    assert_eq!(t.client.get(t.url("/c/public-bot")).send().await.unwrap().status(), 200);

    // A renamed slug moves the page; deleting the chatbot removes it.
    assert_eq!(patch(&t, &o, json!({"slug": "moved-bot"})).await.0, 200);
    expect_error(t.client.get(t.url("/c/public-bot")).send().await.unwrap(), 404, "not_found").await;
    assert_eq!(t.client.get(t.url("/c/moved-bot")).send().await.unwrap().status(), 200);
    assert_eq!(t.req(Method::DELETE, &o.api(), &t.dev_key).send().await.unwrap().status(), 200);
    expect_error(t.client.get(t.url("/c/moved-bot")).send().await.unwrap(), 404, "not_found").await;
    expect_error(t.client.get(t.url("/c/no-such-bot")).send().await.unwrap(), 404, "not_found").await;
    t.stop().await;
}

#[tokio::test]
async fn a_published_chatbot_slug_is_one_public_address_across_workspaces() {
    let t = TestApp::spawn().await;
    let ws_b = t.workspace("beta", LimitsPatch::default()).await;
    let key_b = t.key(&ws_b, "chatbot:read,chatbot:write").await;
    let a = owner(&t, "c", "Concierge", false).await;
    let b = t.create_chatbot(&key_b, json!({"name": "Concierge"})).await;
    let b = Owner { kind: "c", id: b["id"].as_str().unwrap().to_owned(), slug: b["slug"].as_str().unwrap().to_owned() };
    assert_eq!(a.slug, b.slug, "slugs are unique per workspace only");
    assert_eq!(publish(&t, &t.dev_key, &a, None).await.0, 200);
    let (status, body) = publish(&t, &key_b, &b, None).await;
    assert_eq!((status, body["error"]["code"].as_str()), (409, Some("slug_taken")), "{body}");
    let res = t.req(Method::GET, &b.api(), &key_b).send().await.unwrap();
    assert_eq!(parts(res).await.1["chatbot"]["isPublished"], false, "the refused publish changed nothing");
    // A Mind of the same slug is another address (/m/), not a conflict.
    let m = t.mind(&t.dev_key, json!({"name": "Concierge", "slug": "concierge"})).await;
    let m = Owner { kind: "m", id: m["id"].as_str().unwrap().to_owned(), slug: "concierge".into() };
    assert_eq!(publish(&t, &t.dev_key, &m, None).await.0, 200);
    // Unpublishing the first frees the address; then the first cannot take it back.
    assert_eq!(publish(&t, &t.dev_key, &a, Some(json!({"isPublished": false}))).await.0, 200);
    let (status, body) = publish(&t, &key_b, &b, None).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = publish(&t, &t.dev_key, &a, None).await;
    assert_eq!((status, body["error"]["code"].as_str()), (409, Some("slug_taken")), "{body}");
    assert_eq!(t.client.get(t.url("/c/concierge")).send().await.unwrap().status(), 200);
    // A published chatbot of a third workspace cannot move onto the address either.
    let ws_c = t.workspace("gamma", LimitsPatch::default()).await;
    let key_c = t.key(&ws_c, "chatbot:read,chatbot:write").await;
    let g = t.create_chatbot(&key_c, json!({"name": "Gamma Desk"})).await;
    let g = Owner { kind: "c", id: g["id"].as_str().unwrap().to_owned(), slug: "gamma-desk".into() };
    assert_eq!(publish(&t, &key_c, &g, None).await.0, 200);
    let res = t.req(Method::PATCH, &g.api(), &key_c).json(&json!({"slug": "concierge"})).send().await.unwrap();
    expect_error(res, 409, "slug_taken").await;
    assert_eq!(
        t.client.get(t.url("/c/gamma-desk")).send().await.unwrap().status(),
        200,
        "the refused move changed nothing"
    );
    t.stop().await;
}

// ---------------------------------------------------------------------------------------------
// Visitors of a published chatbot, and the visitor read (continuity)

#[tokio::test]
async fn visitors_chat_with_a_published_chatbot_and_read_their_own_conversation() {
    let t = TestApp::spawn().await;
    let o = published(&t, "c", "Refund Bot", true, json!({})).await;
    let c = &t.client;
    let (conv, token, created) = opened(c, &t, &o, json!({"message": "How long do refunds take?"})).await;
    assert!(token.starts_with("vt_"), "{token}");
    assert_eq!(created["conversation"]["channel"], "public");
    assert_eq!(created["conversation"]["chatbotId"], o.id.as_str());
    let messages = created["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2, "question, answer (no welcome message): {created}");
    assert!(messages[1]["content"].as_str().unwrap().contains("fourteen days"), "{created}");
    assert_eq!(messages[1]["citations"][0]["sourceType"], "text");

    let ask = |conv: String, token: Option<String>| {
        let req = visitor(c, &t, Method::POST, &o.public(&format!("/conversations/{conv}/messages")), token.as_deref());
        req.json(&json!({"content": "Are shipping costs refunded?"})).send()
    };
    let (status, answered) = parts(ask(conv.clone(), Some(token.clone())).await.unwrap()).await;
    assert_eq!(status, 201, "{answered}");
    assert!(answered["message"]["content"].as_str().unwrap().contains("Shipping costs are not refunded"));

    // Streamed like the Mind's.
    let res = visitor(c, &t, Method::POST, &o.public(&format!("/conversations/{conv}/messages")), Some(&token))
        .header("accept", "text/event-stream")
        .json(&json!({"content": "How long do refunds take?"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(header(res.headers(), "content-type").unwrap().starts_with("text/event-stream"));
    let events = crate::conversations::events(&res.text().await.unwrap());
    assert_eq!(events.first().map(|e| e.0.as_str()), Some("citations"), "{events:?}");
    assert_eq!(events.last().map(|e| e.0.as_str()), Some("done"), "{events:?}");

    // The visitor read: the same conversation and messages the owner reads, oldest first.
    let res = visitor_read(c, &t, &o, &conv, Some(&token)).await;
    let (status, read) = parts(res).await;
    assert_eq!(status, 200, "{read}");
    assert_eq!(read["status"], "success");
    let keyed = keyed_read(&t, &o, &conv).await;
    assert_eq!(read["conversation"], keyed["conversation"], "same conversation shape");
    assert_eq!(read["messages"], keyed["messages"], "same messages (sources shown)");
    assert_eq!(read["conversation"]["messageCount"], 6);
    let read_messages = read["messages"].as_array().unwrap();
    assert_eq!(read_messages.len(), 6);
    assert_eq!(read_messages[0]["content"], "How long do refunds take?", "oldest first");
    assert_eq!(read_messages[2]["content"], "Are shipping costs refunded?");
    assert_eq!(read_messages[4]["content"], "How long do refunds take?");

    // Another conversation's token, none, a malformed one, a key: not found.
    let (other_conv, other_token, _) = opened(c, &t, &o, json!({})).await;
    expect_error(visitor_read(c, &t, &o, &conv, Some(&other_token)).await, 404, "not_found").await;
    expect_error(visitor_read(c, &t, &o, &other_conv, Some(&token)).await, 404, "not_found").await;
    expect_error(visitor_read(c, &t, &o, &conv, None).await, 404, "not_found").await;
    expect_error(visitor_read(c, &t, &o, &conv, Some("vt_123")).await, 404, "not_found").await;
    expect_error(visitor_read(c, &t, &o, &conv, Some("")).await, 404, "not_found").await;
    let keyed_visitor = c.get(t.url(&o.public(&format!("/conversations/{conv}")))).bearer_auth(&t.dev_key);
    expect_error(keyed_visitor.send().await.unwrap(), 404, "not_found").await;
    expect_error(ask(conv.clone(), Some(other_token)).await.unwrap(), 404, "not_found").await;
    // The chatbot's conversation is not reachable under another slug or as a Mind's.
    let (status, _) = parts(visitor_read(c, &t, &Owner { kind: "m", ..o.clone() }, &conv, Some(&token)).await).await;
    assert_eq!(status, 404);

    // The owner lists visitors' conversations.
    let res = t.req(Method::GET, &format!("{}/conversations", o.api()), &t.dev_key).send().await.unwrap();
    let (_, listed) = parts(res).await;
    assert_eq!(listed["pagination"]["total"], 2, "{listed}");
    assert!(listed["conversations"].as_array().unwrap().iter().all(|c| c["channel"] == "public"));
    t.stop().await;
}

#[tokio::test]
async fn a_chatbot_conversation_starts_with_its_welcome_message() {
    let t = TestApp::spawn().await;
    let o = published(&t, "c", "Greeter Bot", true, json!({"welcomeMessage": "Hello, visitor."})).await;
    let (conv, token, created) = opened(&t.client, &t, &o, json!({"message": "How long do refunds take?"})).await;
    let messages = created["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3, "welcome, question, answer: {created}");
    assert_eq!(
        (messages[0]["role"].as_str(), messages[0]["content"].as_str(), messages[0]["generatedBy"].as_str()),
        (Some("assistant"), Some("Hello, visitor."), Some("welcome")),
        "{created}"
    );
    assert_eq!(messages[0]["citations"], json!([]));
    assert!(messages[2]["content"].as_str().unwrap().contains("fourteen days"), "{created}");
    let (status, read) = parts(visitor_read(&t.client, &t, &o, &conv, Some(&token)).await).await;
    assert_eq!(status, 200, "{read}");
    assert_eq!(read["messages"][0]["generatedBy"], "welcome", "{read}");
    // An empty create is the welcome message alone.
    let (_, _, empty) = opened(&t.client, &t, &o, json!({})).await;
    assert_eq!(empty["messages"].as_array().map(Vec::len), Some(1), "{empty}");
    assert_eq!(empty["messages"][0]["content"], "Hello, visitor.");
    t.stop().await;
}

#[tokio::test]
async fn the_visitor_read_hides_sources_when_the_owner_does() {
    let t = TestApp::spawn().await;
    let c = &t.client;
    for kind in ["m", "c"] {
        let o = published(&t, kind, &format!("Quiet {kind}"), true, json!({"showSources": false})).await;
        let (conv, token, created) = opened(c, &t, &o, json!({"message": "How long do refunds take?"})).await;
        assert_eq!(created["conversation"][o.owner_key()], o.id.as_str(), "{created}");
        let (status, read) = parts(visitor_read(c, &t, &o, &conv, Some(&token)).await).await;
        assert_eq!(status, 200, "{kind}: {read}");
        assert_eq!(read["conversation"]["id"], conv.as_str());
        let answer = read["messages"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(answer["role"], "assistant");
        assert!(answer["content"].as_str().unwrap().contains("fourteen days"), "{kind}: {answer}");
        assert!(!answer["content"].as_str().unwrap().contains("[1]"), "{kind}: no markers: {answer}");
        assert_eq!(answer["citations"], json!([]), "{kind}: {answer}");
        // The owner's read still has them.
        let keyed = keyed_read(&t, &o, &conv).await;
        let stored = keyed["messages"].as_array().unwrap().last().unwrap().clone();
        assert!(stored["content"].as_str().unwrap().contains("[1]"), "{kind}: {stored}");
        assert_eq!(stored["citations"].as_array().unwrap().len(), 1, "{kind}: {stored}");
        assert_eq!(read["messages"].as_array().unwrap().len(), keyed["messages"].as_array().unwrap().len());
        // Only the conversation's own token opens it.
        let (_, other_token, _) = opened(c, &t, &o, json!({})).await;
        for token in [Some(other_token.as_str()), None, Some("vt_0000"), Some("garbage")] {
            expect_error(visitor_read(c, &t, &o, &conv, token).await, 404, "not_found").await;
        }
    }
    t.stop().await;
}

// ---------------------------------------------------------------------------------------------
// allowedOrigins: validation, frame-ancestors, CORS

#[tokio::test]
async fn allowed_origins_are_validated_normalised_and_deduplicated() {
    let t = TestApp::spawn().await;
    for kind in ["m", "c"] {
        let o = owner(&t, kind, &format!("Origins {kind}"), false).await;
        let (status, body) = patch(
            &t,
            &o,
            json!({"allowedOrigins": ["https://Shop.Example", "http://localhost:8080", "http://127.0.0.1:3000",
                                      "https://shop.example", "https://docs.example:8443", "http://localhost"]}),
        )
        .await;
        assert_eq!(status, 200, "{kind}: {body}");
        let stored = json!([
            "https://shop.example",
            "http://localhost:8080",
            "http://127.0.0.1:3000",
            "https://docs.example:8443",
            "http://localhost"
        ]);
        assert_eq!(body[o.member()]["allowedOrigins"], stored, "{kind}: lower-cased, duplicates removed");
        assert_eq!(detail(&t, &o).await["allowedOrigins"], stored, "{kind}: persisted");

        // Twenty is the bound.
        let twenty: Vec<String> = (0..20).map(|i| format!("https://site{i}.example")).collect();
        let (status, body) = patch(&t, &o, json!({"allowedOrigins": twenty})).await;
        assert_eq!((status, body[o.member()]["allowedOrigins"].clone()), (200, json!(twenty)), "{kind}: {body}");

        let mut twenty_one = twenty.clone();
        twenty_one.push("https://site20.example".into());
        for bad in [
            json!(["http://example.com"]),
            json!(["http://localhost.example.com"]),
            json!(["ftp://example.com"]),
            json!(["*"]),
            json!(["null"]),
            json!(["example.com"]),
            json!(["https://a.com/path"]),
            json!(["https://a.com/"]),
            json!(["https://a.com?x=1"]),
            json!(["https://a.com#top"]),
            json!(["https://user@a.com"]),
            json!(["https://"]),
            json!([""]),
            json!(twenty_one),
            json!("https://a.example"),
            json!({"origin": "https://a.example"}),
        ] {
            let res = t.req(Method::PATCH, &o.api(), &t.dev_key).json(&json!({"allowedOrigins": bad})).send();
            let e = expect_error(res.await.unwrap(), 400, "validation_error").await;
            assert!(e["error"]["details"]["fields"]["allowedOrigins"].is_string(), "{kind} {bad}: {e}");
        }
        let (status, body) = patch(&t, &o, json!({})).await;
        assert_eq!(
            (status, body[o.member()]["allowedOrigins"].clone()),
            (200, json!(twenty)),
            "refusals changed nothing"
        );
        // An empty list clears it.
        let (status, body) = patch(&t, &o, json!({"allowedOrigins": []})).await;
        assert_eq!((status, body[o.member()]["allowedOrigins"].clone()), (200, json!([])), "{kind}: {body}");
    }
    // A member that is not a string is named by its place in the body, as every mistyped member
    // is (`allowedOrigins[1]`, like `fields[0].options[0]` of a form).
    for kind in ["m", "c"] {
        let o = owner(&t, kind, &format!("Typed {kind}"), false).await;
        for bad in [json!(["https://a.example", 7]), json!([null])] {
            let res = t.req(Method::PATCH, &o.api(), &t.dev_key).json(&json!({"allowedOrigins": bad})).send();
            let e = expect_error(res.await.unwrap(), 400, "validation_error").await;
            let fields: Vec<&String> = e["error"]["details"]["fields"].as_object().unwrap().keys().collect();
            assert!(fields.len() == 1 && fields[0].starts_with("allowedOrigins["), "{kind} {bad}: {e}");
        }
    }
    t.stop().await;
}

#[tokio::test]
async fn the_page_may_be_framed_by_exactly_the_allowed_origins_and_embeds_without_its_header() {
    let t = TestApp::spawn().await;
    for kind in ["m", "c"] {
        let o = published(&t, kind, &format!("Framed {kind}"), false, json!({"welcomeMessage": "Hi there."})).await;
        let client = &t.client;
        let page = |query: &'static str| client.get(t.url(&o.public(query))).send().map(Result::unwrap);
        let res = page("").await;
        assert_eq!(res.status(), 200, "{kind}");
        assert_eq!(csp_directive(res.headers(), "frame-ancestors"), "'none'", "{kind}: no origins, no framing");
        let html = res.text().await.unwrap();
        assert!(html.contains("<h1"), "{kind}: the full page has the profile header: {html}");
        assert!(!html.contains("<body class=\"embed\">"), "{kind}");

        let (status, body) =
            patch(&t, &o, json!({"allowedOrigins": ["https://a.example", "http://localhost:8080"]})).await;
        assert_eq!(status, 200, "{body}");
        let res = page("").await;
        assert_eq!(
            csp_directive(res.headers(), "frame-ancestors"),
            "https://a.example http://localhost:8080",
            "{kind}: exactly the list, in its order"
        );
        let res = page("?embed=1").await;
        assert_eq!(res.status(), 200, "{kind}");
        assert_eq!(csp_directive(res.headers(), "frame-ancestors"), "https://a.example http://localhost:8080");
        assert_eq!(header(res.headers(), "content-type"), Some("text/html; charset=utf-8"));
        let html = res.text().await.unwrap();
        assert!(html.contains("<body class=\"embed\">"), "{kind}: {html}");
        assert!(!html.contains("<h1"), "{kind}: no profile header when embedded: {html}");
        assert!(html.contains("Hi there."), "{kind}: still the chat: {html}");

        let (status, _) =
            patch(&t, &o, json!({"allowedOrigins": ["http://127.0.0.1:5173", "https://b.example"]})).await;
        assert_eq!(status, 200);
        assert_eq!(
            csp_directive(page("").await.headers(), "frame-ancestors"),
            "http://127.0.0.1:5173 https://b.example"
        );
        let (status, _) = patch(&t, &o, json!({"allowedOrigins": []})).await;
        assert_eq!(status, 200);
        assert_eq!(csp_directive(page("?embed=1").await.headers(), "frame-ancestors"), "'none'");
    }
    t.stop().await;
}

#[tokio::test]
async fn visitor_routes_answer_cors_for_exactly_the_allowed_origins() {
    let t = TestApp::spawn().await;
    let allowed = "https://shop.example";
    let local = "http://localhost:8080";
    let evil = "https://evil.example";
    for (n, kind) in ["m", "c"].into_iter().enumerate() {
        let o = published(&t, kind, &format!("Cors {kind}"), false, json!({"allowedOrigins": [allowed, local]})).await;
        let c = from(20 + n as u8);
        let post_open = |origin: Option<&'static str>| {
            let mut req = visitor(&c, &t, Method::POST, &o.public("/conversations"), None);
            if let Some(origin) = origin {
                req = req.header("origin", origin);
            }
            req.json(&json!({"message": "hi"})).send()
        };

        // Creates: the allowed origins get their own origin back; others get nothing.
        let res = post_open(Some(allowed)).await.unwrap();
        assert_cors(res.headers(), allowed, &format!("{kind} create"));
        let (status, created) = parts(res).await;
        assert_eq!(status, 201, "{created}");
        let conv = created["conversation"]["id"].as_str().unwrap().to_owned();
        let token = created["visitorToken"].as_str().unwrap().to_owned();
        let answer = created["messages"].as_array().unwrap().last().unwrap()["id"].as_str().unwrap().to_owned();
        let res = post_open(Some(local)).await.unwrap();
        assert_eq!(res.status(), 201);
        assert_cors(res.headers(), local, &format!("{kind} create from localhost"));
        let res = post_open(Some(evil)).await.unwrap();
        assert_eq!(res.status(), 201, "the request itself is served");
        assert_no_cors(res.headers(), &format!("{kind} create from another origin"));
        let res = post_open(Some("https://shop.example.evil.example")).await.unwrap();
        assert_no_cors(res.headers(), &format!("{kind} create from a look-alike origin"));
        let res = post_open(None).await.unwrap();
        assert_no_cors(res.headers(), &format!("{kind} create without Origin"));

        // Messages and the visitor read.
        let messages = o.public(&format!("/conversations/{conv}/messages"));
        let read = o.public(&format!("/conversations/{conv}"));
        let res = visitor(&c, &t, Method::POST, &messages, Some(&token))
            .header("origin", allowed)
            .json(&json!({"content": "Anything?"}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 201);
        assert_cors(res.headers(), allowed, &format!("{kind} message"));
        let res = visitor(&c, &t, Method::GET, &read, Some(&token)).header("origin", allowed).send().await.unwrap();
        assert_eq!(res.status(), 200);
        assert_cors(res.headers(), allowed, &format!("{kind} visitor read"));
        let res = visitor(&c, &t, Method::GET, &read, Some(&token)).header("origin", evil).send().await.unwrap();
        assert_eq!(res.status(), 200);
        assert_no_cors(res.headers(), &format!("{kind} visitor read from another origin"));

        // Error answers carry CORS too, so the page can read them.
        let res = visitor(&c, &t, Method::POST, &messages, None)
            .header("origin", allowed)
            .json(&json!({"content": "Anything?"}))
            .send()
            .await
            .unwrap();
        assert_cors(res.headers(), allowed, &format!("{kind} 404"));
        expect_error(res, 404, "not_found").await;
        let res = visitor(&c, &t, Method::POST, &messages, Some(&token))
            .header("origin", allowed)
            .json(&json!({"content": ""}))
            .send()
            .await
            .unwrap();
        assert_cors(res.headers(), allowed, &format!("{kind} 400"));
        expect_error(res, 400, "validation_error").await;
        let res = visitor(&c, &t, Method::GET, &read, Some("vt_123")).header("origin", allowed).send().await.unwrap();
        assert_cors(res.headers(), allowed, &format!("{kind} read 404"));
        expect_error(res, 404, "not_found").await;
        if kind == "m" {
            // Speech is a visitor route of Minds: voice is off here, and the 409 says so across origins.
            let speech = o.public(&format!("/conversations/{conv}/messages/{answer}/speech"));
            let res =
                visitor(&c, &t, Method::GET, &speech, Some(&token)).header("origin", allowed).send().await.unwrap();
            assert_cors(res.headers(), allowed, "speech 409");
            expect_error(res, 409, "voice_disabled").await;
            let res = preflight(&c, &t, &speech, allowed).await;
            assert_preflight_allowed(&res, allowed, "speech preflight");
        }

        // Preflights.
        for path in [o.public("/conversations"), messages.clone(), read.clone()] {
            let res = preflight(&c, &t, &path, allowed).await;
            assert_preflight_allowed(&res, allowed, &format!("preflight {path}"));
            let res = preflight(&c, &t, &path, local).await;
            assert_preflight_allowed(&res, local, &format!("preflight {path} from localhost"));
            let res = preflight(&c, &t, &path, evil).await;
            assert_eq!(res.status(), 204, "preflight {path} from another origin");
            assert_no_cors(res.headers(), &format!("preflight {path} from another origin"));
        }

        // The page and the keyed API never answer CORS.
        let res = c.get(t.url(&o.public(""))).header("origin", allowed).send().await.unwrap();
        assert_eq!(res.status(), 200);
        assert_no_cors(res.headers(), &format!("{kind} page"));
        let res = preflight(&c, &t, &o.public(""), allowed).await;
        assert_no_cors(res.headers(), &format!("{kind} page preflight"));
        let res = t.req(Method::GET, &o.api(), &t.dev_key).header("origin", allowed).send().await.unwrap();
        assert_eq!(res.status(), 200);
        assert_no_cors(res.headers(), &format!("{kind} keyed API"));
        let res = preflight(&c, &t, &format!("{}/conversations", o.api()), allowed).await;
        assert_no_cors(res.headers(), &format!("{kind} keyed API preflight"));

        // An unknown slug has no list; a list emptied stops CORS at once.
        let unknown = format!("/{kind}/no-such-slug/conversations");
        let res = c.post(t.url(&unknown)).header("origin", allowed).send().await.unwrap();
        assert_no_cors(res.headers(), &format!("{kind} unknown slug"));
        expect_error(res, 404, "not_found").await;
        let (status, _) = patch(&t, &o, json!({"allowedOrigins": [local]})).await;
        assert_eq!(status, 200);
        let res = post_open(Some(allowed)).await.unwrap();
        assert_eq!(res.status(), 201);
        assert_no_cors(res.headers(), &format!("{kind} create after the origin was removed"));
        let res = preflight(&c, &t, &o.public("/conversations"), allowed).await;
        assert_eq!(res.status(), 204);
        assert_no_cors(res.headers(), &format!("{kind} preflight after the origin was removed"));
    }
    t.stop().await;
}

#[tokio::test]
async fn rate_limited_visitors_of_an_allowed_origin_can_read_the_refusal() {
    let t = TestApp::spawn_with(lore::compose::Overrides {
        public_chat_per_mind_per_minute: Some(2),
        ..Default::default()
    })
    .await;
    let allowed = "https://shop.example";
    for kind in ["m", "c"] {
        let o = published(&t, kind, &format!("Busy {kind}"), false, json!({"allowedOrigins": [allowed]})).await;
        for i in 0..2 {
            let res = t.client.post(t.url(&o.public("/conversations"))).header("origin", allowed).send().await.unwrap();
            assert_eq!(res.status(), 201, "{kind} request {i}");
        }
        let res = t.client.post(t.url(&o.public("/conversations"))).header("origin", allowed).send().await.unwrap();
        assert_cors(res.headers(), allowed, &format!("{kind} 429"));
        assert!(res.headers().contains_key("retry-after"));
        expect_error(res, 429, "rate_limited").await;
    }
    t.stop().await;
}

// ---------------------------------------------------------------------------------------------
// Identity verification

/// Runs the identity checks on `o` (published, no e-mail gate), its visitors coming from `client`.
async fn check_identity(t: &TestApp, o: &Owner, client: &reqwest::Client) {
    let what = o.kind;
    // Without identityVerification a sent userId is ignored.
    let (_, _, plain) =
        opened(client, t, o, json!({"visitor": {"email": "ada@example.com", "userId": "u-1", "userHash": "00"}})).await;
    assert_eq!(
        plain["conversation"]["visitor"],
        json!({"email": "ada@example.com", "name": null, "userId": null}),
        "{what}: {plain}"
    );

    let first = new_secret(t, o).await;
    let secret = new_secret(t, o).await;
    assert_ne!(first, secret, "{what}: a new call gives a new secret");
    let (status, body) = patch(t, o, json!({"identityVerification": true})).await;
    assert_eq!((status, body[o.member()]["identityVerification"].clone()), (200, json!(true)), "{what}: {body}");
    assert_eq!(detail(t, o).await["identityVerification"], true);
    assert!(body.to_string().find(&secret).is_none(), "{what}: the secret is shown once only");

    // With identityVerification on, anything that does not verify is refused.
    let long = "u".repeat(201);
    for (visitor, why) in [
        (Value::Null, "no visitor"),
        (json!({"email": "ada@example.com"}), "no userId"),
        (json!({"userId": "user-42"}), "no userHash"),
        (json!({"userHash": user_hash(&secret, "user-42")}), "a hash without userId"),
        (json!({"userId": "", "userHash": user_hash(&secret, "")}), "an empty userId"),
        (json!({"userId": long, "userHash": user_hash(&secret, &long)}), "a userId of 201 characters"),
        (json!({"userId": "user-42", "userHash": user_hash(&secret, "user-43")}), "another user's hash"),
        (json!({"userId": "user-42", "userHash": user_hash(&first, "user-42")}), "the replaced secret's hash"),
        (json!({"userId": "user-42", "userHash": user_hash(&secret, "user-42").to_uppercase()}), "uppercase hex"),
        (json!({"userId": "user-42", "userHash": "not hex"}), "garbage"),
    ] {
        let body = if visitor.is_null() { json!({"message": "hi"}) } else { json!({"visitor": visitor}) };
        let res = open(client, t, o, body).await;
        let e = expect_error(res, 401, "identity_invalid").await;
        assert!(!e.to_string().contains(&secret), "{what} {why}: {e}");
    }

    // A verified visitor: the userId is on the conversation for visitor and owner alike.
    let body = json!({"visitor": {"userId": "user-42", "userHash": user_hash(&secret, "user-42")}, "message": "hi"});
    let (conv, token, created) = opened(client, t, o, body).await;
    assert_eq!(created["conversation"]["visitor"]["userId"], "user-42", "{what}: {created}");
    let (status, read) = parts(visitor_read(client, t, o, &conv, Some(&token)).await).await;
    assert_eq!(status, 200, "{read}");
    assert_eq!(read["conversation"]["visitor"]["userId"], "user-42", "{what}: {read}");
    assert_eq!(keyed_read(t, o, &conv).await["conversation"]["visitor"]["userId"], "user-42");
    // 200 characters (multi-byte ones count as one) is the bound.
    for id in ["u".repeat(200), "é".repeat(200)] {
        let body = json!({"visitor": {"userId": id, "userHash": user_hash(&secret, &id)}});
        let (_, _, created) = opened(client, t, o, body).await;
        assert_eq!(created["conversation"]["visitor"]["userId"], id.as_str(), "{what}");
    }

    // Off again: nothing is checked and userId is null.
    let (status, _) = patch(t, o, json!({"identityVerification": false})).await;
    assert_eq!(status, 200);
    let body = json!({"visitor": {"email": "bob@example.com", "userId": "user-42",
                                  "userHash": user_hash(&secret, "user-42")}});
    let (_, _, created) = opened(client, t, o, body).await;
    assert_eq!(created["conversation"]["visitor"], json!({"email": "bob@example.com", "name": null, "userId": null}));
}

#[tokio::test]
async fn identity_verification_admits_only_visitors_with_the_owners_hash() {
    let t = TestApp::spawn().await;
    let mind = published(&t, "m", "Member Mind", false, json!({})).await;
    let bot = published(&t, "c", "Member Bot", false, json!({})).await;

    // Scopes: minds:write for a Mind's secret, chatbot:write for a chatbot's.
    let no_minds_write = t.key("default", "minds:read,chatbot:write,chatbot:read").await;
    let no_chatbot_write = t.key("default", "minds:write,minds:read,chatbot:read").await;
    let (status, e) = identity_secret(&t, &no_minds_write, &mind).await;
    assert_eq!((status, e["error"]["code"].as_str()), (403, Some("insufficient_scope")), "{e}");
    assert_eq!(e["error"]["details"]["required"], "minds:write");
    let (status, e) = identity_secret(&t, &no_chatbot_write, &bot).await;
    assert_eq!((status, e["error"]["code"].as_str()), (403, Some("insufficient_scope")), "{e}");
    assert_eq!(e["error"]["details"]["required"], "chatbot:write");
    let (status, body) = identity_secret(&t, &no_chatbot_write, &mind).await;
    assert_eq!(status, 201, "{body}");
    let (status, body) = identity_secret(&t, &no_minds_write, &bot).await;
    assert_eq!(status, 201, "{body}");
    // Another workspace's Mind or chatbot: not found.
    let ws_b = t.workspace("beta", LimitsPatch::default()).await;
    let key_b = t.key(&ws_b, "all").await;
    for o in [&mind, &bot] {
        let (status, body) = identity_secret(&t, &key_b, o).await;
        assert_eq!((status, body["error"]["code"].as_str()), (404, Some("not_found")), "{body}");
    }

    check_identity(&t, &mind, &from(30)).await;
    check_identity(&t, &bot, &from(31)).await;
    t.stop().await;
}

// ---------------------------------------------------------------------------------------------
// Leads

#[tokio::test]
async fn gated_chatbots_and_minds_deliver_their_leads_with_the_user_id() {
    let t = TestApp::spawn_webhooks("200ms,200ms").await;
    let rx = Receiver::start().await;
    let bot = published(&t, "c", "Lead Bot", false, json!({"collectEmailBeforeChat": true})).await;
    let hook = t.hook(json!({"hookUrl": rx.url("/bot-leads"), "event": "chatbot.lead.captured"})).await;
    assert_eq!(hook["event"], "chatbot.lead.captured", "{hook}");
    let c = from(40);

    // The gate.
    let e = expect_error(open(&c, &t, &bot, json!({"message": "hi"})).await, 400, "email_required").await;
    assert!(e["error"]["details"]["fields"]["visitor.email"].is_string(), "{e}");
    expect_error(open(&c, &t, &bot, json!({"visitor": {"name": "Ada"}})).await, 400, "email_required").await;
    expect_error(open(&c, &t, &bot, json!({"visitor": {"email": "not an address"}})).await, 400, "validation_error")
        .await;

    let (conv, token, created) =
        opened(&c, &t, &bot, json!({"visitor": {"email": "ada@example.com", "name": "Ada"}})).await;
    assert_eq!(created["conversation"]["visitor"]["email"], "ada@example.com");
    let got = rx.next(Duration::from_secs(20)).await;
    assert_eq!(got.path, "/bot-leads");
    standardwebhooks::Webhook::new(hook["secret"].as_str().unwrap())
        .unwrap()
        .verify(&got.body, &got.headers)
        .expect("the lead delivery verifies with the Standard Webhooks library");
    let env = got.json();
    assert_eq!(env["eventType"], "chatbot.lead.captured", "{env}");
    assert_eq!(
        env["data"],
        json!({"chatbotId": bot.id, "conversationId": conv, "email": "ada@example.com", "name": "Ada", "userId": null})
    );

    // Continuing the conversation (a reload reads it, then the visitor writes) is no new lead.
    let (status, _) = parts(visitor_read(&c, &t, &bot, &conv, Some(&token)).await).await;
    assert_eq!(status, 200);
    let res = visitor(&c, &t, Method::POST, &bot.public(&format!("/conversations/{conv}/messages")), Some(&token))
        .json(&json!({"content": "Anyone there?"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    rx.expect_none(Duration::from_millis(800)).await;

    // With identity verification the lead carries the userId.
    let secret = new_secret(&t, &bot).await;
    assert_eq!(patch(&t, &bot, json!({"identityVerification": true})).await.0, 200);
    let body = json!({"visitor": {"email": "grace@example.com", "userId": "user-7",
                                  "userHash": user_hash(&secret, "user-7")}});
    let (conv2, _, _) = opened(&c, &t, &bot, body).await;
    let env = rx.next(Duration::from_secs(20)).await.json();
    assert_eq!(
        env["data"],
        json!({"chatbotId": bot.id, "conversationId": conv2, "email": "grace@example.com", "name": null,
               "userId": "user-7"})
    );
    // A refused identity is no lead.
    let body = json!({"visitor": {"email": "eve@example.com", "userId": "user-7", "userHash": "00"}});
    expect_error(open(&c, &t, &bot, body).await, 401, "identity_invalid").await;
    rx.expect_none(Duration::from_millis(500)).await;

    // mind.lead.captured carries userId too: null without identity, the id with it.
    let mind = published(&t, "m", "Lead Mind", false, json!({"collectEmailBeforeChat": true})).await;
    t.hook(json!({"hookUrl": rx.url("/mind-leads"), "event": "mind.lead.captured", "mindId": mind.id})).await;
    let (conv3, _, _) = opened(&c, &t, &mind, json!({"visitor": {"email": "ada@example.com", "name": "Ada"}})).await;
    let got = rx.next(Duration::from_secs(20)).await;
    assert_eq!(got.path, "/mind-leads", "a Mind's lead reaches the Mind's subscription only");
    assert_eq!(
        got.json()["data"],
        json!({"mindId": mind.id, "conversationId": conv3, "email": "ada@example.com", "name": "Ada", "userId": null})
    );
    let secret = new_secret(&t, &mind).await;
    assert_eq!(patch(&t, &mind, json!({"identityVerification": true})).await.0, 200);
    let body = json!({"visitor": {"email": "ada@example.com", "userId": "member-1",
                                  "userHash": user_hash(&secret, "member-1")}});
    let (conv4, _, _) = opened(&c, &t, &mind, body).await;
    let got = rx.next(Duration::from_secs(20)).await;
    assert_eq!(got.path, "/mind-leads");
    assert_eq!(
        got.json()["data"],
        json!({"mindId": mind.id, "conversationId": conv4, "email": "ada@example.com", "name": null,
               "userId": "member-1"})
    );
    rx.expect_none(Duration::from_millis(500)).await;
    t.stop().await;
}

// ---------------------------------------------------------------------------------------------
// widget.js and the pages people see

#[tokio::test]
async fn the_widget_script_is_cacheable_javascript_without_cookies() {
    let t = TestApp::spawn().await;
    let res = t.client.get(t.url("/widget.js")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let h = res.headers().clone();
    let ct = header(&h, "content-type").unwrap_or("");
    assert!(ct.starts_with("text/javascript") || ct.starts_with("application/javascript"), "{ct:?}");
    let cc = header_list(&h, "cache-control");
    assert!(cc.contains(&"public".to_owned()), "Cache-Control {cc:?}");
    let etag = header(&h, "etag").expect("an ETag").to_owned();
    assert!(!etag.is_empty());
    let script = res.text().await.unwrap();
    assert!(!script.trim().is_empty());
    assert!(!script.to_ascii_lowercase().contains("cookie"), "the script touches no cookie");

    // Revalidation.
    let res = t.client.get(t.url("/widget.js")).header("if-none-match", &etag).send().await.unwrap();
    assert_eq!(res.status(), 304);
    assert!(res.bytes().await.unwrap().is_empty());
    let res = t.client.get(t.url("/widget.js")).header("if-none-match", "\"something-else\"").send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.text().await.unwrap(), script, "the same script every time");
    // No key needed, none read.
    let res = t.client.get(t.url("/widget.js")).bearer_auth("garbage").send().await.unwrap();
    assert_eq!(res.status(), 200);
    t.stop().await;
}

#[tokio::test]
async fn an_unknown_page_is_a_friendly_html_page_for_browsers_and_an_envelope_for_clients() {
    let t = TestApp::spawn().await;
    let unpublished = owner(&t, "c", "Hidden Bot", false).await;
    let hidden_mind = owner(&t, "m", "Hidden Mind", false).await;
    for path in ["/m/no-such-mind", "/c/no-such-bot", &unpublished.public(""), &hidden_mind.public("")] {
        let res = t.client.get(t.url(path)).header("accept", BROWSER_ACCEPT).send().await.unwrap();
        assert_eq!(res.status(), 404, "{path}");
        let ct = header(res.headers(), "content-type").unwrap_or("").to_owned();
        assert!(ct.starts_with("text/html"), "{path}: {ct:?}");
        let html = res.text().await.unwrap();
        assert!(html.to_ascii_lowercase().contains("<html"), "{path}: {html}");
        assert!(!html.contains("Hidden"), "{path}: says nothing of an unpublished owner: {html}");

        let res = t.client.get(t.url(path)).header("accept", "application/json").send().await.unwrap();
        expect_error(res, 404, "not_found").await;
    }
    t.stop().await;
}

#[tokio::test]
async fn the_widget_reads_the_owners_language_and_colour_and_the_page_the_visitors_language() {
    // docs/api.md §20, for both owners.
    let t = TestApp::spawn().await;
    for kind in ["m", "c"] {
        let o = published(&t, kind, "Polyglot", false, json!({"theme": {"primaryColor": "#0A7C3E"}})).await;
        let res = t
            .client
            .get(t.url(&o.public("/widget.json")))
            .header("origin", "https://any.example")
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "{kind}");
        let h = res.headers().clone();
        assert_eq!(header(&h, "cache-control"), Some("public, max-age=300"), "{kind}");
        assert_eq!(header(&h, "access-control-allow-origin"), Some("*"), "{kind}: public data, any origin");
        let body: Value = res.json().await.unwrap();
        assert_eq!(body, json!({"language": "auto", "color": "#0a7c3e"}), "{kind}");

        // The page: Accept-Language by preference, ?lang= before it, <html lang> and dir.
        let page = |lang: Option<&'static str>, accept: &'static str| {
            let path = match lang {
                Some(l) => o.public(&format!("?embed=1&lang={l}")),
                None => o.public(""),
            };
            t.client.get(t.url(&path)).header("accept-language", accept).send()
        };
        let res = page(None, "sv, fr-CA;q=0.9, en;q=0.5").await.unwrap();
        assert!(header_list(res.headers(), "vary").iter().any(|v| v.eq_ignore_ascii_case("accept-language")), "{kind}");
        let html = res.text().await.unwrap();
        assert!(html.contains("<html lang=\"fr\">") && html.contains(">Envoyer</button>"), "{kind}: {html}");
        let html = page(Some("ar"), "fr").await.unwrap().text().await.unwrap();
        assert!(html.contains("<html lang=\"ar\" dir=\"rtl\">") && html.contains(">إرسال</button>"), "{kind}");
        let html = page(Some("xx"), "").await.unwrap().text().await.unwrap();
        assert!(html.contains("<html lang=\"en\">") && html.contains(">Send</button>"), "{kind}");

        // The owner's fixed language wins over the visitor's and the widget's.
        let (status, body) = patch(&t, &o, json!({"language": "ar"})).await;
        assert_eq!(status, 200, "{body}");
        let html = page(Some("fr"), "de").await.unwrap().text().await.unwrap();
        assert!(html.contains("<html lang=\"ar\" dir=\"rtl\">") && html.contains(">إرسال</button>"), "{kind}");
        let body: Value = t.client.get(t.url(&o.public("/widget.json"))).send().await.unwrap().json().await.unwrap();
        assert_eq!(body, json!({"language": "ar", "color": "#0a7c3e"}), "{kind}");

        // Unpublished: 404, still readable by the widget's origin.
        let (status, _) = publish(&t, &t.dev_key, &o, Some(json!({"isPublished": false}))).await;
        assert_eq!(status, 200);
        let res = t.client.get(t.url(&o.public("/widget.json"))).send().await.unwrap();
        assert_eq!(header(res.headers(), "access-control-allow-origin"), Some("*"));
        expect_error(res, 404, "not_found").await;
    }
    // A catalogue.
    let res = t.client.get(t.url("/i18n/ja.json")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(header(res.headers(), "access-control-allow-origin"), Some("*"));
    let texts: Value = res.json().await.unwrap();
    assert_eq!(texts["composer.send"], "送信");
    expect_error(t.client.get(t.url("/i18n/xx.json")).send().await.unwrap(), 404, "not_found").await;
    t.stop().await;
}

#[tokio::test]
async fn the_openapi_document_lists_the_embedding_routes_with_their_scopes() {
    let t = TestApp::spawn().await;
    let doc: Value = t.client.get(t.url("/api/v1/openapi.json")).send().await.unwrap().json().await.unwrap();
    for (path, scope) in [
        ("/api/v1/chatbots/{chatbotId}/publish", "chatbot:write"),
        ("/api/v1/chatbots/{chatbotId}/identity-secret", "chatbot:write"),
        ("/api/v1/minds/{mindId}/identity-secret", "minds:write"),
    ] {
        let op = &doc["paths"][path]["post"];
        assert!(op.is_object(), "POST {path} missing from the document");
        assert_eq!(op["security"][0]["bearer"], json!([scope]), "POST {path}");
    }
    // The pages and the script are for browsers, not API operations.
    for path in ["/c/{slug}", "/widget.js", "/i18n/{file}"] {
        assert!(doc["paths"][path].is_null(), "{path}");
    }
    // The widget's settings are JSON for any client.
    for path in ["/m/{slug}/widget.json", "/c/{slug}/widget.json"] {
        assert!(doc["paths"][path]["get"].is_object(), "{path}");
    }
    t.stop().await;
}
