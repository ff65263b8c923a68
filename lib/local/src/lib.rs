//! Embedded adapters for `lore serve`: SQLite records, chunks and event outbox, forms, webhook
//! subscriptions and deliveries, files on disk, an in-process job queue, rate limiter and
//! dispatcher wake-up.

mod actions;
mod answer_tests;
mod audit;
mod channels;
mod chatbots;
mod conversations;
mod events;
pub mod files;
mod forms;
pub mod jobs;
mod keywords;
mod minds;
mod paging;
pub mod rate_limit;
mod search;
pub mod signal;
mod sources;
pub mod sqlite;
mod vectors;
mod webhooks;
mod workspaces;

pub use files::FileBlobStore;
pub use jobs::{FairQueue, LocalJobQueue};
pub use rate_limit::MemoryRateLimiter;
pub use signal::{LocalSignal, WakingEventBus};
pub use sqlite::SqliteStore;
