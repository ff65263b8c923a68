//! A source's chunks (docs/api.md §6, "Chunks"; §9): listed a page at a time with their token
//! counts and heading paths; rewritten (search finds the new words, not the old); disabled (no
//! search mode and no answer finds them) and enabled again; kept through a run over unchanged
//! content, dropped when the content changed; other tenants' chunks are not found; bodies are
//! validated.

use crate::site::Site;
use crate::support::{TestApp, expect_error, parts};
use lore_domain::workspace::LimitsPatch;
use reqwest::Method;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const MODES: [&str; 3] = ["semantic", "keyword", "hybrid"];

/// A text source of the dev workspace's `bot`, processed to `ready`; its id.
async fn ready_text(t: &TestApp, bot: &str, name: &str, content: &str) -> String {
    let (status, body) =
        t.post_source(&t.dev_key, bot, json!({"type": "text", "name": name, "content": content})).await;
    assert_eq!(status, 201, "{body}");
    let id = body["source"]["id"].as_str().unwrap().to_owned();
    assert_eq!(t.process(bot, &id).await.0, 202);
    assert_eq!(t.settle(bot, &id).await["status"], "ready");
    id
}

fn chunks_path(bot: &str, source: &str) -> String {
    format!("/api/v1/chatbots/{bot}/sources/{source}/chunks")
}

/// `GET …/chunks?<query>` with `key`: status and body.
async fn list_with(t: &TestApp, key: &str, path: &str, query: &str) -> (u16, Value) {
    parts(t.req(Method::GET, &format!("{path}?{query}"), key).send().await.unwrap()).await
}

/// Every chunk of the source at `path` (one page of 100), asserting 200.
async fn all_chunks(t: &TestApp, path: &str) -> Vec<Value> {
    let (status, body) = list_with(t, &t.dev_key, path, "limit=100").await;
    assert_eq!(status, 200, "{body}");
    body["chunks"].as_array().unwrap().clone()
}

/// `PATCH …/chunks/{id}` with `key`.
async fn patch_with(t: &TestApp, key: &str, path: &str, id: &str, body: Value) -> reqwest::Response {
    t.req(Method::PATCH, &format!("{path}/{id}"), key).json(&body).send().await.unwrap()
}

/// `PATCH …/chunks/{id}` with the dev key; the chunk (asserts 200).
async fn patch(t: &TestApp, path: &str, id: &str, body: Value) -> Value {
    let (status, answer) = parts(patch_with(t, &t.dev_key, path, id, body).await).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "success");
    answer["chunk"].clone()
}

/// The results of a chatbot search in `mode`.
async fn search(t: &TestApp, bot: &str, query: &str, mode: &str) -> Vec<Value> {
    let body = json!({"query": query, "mode": mode, "topK": 50});
    let res = t.req(Method::POST, &format!("/api/v1/chatbots/{bot}/knowledge/search"), &t.dev_key).json(&body);
    let (status, found) = parts(res.send().await.unwrap()).await;
    assert_eq!(status, 200, "{found}");
    found["results"].as_array().unwrap().clone()
}

fn ids(results: &[Value]) -> Vec<&str> {
    results.iter().map(|r| r["chunkId"].as_str().unwrap()).collect()
}

/// The chunk ids a chatbot's answer to `question` cites.
async fn cited(t: &TestApp, bot: &str, question: &str) -> Vec<String> {
    let path = format!("/api/v1/chatbots/{bot}/conversations");
    let res = t.req(Method::POST, &path, &t.dev_key).json(&json!({"message": question})).send().await.unwrap();
    let (status, created) = parts(res).await;
    assert_eq!(status, 201, "{created}");
    let answer = &created["messages"][1];
    answer["citations"].as_array().unwrap().iter().map(|c| c["chunkId"].as_str().unwrap().to_owned()).collect()
}

fn paragraph(topic: &str, n: usize) -> String {
    (0..n).map(|i| format!("{topic} detail number {i} is explained in this sentence. ")).collect()
}

#[tokio::test]
async fn chunks_are_listed_in_order_a_page_at_a_time_with_tokens_and_heading_paths() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    // Two sections of about 4,000 and 5,000 characters: several chunks of at most 3,200.
    let handbook = format!(
        "# Handbook\n\n## Billing\n\n{}\n\n## Shipping\n\n{}",
        paragraph("Billing", 80),
        paragraph("Shipping", 100)
    );
    let src = ready_text(&t, &bot, "handbook.md", &handbook).await;
    let plain = ready_text(&t, &bot, "plain", "Only plain words here, no headings at all.").await;
    let total = t.source(&bot, &src).await["chunkCount"].as_u64().unwrap();
    assert!(total >= 4, "{total} chunks");
    let path = chunks_path(&bot, &src);

    let mut listed: Vec<Value> = Vec::new();
    for page in 1..=total.div_ceil(2) {
        let (status, body) = list_with(&t, &t.dev_key, &path, &format!("page={page}&limit=2")).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["status"], "success");
        assert_eq!(
            body["pagination"],
            json!({"page": page, "limit": 2, "total": total, "totalPages": total.div_ceil(2)})
        );
        listed.extend(body["chunks"].as_array().unwrap().iter().cloned());
    }
    let positions: Vec<u64> = listed.iter().map(|c| c["position"].as_u64().unwrap()).collect();
    assert_eq!(positions, (0..total).collect::<Vec<_>>(), "every chunk once, in order");
    let texts: Vec<String> = listed.iter().map(|c| c["text"].as_str().unwrap().to_owned()).collect();
    assert_eq!(texts, t.chunk_texts(&src).await, "the index's chunks");
    for c in &listed {
        let text = c["text"].as_str().unwrap();
        assert!(c["id"].as_str().unwrap().starts_with(&format!("{src}:")), "{c}");
        assert_eq!(c["tokens"].as_u64().unwrap() as usize, text.chars().count().div_ceil(4), "4 characters a token");
        assert_eq!((c["enabled"].as_bool(), c["edited"].as_bool(), &c["url"]), (Some(true), Some(false), &Value::Null));
    }
    assert_eq!(listed[0]["headingPath"], json!(["Handbook", "Billing"]), "{}", listed[0]);
    assert_eq!(listed[1]["headingPath"], json!(["Handbook", "Billing"]), "the trail it sits under: {}", listed[1]);
    let last = listed.last().unwrap();
    assert_eq!(last["headingPath"], json!(["Handbook", "Shipping"]), "{last}");
    assert_eq!(all_chunks(&t, &chunks_path(&bot, &plain)).await[0]["headingPath"], json!([]));

    // Past the end: no chunks, the real total. The §4 rules for page and limit.
    let (_, past) = list_with(&t, &t.dev_key, &path, "page=99&limit=2").await;
    assert_eq!((past["chunks"].clone(), past["pagination"]["total"].as_u64()), (json!([]), Some(total)));
    let (_, default) = list_with(&t, &t.dev_key, &path, "").await;
    assert_eq!(default["pagination"]["limit"], 20);
    for bad in ["limit=0", "page=0", "page=x"] {
        let res = t.req(Method::GET, &format!("{path}?{bad}"), &t.dev_key).send().await.unwrap();
        expect_error(res, 400, "validation_error").await;
    }
    t.stop().await;
}

#[tokio::test]
async fn a_docx_table_split_across_chunks_repeats_its_header_in_each() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let rows: Vec<[String; 3]> = (1..=150)
        .map(|i| {
            [format!("Part {i:03}"), format!("{}.{:02} EUR", i * 3, i % 100), format!("Stocked in aisle {}", i % 9)]
        })
        .collect();
    let docx = crate::fixtures::docx_table("Price list", ["Part", "Price", "Notes"], &rows);
    let (status, body) = t.upload_source(&bot, "prices.docx", docx).await;
    assert_eq!(status, 201, "{body}");
    let src = body["source"]["id"].as_str().unwrap().to_owned();
    assert_eq!(t.process(&bot, &src).await.0, 202);
    assert_eq!(t.settle(&bot, &src).await["status"], "ready");

    let chunks = all_chunks(&t, &chunks_path(&bot, &src)).await;
    assert!(chunks.len() >= 3, "a table of {} rows in {} chunks", rows.len(), chunks.len());
    let header = "| Part | Price | Notes |\n|---|---|---|\n";
    let mut seen: Vec<&str> = Vec::new();
    for c in &chunks {
        let text = c["text"].as_str().unwrap();
        // Below the heading trail, every chunk is a table whose columns are named.
        let body = text.strip_prefix("# Price list\n\n").unwrap_or_else(|| panic!("the heading trail: {text:?}"));
        assert!(body.starts_with(header), "the header opens chunk {}: {text:?}", c["position"]);
        assert_eq!(body.matches("| Part | Price | Notes |").count(), 1, "{text:?}");
        assert_eq!(c["headingPath"], json!(["Price list"]), "{c}");
        seen.extend(body.lines().filter_map(|l| l.strip_prefix("| Part ")?.split(' ').next().filter(|n| n.len() == 3)));
    }
    seen.sort();
    seen.dedup();
    let expected: Vec<String> = (1..=150).map(|i| format!("{i:03}")).collect();
    assert_eq!(seen, expected.iter().map(String::as_str).collect::<Vec<_>>(), "every row in some chunk");
    t.stop().await;
}

#[tokio::test]
async fn an_edited_chunk_is_found_by_its_new_words_and_not_its_old_ones() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let src = ready_text(&t, &bot, "zeppelins", "The zeppelin hangar opens at dawn for guided visits.").await;
    ready_text(&t, &bot, "shipping", "Orders ship within two business days from the Berlin warehouse.").await;
    let path = chunks_path(&bot, &src);
    let chunk = all_chunks(&t, &path).await[0].clone();
    let id = chunk["id"].as_str().unwrap();
    assert_eq!(ids(&search(&t, &bot, "zeppelin hangar", "keyword").await), [id]);

    let text = "Submarine tours leave the harbour at noon.";
    let edited = patch(&t, &path, id, json!({"text": format!("  {text}\n")})).await;
    let tokens = text.chars().count().div_ceil(4);
    assert_eq!(
        edited,
        json!({"id": id, "position": 0, "text": text, "tokens": tokens, "headingPath": [], "enabled": true,
               "edited": true, "url": null, "language": null}),
        "trimmed, re-counted, marked edited (too short to tell its language)"
    );
    assert_eq!(all_chunks(&t, &path).await, vec![edited.clone()], "listed as answered");
    for mode in MODES {
        let found = search(&t, &bot, "submarine tours harbour", mode).await;
        assert_eq!(found.first().map(|r| r["chunkId"].clone()), Some(json!(id)), "{mode}: {found:?}");
        assert_eq!(found[0]["content"], text);
        let old = search(&t, &bot, "zeppelin hangar dawn", mode).await;
        assert!(old.iter().all(|r| !r["content"].as_str().unwrap().contains("zeppelin")), "{mode}: {old:?}");
    }
    assert!(search(&t, &bot, "zeppelin", "keyword").await.is_empty(), "no chunk holds the old words");
    assert_eq!(t.source(&bot, &src).await["chunkCount"], 1, "still one chunk");
    t.stop().await;
}

#[tokio::test]
async fn a_disabled_chunk_is_left_out_of_every_search_and_answer_until_enabled_again() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let src = ready_text(&t, &bot, "zeppelins", "The zeppelin hangar opens at dawn for guided visits.").await;
    ready_text(&t, &bot, "shipping", "Orders ship within two business days from the Berlin warehouse.").await;
    let path = chunks_path(&bot, &src);
    let id = all_chunks(&t, &path).await[0]["id"].as_str().unwrap().to_owned();
    let question = "When does the zeppelin hangar open?";
    for mode in MODES {
        assert_eq!(ids(&search(&t, &bot, "zeppelin hangar dawn", mode).await).first(), Some(&id.as_str()), "{mode}");
    }
    assert!(cited(&t, &bot, question).await.contains(&id), "an answer cites it");

    let off = patch(&t, &path, &id, json!({"enabled": false})).await;
    assert_eq!((off["enabled"].as_bool(), off["edited"].as_bool()), (Some(false), Some(false)), "{off}");
    for mode in MODES {
        let found = search(&t, &bot, "zeppelin hangar dawn", mode).await;
        assert!(!ids(&found).contains(&id.as_str()), "{mode} leaves it out: {found:?}");
    }
    assert!(!cited(&t, &bot, question).await.contains(&id), "no answer cites it");
    assert_eq!(all_chunks(&t, &path).await[0]["enabled"], false, "still listed");
    assert_eq!(t.source(&bot, &src).await["chunkCount"], 1, "and counted");
    assert_eq!(t.stats(&bot).await["totalChunks"], 2);

    let on = patch(&t, &path, &id, json!({"enabled": true})).await;
    assert_eq!(on["enabled"], true);
    for mode in MODES {
        assert_eq!(ids(&search(&t, &bot, "zeppelin hangar dawn", mode).await).first(), Some(&id.as_str()), "{mode}");
    }
    assert!(cited(&t, &bot, question).await.contains(&id), "cited again");
    t.stop().await;
}

#[tokio::test]
async fn processing_unchanged_content_again_keeps_the_changes_and_new_content_drops_them() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let content = format!("{}\n\n{}", paragraph("Billing", 50), paragraph("Shipping", 50));
    let src = ready_text(&t, &bot, "notes", &content).await;
    let path = chunks_path(&bot, &src);
    let before = all_chunks(&t, &path).await;
    assert!(before.len() >= 2, "{before:?}");
    let (first, second) = (before[0]["id"].as_str().unwrap(), before[1]["id"].as_str().unwrap());
    let edited = patch(&t, &path, first, json!({"text": "Submarine tours leave at noon."})).await;
    let disabled = patch(&t, &path, second, json!({"enabled": false})).await;

    assert_eq!(t.process(&bot, &src).await.0, 202);
    let again = t.settle(&bot, &src).await;
    assert_eq!((again["status"].as_str(), again["chunkCount"].as_u64()), (Some("ready"), Some(before.len() as u64)));
    let kept = all_chunks(&t, &path).await;
    assert_eq!((&kept[0], &kept[1]), (&edited, &disabled), "the same text: the changes stay");
    assert_eq!(ids(&search(&t, &bot, "submarine tours", "keyword").await), [first]);

    // New content: chunks made again from it, the changes gone.
    let res = t.req(Method::PATCH, &format!("/api/v1/chatbots/{bot}/sources/{src}"), &t.dev_key);
    let res = res.json(&json!({"content": format!("{content}\n\nOne more sentence.")})).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(t.process(&bot, &src).await.0, 202);
    assert_eq!(t.settle(&bot, &src).await["status"], "ready");
    let rebuilt = all_chunks(&t, &path).await;
    assert!(rebuilt.iter().all(|c| c["enabled"] == true && c["edited"] == false), "{rebuilt:?}");
    assert!(rebuilt[0]["text"].as_str().unwrap().starts_with("Billing detail number 0"));
    assert!(search(&t, &bot, "submarine", "keyword").await.is_empty());
    t.stop().await;
}

#[tokio::test]
async fn a_refresh_keeps_the_changes_while_the_page_is_unchanged() {
    let site = Site::start().await;
    let t = TestApp::spawn_private().await;
    let bot = t.chatbot().await;
    site.set_changing("The lighthouse opens at nine. Tours of the lamp room run hourly.");
    let body = json!({"type": "url", "url": site.url("/changing")});
    let (status, created) = t.post_source(&t.dev_key, &bot, body).await;
    assert_eq!(status, 201, "{created}");
    let src = created["source"]["id"].as_str().unwrap().to_owned();
    t.process(&bot, &src).await;
    assert_eq!(t.settle(&bot, &src).await["status"], "ready");
    let path = chunks_path(&bot, &src);
    let chunk = all_chunks(&t, &path).await[0].clone();
    assert_eq!(chunk["url"], site.url("/changing"), "a crawled chunk names its page");
    let id = chunk["id"].as_str().unwrap();
    let edited = patch(&t, &path, id, json!({"text": "The lighthouse opens at ten.", "enabled": false})).await;
    assert_eq!((edited["edited"].as_bool(), edited["enabled"].as_bool()), (Some(true), Some(false)));

    let refresh = format!("/api/v1/chatbots/{bot}/sources/{src}/refresh");
    let refresh = || async { t.req(Method::POST, &refresh, &t.dev_key).send().await.unwrap().status() };
    let hits = site.hits("changing");
    assert_eq!(refresh().await, 202);
    assert_eq!(t.settle(&bot, &src).await["status"], "ready");
    assert_eq!(site.hits("changing"), hits + 1, "fetched again");
    assert_eq!(all_chunks(&t, &path).await, vec![edited], "unchanged page: the change stays");

    site.set_changing("The lighthouse is closed for the winter.");
    assert_eq!(refresh().await, 202);
    let deadline = Instant::now() + Duration::from_secs(30);
    let rebuilt = loop {
        assert_eq!(t.settle(&bot, &src).await["status"], "ready");
        let chunks = all_chunks(&t, &path).await;
        if chunks[0]["text"].as_str().unwrap().contains("winter") || Instant::now() > deadline {
            break chunks;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(rebuilt.len(), 1);
    assert_eq!(rebuilt[0]["text"], "The lighthouse is closed for the winter.");
    assert_eq!((rebuilt[0]["edited"].as_bool(), rebuilt[0]["enabled"].as_bool()), (Some(false), Some(true)));
    t.stop().await;
}

#[tokio::test]
async fn a_minds_chunks_are_listed_and_changed_under_its_knowledge_and_kept_by_a_reprocess() {
    let t = TestApp::spawn().await;
    let k = t.dev_key.clone();
    let res = t.req(Method::POST, "/api/v1/minds", &k).json(&json!({"name": "Keeper"})).send().await.unwrap();
    let mind = parts(res).await.1["mind"]["id"].as_str().unwrap().to_owned();
    let knowledge = format!("/api/v1/minds/{mind}/knowledge");
    let mut sources = Vec::new();
    for content in ["# Lamps\n\nThe lamp room is lit at dusk.", "The keeper's cottage has a blue door."] {
        let res = t.req(Method::POST, &knowledge, &k).json(&json!({"type": "text", "content": content}));
        let (status, body) = parts(res.send().await.unwrap()).await;
        assert_eq!(status, 201, "{body}");
        sources.push(body["source"]["id"].as_str().unwrap().to_owned());
    }
    let settle = |id: String| {
        let (t, k, knowledge) = (&t, k.clone(), knowledge.clone());
        async move {
            let deadline = Instant::now() + Duration::from_secs(60);
            loop {
                let (_, body) = parts(t.req(Method::GET, &format!("{knowledge}/{id}"), &k).send().await.unwrap()).await;
                if body["source"]["status"] == "ready" {
                    return;
                }
                assert!(Instant::now() < deadline && body["source"]["status"] != "failed", "{body}");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    };
    for id in &sources {
        settle(id.clone()).await;
    }
    let path = format!("{knowledge}/{}/chunks", sources[0]);
    let chunk = all_chunks(&t, &path).await[0].clone();
    assert_eq!(chunk["headingPath"], json!(["Lamps"]));
    let id = chunk["id"].as_str().unwrap();
    let search = |query: &'static str| {
        let (t, k, mind) = (&t, k.clone(), mind.clone());
        async move {
            let body = json!({"query": query, "mode": "keyword"});
            let res = t.req(Method::POST, &format!("/api/v1/minds/{mind}/knowledge/search"), &k).json(&body);
            parts(res.send().await.unwrap()).await.1["results"].as_array().unwrap().len()
        }
    };
    assert_eq!(search("lamp dusk").await, 1);
    let off = patch(&t, &path, id, json!({"enabled": false})).await;
    assert_eq!(off["enabled"], false);
    assert_eq!(search("lamp dusk").await, 0, "the Mind's search leaves it out");

    let res = t.req(Method::POST, &format!("{knowledge}/{}/reprocess", sources[0]), &k).send().await.unwrap();
    assert_eq!(res.status(), 202);
    settle(sources[0].clone()).await;
    assert_eq!(all_chunks(&t, &path).await, vec![off], "kept through the reprocess");
    assert_eq!(search("lamp dusk").await, 0);

    // A chunk of the Mind's other source, or of a chatbot's, is not this source's.
    let other =
        all_chunks(&t, &format!("{knowledge}/{}/chunks", sources[1])).await[0]["id"].as_str().unwrap().to_owned();
    expect_error(patch_with(&t, &k, &path, &other, json!({"enabled": false})).await, 404, "not_found").await;
    let bot = t.chatbot().await;
    let bot_src = ready_text(&t, &bot, "n", "A chatbot's note.").await;
    let (status, body) = list_with(&t, &k, &format!("{knowledge}/{bot_src}/chunks"), "").await;
    assert_eq!((status, body["error"]["code"].as_str()), (404, Some("not_found")), "{body}");
    t.stop().await;
}

#[tokio::test]
async fn another_tenants_or_another_sources_chunks_are_not_found() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let mine = ready_text(&t, &bot, "mine", "The vault code changes every Monday.").await;
    let sibling = ready_text(&t, &bot, "sibling", "The garden gate is green.").await;
    let path = chunks_path(&bot, &mine);
    let chunk = all_chunks(&t, &path).await[0]["id"].as_str().unwrap().to_owned();

    let ws = t.workspace("tenant-b", LimitsPatch::default()).await;
    let other = t.key(&ws, "all").await;
    let (status, body) = list_with(&t, &other, &path, "").await;
    assert_eq!((status, body["error"]["code"].as_str()), (404, Some("not_found")), "{body}");
    expect_error(patch_with(&t, &other, &path, &chunk, json!({"enabled": false})).await, 404, "not_found").await;
    // Their own chatbot and source, naming my chunk.
    let their_bot = t.create_chatbot(&other, json!({"name": "theirs"})).await["id"].as_str().unwrap().to_owned();
    let (_, theirs) = t.post_source(&other, &their_bot, json!({"type": "text", "content": "Their note."})).await;
    let theirs = theirs["source"]["id"].as_str().unwrap();
    let their_path = chunks_path(&their_bot, theirs);
    let res = patch_with(&t, &other, &their_path, &chunk, json!({"text": "Hijacked."})).await;
    expect_error(res, 404, "not_found").await;
    // My own other source, naming this chunk; chunks and sources that do not exist.
    let res = patch_with(&t, &t.dev_key, &chunks_path(&bot, &sibling), &chunk, json!({"enabled": false})).await;
    expect_error(res, 404, "not_found").await;
    for (p, id) in [
        (path.clone(), format!("{mine}:9:0")),
        (path.clone(), "not-a-chunk".to_owned()),
        (chunks_path(&bot, "src_01jq3z5v7b8c9d0e1f2g3h4j5k"), chunk.clone()),
        (chunks_path(&bot, "nope"), chunk.clone()),
        (chunks_path("cb_01jq3z5v7b8c9d0e1f2g3h4j5k", &mine), chunk.clone()),
    ] {
        expect_error(patch_with(&t, &t.dev_key, &p, &id, json!({"enabled": false})).await, 404, "not_found").await;
    }
    let untouched = all_chunks(&t, &path).await;
    assert_eq!((untouched[0]["enabled"].as_bool(), untouched[0]["edited"].as_bool()), (Some(true), Some(false)));
    assert_eq!(untouched[0]["text"], "The vault code changes every Monday.");
    t.stop().await;
}

#[tokio::test]
async fn bad_bodies_are_refused_and_a_processing_source_is_left_alone() {
    let site = Site::start().await;
    let t = TestApp::spawn_private().await;
    let bot = t.chatbot().await;
    let src = ready_text(&t, &bot, "note", "The ferry leaves at six.").await;
    let path = chunks_path(&bot, &src);
    let id = all_chunks(&t, &path).await[0]["id"].as_str().unwrap().to_owned();
    let long = "x".repeat(8_001);
    for (body, field) in [
        (json!({}), "body"),
        (json!({"text": null, "enabled": null}), "body"),
        (json!({"text": "  \n "}), "text"),
        (json!({"text": long}), "text"),
        (json!({"text": 5}), "text"),
        (json!({"enabled": "no"}), "enabled"),
    ] {
        let res = patch_with(&t, &t.dev_key, &path, &id, body.clone()).await;
        let refused = expect_error(res, 400, "validation_error").await;
        assert!(refused["error"]["details"]["fields"][field].is_string(), "{body}: {refused}");
    }
    let res = t.req(Method::PATCH, &format!("{path}/{id}"), &t.dev_key).json(&json!([1])).send().await.unwrap();
    expect_error(res, 400, "invalid_json").await;
    let res = t.req(Method::PATCH, &format!("{path}/{id}"), &t.dev_key).body("enabled=false").send().await.unwrap();
    expect_error(res, 400, "invalid_json").await;
    let longest = "y".repeat(8_000);
    assert_eq!(patch(&t, &path, &id, json!({"text": longest})).await["text"].as_str().map(str::len), Some(8_000));

    // A source being processed: its chunks are the run's to replace.
    let (_, slow) = t.post_source(&t.dev_key, &bot, json!({"type": "url", "url": site.url("/slow")})).await;
    let slow = slow["source"]["id"].as_str().unwrap().to_owned();
    assert_eq!(t.process(&bot, &slow).await.0, 202);
    let slow_path = chunks_path(&bot, &slow);
    let res = patch_with(&t, &t.dev_key, &slow_path, &format!("{slow}:1:0"), json!({"enabled": false})).await;
    expect_error(res, 409, "processing_in_progress").await;
    let (status, listed) = list_with(&t, &t.dev_key, &slow_path, "").await;
    assert_eq!((status, listed["chunks"].clone()), (200, json!([])), "listing is a read: allowed");
    site.release_slow();
    assert_eq!(t.settle(&bot, &slow).await["status"], "ready");
    t.stop().await;
}
