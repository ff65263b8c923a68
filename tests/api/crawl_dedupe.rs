//! One copy of a passage per crawl: an mdBook-like site whose `print.html` repeats every chapter,
//! whose `introduction.html` is `index.html` again, and whose moved chapter names the chapter as
//! its canonical URL. Search must cite the chapters, and the source holds each chapter once.

use crate::support::{TestApp, parts};
use axum::Router;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use reqwest::Method;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A chapter's paragraphs: long enough for several chunks, each sentence its own.
fn paragraphs(topic: &str, sentences: &[&str]) -> String {
    sentences
        .iter()
        .enumerate()
        .map(|(i, s)| {
            format!(
                "<p>{s} {}</p>",
                format!("This part {i} of the chapter on {topic} goes on about {topic} in some detail. ").repeat(12)
            )
        })
        .collect()
}

fn chapter1() -> String {
    let text = paragraphs(
        "ownership",
        &[
            "Each value in Rust has an owner that decides when it is dropped.",
            "Moving a value hands its ownership to the new binding.",
            "Borrowing lends a reference without giving up ownership.",
            "Slices let you reference a contiguous part of a collection.",
        ],
    );
    format!("<h1>Understanding Ownership</h1>{text}")
}

fn chapter2() -> String {
    let text = paragraphs(
        "structs",
        &[
            "A struct groups related fields under one meaningful name.",
            "Tuple structs give a whole tuple a name without naming its fields.",
            "Method syntax puts behaviour inside an impl block for the struct.",
            "Associated functions without self are often used as constructors.",
        ],
    );
    format!("<h1>Using Structs</h1>{text}")
}

fn shell(title: &str, head: &str, main: &str) -> String {
    format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{title}</title>{head}\
         <script>buildMenu();</script></head><body><main>{main}</main></body></html>"
    )
}

fn book_page(name: &str) -> Option<String> {
    let index = || {
        shell(
            "The Book",
            "",
            "<h1>The Book</h1><p>Welcome.</p><p>Read on.</p>\
             <ul><li><a href=\"introduction.html\">Intro</a></li><li><a href=\"chapter1.html\">One</a></li>\
             <li><a href=\"chapter2.html\">Two</a></li><li><a href=\"print.html\">Print</a></li>\
             <li><a href=\"old-ownership.html\">Old</a></li></ul>",
        )
    };
    Some(match name {
        "index.html" | "introduction.html" => index(),
        "chapter1.html" => shell("Understanding Ownership", "", &chapter1()),
        "chapter2.html" => shell("Using Structs", "", &chapter2()),
        "print.html" => shell("The Book", "", &format!("{}{}", chapter1(), chapter2())),
        // A moved chapter (an older text) that says where the chapter lives now.
        "old-ownership.html" => shell(
            "Understanding Ownership",
            "<link rel=\"canonical\" href=\"chapter1.html\">",
            "<h1>Ownership (old edition)</h1><p>The old edition says the borrow checker was once called \
             the region checker, and this page has moved to chapter one.</p>",
        ),
        _ => return None,
    })
}

#[derive(Clone, Default)]
struct Hits(Arc<Mutex<HashMap<String, usize>>>);

async fn serve_book(State(hits): State<Hits>, Path(name): Path<String>) -> axum::response::Response {
    *hits.0.lock().unwrap().entry(name.clone()).or_default() += 1;
    match book_page(&name) {
        Some(html) => ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response(),
        None => (StatusCode::NOT_FOUND, "no such page").into_response(),
    }
}

/// Serves the book on 127.0.0.1; returns its base URL and the hits per page.
async fn serve() -> (String, Hits) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let hits = Hits::default();
    let app = Router::new().route("/book/{name}", get(serve_book)).with_state(hits.clone());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://127.0.0.1:{port}/book"), hits)
}

/// Creates and processes a URL source; returns its id and its settled detail.
async fn crawl(t: &TestApp, bot: &str, url: &str, depth: u8) -> (String, Value) {
    let (status, body) = t.post_source(&t.dev_key, bot, json!({"type": "url", "url": url, "crawlDepth": depth})).await;
    assert_eq!(status, 201, "{body}");
    let id = body["source"]["id"].as_str().unwrap().to_owned();
    let (status, body) = t.process(bot, &id).await;
    assert_eq!(status, 202, "{body}");
    let done = t.settle(bot, &id).await;
    assert_eq!(done["status"], "ready", "{done}");
    (id, done)
}

/// The page URLs of the keyword hits for `query` within `source`.
async fn cited(t: &TestApp, bot: &str, source: &str, query: &str) -> Vec<String> {
    let body = json!({"query": query, "mode": "keyword", "topK": 20});
    let path = format!("/api/v1/chatbots/{bot}/knowledge/search");
    let (status, found) = parts(t.req(Method::POST, &path, &t.dev_key).json(&body).send().await.unwrap()).await;
    assert_eq!(status, 200, "{found}");
    found["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["sourceId"] == source)
        .map(|r| r["url"].as_str().expect("a crawled chunk has its page URL").to_owned())
        .collect()
}

#[tokio::test]
async fn a_crawl_keeps_one_copy_of_each_passage_on_its_chapter() {
    let (base, hits) = serve().await;
    let t = TestApp::spawn_private().await;
    let bot = t.chatbot().await;

    let (id, done) = crawl(&t, &bot, &format!("{base}/index.html"), 2).await;
    for page in ["introduction.html", "chapter1.html", "chapter2.html", "print.html", "old-ownership.html"] {
        assert_eq!(hits.0.lock().unwrap().get(page).copied(), Some(1), "{page} fetched once");
    }
    // The moved chapter is fetched but not a page of the source: its canonical URL is chapter 1.
    assert_eq!(done["pagesCrawled"], 5, "{done}");

    for (query, page) in [
        ("tuple structs whole tuple name", "/book/chapter2.html"),
        ("associated functions constructors", "/book/chapter2.html"),
        ("borrowing lends reference", "/book/chapter1.html"),
    ] {
        let urls = cited(&t, &bot, &id, query).await;
        assert!(!urls.is_empty(), "{query}: no hit");
        assert!(urls[0].ends_with(page), "{query}: {urls:?}");
        for other in ["print.html", "old-ownership.html", "introduction.html"] {
            assert!(urls.iter().all(|u| !u.ends_with(other)), "{query}: cited from {other}: {urls:?}");
        }
    }

    // The same chunks as the three pages crawled one by one: print.html, the index's copy and the
    // moved chapter add none.
    let mut alone = Vec::new();
    for page in ["index.html", "chapter1.html", "chapter2.html"] {
        let (one, _) = crawl(&t, &bot, &format!("{base}/{page}"), 1).await;
        alone.extend(t.chunk_texts(&one).await);
    }
    assert!(alone.len() >= 3, "the chapters span several chunks: {alone:#?}");
    assert_eq!(done["chunkCount"], alone.len(), "{done}");
    let mut chunks = t.chunk_texts(&id).await;
    chunks.sort();
    alone.sort();
    assert_eq!(chunks, alone, "the crawl's chunks are the pages' own");
    assert!(!chunks.iter().any(|c| c.contains("region checker")), "the canonical duplicate is not indexed");

    t.stop().await;
}
