//! An erasure leaves nothing of the person in the store (docs/api.md §22, docs/privacy.md): after
//! `POST /api/v1/privacy/erase`, the raw store — on the embedded backend every text and blob
//! column of every table of every SQLite file and every other file of the data dir; on AWS every
//! item of the DynamoDB table and every S3 object — holds neither the person's e-mail address (in
//! any case) nor their verified user id, while another person's are still found there (the
//! scan sees data).

use crate::receiver::Receiver;
use crate::support::{TestApp, parts};
use reqwest::Method;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The erased person: a distinctive address (given in mixed case) and user id.
const EMAIL: &str = "Zelda.Quux-7f3c@Erasure-Probe.example";
const USER_ID: &str = "zq-user-91c4e2b7";
/// The person who stays.
const OTHER_EMAIL: &str = "keeper.other-5d1a@erasure-probe.example";
const OTHER_USER_ID: &str = "keeper-user-77a3f0";

/// What one scan of the raw store found: where each needle was seen.
#[derive(Debug, Default)]
struct Found {
    erased: Vec<String>,
    kept: Vec<String>,
}

impl Found {
    /// Records `text` seen at `place` (needles compared in lower case).
    fn look(&mut self, place: &str, text: &str) {
        let lower = text.to_lowercase();
        if lower.contains(&EMAIL.to_lowercase()) || text.contains(USER_ID) {
            self.erased.push(place.to_owned());
        }
        if lower.contains(OTHER_EMAIL) || text.contains(OTHER_USER_ID) {
            self.kept.push(place.to_owned());
        }
    }
}

fn user_hash(secret: &str, user_id: &str) -> String {
    use hmac::{Hmac, Mac};
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).expect("any key length");
    mac.update(user_id.as_bytes());
    mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect()
}

/// A client whose requests come from 127.0.0.`last` (a public-chat budget of its own).
fn from(last: u8) -> reqwest::Client {
    reqwest::Client::builder().local_address(std::net::IpAddr::from([127, 0, 0, last])).build().unwrap()
}

async fn keyed(t: &TestApp, method: Method, path: &str, body: Value) -> Value {
    let (status, body) = parts(t.req(method, path, &t.dev_key).json(&body).send().await.unwrap()).await;
    assert!((200..300).contains(&status), "{path}: {status} {body}");
    body
}

/// A visitor's public request, with `Authorization: Visitor <token>` when given.
async fn public(c: &reqwest::Client, t: &TestApp, path: &str, token: Option<&str>, body: Value) -> Value {
    let mut req = c.post(t.url(path)).json(&body);
    if let Some(tok) = token {
        req = req.header("authorization", format!("Visitor {tok}"));
    }
    let (status, body) = parts(req.send().await.unwrap()).await;
    assert!((200..300).contains(&status), "{path}: {status} {body}");
    body
}

/// A visitor's conversation at `/{kind}/{slug}`: opened with `visitor` and a question (which the
/// empty knowledge leaves unanswered), its answer rated with a comment, a person asked for.
async fn converse(c: &reqwest::Client, t: &TestApp, base: &str, visitor: Value, who: &str) {
    let body = json!({"visitor": visitor, "message": format!("Where is my parcel? Write to {who}.")});
    let opened = public(c, t, &format!("{base}/conversations"), None, body).await;
    let conv = opened["conversation"]["id"].as_str().unwrap().to_owned();
    let token = opened["visitorToken"].as_str().unwrap().to_owned();
    let answer = opened["messages"].as_array().unwrap().iter().rev().find(|m| m["role"] == "assistant").unwrap();
    let answer = answer["id"].as_str().unwrap();
    let body = json!({"rating": "down", "comment": format!("Not helpful, {who}")});
    public(c, t, &format!("{base}/conversations/{conv}/messages/{answer}/feedback"), Some(&token), body).await;
    let body = json!({"reason": format!("Call me back: {who}")});
    public(c, t, &format!("{base}/conversations/{conv}/handoff"), Some(&token), body).await;
}

/// Polls the delivery log until every delivery is `succeeded`, there are at least `n`, and
/// `done` holds for the log.
async fn settled(t: &TestApp, n: usize, done: impl Fn(&Value) -> bool) -> Value {
    t.wait_deliveries("limit=100", |b| {
        let items = b["deliveries"].as_array().unwrap();
        items.len() >= n && items.iter().all(|d| d["status"] == "succeeded") && done(b)
    })
    .await
}

#[tokio::test]
async fn privacy_erase_leaves_nothing_of_the_person_in_the_raw_store() {
    let t = TestApp::spawn_webhooks("200ms").await;
    let rx = Receiver::start().await;
    for event in ["chatbot.lead.captured", "message.rated", "conversation.handoff_requested", "privacy.visitor.erased"]
    {
        t.hook(json!({"hookUrl": rx.url("/all"), "event": event})).await;
    }

    // A published chatbot with the e-mail gate, hand-off and identity verification; a published
    // Mind with the e-mail gate and hand-off. Neither knows anything: every question is unanswered.
    let bot = t.create_chatbot(&t.dev_key, json!({"name": "Erasure Bot"})).await;
    let bot_api = format!("/api/v1/chatbots/{}", bot["id"].as_str().unwrap());
    let secret = keyed(&t, Method::POST, &format!("{bot_api}/identity-secret"), json!({})).await;
    let secret = secret["identitySecret"].as_str().unwrap().to_owned();
    let gated = json!({"collectEmailBeforeChat": true, "handoffEnabled": true, "welcomeMessage": "Hello."});
    let mut bot_settings = gated.clone();
    bot_settings["identityVerification"] = json!(true);
    keyed(&t, Method::PATCH, &bot_api, bot_settings).await;
    keyed(&t, Method::POST, &format!("{bot_api}/publish"), json!({})).await;
    let mind = t.mind(&t.dev_key, json!({"name": "Erasure Mind"})).await;
    let mind_api = format!("/api/v1/minds/{}", mind["id"].as_str().unwrap());
    t.hook(json!({"hookUrl": rx.url("/all"), "event": "mind.lead.captured", "mindId": mind["id"]})).await;
    keyed(&t, Method::PATCH, &mind_api, gated).await;
    keyed(&t, Method::POST, &format!("{mind_api}/publish"), json!({})).await;
    let bot_page = format!("/c/{}", bot["slug"].as_str().unwrap());
    let mind_page = format!("/m/{}", mind["slug"].as_str().unwrap());

    // The person at both (verified at the chatbot, the address lower-cased at the Mind), the
    // other person at the chatbot.
    let visitor = |email: &str, user: &str| json!({"email": email, "name": "Zelda Quux", "userId": user, "userHash": user_hash(&secret, user)});
    converse(&from(91), &t, &bot_page, visitor(EMAIL, USER_ID), EMAIL).await;
    converse(&from(92), &t, &mind_page, json!({"email": EMAIL.to_lowercase(), "name": "Zelda Quux"}), EMAIL).await;
    converse(&from(93), &t, &bot_page, visitor(OTHER_EMAIL, OTHER_USER_ID), OTHER_EMAIL).await;
    // Each conversation: a lead, a rating, a hand-off, all delivered.
    settled(&t, 9, |_| true).await;
    let before = scan(&t).await;
    eprintln!("before the erasure, found at: {before:#?}");
    assert!(!before.erased.is_empty(), "before the erasure the scan finds the person: {before:?}");

    let erased = keyed(&t, Method::POST, "/api/v1/privacy/erase", json!({"email": EMAIL.to_uppercase()})).await;
    assert_eq!(erased["erased"]["conversations"], 2, "{erased}");
    // The notice of the erasure reaches its receiver; once sent, its delivery keeps no payload
    // naming the person either (scrubbed right after its outcome is recorded).
    let log = settled(&t, 10, |b| {
        b["deliveries"].as_array().unwrap().iter().any(|d| d["eventType"] == "privacy.visitor.erased")
    })
    .await;
    let ws = t.app.find_workspace("default").await.unwrap().id;
    let deliveries = t.delivery_store();
    for d in log["deliveries"].as_array().unwrap().iter().filter(|d| d["eventType"] == "privacy.visitor.erased") {
        let id = lore_domain::id::DeliveryId::parse(d["id"].as_str().unwrap()).unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let payload = deliveries.get_delivery(&ws, &id).await.unwrap().expect("the delivery").payload;
            if !payload.as_str().to_lowercase().contains(&EMAIL.to_lowercase()) {
                break;
            }
            assert!(Instant::now() < deadline, "the delivered notice still names the person: {}", payload.as_str());
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    let after = scan(&t).await;
    eprintln!("after the erasure, found at: {after:#?}");
    assert_eq!(after.erased, Vec::<String>::new(), "nothing of the erased person is left in the raw store");
    assert!(!after.kept.is_empty(), "the other person's data is still found: the scan sees data");
    t.stop().await;
}

/// Every place of the raw store, whichever backend runs.
async fn scan(t: &TestApp) -> Found {
    match t.aws_backend() {
        Some(aws) => scan_aws(aws).await,
        None => scan_data_dir(t.data_dir()),
    }
}

/// Every file under `dir`, recursively.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files(&path));
        } else {
            out.push(path);
        }
    }
    out
}

fn is_sqlite(path: &Path) -> bool {
    let mut head = [0u8; 16];
    std::fs::File::open(path).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head)).is_ok()
        && &head == b"SQLite format 3\0"
}

/// The embedded backend: every text and blob value of every table of every SQLite database of
/// the data dir (opened read-only), and the bytes of every file — the databases' own files and
/// their `-wal` included, where freed pages and earlier page versions would keep what a row no
/// longer holds (the store overwrites deleted bytes and empties the WAL after an erasure).
fn scan_data_dir(dir: &Path) -> Found {
    use rusqlite::types::ValueRef;
    let mut found = Found::default();
    let all = files(dir);
    let databases: Vec<&PathBuf> = all.iter().filter(|p| is_sqlite(p)).collect();
    assert!(!databases.is_empty(), "the data dir has a SQLite database: {all:?}");
    for db in &databases {
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let c = rusqlite::Connection::open_with_flags(db, flags).unwrap();
        let tables: Vec<String> = c
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        for table in tables {
            let mut st = c.prepare(&format!("SELECT * FROM \"{table}\"")).unwrap();
            let names: Vec<String> = st.column_names().iter().map(|n| (*n).to_owned()).collect();
            let mut rows = st.query([]).unwrap();
            while let Some(row) = rows.next().unwrap() {
                for (i, name) in names.iter().enumerate() {
                    let text = match row.get_ref(i).unwrap() {
                        ValueRef::Text(b) | ValueRef::Blob(b) => String::from_utf8_lossy(b).into_owned(),
                        _ => continue,
                    };
                    found.look(&format!("{}: {table}.{name}", db.display()), &text);
                }
            }
        }
    }
    for file in &all {
        let bytes = std::fs::read(file).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        if databases.contains(&file) || file.to_string_lossy().ends_with("-wal") {
            // Raw pages: only what must be gone is looked for (a kept row is a kept row).
            let mut raw = Found::default();
            raw.look(&format!("{} (raw bytes)", file.display()), &text);
            found.erased.extend(raw.erased);
        } else {
            found.look(&file.display().to_string(), &text);
        }
    }
    found
}

/// A DynamoDB attribute as text: strings, numbers, binaries, lists, maps and sets, all of it.
fn attribute_text(v: &aws_sdk_dynamodb::types::AttributeValue) -> String {
    use aws_sdk_dynamodb::types::AttributeValue as A;
    match v {
        A::S(s) | A::N(s) => s.clone(),
        A::B(b) => String::from_utf8_lossy(b.as_ref()).into_owned(),
        A::Ss(v) | A::Ns(v) => v.join("\n"),
        A::Bs(v) => v.iter().map(|b| String::from_utf8_lossy(b.as_ref()).into_owned()).collect::<Vec<_>>().join("\n"),
        A::L(v) => v.iter().map(attribute_text).collect::<Vec<_>>().join("\n"),
        A::M(m) => m.iter().map(|(k, v)| format!("{k}={}", attribute_text(v))).collect::<Vec<_>>().join("\n"),
        _ => String::new(),
    }
}

/// The AWS backend: a full scan of the table (every attribute of every item) and every object of
/// the bucket.
async fn scan_aws(aws: &lore_aws::AwsBackend) -> Found {
    let mut found = Found::default();
    let dynamo = aws_sdk_dynamodb::Client::new(&aws.sdk_config);
    let mut start = None;
    let mut items = 0;
    loop {
        let page = dynamo
            .scan()
            .table_name(&aws.settings.table)
            .consistent_read(true)
            .set_exclusive_start_key(start.take())
            .send()
            .await
            .expect("scan the table");
        for item in page.items() {
            items += 1;
            let at = |k: &str| item.get(k).map(attribute_text).unwrap_or_default();
            let place = format!("{}: {} / {}", aws.settings.table, at("pk"), at("sk"));
            for (name, value) in item {
                found.look(&format!("{place} .{name}"), &attribute_text(value));
            }
        }
        match page.last_evaluated_key {
            Some(k) if !k.is_empty() => start = Some(k),
            _ => break,
        }
    }
    assert!(items > 0, "the table has items");
    let s3 = aws.s3.client();
    let bucket = aws.s3.bucket();
    let mut token = None;
    loop {
        let page = s3
            .list_objects_v2()
            .bucket(bucket)
            .set_continuation_token(token.take())
            .send()
            .await
            .expect("list the bucket");
        for object in page.contents() {
            let key = object.key().unwrap_or_default();
            let body = s3.get_object().bucket(bucket).key(key).send().await.expect("get an object").body;
            let bytes = body.collect().await.expect("read an object").into_bytes();
            found.look(&format!("s3://{bucket}/{key}"), &format!("{key}\n{}", String::from_utf8_lossy(&bytes)));
        }
        match page.next_continuation_token {
            Some(t) if page.is_truncated == Some(true) => token = Some(t),
            _ => break,
        }
    }
    found
}
