//! How every store fails.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// A uniqueness rule refused the write; names what was taken (`slug`, `name`).
    #[error("{0} is taken")]
    Conflict(&'static str),
    #[error("store unavailable: {0}")]
    Unavailable(String),
}

pub type StoreResult<T> = Result<T, StoreError>;
