//! The sample events of `events/api-minds/`, run in-process through the router this function
//! serves, after `lambda_http`'s own conversion of an API Gateway HTTP API event: every Mind
//! route of docs/api.md §8, the knowledge routes of a Mind (§9: a text source from `processing` to
//! `ready`, its search, reprocess and delete) and the public page `GET /m/{slug}`.

#[allow(dead_code)]
#[path = "../../test_support.rs"]
mod support;

use lambda_http::http::StatusCode;
use lore_http::RouteGroup;
use serde_json::json;
use support::{Event, Reply, Tenant, invoke};

/// The Mind id the sample events that name a Mind carry.
const SAMPLE_MIND_ID: &str = "mind_01jq3z5v7b8c9d0e1f2g3h4j5k";
/// The source id the sample events that name a knowledge source carry.
const SAMPLE_SOURCE_ID: &str = "src_01jq3z5v7b8c9d0e1f2g3h4j5k";
/// The `content` of `add-text-source.json`.
const SAMPLE_TEXT: &str = "The Analytical Engine weaves algebraical patterns just as the Jacquard loom weaves flowers \
    and leaves. Note G of my translation of Menabrea's memoir sets out, step by step, how the Engine would compute the \
    Bernoulli numbers.";

/// The events that need a key (all but the public page).
const API_EVENTS: [&str; 15] = [
    "list-minds.json",
    "create-mind.json",
    "get-mind.json",
    "update-mind.json",
    "publish-mind.json",
    "unpublish-mind.json",
    "delete-mind.json",
    "upload-file.json",
    "upload-url.json",
    "list-knowledge.json",
    "add-text-source.json",
    "get-knowledge-source.json",
    "search-knowledge.json",
    "reprocess-knowledge-source.json",
    "delete-knowledge-source.json",
];

/// Runs the processing jobs the function queued, as a worker would. The function's composition
/// runs no ingest worker (on AWS the `ingest-worker` function does; here the receiving end of the
/// in-process queue is dropped, so a queued run stays `processing`, leased to the function's
/// process): a second composition over the data dir adopts the runs other processes hold, as a
/// restarted `lore serve` does, and runs their jobs to the end. How many jobs ran.
async fn run_queued_ingest(tenant: &Tenant) -> usize {
    let mut worker = lore::compose::embedded(tenant.dir.path(), "http://localhost:3000", &Default::default())
        .expect("the embedded composition opens");
    let jobs = worker.jobs.take().expect("the embedded composition has an in-process queue");
    worker.app.sweep_stale_runs(true).await.expect("the sweep adopts the runs");
    let mut ran = 0;
    while let Some(taken) = jobs.try_take() {
        worker.app.run_job(taken.job.clone()).await.expect("the job runs");
        ran += 1;
    }
    ran
}

/// An HTML answer: status, content type and text.
async fn invoke_html(router: &axum::Router, event: &Event) -> (StatusCode, String, String) {
    let (status, headers, bytes) = support::invoke_raw(router, event).await;
    let ct = headers.get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    (status, ct, String::from_utf8(bytes).expect("UTF-8"))
}

fn assert_not_found(reply: &Reply, what: &str) {
    assert_eq!(reply.status, StatusCode::NOT_FOUND, "{what}: {reply:?}");
    assert_eq!(reply.error_code(), "not_found", "{what}");
}

#[tokio::test]
async fn mind_events_drive_a_mind_through_its_lifecycle() {
    let tenant = Tenant::new().await;
    let router = tenant.router(RouteGroup::Minds);
    let ev = |name: &str| Event::load(name).with_key(&tenant.key);

    // An empty workspace: no Minds, the default limits.
    let list = invoke(&router, &ev("list-minds.json")).await;
    assert_eq!(list.status, StatusCode::OK, "{list:?}");
    assert_eq!(list.body["minds"], json!([]));
    assert_eq!(list.body["usage"], json!({"mindsUsed": 0, "mindsLimit": 10, "sourcesUsed": 0, "sourcesLimit": 500}));
    assert_eq!(list.body["pagination"], json!({"page": 1, "limit": 20, "total": 0, "totalPages": 0}));

    // The sample id is well formed: it reaches the handler and names no Mind.
    let absent = invoke(&router, &ev("get-mind.json")).await;
    assert_not_found(&absent, "sample id");
    assert_eq!(absent.body["error"]["message"], "mind not found", "a resource 404, not a route 404");

    let created = invoke(&router, &ev("create-mind.json")).await;
    assert_eq!(created.status, StatusCode::CREATED, "{created:?}");
    let mind = &created.body["mind"];
    assert_eq!(mind["name"], "Ada Lovelace");
    assert_eq!(mind["slug"], "ada-lovelace");
    assert_eq!(mind["suggestedQuestions"], json!(["What is the Analytical Engine?", "What are Bernoulli numbers?"]));
    assert_eq!((mind["isPublished"].clone(), mind["temperature"].clone()), (json!(false), json!(0.7)));
    assert_eq!(mind["sourceStats"], json!({"total": 0, "ready": 0, "pending": 0, "processing": 0, "failed": 0}));
    let id = mind["id"].as_str().expect("mind.id").to_owned();
    assert!(id.starts_with("mind_") && id != SAMPLE_MIND_ID, "{id}");
    let second = invoke(&router, &ev("create-mind.json")).await;
    assert_eq!(second.body["mind"]["slug"], "ada-lovelace-2");

    let list = invoke(&router, &ev("list-minds.json")).await;
    assert_eq!(list.body["usage"]["mindsUsed"], 2);
    assert_eq!(list.body["minds"][1]["id"], id.as_str(), "newest first");

    let ev_id = |name: &str| ev(name).with(SAMPLE_MIND_ID, &id);
    let got = invoke(&router, &ev_id("get-mind.json")).await;
    assert_eq!(got.status, StatusCode::OK, "{got:?}");
    assert_eq!(got.body["mind"], *mind);

    let updated = invoke(&router, &ev_id("update-mind.json")).await;
    assert_eq!(updated.status, StatusCode::OK, "{updated:?}");
    let m = &updated.body["mind"];
    assert_eq!(
        (m["temperature"].clone(), m["voiceId"].clone(), m["voiceEnabled"].clone()),
        (json!(0.4), json!("nova"), json!(true))
    );
    assert_eq!(m["theme"], json!({"primaryColor": "#4f46e5", "backgroundColor": "#fdf6e3", "mode": "light"}));
    assert_eq!(m["headline"], mind["headline"], "fields not sent are unchanged");

    // A browser (the event asks for text/html) gets a page for people; other clients the envelope.
    let page = Event::load("public-page.json");
    let (status, ct, html) = invoke_html(&router, &page).await;
    assert_eq!((status, ct.as_str()), (StatusCode::NOT_FOUND, "text/html; charset=utf-8"), "unpublished page");
    assert!(html.contains("Chat not found"), "{html}");
    let as_json = page.with("\"accept\": \"text/html\"", "\"accept\": \"application/json\"");
    assert_not_found(&invoke(&router, &as_json).await, "unpublished page, asked for as JSON");

    let published = invoke(&router, &ev_id("publish-mind.json")).await;
    assert_eq!(published.status, StatusCode::OK, "{published:?}");
    assert_eq!(published.body["mind"]["isPublished"], true);
    let url = published.body["mind"]["publicUrl"].as_str().unwrap();
    if std::env::var("LORE_PUBLIC_BASE_URL").is_err() {
        // Without a configured base, the address API Gateway was reached at.
        assert_eq!(url, "https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/m/ada-lovelace");
    }
    assert!(url.ends_with("/m/ada-lovelace"), "{url}");
    assert!(published.body["warning"].is_string(), "no ready source: a warning");

    let (status, ct, html) = invoke_html(&router, &page).await;
    assert_eq!((status, ct.as_str()), (StatusCode::OK, "text/html; charset=utf-8"));
    assert!(html.contains("<h1>Ada Lovelace</h1>"), "{html}");
    assert!(html.contains("Hello! Ask me about engines, numbers and poetical science."));
    assert!(html.contains("--bg: #fdf6e3;"), "the theme's background");
    assert!(html.contains("src=\"https://cdn.example.com/avatars/ada.png\""));

    let unpublished = invoke(&router, &ev_id("unpublish-mind.json")).await;
    assert_eq!(unpublished.status, StatusCode::OK, "{unpublished:?}");
    assert_eq!(unpublished.body["mind"]["isPublished"], false);
    assert_not_found(&invoke(&router, &as_json).await, "page after unpublishing");

    // Uploads: a multipart file (base64 body, as API Gateway sends it) and a presigned upload.
    let uploaded = invoke(&router, &ev_id("upload-file.json")).await;
    assert_eq!(uploaded.status, StatusCode::CREATED, "{uploaded:?}");
    assert_eq!(uploaded.body["category"], "document", "{uploaded:?}");
    assert!(uploaded.body["fileUrl"].as_str().is_some_and(|u| u.contains(&id)), "kept under the Mind: {uploaded:?}");
    let presigned = invoke(&router, &ev_id("upload-url.json")).await;
    assert_eq!(presigned.status, StatusCode::CREATED, "{presigned:?}");
    assert_eq!(presigned.body["method"], "PUT");
    assert!(presigned.body["uploadUrl"].as_str().is_some_and(|u| u.contains("signature=")), "{presigned:?}");

    // Knowledge: a text source from `processing` to `ready`, searched, reprocessed and deleted.
    let empty = invoke(&router, &ev_id("list-knowledge.json")).await;
    assert_eq!(empty.status, StatusCode::OK, "{empty:?}");
    assert_eq!(empty.body["sources"], json!([]));
    assert_eq!(empty.body["pagination"], json!({"page": 1, "limit": 20, "total": 0, "totalPages": 0}));
    let absent = invoke(&router, &ev_id("get-knowledge-source.json")).await;
    assert_not_found(&absent, "sample source id");
    assert_eq!(absent.body["error"]["message"], "source not found", "a resource 404, not a route 404");

    let added = invoke(&router, &ev_id("add-text-source.json")).await;
    assert_eq!(added.status, StatusCode::CREATED, "{added:?}");
    let source = &added.body["source"];
    assert_eq!(
        (source["type"].clone(), source["name"].clone(), source["mindId"].clone()),
        (json!("text"), json!("Notes on the Analytical Engine"), json!(id))
    );
    assert_eq!(source["content"], SAMPLE_TEXT);
    assert_eq!(source["sizeBytes"], SAMPLE_TEXT.len());
    // Processing is queued at once.
    assert_eq!(source["status"], "processing", "{source}");
    assert_eq!(source["progress"], json!({"stage": "queued", "done": 0, "total": 0}));
    assert_eq!(
        (
            source["chunkCount"].clone(),
            source["contentHash"].clone(),
            source["processedAt"].clone(),
            source["error"].clone()
        ),
        (json!(0), json!(null), json!(null), json!(null))
    );
    let source_id = source["id"].as_str().expect("source.id").to_owned();
    assert!(source_id.starts_with("src_") && source_id != SAMPLE_SOURCE_ID, "{source_id}");
    let ev_src = |name: &str| ev_id(name).with(SAMPLE_SOURCE_ID, &source_id);

    // No worker runs in this composition, so the source is still `processing`: the detail asks
    // the client to poll again, and a running source can be neither reprocessed nor deleted.
    let polled = invoke(&router, &ev_src("get-knowledge-source.json")).await;
    assert_eq!(polled.status, StatusCode::OK, "{polled:?}");
    assert_eq!(polled.body["source"], *source);
    assert_eq!(polled.header("retry-after"), Some("5"), "{polled:?}");
    for name in ["reprocess-knowledge-source.json", "delete-knowledge-source.json"] {
        let busy = invoke(&router, &ev_src(name)).await;
        assert_eq!(busy.status, StatusCode::CONFLICT, "{name}: {busy:?}");
        assert_eq!(busy.error_code(), "processing_in_progress", "{name}");
    }
    let unready = invoke(&router, &ev_id("list-knowledge.json")).await;
    assert_eq!(unready.body["sources"], json!([]), "`status=ready` leaves a processing source out");

    // The worker's turn; then the poll finds the source `ready`, without `Retry-After`.
    assert_eq!(run_queued_ingest(&tenant).await, 1, "one queued run");
    let ready = invoke(&router, &ev_src("get-knowledge-source.json")).await;
    assert_eq!(ready.status, StatusCode::OK, "{ready:?}");
    assert_eq!(ready.header("retry-after"), None, "{ready:?}");
    let done = &ready.body["source"];
    assert_eq!((done["status"].clone(), done["chunkCount"].clone()), (json!("ready"), json!(1)), "{done}");
    assert_eq!((done["progress"].clone(), done["error"].clone()), (json!(null), json!(null)));
    assert_eq!((done["id"].clone(), done["sizeBytes"].clone()), (json!(source_id), json!(SAMPLE_TEXT.len())));
    assert!(done["processedAt"].is_string(), "{done}");
    let hash = done["contentHash"].as_str().expect("contentHash once processed").to_owned();
    assert!(hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()), "{hash}");

    let listed = invoke(&router, &ev_id("list-knowledge.json")).await;
    assert_eq!(listed.status, StatusCode::OK, "{listed:?}");
    assert_eq!(listed.body["pagination"], json!({"page": 1, "limit": 20, "total": 1, "totalPages": 1}));
    let item = &listed.body["sources"][0];
    assert_eq!((item["id"].clone(), item["status"].clone()), (json!(source_id), json!("ready")));
    assert!(item.get("content").is_none(), "text content in the detail only: {item}");
    let stats = invoke(&router, &ev_id("get-mind.json")).await.body["mind"]["sourceStats"].clone();
    assert_eq!(stats, json!({"total": 1, "ready": 1, "pending": 0, "processing": 0, "failed": 0}));

    let found = invoke(&router, &ev_id("search-knowledge.json")).await;
    assert_eq!(found.status, StatusCode::OK, "{found:?}");
    assert_eq!(found.body["results"].as_array().map(Vec::len), Some(1), "{found:?}");
    let hit = &found.body["results"][0];
    assert_eq!(
        (hit["sourceType"].clone(), hit["sourceId"].clone(), hit["sourceName"].clone()),
        (json!("text"), json!(source_id), json!("Notes on the Analytical Engine"))
    );
    assert_eq!(
        (hit["content"].clone(), hit["position"].clone(), hit["url"].clone()),
        (json!(SAMPLE_TEXT), json!(0), json!(null))
    );
    assert!(hit["score"].as_f64().is_some_and(|s| s > 0.0 && s <= 1.0), "{hit}");
    assert!(found.body["tookMs"].as_f64().is_some_and(|t| t >= 0.0), "{found:?}");

    let again = invoke(&router, &ev_src("reprocess-knowledge-source.json")).await;
    assert_eq!(again.status, StatusCode::ACCEPTED, "{again:?}");
    assert_eq!(
        (again.body["source"]["id"].clone(), again.body["source"]["status"].clone()),
        (json!(source_id), json!("processing"))
    );
    assert_eq!(again.body["source"]["progress"], json!({"stage": "queued", "done": 0, "total": 0}));
    assert_eq!(invoke(&router, &ev_src("get-knowledge-source.json")).await.header("retry-after"), Some("5"));
    assert_eq!(run_queued_ingest(&tenant).await, 1, "the reprocess run");
    let redone = invoke(&router, &ev_src("get-knowledge-source.json")).await;
    assert_eq!(redone.header("retry-after"), None, "{redone:?}");
    assert_eq!(
        (redone.body["source"]["status"].clone(), redone.body["source"]["chunkCount"].clone()),
        (json!("ready"), json!(1))
    );
    assert_eq!(redone.body["source"]["contentHash"], hash.as_str(), "the same content");

    let removed = invoke(&router, &ev_src("delete-knowledge-source.json")).await;
    assert_eq!(removed.status, StatusCode::OK, "{removed:?}");
    assert_eq!(removed.body, json!({"status": "success", "deleted": true, "id": source_id}));
    assert_not_found(&invoke(&router, &ev_src("get-knowledge-source.json")).await, "deleted source");
    assert_not_found(&invoke(&router, &ev_src("delete-knowledge-source.json")).await, "second delete of the source");
    assert_not_found(
        &invoke(&router, &ev_src("reprocess-knowledge-source.json")).await,
        "reprocess of a deleted source",
    );
    let gone = invoke(&router, &ev_id("search-knowledge.json")).await;
    assert_eq!((gone.status, gone.body["results"].clone()), (StatusCode::OK, json!([])), "its chunks went with it");
    assert_eq!(invoke(&router, &ev_id("list-knowledge.json")).await.body["pagination"]["total"], 0);

    let deleted = invoke(&router, &ev_id("delete-mind.json")).await;
    assert_eq!(deleted.status, StatusCode::OK, "{deleted:?}");
    assert_eq!(deleted.body, json!({"status": "success", "deleted": true, "id": id}));
    assert_not_found(&invoke(&router, &ev_id("get-mind.json")).await, "deleted Mind");
    assert_not_found(&invoke(&router, &ev_id("delete-mind.json")).await, "second delete");
    assert_eq!(invoke(&router, &ev("list-minds.json")).await.body["usage"]["mindsUsed"], 1);
}

#[tokio::test]
async fn every_mind_api_event_is_refused_without_a_valid_key() {
    let tenant = Tenant::new().await;
    support::assert_every_event_needs_a_key(&tenant.router(RouteGroup::Minds), &API_EVENTS).await;
}

#[tokio::test]
async fn write_events_need_the_minds_write_scope() {
    let tenant = Tenant::new().await;
    let reader = tenant.issue_key("minds:read").await;
    let router = tenant.router(RouteGroup::Minds);
    let list = invoke(&router, &Event::load("list-minds.json").with_key(&reader)).await;
    assert_eq!(list.status, StatusCode::OK, "{list:?}");
    for name in [
        "create-mind.json",
        "update-mind.json",
        "publish-mind.json",
        "unpublish-mind.json",
        "delete-mind.json",
        "add-text-source.json",
        "reprocess-knowledge-source.json",
        "delete-knowledge-source.json",
    ] {
        let reply = invoke(&router, &Event::load(name).with_key(&reader)).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{name}: {reply:?}");
        assert_eq!(reply.error_code(), "insufficient_scope", "{name}");
        assert_eq!(reply.body["error"]["details"]["required"], "minds:write", "{name}");
    }
    let writer = tenant.issue_key("minds:write").await;
    for name in [
        "list-minds.json",
        "get-mind.json",
        "list-knowledge.json",
        "get-knowledge-source.json",
        "search-knowledge.json",
    ] {
        let reply = invoke(&router, &Event::load(name).with_key(&writer)).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{name}: {reply:?}");
        assert_eq!(reply.body["error"]["details"]["required"], "minds:read", "{name}");
    }
}

#[tokio::test]
async fn other_route_groups_are_not_served_here() {
    let tenant = Tenant::new().await;
    let router = tenant.router(RouteGroup::Minds);
    for (function, name) in [("api-chatbots", "list-chatbots.json"), ("api-forms", "list-forms.json")] {
        let reply = invoke(&router, &Event::load_from(function, name).with_key(&tenant.key)).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{function}/{name}: {reply:?}");
        assert_eq!(reply.error_code(), "not_found", "{function}/{name}");
        assert_eq!(reply.body["error"]["message"], "no such route");
    }
}

/// The conversation id the conversation events carry.
const SAMPLE_CONVERSATION_ID: &str = "conv_01jq3z5v7b8c9d0e1f2g3h4j5k";

#[tokio::test]
async fn conversation_events_answer_from_the_minds_knowledge() {
    let tenant = Tenant::new().await;
    let router = tenant.router(RouteGroup::Minds);
    let ev = |name: &str| Event::load(name).with_key(&tenant.key);
    let created = invoke(&router, &ev("create-mind.json")).await;
    let mind = created.body["mind"]["id"].as_str().unwrap().to_owned();
    let ev = |name: &str| ev(name).with(SAMPLE_MIND_ID, &mind);
    let added = invoke(&router, &ev("add-text-source.json")).await;
    assert_eq!(added.status, StatusCode::CREATED, "{added:?}");
    assert_eq!(run_queued_ingest(&tenant).await, 1);

    let started = invoke(&router, &ev("create-conversation.json")).await;
    assert_eq!(started.status, StatusCode::CREATED, "{started:?}");
    assert_eq!(started.body["conversation"]["visitor"]["email"], "ada@example.com");
    let answer = started.body["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(answer["generatedBy"], "extractive");
    assert!(answer["content"].as_str().unwrap().contains("Note G"), "{answer}");
    assert!(SAMPLE_TEXT.contains(answer["citations"][0]["quote"].as_str().unwrap()), "{answer}");

    let id = started.body["conversation"]["id"].as_str().unwrap().to_owned();
    let sent = invoke(&router, &ev("send-message.json").with(SAMPLE_CONVERSATION_ID, &id)).await;
    assert_eq!(sent.status, StatusCode::CREATED, "{sent:?}");
    assert!(sent.body["message"]["content"].as_str().unwrap().contains("Bernoulli numbers"), "{sent:?}");
    let list = invoke(&router, &ev("list-conversations.json")).await;
    // The sample Mind has a welcome message: welcome, two questions, two answers.
    assert_eq!(list.body["conversations"][0]["messageCount"], 5, "{list:?}");
    let detail = invoke(&router, &ev("get-mind.json")).await;
    assert_eq!(detail.body["mind"]["conversationCount"], 1);
    assert_eq!(detail.body["mind"]["recentConversationCount"], 1);
}

/// The visitor token placeholder of `public-send-message.json`.
const SAMPLE_VISITOR_TOKEN: &str = "vt_0000000000000000000000000000000000000000000000000000000000000000";

#[tokio::test]
async fn visitors_chat_with_a_published_mind_without_a_key() {
    let tenant = Tenant::new().await;
    // As the function's main composes it: the event's source IP is the client address.
    let router = lore::lambda::with_client_address(tenant.router(RouteGroup::Minds));
    let ev = |name: &str| Event::load(name).with_key(&tenant.key);
    let created = invoke(&router, &ev("create-mind.json")).await;
    let mind = created.body["mind"]["id"].as_str().unwrap().to_owned();
    let ev = |name: &str| ev(name).with(SAMPLE_MIND_ID, &mind);
    assert_eq!(invoke(&router, &ev("add-text-source.json")).await.status, StatusCode::CREATED);
    assert_eq!(run_queued_ingest(&tenant).await, 1);

    let open = Event::load("public-open-conversation.json");
    assert_not_found(&invoke(&router, &open).await, "a Mind not yet published");
    assert_eq!(invoke(&router, &ev("publish-mind.json")).await.status, StatusCode::OK);
    let opened = invoke(&router, &open).await;
    assert_eq!(opened.status, StatusCode::CREATED, "{opened:?}");
    let conversation = &opened.body["conversation"];
    assert_eq!(
        (conversation["channel"].as_str(), conversation["visitor"]["email"].as_str()),
        (Some("public"), Some("visitor@example.com"))
    );
    let id = conversation["id"].as_str().unwrap();
    let token = opened.body["visitorToken"].as_str().unwrap();

    let send = Event::load("public-send-message.json").with(SAMPLE_CONVERSATION_ID, id);
    assert_not_found(&invoke(&router, &send).await, "the sample token opens no conversation");
    let sent = invoke(&router, &send.with(SAMPLE_VISITOR_TOKEN, token)).await;
    assert_eq!(sent.status, StatusCode::CREATED, "{sent:?}");
    let answer = &sent.body["message"];
    assert!(answer["content"].as_str().unwrap().contains("Note G"), "{answer}");
    assert!(SAMPLE_TEXT.contains(answer["citations"][0]["quote"].as_str().unwrap()), "{answer}");
}
