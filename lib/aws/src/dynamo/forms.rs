//! Forms and form responses on the table (`infra/dynamodb.md`, "Forms, the outbox, hooks and
//! deliveries"). A response, its event and the form's `responseCount` are written in one
//! `TransactWriteItems`.

use super::events::event_item;
use super::keys::{COUNTERS_SK, ws_pk};
use super::{
    DynamoStore, Expr, GSI1, GSI2, Item, TxWrite, get_i, get_s, get_u, key, malformed, n, newest_first_key, req_s, s,
};
use super::{add, put_if_absent, transact_retrying};
use async_trait::async_trait;
use lore_app::ports::FormStore;
use lore_app::ports::{StoreError, StoreResult};
use lore_domain::Timestamp;
use lore_domain::event::Event;
use lore_domain::form::{Form, FormField, FormResponse, ResponseSource};
use lore_domain::id::{EventId, FormId, ResponseId, WorkspaceId};
use lore_domain::pagination::{Page, PageRequest};
use lore_records::{FormFieldRecord, from_json, to_json};
use serde_json::Value;
use std::collections::BTreeMap;

// ---- keys ------------------------------------------------------------------------------------

fn form_sk(id: &FormId) -> String {
    format!("FORM#{id}")
}
fn forms_of(ws: &WorkspaceId) -> String {
    format!("FORMS#{ws}")
}
fn response_pk(id: &ResponseId) -> String {
    format!("RESP#{id}")
}
const RESPONSE_SK: &str = "RESP";
fn responses_of_form(form: &FormId) -> String {
    format!("RESPS#{form}")
}
fn responses_of_ws(ws: &WorkspaceId) -> String {
    format!("WSRESPS#{ws}")
}
// ---- items -----------------------------------------------------------------------------------

fn fields_json(fields: &[FormField]) -> String {
    to_json(&FormFieldRecord::list(fields))
}

fn fields_from(raw: &str) -> StoreResult<Vec<FormField>> {
    from_json(raw, "form fields").and_then(FormFieldRecord::into_fields).map_err(|e| malformed(&e.0))
}

fn form_item(f: &Form) -> Item {
    let mut item = key(ws_pk(&f.workspace_id), form_sk(&f.id));
    item.extend([
        ("gsi1pk".into(), s(forms_of(&f.workspace_id))),
        ("gsi1sk".into(), s(newest_first_key(f.created_at.millis(), f.id.as_str()))),
        ("id".into(), s(f.id.as_str())),
        ("ws".into(), s(f.workspace_id.as_str())),
        ("name".into(), s(&f.name)),
        ("fields".into(), s(fields_json(&f.fields))),
        ("createdAt".into(), n(f.created_at.millis())),
        ("responseCount".into(), n(0)),
    ]);
    item
}

fn form_from(i: &Item) -> StoreResult<Form> {
    Ok(Form {
        id: FormId::parse(req_s(i, "id")?).ok_or_else(|| malformed("form id"))?,
        workspace_id: WorkspaceId::parse(req_s(i, "ws")?).ok_or_else(|| malformed("workspace id"))?,
        name: req_s(i, "name")?.to_owned(),
        fields: fields_from(req_s(i, "fields")?)?,
        created_at: Timestamp::from_millis(get_i(i, "createdAt").unwrap_or(0)),
    })
}

fn response_item(r: &FormResponse) -> StoreResult<Item> {
    let answers = serde_json::to_string(&r.values).map_err(|e| StoreError::Unavailable(e.to_string()))?;
    let sort = newest_first_key(r.created_at.millis(), r.id.as_str());
    let mut item = key(response_pk(&r.id), RESPONSE_SK);
    item.extend([
        ("gsi1pk".into(), s(responses_of_form(&r.form_id))),
        ("gsi1sk".into(), s(&sort)),
        ("gsi2pk".into(), s(responses_of_ws(&r.workspace_id))),
        ("gsi2sk".into(), s(sort)),
        ("id".into(), s(r.id.as_str())),
        ("ws".into(), s(r.workspace_id.as_str())),
        ("form".into(), s(r.form_id.as_str())),
        ("eventId".into(), s(r.event_id.as_str())),
        ("source".into(), s(r.source.as_str())),
        ("answers".into(), s(answers)),
        ("createdAt".into(), n(r.created_at.millis())),
    ]);
    Ok(item)
}

fn response_from(i: &Item) -> StoreResult<FormResponse> {
    let values: BTreeMap<String, Value> =
        serde_json::from_str(req_s(i, "answers")?).map_err(|_| malformed("response answers"))?;
    Ok(FormResponse {
        id: ResponseId::parse(req_s(i, "id")?).ok_or_else(|| malformed("response id"))?,
        workspace_id: WorkspaceId::parse(req_s(i, "ws")?).ok_or_else(|| malformed("workspace id"))?,
        form_id: FormId::parse(req_s(i, "form")?).ok_or_else(|| malformed("form id"))?,
        event_id: EventId::parse(req_s(i, "eventId")?).ok_or_else(|| malformed("event id"))?,
        source: ResponseSource::parse(req_s(i, "source")?).ok_or_else(|| malformed("response source"))?,
        values,
        created_at: Timestamp::from_millis(get_i(i, "createdAt").unwrap_or(0)),
    })
}

#[async_trait]
impl FormStore for DynamoStore {
    async fn insert_form(&self, form: &Form) -> StoreResult<()> {
        let ws = ws_pk(&form.workspace_id);
        let ok = transact_retrying(self, "insert_form", || {
            Ok(vec![put_if_absent(form_item(form)), add(ws.clone(), COUNTERS_SK, &[("forms", 1)])])
        })
        .await?;
        if ok { Ok(()) } else { Err(StoreError::Conflict("id")) }
    }

    async fn get_form(&self, ws: &WorkspaceId, id: &FormId) -> StoreResult<Option<Form>> {
        self.get(&ws_pk(ws), &form_sk(id)).await?.as_ref().map(form_from).transpose()
    }

    async fn list_forms(&self, ws: &WorkspaceId, page: PageRequest) -> StoreResult<Page<Form>> {
        let total = self.get(&ws_pk(ws), COUNTERS_SK).await?.map_or(0, |c| get_u(&c, "forms"));
        let items = self.listed(GSI1, &forms_of(ws), true, page.offset(), Some(u64::from(page.limit()))).await?;
        let items = items.iter().map(form_from).collect::<StoreResult<Vec<_>>>()?;
        Ok(Page { items, total, request: page })
    }

    async fn delete_form(&self, ws: &WorkspaceId, id: &FormId) -> StoreResult<bool> {
        let pk = ws_pk(ws);
        let deleted = transact_retrying(self, "delete_form", || {
            let mut expr = Expr::new();
            let cond = format!("attribute_exists({})", expr.a("pk"));
            Ok(vec![
                TxWrite::Delete { key: key(&pk, form_sk(id)), cond: Some(cond), expr },
                add(pk.clone(), COUNTERS_SK, &[("forms", -1)]),
            ])
        })
        .await?;
        if !deleted {
            return Ok(false);
        }
        // The form is gone, so no response can be added any more: remove the ones it had.
        loop {
            let keys = self.query_index(GSI1, "gsi1pk", &responses_of_form(id), true, None, 0, Some(100)).await?;
            if keys.is_empty() {
                return Ok(true);
            }
            let writes: Vec<Item> = keys
                .iter()
                .map(|k| key(get_s(k, "pk").unwrap_or_default(), get_s(k, "sk").unwrap_or_default()))
                .collect();
            transact_retrying(self, "delete_form responses", || {
                Ok(writes.iter().map(|k| TxWrite::Delete { key: k.clone(), cond: None, expr: Expr::new() }).collect())
            })
            .await?;
        }
    }

    async fn insert_response(&self, r: &FormResponse, event: &Event) -> StoreResult<bool> {
        let form_key = key(ws_pk(&r.workspace_id), form_sk(&r.form_id));
        transact_retrying(self, "insert_response", || {
            let mut expr = Expr::new();
            let cond = format!("attribute_exists({})", expr.a("pk"));
            let update = format!("ADD {} {}", expr.a("responseCount"), expr.v("one", n(1)));
            Ok(vec![
                TxWrite::Update { key: form_key.clone(), update, cond: Some(cond), expr },
                put_if_absent(response_item(r)?),
                put_if_absent(event_item(event)),
            ])
        })
        .await
    }

    async fn list_responses(
        &self,
        ws: &WorkspaceId,
        form: &FormId,
        page: PageRequest,
    ) -> StoreResult<Page<FormResponse>> {
        let Some(f) = self.get(&ws_pk(ws), &form_sk(form)).await? else {
            return Ok(Page { items: Vec::new(), total: 0, request: page });
        };
        let total = get_u(&f, "responseCount");
        let items = self
            .listed(GSI1, &responses_of_form(form), true, page.offset(), Some(u64::from(page.limit())))
            .await?
            .iter()
            .filter(|i| get_s(i, "ws") == Some(ws.as_str()))
            .map(response_from)
            .collect::<StoreResult<Vec<_>>>()?;
        Ok(Page { items, total, request: page })
    }

    async fn latest_responses(
        &self,
        ws: &WorkspaceId,
        form: Option<&FormId>,
        limit: u32,
    ) -> StoreResult<Vec<FormResponse>> {
        let items = match form {
            Some(f) => self.listed(GSI1, &responses_of_form(f), true, 0, Some(u64::from(limit))).await?,
            None => self.listed(GSI2, &responses_of_ws(ws), true, 0, Some(u64::from(limit))).await?,
        };
        items.iter().filter(|i| get_s(i, "ws") == Some(ws.as_str())).map(response_from).collect()
    }
}
