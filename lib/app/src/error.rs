//! The use-case layer's one error type. The HTTP layer maps it to a response exactly once.

use lore_domain::scope::Scope;
use lore_domain::{DomainError, ErrorCode};

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// A value or rule refused the request; carries its contract code.
    #[error(transparent)]
    Rejected(#[from] DomainError),
    /// Absent, or in another workspace: both look the same to the caller (never 403 across tenants).
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("unauthorized: {0}")]
    Unauthorized(&'static str),
    #[error("this key lacks the scope {0}")]
    InsufficientScope(Scope),
    #[error("rate limit exceeded; retry after {retry_after_secs} s")]
    RateLimited { retry_after_secs: u64 },
    /// A per-workspace concurrency limit is full (`what` says which); answered like a rate limit.
    #[error("{what}; retry after {retry_after_secs} s")]
    Busy { what: String, retry_after_secs: u64 },
    /// The store failed: logged with its detail, answered as `internal_error` without it.
    #[error("storage failure: {0}")]
    Storage(String),
}

impl AppError {
    pub fn code(&self) -> ErrorCode {
        match self {
            AppError::Rejected(e) => e.code,
            AppError::NotFound(_) => ErrorCode::NotFound,
            AppError::Unauthorized(_) => ErrorCode::Unauthorized,
            AppError::InsufficientScope(_) => ErrorCode::InsufficientScope,
            AppError::RateLimited { .. } | AppError::Busy { .. } => ErrorCode::RateLimited,
            AppError::Storage(_) => ErrorCode::InternalError,
        }
    }
}

impl From<crate::StoreError> for AppError {
    fn from(e: crate::StoreError) -> Self {
        match e {
            crate::StoreError::Conflict(what) => {
                AppError::Rejected(DomainError::new(ErrorCode::ValidationError, format!("{what} already exists")))
            }
            crate::StoreError::Unavailable(detail) => AppError::Storage(detail),
        }
    }
}
