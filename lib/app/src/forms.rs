//! Form use cases (docs/api.md §11, §12 `actions/forms` and `triggers/sample`, §16.18–19).

use crate::auth::Principal;
use crate::{App, AppError};
use lore_domain::Timestamp;
use lore_domain::error::Validator;
use lore_domain::event::Event;
use lore_domain::form::{Form, FormResponse, NewForm, ResponseSource};
use lore_domain::id::{EventId, FormId, ResponseId};
use lore_domain::pagination::{MAX_LIMIT, Page, PageRequest};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Real responses a sample shows at most (newest first).
pub const SAMPLE_SIZE: u32 = 3;
/// Forms `actions/forms` lists at most: a dropdown, not an export.
pub const MAX_FORM_CHOICES: usize = 1_000;

impl App {
    pub async fn create_form(&self, p: &Principal, new: NewForm) -> Result<Form, AppError> {
        let form = Form {
            id: FormId::generate(),
            workspace_id: p.workspace_id().clone(),
            name: new.name,
            fields: new.fields,
            created_at: Timestamp::now(),
        };
        self.ports.storage.forms.insert_form(&form).await?;
        Ok(form)
    }

    pub async fn get_form(&self, p: &Principal, id: &FormId) -> Result<Form, AppError> {
        self.ports.storage.forms.get_form(p.workspace_id(), id).await?.ok_or(AppError::NotFound("form"))
    }

    pub async fn list_forms(&self, p: &Principal, page: PageRequest) -> Result<Page<Form>, AppError> {
        Ok(self.ports.storage.forms.list_forms(p.workspace_id(), page).await?)
    }

    /// Deletes the form, its responses and the subscriptions to it (they could never fire
    /// again). Events already emitted are still delivered.
    pub async fn delete_form(&self, p: &Principal, id: &FormId) -> Result<(), AppError> {
        if !self.ports.storage.forms.delete_form(p.workspace_id(), id).await? {
            return Err(AppError::NotFound("form"));
        }
        self.ports.storage.hooks.delete_form_hooks(p.workspace_id(), id).await?;
        Ok(())
    }

    /// Validates and stores a submission; its `form_response` event goes to the outbox with it
    /// and the dispatcher is woken to fan it out.
    pub async fn submit_response(
        &self,
        p: &Principal,
        form_id: &FormId,
        values: Option<Map<String, Value>>,
        source: Option<&str>,
    ) -> Result<FormResponse, AppError> {
        let form = self.get_form(p, form_id).await?;
        let mut v = Validator::new();
        let source = v.check(ResponseSource::parse_field(source));
        let values = v.check(form.validate_values(&values.unwrap_or_default()));
        v.finish()?;
        let (Some(source), Some(values)) = (source, values) else { unreachable!("validator finished without errors") };
        let response = FormResponse {
            id: ResponseId::generate(),
            workspace_id: form.workspace_id.clone(),
            form_id: form.id.clone(),
            event_id: EventId::generate(),
            source,
            values,
            created_at: Timestamp::now(),
        };
        let event = form.response_event(&response);
        if !self.ports.storage.forms.insert_response(&response, &event).await? {
            return Err(AppError::NotFound("form"));
        }
        self.ports.dispatch_signal.notify();
        Ok(response)
    }

    pub async fn list_responses(
        &self,
        p: &Principal,
        form_id: &FormId,
        page: PageRequest,
    ) -> Result<Page<FormResponse>, AppError> {
        self.get_form(p, form_id).await?;
        Ok(self.ports.storage.forms.list_responses(p.workspace_id(), form_id, page).await?)
    }

    /// Every form of the workspace, newest first (up to [`MAX_FORM_CHOICES`]).
    pub async fn form_choices(&self, p: &Principal) -> Result<Vec<Form>, AppError> {
        let mut forms = Vec::new();
        for n in 1.. {
            let page = self.ports.storage.forms.list_forms(p.workspace_id(), PageRequest::new(n, MAX_LIMIT)).await?;
            let last = page.items.len() < MAX_LIMIT as usize;
            forms.extend(page.items);
            if last || forms.len() >= MAX_FORM_CHOICES {
                break;
            }
        }
        forms.truncate(MAX_FORM_CHOICES);
        Ok(forms)
    }

    /// Sample `form_response` envelopes (docs/api.md §12, §16.19): the newest real responses of
    /// the form (or of any form), else one made up from the form's fields (or from the newest
    /// form's; with no form at all, from an example form with one field of every type).
    pub async fn sample_events(&self, p: &Principal, form_id: Option<&FormId>) -> Result<Vec<Event>, AppError> {
        let ws = p.workspace_id();
        let form = match form_id {
            Some(id) => Some(self.get_form(p, id).await?),
            None => None,
        };
        let latest = self.ports.storage.forms.latest_responses(ws, form_id, SAMPLE_SIZE).await?;
        let mut forms: HashMap<FormId, Form> = form.iter().map(|f| (f.id.clone(), f.clone())).collect();
        let mut samples = Vec::new();
        for response in &latest {
            if !forms.contains_key(&response.form_id) {
                match self.ports.storage.forms.get_form(ws, &response.form_id).await? {
                    Some(f) => {
                        forms.insert(f.id.clone(), f);
                    }
                    // Deleted since: its responses are going too.
                    None => continue,
                }
            }
            samples.push(forms[&response.form_id].response_event(response));
        }
        if samples.is_empty() {
            let now = Timestamp::now();
            let form = match form {
                Some(f) => f,
                None => match self.ports.storage.forms.list_forms(ws, PageRequest::new(1, 1)).await?.items.pop() {
                    Some(f) => f,
                    None => Form::example(ws, now),
                },
            };
            samples.push(form.response_event(&form.sample_response(now)));
        }
        Ok(samples)
    }
}
