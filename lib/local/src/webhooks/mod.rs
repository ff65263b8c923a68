//! Webhooks on [`crate::SqliteStore`]: hooks (the subscriptions) and their deliveries.

mod deliveries;
mod hooks;
