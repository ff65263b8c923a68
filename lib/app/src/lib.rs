//! Lore use cases and the ports they need. Names no database, framework or cloud: adapters
//! implement the ports, entry points compose them.

pub mod admin;
pub mod auth;
pub mod chatbots;
#[cfg(feature = "conformance")]
pub mod conformance;
pub mod error;
pub mod ingest_ports;
pub mod ports;

pub use error::AppError;
pub use ports::StoreError;

use std::sync::Arc;
use std::time::Duration;

/// Deployment settings the use cases read.
#[derive(Debug, Clone)]
pub struct AppConfig {
    /// How long a resolved key may be reused without asking the store. Bounded so that a
    /// revoked key is refused within 5 s (CONTRACT §16.25).
    pub key_cache_ttl: Duration,
}

impl Default for AppConfig {
    fn default() -> Self {
        Self { key_cache_ttl: Duration::from_secs(2) }
    }
}

/// The ports one composition provides.
#[derive(Clone)]
pub struct Ports {
    pub workspaces: Arc<dyn ports::WorkspaceStore>,
    pub keys: Arc<dyn ports::KeyStore>,
    pub chatbots: Arc<dyn ports::ChatbotStore>,
    pub rate_limiter: Arc<dyn ports::RateLimiter>,
}

/// The use cases over one composition of ports. Cheap to clone.
#[derive(Clone)]
pub struct App {
    ports: Ports,
    config: AppConfig,
    key_cache: Arc<auth::KeyCache>,
}

impl App {
    pub fn new(ports: Ports, config: AppConfig) -> Self {
        let key_cache = Arc::new(auth::KeyCache::new(config.key_cache_ttl));
        Self { ports, config, key_cache }
    }

    pub fn config(&self) -> &AppConfig {
        &self.config
    }
}
