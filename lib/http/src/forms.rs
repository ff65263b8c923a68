//! The `api-forms` route group: `/api/v1/forms/…` — forms and their responses (docs/api.md §11).

use crate::api_router::{ApiRouter, api_routes};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Authed, FormsRead, FormsWrite, JsonBody, Pagination, ParseId, PathId};
use crate::state::ApiState;
use crate::views::{Deleted, PageParams, PaginationView, Status};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use lore_domain::DomainError;
use lore_domain::form::{Form, FormField, FormResponse, NewForm, RawField};
use lore_domain::id::FormId;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

impl ParseId for FormId {
    const WHAT: &'static str = "form";
    fn parse_id(s: &str) -> Option<Self> {
        Self::parse(s)
    }
}

pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(api_routes!(list_forms, create_form))
        .routes(api_routes!(get_form, delete_form))
        .routes(api_routes!(list_responses, submit_response))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct FieldView {
    pub key: String,
    pub label: String,
    /// One of the interface's field types (never `system`).
    #[serde(rename = "type")]
    pub field_type: String,
    pub required: bool,
    /// `dropdown`, `multiple_choice` and `checkboxes` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<String>>,
    /// `rating` only: the highest star (default 5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<u8>,
}

impl From<FormField> for FieldView {
    fn from(f: FormField) -> Self {
        Self {
            key: f.key.as_str().to_owned(),
            label: f.label,
            field_type: f.field_type.as_str().to_owned(),
            required: f.required,
            options: f.field_type.has_options().then_some(f.options),
            max: f.max,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FormView {
    #[schema(example = "form_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub id: String,
    pub name: String,
    /// In the order they were given.
    pub fields: Vec<FieldView>,
    pub created_at: String,
}

impl From<Form> for FormView {
    fn from(f: Form) -> Self {
        Self {
            id: f.id.to_string(),
            name: f.name,
            fields: f.fields.into_iter().map(Into::into).collect(),
            created_at: f.created_at.to_string(),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct FormEnvelope {
    pub status: Status,
    pub form: FormView,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct FormList {
    pub status: Status,
    pub forms: Vec<FormView>,
    pub pagination: PaginationView,
}

/// A field of a form to create.
#[derive(Debug, Deserialize, ToSchema)]
pub struct FieldInput {
    /// 1-64 ASCII letters, digits, `_` or `-`, starting with a letter or digit; unique in the form.
    #[schema(required = true)]
    pub key: Option<String>,
    /// 1-200 characters.
    #[schema(required = true)]
    pub label: Option<String>,
    /// `short_text`, `long_text`, `email`, `phone`, `number`, `date`, `dropdown`,
    /// `multiple_choice`, `checkboxes`, `file`, `signature` or `rating`.
    #[serde(rename = "type")]
    #[schema(required = true)]
    pub field_type: Option<String>,
    /// Default `false`.
    pub required: Option<bool>,
    /// Required for `dropdown`, `multiple_choice` and `checkboxes` (1-100 distinct strings); refused elsewhere.
    pub options: Option<Vec<String>>,
    /// `rating` only: 1-10, default 5.
    pub max: Option<i64>,
}

/// Create a form: a name and 1-100 typed fields.
#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateForm {
    /// 1-200 characters.
    #[schema(required = true)]
    pub name: Option<String>,
    #[schema(required = true)]
    pub fields: Option<Vec<FieldInput>>,
}

impl CreateForm {
    /// The form the body describes, validated.
    pub fn parse(self) -> Result<NewForm, DomainError> {
        let fields: Option<Vec<RawField>> = self.fields.map(|fs| {
            fs.into_iter()
                .map(|f| RawField {
                    key: f.key,
                    label: f.label,
                    field_type: f.field_type,
                    required: f.required,
                    options: f.options,
                    max: f.max,
                })
                .collect()
        });
        NewForm::parse(self.name.as_deref(), fields.as_deref())
    }
}

/// Submit a response. `values` maps field keys to answers: strings for text, e-mail, phone,
/// date (`YYYY-MM-DD`), choices and URLs (`file`, `signature`); a JSON number for `number`; an
/// integer 1..max for `rating`; an array of options for `checkboxes`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct SubmitResponse {
    #[schema(value_type = HashMap<String, serde_json::Value>)]
    pub values: Option<Map<String, Value>>,
    /// `direct` (default), `embed` or `chatbot`: the event's `metadata.source`.
    pub source: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResponseRef {
    #[schema(example = "resp_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub id: String,
    pub form_id: String,
    pub created_at: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ResponseCreated {
    pub status: Status,
    pub response: ResponseRef,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResponseView {
    pub id: String,
    pub form_id: String,
    pub created_at: String,
    /// `direct`, `embed` or `chatbot`.
    pub source: String,
    /// The answered fields, by key.
    #[schema(value_type = HashMap<String, serde_json::Value>)]
    pub values: Map<String, Value>,
}

impl From<FormResponse> for ResponseView {
    fn from(r: FormResponse) -> Self {
        Self {
            id: r.id.to_string(),
            form_id: r.form_id.to_string(),
            created_at: r.created_at.to_string(),
            source: r.source.as_str().to_owned(),
            values: r.values.into_iter().collect(),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ResponseList {
    pub status: Status,
    pub responses: Vec<ResponseView>,
    pub pagination: PaginationView,
}

/// List the workspace's forms, newest first.
#[utoipa::path(get, path = "/api/v1/forms", tag = "forms", params(PageParams),
    security(("bearer" = ["forms:read"])),
    responses(
        (status = 200, body = FormList),
        (status = 400, description = "`validation_error` for bad page/limit", body = ErrorBody),
    ))]
async fn list_forms(
    auth: Authed<FormsRead>,
    State(s): State<ApiState>,
    p: Pagination,
) -> Result<Json<FormList>, ApiError> {
    let page = s.app.list_forms(&auth.principal, p.page).await?;
    let pagination = page.info().into();
    Ok(Json(FormList { status: Status::Success, forms: page.items.into_iter().map(Into::into).collect(), pagination }))
}

/// Create a form. Every invalid member is reported at once in `details.fields`, keyed like
/// `name` or `fields[2].options`.
#[utoipa::path(post, path = "/api/v1/forms", tag = "forms", request_body = CreateForm,
    security(("bearer" = ["forms:write"])),
    responses(
        (status = 201, body = FormEnvelope),
        (status = 400, description = "`invalid_json` or `validation_error`", body = ErrorBody), (status = 413, body = ErrorBody),
    ))]
async fn create_form(
    auth: Authed<FormsWrite>,
    State(s): State<ApiState>,
    JsonBody(body): JsonBody<CreateForm>,
) -> Result<(StatusCode, Json<FormEnvelope>), ApiError> {
    let new = body.parse()?;
    let form = s.app.create_form(&auth.principal, new).await?;
    Ok((StatusCode::CREATED, Json(FormEnvelope { status: Status::Success, form: form.into() })))
}

/// Read one form with its fields.
#[utoipa::path(get, path = "/api/v1/forms/{formId}", tag = "forms",
    params(("formId" = String, Path, description = "Form id (`form_…`)")),
    security(("bearer" = ["forms:read"])),
    responses((status = 200, body = FormEnvelope)))]
async fn get_form(
    auth: Authed<FormsRead>,
    State(s): State<ApiState>,
    PathId(id): PathId<FormId>,
) -> Result<Json<FormEnvelope>, ApiError> {
    let form = s.app.get_form(&auth.principal, &id).await?;
    Ok(Json(FormEnvelope { status: Status::Success, form: form.into() }))
}

/// Delete a form with its responses and the webhook subscriptions to it.
#[utoipa::path(delete, path = "/api/v1/forms/{formId}", tag = "forms",
    params(("formId" = String, Path, description = "Form id (`form_…`)")),
    security(("bearer" = ["forms:write"])),
    responses((status = 200, body = Deleted)))]
async fn delete_form(
    auth: Authed<FormsWrite>,
    State(s): State<ApiState>,
    PathId(id): PathId<FormId>,
) -> Result<Json<Deleted>, ApiError> {
    s.app.delete_form(&auth.principal, &id).await?;
    Ok(Json(Deleted::new(id)))
}

/// Submit a response. Each answer is checked against its field's type; every offending
/// field is reported at once in `details.fields`, keyed `values.<key>`. Emits one
/// `form_response` event to every subscription of this form and of all forms.
#[utoipa::path(post, path = "/api/v1/forms/{formId}/responses", tag = "forms", request_body = SubmitResponse,
    params(("formId" = String, Path, description = "Form id (`form_…`)")),
    security(("bearer" = ["forms:write"])),
    responses(
        (status = 201, body = ResponseCreated),
        (status = 400, description = "`invalid_json` or `validation_error`", body = ErrorBody),
        (status = 413, body = ErrorBody),
    ))]
async fn submit_response(
    auth: Authed<FormsWrite>,
    State(s): State<ApiState>,
    PathId(id): PathId<FormId>,
    JsonBody(body): JsonBody<SubmitResponse>,
) -> Result<(StatusCode, Json<ResponseCreated>), ApiError> {
    let r = s.app.submit_response(&auth.principal, &id, body.values, body.source.as_deref()).await?;
    let response =
        ResponseRef { id: r.id.to_string(), form_id: r.form_id.to_string(), created_at: r.created_at.to_string() };
    Ok((StatusCode::CREATED, Json(ResponseCreated { status: Status::Success, response })))
}

/// List a form's responses, newest first.
#[utoipa::path(get, path = "/api/v1/forms/{formId}/responses", tag = "forms",
    params(("formId" = String, Path, description = "Form id (`form_…`)"), PageParams),
    security(("bearer" = ["forms:read"])),
    responses((status = 200, body = ResponseList),
        (status = 400, description = "`validation_error` for bad page/limit", body = ErrorBody),))]
async fn list_responses(
    auth: Authed<FormsRead>,
    State(s): State<ApiState>,
    PathId(id): PathId<FormId>,
    p: Pagination,
) -> Result<Json<ResponseList>, ApiError> {
    let page = s.app.list_responses(&auth.principal, &id, p.page).await?;
    let pagination = page.info().into();
    Ok(Json(ResponseList {
        status: Status::Success,
        responses: page.items.into_iter().map(Into::into).collect(),
        pagination,
    }))
}
