//! Conformance suites for the ports: written once, run against every adapter family (embedded
//! and AWS), so both behave the same. Each suite panics with a message naming the broken rule.

use crate::ports::{
    BlobStore, Chunk, EventBus, Finish, Guarded, InsertLimits, Lease, SourceFilter, SourceStore, VectorIndex,
};
use crate::ports::{ChatbotStore, KeyStore, RateDecision, RateLimiter, StoreError, WorkspaceStore};
use lore_domain::Timestamp;
use lore_domain::api_key::{ApiKey, ApiKeySecret, KeyName};
use lore_domain::chatbot::{Chatbot, ChatbotName};
use lore_domain::id::{ApiKeyId, ChatbotId, SourceId, WorkspaceId};
use lore_domain::pagination::PageRequest;
use lore_domain::scope::ScopeSet;
use lore_domain::slug::Slug;
use lore_domain::source::{KnowledgeSource, SourceOwner, SourceSpec, SourceStatus, SourceType};
use lore_domain::workspace::{Workspace, WorkspaceLimits, WorkspaceName};
use std::sync::Arc;

fn workspace(name: &str) -> Workspace {
    Workspace {
        id: WorkspaceId::generate(),
        name: WorkspaceName::parse(name).unwrap(),
        limits: WorkspaceLimits::default(),
        created_at: Timestamp::now(),
    }
}

fn chatbot(ws: &WorkspaceId, slug: &str, created_ms: i64) -> Chatbot {
    Chatbot {
        id: ChatbotId::generate(),
        workspace_id: ws.clone(),
        name: ChatbotName::parse("Bot").unwrap(),
        slug: Slug::parse("slug", slug).unwrap(),
        descriptor: "d".into(),
        created_at: Timestamp::from_millis(created_ms),
        updated_at: Timestamp::from_millis(created_ms),
        source_count: 0,
        conversation_count: 0,
    }
}

/// The storage-side ports of one adapter family.
#[derive(Clone)]
pub struct Stores {
    pub workspaces: Arc<dyn WorkspaceStore>,
    pub keys: Arc<dyn KeyStore>,
    pub chatbots: Arc<dyn ChatbotStore>,
    pub rate_limiter: Arc<dyn RateLimiter>,
    pub sources: Arc<dyn SourceStore>,
    pub index: Arc<dyn VectorIndex>,
    pub blobs: Arc<dyn BlobStore>,
    pub events: Arc<dyn EventBus>,
    pub forms: Arc<dyn crate::ports::FormStore>,
    pub hooks: Arc<dyn crate::ports::HookStore>,
    pub deliveries: Arc<dyn crate::ports::DeliveryStore>,
}

/// Runs every suite. `unique` keeps names apart when several runs share one backend.
pub async fn run_all(ports: &Stores, unique: &str) {
    workspaces(ports, unique).await;
    keys(ports, unique).await;
    chatbots(ports, unique).await;
    chatbot_slug_race(ports, unique).await;
    rate_limiter(ports).await;
    sources(ports, unique).await;
    processing_race(ports, unique).await;
    chunk_index(ports, unique).await;
    index_search(ports, unique).await;
    blobs(ports, unique).await;
    uploads(ports, unique).await;
    forms(ports, unique).await;
    hooks(ports, unique).await;
    hooks_limit_race(ports, unique).await;
    deliveries(ports, unique).await;
    delivery_claim_race(ports, unique).await;
}

pub async fn workspaces(p: &Stores, unique: &str) {
    let s = &p.workspaces;
    let mut a = workspace(&format!("a-{unique}"));
    s.insert_workspace(&a).await.unwrap();
    assert_eq!(s.get_workspace(&a.id).await.unwrap().as_ref(), Some(&a), "get returns what was inserted");
    assert_eq!(s.find_workspace_by_name(a.name.as_str()).await.unwrap().as_ref(), Some(&a), "find by name");
    assert_eq!(s.get_workspace(&WorkspaceId::generate()).await.unwrap(), None, "unknown id");
    let dup = workspace(&format!("a-{unique}"));
    assert_eq!(s.insert_workspace(&dup).await, Err(StoreError::Conflict("name")), "names are unique");

    let b = workspace(&format!("b-{unique}"));
    s.insert_workspace(&b).await.unwrap();
    a.limits.minds_limit = 3;
    a.limits.storage_quota_bytes = 5 << 40;
    s.update_workspace(&a).await.unwrap();
    assert_eq!(s.get_workspace(&a.id).await.unwrap().unwrap().limits, a.limits, "limits updated");
    let mut renamed = a.clone();
    renamed.name = b.name.clone();
    assert_eq!(s.update_workspace(&renamed).await, Err(StoreError::Conflict("name")), "rename onto a taken name");
    let all = s.list_workspaces().await.unwrap();
    assert!(all.contains(&a) && all.contains(&b), "list has both");
}

pub async fn keys(p: &Stores, unique: &str) {
    let ws = workspace(&format!("keys-{unique}"));
    p.workspaces.insert_workspace(&ws).await.unwrap();
    let other = workspace(&format!("keys-other-{unique}"));
    p.workspaces.insert_workspace(&other).await.unwrap();
    let mk = |w: &Workspace, scopes: &str| {
        let secret = ApiKeySecret::generate();
        let key = ApiKey {
            id: ApiKeyId::generate(),
            workspace_id: w.id.clone(),
            name: KeyName::parse("k").unwrap(),
            scopes: ScopeSet::parse(scopes).unwrap(),
            hash: secret.hash(),
            created_at: Timestamp::now(),
            revoked_at: None,
        };
        (secret, key)
    };
    let (secret, k1) = mk(&ws, "chatbot:read,forms:write");
    let (_, k2) = mk(&ws, "all");
    let (_, k3) = mk(&other, "all");
    for k in [&k1, &k2, &k3] {
        p.keys.insert_key(k).await.unwrap();
    }
    let cred = p.keys.find_credential(&secret.hash()).await.unwrap().expect("found by hash");
    assert_eq!(cred.key, k1, "the key round-trips, scopes included");
    assert_eq!(cred.workspace, ws, "with its workspace");
    assert_eq!(p.keys.find_credential(&ApiKeySecret::generate().hash()).await.unwrap(), None);

    let listed = p.keys.list_keys(Some(&ws.id)).await.unwrap();
    assert_eq!(listed, vec![k2.clone(), k1.clone()], "one workspace's keys, newest first");

    let at = Timestamp::from_millis(1_800_000_000_000);
    assert!(p.keys.revoke_key(&k1.id, at).await.unwrap(), "revoke");
    assert!(!p.keys.revoke_key(&k1.id, at).await.unwrap(), "second revoke is a no-op");
    assert!(!p.keys.revoke_key(&ApiKeyId::generate(), at).await.unwrap(), "unknown key");
    let cred = p.keys.find_credential(&secret.hash()).await.unwrap().unwrap();
    assert_eq!(cred.key.revoked_at, Some(at), "revoked keys stay findable, marked");
}

pub async fn chatbots(p: &Stores, unique: &str) {
    let ws = workspace(&format!("bots-{unique}"));
    p.workspaces.insert_workspace(&ws).await.unwrap();
    let other = workspace(&format!("bots-other-{unique}"));
    p.workspaces.insert_workspace(&other).await.unwrap();
    let s = &p.chatbots;

    let base = 1_700_000_000_000;
    let a = chatbot(&ws.id, "alpha", base);
    let b = chatbot(&ws.id, "beta", base + 1);
    let c = chatbot(&ws.id, "gamma", base + 1); // same millisecond as b: id breaks the tie
    for x in [&a, &b, &c] {
        s.insert_chatbot(x).await.unwrap();
    }
    assert_eq!(s.insert_chatbot(&chatbot(&ws.id, "alpha", base)).await, Err(StoreError::Conflict("slug")));
    s.insert_chatbot(&chatbot(&other.id, "alpha", base)).await.expect("slugs are per workspace");

    assert_eq!(s.get_chatbot(&ws.id, &a.id).await.unwrap().as_ref(), Some(&a));
    assert_eq!(s.get_chatbot(&other.id, &a.id).await.unwrap(), None, "never across workspaces");

    let page = s.list_chatbots(&ws.id, PageRequest::new(1, 2)).await.unwrap();
    assert_eq!(page.total, 3);
    assert_eq!(page.items, vec![c.clone(), b.clone()], "newest first, id desc on ties");
    let page2 = s.list_chatbots(&ws.id, PageRequest::new(2, 2)).await.unwrap();
    assert_eq!(page2.items, vec![a.clone()]);
    let past = s.list_chatbots(&ws.id, PageRequest::new(5, 2)).await.unwrap();
    assert!(past.items.is_empty() && past.total == 3, "past the end: empty with the true total");

    let mut renamed = a.clone();
    renamed.name = ChatbotName::parse("Renamed").unwrap();
    renamed.slug = Slug::parse("slug", "beta").unwrap();
    assert_eq!(s.update_chatbot(&renamed).await, Err(StoreError::Conflict("slug")), "update onto a taken slug");
    renamed.slug = Slug::parse("slug", "alpha-2").unwrap();
    renamed.updated_at = Timestamp::from_millis(base + 10);
    assert!(s.update_chatbot(&renamed).await.unwrap());
    assert_eq!(s.get_chatbot(&ws.id, &a.id).await.unwrap().as_ref(), Some(&renamed));
    let mut foreign = renamed.clone();
    foreign.workspace_id = other.id.clone();
    assert!(!s.update_chatbot(&foreign).await.unwrap(), "an update names its workspace");

    assert!(!s.delete_chatbot(&other.id, &a.id).await.unwrap(), "a delete names its workspace");
    assert!(s.delete_chatbot(&ws.id, &a.id).await.unwrap());
    assert!(!s.delete_chatbot(&ws.id, &a.id).await.unwrap());
    assert_eq!(s.get_chatbot(&ws.id, &a.id).await.unwrap(), None);
    assert_eq!(s.list_chatbots(&ws.id, PageRequest::default()).await.unwrap().total, 2);
    s.insert_chatbot(&chatbot(&ws.id, "alpha", base)).await.expect("a deleted chatbot's slug is free again");
}

/// Many concurrent inserts of one slug: exactly one wins, the rest see `Conflict`.
pub async fn chatbot_slug_race(p: &Stores, unique: &str) {
    let ws = workspace(&format!("race-{unique}"));
    p.workspaces.insert_workspace(&ws).await.unwrap();
    let mut tasks = Vec::new();
    for i in 0..16 {
        let store = p.chatbots.clone();
        let c = chatbot(&ws.id, "contested", 1_700_000_000_000 + i);
        tasks.push(tokio::spawn(async move { store.insert_chatbot(&c).await }));
    }
    let mut won = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(()) => won += 1,
            Err(StoreError::Conflict("slug")) => {}
            Err(e) => panic!("unexpected {e}"),
        }
    }
    assert_eq!(won, 1, "exactly one insert of a contested slug wins");
}

pub async fn rate_limiter(p: &Stores) {
    let key = ApiKeyId::generate();
    let now = Timestamp::now();
    for i in 0..4 {
        assert_eq!(p.rate_limiter.hit(&key, 4, now).await.unwrap(), RateDecision::Allowed, "request {i}");
    }
    match p.rate_limiter.hit(&key, 4, now).await.unwrap() {
        RateDecision::Limited { retry_after_secs } => assert!((1..=60).contains(&retry_after_secs)),
        RateDecision::Allowed => panic!("the 5th request of a 4/min budget passed"),
    }
    assert_eq!(p.rate_limiter.hit(&ApiKeyId::generate(), 4, now).await.unwrap(), RateDecision::Allowed, "per key");
}

async fn chatbot_in_new_workspace(p: &Stores, name: &str) -> (Workspace, Chatbot) {
    let ws = workspace(name);
    p.workspaces.insert_workspace(&ws).await.unwrap();
    let bot = chatbot(&ws.id, "bot", 1_700_000_000_000);
    p.chatbots.insert_chatbot(&bot).await.unwrap();
    (ws, bot)
}

fn text_source(bot: &Chatbot, content: &str, created_ms: i64) -> KnowledgeSource {
    KnowledgeSource {
        id: SourceId::generate(),
        workspace_id: bot.workspace_id.clone(),
        owner: SourceOwner::Chatbot(bot.id.clone()),
        name: "t".into(),
        status: SourceStatus::Pending,
        spec: SourceSpec::Text { content: content.into() },
        created_at: Timestamp::from_millis(created_ms),
        updated_at: Timestamp::from_millis(created_ms),
        processed_at: None,
        chunk_count: 0,
        size_bytes: content.len() as u64,
        error: None,
        content_hash: None,
        progress: None,
        generation: 0,
    }
}

/// Limits of a chatbot source insert: only the storage quota applies.
fn quota(bytes: u64) -> InsertLimits {
    InsertLimits { storage_quota: bytes, workspace_sources: u32::MAX, mind_sources: u32::MAX }
}

fn lease() -> Lease {
    Lease { owner: "conformance".into(), until: Timestamp::from_millis(Timestamp::now().millis() + 60_000) }
}

pub async fn sources(p: &Stores, unique: &str) {
    let (ws, bot) = chatbot_in_new_workspace(p, &format!("src-{unique}")).await;
    let owner = SourceOwner::Chatbot(bot.id.clone());
    let s = &p.sources;
    let a = text_source(&bot, "hello", 1_700_000_000_001);
    let b = text_source(&bot, "world!", 1_700_000_000_002);
    assert_eq!(s.insert_source(&a, &quota(100)).await.unwrap(), Guarded::Done(()));
    assert_eq!(s.insert_source(&b, &quota(100)).await.unwrap(), Guarded::Done(()));
    assert_eq!(p.chatbots.get_chatbot(&ws.id, &bot.id).await.unwrap().unwrap().source_count, 2, "counted");
    let big = text_source(&bot, &"x".repeat(90), 1_700_000_000_003);
    assert_eq!(s.insert_source(&big, &quota(100)).await.unwrap(), Guarded::OverQuota { used: 11 }, "quota checked");
    let mut orphan = text_source(&bot, "x", 1);
    orphan.owner = SourceOwner::Chatbot(ChatbotId::generate());
    assert_eq!(s.insert_source(&orphan, &quota(100)).await.unwrap(), Guarded::NotFound, "unknown chatbot");

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
    assert_eq!(s.update_source(&renamed, &settled, 100).await.unwrap(), Guarded::WrongStatus(SourceStatus::Processing));

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

    let stats = s.source_stats(&ws.id, &owner).await.unwrap();
    assert_eq!((stats.total_sources, stats.total_chunks, stats.total_size_bytes), (2, 3, 11));
    assert_eq!(stats.by_status.get("ready"), Some(&1));
    assert_eq!(stats.by_status.get("pending"), Some(&1));
    assert_eq!(stats.by_status.get("error"), None, "only statuses that occur");
    assert_eq!(
        (stats.by_type.get("text"), stats.by_type.get("url"), stats.by_type.get("file")),
        (Some(&2), Some(&0), Some(&0))
    );

    let Guarded::Done(gone) = s.delete_source(&ws.id, &a.id, &settled).await.unwrap() else { panic!("delete") };
    assert_eq!(gone.id, a.id);
    assert_eq!(s.get_source(&ws.id, &a.id).await.unwrap(), None);
    assert_eq!(p.chatbots.get_chatbot(&ws.id, &bot.id).await.unwrap().unwrap().source_count, 1, "uncounted");
    assert_eq!(
        s.insert_source(&text_source(&bot, &"y".repeat(94), 5), &quota(100)).await.unwrap(),
        Guarded::Done(()),
        "bytes freed"
    );
}

/// Twenty concurrent `begin_processing` calls: exactly one wins (CONTRACT §16.13).
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

pub async fn chunk_index(p: &Stores, unique: &str) {
    let (_, bot) = chatbot_in_new_workspace(p, &format!("chunks-{unique}")).await;
    let src = text_source(&bot, "c", 1);
    p.sources.insert_source(&src, &quota(u64::MAX)).await.unwrap();
    let mk = |pos: u32, gen_: u64, text: &str| Chunk {
        id: format!("{}:{gen_}:{pos}", src.id),
        workspace_id: bot.workspace_id.clone(),
        owner: SourceOwner::Chatbot(bot.id.clone()),
        source_id: src.id.clone(),
        position: pos,
        content: text.into(),
        content_hash: format!("hash-{text}"),
        url: None,
        embedding: vec![pos as f32, 0.5, -1.0],
    };
    p.index.replace_source_chunks(&src.id, "m1", vec![mk(0, 1, "a"), mk(1, 1, "b")]).await.unwrap();
    // A retried run writes the same ids again: no duplicates.
    p.index.replace_source_chunks(&src.id, "m1", vec![mk(0, 1, "a"), mk(1, 1, "b")]).await.unwrap();
    assert_eq!(p.index.count_source_chunks(&src.id).await.unwrap(), 2);
    let known = p.index.embeddings_by_hash(&src.id, "m1").await.unwrap();
    assert_eq!(known.get("hash-b"), Some(&vec![1.0, 0.5, -1.0]), "embeddings round-trip exactly");
    assert!(p.index.embeddings_by_hash(&src.id, "other-model").await.unwrap().is_empty(), "never mixed across models");
    let stale = p.index.sources_with_other_models("m2").await.unwrap();
    assert!(stale.contains(&(bot.workspace_id.clone(), src.id.clone())), "chunks of another model are reported");
    assert!(!p.index.sources_with_other_models("m1").await.unwrap().iter().any(|(_, s)| s == &src.id));
    p.index.replace_source_chunks(&src.id, "m1", vec![mk(0, 2, "c")]).await.unwrap();
    assert_eq!(p.index.count_source_chunks(&src.id).await.unwrap(), 1, "replace drops the old chunks");
    assert_eq!(p.index.delete_source_chunks(&src.id).await.unwrap(), 1);
    assert_eq!(p.index.count_source_chunks(&src.id).await.unwrap(), 0);
}

pub async fn blobs(p: &Stores, unique: &str) {
    let key = format!("ws_conformance/upl_{unique}/notes.txt");
    p.blobs.put(&key, b"hello".to_vec(), "text/plain").await.unwrap();
    assert_eq!(p.blobs.get(&key).await.unwrap().as_deref(), Some(&b"hello"[..]));
    let head = |bytes: &[u8], size| Some(crate::ports::BlobHead { bytes: bytes.to_vec(), size });
    assert_eq!(p.blobs.head(&key, 2).await.unwrap(), head(b"he", 5), "the head and the whole size");
    assert_eq!(p.blobs.head(&key, 64).await.unwrap(), head(b"hello", 5), "a short blob whole");
    assert_eq!(p.blobs.head(&format!("{key}.absent"), 2).await.unwrap(), None);
    let url = p.blobs.public_url(&key);
    assert_eq!(p.blobs.key_for_url(&url), Some(key.clone()), "a handed-out URL maps back to its key");
    assert_eq!(p.blobs.key_for_url("https://elsewhere.example/files/x"), None);
    p.blobs.delete(&key).await.unwrap();
    assert_eq!(p.blobs.get(&key).await.unwrap(), None);
    p.blobs.delete(&key).await.expect("deleting twice is fine");

    // Deleting by prefix takes every blob under it, at any depth, and nothing beside it.
    let owner = format!("ws_conformance/mind_{unique}/");
    let keys = [format!("{owner}upl_a/a.txt"), format!("{owner}upl_b/b.txt"), format!("{owner}upl_b/deep/c.txt")];
    let beside = format!("ws_conformance/mind_{unique}x/upl_c/keep.txt");
    for k in keys.iter().chain([&beside]) {
        p.blobs.put(k, b"x".to_vec(), "text/plain").await.unwrap();
    }
    assert_eq!(p.blobs.delete_prefix(&owner).await.unwrap(), 3);
    for k in &keys {
        assert_eq!(p.blobs.get(k).await.unwrap(), None, "{k}");
    }
    assert_eq!(p.blobs.get(&beside).await.unwrap().as_deref(), Some(&b"x"[..]), "a sibling prefix is kept");
    assert_eq!(p.blobs.delete_prefix(&owner).await.unwrap(), 0, "nothing left");
    for bad in ["", "/", "../", "ws_conformance", "ws_conformance/../"] {
        assert_eq!(p.blobs.delete_prefix(bad).await.unwrap(), 0, "{bad:?} deletes nothing");
    }
    assert!(p.blobs.get(&beside).await.unwrap().is_some());
    p.blobs.delete(&beside).await.unwrap();
    blob_streams(p, unique).await;
}

/// Uploads counted in the workspace's storage: within the quota, once per key, released once.
pub async fn uploads(p: &Stores, unique: &str) {
    let src = &p.sources;
    let ws = WorkspaceId::generate();
    let (a, b) = (format!("{ws}/upl_a{unique}/a.pdf"), format!("{ws}/upl_b{unique}/b.pdf"));
    let at = Timestamp::from_millis(1_000_000);
    assert_eq!(src.charge_upload(&ws, &a, 600, 1000, at).await.unwrap(), Guarded::Done(()));
    assert_eq!(
        src.charge_upload(&ws, &b, 500, 1000, at).await.unwrap(),
        Guarded::OverQuota { used: 600 },
        "600 + 500 bytes do not fit 1000"
    );
    assert_eq!(src.charge_upload(&ws, &a, 900, 1000, at).await.unwrap(), Guarded::Done(()), "counted already");
    assert_eq!(src.release_upload(&ws, &a).await.unwrap(), Some(600), "the first count stands");
    assert_eq!(src.release_upload(&ws, &a).await.unwrap(), None, "released once");
    assert_eq!(src.charge_upload(&ws, &b, 1000, 1000, at).await.unwrap(), Guarded::Done(()), "room again");
    let later = Timestamp::from_millis(1_000_001);
    assert_eq!(src.uploads_charged_before(&ws, later).await.unwrap(), vec![b.clone()]);
    assert!(src.uploads_charged_before(&ws, at).await.unwrap().is_empty(), "not before it was charged");
    assert!(src.uploads_charged_before(&WorkspaceId::generate(), later).await.unwrap().is_empty());
    assert_eq!(src.release_upload(&WorkspaceId::generate(), &b).await.unwrap(), None, "another workspace's key");
    assert_eq!(src.release_upload(&ws, &b).await.unwrap(), Some(1000));
}

/// A body of `chunks` chunks of `chunk` bytes each (byte `i` of the whole is `i % 251`), then
/// `tail` (an error ends a body that fails).
fn body_of(chunks: usize, chunk: usize, tail: Option<std::io::Error>) -> crate::ports::ByteStream<'static> {
    use futures::StreamExt;
    let parts = (0..chunks)
        .map(move |n| Ok(bytes::Bytes::from((0..chunk).map(|i| ((n * chunk + i) % 251) as u8).collect::<Vec<u8>>())));
    Box::pin(futures::stream::iter(parts).chain(futures::stream::iter(tail.map(Err))))
}

async fn collect(read: crate::ports::BlobRead) -> Vec<u8> {
    use futures::StreamExt;
    let mut out = Vec::new();
    let mut body = read.body;
    while let Some(chunk) = body.next().await {
        out.extend_from_slice(&chunk.expect("a stored blob reads"));
    }
    out
}

/// Streamed puts and reads: bounded, all-or-nothing, ranges.
pub async fn blob_streams(p: &Stores, unique: &str) {
    use crate::ports::{ByteRange, StreamPutError};
    let expected = |len: usize| (0..len).map(|i| (i % 251) as u8).collect::<Vec<u8>>();
    let key = format!("ws_conformance/upl_{unique}s/big.bin");
    // 20 MiB in 1 MiB chunks: several parts where the store uploads in parts.
    let size = p.blobs.put_stream(&key, "application/octet-stream", &mut body_of(20, 1 << 20, None), 20 << 20).await;
    assert_eq!(size.unwrap(), 20 << 20, "the stored size");
    let whole = p.blobs.read(&key, None).await.unwrap().expect("the streamed blob");
    assert_eq!(whole.size, 20 << 20);
    assert!(collect(whole).await == expected(20 << 20), "the streamed bytes read back whole");
    let range = ByteRange { start: 9 << 20, end: (9 << 20) + 9 };
    let part = p.blobs.read(&key, Some(range)).await.unwrap().expect("a range");
    assert_eq!(part.size, 20 << 20, "a range still tells the whole size");
    assert_eq!(collect(part).await, expected(20 << 20)[(9 << 20)..(9 << 20) + 10].to_vec());
    assert!(p.blobs.read(&format!("{key}.absent"), None).await.unwrap().is_none());

    // Over the limit: refused, and nothing stored (also not a previous version's replacement).
    let over = format!("ws_conformance/upl_{unique}s/over.bin");
    let refused = p.blobs.put_stream(&over, "application/octet-stream", &mut body_of(10, 1 << 20, None), 9 << 20).await;
    assert!(matches!(refused, Err(StreamPutError::TooLarge { max_bytes }) if max_bytes == 9 << 20), "{refused:?}");
    assert_eq!(p.blobs.get(&over).await.unwrap(), None, "nothing of a refused body is kept");
    let small = p.blobs.put_stream(&over, "text/plain", &mut body_of(1, 3, None), 10).await;
    assert_eq!(small.unwrap(), 3);
    let broken = std::io::Error::new(std::io::ErrorKind::TimedOut, "stalled");
    let failed = p.blobs.put_stream(&over, "text/plain", &mut body_of(12, 1 << 20, Some(broken)), 64 << 20).await;
    assert!(matches!(failed, Err(StreamPutError::Body(_))), "{failed:?}");
    assert_eq!(p.blobs.get(&over).await.unwrap(), Some(expected(3)), "a failed body leaves the old blob whole");
    for k in [&key, &over] {
        p.blobs.delete(k).await.unwrap();
    }
}

/// Search over the index: exact cosine ranking, BM25 keyword matching, scope by chatbot and by
/// source list, deletion. Needs only `sources`, `chatbots`, `workspaces` and `index`.
pub async fn index_search(p: &Stores, unique: &str) {
    use crate::ports::SearchScope;
    let (ws, bot) = chatbot_in_new_workspace(p, &format!("search-{unique}")).await;
    let (_, other_bot) = chatbot_in_new_workspace(p, &format!("search-other-{unique}")).await;
    let a = text_source(&bot, "a", 1);
    let b = text_source(&bot, "b", 2);
    let foreign = text_source(&other_bot, "f", 3);
    for s in [&a, &b, &foreign] {
        p.sources.insert_source(s, &quota(u64::MAX)).await.unwrap();
    }
    let chunk = |s: &KnowledgeSource, pos: u32, text: &str, v: [f32; 3]| Chunk {
        id: format!("{}:1:{pos}", s.id),
        workspace_id: s.workspace_id.clone(),
        owner: s.owner.clone(),
        source_id: s.id.clone(),
        position: pos,
        content: text.into(),
        content_hash: format!("{}-{pos}", s.id),
        url: (pos == 1).then(|| "https://example.com/p".to_owned()),
        embedding: v.to_vec(),
    };
    p.index
        .replace_source_chunks(
            &a.id,
            "m",
            vec![
                chunk(&a, 0, "Refunds are paid back within fourteen days", [1.0, 0.0, 0.0]),
                chunk(&a, 1, "Shipping takes two days", [0.0, 1.0, 0.0]),
            ],
        )
        .await
        .unwrap();
    p.index
        .replace_source_chunks(
            &b.id,
            "m",
            vec![chunk(&b, 0, "Refund requests need an invoice number", [0.8, 0.6, 0.0])],
        )
        .await
        .unwrap();
    p.index
        .replace_source_chunks(&foreign.id, "m", vec![chunk(&foreign, 0, "Refund refund refund", [1.0, 0.0, 0.0])])
        .await
        .unwrap();
    let scope = SearchScope {
        workspace_id: ws.id.clone(),
        owner: SourceOwner::Chatbot(bot.id.clone()),
        source_ids: vec![a.id.clone(), b.id.clone()],
    };

    let hits = p.index.semantic_search(&scope, "m", &[1.0, 0.0, 0.0], 10).await.unwrap();
    let got: Vec<(String, f32)> =
        hits.iter().map(|h| (h.chunk_id.clone(), (h.score * 1000.0).round() / 1000.0)).collect();
    assert_eq!(
        got,
        vec![(format!("{}:1:0", a.id), 1.0), (format!("{}:1:0", b.id), 0.8), (format!("{}:1:1", a.id), 0.0)],
        "exact cosine ranking, only this chatbot's chunks"
    );
    assert_eq!(hits[2].url.as_deref(), Some("https://example.com/p"));
    assert_eq!(hits[0].content, "Refunds are paid back within fourteen days");
    assert_eq!(p.index.semantic_search(&scope, "m", &[1.0, 0.0, 0.0], 1).await.unwrap().len(), 1, "k bounds");
    assert!(p.index.semantic_search(&scope, "other-model", &[1.0, 0.0, 0.0], 5).await.unwrap().is_empty());

    let kw = p.index.keyword_search(&scope, "refund invoice", 10).await.unwrap();
    assert_eq!(kw.first().map(|h| h.source_id.clone()), Some(b.id.clone()), "more query words match ranks first");
    assert!(kw.iter().all(|h| h.source_id != foreign.id), "never another chatbot's chunks");
    assert!(kw.iter().all(|h| h.score > 0.0));
    assert!(p.index.keyword_search(&scope, "zebra", 10).await.unwrap().is_empty());

    // Many better keyword matches of another owner do not crowd this scope's own out of its top k.
    let crowd: Vec<Chunk> =
        (0..300).map(|i| chunk(&foreign, i, "invoice invoice invoice invoice invoice", [0.0, 0.0, 1.0])).collect();
    p.index.replace_source_chunks(&foreign.id, "m", crowd).await.unwrap();
    let kw = p.index.keyword_search(&scope, "invoice", 1).await.unwrap();
    assert_eq!(kw.iter().map(|h| h.source_id.clone()).collect::<Vec<_>>(), vec![b.id.clone()], "scope first");

    let only_b = SearchScope { source_ids: vec![b.id.clone()], ..scope.clone() };
    assert!(
        p.index.semantic_search(&only_b, "m", &[1.0, 0.0, 0.0], 10).await.unwrap().iter().all(|h| h.source_id == b.id)
    );
    let none = SearchScope { source_ids: vec![], ..scope.clone() };
    assert!(p.index.keyword_search(&none, "refund", 10).await.unwrap().is_empty());

    p.index.delete_source_chunks(&b.id).await.unwrap();
    let after = p.index.semantic_search(&scope, "m", &[1.0, 0.0, 0.0], 10).await.unwrap();
    assert!(after.iter().all(|h| h.source_id != b.id), "deleted chunks are not found");
    assert!(p.index.keyword_search(&scope, "invoice", 10).await.unwrap().is_empty());

    // An owner's chunks go with it, and only its own.
    assert_eq!(p.index.delete_owner_chunks(&SourceOwner::Chatbot(bot.id.clone())).await.unwrap(), 2);
    assert_eq!(p.index.count_source_chunks(&a.id).await.unwrap(), 0);
    assert_eq!(p.index.count_source_chunks(&foreign.id).await.unwrap(), 300, "another owner's chunks stay");
}

pub use webhook_suites::{deliveries, delivery_claim_race, forms, hooks, hooks_limit_race};

/// Forms, subscriptions and deliveries (CONTRACT §11–13).
mod webhook_suites {
    use super::{Stores, chatbot, workspace};
    use crate::ports::Lease;
    use crate::ports::{DeliveryFilter, DeliveryUpdate, HookCounts};
    use lore_domain::Timestamp;
    use lore_domain::delivery::{Attempt, Delivery, DeliveryStatus};
    use lore_domain::event::{Event, EventType};
    use lore_domain::form::{Form, FormResponse, NewForm, RawField, ResponseSource};
    use lore_domain::hook::{HookFilter, HookStatus, HookTarget, Subscription};
    use lore_domain::id::{ChatbotId, DeliveryId, EventId, FormId, HookId, ResponseId, WorkspaceId};
    use lore_domain::pagination::PageRequest;
    use lore_domain::workspace::Workspace;
    use serde_json::json;
    use std::collections::BTreeMap;

    async fn new_workspace(p: &Stores, name: &str) -> Workspace {
        let ws = workspace(name);
        p.workspaces.insert_workspace(&ws).await.unwrap();
        ws
    }

    fn form(ws: &WorkspaceId, name: &str, created_ms: i64) -> Form {
        let mut choice = RawField {
            key: Some("plan".into()),
            label: Some("Plan".into()),
            field_type: Some("dropdown".into()),
            ..Default::default()
        };
        choice.options = Some(vec!["basic".into(), "pro".into()]);
        let rating = RawField {
            key: Some("stars".into()),
            label: Some("Stars".into()),
            field_type: Some("rating".into()),
            required: Some(true),
            max: Some(10),
            ..Default::default()
        };
        let new = NewForm::parse(Some(name), Some(&[choice, rating])).unwrap();
        Form {
            id: FormId::generate(),
            workspace_id: ws.clone(),
            name: new.name,
            fields: new.fields,
            created_at: Timestamp::from_millis(created_ms),
        }
    }

    fn response(f: &Form, created_ms: i64) -> FormResponse {
        let mut values = BTreeMap::new();
        values.insert("plan".to_owned(), json!("pro"));
        values.insert("stars".to_owned(), json!(9));
        FormResponse {
            id: ResponseId::generate(),
            workspace_id: f.workspace_id.clone(),
            form_id: f.id.clone(),
            event_id: EventId::generate(),
            source: ResponseSource::Chatbot,
            values,
            created_at: Timestamp::from_millis(created_ms),
        }
    }

    async fn unfanned(p: &Stores, id: &EventId) -> Option<Event> {
        p.deliveries.unfanned_events(10_000).await.unwrap().into_iter().find(|e| &e.id == id)
    }

    pub async fn forms(p: &Stores, unique: &str) {
        let ws = new_workspace(p, &format!("forms-{unique}")).await;
        let other = new_workspace(p, &format!("forms-other-{unique}")).await;
        let s = &p.forms;
        let (a, b, c) = (form(&ws.id, "A", 1_000), form(&ws.id, "B", 2_000), form(&ws.id, "C", 2_000));
        for f in [&a, &b, &c] {
            s.insert_form(f).await.unwrap();
        }
        assert_eq!(s.get_form(&ws.id, &a.id).await.unwrap().as_ref(), Some(&a), "fields round-trip in order");
        assert_eq!(s.get_form(&other.id, &a.id).await.unwrap(), None, "never across workspaces");
        let page = s.list_forms(&ws.id, PageRequest::new(1, 2)).await.unwrap();
        assert_eq!((page.total, page.items.clone()), (3, vec![c.clone(), b.clone()]), "newest first, id on ties");
        assert_eq!(s.list_forms(&ws.id, PageRequest::new(2, 2)).await.unwrap().items, vec![a.clone()]);

        let (r1, r2, r3) = (response(&a, 3_000), response(&a, 4_000), response(&b, 5_000));
        for r in [&r1, &r2, &r3] {
            let form = if r.form_id == a.id { &a } else { &b };
            assert!(s.insert_response(r, &form.response_event(r)).await.unwrap());
        }
        let event = unfanned(p, &r1.event_id).await.expect("the response's event is in the outbox");
        assert_eq!(event, a.response_event(&r1), "the event round-trips");
        let listed = s.list_responses(&ws.id, &a.id, PageRequest::default()).await.unwrap();
        assert_eq!((listed.total, listed.items.clone()), (2, vec![r2.clone(), r1.clone()]), "a form's, newest first");
        assert_eq!(s.list_responses(&other.id, &a.id, PageRequest::default()).await.unwrap().total, 0);
        let latest = s.latest_responses(&ws.id, None, 2).await.unwrap();
        assert_eq!(latest, vec![r3.clone(), r2.clone()], "newest of every form");
        assert_eq!(s.latest_responses(&ws.id, Some(&a.id), 5).await.unwrap(), vec![r2.clone(), r1.clone()]);

        assert!(!s.delete_form(&other.id, &a.id).await.unwrap(), "a delete names its workspace");
        assert!(s.delete_form(&ws.id, &a.id).await.unwrap());
        assert!(!s.delete_form(&ws.id, &a.id).await.unwrap());
        assert_eq!(s.list_responses(&ws.id, &a.id, PageRequest::default()).await.unwrap().total, 0, "responses go");
        let late = response(&a, 6_000);
        assert!(!s.insert_response(&late, &a.response_event(&late)).await.unwrap(), "no response to a deleted form");
        assert!(unfanned(p, &late.event_id).await.is_none(), "and no event either");
    }

    fn subscription(ws: &WorkspaceId, url: &str, target: HookTarget) -> Subscription {
        Subscription::new(ws.clone(), url.into(), target, Timestamp::now())
    }

    fn all_forms() -> HookTarget {
        HookTarget::new(HookFilter::FormResponse, None, None).unwrap()
    }

    pub async fn hooks(p: &Stores, unique: &str) {
        let ws = new_workspace(p, &format!("hooks-{unique}")).await;
        let other = new_workspace(p, &format!("hooks-other-{unique}")).await;
        let s = &p.hooks;
        let f = FormId::generate();
        let bot = ChatbotId::generate();
        let a = subscription(&ws.id, "https://a.example/h", all_forms());
        let on_f = subscription(
            &ws.id,
            "https://a.example/h",
            HookTarget::new(HookFilter::FormResponse, Some(f.clone()), None).unwrap(),
        );
        let knowledge = subscription(
            &ws.id,
            "https://k.example/h",
            HookTarget::new(HookFilter::Exact(EventType::SourceReady), None, Some(bot)).unwrap(),
        );
        for h in [&a, &on_f, &knowledge] {
            assert_eq!(
                &s.subscribe(h, 100).await.unwrap().expect("within the cap"),
                h,
                "a new subscription is stored as given"
            );
        }
        assert_eq!(s.get_hook(&ws.id, &knowledge.id).await.unwrap().as_ref(), Some(&knowledge), "round trip");
        assert_eq!(s.get_hook(&other.id, &a.id).await.unwrap(), None, "never across workspaces");

        let again = subscription(&ws.id, "https://a.example/h", all_forms());
        let same = s.subscribe(&again, 100).await.unwrap().expect("within the cap");
        assert_eq!((same.id.clone(), same.secret.clone()), (a.id.clone(), a.secret.clone()), "same target: same hook");
        let elsewhere = subscription(&other.id, "https://a.example/h", all_forms());
        assert_eq!(
            s.subscribe(&elsewhere, 100).await.unwrap().expect("within the cap").id,
            elsewhere.id,
            "targets are per workspace"
        );

        for n in 1..3 {
            assert_eq!(
                s.record_outcome(&ws.id, &a.id, false, 3).await.unwrap(),
                Some(HookStatus::Active),
                "failure {n}"
            );
        }
        assert_eq!(s.record_outcome(&ws.id, &a.id, true, 3).await.unwrap(), Some(HookStatus::Active));
        assert_eq!(s.get_hook(&ws.id, &a.id).await.unwrap().unwrap().consecutive_failures, 0, "a success resets");
        for _ in 0..2 {
            s.record_outcome(&ws.id, &a.id, false, 3).await.unwrap();
        }
        assert_eq!(
            s.record_outcome(&ws.id, &a.id, false, 3).await.unwrap(),
            Some(HookStatus::Disabled),
            "3rd in a row"
        );
        let active: Vec<HookId> = s.active_hooks(&ws.id).await.unwrap().into_iter().map(|h| h.id).collect();
        assert_eq!(active, vec![on_f.id.clone(), knowledge.id.clone()], "a disabled hook is not active");
        assert_eq!(s.count_hooks(&ws.id).await.unwrap(), HookCounts { active: 2, disabled: 1 });
        // The cap counts active and disabled subscriptions; the same target is revived at the cap.
        let fourth = subscription(&ws.id, "https://d.example/h", all_forms());
        assert_eq!(s.subscribe(&fourth, 3).await.unwrap(), None, "a 4th subscription over a cap of 3");
        assert_eq!(s.get_hook(&ws.id, &fourth.id).await.unwrap(), None, "nothing stored over the cap");
        let revived = s.subscribe(&again, 3).await.unwrap().expect("the same target at the cap");
        assert_eq!(
            (revived.id.clone(), revived.status, revived.consecutive_failures),
            (a.id.clone(), HookStatus::Active, 0)
        );
        assert_eq!(s.record_outcome(&ws.id, &HookId::generate(), true, 3).await.unwrap(), None, "unknown hook");

        assert!(!s.delete_hook(&other.id, &a.id).await.unwrap(), "a delete names its workspace");
        assert!(s.delete_hook(&ws.id, &a.id).await.unwrap());
        assert!(!s.delete_hook(&ws.id, &a.id).await.unwrap());
        assert_eq!(s.delete_form_hooks(&ws.id, &f).await.unwrap(), 1);
        assert_eq!(s.get_hook(&ws.id, &on_f.id).await.unwrap(), None, "a form's hooks go with it");
        assert_eq!(s.count_hooks(&ws.id).await.unwrap(), HookCounts { active: 1, disabled: 0 });
    }

    /// Concurrent subscribes of one workspace under a cap store exactly the cap, never more.
    pub async fn hooks_limit_race(p: &Stores, unique: &str) {
        let ws = new_workspace(p, &format!("hooks-limit-race-{unique}")).await;
        let mut tasks = Vec::new();
        for n in 0..12 {
            let (store, h) = (p.hooks.clone(), subscription(&ws.id, &format!("https://r{n}.example/h"), all_forms()));
            tasks.push(tokio::spawn(async move { store.subscribe(&h, 5).await }));
        }
        let mut stored = 0;
        for t in tasks {
            if t.await.unwrap().unwrap().is_some() {
                stored += 1;
            }
        }
        assert_eq!(stored, 5, "exactly the cap is stored");
        assert_eq!(p.hooks.count_hooks(&ws.id).await.unwrap(), HookCounts { active: 5, disabled: 0 });
        assert_eq!(p.hooks.active_hooks(&ws.id).await.unwrap().len(), 5, "and exactly that many exist");
    }

    fn lease(owner: &str, now: Timestamp) -> Lease {
        Lease { owner: owner.into(), until: Timestamp::from_millis(now.millis() + 60_000) }
    }

    fn attempt(at: Timestamp, status: u16) -> Attempt {
        Attempt { at, status_code: Some(status), error: None, duration_ms: 12 }
    }

    /// An event of a new workspace in the outbox, and a delivery of it to each of `hooks` new
    /// subscriptions, due at `due_ms`.
    async fn pending(p: &Stores, name: &str, hooks: usize, due_ms: i64) -> (Event, Vec<Delivery>) {
        let ws = new_workspace(p, name).await;
        let bot = chatbot(&ws.id, "bot", 1);
        let event = Event::new(EventType::SourceReady, ws.id.clone(), json!({"chatbotId": bot.id, "chunkCount": 2}));
        p.events.publish(event.clone()).await.unwrap();
        let mut out = Vec::new();
        for i in 0..hooks {
            let target = HookTarget::new(HookFilter::AllKnowledge, None, None).unwrap();
            let h = p
                .hooks
                .subscribe(&subscription(&ws.id, &format!("https://h{i}.example/"), target), 100)
                .await
                .unwrap()
                .expect("within the cap");
            let mut d = Delivery::new(&h, &event, Timestamp::from_millis(due_ms));
            d.created_at = Timestamp::from_millis(due_ms + i as i64);
            out.push(d);
        }
        (event, out)
    }

    pub async fn deliveries(p: &Stores, unique: &str) {
        let s = &p.deliveries;
        let now = Timestamp::now();
        let (event, ds) = pending(p, &format!("dlv-{unique}"), 2, now.millis() - 1_000).await;
        let ws = &ds[0].workspace_id;
        assert!(unfanned(p, &event.id).await.is_some(), "a published event waits to be fanned out");
        assert_eq!(s.create_deliveries(&event.id, &ds).await.unwrap(), 2);
        assert!(unfanned(p, &event.id).await.is_none(), "fanned out with its deliveries");
        let mut twice = ds.clone();
        for d in &mut twice {
            d.id = DeliveryId::generate();
        }
        assert_eq!(s.create_deliveries(&event.id, &twice).await.unwrap(), 0, "one delivery per event and hook");
        let stored = s.get_delivery(ws, &ds[0].id).await.unwrap().expect("stored");
        assert_eq!(stored, ds[0], "round trip, payload included");
        assert_eq!(stored.payload, event.envelope());
        assert_eq!(s.get_delivery(&WorkspaceId::generate(), &ds[0].id).await.unwrap(), None, "never across workspaces");

        // Claims: only due, unclaimed ones; a claim bumps the token.
        let claimed = s.claim_due(now, 1_000, &lease("me", now)).await.unwrap();
        let mine: Vec<&Delivery> = claimed.iter().filter(|d| &d.workspace_id == ws).collect();
        assert_eq!(mine.len(), 2, "both are due");
        assert!(mine.iter().all(|d| d.claim == 1));
        let again = s.claim_due(now, 1_000, &lease("me", now)).await.unwrap();
        assert!(again.iter().all(|d| &d.workspace_id != ws), "a live claim is not claimed twice");
        let d0 = mine.iter().find(|d| d.id == ds[0].id).unwrap();

        let retry_at = Timestamp::from_millis(now.millis() + 5_000);
        let failed = DeliveryUpdate {
            attempt: Some(attempt(now, 500)),
            status: DeliveryStatus::Pending,
            next_attempt_at: Some(retry_at),
        };
        assert!(!s.record_attempt(&d0.id, 0, &failed).await.unwrap(), "an old claim records nothing");
        assert!(s.record_attempt(&d0.id, d0.claim, &failed).await.unwrap());
        assert!(!s.record_attempt(&d0.id, d0.claim, &failed).await.unwrap(), "a claim records once");
        let after = s.get_delivery(ws, &d0.id).await.unwrap().unwrap();
        assert_eq!(
            (after.status, after.next_attempt_at, after.attempts.clone()),
            (DeliveryStatus::Pending, Some(retry_at), vec![attempt(now, 500)])
        );
        assert!(s.claim_one(&d0.id, now, &lease("me", now)).await.unwrap().is_none(), "not due before its retry");
        let due = s.claim_one(&d0.id, retry_at, &lease("me", retry_at)).await.unwrap().expect("due at its retry");
        assert_eq!(due.claim, 3, "claimed, recorded, claimed");
        let done = DeliveryUpdate {
            attempt: Some(attempt(retry_at, 200)),
            status: DeliveryStatus::Succeeded,
            next_attempt_at: None,
        };
        assert!(s.record_attempt(&d0.id, due.claim, &done).await.unwrap());

        // An abandoned claim is taken over by a restarted owner, or after its lease.
        let d1 = ds[1].id.clone();
        assert!(s.claim_due(now, 1_000, &lease("me", now)).await.unwrap().iter().all(|d| d.id != d1));
        s.release_claims("me").await.unwrap();
        assert_eq!(s.get_delivery(ws, &d1).await.unwrap().unwrap().claim, 1, "an owner's own claims are kept");
        assert!(s.release_claims("successor").await.unwrap() >= 1);
        let taken = s.claim_due(now, 1_000, &lease("successor", now)).await.unwrap();
        let taken = taken.into_iter().find(|d| d.id == d1).expect("released claims are due again");
        assert_eq!(taken.claim, 3, "claimed, released, claimed");
        let later = Timestamp::from_millis(now.millis() + 120_000);
        let expired = s.claim_due(later, 1_000, &lease("third", later)).await.unwrap();
        assert!(expired.iter().any(|d| d.id == d1), "an expired claim is due again");
        let gave_up = DeliveryUpdate { attempt: None, status: DeliveryStatus::Failed, next_attempt_at: None };
        assert!(!s.record_attempt(&d1, taken.claim, &gave_up).await.unwrap(), "the superseded claim is refused");

        // The log: newest first, filtered.
        let all = s.list_deliveries(ws, &DeliveryFilter::default(), PageRequest::default()).await.unwrap();
        assert_eq!(all.items.iter().map(|d| d.id.clone()).collect::<Vec<_>>(), vec![d1.clone(), d0.id.clone()]);
        let ok = DeliveryFilter { hook_id: None, status: Some(DeliveryStatus::Succeeded) };
        assert_eq!(s.list_deliveries(ws, &ok, PageRequest::default()).await.unwrap().items[0].id, d0.id);
        let by_hook = DeliveryFilter { hook_id: Some(ds[1].hook_id.clone()), status: None };
        let by_hook = s.list_deliveries(ws, &by_hook, PageRequest::default()).await.unwrap();
        assert_eq!((by_hook.total, by_hook.items[0].id.clone()), (1, d1.clone()));
        assert_eq!(
            s.list_deliveries(&WorkspaceId::generate(), &DeliveryFilter::default(), PageRequest::default())
                .await
                .unwrap()
                .total,
            0
        );

        // Redelivery: pending, due now, a new round; earlier attempts kept; claims superseded.
        let re = s.redeliver(ws, &d0.id, later).await.unwrap().expect("exists");
        assert_eq!(
            (re.status, re.next_attempt_at, re.round_start, re.attempts.len()),
            (DeliveryStatus::Pending, Some(later), 2, 2)
        );
        assert_eq!(re.attempts_in_round(), 0);
        assert!(
            s.redeliver(&WorkspaceId::generate(), &d0.id, later).await.unwrap().is_none(),
            "never across workspaces"
        );
        let claimed = s.claim_one(&d0.id, later, &lease("me", later)).await.unwrap().expect("due now");
        assert!(claimed.claim > re.claim);
    }

    /// Sixteen dispatchers claim at once: each due delivery goes to exactly one of them.
    pub async fn delivery_claim_race(p: &Stores, unique: &str) {
        let now = Timestamp::now();
        let (event, ds) = pending(p, &format!("dlv-race-{unique}"), 5, now.millis() - 10).await;
        p.deliveries.create_deliveries(&event.id, &ds).await.unwrap();
        let mut tasks = Vec::new();
        for i in 0..16 {
            let store = p.deliveries.clone();
            tasks.push(tokio::spawn(async move { store.claim_due(now, 2, &lease(&format!("d{i}"), now)).await }));
        }
        let mut seen = Vec::new();
        for t in tasks {
            seen.extend(
                t.await.unwrap().unwrap().into_iter().map(|d| d.id).filter(|id| ds.iter().any(|d| &d.id == id)),
            );
        }
        seen.sort();
        let mut expected: Vec<DeliveryId> = ds.iter().map(|d| d.id.clone()).collect();
        expected.sort();
        assert_eq!(seen, expected, "every delivery claimed exactly once");
    }
}

pub use mind_suites::{MindStores, mind_races, mind_sources, minds};

/// Minds (CONTRACT §8): records, usage, the workspace's `mindsLimit`, revisions, and the public
/// address rule. Their own set of ports, so that adapter families add them independently.
mod mind_suites {
    use super::workspace;
    use crate::ports::{CountLimit, Finish, Guarded, InsertLimits, SourceFilter, SourceStore};
    use crate::ports::{MindInsert, MindStore, MindUsage, MindWrite};
    use crate::ports::{StoreError, WorkspaceStore};
    use lore_domain::Timestamp;
    use lore_domain::audio::AudioFormat;
    use lore_domain::document::DocumentKind;
    use lore_domain::id::SourceId;
    use lore_domain::id::{MindId, WorkspaceId};
    use lore_domain::mind::MindSourceCounts;
    use lore_domain::mind::{Field, Mind, MindName, MindPatch, NewMind, RawMind, Temperature, VoiceId, WebUrl};
    use lore_domain::pagination::PageRequest;
    use lore_domain::slug::Slug;
    use lore_domain::source::{
        KnowledgeSource, Progress, SourceOwner, SourceSpec, SourceStatus, SourceType, StoredAudio, StoredFile,
    };
    use lore_domain::workspace::Workspace;
    use std::collections::BTreeMap;
    use std::sync::Arc;

    /// The ports the Mind suites need.
    #[derive(Clone)]
    pub struct MindStores {
        pub workspaces: Arc<dyn WorkspaceStore>,
        pub minds: Arc<dyn MindStore>,
        pub sources: Arc<dyn SourceStore>,
    }

    async fn new_workspace(p: &MindStores, name: &str, minds_limit: u32) -> Workspace {
        let mut ws = workspace(name);
        ws.limits.minds_limit = minds_limit;
        p.workspaces.insert_workspace(&ws).await.unwrap();
        ws
    }

    fn mind(ws: &WorkspaceId, slug: &str, created_ms: i64) -> Mind {
        let raw = RawMind { name: Field::Value(format!("Mind {slug}")), ..Default::default() };
        let mut m = Mind::create(
            ws.clone(),
            NewMind::parse(&raw).unwrap(),
            Slug::parse("slug", slug).unwrap(),
            Timestamp::from_millis(created_ms),
        );
        m.id = MindId::generate();
        m
    }

    /// A Mind with every setting away from its default, to prove they all round-trip.
    fn rich(ws: &WorkspaceId, slug: &str, created_ms: i64) -> Mind {
        let mut m = mind(ws, slug, created_ms);
        let map = |pairs: &[(&str, &str)]| -> BTreeMap<String, Option<String>> {
            pairs.iter().map(|(k, v)| (k.to_string(), Some(v.to_string()))).collect()
        };
        let raw = RawMind {
            headline: Field::Value("Line \"quoted\" & <b>".into()),
            bio: Field::Value("Bio\n\nwith paragraphs — ünïcödé".into()),
            avatar_url: Field::Value("https://cdn.example.com/a.png".into()),
            system_prompt: Field::Value("Be kind.".into()),
            welcome_message: Field::Value("Hello!".into()),
            suggested_questions: Field::Value(vec!["One?".into(), "Two?".into()]),
            expertise_areas: Field::Value(vec!["Rust".into()]),
            show_sources: Field::Value(false),
            collect_email_before_chat: Field::Value(true),
            temperature: Field::Value(1.3),
            theme: Field::Value(map(&[
                ("primaryColor", "#112233"),
                ("backgroundColor", "#fff"),
                ("fontFamily", "Inter, sans-serif"),
                ("mode", "dark"),
            ])),
            social_links: Field::Value(map(&[("twitter", "https://x.com/m"), ("website", "https://m.example")])),
            voice_enabled: Field::Value(true),
            voice_id: Field::Value("shimmer".into()),
            voice_speed: Field::Value(0.25),
            ..Default::default()
        };
        MindPatch::parse(&raw).unwrap().apply(&mut m);
        assert_eq!(m.voice_id, VoiceId::Shimmer);
        m
    }

    /// A slug of its own for each run: public addresses are shared by every workspace of a
    /// backend, and several runs may share one backend.
    fn public_slug(word: &str, unique: &str) -> String {
        let suffix: String = unique.to_ascii_lowercase().chars().filter(|c| c.is_ascii_alphanumeric()).collect();
        if suffix.is_empty() { word.to_owned() } else { format!("{word}-{suffix}") }
    }

    /// The next revision of `m`, as a use case writes it.
    fn next(m: &Mind) -> Mind {
        let mut n = m.clone();
        n.revision += 1;
        n.updated_at = Timestamp::from_millis(m.updated_at.millis() + 1);
        n
    }

    pub async fn minds(p: &MindStores, unique: &str) {
        let ws = new_workspace(p, &format!("minds-{unique}"), 10).await;
        let other = new_workspace(p, &format!("minds-other-{unique}"), 10).await;
        let s = &p.minds;
        let base = 1_700_000_000_000;
        let alpha = public_slug("alpha", unique);
        let alpha = alpha.as_str();

        let a = rich(&ws.id, alpha, base);
        let b = mind(&ws.id, "beta", base + 1);
        let c = mind(&ws.id, "gamma", base + 1); // same millisecond as b: the id breaks the tie
        for m in [&a, &b, &c] {
            assert_eq!(s.insert_mind(m, 10).await.unwrap(), MindInsert::Inserted);
        }
        assert_eq!(s.get_mind(&ws.id, &a.id).await.unwrap().as_ref(), Some(&a), "every setting round-trips");
        assert_eq!(s.get_mind(&other.id, &a.id).await.unwrap(), None, "never across workspaces");
        assert_eq!(s.get_mind(&ws.id, &MindId::generate()).await.unwrap(), None);
        assert_eq!(s.insert_mind(&mind(&ws.id, alpha, base), 10).await, Err(StoreError::Conflict("slug")));
        let theirs = mind(&other.id, alpha, base);
        assert_eq!(s.insert_mind(&theirs, 10).await.unwrap(), MindInsert::Inserted, "slugs are per workspace");

        let page = s.list_minds(&ws.id, PageRequest::new(1, 2)).await.unwrap();
        assert_eq!((page.total, page.items.clone()), (3, vec![c.clone(), b.clone()]), "newest first, id desc on ties");
        assert_eq!(s.list_minds(&ws.id, PageRequest::new(2, 2)).await.unwrap().items, vec![a.clone()]);
        let past = s.list_minds(&ws.id, PageRequest::new(9, 2)).await.unwrap();
        assert!(past.items.is_empty() && past.total == 3, "past the end: empty with the true total");
        assert_eq!(s.mind_usage(&ws.id).await.unwrap(), MindUsage { minds: 3, sources: 0 });
        assert_eq!(s.mind_usage(&other.id).await.unwrap(), MindUsage { minds: 1, sources: 0 });

        // Updates: based on the stored revision, or refused as stale.
        let mut renamed = next(&b);
        renamed.name = MindName::parse("Renamed").unwrap();
        renamed.avatar_url = Some(WebUrl::parse("avatarUrl", "https://cdn.example.com/b.png").unwrap());
        assert_eq!(s.update_mind(&renamed).await.unwrap(), MindWrite::Done);
        assert_eq!(s.get_mind(&ws.id, &b.id).await.unwrap().as_ref(), Some(&renamed));
        assert_eq!(s.update_mind(&next(&b)).await.unwrap(), MindWrite::Stale, "a write based on an older read");
        let mut foreign = next(&renamed);
        foreign.workspace_id = other.id.clone();
        assert_eq!(s.update_mind(&foreign).await.unwrap(), MindWrite::NotFound, "an update names its workspace");
        let mut onto = next(&renamed);
        onto.slug = Slug::parse("slug", alpha).unwrap();
        assert_eq!(s.update_mind(&onto).await, Err(StoreError::Conflict("slug")), "update onto a taken slug");
        assert_eq!(
            s.get_mind(&ws.id, &b.id).await.unwrap().as_ref(),
            Some(&renamed),
            "a refused write changes nothing"
        );

        // Publication: the published slug is a public address, unique across workspaces.
        assert_eq!(s.find_published_mind(alpha).await.unwrap(), None, "unpublished Minds have no public page");
        let mut published = next(&a);
        published.is_published = true;
        assert_eq!(s.update_mind(&published).await.unwrap(), MindWrite::Done);
        assert_eq!(s.find_published_mind(alpha).await.unwrap().as_ref(), Some(&published));
        let mut rival = next(&theirs);
        rival.is_published = true;
        assert_eq!(s.update_mind(&rival).await, Err(StoreError::Conflict("public_slug")), "one Mind per address");
        let mut unpublished = next(&published);
        unpublished.is_published = false;
        assert_eq!(s.update_mind(&unpublished).await.unwrap(), MindWrite::Done);
        assert_eq!(s.find_published_mind(alpha).await.unwrap(), None);
        assert_eq!(s.update_mind(&rival).await.unwrap(), MindWrite::Done, "the address is free again");
        assert_eq!(s.find_published_mind(alpha).await.unwrap().map(|m| m.id), Some(theirs.id.clone()));
        let mut clash = next(&unpublished);
        clash.is_published = true;
        assert_eq!(s.update_mind(&clash).await, Err(StoreError::Conflict("public_slug")));

        // Deletes name their workspace; the slug is free again afterwards.
        assert_eq!(s.delete_mind(&other.id, &a.id).await.unwrap(), None, "a delete names its workspace");
        assert!(s.delete_mind(&ws.id, &a.id).await.unwrap().is_some());
        assert_eq!(s.delete_mind(&ws.id, &a.id).await.unwrap(), None);
        assert_eq!(s.get_mind(&ws.id, &a.id).await.unwrap(), None);
        assert_eq!(s.mind_usage(&ws.id).await.unwrap(), MindUsage { minds: 2, sources: 0 }, "usage follows deletes");
        assert_eq!(s.list_minds(&ws.id, PageRequest::default()).await.unwrap().total, 2);
        assert_eq!(s.insert_mind(&mind(&ws.id, alpha, base + 5), 10).await.unwrap(), MindInsert::Inserted);

        // The workspace's limit: counted at insert, also when it was lowered below the count.
        assert_eq!(s.insert_mind(&mind(&ws.id, "delta", base), 3).await.unwrap(), MindInsert::LimitReached { used: 3 });
        assert_eq!(s.insert_mind(&mind(&ws.id, "delta", base), 1).await.unwrap(), MindInsert::LimitReached { used: 3 });
        assert_eq!(s.insert_mind(&mind(&ws.id, "delta", base), 4).await.unwrap(), MindInsert::Inserted);
        assert_eq!(s.mind_usage(&ws.id).await.unwrap().minds, 4);
    }

    /// Concurrent writers: at the `mindsLimit` exactly one create wins; of creates with one
    /// explicit slug exactly one wins; of updates based on one revision exactly one lands; of
    /// two workspaces publishing one slug exactly one gets the address.
    pub async fn mind_races(p: &MindStores, unique: &str) {
        let base = 1_700_000_000_000;
        let limited = new_workspace(p, &format!("minds-limit-race-{unique}"), 2).await;
        assert_eq!(p.minds.insert_mind(&mind(&limited.id, "first", base), 2).await.unwrap(), MindInsert::Inserted);
        let mut tasks = Vec::new();
        for i in 0..8 {
            let store = p.minds.clone();
            let m = mind(&limited.id, &format!("contender-{i}"), base + 1 + i);
            tasks.push(tokio::spawn(async move { store.insert_mind(&m, 2).await }));
        }
        let (mut won, mut refused) = (0, 0);
        for t in tasks {
            match t.await.unwrap().unwrap() {
                MindInsert::Inserted => won += 1,
                MindInsert::LimitReached { used } => {
                    assert_eq!(used, 2, "refused at the limit");
                    refused += 1;
                }
            }
        }
        assert_eq!((won, refused), (1, 7), "exactly one create at the limit wins");
        assert_eq!(p.minds.mind_usage(&limited.id).await.unwrap().minds, 2, "never over the limit");

        let ws = new_workspace(p, &format!("minds-slug-race-{unique}"), 100).await;
        let mut tasks = Vec::new();
        for i in 0..8 {
            let store = p.minds.clone();
            let m = mind(&ws.id, "contested", base + i);
            tasks.push(tokio::spawn(async move { store.insert_mind(&m, 100).await }));
        }
        let mut won = 0;
        for t in tasks {
            match t.await.unwrap() {
                Ok(MindInsert::Inserted) => won += 1,
                Err(StoreError::Conflict("slug")) => {}
                other => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!(won, 1, "exactly one create of a contested slug wins");

        let target = mind(&ws.id, "edited", base);
        p.minds.insert_mind(&target, 100).await.unwrap();
        let mut tasks = Vec::new();
        for i in 0..8 {
            let store = p.minds.clone();
            let mut m = next(&target);
            m.temperature = Temperature::parse(f64::from(i) / 4.0).unwrap();
            tasks.push(tokio::spawn(async move { store.update_mind(&m).await.unwrap() }));
        }
        let mut done = 0;
        for t in tasks {
            match t.await.unwrap() {
                MindWrite::Done => done += 1,
                MindWrite::Stale => {}
                MindWrite::NotFound => panic!("the Mind exists"),
            }
        }
        assert_eq!(done, 1, "exactly one update of one revision lands");
        assert_eq!(p.minds.get_mind(&ws.id, &target.id).await.unwrap().unwrap().revision, 1);

        let slug = public_slug("famous", unique);
        let mut contenders = Vec::new();
        for i in 0..4 {
            let owner = new_workspace(p, &format!("minds-publish-race-{i}-{unique}"), 10).await;
            let m = mind(&owner.id, &slug, base);
            p.minds.insert_mind(&m, 10).await.unwrap();
            contenders.push(m);
        }
        let mut tasks = Vec::new();
        for m in contenders {
            let store = p.minds.clone();
            let mut m = next(&m);
            m.is_published = true;
            tasks.push(tokio::spawn(async move { store.update_mind(&m).await }));
        }
        let mut won = 0;
        for t in tasks {
            match t.await.unwrap() {
                Ok(MindWrite::Done) => won += 1,
                Err(StoreError::Conflict("public_slug")) => {}
                other => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!(won, 1, "exactly one Mind gets a contested public address");
    }

    fn mind_source(m: &Mind, spec: SourceSpec, created_ms: i64) -> KnowledgeSource {
        KnowledgeSource {
            id: SourceId::generate(),
            workspace_id: m.workspace_id.clone(),
            owner: SourceOwner::Mind(m.id.clone()),
            name: "s".into(),
            status: SourceStatus::Pending,
            size_bytes: 10,
            spec,
            created_at: Timestamp::from_millis(created_ms),
            updated_at: Timestamp::from_millis(created_ms),
            processed_at: None,
            chunk_count: 0,
            error: None,
            content_hash: None,
            progress: None,
            generation: 0,
        }
    }

    fn text(m: &Mind, created_ms: i64) -> KnowledgeSource {
        mind_source(m, SourceSpec::Text { content: "0123456789".into() }, created_ms)
    }

    async fn counts(p: &MindStores, m: &Mind) -> MindSourceCounts {
        p.minds.get_mind(&m.workspace_id, &m.id).await.unwrap().expect("the Mind").sources
    }

    fn lease() -> crate::ports::Lease {
        crate::ports::Lease {
            owner: "conformance".into(),
            until: Timestamp::from_millis(Timestamp::now().millis() + 60_000),
        }
    }

    /// Mind knowledge sources (CONTRACT §9): the workspace's `sourcesLimit` and the Mind's
    /// `sourceLimit` checked at insert, the Mind's counts by status kept exact through every
    /// transition (including `transcribing`), podcast and document records round-tripping, and
    /// a Mind's delete taking its sources with it.
    pub async fn mind_sources(p: &MindStores, unique: &str) {
        let ws = new_workspace(p, &format!("mind-sources-{unique}"), 10).await;
        let (m1, m2) = (mind(&ws.id, "one", 1), mind(&ws.id, "two", 2));
        for m in [&m1, &m2] {
            assert_eq!(p.minds.insert_mind(m, 10).await.unwrap(), MindInsert::Inserted);
        }
        let s = &p.sources;
        let limits = InsertLimits { storage_quota: u64::MAX, workspace_sources: 3, mind_sources: 2 };
        let doc = mind_source(
            &m1,
            SourceSpec::File(StoredFile {
                file_name: "a.pdf".into(),
                mime_type: "application/pdf".into(),
                kind: DocumentKind::Pdf,
                blob_key: format!("{}/{}/upl_1/a.pdf", ws.id, m1.id),
                file_url: "https://cdn.example/a.pdf".into(),
                size_bytes: 10,
            }),
            10,
        );
        let a = text(&m1, 11);
        let podcast = mind_source(
            &m2,
            SourceSpec::Podcast(StoredAudio {
                file_name: "talk.mp3".into(),
                mime_type: "audio/mpeg".into(),
                format: AudioFormat::Mp3,
                blob_key: format!("{}/{}/upl_2/talk.mp3", ws.id, m2.id),
                file_url: "https://cdn.example/talk.mp3".into(),
                size_bytes: 10,
            }),
            12,
        );
        assert_eq!(s.insert_source(&doc, &limits).await.unwrap(), Guarded::Done(()));
        assert_eq!(s.insert_source(&a, &limits).await.unwrap(), Guarded::Done(()));
        assert_eq!(
            s.insert_source(&text(&m1, 13), &limits).await.unwrap(),
            Guarded::LimitReached(CountLimit::Mind { used: 2, limit: 2 }),
            "the Mind's sourceLimit"
        );
        assert_eq!(s.insert_source(&podcast, &limits).await.unwrap(), Guarded::Done(()));
        assert_eq!(
            s.insert_source(&text(&m2, 14), &limits).await.unwrap(),
            Guarded::LimitReached(CountLimit::Workspace { used: 3, limit: 3 }),
            "the workspace's sourcesLimit"
        );
        let mut orphan = text(&m1, 15);
        orphan.owner = SourceOwner::Mind(MindId::generate());
        assert_eq!(s.insert_source(&orphan, &limits).await.unwrap(), Guarded::NotFound, "unknown Mind");
        assert_eq!(s.get_source(&ws.id, &podcast.id).await.unwrap().as_ref(), Some(&podcast), "podcast round trip");
        assert_eq!(s.get_source(&ws.id, &doc.id).await.unwrap().as_ref(), Some(&doc), "document round trip");
        assert_eq!(counts(p, &m1).await, MindSourceCounts { pending: 2, ..Default::default() });
        assert_eq!(p.minds.mind_usage(&ws.id).await.unwrap(), MindUsage { minds: 2, sources: 3 });
        let m1_owner = SourceOwner::Mind(m1.id.clone());
        let page = s.list_sources(&ws.id, &m1_owner, SourceFilter::default(), PageRequest::default()).await.unwrap();
        assert_eq!(page.items.iter().map(|s| s.id.clone()).collect::<Vec<_>>(), vec![a.id.clone(), doc.id.clone()]);

        // pending → processing → transcribing → processing → ready, counted at every step.
        let Guarded::Done(run) = s.begin_processing(&ws.id, &a.id, &lease(), Timestamp::now()).await.unwrap() else {
            panic!("begin_processing")
        };
        assert_eq!(counts(p, &m1).await, MindSourceCounts { pending: 1, processing: 1, ..Default::default() });
        let transcribing = Progress::new("transcribing", 0, 1);
        assert!(s.set_running_status(&a.id, run.generation, SourceStatus::Transcribing, &transcribing).await.unwrap());
        let now = s.get_source(&ws.id, &a.id).await.unwrap().unwrap();
        assert_eq!((now.status, now.progress), (SourceStatus::Transcribing, Some(transcribing.clone())));
        assert_eq!(counts(p, &m1).await, MindSourceCounts { pending: 1, transcribing: 1, ..Default::default() });
        let only = SourceFilter { status: Some(SourceStatus::Transcribing), source_type: None };
        assert_eq!(s.list_sources(&ws.id, &m1_owner, only, PageRequest::default()).await.unwrap().total, 1);
        assert!(s.set_progress(&a.id, run.generation, &Progress::new("transcribing", 1, 2)).await.unwrap());
        assert!(
            !s.set_running_status(&a.id, run.generation + 1, SourceStatus::Processing, &transcribing).await.unwrap(),
            "another run's status change is refused"
        );
        let settled = [SourceStatus::Pending, SourceStatus::Ready, SourceStatus::Error];
        assert_eq!(
            s.delete_source(&ws.id, &a.id, &settled).await.unwrap(),
            Guarded::WrongStatus(SourceStatus::Transcribing),
            "not deleted while transcribing"
        );
        assert_eq!(
            s.begin_processing(&ws.id, &a.id, &lease(), Timestamp::now()).await.unwrap(),
            Guarded::WrongStatus(SourceStatus::Transcribing),
            "not restarted while transcribing"
        );
        let stale = s.stale_runs(Timestamp::now(), Some("someone-else")).await.unwrap();
        assert!(stale.iter().any(|r| r.source_id == a.id), "a transcribing run can be taken over");
        let chunking = Progress::new("chunking", 0, 1);
        assert!(s.set_running_status(&a.id, run.generation, SourceStatus::Processing, &chunking).await.unwrap());
        let ready = Finish::Ready {
            chunk_count: 4,
            size_bytes: None,
            content_hash: "h".into(),
            pages_crawled: None,
            refreshed_at: None,
        };
        let done = s.finish_processing(&a.id, run.generation, &ready, Timestamp::now()).await.unwrap().unwrap();
        assert_eq!((done.status, done.chunk_count), (SourceStatus::Ready, 4));
        assert_eq!(counts(p, &m1).await, MindSourceCounts { pending: 1, ready: 1, ..Default::default() });

        // A run that ends from `transcribing` (the transcriber failed) is counted as failed.
        let Guarded::Done(run) = s.begin_processing(&ws.id, &doc.id, &lease(), Timestamp::now()).await.unwrap() else {
            panic!("begin_processing")
        };
        assert!(
            s.set_running_status(&doc.id, run.generation, SourceStatus::Transcribing, &transcribing).await.unwrap()
        );
        let failed = Finish::Error { message: "no transcriber".into() };
        let ended = s.finish_processing(&doc.id, run.generation, &failed, Timestamp::now()).await.unwrap().unwrap();
        assert_eq!((ended.status, ended.error.as_deref()), (SourceStatus::Error, Some("no transcriber")));
        assert_eq!(counts(p, &m1).await, MindSourceCounts { ready: 1, failed: 1, ..Default::default() });

        let stats = s.source_stats(&ws.id, &m1_owner).await.unwrap();
        assert_eq!((stats.total_sources, stats.total_chunks, stats.total_size_bytes), (2, 4, 20));
        assert_eq!(stats.by_type.get(SourceType::File.as_str()), Some(&1));
        assert_eq!(
            s.file_blob_keys(&ws.id, &m1_owner).await.unwrap(),
            vec![format!("{}/{}/upl_1/a.pdf", ws.id, m1.id)]
        );

        // Deleting frees the Mind's and the workspace's counts.
        assert!(matches!(s.delete_source(&ws.id, &doc.id, &settled).await.unwrap(), Guarded::Done(_)));
        assert_eq!(counts(p, &m1).await, MindSourceCounts { ready: 1, ..Default::default() });
        assert_eq!(p.minds.mind_usage(&ws.id).await.unwrap().sources, 2);
        assert_eq!(s.insert_source(&text(&m1, 16), &limits).await.unwrap(), Guarded::Done(()), "freed");

        // A Mind's delete takes its sources, reports their files, and frees the workspace count.
        let removal = p.minds.delete_mind(&ws.id, &m2.id).await.unwrap().expect("deleted");
        assert!(removal.file_keys.contains(&format!("{}/{}/upl_2/talk.mp3", ws.id, m2.id)), "{removal:?}");
        assert_eq!(s.get_source(&ws.id, &podcast.id).await.unwrap(), None, "its sources are gone");
        assert_eq!(p.minds.mind_usage(&ws.id).await.unwrap(), MindUsage { minds: 1, sources: 2 });
        let m2_owner = SourceOwner::Mind(m2.id.clone());
        assert_eq!(
            s.list_sources(&ws.id, &m2_owner, SourceFilter::default(), PageRequest::default()).await.unwrap().total,
            0
        );
        assert_eq!(
            s.insert_source(&text(&m2, 17), &limits).await.unwrap(),
            Guarded::NotFound,
            "no sources for a deleted Mind"
        );

        // Concurrent inserts at the Mind's limit: exactly as many win as the limit leaves room for.
        let racing = mind(&ws.id, "race", 3);
        p.minds.insert_mind(&racing, 10).await.unwrap();
        let roomy = InsertLimits { storage_quota: u64::MAX, workspace_sources: 1_000, mind_sources: 3 };
        let mut tasks = Vec::new();
        for i in 0..8 {
            let (store, src) = (p.sources.clone(), text(&racing, 100 + i));
            tasks.push(tokio::spawn(async move { store.insert_source(&src, &roomy).await }));
        }
        let mut won = 0;
        for t in tasks {
            match t.await.unwrap().unwrap() {
                Guarded::Done(()) => won += 1,
                Guarded::LimitReached(CountLimit::Mind { limit: 3, .. }) => {}
                other => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!(won, 3, "never over the Mind's sourceLimit");
        assert_eq!(counts(p, &racing).await.total(), 3);
    }
}
