//! Forms and form responses (`FormStore`) on [`SqliteStore`]. A response and its event are
//! written in one transaction (the outbox pattern).

use crate::events::insert_event;
use crate::paging::paged;
use crate::sqlite::{SqliteStore, unavailable};
use async_trait::async_trait;
use lore_app::ports::FormStore;
use lore_app::ports::StoreResult;
use lore_domain::Timestamp;
use lore_domain::event::Event;
use lore_domain::form::{Form, FormField, FormResponse, ResponseSource};
use lore_domain::id::{EventId, FormId, ResponseId, WorkspaceId};
use lore_domain::pagination::{Page, PageRequest};
use lore_records::{FormFieldRecord, from_json, to_json};
use rusqlite::{OptionalExtension, Row, params};
use serde_json::Value;
use std::collections::BTreeMap;

const FORM_COLS: &str = "id, workspace_id, name, fields, created_at";
const RESPONSE_COLS: &str = "id, workspace_id, form_id, event_id, source, answers, created_at";

fn bad(what: &str) -> rusqlite::Error {
    rusqlite::Error::InvalidColumnName(format!("malformed stored {what}"))
}

fn fields_json(fields: &[FormField]) -> String {
    to_json(&FormFieldRecord::list(fields))
}

fn fields_from(raw: &str) -> rusqlite::Result<Vec<FormField>> {
    from_json(raw, "form fields")
        .and_then(FormFieldRecord::into_fields)
        .map_err(|e| rusqlite::Error::InvalidColumnName(e.to_string()))
}

fn form_from(r: &Row<'_>) -> rusqlite::Result<Form> {
    Ok(Form {
        id: FormId::parse(&r.get::<_, String>(0)?).ok_or_else(|| bad("form id"))?,
        workspace_id: WorkspaceId::parse(&r.get::<_, String>(1)?).ok_or_else(|| bad("workspace id"))?,
        name: r.get(2)?,
        fields: fields_from(&r.get::<_, String>(3)?)?,
        created_at: Timestamp::from_millis(r.get(4)?),
    })
}

fn response_from(r: &Row<'_>) -> rusqlite::Result<FormResponse> {
    let answers: BTreeMap<String, Value> =
        serde_json::from_str(&r.get::<_, String>(5)?).map_err(|_| bad("response answers"))?;
    Ok(FormResponse {
        id: ResponseId::parse(&r.get::<_, String>(0)?).ok_or_else(|| bad("response id"))?,
        workspace_id: WorkspaceId::parse(&r.get::<_, String>(1)?).ok_or_else(|| bad("workspace id"))?,
        form_id: FormId::parse(&r.get::<_, String>(2)?).ok_or_else(|| bad("form id"))?,
        event_id: EventId::parse(&r.get::<_, String>(3)?).ok_or_else(|| bad("event id"))?,
        source: ResponseSource::parse(&r.get::<_, String>(4)?).ok_or_else(|| bad("response source"))?,
        values: answers,
        created_at: Timestamp::from_millis(r.get(6)?),
    })
}

#[async_trait]
impl FormStore for SqliteStore {
    async fn insert_form(&self, form: &Form) -> StoreResult<()> {
        let f = form.clone();
        self.write(move |tx| {
            tx.execute(
                &format!("INSERT INTO forms ({FORM_COLS}) VALUES (?1, ?2, ?3, ?4, ?5)"),
                params![f.id.as_str(), f.workspace_id.as_str(), f.name, fields_json(&f.fields), f.created_at.millis()],
            )
            .map_err(unavailable)?;
            Ok(())
        })
        .await
    }

    async fn get_form(&self, ws: &WorkspaceId, id: &FormId) -> StoreResult<Option<Form>> {
        let (ws, id) = (ws.clone(), id.clone());
        self.lookup(move |c| {
            c.prepare_cached(&format!("SELECT {FORM_COLS} FROM forms WHERE id = ?1 AND workspace_id = ?2"))
                .and_then(|mut st| st.query_row([id.as_str(), ws.as_str()], form_from).optional())
                .map_err(unavailable)
        })
        .await
    }

    async fn list_forms(&self, ws: &WorkspaceId, page: PageRequest) -> StoreResult<Page<Form>> {
        let ws = ws.clone();
        self.read(move |c| {
            paged(
                c,
                "SELECT COUNT(*) FROM forms WHERE workspace_id = ?1",
                &format!(
                    "SELECT {FORM_COLS} FROM forms WHERE workspace_id = ?1
                     ORDER BY created_at DESC, id DESC LIMIT ?2 OFFSET ?3"
                ),
                &[&ws.as_str()],
                page,
                form_from,
            )
            .map_err(unavailable)
        })
        .await
    }

    async fn delete_form(&self, ws: &WorkspaceId, id: &FormId) -> StoreResult<bool> {
        let (ws, id) = (ws.clone(), id.clone());
        self.write(move |tx| {
            // Responses go with the form (ON DELETE CASCADE).
            let n = tx
                .execute("DELETE FROM forms WHERE id = ?1 AND workspace_id = ?2", [id.as_str(), ws.as_str()])
                .map_err(unavailable)?;
            Ok(n == 1)
        })
        .await
    }

    async fn insert_response(&self, response: &FormResponse, event: &Event) -> StoreResult<bool> {
        let (r, e) = (response.clone(), event.clone());
        self.write(move |tx| {
            let answers = serde_json::to_string(&r.values).map_err(unavailable)?;
            let n = tx
                .execute(
                    &format!(
                        "INSERT INTO form_responses ({RESPONSE_COLS})
                         SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7 WHERE EXISTS
                             (SELECT 1 FROM forms WHERE id = ?3 AND workspace_id = ?2)"
                    ),
                    params![
                        r.id.as_str(),
                        r.workspace_id.as_str(),
                        r.form_id.as_str(),
                        r.event_id.as_str(),
                        r.source.as_str(),
                        answers,
                        r.created_at.millis()
                    ],
                )
                .map_err(unavailable)?;
            if n == 0 {
                return Ok(false);
            }
            insert_event(tx, &e)?;
            Ok(true)
        })
        .await
    }

    async fn list_responses(
        &self,
        ws: &WorkspaceId,
        form: &FormId,
        page: PageRequest,
    ) -> StoreResult<Page<FormResponse>> {
        let (ws, form) = (ws.clone(), form.clone());
        self.read(move |c| {
            paged(
                c,
                "SELECT COUNT(*) FROM form_responses WHERE form_id = ?1 AND workspace_id = ?2",
                &format!(
                    "SELECT {RESPONSE_COLS} FROM form_responses WHERE form_id = ?1 AND workspace_id = ?2
                     ORDER BY created_at DESC, id DESC LIMIT ?3 OFFSET ?4"
                ),
                &[&form.as_str(), &ws.as_str()],
                page,
                response_from,
            )
            .map_err(unavailable)
        })
        .await
    }

    async fn latest_responses(
        &self,
        ws: &WorkspaceId,
        form: Option<&FormId>,
        limit: u32,
    ) -> StoreResult<Vec<FormResponse>> {
        let (ws, form) = (ws.clone(), form.map(|f| f.as_str().to_owned()));
        self.read(move |c| {
            let sql = format!(
                "SELECT {RESPONSE_COLS} FROM form_responses WHERE workspace_id = ?1 AND (?2 IS NULL OR form_id = ?2)
                 ORDER BY created_at DESC, id DESC LIMIT ?3"
            );
            let mut st = c.prepare_cached(&sql).map_err(unavailable)?;
            let rows =
                st.query_map(params![ws.as_str(), form, i64::from(limit)], response_from).map_err(unavailable)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)
        })
        .await
    }
}
