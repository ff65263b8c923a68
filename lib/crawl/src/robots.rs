//! robots.txt for user agent [`ROBOTS_USER_AGENT`], following RFC 9309 for fetch failures.

use std::time::Duration;

use texting_robots::Robot;
use url::Url;

use crate::client::{FetchError, Overflow, SafeClient, SafeRequest};

/// The product token matched against `User-agent:` lines.
pub const ROBOTS_USER_AGENT: &str = "LoreBot";
/// Bytes of robots.txt read at most (RFC 9309 asks parsers to read at least 500 KiB; the rest is ignored).
pub const ROBOTS_MAX_BYTES: usize = 500 * 1024;

/// The rules of one origin.
#[derive(Debug)]
pub enum RobotsRules {
    /// No robots.txt (4xx), an unparsable one, or one that redirects too often / somewhere refused.
    AllowAll,
    /// robots.txt is unreachable (5xx, 429, network error, timeout): RFC 9309 §2.3.1.4 says to
    /// assume complete disallow. The reason is kept for the error message.
    DisallowAll(String),
    Rules(Box<Robot>),
}

impl RobotsRules {
    /// Parses a robots.txt body.
    pub fn parse(body: &[u8]) -> Self {
        match Robot::new(ROBOTS_USER_AGENT, body) {
            Ok(robot) => Self::Rules(Box::new(robot)),
            Err(e) => {
                tracing::debug!(error = %e, "unparsable robots.txt; treating as allow-all");
                Self::AllowAll
            }
        }
    }

    /// Interprets the outcome of fetching robots.txt.
    pub fn from_fetch(result: Result<(u16, Vec<u8>), FetchError>) -> Self {
        match result {
            Ok((status, body)) if (200..300).contains(&status) => Self::parse(&body),
            Ok((status, _)) if status == 429 || status >= 500 => {
                Self::DisallowAll(format!("robots.txt is unavailable (HTTP {status})"))
            }
            Ok(_) => Self::AllowAll,
            Err(e @ (FetchError::Timeout(_) | FetchError::Network(_) | FetchError::TooLarge { .. })) => {
                Self::DisallowAll(format!("robots.txt could not be fetched ({e})"))
            }
            Err(FetchError::Blocked(_) | FetchError::Invalid(_) | FetchError::TooManyRedirects(_)) => Self::AllowAll,
        }
    }

    /// Whether `url` may be fetched.
    pub fn allows(&self, url: &Url) -> bool {
        match self {
            Self::AllowAll => true,
            Self::DisallowAll(_) => false,
            Self::Rules(robot) => robot.allowed(url.as_str()),
        }
    }

    /// Why `url` may not be fetched (for messages).
    pub fn refusal(&self, url: &Url) -> Option<String> {
        match self {
            _ if self.allows(url) => None,
            Self::DisallowAll(reason) => Some(reason.clone()),
            _ => Some(format!("robots.txt disallows {}", url.path())),
        }
    }

    /// The `Crawl-delay` for this agent, if any.
    pub fn crawl_delay(&self) -> Option<Duration> {
        match self {
            Self::Rules(robot) => {
                robot.delay.filter(|d| d.is_finite() && *d > 0.0).map(|d| Duration::from_secs_f32(d.min(3600.0)))
            }
            _ => None,
        }
    }
}

/// Fetches and interprets `/robots.txt` of `url`'s origin through the safe client (redirects
/// followed and re-checked, body capped at `max_bytes` and truncated beyond).
pub async fn fetch_robots(client: &SafeClient, url: &Url, max_bytes: usize, timeout: Duration) -> RobotsRules {
    let Ok(robots_url) = url.join("/robots.txt") else {
        return RobotsRules::AllowAll;
    };
    let request = SafeRequest::get(robots_url.as_str(), max_bytes, timeout).overflow(Overflow::Truncate);
    let result = client.send(request).await.map(|r| (r.status.as_u16(), r.body));
    if let Err(e) = &result {
        tracing::debug!(url = %robots_url, error = %e, "robots.txt fetch failed");
    }
    RobotsRules::from_fetch(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn rules_for_lorebot_and_star() {
        let rules = RobotsRules::parse(b"User-agent: *\nDisallow: /private\n\nUser-agent: OtherBot\nDisallow: /\n");
        assert!(rules.allows(&u("http://h/a")));
        assert!(!rules.allows(&u("http://h/private")));
        assert!(!rules.allows(&u("http://h/private/x")));
        assert!(rules.refusal(&u("http://h/private")).unwrap().contains("disallows"));

        let rules =
            RobotsRules::parse(b"User-agent: LoreBot\nDisallow: /no\nCrawl-delay: 2\n\nUser-agent: *\nDisallow: /\n");
        assert!(rules.allows(&u("http://h/yes")));
        assert!(!rules.allows(&u("http://h/no")));
        assert_eq!(rules.crawl_delay(), Some(Duration::from_secs(2)));
    }

    #[test]
    fn fetch_outcomes() {
        assert!(matches!(RobotsRules::from_fetch(Ok((404, vec![]))), RobotsRules::AllowAll));
        assert!(matches!(RobotsRules::from_fetch(Ok((403, vec![]))), RobotsRules::AllowAll));
        assert!(matches!(RobotsRules::from_fetch(Ok((500, vec![]))), RobotsRules::DisallowAll(_)));
        assert!(matches!(RobotsRules::from_fetch(Ok((503, vec![]))), RobotsRules::DisallowAll(_)));
        assert!(matches!(RobotsRules::from_fetch(Ok((429, vec![]))), RobotsRules::DisallowAll(_)));
        assert!(matches!(
            RobotsRules::from_fetch(Err(FetchError::Network("refused".into()))),
            RobotsRules::DisallowAll(_)
        ));
        assert!(matches!(
            RobotsRules::from_fetch(Err(FetchError::Timeout(Duration::from_secs(1)))),
            RobotsRules::DisallowAll(_)
        ));
        assert!(matches!(RobotsRules::from_fetch(Err(FetchError::TooManyRedirects(5))), RobotsRules::AllowAll));
        assert!(matches!(RobotsRules::from_fetch(Err(FetchError::Blocked("x".into()))), RobotsRules::AllowAll));
        assert!(matches!(RobotsRules::from_fetch(Ok((200, b"".to_vec()))), RobotsRules::Rules(_)));
        assert!(RobotsRules::from_fetch(Ok((200, b"".to_vec()))).allows(&u("http://h/anything")));
    }
}
