//! URL sources: crawling a local site, request protection, runs held in `processing`.

use crate::site::Site;
use crate::support::{TestApp, expect_error, parts};
use lore_app::ports::{EmbedError, Embedder};
use reqwest::Method;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

async fn url_source(t: &TestApp, bot: &str, url: &str, depth: u8) -> String {
    let (status, body) = t.post_source(&t.dev_key, bot, json!({"type": "url", "url": url, "crawlDepth": depth})).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["source"]["url"], url);
    assert_eq!(body["source"]["crawlDepth"], depth);
    assert_eq!(body["source"]["name"], url, "a url source is named after its URL by default");
    body["source"]["id"].as_str().unwrap().to_owned()
}

async fn text_of(t: &TestApp, id: &str) -> String {
    t.chunk_texts(id).await.join("\n")
}

#[tokio::test]
async fn depth_same_host_and_robots_txt_bound_the_crawl() {
    let site = Site::start().await;
    let t = TestApp::spawn_private().await;
    let bot = t.chatbot().await;

    let one = url_source(&t, &bot, &site.url("/a"), 1).await;
    t.process(&bot, &one).await;
    let done = t.settle(&bot, &one).await;
    assert_eq!(done["status"], "ready", "{done}");
    assert_eq!(done["pagesCrawled"], 1);
    assert!(done["lastRefreshedAt"].is_string());
    let text = text_of(&t, &one).await;
    assert!(text.contains("Alpha explains account setup."), "{text}");
    assert!(!text.contains("Beta covers"), "depth 1 is the page itself");
    for noise in ["SCRIPT-NOISE", "NAV-NOISE", "FOOTER-NOISE"] {
        assert!(!text.contains(noise), "{noise} in {text}");
    }
    assert_eq!(site.hits("b"), 0);

    let three = url_source(&t, &bot, &site.url("/a"), 3).await;
    t.process(&bot, &three).await;
    let done = t.settle(&bot, &three).await;
    assert_eq!(done["pagesCrawled"], 3, "{done}");
    let text = text_of(&t, &three).await;
    for needle in ["Alpha explains", "Beta covers billing", "Gamma describes cancellation"] {
        assert!(text.contains(needle), "{needle} missing: {text}");
    }
    assert!(!text.contains("Delta is too deep"));
    assert_eq!(site.hits("d"), 0, "depth 3 stops two hops from the start");
    assert_eq!(site.hits("private"), 0, "robots.txt is respected");
    assert_eq!(site.hits("elsewhere"), 0, "links to another host are not followed");
    assert!(done["sizeBytes"].as_u64().unwrap() > 0, "url sources count their extracted bytes");
    t.stop().await;
}

/// A chunk made of Markdown headings only.
fn heading_only(chunk: &str) -> bool {
    chunk.lines().map(str::trim).filter(|l| !l.is_empty()).all(|l| l.starts_with('#'))
}

#[tokio::test]
async fn a_book_is_crawled_through_its_noscript_menu_and_cited_by_chapter() {
    let site = Site::start().await;
    let t = TestApp::spawn_private().await;
    let bot = t.chatbot().await;
    let id = url_source(&t, &bot, &site.url("/book/index.html"), 3).await;
    t.process(&bot, &id).await;
    let done = t.settle(&bot, &id).await;
    assert_eq!(done["status"], "ready", "{done}");
    // index → toc.html (only in a <noscript><iframe>) → the chapters and print.html.
    for page in ["toc.html", "ch01.html", "ch02.html", "print.html"] {
        assert_eq!(site.hits(&format!("book/{page}")), 1, "{page} crawled once");
    }
    assert_eq!(done["pagesCrawled"], 5, "{done}");

    let chunks = t.chunk_texts(&id).await;
    assert!(chunks.iter().all(|c| !heading_only(c)), "a heading alone is no chunk: {chunks:#?}");
    let opening = chunks.iter().find(|c| c.contains("# Getting Started")).expect("the chapter's heading");
    assert!(opening.contains("## Installation") && opening.contains("Installation step 1"), "{opening}");
    // Each passage is kept once, on its chapter: print.html repeats them all.
    for needle in ["Installation step 4", "println macro"] {
        let n = chunks.iter().filter(|c| c.contains(needle)).count();
        assert_eq!(n, 1, "{needle} in {n} chunks: {chunks:#?}");
    }
    for (query, page) in [("rustup toolchains installer", "/book/ch01.html"), ("println greeting", "/book/ch02.html")] {
        let body = json!({"query": query, "mode": "keyword", "topK": 10});
        let path = format!("/api/v1/chatbots/{bot}/knowledge/search");
        let (status, found) = parts(t.req(Method::POST, &path, &t.dev_key).json(&body).send().await.unwrap()).await;
        assert_eq!(status, 200, "{found}");
        let urls: Vec<&str> = found["results"].as_array().unwrap().iter().filter_map(|r| r["url"].as_str()).collect();
        assert!(urls.first().is_some_and(|u| u.ends_with(page)), "{query}: {urls:?}");
        assert!(urls.iter().all(|u| !u.ends_with("print.html")), "{query}: cited from print.html: {urls:?}");
    }
    t.stop().await;
}

#[tokio::test]
async fn private_and_odd_addresses_are_url_blocked() {
    let t = TestApp::spawn().await; // address rules on
    let bot = t.chatbot().await;
    for url in [
        "http://127.0.0.1/",
        "http://localhost/",
        "http://10.0.0.1/",
        "http://172.16.0.1/",
        "http://192.168.1.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://2130706433/",
        "http://0x7f.0.0.1/",
        "http://0177.0.0.1/",
        "http://0.0.0.0/",
        "http://[fe80::1]/",
        "http://[fc00::1]/",
        "ftp://example.com/file",
        "file:///etc/passwd",
        "gopher://example.com/",
        "https://example.com:22/",
    ] {
        let (status, body) = t.post_source(&t.dev_key, &bot, json!({"type": "url", "url": url})).await;
        assert_eq!((status, body["error"]["code"].clone()), (400, json!("url_blocked")), "{url}: {body}");
    }
    assert_eq!(t.stats(&bot).await["totalSources"], 0, "nothing was stored");
    t.stop().await;
}

#[tokio::test]
async fn a_processing_source_refuses_process_delete_and_refresh() {
    let site = Site::start().await;
    let t = TestApp::spawn_private().await;
    let bot = t.chatbot().await;
    let id = url_source(&t, &bot, &site.url("/slow"), 1).await;
    let base = format!("/api/v1/chatbots/{bot}/sources/{id}");

    // 20 concurrent process calls: exactly one 202, the rest already_processing.
    let mut calls = Vec::new();
    for _ in 0..20 {
        let (client, url, key) = (t.client.clone(), t.url(&format!("{base}/process")), t.dev_key.clone());
        calls.push(tokio::spawn(async move {
            let res = client.post(url).bearer_auth(key).send().await.unwrap();
            let status = res.status().as_u16();
            (status, res.json::<Value>().await.unwrap())
        }));
    }
    let mut accepted = 0;
    for c in calls {
        match c.await.unwrap() {
            (202, _) => accepted += 1,
            (400, body) => assert_eq!(body["error"]["code"], "already_processing"),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(accepted, 1);

    let held = t.source(&bot, &id).await;
    assert_eq!(held["status"], "processing");
    assert!(held["progress"]["stage"].is_string(), "{held}");
    let res = t.req(Method::POST, &format!("{base}/process"), &t.dev_key).send().await.unwrap();
    expect_error(res, 400, "already_processing").await;
    expect_error(t.req(Method::DELETE, &base, &t.dev_key).send().await.unwrap(), 409, "processing_in_progress").await;
    let res = t.req(Method::POST, &format!("{base}/refresh"), &t.dev_key).send().await.unwrap();
    expect_error(res, 409, "processing_in_progress").await;
    let stats = t.stats(&bot).await;
    assert_eq!(stats["sourcesByStatus"], json!({"processing": 1}));

    site.release_slow();
    let done = t.settle(&bot, &id).await;
    assert_eq!(done["status"], "ready", "{done}");
    assert!(text_of(&t, &id).await.contains("The slow page finally answered."));
    // Settled again: delete works now.
    assert_eq!(t.req(Method::DELETE, &base, &t.dev_key).send().await.unwrap().status(), 200);
    t.stop().await;
}

#[tokio::test]
async fn an_unreachable_url_ends_in_error_with_a_reason() {
    let site = Site::start().await;
    let t = TestApp::spawn_private().await;
    let bot = t.chatbot().await;
    let id = url_source(&t, &bot, &site.url("/missing"), 1).await;
    t.process(&bot, &id).await;
    let done = t.settle(&bot, &id).await;
    assert_eq!(done["status"], "error");
    assert!(done["error"].as_str().unwrap().contains("404"), "{done}");
    let events = t.event_types().await;
    assert_eq!(events, ["knowledge.source.created", "knowledge.source.error"]);
    t.stop().await;
}

/// Counts the texts it is asked to embed, delegating to the built-in local embedder.
struct CountingEmbedder {
    inner: lore_embed::LocalEmbedder,
    texts: AtomicUsize,
}

#[async_trait::async_trait]
impl Embedder for CountingEmbedder {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }
    fn dimensions(&self) -> usize {
        self.inner.dimensions()
    }
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.texts.fetch_add(texts.len(), Ordering::SeqCst);
        self.inner.embed(texts).await
    }
}

#[tokio::test]
async fn refresh_refetches_but_re_embeds_only_what_changed() {
    let site = Site::start().await;
    let counter = Arc::new(CountingEmbedder { inner: lore_embed::LocalEmbedder::new(), texts: AtomicUsize::new(0) });
    let overrides = lore::compose::Overrides {
        allow_private_network: true,
        embedder: Some(counter.clone() as Arc<dyn Embedder>),
        ..Default::default()
    };
    let t = TestApp::spawn_with(overrides).await;
    let bot = t.chatbot().await;
    // Distinct words everywhere, so that no two chunks are identical.
    let words = |tag: &str, i: usize| (0..400).map(|j| format!("{tag}{i}w{j}")).collect::<Vec<_>>().join(" ");
    let paragraphs: Vec<String> = (0..6).map(|i| format!("Paragraph {i}: {}", words("steady", i))).collect();
    site.set_changing(&paragraphs.join("\n\n"));
    let id = url_source(&t, &bot, &site.url("/changing"), 1).await;
    t.process(&bot, &id).await;
    let first = t.settle(&bot, &id).await;
    let chunks = first["chunkCount"].as_u64().unwrap() as usize;
    assert!(chunks >= 3, "{first}");
    assert_eq!(counter.texts.load(Ordering::SeqCst), chunks);
    let hits = site.hits("changing");

    let refresh = format!("/api/v1/chatbots/{bot}/sources/{id}/refresh");
    let (status, body) = parts(t.req(Method::POST, &refresh, &t.dev_key).send().await.unwrap()).await;
    assert_eq!((status, body["source"]["status"].clone()), (202, json!("processing")));
    let again = t.settle(&bot, &id).await;
    assert_eq!(site.hits("changing"), hits + 1, "refresh always re-fetches");
    assert_eq!(counter.texts.load(Ordering::SeqCst), chunks, "unchanged content embeds nothing");
    assert_eq!(again["contentHash"], first["contentHash"]);
    assert_eq!(again["chunkCount"], first["chunkCount"]);
    assert!(again["lastRefreshedAt"].as_str() >= first["lastRefreshedAt"].as_str());

    let mut changed = paragraphs.clone();
    changed[5] = format!("Paragraph 5 rewritten: {}", words("fresh", 5));
    site.set_changing(&changed.join("\n\n"));
    t.req(Method::POST, &refresh, &t.dev_key).send().await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let third = loop {
        let s = t.settle(&bot, &id).await;
        if s["contentHash"] != first["contentHash"] || Instant::now() > deadline {
            break s;
        }
    };
    assert_ne!(third["contentHash"], first["contentHash"]);
    let embedded = counter.texts.load(Ordering::SeqCst) - chunks;
    assert!(embedded >= 1 && embedded < chunks, "only the changed chunks are embedded: {embedded} of {chunks}");
    assert!(text_of(&t, &id).await.contains("rewritten"));
    t.stop().await;
}
