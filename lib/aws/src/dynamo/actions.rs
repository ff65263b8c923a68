//! Actions on the table (`infra/dynamodb.md`, "Actions").
//!
//! Everything of one owner's actions is one partition, `ACTIONS#<owner>`: the owner's `COUNT`
//! item (how many actions), its actions (`ACTION#<id>`) and one `NAME#<name>` item per action,
//! which owns the name. The limit is the count's condition and the unique name the name item's
//! `attribute_not_exists`, both in the transaction that writes the action.

use super::document;
use super::{DynamoStore, Expr, Item, TxFailure, TxWrite, backoff, gave_up, get_i, get_s, key, malformed, n, req_s, s};
use async_trait::async_trait;
use lore_app::ports::{ActionStore, ActionWrite, StoreResult};
use lore_domain::Timestamp;
use lore_domain::action::Action;
use lore_domain::id::{ActionId, WorkspaceId};
use lore_domain::source::SourceOwner;
use lore_records::{ActionKeys, ActionRecord};

fn actions_pk(owner: &SourceOwner) -> String {
    format!("ACTIONS#{owner}")
}
const COUNT_SK: &str = "COUNT";
const ACTION_PREFIX: &str = "ACTION#";
fn action_sk(id: &ActionId) -> String {
    format!("{ACTION_PREFIX}{id}")
}
fn name_sk(name: &str) -> String {
    format!("NAME#{name}")
}

fn action_item(a: &Action) -> Item {
    let mut item = key(actions_pk(&a.owner), action_sk(&a.id));
    item.extend([
        ("id".into(), s(a.id.as_str())),
        ("ws".into(), s(a.workspace_id.as_str())),
        ("owner".into(), s(a.owner.as_str())),
        ("createdAt".into(), n(a.created_at.millis())),
        ("updatedAt".into(), n(a.updated_at.millis())),
    ]);
    item.extend(document::set_fields(&ActionRecord::of(a)));
    item
}

/// The item that owns `a`'s name in its owner's partition.
fn name_item(a: &Action) -> Item {
    let mut item = key(actions_pk(&a.owner), name_sk(a.spec.name.as_str()));
    item.extend([("id".into(), s(a.id.as_str())), ("ws".into(), s(a.workspace_id.as_str()))]);
    item
}

fn action_from(i: &Item) -> StoreResult<Action> {
    let keys = ActionKeys {
        id: ActionId::parse(req_s(i, "id")?).ok_or_else(|| malformed("action id"))?,
        workspace_id: WorkspaceId::parse(req_s(i, "ws")?).ok_or_else(|| malformed("workspace id"))?,
        owner: SourceOwner::parse(req_s(i, "owner")?).ok_or_else(|| malformed("action owner"))?,
        created_at: Timestamp::from_millis(get_i(i, "createdAt").unwrap_or(0)),
        updated_at: Timestamp::from_millis(get_i(i, "updatedAt").unwrap_or(0)),
    };
    let record: ActionRecord = document::read(i, "action")?;
    record.into_action(keys).map_err(|e| malformed(&e.to_string()))
}

fn in_workspace(i: &Item, ws: &WorkspaceId) -> bool {
    get_s(i, "ws") == Some(ws.as_str())
}

fn put_absent(item: Item) -> TxWrite {
    let mut expr = Expr::new();
    let cond = format!("attribute_not_exists({})", expr.a("pk"));
    TxWrite::Put { item, cond: Some(cond), expr }
}

/// The condition that the action item is still the one read: there, in `ws`, named `name`.
fn unchanged(expr: &mut Expr, ws: &WorkspaceId, name: &str) -> String {
    format!(
        "attribute_exists({}) AND {} = {} AND {} = {}",
        expr.a("pk"),
        expr.a("ws"),
        expr.v("wsid", s(ws.as_str())),
        expr.a("name"),
        expr.v("read_name", s(name)),
    )
}

impl DynamoStore {
    /// The stored action item of `id`, unless it is absent or of another workspace.
    async fn action_item_in(&self, ws: &WorkspaceId, owner: &SourceOwner, id: &ActionId) -> StoreResult<Option<Item>> {
        Ok(self.get(&actions_pk(owner), &action_sk(id)).await?.filter(|i| in_workspace(i, ws)))
    }
}

#[async_trait]
impl ActionStore for DynamoStore {
    async fn insert_action(&self, action: &Action, limit: u32) -> StoreResult<ActionWrite> {
        let pk = actions_pk(&action.owner);
        for attempt in 0..super::MAX_ATTEMPTS {
            let mut expr = Expr::new();
            let update = format!(
                "SET {actions} = if_not_exists({actions}, {zero}) + {one}, {ws} = {wsv}",
                actions = expr.a("actions"),
                zero = expr.v("zero", n(0)),
                one = expr.v("one", n(1)),
                ws = expr.a("ws"),
                wsv = expr.v("ws", s(action.workspace_id.as_str())),
            );
            let cond = format!("attribute_not_exists({0}) OR {0} < {1}", expr.a("actions"), expr.v("limit", n(limit)));
            let count = TxWrite::Update { key: key(pk.clone(), COUNT_SK), update, cond: Some(cond), expr };
            let writes = vec![count, put_absent(action_item(action)), put_absent(name_item(action))];
            match self.transact(writes).await {
                Ok(()) => return Ok(ActionWrite::Written),
                // The limit first, as the embedded store checks it first.
                Err(TxFailure::Condition(failed)) if failed.contains(&0) => return Ok(ActionWrite::LimitReached),
                Err(TxFailure::Condition(failed)) if failed.contains(&2) => return Ok(ActionWrite::NameTaken),
                // The id exists (never, for a generated one): retried, then given up.
                Err(TxFailure::Condition(_) | TxFailure::Conflict) => backoff(attempt).await,
                Err(TxFailure::Store(e)) => return Err(e),
            }
        }
        Err(gave_up("insert_action"))
    }

    async fn get_action(&self, ws: &WorkspaceId, owner: &SourceOwner, id: &ActionId) -> StoreResult<Option<Action>> {
        self.action_item_in(ws, owner, id).await?.as_ref().map(action_from).transpose()
    }

    async fn list_actions(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<Vec<Action>> {
        // At most the limit (20) actions an owner: one partition read, ordered here.
        let items = self.prefixed(&actions_pk(owner), ACTION_PREFIX, false).await?;
        let mut actions =
            items.iter().filter(|i| in_workspace(i, ws)).map(action_from).collect::<StoreResult<Vec<_>>>()?;
        actions.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(actions)
    }

    async fn update_action(&self, action: &Action) -> StoreResult<ActionWrite> {
        let a = action;
        let pk = actions_pk(&a.owner);
        for attempt in 0..super::MAX_ATTEMPTS {
            let Some(stored) = self.action_item_in(&a.workspace_id, &a.owner, &a.id).await? else {
                return Ok(ActionWrite::NotFound);
            };
            let old_name = req_s(&stored, "name")?.to_owned();
            let mut expr = Expr::new();
            let mut fields = document::fields(&ActionRecord::of(a));
            fields.push(("updatedAt".into(), Some(n(a.updated_at.millis()))));
            let update = expr.set_or_remove(fields);
            let cond = unchanged(&mut expr, &a.workspace_id, &old_name);
            let mut writes =
                vec![TxWrite::Update { key: key(pk.clone(), action_sk(&a.id)), update, cond: Some(cond), expr }];
            let renamed = old_name != a.spec.name.as_str();
            if renamed {
                writes.push(TxWrite::Delete {
                    key: key(pk.clone(), name_sk(&old_name)),
                    cond: None,
                    expr: Expr::new(),
                });
                writes.push(put_absent(name_item(a)));
            }
            match self.transact(writes).await {
                Ok(()) => return Ok(ActionWrite::Written),
                Err(TxFailure::Condition(failed)) if renamed && failed.contains(&2) && !failed.contains(&0) => {
                    return Ok(ActionWrite::NameTaken);
                }
                // Deleted or renamed since it was read: read again.
                Err(TxFailure::Condition(_)) => {}
                Err(TxFailure::Conflict) => backoff(attempt).await,
                Err(TxFailure::Store(e)) => return Err(e),
            }
        }
        Err(gave_up("update_action"))
    }

    async fn delete_action(&self, ws: &WorkspaceId, owner: &SourceOwner, id: &ActionId) -> StoreResult<bool> {
        let pk = actions_pk(owner);
        for attempt in 0..super::MAX_ATTEMPTS {
            let Some(stored) = self.action_item_in(ws, owner, id).await? else {
                return Ok(false);
            };
            let name = req_s(&stored, "name")?.to_owned();
            let mut expr = Expr::new();
            let cond = unchanged(&mut expr, ws, &name);
            let delete = TxWrite::Delete { key: key(pk.clone(), action_sk(id)), cond: Some(cond), expr };
            let free_name = TxWrite::Delete { key: key(pk.clone(), name_sk(&name)), cond: None, expr: Expr::new() };
            let mut expr = Expr::new();
            let update = format!("SET {0} = {0} - {1}", expr.a("actions"), expr.v("one", n(1)));
            let count = TxWrite::Update { key: key(pk.clone(), COUNT_SK), update, cond: None, expr };
            match self.transact(vec![delete, free_name, count]).await {
                Ok(()) => return Ok(true),
                // Deleted or renamed since it was read: read again.
                Err(TxFailure::Condition(_)) => {}
                Err(TxFailure::Conflict) => backoff(attempt).await,
                Err(TxFailure::Store(e)) => return Err(e),
            }
        }
        Err(gave_up("delete_action"))
    }

    async fn delete_owner_actions(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<()> {
        // The partition is the owner's alone (owner ids are unique across workspaces); every
        // item carries `ws`, and only the workspace's are deleted.
        let mut expr = Expr::new();
        let cond = format!("{} = {}", expr.a("pk"), expr.v("pk", s(actions_pk(owner))));
        let items = self.query_partition(&cond, &expr, false).await?;
        let keys: Vec<Item> = items.into_iter().filter(|i| in_workspace(i, ws)).collect();
        self.delete_keys(&keys, "delete actions").await
    }
}
