//! The HTTP layer's one error type: every failure on every route becomes the contract's
//! envelope `{"status":"error","error":{"code","message","details"}}` here, and only here.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lore_app::AppError;
use lore_domain::ErrorCode;
use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

#[derive(Debug)]
pub enum ApiError {
    App(AppError),
    /// The body is not JSON, or not declared as JSON.
    InvalidJson(String),
    /// The body exceeds the route's limit before it was parsed.
    PayloadTooLarge {
        limit_bytes: usize,
    },
    MethodNotAllowed,
    RouteNotFound,
    /// A handler panicked; the process lives on.
    Panicked,
}

impl<E: Into<AppError>> From<E> for ApiError {
    fn from(e: E) -> Self {
        ApiError::App(e.into())
    }
}

/// The HTTP status of each machine code: the one mapping of the contract's table.
pub fn status_of(code: ErrorCode) -> StatusCode {
    use ErrorCode::*;
    match code {
        Unauthorized | IdentityInvalid => StatusCode::UNAUTHORIZED,
        InsufficientScope | StorageLimit | MindsLimitReached | SourcesLimitReached | WebhooksLimitReached
        | KeysLimitReached | TestsLimitReached | ActionsLimitReached | ChannelsLimitReached | Forbidden => {
            StatusCode::FORBIDDEN
        }
        RequestTimeout => StatusCode::REQUEST_TIMEOUT,
        NotFound => StatusCode::NOT_FOUND,
        MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
        PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        RateLimited => StatusCode::TOO_MANY_REQUESTS,
        InternalError => StatusCode::INTERNAL_SERVER_ERROR,
        SlugTaken | ProcessingInProgress | ConversationFull | VoiceDisabled | RunInProgress | ActionNameTaken => {
            StatusCode::CONFLICT
        }
        SpeechUnavailable => StatusCode::SERVICE_UNAVAILABLE,
        GenerationFailed => StatusCode::BAD_GATEWAY,
        InvalidJson | ValidationError | MissingContent | ContentTooLarge | MissingUrl | InvalidUrl | UrlBlocked
        | MissingFile | UnsupportedFileType | FileTooLarge | AlreadyProcessing | InvalidOperation | EmailRequired => {
            StatusCode::BAD_REQUEST
        }
    }
}

/// The error envelope, as documented in the OpenAPI document.
#[derive(Serialize, ToSchema)]
pub struct ErrorBody {
    /// Always `error`.
    #[schema(example = "error")]
    pub status: String,
    pub error: ErrorDetail,
}

#[derive(Serialize, ToSchema)]
pub struct ErrorDetail {
    /// Machine code, e.g. `not_found`, `validation_error`, `insufficient_scope`.
    #[schema(example = "not_found")]
    pub code: String,
    /// A sentence for people.
    pub message: String,
    /// Extra facts: `fields` for `validation_error`, `required` for `insufficient_scope`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub details: Option<Value>,
}

impl ApiError {
    /// The envelope's `error` member, for answers that carry it elsewhere than as the whole
    /// body (a streamed answer's `error` event).
    pub(crate) fn error_member(&self) -> Value {
        let (code, message, details) = self.parts();
        let mut member = json!({ "code": code.as_str(), "message": message });
        if let Some(details) = details {
            member["details"] = details;
        }
        member
    }

    /// The HTTP status this error answers.
    pub(crate) fn status(&self) -> StatusCode {
        status_of(self.parts().0)
    }

    fn parts(&self) -> (ErrorCode, String, Option<Value>) {
        match self {
            ApiError::App(e) => match e {
                AppError::Rejected(d) => {
                    let details = (!d.fields.is_empty()).then(|| json!({ "fields": d.fields }));
                    (d.code, d.message.clone(), details)
                }
                AppError::NotFound(what) => (ErrorCode::NotFound, format!("{what} not found"), None),
                AppError::Unauthorized(_) => {
                    // The precise reason stays in the logs: a caller probing keys learns nothing.
                    (ErrorCode::Unauthorized, "a valid API key is required: Authorization: Bearer <key>".into(), None)
                }
                AppError::InsufficientScope(s) => (
                    ErrorCode::InsufficientScope,
                    format!("this API key lacks the scope '{s}'"),
                    Some(json!({ "required": s.as_str() })),
                ),
                AppError::RateLimited { retry_after_secs } => (
                    ErrorCode::RateLimited,
                    format!("too many requests for this API key; retry in {retry_after_secs} s"),
                    Some(json!({ "retryAfterSeconds": retry_after_secs })),
                ),
                AppError::Busy { what, retry_after_secs } => (
                    ErrorCode::RateLimited,
                    format!("{what}; retry in {retry_after_secs} s"),
                    Some(json!({ "retryAfterSeconds": retry_after_secs })),
                ),
                AppError::Storage(_) => (ErrorCode::InternalError, "an internal error occurred".into(), None),
            },
            ApiError::InvalidJson(why) => {
                (ErrorCode::InvalidJson, format!("the request body is not valid JSON: {why}"), None)
            }
            ApiError::PayloadTooLarge { limit_bytes } => (
                ErrorCode::PayloadTooLarge,
                format!("the request body exceeds this route's limit of {limit_bytes} bytes"),
                Some(json!({ "limitBytes": limit_bytes })),
            ),
            ApiError::MethodNotAllowed => {
                (ErrorCode::MethodNotAllowed, "this method is not allowed on this path".into(), None)
            }
            ApiError::RouteNotFound => (ErrorCode::NotFound, "no such route".into(), None),
            ApiError::Panicked => (ErrorCode::InternalError, "an internal error occurred".into(), None),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (code, message, details) = self.parts();
        let status = status_of(code);
        match &self {
            ApiError::App(AppError::Storage(detail)) => tracing::error!(%detail, "storage failure"),
            ApiError::App(AppError::Unauthorized(reason)) => tracing::info!(reason, "request refused: unauthorized"),
            ApiError::Panicked => tracing::error!("handler panicked"),
            _ => tracing::debug!(code = code.as_str(), %message, "request refused"),
        }
        let body =
            ErrorBody { status: "error".into(), error: ErrorDetail { code: code.as_str().into(), message, details } };
        let mut res = (status, Json(body)).into_response();
        match self {
            ApiError::App(AppError::Unauthorized(_)) => {
                res.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            }
            ApiError::App(AppError::RateLimited { retry_after_secs } | AppError::Busy { retry_after_secs, .. }) => {
                res.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs.max(1)));
            }
            _ => {}
        }
        res
    }
}
