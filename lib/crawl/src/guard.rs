//! [`Guard`]: the `UrlGuard` port — the check made before a URL is stored or fetched.

use std::sync::Arc;

use async_trait::async_trait;
use lore_app::ports::{UrlGuard, UrlRejection};
use url::{Host, Url};

use crate::policy::{NetPolicy, parse_url};
use crate::resolve::{HostResolver, SystemResolver, lookup_with_timeout};

/// Checks a URL against the [`NetPolicy`], resolving its host.
///
/// Outcomes:
/// * not an absolute URL, no host, empty → `Invalid` (`invalid_url`);
/// * scheme other than http/https, credentials in the URL, a port outside the allowed ports,
///   an IP-literal host (in any numeric/hex/octal/IPv4-mapped form) that is refused → `Blocked`;
/// * a domain host: resolved; **no address at all (NXDOMAIN, lookup error or timeout) →
///   `Invalid` with the message "host does not resolve"** (the URL cannot be fetched, but nothing
///   about it is dangerous); **any** refused address among the answers → `Blocked` (`url_blocked`).
///
/// On success the normalised URL (fragment dropped, host lower-cased) is returned. The check is
/// repeated at connect time by [`crate::SafeClient`], so a host whose DNS answer changes later
/// (DNS rebinding) is still refused.
#[derive(Clone)]
pub struct Guard {
    policy: Arc<NetPolicy>,
    resolver: Arc<dyn HostResolver>,
}

impl Guard {
    /// A guard using the system resolver.
    pub fn new(policy: NetPolicy) -> Self {
        Self::with_resolver(policy, Arc::new(SystemResolver))
    }

    pub fn with_resolver(policy: NetPolicy, resolver: Arc<dyn HostResolver>) -> Self {
        Self { policy: Arc::new(policy), resolver }
    }

    pub fn policy(&self) -> &NetPolicy {
        &self.policy
    }

    /// The check, returning the parsed normalised URL.
    pub async fn check_url(&self, input: &str) -> Result<Url, UrlRejection> {
        let url = parse_url(input)?;
        self.policy.check_url(&url)?;
        let resolved = match url.host() {
            Some(Host::Domain(name)) => lookup_with_timeout(self.resolver.as_ref(), name).await,
            _ => Vec::new(),
        };
        self.policy.check_resolved(&url, &resolved)?;
        Ok(url)
    }
}

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guard").field("policy", &self.policy).finish_non_exhaustive()
    }
}

#[async_trait]
impl UrlGuard for Guard {
    async fn check(&self, url: &str) -> Result<String, UrlRejection> {
        self.check_url(url).await.map(String::from)
    }
}
