//! DynamoDB beyond the shared suites: counters under concurrent writes, atomic quotas, races
//! between different transitions, batched chatbot and Mind deletes, the count limits of Mind
//! sources, the lease index, the table layout, and a differential check of every list and
//! statistic against the SQLite adapter.

mod support;

use aws_sdk_dynamodb::types::AttributeValue;
use lore_app::ports::{ChatbotStore, KeyCount, KeyStore, RateDecision, RateWindow, WorkspaceStore};
use lore_app::ports::{CountLimit, Finish, Guarded, InsertLimits, Inserted, Lease, SourceFilter, SourceStore, Updated};
use lore_app::ports::{MindInsert, MindUsage};
use lore_aws::AwsBackend;
use lore_domain::Timestamp;
use lore_domain::api_key::{ApiKey, ApiKeySecret, KeyHash, KeyName};
use lore_domain::audio::AudioFormat;
use lore_domain::chatbot::Chatbot;
use lore_domain::document::DocumentKind;
use lore_domain::id::{ApiKeyId, ChatbotId, MindId, SourceId, WorkspaceId};
use lore_domain::mind::{Field, Mind, MindSourceCounts, NewMind, RawMind};
use lore_domain::pagination::PageRequest;
use lore_domain::scope::ScopeSet;
use lore_domain::slug::Slug;
use lore_domain::source::{
    CrawlDepth, KnowledgeSource, Progress, SourceOwner, SourceSpec, SourceStatus, SourceType, StoredAudio, StoredFile,
};
use lore_domain::workspace::{Workspace, WorkspaceLimits, WorkspaceName};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

const SETTLED: [SourceStatus; 3] = [SourceStatus::Pending, SourceStatus::Ready, SourceStatus::Error];

fn workspace(name: &str) -> Workspace {
    Workspace {
        id: WorkspaceId::generate(),
        name: WorkspaceName::parse(name).unwrap(),
        limits: WorkspaceLimits::default(),
        created_at: Timestamp::now(),
    }
}

fn chatbot(ws: &WorkspaceId, slug: &str) -> Chatbot {
    let new = lore_domain::chatbot::NewChatbot::parse(Some("Bot"), None, None).unwrap();
    Chatbot::create(ws.clone(), new, Slug::parse("slug", slug).unwrap(), Timestamp::now())
}

/// The i-th source of a mixed set: types rotate, sizes and creation times vary (some share a
/// millisecond, so the id tiebreak matters).
fn source(bot: &Chatbot, i: u64) -> KnowledgeSource {
    let created = Timestamp::from_millis(1_700_000_000_000 + (i / 2) as i64);
    let spec = match i % 3 {
        0 => SourceSpec::Text { content: "t".repeat(1 + i as usize) },
        1 => SourceSpec::Url {
            url: format!("https://example.com/{i}"),
            crawl_depth: CrawlDepth::from_stored(2),
            pages_crawled: 0,
            last_refreshed_at: None,
            refresh_interval: None,
        },
        _ => SourceSpec::File(StoredFile {
            file_name: format!("f{i}.pdf"),
            mime_type: "application/pdf".into(),
            kind: DocumentKind::Pdf,
            blob_key: format!("{}/upl_{i}/f{i}.pdf", bot.workspace_id),
            file_url: format!("https://cdn.example.com/{}/upl_{i}/f{i}.pdf", bot.workspace_id),
            size_bytes: 100 + i,
        }),
    };
    let size_bytes = match &spec {
        SourceSpec::Text { content } => content.len() as u64,
        SourceSpec::Url { .. } => 0,
        SourceSpec::File(f) => f.size_bytes,
        SourceSpec::Podcast(a) => a.size_bytes,
    };
    KnowledgeSource {
        id: SourceId::generate(),
        workspace_id: bot.workspace_id.clone(),
        owner: SourceOwner::Chatbot(bot.id.clone()),
        name: format!("s{i}"),
        status: SourceStatus::Pending,
        spec,
        created_at: created,
        updated_at: created,
        processed_at: None,
        chunk_count: 0,
        size_bytes,
        error: None,
        content_hash: None,
        progress: None,
        generation: 0,
        metadata: Default::default(),
    }
}

/// Limits of a chatbot source insert: only the storage quota applies.
fn quota(bytes: u64) -> InsertLimits {
    InsertLimits { storage_quota: bytes, workspace_sources: u32::MAX, mind_sources: u32::MAX }
}

fn owner(bot: &ChatbotId) -> SourceOwner {
    SourceOwner::Chatbot(bot.clone())
}

fn lease(owner: &str, until_ms: i64) -> Lease {
    Lease { owner: owner.into(), until: Timestamp::from_millis(until_ms) }
}

fn later() -> i64 {
    Timestamp::now().millis() + 600_000
}

fn ready(chunks: u64) -> Finish {
    Finish::Ready {
        chunk_count: chunks,
        size_bytes: None,
        content_hash: "h".into(),
        pages_crawled: None,
        refreshed_at: None,
    }
}

async fn setup(b: &AwsBackend, name: &str) -> (Workspace, Chatbot) {
    let ws = workspace(name);
    b.ports.workspaces.insert_workspace(&ws).await.unwrap();
    let bot = chatbot(&ws.id, "bot");
    b.ports.chatbots.insert_chatbot(&bot).await.unwrap();
    (ws, bot)
}

/// The workspace's counters item, read directly (infra/dynamodb.md: `WS#<ws>` / `COUNTERS`).
async fn raw_counters(b: &AwsBackend, ws: &WorkspaceId) -> HashMap<String, i64> {
    let item = b
        .dynamo
        .client()
        .get_item()
        .table_name(b.dynamo.table())
        .key("pk", AttributeValue::S(format!("WS#{ws}")))
        .key("sk", AttributeValue::S("COUNTERS".into()))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
        .expect("a workspace has a counters item");
    item.iter().filter_map(|(k, v)| Some((k.clone(), v.as_n().ok()?.parse().ok()?))).collect()
}

/// Every source of the chatbot, through the paged list.
async fn all_sources(s: &dyn SourceStore, ws: &WorkspaceId, bot: &ChatbotId) -> Vec<KnowledgeSource> {
    let mut out = Vec::new();
    for page in 1.. {
        let p = s.list_sources(ws, &owner(bot), SourceFilter::default(), PageRequest::new(page, 100)).await.unwrap();
        let done = p.items.len() < 100;
        out.extend(p.items);
        if done {
            break;
        }
    }
    out
}

/// The counters (stats, list totals, sourceCount, workspace storage) equal what the items say.
async fn assert_counters_match_items(b: &AwsBackend, ws: &WorkspaceId, bot: &ChatbotId, other_bytes: u64) {
    let items = all_sources(b.ports.sources.as_ref(), ws, bot).await;
    let stats = b.ports.sources.source_stats(ws, &owner(bot)).await.unwrap();
    assert_eq!(stats.total_sources, items.len() as u64, "total sources");
    assert_eq!(stats.total_chunks, items.iter().map(|s| s.chunk_count).sum::<u64>(), "total chunks");
    let bytes: u64 = items.iter().map(|s| s.size_bytes).sum();
    assert_eq!(stats.total_size_bytes, bytes, "total bytes");
    let mut by_status: BTreeMap<&str, u64> = BTreeMap::new();
    for s in &items {
        *by_status.entry(s.status.as_str()).or_default() += 1;
    }
    assert_eq!(stats.by_status, by_status, "by status");
    assert_eq!(stats.by_type.len(), SourceType::CHATBOT.len(), "a chatbot's types only");
    for t in SourceType::CHATBOT {
        let n = items.iter().filter(|s| s.source_type() == t).count() as u64;
        assert_eq!(stats.by_type.get(t.as_str()), Some(&n), "by type {t:?}");
        for st in SourceStatus::CHATBOT {
            let filter = SourceFilter { status: Some(st), source_type: Some(t) };
            let page = b.ports.sources.list_sources(ws, &owner(bot), filter, PageRequest::new(1, 100)).await.unwrap();
            let expected = items.iter().filter(|s| s.source_type() == t && s.status == st).count() as u64;
            assert_eq!((page.total, page.items.len() as u64), (expected, expected), "filtered {st:?} {t:?}");
        }
    }
    let bot_record = b.ports.chatbots.get_chatbot(ws, bot).await.unwrap().unwrap();
    assert_eq!(bot_record.source_count, items.len() as u64, "the chatbot's sourceCount");
    assert_eq!(raw_counters(b, ws).await["storageBytes"] as u64, bytes + other_bytes, "the workspace's storage");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn counters_stay_exact_under_concurrent_writes() {
    let b = support::backend("counters").await;
    let (ws, bot) = setup(&b, "counters").await;
    let sources: Vec<KnowledgeSource> = (0..30).map(|i| source(&bot, i)).collect();
    let mut tasks = Vec::new();
    for s in sources.clone() {
        let store = b.ports.sources.clone();
        tasks.push(tokio::spawn(async move { store.insert_source(&s, &quota(u64::MAX)).await.unwrap() }));
    }
    for t in tasks {
        assert_eq!(t.await.unwrap(), Inserted::Done);
    }
    assert_counters_match_items(&b, &ws.id, &bot.id, 0).await;

    // At once: start 12 runs, delete 6 others, grow 6 more; then finish the runs (some twice).
    let mut tasks = Vec::new();
    for (i, s) in sources.iter().enumerate() {
        let (store, ws, s) = (b.ports.sources.clone(), ws.id.clone(), s.clone());
        tasks.push(tokio::spawn(async move {
            match i % 5 {
                0..=1 => {
                    let Guarded::Done(run) =
                        store.begin_processing(&ws, &s.id, &lease("w", later()), Timestamp::now()).await.unwrap()
                    else {
                        panic!("begin")
                    };
                    let finish = if i % 2 == 0 { ready(i as u64) } else { Finish::Error { message: "x".into() } };
                    assert!(
                        store
                            .finish_processing(&s.id, run.generation, &finish, Timestamp::now())
                            .await
                            .unwrap()
                            .is_some()
                    );
                    assert!(
                        store
                            .finish_processing(&s.id, run.generation, &finish, Timestamp::now())
                            .await
                            .unwrap()
                            .is_none()
                    );
                }
                2 => {
                    assert!(matches!(store.delete_source(&ws, &s.id, &SETTLED).await.unwrap(), Guarded::Done(_)));
                }
                3 => {
                    let mut grown = s.clone();
                    grown.name = "grown".into();
                    grown.size_bytes += 7;
                    assert_eq!(store.update_source(&grown, &SETTLED, u64::MAX).await.unwrap(), Updated::Done);
                }
                _ => {}
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    assert_counters_match_items(&b, &ws.id, &bot.id, 0).await;
    assert_eq!(all_sources(b.ports.sources.as_ref(), &ws.id, &bot.id).await.len(), 24);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn the_quota_holds_under_concurrent_inserts() {
    let b = support::backend("quota").await;
    let (ws, bot) = setup(&b, "quota").await;
    let mut tasks = Vec::new();
    for i in 0..10 {
        let mut s = source(&bot, 0);
        s.spec = SourceSpec::Text { content: "q".repeat(30) };
        s.size_bytes = 30;
        s.created_at = Timestamp::from_millis(1_700_000_000_000 + i);
        let store = b.ports.sources.clone();
        tasks.push(tokio::spawn(async move { store.insert_source(&s, &quota(100)).await.unwrap() }));
    }
    let mut outcomes = Vec::new();
    for t in tasks {
        outcomes.push(t.await.unwrap());
    }
    let done = outcomes.iter().filter(|o| **o == Inserted::Done).count();
    assert_eq!(done, 3, "30-byte sources in a 100-byte quota: exactly three fit, {outcomes:?}");
    assert!(outcomes.iter().all(|o| matches!(o, Inserted::Done | Inserted::OverQuota { used: 60 | 90 })));
    assert_eq!(raw_counters(&b, &ws.id).await["storageBytes"], 90);
    assert_counters_match_items(&b, &ws.id, &bot.id, 0).await;
}

/// Two different conditional transitions on one source at once: exactly one wins, every time.
#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn delete_and_begin_processing_race_exactly_one_wins() {
    let b = support::backend("delrace").await;
    let (ws, bot) = setup(&b, "delrace").await;
    for i in 0..12 {
        let s = source(&bot, i);
        b.ports.sources.insert_source(&s, &quota(u64::MAX)).await.unwrap();
        let (s1, s2) = (b.ports.sources.clone(), b.ports.sources.clone());
        let (w1, w2, id1, id2) = (ws.id.clone(), ws.id.clone(), s.id.clone(), s.id.clone());
        let delete = tokio::spawn(async move { s1.delete_source(&w1, &id1, &SETTLED).await.unwrap() });
        let begin = tokio::spawn(async move {
            s2.begin_processing(&w2, &id2, &lease("w", later()), Timestamp::now()).await.unwrap()
        });
        let (deleted, begun) = (delete.await.unwrap(), begin.await.unwrap());
        match (&deleted, &begun) {
            (Guarded::Done(_), Guarded::NotFound) => {
                assert_eq!(b.ports.sources.get_source(&ws.id, &s.id).await.unwrap(), None)
            }
            (Guarded::WrongStatus(SourceStatus::Processing), Guarded::Done(run)) => {
                assert_eq!(run.status, SourceStatus::Processing);
                let stored = b.ports.sources.get_source(&ws.id, &s.id).await.unwrap().unwrap();
                assert_eq!((stored.status, stored.generation), (SourceStatus::Processing, 1));
            }
            other => panic!("round {i}: not exactly one winner: {other:?}"),
        }
    }
    assert_counters_match_items(&b, &ws.id, &bot.id, 0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn deleting_a_chatbot_deletes_its_sources_in_batches() {
    let b = support::backend("cbdel").await;
    let (ws, bot) = setup(&b, "cbdel").await;
    let keep = chatbot(&ws.id, "keep");
    b.ports.chatbots.insert_chatbot(&keep).await.unwrap();
    let kept = source(&keep, 0);
    b.ports.sources.insert_source(&kept, &quota(u64::MAX)).await.unwrap();

    let sources: Vec<KnowledgeSource> = (0..120).map(|i| source(&bot, i)).collect();
    for chunk in sources.chunks(20) {
        let mut tasks = Vec::new();
        for s in chunk {
            let (store, s) = (b.ports.sources.clone(), s.clone());
            tasks.push(tokio::spawn(async move { store.insert_source(&s, &quota(u64::MAX)).await.unwrap() }));
        }
        for t in tasks {
            t.await.unwrap();
        }
    }
    for s in sources.iter().take(5) {
        b.ports.sources.begin_processing(&ws.id, &s.id, &lease("w", 1), Timestamp::now()).await.unwrap();
    }
    let mut blob_keys = b.ports.sources.file_blob_keys(&ws.id, &owner(&bot.id)).await.unwrap();
    blob_keys.sort();
    let mut expected: Vec<String> = sources
        .iter()
        .filter_map(|s| match &s.spec {
            SourceSpec::File(f) => Some(f.blob_key.clone()),
            _ => None,
        })
        .collect();
    expected.sort();
    assert_eq!(blob_keys, expected, "file_blob_keys lists every file source's blob");
    assert!(
        b.ports.sources.file_blob_keys(&WorkspaceId::generate(), &owner(&bot.id)).await.unwrap().is_empty(),
        "scoped"
    );

    assert!(b.ports.chatbots.delete_chatbot(&ws.id, &bot.id).await.unwrap());
    for s in &sources {
        assert_eq!(b.ports.sources.get_source(&ws.id, &s.id).await.unwrap(), None, "source {} left behind", s.id);
        assert!(raw_item(&b, format!("SRC#{}", s.id), "TEXT").await.is_none(), "text of {} left behind", s.id);
    }
    let stale = b.ports.sources.stale_runs(Timestamp::now(), None).await.unwrap();
    assert!(stale.iter().all(|r| !sources.iter().any(|s| s.id == r.source_id)), "no run of a deleted chatbot");
    let counters = raw_counters(&b, &ws.id).await;
    assert_eq!((counters["chatbots"], counters["storageBytes"]), (1, kept.size_bytes as i64));
    assert_eq!(b.ports.chatbots.list_chatbots(&ws.id, PageRequest::default()).await.unwrap().total, 1);
    b.ports.chatbots.insert_chatbot(&chatbot(&ws.id, "bot")).await.expect("the slug is free again");
    assert!(
        b.ports.sources.get_source(&ws.id, &kept.id).await.unwrap().is_some(),
        "the other chatbot keeps its source"
    );
}

/// Every search reads its owner's ready sources' labels: more than a `BatchGetItem` holds (100
/// keys) are read in several requests at once, and come back whole, once each, in the index's
/// order.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn ready_labels_are_read_whole_across_batches() {
    let b = support::backend("labels").await;
    let (ws, bot) = setup(&b, "labels").await;
    let sources: Vec<KnowledgeSource> = (0..240).map(|i| source(&bot, i)).collect();
    for chunk in sources.chunks(24) {
        let mut tasks = Vec::new();
        for (i, s) in chunk.iter().enumerate() {
            let (store, ws, s) = (b.ports.sources.clone(), ws.id.clone(), s.clone());
            // One in twelve stays pending: not a label.
            let finish = i % 12 != 0;
            tasks.push(tokio::spawn(async move {
                store.insert_source(&s, &quota(u64::MAX)).await.unwrap();
                if finish {
                    let Guarded::Done(run) =
                        store.begin_processing(&ws, &s.id, &lease("w", later()), Timestamp::now()).await.unwrap()
                    else {
                        panic!("{} not begun", s.id)
                    };
                    store.finish_processing(&s.id, run.generation, &ready(1), Timestamp::now()).await.unwrap().unwrap();
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
    }
    let labels = b.ports.sources.ready_source_labels(&ws.id, &owner(&bot.id)).await.unwrap();
    let mut expected: Vec<&SourceId> =
        sources.iter().enumerate().filter(|(i, _)| i % 24 % 12 != 0).map(|(_, s)| &s.id).collect();
    assert_eq!(labels.len(), 220, "every ready source, once");
    let mut got: Vec<&SourceId> = labels.iter().map(|l| &l.id).collect();
    let index_order = got.clone();
    got.sort();
    got.dedup();
    expected.sort();
    assert_eq!(got, expected, "exactly the ready sources");
    let names: HashMap<&SourceId, &str> = sources.iter().map(|s| (&s.id, s.name.as_str())).collect();
    assert!(labels.iter().all(|l| names[&l.id] == l.name), "each label its own source's name");
    let ready = SourceFilter { status: Some(SourceStatus::Ready), ..SourceFilter::default() };
    let mut listed = Vec::new();
    for page in 1..=3 {
        let p = b.ports.sources.list_sources(&ws.id, &owner(&bot.id), ready, PageRequest::new(page, 100)).await;
        listed.extend(p.unwrap().items.into_iter().map(|s| s.id));
    }
    assert_eq!(index_order, listed.iter().collect::<Vec<_>>(), "in the order the ready sources are listed");
}

/// One item of the table, read directly (`None` when absent).
async fn raw_item(b: &AwsBackend, pk: String, sk: &str) -> Option<HashMap<String, AttributeValue>> {
    let out = b
        .dynamo
        .client()
        .get_item()
        .table_name(b.dynamo.table())
        .key("pk", AttributeValue::S(pk))
        .key("sk", AttributeValue::S(sk.into()))
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    out.item
}

/// Rewrites a source as items were written before text items existed: the text inline on the
/// source item, no text item.
async fn store_text_inline(b: &AwsBackend, id: &SourceId) {
    let mut item = raw_item(b, format!("SRC#{id}"), "SRC").await.unwrap();
    let text = raw_item(b, format!("SRC#{id}"), "TEXT").await.unwrap();
    item.insert("content".into(), text["content"].clone());
    let client = b.dynamo.client();
    client.put_item().table_name(b.dynamo.table()).set_item(Some(item)).send().await.unwrap();
    let key = |sk: &str| {
        HashMap::from([
            ("pk".to_owned(), AttributeValue::S(format!("SRC#{id}"))),
            ("sk".into(), AttributeValue::S(sk.into())),
        ])
    };
    client.delete_item().table_name(b.dynamo.table()).set_key(Some(key("TEXT"))).send().await.unwrap();
}

/// A text source's text is on an item of its own beside the source item (infra/dynamodb.md), so
/// the labels read and the listings' index reads never carry it; every read that returns the
/// source returns it with its text. Items written with the text inline (before) read the same,
/// and the next write of the source, or `move_inline_texts` (`lore migrate`), moves it out.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_text_sources_text_has_its_own_item_and_inline_texts_are_moved() {
    let b = support::backend("texts").await;
    let (ws, bot) = setup(&b, "texts").await;
    let (a, c, url) = (source(&bot, 0), source(&bot, 3), source(&bot, 1));
    for s in [&a, &c, &url] {
        assert_eq!(b.ports.sources.insert_source(s, &quota(u64::MAX)).await.unwrap(), Inserted::Done);
    }
    let item = raw_item(&b, format!("SRC#{}", a.id), "SRC").await.unwrap();
    assert!(!item.contains_key("content"), "the source item holds no text");
    let text = raw_item(&b, format!("SRC#{}", a.id), "TEXT").await.unwrap();
    assert_eq!(text["content"].as_s().unwrap(), "t");
    assert!(raw_item(&b, format!("SRC#{}", url.id), "TEXT").await.is_none(), "only text sources have one");
    assert_eq!(b.ports.sources.get_source(&ws.id, &a.id).await.unwrap().as_ref(), Some(&a), "read with its text");
    assert_eq!(b.ports.sources.get_source(&WorkspaceId::generate(), &a.id).await.unwrap(), None, "another workspace's");
    let mut listed = all_sources(b.ports.sources.as_ref(), &ws.id, &bot.id).await;
    listed.sort_by(|x, y| x.name.cmp(&y.name));
    assert_eq!(listed, vec![a.clone(), url.clone(), c.clone()], "listed with their texts");

    // A changed text is written with the source; the labels read never needs it.
    let mut edited = a.clone();
    edited.spec = SourceSpec::Text { content: "Refunds take ten days.".into() };
    edited.size_bytes = 22;
    let settled = [SourceStatus::Pending, SourceStatus::Ready, SourceStatus::Error];
    assert_eq!(b.ports.sources.update_source(&edited, &settled, u64::MAX).await.unwrap(), Updated::Done);
    assert_eq!(b.ports.sources.get_source(&ws.id, &a.id).await.unwrap().unwrap().spec, edited.spec);

    // The shape written before: read as it is, moved by the next write of the source.
    store_text_inline(&b, &a.id).await;
    store_text_inline(&b, &c.id).await;
    assert_eq!(
        b.ports.sources.get_source(&ws.id, &a.id).await.unwrap().unwrap().spec,
        edited.spec,
        "inline still reads"
    );
    let listed = all_sources(b.ports.sources.as_ref(), &ws.id, &bot.id).await;
    assert_eq!(listed.iter().find(|s| s.id == a.id).unwrap().spec, edited.spec, "and lists");
    let running =
        b.ports.sources.begin_processing(&ws.id, &a.id, &lease("w", later()), Timestamp::now()).await.unwrap();
    assert!(matches!(running, Guarded::Done(ref s) if s.spec == edited.spec), "{running:?}");
    assert!(!raw_item(&b, format!("SRC#{}", a.id), "SRC").await.unwrap().contains_key("content"), "moved out");
    assert_eq!(
        raw_item(&b, format!("SRC#{}", a.id), "TEXT").await.unwrap()["content"].as_s().unwrap(),
        "Refunds take ten days."
    );
    let done = b.ports.sources.finish_processing(&a.id, 1, &ready(2), Timestamp::now()).await.unwrap().unwrap();
    assert_eq!(done.spec, edited.spec, "a transition keeps the text");

    // `lore migrate` moves what is left, once.
    assert_eq!(b.dynamo.move_inline_texts().await.unwrap(), 1);
    assert_eq!(b.dynamo.move_inline_texts().await.unwrap(), 0, "nothing left to move");
    assert!(!raw_item(&b, format!("SRC#{}", c.id), "SRC").await.unwrap().contains_key("content"));
    assert_eq!(b.ports.sources.get_source(&ws.id, &c.id).await.unwrap().as_ref(), Some(&c));
    let labels = b.ports.sources.ready_source_labels(&ws.id, &owner(&bot.id)).await.unwrap();
    assert_eq!(labels.iter().map(|l| (&l.id, l.name.as_str())).collect::<Vec<_>>(), vec![(&a.id, "s0")]);

    // Deleted with the source.
    assert!(matches!(b.ports.sources.delete_source(&ws.id, &c.id, &settled).await.unwrap(), Guarded::Done(_)));
    assert!(raw_item(&b, format!("SRC#{}", c.id), "TEXT").await.is_none(), "the text goes with its source");
    assert!(b.ports.chatbots.delete_chatbot(&ws.id, &bot.id).await.unwrap());
    assert!(raw_item(&b, format!("SRC#{}", a.id), "TEXT").await.is_none(), "and with its chatbot");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn stale_runs_come_from_the_sparse_lease_index() {
    let b = support::backend("leases").await;
    let (ws, bot) = setup(&b, "leases").await;
    let now = Timestamp::now().millis();
    let s: Vec<KnowledgeSource> = (0..4).map(|i| source(&bot, i)).collect();
    for x in &s {
        b.ports.sources.insert_source(x, &quota(u64::MAX)).await.unwrap();
    }
    let begin = |i: usize, l: Lease| {
        let (store, ws, id) = (b.ports.sources.clone(), ws.id.clone(), s[i].id.clone());
        async move { store.begin_processing(&ws, &id, &l, Timestamp::now()).await.unwrap() }
    };
    begin(0, lease("me", now - 1_000)).await; // expired
    begin(1, lease("me", now + 600_000)).await; // mine, alive
    begin(2, lease("other", now + 600_000)).await; // someone else's, alive
    let Guarded::Done(run3) = begin(3, lease("me", now - 1_000)).await else { panic!() };
    b.ports.sources.finish_processing(&s[3].id, run3.generation, &ready(1), Timestamp::now()).await.unwrap().unwrap();

    let ids = |runs: Vec<lore_app::ports::StaleRun>| {
        let mut v: Vec<SourceId> = runs.into_iter().map(|r| r.source_id).collect();
        v.sort();
        v
    };
    let expired = b.ports.sources.stale_runs(Timestamp::from_millis(now), None).await.unwrap();
    assert_eq!(ids(expired), vec![s[0].id.clone()], "only expired leases");
    let mut foreign = vec![s[0].id.clone(), s[2].id.clone()];
    foreign.sort();
    assert_eq!(ids(b.ports.sources.stale_runs(Timestamp::from_millis(now), Some("me")).await.unwrap()), foreign);

    assert!(b.ports.sources.renew_lease(&s[0].id, 1, &lease("me", now + 600_000)).await.unwrap());
    assert!(!b.ports.sources.renew_lease(&s[0].id, 2, &lease("me", now + 600_000)).await.unwrap(), "wrong generation");
    assert!(b.ports.sources.stale_runs(Timestamp::from_millis(now), None).await.unwrap().is_empty());
    let later_runs = b.ports.sources.stale_runs(Timestamp::from_millis(now + 700_000), None).await.unwrap();
    assert_eq!(later_runs.len(), 3, "every live run expires eventually: {later_runs:?}");
    assert_eq!(later_runs.iter().find(|r| r.source_id == s[0].id).unwrap().attempts, 2);

    // The index holds exactly the processing sources.
    let mut in_index = 0;
    for shard in 0..lore_aws::dynamo::LEASE_SHARDS {
        in_index += b
            .dynamo
            .client()
            .query()
            .table_name(b.dynamo.table())
            .index_name(lore_aws::dynamo::LEASES)
            .key_condition_expression("leaseShard = :s")
            .expression_attribute_values(":s", AttributeValue::S(format!("LEASE#{shard}")))
            .send()
            .await
            .unwrap()
            .count;
    }
    assert_eq!(in_index, 3);
}

fn mind(ws: &WorkspaceId, slug: &str) -> Mind {
    let raw = RawMind { name: Field::Value(format!("Mind {slug}")), ..Default::default() };
    let mut m =
        Mind::create(ws.clone(), NewMind::parse(&raw).unwrap(), Slug::parse("slug", slug).unwrap(), Timestamp::now());
    m.id = MindId::generate();
    m
}

/// The i-th source of a Mind: text, document or podcast, 10 bytes each.
fn mind_source(m: &Mind, i: u64) -> KnowledgeSource {
    let blob_key = format!("{}/{}/upl_{i}/f{i}", m.workspace_id, m.id);
    let spec = match i % 3 {
        0 => SourceSpec::Text { content: "0123456789".into() },
        1 => SourceSpec::File(StoredFile {
            file_name: format!("f{i}.pdf"),
            mime_type: "application/pdf".into(),
            kind: DocumentKind::Pdf,
            blob_key,
            file_url: format!("https://cdn.example.com/f{i}.pdf"),
            size_bytes: 10,
        }),
        _ => SourceSpec::Podcast(StoredAudio {
            file_name: format!("f{i}.mp3"),
            mime_type: "audio/mpeg".into(),
            format: AudioFormat::Mp3,
            blob_key,
            file_url: format!("https://cdn.example.com/f{i}.mp3"),
            size_bytes: 10,
        }),
    };
    let created = Timestamp::from_millis(1_700_000_000_000 + i as i64);
    KnowledgeSource {
        id: SourceId::generate(),
        workspace_id: m.workspace_id.clone(),
        owner: SourceOwner::Mind(m.id.clone()),
        name: format!("s{i}"),
        status: SourceStatus::Pending,
        spec,
        created_at: created,
        updated_at: created,
        processed_at: None,
        chunk_count: 0,
        size_bytes: 10,
        error: None,
        content_hash: None,
        progress: None,
        generation: 0,
        metadata: Default::default(),
    }
}

/// A Mind's counts by status, from its items (through the paged list).
async fn counted_from_items(b: &AwsBackend, m: &Mind) -> MindSourceCounts {
    let owner = SourceOwner::Mind(m.id.clone());
    let mut c = MindSourceCounts::default();
    for page in 1.. {
        let p =
            b.ports.sources.list_sources(&m.workspace_id, &owner, SourceFilter::default(), PageRequest::new(page, 100));
        let p = p.await.unwrap();
        for s in &p.items {
            match s.status {
                SourceStatus::Pending => c.pending += 1,
                SourceStatus::Processing => c.processing += 1,
                SourceStatus::Transcribing => c.transcribing += 1,
                SourceStatus::Ready => c.ready += 1,
                SourceStatus::Error => c.failed += 1,
            }
        }
        if p.items.len() < 100 {
            break;
        }
    }
    c
}

/// Mind sources on the table: the workspace's `sourcesLimit` holds for inserts racing across
/// Minds, the Mind's counts by status stay exact under concurrent transitions (a renewed
/// transcribing run is processing again), and a Mind's delete takes more sources than one
/// transaction holds, reporting every blob.
#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn mind_sources_are_counted_limited_and_deleted_in_batches() {
    let b = support::backend("mindsrc").await;
    let ws = workspace("mindsrc");
    b.ports.workspaces.insert_workspace(&ws).await.unwrap();
    let (big, small) = (mind(&ws.id, "big"), mind(&ws.id, "small"));
    for m in [&big, &small] {
        assert_eq!(b.ports.minds.insert_mind(m, 10).await.unwrap(), MindInsert::Inserted);
    }
    let limits = InsertLimits { storage_quota: u64::MAX, workspace_sources: 130, mind_sources: 1_000 };
    let sources: Vec<KnowledgeSource> = (0..120).map(|i| mind_source(&big, i)).collect();
    for chunk in sources.chunks(20) {
        let mut tasks = Vec::new();
        for s in chunk {
            let (store, s) = (b.ports.sources.clone(), s.clone());
            tasks.push(tokio::spawn(async move { store.insert_source(&s, &limits).await.unwrap() }));
        }
        for t in tasks {
            assert_eq!(t.await.unwrap(), Inserted::Done);
        }
    }
    // 20 racing inserts into the other Mind, 10 places left in the workspace.
    let mut tasks = Vec::new();
    for i in 0..20 {
        let (store, s) = (b.ports.sources.clone(), mind_source(&small, 1_000 + i));
        tasks.push(tokio::spawn(async move { store.insert_source(&s, &limits).await.unwrap() }));
    }
    let mut won = 0;
    for t in tasks {
        match t.await.unwrap() {
            Inserted::Done => won += 1,
            Inserted::LimitReached(CountLimit::Workspace { used: 130, limit: 130 }) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(won, 10, "never over the workspace's sourcesLimit");
    assert_eq!(b.ports.minds.mind_usage(&ws.id).await.unwrap(), MindUsage { minds: 2, sources: 130 });

    // At once: runs that transcribe, fail, finish, or are taken over while transcribing.
    let mut tasks = Vec::new();
    for (i, s) in sources.iter().enumerate().take(40) {
        let (store, ws, s) = (b.ports.sources.clone(), ws.id.clone(), s.clone());
        tasks.push(tokio::spawn(async move {
            let Guarded::Done(run) =
                store.begin_processing(&ws, &s.id, &lease("w", later()), Timestamp::now()).await.unwrap()
            else {
                panic!("begin")
            };
            let g = run.generation;
            let listening = Progress::new("transcribing", 0, 1);
            assert!(store.set_running_status(&s.id, g, SourceStatus::Transcribing, &listening).await.unwrap());
            match i % 4 {
                0 => {}
                1 => {
                    let failed = Finish::Error { message: "x".into() };
                    assert!(store.finish_processing(&s.id, g, &failed, Timestamp::now()).await.unwrap().is_some());
                }
                2 => {
                    let back = Progress::new("chunking", 0, 1);
                    assert!(store.set_running_status(&s.id, g, SourceStatus::Processing, &back).await.unwrap());
                    assert!(store.finish_processing(&s.id, g, &ready(2), Timestamp::now()).await.unwrap().is_some());
                }
                _ => {
                    assert!(store.renew_lease(&s.id, g, &lease("other", later())).await.unwrap());
                    let again = store.get_source(&ws, &s.id).await.unwrap().unwrap();
                    assert_eq!(again.status, SourceStatus::Processing, "a restarted run starts over");
                }
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let stored = b.ports.minds.get_mind(&ws.id, &big.id).await.unwrap().unwrap().sources;
    assert_eq!(stored, MindSourceCounts { pending: 80, processing: 10, transcribing: 10, ready: 10, failed: 10 });
    assert_eq!(stored, counted_from_items(&b, &big).await, "the Mind's counts are its items'");
    let stats = b.ports.sources.source_stats(&ws.id, &SourceOwner::Mind(big.id.clone())).await.unwrap();
    assert_eq!((stats.total_sources, stats.total_chunks, stats.total_size_bytes), (120, 20, 1_200));
    assert_eq!(stats.by_type.get("podcast"), Some(&40));

    let mut expected: Vec<String> = sources.iter().filter_map(|s| s.spec.blob_key().map(str::to_owned)).collect();
    expected.sort();
    let mut listed = b.ports.sources.file_blob_keys(&ws.id, &SourceOwner::Mind(big.id.clone())).await.unwrap();
    listed.sort();
    assert_eq!(listed, expected, "documents and podcasts");
    let mut removal = b.ports.minds.delete_mind(&ws.id, &big.id).await.unwrap().expect("deleted");
    removal.file_keys.sort();
    assert_eq!(removal.file_keys, expected, "every blob of the deleted sources");
    for s in &sources {
        assert_eq!(b.ports.sources.get_source(&ws.id, &s.id).await.unwrap(), None, "source {} left behind", s.id);
        assert!(raw_item(&b, format!("SRC#{}", s.id), "TEXT").await.is_none(), "text of {} left behind", s.id);
    }
    let stale = b.ports.sources.stale_runs(Timestamp::from_millis(later() + 1), None).await.unwrap();
    assert!(stale.iter().all(|r| !sources.iter().any(|s| s.id == r.source_id)), "no run of a deleted Mind");
    assert_eq!(b.ports.minds.mind_usage(&ws.id).await.unwrap(), MindUsage { minds: 1, sources: 10 });
    assert_eq!(raw_counters(&b, &ws.id).await["storageBytes"], 100, "the other Mind's bytes remain");
    assert_eq!(b.ports.minds.delete_mind(&ws.id, &big.id).await.unwrap(), None, "gone");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn the_rate_limit_is_exact_across_concurrent_requests() {
    let b = support::backend("ratelimit").await;
    let key = lore_app::ports::RateBucket::Key(ApiKeyId::generate());
    let now = Timestamp::now();
    let mut tasks = Vec::new();
    for _ in 0..30 {
        let (rl, key) = (b.ports.rate_limiter.clone(), key.clone());
        tasks.push(tokio::spawn(async move { rl.hit(&key, 10, now).await.unwrap() }));
    }
    let mut allowed = 0;
    for t in tasks {
        match t.await.unwrap() {
            RateDecision::Allowed => allowed += 1,
            RateDecision::Limited { retry_after_secs } => assert!((1..=60).contains(&retry_after_secs)),
        }
    }
    assert_eq!(allowed, 10, "the first 10 of a 10/min budget pass, shared by every caller");
    let next_window = Timestamp::from_millis(now.millis() + 60_000);
    assert_eq!(b.ports.rate_limiter.hit(&key, 10, next_window).await.unwrap(), RateDecision::Allowed, "a new window");
    assert_eq!(
        b.ports.rate_limiter.hit(&key, 1, Timestamp::from_millis(now.millis() + 90_000)).await.unwrap(),
        RateDecision::Limited { retry_after_secs: 30 }
    );
}

/// An API key's item, read directly (infra/dynamodb.md: `KEY#<hash>` / `KEY`).
async fn raw_key_item(b: &AwsBackend, hash: &KeyHash) -> Option<HashMap<String, AttributeValue>> {
    let out = b
        .dynamo
        .client()
        .get_item()
        .table_name(b.dynamo.table())
        .key("pk", AttributeValue::S(format!("KEY#{}", hash.as_str())))
        .key("sk", AttributeValue::S("KEY".into()))
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    out.item
}

#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn a_key_holds_its_request_window_and_is_found_and_counted_in_one_update() {
    let b = support::backend("keywindows").await;
    let ws = workspace("keywindows");
    b.ports.workspaces.insert_workspace(&ws).await.unwrap();
    let key = ApiKey {
        id: ApiKeyId::generate(),
        workspace_id: ws.id.clone(),
        name: KeyName::parse("k").unwrap(),
        scopes: ScopeSet::parse("all").unwrap(),
        hash: ApiKeySecret::generate().hash(),
        created_at: Timestamp::from_millis(1_700_000_000_000),
        revoked_at: None,
    };
    b.ports.keys.insert_key(&key).await.unwrap();
    let t0 = Timestamp::now().millis();
    let key_windows = b.ports.key_windows.clone().expect("DynamoDB keeps the keys' windows");
    let at = Timestamp::from_millis;

    // An unknown hash counts nothing and leaves no item behind.
    let stranger = ApiKeySecret::generate().hash();
    assert_eq!(key_windows.count_request(&stranger, at(t0)).await.unwrap(), KeyCount::Unknown);
    assert!(!key_windows.open_window(&stranger, at(t0), 10).await.unwrap(), "no window for no key");
    assert_eq!(raw_key_item(&b, &stranger).await, None, "an unknown key's request writes nothing");

    // A key that never had a window: nothing counted until one opens.
    assert_eq!(key_windows.count_request(&key.hash, at(t0)).await.unwrap(), KeyCount::Closed { key: key.clone() });
    assert!(key_windows.open_window(&key.hash, at(t0), 10).await.unwrap());
    assert!(!key_windows.open_window(&key.hash, at(t0 + 5), 10).await.unwrap(), "one is open: count in it");

    // Concurrent requests each get their own count, with the limit the window opened with.
    let mut tasks = Vec::new();
    for _ in 0..29 {
        let (kw, hash) = (key_windows.clone(), key.hash.clone());
        tasks.push(tokio::spawn(async move { kw.count_request(&hash, at(t0 + 10)).await.unwrap() }));
    }
    let mut counts = Vec::new();
    for t in tasks {
        match t.await.unwrap() {
            KeyCount::Counted { key: k, window, limit_per_minute } => {
                assert_eq!((k, window.start, limit_per_minute), (key.clone(), at(t0), 10));
                counts.push(window.count);
            }
            other => panic!("expected a count in the open window, got {other:?}"),
        }
    }
    counts.sort_unstable();
    assert_eq!(counts, (2..=30).collect::<Vec<u32>>(), "every request counted once, atomically");
    let allowed = counts
        .iter()
        .filter(|&&c| RateWindow { start: at(t0), count: c }.decide(10, at(t0 + 10)) == RateDecision::Allowed)
        .count();
    assert_eq!(allowed, 9, "with the window's opening request, the first 10 of a 10/min budget pass");

    // The window ends 60 s after it opened; the next opens with the limit given then.
    assert_eq!(
        key_windows.count_request(&key.hash, at(t0 + 60_000)).await.unwrap(),
        KeyCount::Closed { key: key.clone() }
    );
    assert!(key_windows.open_window(&key.hash, at(t0 + 60_000), 3).await.unwrap());
    let next = key_windows.count_request(&key.hash, at(t0 + 61_000)).await.unwrap();
    assert_eq!(
        next,
        KeyCount::Counted {
            key: key.clone(),
            window: RateWindow { start: at(t0 + 60_000), count: 2 },
            limit_per_minute: 3
        }
    );

    // The window's attributes are the item's own: the key reads back unchanged, and its
    // revocation shows in the next count.
    assert_eq!(b.ports.keys.find_key(&key.hash).await.unwrap(), Some(key.clone()));
    assert_eq!(b.ports.keys.list_keys(Some(&ws.id)).await.unwrap(), vec![key.clone()]);
    assert!(b.ports.keys.revoke_key(&key.id, at(t0 + 62_000)).await.unwrap());
    match key_windows.count_request(&key.hash, at(t0 + 63_000)).await.unwrap() {
        KeyCount::Counted { key: k, window, .. } => {
            assert_eq!((k.revoked_at, window.count), (Some(at(t0 + 62_000)), 3));
        }
        other => panic!("expected a count, got {other:?}"),
    }
    let item = raw_key_item(&b, &key.hash).await.expect("the key's item");
    assert_eq!(
        item.get("windowStart").and_then(|v| v.as_n().ok()).map(String::as_str),
        Some(&*(t0 + 60_000).to_string())
    );
    assert!(!item.contains_key("expiresAt"), "a key's item never expires with its window");
}

/// The record ports of one adapter family.
struct Records {
    ws: Arc<dyn WorkspaceStore>,
    sources: Arc<dyn SourceStore>,
    bots: Arc<dyn ChatbotStore>,
    keys: Arc<dyn KeyStore>,
}

/// The same operations on SQLite and on DynamoDB give the same lists, pages, totals and stats.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn lists_and_stats_agree_with_the_sqlite_adapter() {
    let b = support::backend("differential").await;
    let dir = tempfile::tempdir().unwrap();
    let sqlite = Arc::new(lore_local::SqliteStore::open(&dir.path().join("lore.db")).unwrap());
    let aws = Records {
        ws: b.ports.workspaces.clone(),
        sources: b.ports.sources.clone(),
        bots: b.ports.chatbots.clone(),
        keys: b.ports.keys.clone(),
    };
    let sq = Records { ws: sqlite.clone(), sources: sqlite.clone(), bots: sqlite.clone(), keys: sqlite };
    let ws = workspace("differential");
    let bots: Vec<Chatbot> = (0..7)
        .map(|i| {
            let mut c = chatbot(&ws.id, &format!("bot-{i}"));
            c.created_at = Timestamp::from_millis(1_700_000_000_000 + i / 2);
            c
        })
        .collect();
    let keys: Vec<ApiKey> = (0..4)
        .map(|_| ApiKey {
            id: ApiKeyId::generate(),
            workspace_id: ws.id.clone(),
            name: KeyName::parse("k").unwrap(),
            scopes: ScopeSet::parse("all").unwrap(),
            hash: ApiKeySecret::generate().hash(),
            created_at: Timestamp::now(),
            revoked_at: None,
        })
        .collect();
    let sources: Vec<KnowledgeSource> = (0..23).map(|i| source(&bots[0], i)).collect();
    for Records { ws: w, sources: s, bots: c, keys: k } in [&aws, &sq] {
        w.insert_workspace(&ws).await.unwrap();
        for bot in &bots {
            c.insert_chatbot(bot).await.unwrap();
        }
        for key in &keys {
            k.insert_key(key).await.unwrap();
        }
        for (i, src) in sources.iter().enumerate() {
            s.insert_source(src, &quota(u64::MAX)).await.unwrap();
            let now = Timestamp::from_millis(1_800_000_000_000);
            if i % 4 != 0 {
                let Guarded::Done(run) =
                    s.begin_processing(&ws.id, &src.id, &lease("w", 2_000_000_000_000), now).await.unwrap()
                else {
                    panic!()
                };
                if i % 4 == 1 {
                    s.finish_processing(&src.id, run.generation, &ready(i as u64), now).await.unwrap().unwrap();
                } else if i % 4 == 2 {
                    let failed = Finish::Error { message: format!("e{i}") };
                    s.finish_processing(&src.id, run.generation, &failed, now).await.unwrap().unwrap();
                }
            }
        }
        c.delete_chatbot(&ws.id, &bots[3].id).await.unwrap();
        k.revoke_key(&keys[1].id, Timestamp::from_millis(1_800_000_000_000)).await.unwrap();
    }

    let filters = std::iter::once(None)
        .chain(SourceStatus::CHATBOT.into_iter().map(Some))
        .flat_map(|st| std::iter::once(None).chain(SourceType::CHATBOT.into_iter().map(Some)).map(move |t| (st, t)));
    for (status, source_type) in filters {
        let filter = SourceFilter { status, source_type };
        for page in 1..=5 {
            let req = PageRequest::new(page, 3);
            let a = aws.sources.list_sources(&ws.id, &owner(&bots[0].id), filter, req).await.unwrap();
            let e = sq.sources.list_sources(&ws.id, &owner(&bots[0].id), filter, req).await.unwrap();
            assert_eq!(a, e, "list_sources {filter:?} page {page}");
        }
    }
    assert_eq!(
        aws.sources.source_stats(&ws.id, &owner(&bots[0].id)).await.unwrap(),
        sq.sources.source_stats(&ws.id, &owner(&bots[0].id)).await.unwrap(),
        "stats"
    );
    for page in 1..=4 {
        let req = PageRequest::new(page, 2);
        assert_eq!(
            aws.bots.list_chatbots(&ws.id, req).await.unwrap(),
            sq.bots.list_chatbots(&ws.id, req).await.unwrap(),
            "list_chatbots page {page}"
        );
    }
    assert_eq!(aws.keys.list_keys(Some(&ws.id)).await.unwrap(), sq.keys.list_keys(Some(&ws.id)).await.unwrap());
    assert_eq!(aws.keys.list_keys(None).await.unwrap(), sq.keys.list_keys(None).await.unwrap());
    assert_eq!(aws.ws.list_workspaces().await.unwrap(), sq.ws.list_workspaces().await.unwrap());
    for src in &sources {
        assert_eq!(
            aws.sources.get_source(&ws.id, &src.id).await.unwrap(),
            sq.sources.get_source(&ws.id, &src.id).await.unwrap(),
            "get_source"
        );
    }
}

#[tokio::test]
async fn bootstrap_is_idempotent_and_builds_the_documented_table() {
    let settings = support::settings(&support::unique("layout"));
    let sdk = support::sdk_config().await;
    lore_aws::bootstrap(&sdk, &settings).await.unwrap();
    lore_aws::bootstrap(&sdk, &settings).await.expect("a second bootstrap changes nothing");
    let ddb = aws_sdk_dynamodb::Client::new(&sdk);
    let table = ddb.describe_table().table_name(&settings.table).send().await.unwrap().table.unwrap();
    let mut indexes: Vec<&str> = table.global_secondary_indexes().iter().filter_map(|i| i.index_name()).collect();
    indexes.sort();
    assert_eq!(indexes, vec!["gsi1", "gsi2", "leases", "refreshes"]);
    assert_eq!(
        table.billing_mode_summary().and_then(|b| b.billing_mode()),
        Some(&aws_sdk_dynamodb::types::BillingMode::PayPerRequest)
    );
    let ttl = ddb.describe_time_to_live().table_name(&settings.table).send().await.unwrap();
    let ttl = ttl.time_to_live_description().unwrap();
    assert_eq!(ttl.attribute_name(), Some("expiresAt"));
    assert_eq!(ttl.time_to_live_status(), Some(&aws_sdk_dynamodb::types::TimeToLiveStatus::Enabled));
}

#[tokio::test]
async fn renaming_a_workspace_moves_its_name_guard() {
    let b = support::backend("rename").await;
    let mut ws = workspace("before");
    b.ports.workspaces.insert_workspace(&ws).await.unwrap();
    ws.name = WorkspaceName::parse("after").unwrap();
    ws.limits.rate_limit_per_minute = 7;
    b.ports.workspaces.update_workspace(&ws).await.unwrap();
    assert_eq!(b.ports.workspaces.find_workspace_by_name("after").await.unwrap(), Some(ws.clone()));
    assert_eq!(b.ports.workspaces.find_workspace_by_name("before").await.unwrap(), None);
    b.ports.workspaces.insert_workspace(&workspace("before")).await.expect("the old name is free");
    b.ports.workspaces.update_workspace(&workspace("ghost")).await.expect("updating an absent workspace is a no-op");
    assert_eq!(b.ports.workspaces.find_workspace_by_name("ghost").await.unwrap(), None);
    assert_eq!(b.ports.workspaces.list_workspaces().await.unwrap().len(), 2);
}
