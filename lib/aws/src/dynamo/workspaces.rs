//! Workspaces and API keys on the table, and the guard items that keep names unique.

use super::audit::audit_put;
use super::keys::{COUNTERS_SK, WS_SK, ws_pk};
use super::{
    DynamoStore, Expr, GSI1, GSI2, Item, MAX_ATTEMPTS, TxFailure, TxWrite, backoff, gave_up, get_i, get_s, key,
    malformed, n, req_s, s,
};
use async_trait::async_trait;
use lore_app::ports::{KeyStore, StoreError, StoreResult, WorkspaceStore};
use lore_domain::Timestamp;
use lore_domain::api_key::{ApiKey, KeyHash, KeyName};
use lore_domain::audit::AuditEntry;
use lore_domain::id::{ApiKeyId, WorkspaceId};
use lore_domain::scope::ScopeSet;
use lore_domain::workspace::{Workspace, WorkspaceLimits, WorkspaceName};

// ---- keys of the items (infra/dynamodb.md) ---------------------------------------------------

fn ws_name_pk(name: &str) -> String {
    format!("WSNAME#{name}")
}
const WS_NAME_SK: &str = "WSNAME";
const WORKSPACES: &str = "WORKSPACES";

pub(super) fn key_pk(hash: &str) -> String {
    format!("KEY#{hash}")
}
pub(super) const KEY_SK: &str = "KEY";
fn key_id_pk(id: &ApiKeyId) -> String {
    format!("KEYID#{id}")
}
const KEY_ID_SK: &str = "KEYID";
fn keys_of(ws: &WorkspaceId) -> String {
    format!("KEYS#{ws}")
}
const ALL_KEYS: &str = "KEYS";

// ---- items -----------------------------------------------------------------------------------

fn workspace_item(w: &Workspace) -> Item {
    let mut item = key(ws_pk(&w.id), WS_SK);
    let l = w.limits;
    item.extend([
        ("id".into(), s(w.id.as_str())),
        ("name".into(), s(w.name.as_str())),
        ("storageQuotaBytes".into(), n(l.storage_quota_bytes)),
        ("mindsLimit".into(), n(l.minds_limit)),
        ("sourcesLimit".into(), n(l.sources_limit)),
        ("mindSourceLimit".into(), n(l.mind_source_limit)),
        ("rateLimitPerMinute".into(), n(l.rate_limit_per_minute)),
        ("createdAt".into(), n(w.created_at.millis())),
        ("gsi1pk".into(), s(WORKSPACES)),
        ("gsi1sk".into(), s(w.id.as_str())),
    ]);
    item
}

fn workspace_from(item: &Item) -> StoreResult<Workspace> {
    let num = |k: &str| get_i(item, k).ok_or_else(|| malformed(k));
    let small = |k: &str| num(k).map(|v| v.clamp(0, i64::from(u32::MAX)) as u32);
    Ok(Workspace {
        id: WorkspaceId::parse(req_s(item, "id")?).ok_or_else(|| malformed("workspace id"))?,
        name: WorkspaceName::from_stored(req_s(item, "name")?.to_owned()),
        limits: WorkspaceLimits {
            storage_quota_bytes: num("storageQuotaBytes")?.max(0) as u64,
            minds_limit: small("mindsLimit")?,
            sources_limit: small("sourcesLimit")?,
            mind_source_limit: small("mindSourceLimit")?,
            rate_limit_per_minute: small("rateLimitPerMinute")?,
        },
        created_at: Timestamp::from_millis(num("createdAt")?),
    })
}

fn api_key_item(k: &ApiKey) -> Item {
    let mut item = key(key_pk(k.hash.as_str()), KEY_SK);
    item.extend([
        ("id".into(), s(k.id.as_str())),
        ("ws".into(), s(k.workspace_id.as_str())),
        ("name".into(), s(k.name.as_str())),
        ("scopes".into(), s(k.scopes.to_csv())),
        ("hash".into(), s(k.hash.as_str())),
        ("createdAt".into(), n(k.created_at.millis())),
        ("gsi1pk".into(), s(keys_of(&k.workspace_id))),
        ("gsi1sk".into(), s(k.id.as_str())),
        ("gsi2pk".into(), s(ALL_KEYS)),
        ("gsi2sk".into(), s(k.id.as_str())),
    ]);
    if let Some(at) = k.revoked_at {
        item.insert("revokedAt".into(), n(at.millis()));
    }
    item
}

pub(super) fn api_key_from(item: &Item) -> StoreResult<ApiKey> {
    Ok(ApiKey {
        id: ApiKeyId::parse(req_s(item, "id")?).ok_or_else(|| malformed("key id"))?,
        workspace_id: WorkspaceId::parse(req_s(item, "ws")?).ok_or_else(|| malformed("workspace id"))?,
        name: KeyName::from_stored(req_s(item, "name")?.to_owned()),
        scopes: ScopeSet::parse(req_s(item, "scopes")?).unwrap_or_default(),
        hash: KeyHash::from_stored(req_s(item, "hash")?.to_owned()),
        created_at: Timestamp::from_millis(get_i(item, "createdAt").ok_or_else(|| malformed("createdAt"))?),
        revoked_at: get_i(item, "revokedAt").map(Timestamp::from_millis),
    })
}

pub(super) fn guard(pk: String, sk: &str, attr: &str, owner: &str) -> Item {
    let mut item = key(pk, sk);
    item.insert(attr.into(), s(owner));
    item
}

pub(super) fn not_exists(e: &mut Expr) -> String {
    format!("attribute_not_exists({})", e.a("pk"))
}

pub(super) fn exists(e: &mut Expr) -> String {
    format!("attribute_exists({})", e.a("pk"))
}

/// Creates the item when absent, else checks nothing (for `Put`s that must not overwrite).
pub(super) fn put_new(item: Item) -> TxWrite {
    let mut expr = Expr::new();
    let cond = not_exists(&mut expr);
    TxWrite::Put { item, cond: Some(cond), expr }
}

/// Deletes a guard item when it is absent or still points at `owner`.
pub(super) fn delete_guard(pk: String, sk: &str, attr: &str, owner: &str) -> TxWrite {
    let mut expr = Expr::new();
    let cond = format!("{} OR {} = {}", not_exists(&mut expr), expr.a(attr), expr.v("owner", s(owner)));
    TxWrite::Delete { key: key(pk, sk), cond: Some(cond), expr }
}

fn limits_update(w: &Workspace, expr: &mut Expr) -> String {
    let l = w.limits;
    let sets = [
        ("storageQuotaBytes", n(l.storage_quota_bytes)),
        ("mindsLimit", n(l.minds_limit)),
        ("sourcesLimit", n(l.sources_limit)),
        ("mindSourceLimit", n(l.mind_source_limit)),
        ("rateLimitPerMinute", n(l.rate_limit_per_minute)),
        ("name", s(w.name.as_str())),
    ];
    let parts: Vec<String> = sets.into_iter().map(|(a, v)| format!("{} = {}", expr.a(a), expr.v(a, v))).collect();
    format!("SET {}", parts.join(", "))
}

impl DynamoStore {
    async fn workspace_item(&self, id: &WorkspaceId) -> StoreResult<Option<Item>> {
        self.get(&ws_pk(id), WS_SK).await
    }

    pub(crate) async fn counters(&self, ws: &WorkspaceId) -> StoreResult<Option<Item>> {
        self.get(&ws_pk(ws), COUNTERS_SK).await
    }
}

#[async_trait]
impl WorkspaceStore for DynamoStore {
    async fn insert_workspace(&self, ws: &Workspace) -> StoreResult<()> {
        for attempt in 0..MAX_ATTEMPTS {
            let mut counters = key(ws_pk(&ws.id), COUNTERS_SK);
            counters.extend([("chatbots".into(), n(0)), ("storageBytes".into(), n(0))]);
            let writes = vec![
                put_new(workspace_item(ws)),
                put_new(guard(ws_name_pk(ws.name.as_str()), WS_NAME_SK, "ws", ws.id.as_str())),
                put_new(counters),
            ];
            match self.transact(writes).await {
                Ok(()) => return Ok(()),
                Err(TxFailure::Condition(failed)) if failed.contains(&1) => return Err(StoreError::Conflict("name")),
                Err(TxFailure::Condition(_)) => {
                    return Err(StoreError::Unavailable(format!("workspace {} exists", ws.id)));
                }
                Err(TxFailure::Conflict) => backoff(attempt).await,
                Err(TxFailure::Store(e)) => return Err(e),
            }
        }
        Err(gave_up("insert_workspace"))
    }

    async fn get_workspace(&self, id: &WorkspaceId) -> StoreResult<Option<Workspace>> {
        self.workspace_item(id).await?.as_ref().map(workspace_from).transpose()
    }

    async fn find_workspace_by_name(&self, name: &str) -> StoreResult<Option<Workspace>> {
        let Some(g) = self.get(&ws_name_pk(name), WS_NAME_SK).await? else { return Ok(None) };
        let Some(id) = get_s(&g, "ws").and_then(WorkspaceId::parse) else { return Ok(None) };
        self.get_workspace(&id).await
    }

    async fn update_workspace(&self, ws: &Workspace) -> StoreResult<()> {
        for attempt in 0..MAX_ATTEMPTS {
            let Some(current) = self.workspace_item(&ws.id).await? else { return Ok(()) };
            let old_name = req_s(&current, "name")?.to_owned();
            let mut expr = Expr::new();
            let update = limits_update(ws, &mut expr);
            if old_name == ws.name.as_str() {
                let cond = exists(&mut expr);
                self.update_if(key(ws_pk(&ws.id), WS_SK), update, cond, expr).await?;
                return Ok(());
            }
            let cond = format!("{} = {}", expr.a("name"), expr.v("oldName", s(&old_name)));
            let writes = vec![
                TxWrite::Update { key: key(ws_pk(&ws.id), WS_SK), update, cond: Some(cond), expr },
                delete_guard(ws_name_pk(&old_name), WS_NAME_SK, "ws", ws.id.as_str()),
                put_new(guard(ws_name_pk(ws.name.as_str()), WS_NAME_SK, "ws", ws.id.as_str())),
            ];
            match self.transact(writes).await {
                Ok(()) => return Ok(()),
                Err(TxFailure::Condition(failed)) if failed.contains(&2) => return Err(StoreError::Conflict("name")),
                // Renamed or updated meanwhile: read again.
                Err(TxFailure::Condition(_) | TxFailure::Conflict) => backoff(attempt).await,
                Err(TxFailure::Store(e)) => return Err(e),
            }
        }
        Err(gave_up("update_workspace"))
    }

    async fn list_workspaces(&self) -> StoreResult<Vec<Workspace>> {
        let keys = self.query_index(GSI1, "gsi1pk", WORKSPACES, false, None, 0, None).await?;
        self.batch_get(keys).await?.iter().map(workspace_from).collect()
    }
}

#[async_trait]
impl KeyStore for DynamoStore {
    async fn insert_key_recorded(&self, k: &ApiKey, audit: Option<&AuditEntry>) -> StoreResult<()> {
        for attempt in 0..MAX_ATTEMPTS {
            let mut writes =
                vec![put_new(api_key_item(k)), put_new(guard(key_id_pk(&k.id), KEY_ID_SK, "hash", k.hash.as_str()))];
            writes.extend(audit.map(audit_put));
            match self.transact(writes).await {
                Ok(()) => return Ok(()),
                Err(TxFailure::Condition(_)) => {
                    return Err(StoreError::Unavailable(format!("key {} or its hash exists", k.id)));
                }
                Err(TxFailure::Conflict) => backoff(attempt).await,
                Err(TxFailure::Store(e)) => return Err(e),
            }
        }
        Err(gave_up("insert_key"))
    }

    async fn find_key(&self, hash: &KeyHash) -> StoreResult<Option<ApiKey>> {
        self.get(&key_pk(hash.as_str()), KEY_SK).await?.as_ref().map(api_key_from).transpose()
    }

    async fn list_keys(&self, workspace: Option<&WorkspaceId>) -> StoreResult<Vec<ApiKey>> {
        let keys = match workspace {
            Some(ws) => self.query_index(GSI1, "gsi1pk", &keys_of(ws), true, None, 0, None).await?,
            None => self.query_index(GSI2, "gsi2pk", ALL_KEYS, true, None, 0, None).await?,
        };
        self.batch_get(keys).await?.iter().map(api_key_from).collect()
    }

    async fn revoke_key_recorded(&self, id: &ApiKeyId, at: Timestamp, audit: Option<&AuditEntry>) -> StoreResult<bool> {
        let Some(pointer) = self.get(&key_id_pk(id), KEY_ID_SK).await? else { return Ok(false) };
        let hash = req_s(&pointer, "hash")?;
        let revoke = || {
            let mut expr = Expr::new();
            let update = format!("SET {} = {}", expr.a("revokedAt"), expr.v("at", n(at.millis())));
            let cond = format!("{} AND attribute_not_exists({})", exists(&mut expr), expr.a("revokedAt"));
            (update, cond, expr)
        };
        let Some(audit) = audit else {
            let (update, cond, expr) = revoke();
            return Ok(self.update_if(key(key_pk(hash), KEY_SK), update, cond, expr).await?.is_some());
        };
        // The revocation and its entry in one transaction: the entry only if the key was live.
        super::transact_retrying(self, "revoke_key", || {
            let (update, cond, expr) = revoke();
            Ok(vec![
                TxWrite::Update { key: key(key_pk(hash), KEY_SK), update, cond: Some(cond), expr },
                audit_put(audit),
            ])
        })
        .await
    }

    async fn delete_revoked_key(&self, id: &ApiKeyId) -> StoreResult<bool> {
        let Some(pointer) = self.get(&key_id_pk(id), KEY_ID_SK).await? else { return Ok(false) };
        let hash = req_s(&pointer, "hash")?;
        for attempt in 0..MAX_ATTEMPTS {
            let mut expr = Expr::new();
            let cond = format!("{} AND attribute_exists({})", exists(&mut expr), expr.a("revokedAt"));
            let writes = vec![
                TxWrite::Delete { key: key(key_pk(hash), KEY_SK), cond: Some(cond), expr },
                TxWrite::Delete { key: key(key_id_pk(id), KEY_ID_SK), cond: None, expr: Expr::new() },
            ];
            match self.transact(writes).await {
                Ok(()) => return Ok(true),
                Err(TxFailure::Condition(_)) => return Ok(false),
                Err(TxFailure::Conflict) => backoff(attempt).await,
                Err(TxFailure::Store(e)) => return Err(e),
            }
        }
        Err(gave_up("delete_revoked_key"))
    }
}
