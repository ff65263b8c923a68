//! The audit log (`AuditStore`): entries of one workspace only, newest first, filtered by action,
//! paginated with exact totals, stored as given (a CLI entry has no key), and gone once older
//! than 365 days (deleted by the sweep, or by the store's own expiry).

use crate::ports::{AuditStore, HookStore, KeyStore, WorkspaceStore};
use lore_domain::Timestamp;
use lore_domain::api_key::ApiKey;
use lore_domain::audit::{AuditAction, AuditDetails, AuditEntry};
use lore_domain::hook::{Hook, HookFilter, HookTarget, WebhookSecret};
use lore_domain::id::{ApiKeyId, WorkspaceId};
use lore_domain::pagination::PageRequest;
use lore_domain::scope::ScopeSet;
use std::sync::Arc;

const DAY_MS: i64 = 86_400_000;

fn entry(ws: &WorkspaceId, action: AuditAction, at_ms: i64, key: Option<&ApiKeyId>) -> AuditEntry {
    let mut e = AuditEntry::new(
        ws.clone(),
        key.cloned(),
        action,
        format!("cb_target{at_ms}"),
        AuditDetails::new().text("name", "Support").names("fields", ["name", "theme"]).flag("published", true),
    );
    e.at = Timestamp::from_millis(at_ms);
    e
}

/// The audit log and the stores whose writes take an entry into their own transaction.
#[derive(Clone)]
pub struct AuditStores {
    pub audit: Arc<dyn AuditStore>,
    pub workspaces: Arc<dyn WorkspaceStore>,
    pub keys: Arc<dyn KeyStore>,
    pub hooks: Arc<dyn HookStore>,
}

pub async fn audit_log(stores: &AuditStores, _unique: &str) {
    let store = &stores.audit;
    let (ws, other) = (WorkspaceId::generate(), WorkspaceId::generate());
    let key = ApiKeyId::generate();
    let now = Timestamp::now().millis();
    let oldest = entry(&ws, AuditAction::ChatbotCreated, now - 3_000, Some(&key));
    let middle = entry(&ws, AuditAction::KeyCreated, now - 2_000, None);
    let newest = entry(&ws, AuditAction::ChatbotCreated, now - 1_000, Some(&key));
    let theirs = entry(&other, AuditAction::ChatbotCreated, now - 500, Some(&key));
    let expired = entry(&ws, AuditAction::ChatbotDeleted, now - 400 * DAY_MS, Some(&key));
    for e in [&expired, &middle, &newest, &theirs, &oldest] {
        store.record_audit(e).await.unwrap();
    }

    store.expire_audit(AuditEntry::cutoff(Timestamp::from_millis(now))).await.unwrap();
    let all = store.list_audit(&ws, None, PageRequest::new(1, 10)).await.unwrap();
    assert_eq!(
        all.items,
        vec![newest.clone(), middle.clone(), oldest.clone()],
        "newest first, as stored, this workspace's only, none past 365 days"
    );
    assert_eq!(all.total, 3, "exact total");

    let created = store.list_audit(&ws, Some(AuditAction::ChatbotCreated), PageRequest::new(1, 10)).await.unwrap();
    assert_eq!((created.items, created.total), (vec![newest.clone(), oldest.clone()], 2), "filtered by action");
    let none = store.list_audit(&ws, Some(AuditAction::WebhookSubscribed), PageRequest::new(1, 10)).await.unwrap();
    assert_eq!((none.items.len(), none.total), (0, 0));

    let page2 = store.list_audit(&ws, None, PageRequest::new(2, 2)).await.unwrap();
    assert_eq!((page2.items, page2.total), (vec![oldest.clone()], 3), "the second page of two");
    let past = store.list_audit(&ws, None, PageRequest::new(5, 2)).await.unwrap();
    assert_eq!((past.items.len(), past.total), (0, 3), "a page past the end is empty");

    let theirs_listed = store.list_audit(&other, None, PageRequest::new(1, 10)).await.unwrap();
    assert_eq!(theirs_listed.items, vec![theirs], "the other workspace sees its own only");
}

/// A write that takes an entry stores it with the change, and only when the change is made: a
/// revocation of a revoked key, a deletion or rotation of a missing subscription and a
/// subscription over the limit write none. A re-subscription names the subscription found.
pub async fn audited_writes(stores: &AuditStores, unique: &str) {
    let workspace = super::workspace(&format!("audited-{unique}"));
    stores.workspaces.insert_workspace(&workspace).await.unwrap();
    let ws = workspace.id;
    let key = ApiKeyId::generate();
    let e = |action, target: &str| {
        AuditEntry::new(ws.clone(), Some(key.clone()), action, target, AuditDetails::new().text("name", "n"))
    };
    let listed = || async { stores.audit.list_audit(&ws, None, PageRequest::new(1, 100)).await.unwrap() };
    let actions =
        || async { listed().await.items.into_iter().rev().map(|e| (e.action, e.target_id)).collect::<Vec<_>>() };

    let (made, _) = ApiKey::issue(ws.clone(), None, ScopeSet::parse("all").unwrap());
    let id = made.id.as_str();
    stores.keys.insert_key_recorded(&made, Some(&e(AuditAction::KeyCreated, id))).await.unwrap();
    assert!(
        stores
            .keys
            .revoke_key_recorded(&made.id, Timestamp::now(), Some(&e(AuditAction::KeyRevoked, id)))
            .await
            .unwrap()
    );
    assert!(
        !stores
            .keys
            .revoke_key_recorded(&made.id, Timestamp::now(), Some(&e(AuditAction::KeyRevoked, id)))
            .await
            .unwrap()
    );
    assert_eq!(
        actions().await,
        vec![(AuditAction::KeyCreated, id.to_owned()), (AuditAction::KeyRevoked, id.to_owned())],
        "a key's creation and revocation, and no entry for the revocation that changed nothing"
    );

    let target = HookTarget::narrowed(HookFilter::parse(None).unwrap(), None, None, None).unwrap();
    let hook = Hook::new(ws.clone(), "https://hooks.example.com/a".into(), target.clone(), Timestamp::now());
    let again = Hook::new(ws.clone(), "https://hooks.example.com/a".into(), target.clone(), Timestamp::now());
    let other = Hook::new(ws.clone(), "https://hooks.example.com/b".into(), target, Timestamp::now());
    let h = hook.id.as_str();
    stores.hooks.subscribe_recorded(&hook, 10, Some(&e(AuditAction::WebhookSubscribed, h))).await.unwrap().unwrap();
    let found = stores
        .hooks
        .subscribe_recorded(&again, 10, Some(&e(AuditAction::WebhookSubscribed, again.id.as_str())))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.id, hook.id, "the same target is the same subscription");
    let over = e(AuditAction::WebhookSubscribed, other.id.as_str());
    let refused = stores.hooks.subscribe_recorded(&other, 1, Some(&over)).await.unwrap();
    assert_eq!(refused, None, "over the limit");
    let until = Timestamp::now();
    let rotated = e(AuditAction::WebhookSecretRotated, h);
    let secret = WebhookSecret::generate();
    assert!(
        stores.hooks.rotate_secret_recorded(&ws, &hook.id, &secret, until, Some(&rotated)).await.unwrap().is_some()
    );
    let missing = stores.hooks.rotate_secret_recorded(&ws, &other.id, &secret, until, Some(&rotated)).await.unwrap();
    assert!(missing.is_none(), "no such subscription");
    assert!(
        stores.hooks.delete_hook_recorded(&ws, &hook.id, Some(&e(AuditAction::WebhookUnsubscribed, h))).await.unwrap()
    );
    assert!(
        !stores.hooks.delete_hook_recorded(&ws, &hook.id, Some(&e(AuditAction::WebhookUnsubscribed, h))).await.unwrap()
    );
    let hooks: Vec<_> = actions().await.into_iter().skip(2).collect();
    assert_eq!(
        hooks,
        vec![
            (AuditAction::WebhookSubscribed, h.to_owned()),
            (AuditAction::WebhookSubscribed, h.to_owned()),
            (AuditAction::WebhookSecretRotated, h.to_owned()),
            (AuditAction::WebhookUnsubscribed, h.to_owned()),
        ],
        "one entry per change made, each naming the stored subscription"
    );
}
