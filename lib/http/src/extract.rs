//! Extractors that turn requests into validated values, refusing with the contract's codes:
//! authentication and scope, JSON bodies, pagination and path ids.

use crate::error::ApiError;
use crate::state::ApiState;
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request};
use axum::http::header::CONTENT_TYPE;
use axum::http::request::Parts;
use lore_app::AppError;
use lore_app::auth::Principal;
use lore_domain::DomainError;
use lore_domain::pagination::PageRequest;
use lore_domain::scope::Scope;
use serde::de::DeserializeOwned;
use std::marker::PhantomData;

/// What a route demands of the caller's key.
pub trait RequiredScope: Send + Sync + 'static {
    /// `None`: any valid key.
    const SCOPE: Option<Scope>;
}

macro_rules! scopes {
    ($($name:ident => $scope:expr;)*) => {$(
        #[doc = concat!("Marker: the route needs `", stringify!($name), "`.")]
        pub struct $name;
        impl RequiredScope for $name {
            const SCOPE: Option<Scope> = $scope;
        }
    )*};
}

scopes! {
    AnyScope => None;
    ChatbotRead => Some(Scope::ChatbotRead);
    ChatbotWrite => Some(Scope::ChatbotWrite);
    KnowledgeRead => Some(Scope::KnowledgeRead);
    KnowledgeWrite => Some(Scope::KnowledgeWrite);
    KnowledgeSearch => Some(Scope::KnowledgeSearch);
    MindsRead => Some(Scope::MindsRead);
    MindsWrite => Some(Scope::MindsWrite);
    FormsRead => Some(Scope::FormsRead);
    FormsWrite => Some(Scope::FormsWrite);
    WebhooksWrite => Some(Scope::WebhooksWrite);
    ChatWrite => Some(Scope::ChatWrite);
    ConversationsRead => Some(Scope::ConversationsRead);
    WorkspaceAdmin => Some(Scope::WorkspaceAdmin);
}

/// An authenticated caller whose key holds the scope `S`, within its request budget.
/// Every handler that touches workspace data takes one, so a route cannot forget its scope.
pub struct Authed<S: RequiredScope> {
    pub principal: Principal,
    _scope: PhantomData<S>,
}

impl<S: RequiredScope> FromRequestParts<ApiState> for Authed<S> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &ApiState) -> Result<Self, ApiError> {
        // `Authorization`, or on the console's own calls its session cookie (docs/console.md).
        let credential = crate::console::session::credential(&parts.headers);
        let principal = state.app.authenticate_and_admit(credential.as_deref()).await?;
        tracing::Span::current().record("key_id", principal.key_id.as_str());
        if let Some(scope) = S::SCOPE {
            principal.require(scope)?;
        }
        Ok(Self { principal, _scope: PhantomData })
    }
}

/// A JSON body. Not JSON, not a JSON object at the top (`[]`, `1`), or not declared as JSON is
/// `invalid_json`; a known field of the wrong type is `validation_error` naming the field; a
/// body over the limit is 413.
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        parse(json_object(req, state).await?).map(JsonBody)
    }
}

/// A JSON body read as two parts, each of which ignores the other's members: a chatbot's or a
/// Mind's own members and the settings they share ([`crate::assistant::AssistantUpdate`]).
/// Each part is its own struct rather than a `#[serde(flatten)]` member because a flattened
/// member's type error would not say which field it was.
pub struct JsonBodies<A, B>(pub A, pub B);

impl<S: Send + Sync, A: DeserializeOwned, B: DeserializeOwned> FromRequest<S> for JsonBodies<A, B> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let object = json_object(req, state).await?;
        Ok(Self(parse(object.clone())?, parse(object)?))
    }
}

/// The body's bytes, within [`crate::JSON_BODY_LIMIT`] and the idle timeout, refused in the
/// error envelope (`payload_too_large`, `request_timeout`): for routes that read the bytes
/// themselves (a platform's signed request, docs/api.md §24).
pub struct RawBody(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for RawBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let limit = crate::JSON_BODY_LIMIT;
        Bytes::from_request(req, state).await.map(Self).map_err(|rej| {
            if rej.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::PayloadTooLarge { limit_bytes: limit }
            } else if crate::body_timed_out(&rej) {
                lore_app::files::body_error(&std::io::Error::from(std::io::ErrorKind::TimedOut)).into()
            } else {
                ApiError::InvalidJson(rej.body_text())
            }
        })
    }
}

/// The body as a JSON object, with the rules of [`JsonBody`].
async fn json_object<S: Send + Sync>(req: Request, state: &S) -> Result<serde_json::Value, ApiError> {
    let json_type = req
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|m| {
            let m = m.trim().to_ascii_lowercase();
            m == "application/json" || (m.starts_with("application/") && m.ends_with("+json"))
        })
        .unwrap_or(false);
    if !json_type {
        return Err(ApiError::InvalidJson("expected Content-Type: application/json".into()));
    }
    let RawBody(bytes) = RawBody::from_request(req, state).await?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| ApiError::InvalidJson(e.to_string()))?;
    // Every JSON route takes an object: `[]`, `1` or `"x"` is not a body of this API
    // (docs/api.md §2), answered like malformed JSON rather than as a field's fault.
    if !value.is_object() {
        return Err(ApiError::InvalidJson("the body must be a JSON object".into()));
    }
    Ok(value)
}

/// `value` as a `T`; a member of the wrong type is `validation_error` naming the member.
fn parse<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, ApiError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        let field = match inner.strip_prefix("missing field `").and_then(|s| s.split('`').next()) {
            Some(missing) => missing.to_owned(),
            None if path == "." => "body".to_owned(),
            None => path,
        };
        DomainError::field(field, inner.split(" at line ").next().unwrap_or(&inner).to_owned()).into()
    })
}

/// `page` and `limit` of a list request (docs/api.md §4), plus the raw query for filters.
pub struct Pagination {
    pub page: PageRequest,
    pub query: Vec<(String, String)>,
}

impl Pagination {
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Pagination {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Query(query) = Query::<Vec<(String, String)>>::from_request_parts(parts, state)
            .await
            .map_err(|_| ApiError::from(DomainError::field("query", "is not a valid query string")))?;
        let get = |name: &str| query.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
        let page = PageRequest::parse(get("page"), get("limit"))?;
        Ok(Self { page, query })
    }
}

/// The single path parameter of a route, parsed as an id of type `T`. An id that cannot be
/// ours names nothing: 404, like an absent one.
pub struct PathId<T>(pub T);

/// Ids that can be taken from a path.
pub trait ParseId: Sized {
    const WHAT: &'static str;
    fn parse_id(s: &str) -> Option<Self>;
}

impl ParseId for lore_domain::id::ChatbotId {
    const WHAT: &'static str = "chatbot";
    fn parse_id(s: &str) -> Option<Self> {
        Self::parse(s)
    }
}

impl ParseId for lore_domain::id::SourceId {
    const WHAT: &'static str = "source";
    fn parse_id(s: &str) -> Option<Self> {
        Self::parse(s)
    }
}

async fn path_params<S: Send + Sync>(parts: &mut Parts, state: &S) -> Vec<(String, String)> {
    Path::<Vec<(String, String)>>::from_request_parts(parts, state).await.map(|Path(v)| v).unwrap_or_default()
}

fn parse_param<T: ParseId>(params: &[(String, String)], index: usize) -> Result<T, ApiError> {
    params.get(index).and_then(|(_, v)| T::parse_id(v)).ok_or(ApiError::App(AppError::NotFound(T::WHAT)))
}

impl<S: Send + Sync, T: ParseId> FromRequestParts<S> for PathId<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let params = path_params(parts, state).await;
        parse_param(&params, 0).map(PathId)
    }
}

/// The two path parameters of a nested route (`/chatbots/{chatbotId}/sources/{sourceId}`).
pub struct PathIds<A, B>(pub A, pub B);

impl<S: Send + Sync, A: ParseId, B: ParseId> FromRequestParts<S> for PathIds<A, B> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let params = path_params(parts, state).await;
        Ok(PathIds(parse_param(&params, 0)?, parse_param(&params, 1)?))
    }
}
