//! Forms and their responses, each response with its event in one write.

use super::*;
use lore_domain::Timestamp;
use lore_domain::form::{Form, FormResponse, NewForm, RawField, ResponseSource};
use lore_domain::id::{EventId, FormId, ResponseId, WorkspaceId};
use lore_domain::pagination::PageRequest;
use serde_json::json;
use std::collections::BTreeMap;

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
