//! Knowledge-source records: guarded status transitions, processing runs, counts, the upload
//! ledger.

use super::*;
use crate::ports::{Charged, Finish, Guarded, Inserted, SourceFilter, SourceLabel, Updated};
use lore_domain::Timestamp;
use lore_domain::id::{ChatbotId, WorkspaceId};
use lore_domain::pagination::PageRequest;
use lore_domain::source::{SourceOwner, SourceStatus, SourceType};

pub async fn sources(p: &Stores, unique: &str) {
    let (ws, bot) = chatbot_in_new_workspace(p, &format!("src-{unique}")).await;
    let owner = SourceOwner::Chatbot(bot.id.clone());
    let s = &p.sources;
    let mut a = text_source(&bot, "hello", 1_700_000_000_001);
    let tags = serde_json::json!({"lang": "en", "year": 2024, "score": 0.5, "public": true});
    a.metadata = lore_domain::metadata::Metadata::parse(Some(&tags)).unwrap();
    let b = text_source(&bot, "world!", 1_700_000_000_002);
    assert_eq!(s.insert_source(&a, &quota(100)).await.unwrap(), Inserted::Done);
    assert_eq!(s.insert_source(&b, &quota(100)).await.unwrap(), Inserted::Done);
    assert_eq!(p.chatbots.get_chatbot(&ws.id, &bot.id).await.unwrap().unwrap().source_count, 2, "counted");
    let big = text_source(&bot, &"x".repeat(90), 1_700_000_000_003);
    assert_eq!(s.insert_source(&big, &quota(100)).await.unwrap(), Inserted::OverQuota { used: 11 }, "quota checked");
    let mut orphan = text_source(&bot, "x", 1);
    orphan.owner = SourceOwner::Chatbot(ChatbotId::generate());
    assert_eq!(s.insert_source(&orphan, &quota(100)).await.unwrap(), Inserted::OwnerNotFound, "unknown chatbot");

    assert_eq!(s.get_source(&ws.id, &a.id).await.unwrap().as_ref(), Some(&a), "round trip");
    assert_eq!(s.get_source(&WorkspaceId::generate(), &a.id).await.unwrap(), None, "never across workspaces");
    let page = s.list_sources(&ws.id, &owner, SourceFilter::default(), PageRequest::default()).await.unwrap();
    assert_eq!((page.total, page.items[0].id.clone()), (2, b.id.clone()), "newest first");

    let started = s.begin_processing(&ws.id, &a.id, &lease(), Timestamp::now()).await.unwrap();
    let Guarded::Done(running) = started else { panic!("begin_processing: {started:?}") };
    assert_eq!((running.status, running.generation), (SourceStatus::Processing, 1));
    let only = SourceFilter { status: Some(SourceStatus::Processing), source_type: Some(SourceType::Text) };
    assert_eq!(s.list_sources(&ws.id, &owner, only, PageRequest::default()).await.unwrap().total, 1, "filters");
    let url_only = SourceFilter { status: None, source_type: Some(SourceType::Url) };
    assert_eq!(s.list_sources(&ws.id, &owner, url_only, PageRequest::default()).await.unwrap().total, 0);

    let settled = [SourceStatus::Pending, SourceStatus::Ready, SourceStatus::Error];
    assert_eq!(s.delete_source(&ws.id, &a.id, &settled).await.unwrap(), Guarded::WrongStatus(SourceStatus::Processing));
    let mut renamed = running.clone();
    renamed.name = "renamed".into();
    assert_eq!(s.update_source(&renamed, &settled, 100).await.unwrap(), Updated::WrongStatus(SourceStatus::Processing));

    assert!(s.set_progress(&a.id, 1, &lore_domain::source::Progress::new("embedding", 1, 2)).await.unwrap());
    assert!(
        !s.set_progress(&a.id, 0, &lore_domain::source::Progress::new("embedding", 1, 2)).await.unwrap(),
        "old run"
    );
    let ready = Finish::Ready {
        chunk_count: 3,
        size_bytes: None,
        content_hash: "h".into(),
        pages_crawled: None,
        refreshed_at: None,
    };
    assert_eq!(s.finish_processing(&a.id, 0, &ready, Timestamp::now()).await.unwrap(), None, "superseded run dropped");
    let done = s.finish_processing(&a.id, 1, &ready, Timestamp::now()).await.unwrap().expect("current run");
    assert_eq!((done.status, done.chunk_count, done.progress.clone()), (SourceStatus::Ready, 3, None));
    assert!(done.processed_at.is_some());
    assert_eq!(done.metadata, a.metadata, "processing keeps the metadata");

    let stats = s.source_stats(&ws.id, &owner).await.unwrap();
    assert_eq!((stats.total_sources, stats.total_chunks, stats.total_size_bytes), (2, 3, 11));
    assert_eq!(stats.by_status.get("ready"), Some(&1));
    assert_eq!(stats.by_status.get("pending"), Some(&1));
    assert_eq!(stats.by_status.get("error"), None, "only statuses that occur");
    assert_eq!(
        (stats.by_type.get("text"), stats.by_type.get("url"), stats.by_type.get("file")),
        (Some(&2), Some(&0), Some(&0))
    );

    let labels = s.ready_source_labels(&ws.id, &owner).await.unwrap();
    let label = SourceLabel {
        id: a.id.clone(),
        name: a.name.clone(),
        source_type: SourceType::Text,
        metadata: a.metadata.clone(),
    };
    assert_eq!(labels, vec![label], "the ready source only (b is pending), by id, name, type and metadata");
    let mut tagged = s.get_source(&ws.id, &b.id).await.unwrap().unwrap();
    tagged.metadata = lore_domain::metadata::Metadata::parse(Some(&serde_json::json!({"team": "ops"}))).unwrap();
    assert_eq!(s.update_source(&tagged, &settled, 100).await.unwrap(), Updated::Done);
    assert_eq!(s.get_source(&ws.id, &b.id).await.unwrap().unwrap().metadata, tagged.metadata, "updated");
    assert!(
        s.ready_source_labels(&WorkspaceId::generate(), &owner).await.unwrap().is_empty(),
        "never across workspaces"
    );

    let Guarded::Done(gone) = s.delete_source(&ws.id, &a.id, &settled).await.unwrap() else { panic!("delete") };
    assert_eq!(gone.id, a.id);
    assert_eq!(s.get_source(&ws.id, &a.id).await.unwrap(), None);
    assert_eq!(p.chatbots.get_chatbot(&ws.id, &bot.id).await.unwrap().unwrap().source_count, 1, "uncounted");
    assert_eq!(
        s.insert_source(&text_source(&bot, &"y".repeat(94), 5), &quota(100)).await.unwrap(),
        Inserted::Done,
        "bytes freed"
    );
}

/// Twenty concurrent `begin_processing` calls: exactly one wins (docs/api.md §16.13).
pub async fn processing_race(p: &Stores, unique: &str) {
    let (ws, bot) = chatbot_in_new_workspace(p, &format!("race-src-{unique}")).await;
    let src = text_source(&bot, "race", 1);
    p.sources.insert_source(&src, &quota(u64::MAX)).await.unwrap();
    let mut tasks = Vec::new();
    for _ in 0..20 {
        let (store, ws, id) = (p.sources.clone(), ws.id.clone(), src.id.clone());
        tasks.push(tokio::spawn(async move { store.begin_processing(&ws, &id, &lease(), Timestamp::now()).await }));
    }
    let mut won = 0;
    for t in tasks {
        match t.await.unwrap().unwrap() {
            Guarded::Done(_) => won += 1,
            Guarded::WrongStatus(SourceStatus::Processing) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(won, 1, "exactly one processing run starts");
    let stale = p.sources.stale_runs(Timestamp::now(), Some("someone-else")).await.unwrap();
    assert!(stale.iter().any(|r| r.source_id == src.id && r.attempts == 1), "a foreign lease is adoptable");
    assert!(p.sources.renew_lease(&src.id, 1, &lease()).await.unwrap());
    let again = p.sources.stale_runs(Timestamp::from_millis(Timestamp::now().millis() + 120_000), None).await.unwrap();
    assert!(again.iter().any(|r| r.source_id == src.id && r.attempts == 2), "an expired lease is stale");
}

/// Uploads counted in the workspace's storage: within the quota, once per key, released once.
pub async fn uploads(p: &Stores, unique: &str) {
    let src = &p.sources;
    let ws = WorkspaceId::generate();
    let (a, b) = (format!("{ws}/upl_a{unique}/a.pdf"), format!("{ws}/upl_b{unique}/b.pdf"));
    let at = Timestamp::from_millis(1_000_000);
    assert_eq!(src.charge_upload(&ws, &a, 600, 1000, at).await.unwrap(), Charged::Done);
    assert_eq!(
        src.charge_upload(&ws, &b, 500, 1000, at).await.unwrap(),
        Charged::OverQuota { used: 600 },
        "600 + 500 bytes do not fit 1000"
    );
    assert_eq!(src.charge_upload(&ws, &a, 900, 1000, at).await.unwrap(), Charged::Done, "counted already");
    assert_eq!(src.release_upload(&ws, &a).await.unwrap(), Some(600), "the first count stands");
    assert_eq!(src.release_upload(&ws, &a).await.unwrap(), None, "released once");
    assert_eq!(src.charge_upload(&ws, &b, 1000, 1000, at).await.unwrap(), Charged::Done, "room again");
    let later = Timestamp::from_millis(1_000_001);
    assert_eq!(src.uploads_charged_before(&ws, later).await.unwrap(), vec![b.clone()]);
    assert!(src.uploads_charged_before(&ws, at).await.unwrap().is_empty(), "not before it was charged");
    assert!(src.uploads_charged_before(&WorkspaceId::generate(), later).await.unwrap().is_empty());
    assert_eq!(src.release_upload(&WorkspaceId::generate(), &b).await.unwrap(), None, "another workspace's key");
    assert_eq!(src.release_upload(&ws, &b).await.unwrap(), Some(1000));
}

/// Scheduled refresh: a settled url source with an interval is listed once its due time has
/// come (the interval after its last crawl), and not before; a running one is not listed.
pub async fn refresh_schedule(p: &Stores, unique: &str) {
    use lore_domain::source::{CrawlDepth, RefreshInterval};
    let (ws, bot) = chatbot_in_new_workspace(p, &format!("refresh-{unique}")).await;
    let s = &p.sources;
    let mut site = text_source(&bot, "x", 1_700_000_000_000);
    site.spec = SourceSpec::Url {
        url: "https://docs.example.com/".into(),
        crawl_depth: CrawlDepth::from_stored(1),
        pages_crawled: 0,
        last_refreshed_at: None,
        refresh_interval: RefreshInterval::from_stored(2),
    };
    let unscheduled = text_source(&bot, "y", 1_700_000_000_001);
    assert_eq!(s.insert_source(&site, &quota(1_000)).await.unwrap(), Inserted::Done);
    assert_eq!(s.insert_source(&unscheduled, &quota(1_000)).await.unwrap(), Inserted::Done);
    let listed = |due: Vec<(WorkspaceId, SourceId)>| due.iter().any(|(w, id)| *w == ws.id && *id == site.id);
    let far = Timestamp::from_millis(Timestamp::now().millis() + 100 * 3_600_000);
    assert!(!listed(s.due_refreshes(far, 10_000).await.unwrap()), "pending: never crawled, never due");

    let Guarded::Done(run) = s.begin_processing(&ws.id, &site.id, &lease(), Timestamp::now()).await.unwrap() else {
        panic!("begin_processing")
    };
    assert!(!listed(s.due_refreshes(far, 10_000).await.unwrap()), "running: not due");
    let crawled = Timestamp::from_millis(1_800_000_000_000);
    let ready = Finish::Ready {
        chunk_count: 1,
        size_bytes: Some(1),
        content_hash: "h".into(),
        pages_crawled: Some(1),
        refreshed_at: Some(crawled),
    };
    let done = s.finish_processing(&site.id, run.generation, &ready, Timestamp::now()).await.unwrap().unwrap();
    let due = done.refresh_due_at().expect("a settled url source with an interval");
    assert_eq!(due.millis(), crawled.millis() + 2 * 3_600_000);
    assert!(!listed(s.due_refreshes(Timestamp::from_millis(due.millis() - 1), 10_000).await.unwrap()), "not yet");
    assert!(listed(s.due_refreshes(due, 10_000).await.unwrap()), "due at its time");
    let others = s.due_refreshes(due, 10_000).await.unwrap();
    assert!(others.iter().all(|(_, id)| *id != unscheduled.id), "no interval, never listed");

    // Turning the schedule off takes it out.
    let mut off = done.clone();
    if let SourceSpec::Url { refresh_interval, .. } = &mut off.spec {
        *refresh_interval = None;
    }
    assert_eq!(s.update_source(&off, &[SourceStatus::Ready], 1_000).await.unwrap(), Updated::Done);
    assert!(!listed(s.due_refreshes(far, 10_000).await.unwrap()), "off");
}
