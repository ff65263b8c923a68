//! Uploads no source uses yet, counted in the workspace's `storageBytes` (docs/limits.md
//! "Storage quota"): one `UPLOAD#<blob key>` item in the workspace partition per counted upload,
//! written in one transaction with the counters item, so the counter is always the sum of the
//! sources and these items.

use super::super::keys::ws_pk;
use super::workspace_counters;
use super::{
    DynamoStore, Expr, Item, MAX_ATTEMPTS, TxFailure, TxWrite, backoff, gave_up, get_s, get_u, key, n, s, unavailable,
};
use aws_sdk_dynamodb::types::AttributeValue;
use lore_app::ports::Charged;
use lore_app::ports::StoreResult;
use lore_domain::Timestamp;
use lore_domain::id::WorkspaceId;

const UPLOAD_PREFIX: &str = "UPLOAD#";

fn upload_sk(blob_key: &str) -> String {
    format!("{UPLOAD_PREFIX}{blob_key}")
}

impl DynamoStore {
    pub(crate) async fn charge_upload_item(
        &self,
        ws: &WorkspaceId,
        blob_key: &str,
        bytes: u64,
        quota: u64,
        at: Timestamp,
    ) -> StoreResult<Charged> {
        let pk = ws_pk(ws);
        for attempt in 0..MAX_ATTEMPTS {
            let mut item: Item = key(pk.clone(), upload_sk(blob_key));
            item.insert("sizeBytes".into(), n(bytes));
            item.insert("chargedAt".into(), n(at.millis()));
            let mut expr = Expr::new();
            let cond = format!("attribute_not_exists({})", expr.a("pk"));
            let signed = i64::try_from(bytes).unwrap_or(i64::MAX);
            let counters =
                workspace_counters(ws, signed, Some(quota), 0, None).expect("a quota always makes a counters write");
            match self.transact(vec![TxWrite::Put { item, cond: Some(cond), expr }, counters]).await {
                Ok(()) => return Ok(Charged::Done),
                // Counted already: nothing to change.
                Err(TxFailure::Condition(failed)) if failed.contains(&0) => return Ok(Charged::Done),
                Err(TxFailure::Condition(_)) => {
                    return Ok(Charged::OverQuota { used: self.storage_used(ws).await? });
                }
                Err(TxFailure::Conflict) => backoff(attempt).await,
                Err(TxFailure::Store(e)) => return Err(e),
            }
        }
        Err(gave_up("charging an upload"))
    }

    pub(crate) async fn release_upload_item(&self, ws: &WorkspaceId, blob_key: &str) -> StoreResult<Option<u64>> {
        let pk = ws_pk(ws);
        let sk = upload_sk(blob_key);
        for attempt in 0..MAX_ATTEMPTS {
            let Some(item) = self.get(&pk, &sk).await? else { return Ok(None) };
            let bytes = get_u(&item, "sizeBytes");
            let mut expr = Expr::new();
            let cond = format!("{} = {}", expr.a("sizeBytes"), expr.v("size", n(bytes)));
            let delete = TxWrite::Delete { key: key(pk.clone(), sk.clone()), cond: Some(cond), expr };
            let signed = -i64::try_from(bytes).unwrap_or(i64::MAX);
            let mut writes = vec![delete];
            writes.extend(workspace_counters(ws, signed, None, 0, None));
            match self.transact(writes).await {
                Ok(()) => return Ok(Some(bytes)),
                // Released (or counted again) meanwhile: read again.
                Err(TxFailure::Condition(_) | TxFailure::Conflict) => backoff(attempt).await,
                Err(TxFailure::Store(e)) => return Err(e),
            }
        }
        Err(gave_up("releasing an upload"))
    }

    pub(crate) async fn upload_keys_charged_before(
        &self,
        ws: &WorkspaceId,
        before: Timestamp,
    ) -> StoreResult<Vec<String>> {
        let mut keys = Vec::new();
        let mut start = None;
        loop {
            let out = self
                .client
                .query()
                .table_name(&self.table)
                .key_condition_expression("pk = :pk AND begins_with(sk, :prefix)")
                .filter_expression("chargedAt < :before")
                .expression_attribute_values(":pk", s(ws_pk(ws)))
                .expression_attribute_values(":prefix", s(UPLOAD_PREFIX))
                .expression_attribute_values(":before", AttributeValue::N(before.millis().to_string()))
                .consistent_read(true)
                .set_exclusive_start_key(start)
                .send()
                .await
                .map_err(unavailable)?;
            for item in out.items() {
                if let Some(k) = get_s(item, "sk").and_then(|sk| sk.strip_prefix(UPLOAD_PREFIX)) {
                    keys.push(k.to_owned());
                }
            }
            match out.last_evaluated_key {
                Some(k) if !k.is_empty() => start = Some(k),
                _ => return Ok(keys),
            }
        }
    }
}
