//! Workspaces, their API keys and the per-key rate limiter.

use super::*;
use crate::ports::{RateBucket, RateDecision, StoreError};
use lore_domain::Timestamp;
use lore_domain::api_key::{ApiKey, ApiKeySecret, KeyName};
use lore_domain::id::{ApiKeyId, WorkspaceId};
use lore_domain::scope::ScopeSet;
use lore_domain::workspace::Workspace;

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
    let found = p.keys.find_key(&secret.hash()).await.unwrap().expect("found by hash");
    assert_eq!(found, k1, "the key round-trips, scopes included");
    assert_eq!(p.keys.find_key(&ApiKeySecret::generate().hash()).await.unwrap(), None);

    let listed = p.keys.list_keys(Some(&ws.id)).await.unwrap();
    assert_eq!(listed, vec![k2.clone(), k1.clone()], "one workspace's keys, newest first");

    let at = Timestamp::from_millis(1_800_000_000_000);
    assert!(p.keys.revoke_key(&k1.id, at).await.unwrap(), "revoke");
    assert!(!p.keys.revoke_key(&k1.id, at).await.unwrap(), "second revoke is a no-op");
    assert!(!p.keys.revoke_key(&ApiKeyId::generate(), at).await.unwrap(), "unknown key");
    let found = p.keys.find_key(&secret.hash()).await.unwrap().unwrap();
    assert_eq!(found.revoked_at, Some(at), "revoked keys stay findable, marked");

    assert!(!p.keys.delete_revoked_key(&k2.id).await.unwrap(), "a live key is not deleted");
    assert!(p.keys.find_key(&k2.hash).await.unwrap().is_some());
    assert!(p.keys.delete_revoked_key(&k1.id).await.unwrap(), "a revoked key is");
    assert_eq!(p.keys.find_key(&secret.hash()).await.unwrap(), None, "gone by hash");
    assert_eq!(p.keys.list_keys(Some(&ws.id)).await.unwrap(), vec![k2.clone()], "and from the list");
    assert!(!p.keys.delete_revoked_key(&k1.id).await.unwrap(), "once");
    assert!(!p.keys.revoke_key(&k1.id, at).await.unwrap(), "nor revoked again");
}

pub async fn rate_limiter(p: &Stores, _unique: &str) {
    let key = RateBucket::Key(ApiKeyId::generate());
    let now = Timestamp::now();
    for i in 0..4 {
        assert_eq!(p.rate_limiter.hit(&key, 4, now).await.unwrap(), RateDecision::Allowed, "request {i}");
    }
    match p.rate_limiter.hit(&key, 4, now).await.unwrap() {
        RateDecision::Limited { retry_after_secs } => assert!((1..=60).contains(&retry_after_secs)),
        RateDecision::Allowed => panic!("the 5th request of a 4/min budget passed"),
    }
    assert_eq!(
        p.rate_limiter.hit(&RateBucket::Key(ApiKeyId::generate()), 4, now).await.unwrap(),
        RateDecision::Allowed,
        "per key"
    );
    let ip = RateBucket::ChatAddress(std::net::Ipv4Addr::new(203, 0, 113, 7).into());
    assert_eq!(p.rate_limiter.hit(&ip, 4, now).await.unwrap(), RateDecision::Allowed, "per bucket");
}
