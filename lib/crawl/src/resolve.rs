//! Host name resolution, and the connect-time guard: a `reqwest` DNS resolver that hands the
//! connector only addresses the policy allows, so the address checked is the address connected
//! to (no DNS-rebinding gap between a check and the connection).

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use crate::policy::NetPolicy;

/// How long one host lookup may take.
pub const LOOKUP_TIMEOUT: Duration = Duration::from_secs(10);

/// Resolves host names to addresses. [`SystemResolver`] in production; [`StaticResolver`] for
/// tests and fixed setups.
#[async_trait]
pub trait HostResolver: Send + Sync {
    /// The addresses of `host` (a domain name, never an IP literal). An empty list or an error
    /// means the host does not resolve.
    async fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>>;
}

/// The operating system's resolver (`getaddrinfo` through `tokio::net::lookup_host`).
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemResolver;

#[async_trait]
impl HostResolver for SystemResolver {
    async fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>> {
        let mut out: Vec<IpAddr> = Vec::new();
        for addr in tokio::net::lookup_host((host, 0)).await? {
            if !out.contains(&addr.ip()) {
                out.push(addr.ip());
            }
        }
        Ok(out)
    }
}

/// A fixed table of host → addresses (case-insensitive, trailing dot ignored). Unknown hosts do
/// not resolve.
#[derive(Debug, Default, Clone)]
pub struct StaticResolver {
    entries: HashMap<String, Vec<IpAddr>>,
}

impl StaticResolver {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) an entry.
    pub fn with(mut self, host: &str, addrs: impl IntoIterator<Item = IpAddr>) -> Self {
        self.entries.insert(normalise_host(host), addrs.into_iter().collect());
        self
    }
}

fn normalise_host(host: &str) -> String {
    host.trim_end_matches('.').to_ascii_lowercase()
}

#[async_trait]
impl HostResolver for StaticResolver {
    async fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>> {
        self.entries
            .get(&normalise_host(host))
            .cloned()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, format!("{host} does not resolve")))
    }
}

/// Looks `host` up with a timeout; errors and timeouts become an empty list.
pub(crate) async fn lookup_with_timeout(resolver: &dyn HostResolver, host: &str) -> Vec<IpAddr> {
    match tokio::time::timeout(LOOKUP_TIMEOUT, resolver.lookup(host)).await {
        Ok(Ok(addrs)) => addrs,
        Ok(Err(e)) => {
            tracing::debug!(host, error = %e, "host lookup failed");
            Vec::new()
        }
        Err(_) => {
            tracing::debug!(host, "host lookup timed out");
            Vec::new()
        }
    }
}

/// The error the connect-time resolver returns when a host resolves only to refused addresses.
/// [`crate::client`] finds it in the `reqwest` error's source chain and reports `Blocked`.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub(crate) struct RefusedAddress(pub String);

/// `reqwest` DNS resolver that filters out refused addresses. Installed with
/// `ClientBuilder::dns_resolver`, so the connector only ever sees allowed addresses.
pub(crate) struct PolicyDnsResolver {
    pub(crate) policy: Arc<NetPolicy>,
    pub(crate) resolver: Arc<dyn HostResolver>,
}

impl reqwest::dns::Resolve for PolicyDnsResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let policy = self.policy.clone();
        let resolver = self.resolver.clone();
        let host = name.as_str().to_string();
        Box::pin(async move {
            let resolved = lookup_with_timeout(resolver.as_ref(), &host).await;
            if resolved.is_empty() {
                let err: Box<dyn std::error::Error + Send + Sync> =
                    Box::new(io::Error::new(io::ErrorKind::NotFound, format!("{host} does not resolve")));
                return Err(err);
            }
            let mut first_refusal = None;
            let allowed: Vec<SocketAddr> = resolved
                .into_iter()
                .filter(|ip| match policy.ip_refusal(*ip) {
                    None => true,
                    Some(why) => {
                        tracing::debug!(%host, %ip, %why, "dropping refused address at connect time");
                        first_refusal.get_or_insert(why);
                        false
                    }
                })
                // Port 0 is replaced by the URL's port.
                .map(|ip| SocketAddr::new(ip, 0))
                .collect();
            if allowed.is_empty() {
                let why = first_refusal.unwrap_or_default();
                let err: Box<dyn std::error::Error + Send + Sync> =
                    Box::new(RefusedAddress(format!("host {host} resolves to {why}")));
                return Err(err);
            }
            let addrs: reqwest::dns::Addrs = Box::new(allowed.into_iter());
            Ok(addrs)
        })
    }
}
