//! The workspace's audit log on the table (docs/api.md §22, "Audit log").
//!
//! One item per entry in its workspace's partition `AUDIT#<ws>`, sorted newest first by
//! `<at ms, zero-padded>#<id>`: a list is a query of that partition (no index), filtered by
//! `action` when asked. Each item carries the table's TTL attribute (`expiresAt`, epoch seconds)
//! at 365 days, so DynamoDB deletes it; until it does, a list leaves expired entries out.
//! [`audit_put`] is the write a store method adds to the `TransactWriteItems` of the change it
//! records.

use super::{
    DynamoStore, Expr, Item, TTL_ATTRIBUTE, TxWrite, get_i, get_s, key, malformed, n, newest_first_key, req_s,
};
use super::{s, unavailable};
use async_trait::async_trait;
use lore_app::ports::{AuditStore, StoreResult};
use lore_domain::Timestamp;
use lore_domain::audit::{AuditAction, AuditDetails, AuditEntry};
use lore_domain::id::{ApiKeyId, AuditId, WorkspaceId};
use lore_domain::pagination::{Page, PageRequest};

fn audit_pk(ws: &WorkspaceId) -> String {
    format!("AUDIT#{ws}")
}

fn audit_item(e: &AuditEntry) -> Item {
    let mut item = key(audit_pk(&e.workspace_id), newest_first_key(e.at.millis(), e.id.as_str()));
    item.extend([
        ("id".into(), s(e.id.as_str())),
        ("ws".into(), s(e.workspace_id.as_str())),
        ("at".into(), n(e.at.millis())),
        ("action".into(), s(e.action.as_str())),
        ("targetId".into(), s(e.target_id.as_str())),
        ("details".into(), s(e.details.to_json())),
        (TTL_ATTRIBUTE.into(), n(e.expires_at().millis() / 1000)),
    ]);
    if let Some(k) = &e.key_id {
        item.insert("keyId".into(), s(k.as_str()));
    }
    item
}

fn audit_from(item: &Item) -> StoreResult<AuditEntry> {
    let key_id = match get_s(item, "keyId") {
        Some(k) => Some(ApiKeyId::parse(k).ok_or_else(|| malformed("audit keyId"))?),
        None => None,
    };
    Ok(AuditEntry {
        id: AuditId::parse(req_s(item, "id")?).ok_or_else(|| malformed("audit id"))?,
        workspace_id: WorkspaceId::parse(req_s(item, "ws")?).ok_or_else(|| malformed("audit ws"))?,
        at: Timestamp::from_millis(get_i(item, "at").ok_or_else(|| malformed("audit at"))?),
        key_id,
        action: AuditAction::parse(req_s(item, "action")?).ok_or_else(|| malformed("audit action"))?,
        target_id: req_s(item, "targetId")?.to_owned(),
        details: AuditDetails::from_stored(get_s(item, "details").unwrap_or("{}")),
    })
}

/// The entry's item as one write of a transaction (the change's own `TransactWriteItems`).
pub(crate) fn audit_put(e: &AuditEntry) -> TxWrite {
    TxWrite::Put { item: audit_item(e), cond: None, expr: Expr::new() }
}

#[async_trait]
impl AuditStore for DynamoStore {
    async fn record_audit(&self, entry: &AuditEntry) -> StoreResult<()> {
        self.client
            .put_item()
            .table_name(self.table())
            .set_item(Some(audit_item(entry)))
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    /// Reads the partition's entries that match (newest first) to count them exactly and keep
    /// the page's: a year of one workspace's changes is small next to what its other lists read.
    async fn list_audit(
        &self,
        ws: &WorkspaceId,
        action: Option<AuditAction>,
        page: PageRequest,
    ) -> StoreResult<Page<AuditEntry>> {
        let mut expr = Expr::new();
        let cond = format!("{} = {}", expr.a("pk"), expr.v("pk", s(audit_pk(ws))));
        let mut filter = format!("{} > {}", expr.a(TTL_ATTRIBUTE), expr.v("now", n(Timestamp::now().millis() / 1000)));
        if let Some(a) = action {
            filter = format!("{filter} AND {} = {}", expr.a("action"), expr.v("action", s(a.as_str())));
        }
        let (offset, limit) = (page.offset(), u64::from(page.limit()));
        let mut total = 0u64;
        let mut items = Vec::new();
        let mut start = None;
        loop {
            let out = self
                .client
                .query()
                .table_name(self.table())
                .key_condition_expression(&cond)
                .filter_expression(&filter)
                .set_expression_attribute_names(expr.names())
                .set_expression_attribute_values(expr.values())
                .scan_index_forward(false)
                .consistent_read(true)
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(unavailable)?;
            for item in out.items.unwrap_or_default() {
                if total >= offset && total < offset + limit {
                    items.push(audit_from(&item)?);
                }
                total += 1;
            }
            match out.last_evaluated_key {
                Some(k) if !k.is_empty() => start = Some(k),
                _ => break,
            }
        }
        Ok(Page { items, total, request: page })
    }

    /// Nothing to do: DynamoDB deletes each entry at its `expiresAt` (TTL), and lists leave out
    /// the expired ones it has not deleted yet.
    async fn expire_audit(&self, _cutoff: Timestamp) -> StoreResult<u64> {
        Ok(0)
    }
}
