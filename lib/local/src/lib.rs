//! Embedded adapters for `lore serve`: SQLite records and in-process rate limiting.

pub mod rate_limit;
mod records;
pub mod sqlite;

pub use rate_limit::MemoryRateLimiter;
pub use sqlite::SqliteStore;
