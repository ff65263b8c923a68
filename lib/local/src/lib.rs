//! Embedded adapters for `lore serve`: SQLite records, chunks and event outbox, forms, webhook
//! subscriptions and deliveries, files on disk, an in-process job queue, rate limiter and
//! dispatcher wake-up.

pub mod blobs;
mod chunks;
mod deliveries;
mod events;
mod forms;
mod hooks;
mod minds;
mod paging;
pub mod queue;
pub mod rate_limit;
mod records;
pub mod signal;
mod sources;
pub mod sqlite;
mod vectors;

pub use blobs::FileBlobStore;
pub use queue::{FairQueue, LocalJobQueue};
pub use rate_limit::MemoryRateLimiter;
pub use signal::{LocalSignal, WakingEventBus};
pub use sqlite::SqliteStore;
