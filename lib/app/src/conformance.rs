//! Conformance suites for the ports: written once, run against every adapter family (embedded
//! and AWS), so both behave the same. Each suite panics with a message naming the broken rule.

use crate::Ports;
use crate::ports::{RateDecision, StoreError};
use lore_domain::Timestamp;
use lore_domain::api_key::{ApiKey, ApiKeySecret, KeyName};
use lore_domain::chatbot::{Chatbot, ChatbotName};
use lore_domain::id::{ApiKeyId, ChatbotId, WorkspaceId};
use lore_domain::pagination::PageRequest;
use lore_domain::scope::ScopeSet;
use lore_domain::slug::Slug;
use lore_domain::workspace::{Workspace, WorkspaceLimits, WorkspaceName};

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

/// Runs every suite. `unique` keeps names apart when several runs share one backend.
pub async fn run_all(ports: &Ports, unique: &str) {
    workspaces(ports, unique).await;
    keys(ports, unique).await;
    chatbots(ports, unique).await;
    chatbot_slug_race(ports, unique).await;
    rate_limiter(ports).await;
}

pub async fn workspaces(p: &Ports, unique: &str) {
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

pub async fn keys(p: &Ports, unique: &str) {
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

pub async fn chatbots(p: &Ports, unique: &str) {
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
pub async fn chatbot_slug_race(p: &Ports, unique: &str) {
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

pub async fn rate_limiter(p: &Ports) {
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
