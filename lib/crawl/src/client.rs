//! [`SafeClient`]: an HTTP client that cannot be steered into the internal network.
//!
//! * Every request URL — the first and every redirect hop — passes [`NetPolicy::check_url`]
//!   before it is sent (scheme, credentials, port, IP-literal hosts: `reqwest` does not call the
//!   DNS resolver for literal hosts).
//! * Domain hosts are resolved by a policy-filtering resolver installed in the `reqwest` client,
//!   so the connection goes only to addresses that passed the check (no DNS-rebinding gap).
//! * The peer address of every response is checked again (defence in depth).
//! * Redirects are never followed by `reqwest`; [`SafeClient::send`] follows at most
//!   [`MAX_REDIRECTS`] itself, re-checking each `Location`.
//! * System proxies are ignored (a proxy would resolve and connect on our behalf).
//! * No content decoding is requested (no compression bombs); bodies are read in chunks and
//!   capped.

use std::error::Error as StdError;
use std::sync::Arc;
use std::time::Duration;

use lore_app::ports::UrlRejection;
use reqwest::header::{self, HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, StatusCode};
use url::Url;

use crate::policy::{NetPolicy, parse_url};
use crate::resolve::{HostResolver, PolicyDnsResolver, RefusedAddress, SystemResolver};

/// The `User-Agent` of every request unless a request sets its own.
pub const DEFAULT_USER_AGENT: &str = "LoreBot/0.1 (+https://github.com/lore)";
/// Redirects followed at most (a 6th redirect is an error).
pub const MAX_REDIRECTS: usize = 5;

/// Why a fetch failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// The URL (or a redirect's `Location`) is malformed.
    #[error("invalid URL: {0}")]
    Invalid(String),
    /// Refused by request protection (URL, redirect hop, or the addresses the host resolves to).
    #[error("URL blocked: {0}")]
    Blocked(String),
    #[error("more than {0} redirects")]
    TooManyRedirects(usize),
    /// The response body is larger than the cap.
    #[error("the response is larger than {limit} bytes")]
    TooLarge { limit: usize },
    /// No complete response within the request's timeout.
    #[error("no complete response within {0:?}")]
    Timeout(Duration),
    /// DNS failure, connection refused/reset, TLS or protocol error.
    #[error("{0}")]
    Network(String),
}

impl From<UrlRejection> for FetchError {
    fn from(r: UrlRejection) -> Self {
        match r {
            UrlRejection::Invalid(m) => Self::Invalid(m),
            UrlRejection::Blocked(m) => Self::Blocked(m),
        }
    }
}

/// The client could not be built (TLS set-up).
#[derive(Debug, Clone, thiserror::Error)]
#[error("could not build the HTTP client: {0}")]
pub struct ClientBuildError(pub String);

/// A complete response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchedResponse {
    /// The URL of the last hop (after redirects).
    pub final_url: Url,
    pub status: StatusCode,
    pub headers: HeaderMap,
    /// The `Content-Type` header value, if any.
    pub content_type: Option<String>,
    pub body: Vec<u8>,
    /// The body was cut at the cap (only with [`Overflow::Truncate`]).
    pub truncated: bool,
}

impl FetchedResponse {
    pub fn is_success(&self) -> bool {
        self.status.is_success()
    }
}

/// What to do with a body over the cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Overflow {
    /// Fail with [`FetchError::TooLarge`].
    #[default]
    Error,
    /// Keep the first `max_response_bytes` bytes and mark the response `truncated`.
    Truncate,
}

/// One request through a [`SafeClient`].
#[derive(Debug, Clone)]
pub struct SafeRequest {
    pub method: Method,
    pub url: String,
    pub headers: HeaderMap,
    pub body: Option<Vec<u8>>,
    /// Budget of the whole exchange: every hop, connection, headers and body.
    pub timeout: Duration,
    pub max_response_bytes: usize,
    pub overflow: Overflow,
    /// Follow up to [`MAX_REDIRECTS`] redirects (each re-checked); when `false` a 3xx is returned
    /// as the response.
    pub follow_redirects: bool,
}

impl SafeRequest {
    /// A GET that follows redirects.
    pub fn get(url: impl Into<String>, max_response_bytes: usize, timeout: Duration) -> Self {
        Self {
            method: Method::GET,
            url: url.into(),
            headers: HeaderMap::new(),
            body: None,
            timeout,
            max_response_bytes,
            overflow: Overflow::Error,
            follow_redirects: true,
        }
    }

    /// A POST of `body` that does not follow redirects.
    pub fn post(url: impl Into<String>, body: Vec<u8>, max_response_bytes: usize, timeout: Duration) -> Self {
        Self {
            method: Method::POST,
            body: Some(body),
            follow_redirects: false,
            ..Self::get(url, max_response_bytes, timeout)
        }
    }

    pub fn header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.insert(name, value);
        self
    }

    pub fn headers(mut self, headers: HeaderMap) -> Self {
        self.headers.extend(headers);
        self
    }

    pub fn follow_redirects(mut self, follow: bool) -> Self {
        self.follow_redirects = follow;
        self
    }

    pub fn overflow(mut self, overflow: Overflow) -> Self {
        self.overflow = overflow;
        self
    }
}

/// The outcome of one hop.
#[derive(Debug)]
pub(crate) enum Hop {
    Done(FetchedResponse),
    Redirect { status: StatusCode, location: Url },
}

/// Builds a [`SafeClient`].
pub struct SafeClientBuilder {
    policy: NetPolicy,
    resolver: Arc<dyn HostResolver>,
    user_agent: String,
    connect_timeout: Duration,
}

impl SafeClientBuilder {
    /// Host resolution used at connect time (default: the system resolver).
    pub fn resolver(mut self, resolver: Arc<dyn HostResolver>) -> Self {
        self.resolver = resolver;
        self
    }

    /// Default `User-Agent` (default: [`DEFAULT_USER_AGENT`]).
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = user_agent.into();
        self
    }

    /// Budget of the TCP (and TLS) connection set-up (default 10 s). Requests' own timeouts still apply.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    pub fn build(self) -> Result<SafeClient, ClientBuildError> {
        let policy = Arc::new(self.policy);
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .dns_resolver(Arc::new(PolicyDnsResolver { policy: policy.clone(), resolver: self.resolver }))
            .user_agent(self.user_agent)
            .connect_timeout(self.connect_timeout)
            .build()
            .map_err(|e| ClientBuildError(error_chain(&e)))?;
        Ok(SafeClient { policy, client })
    }
}

/// An HTTP client bound to a [`NetPolicy`]. Cheap to clone (shares the connection pool).
#[derive(Clone)]
pub struct SafeClient {
    policy: Arc<NetPolicy>,
    client: reqwest::Client,
}

impl std::fmt::Debug for SafeClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SafeClient").field("policy", &self.policy).finish_non_exhaustive()
    }
}

impl SafeClient {
    pub fn builder(policy: NetPolicy) -> SafeClientBuilder {
        SafeClientBuilder {
            policy,
            resolver: Arc::new(SystemResolver),
            user_agent: DEFAULT_USER_AGENT.to_string(),
            connect_timeout: Duration::from_secs(10),
        }
    }

    /// A client with the system resolver and the default user agent.
    pub fn new(policy: NetPolicy) -> Result<Self, ClientBuildError> {
        Self::builder(policy).build()
    }

    pub fn policy(&self) -> &NetPolicy {
        &self.policy
    }

    /// The underlying `reqwest` client: redirects off, proxies off, policy-filtering resolver.
    /// Code that uses it directly must pass every URL through [`SafeClient::check_url`] first
    /// (literal-IP hosts bypass the resolver) and must not follow redirects blindly.
    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// Parses, normalises and statically checks a URL (scheme, credentials, port, literal IP).
    /// Domain hosts are judged at connect time.
    pub fn check_url(&self, url: &str) -> Result<Url, UrlRejection> {
        let url = parse_url(url)?;
        self.policy.check_url(&url)?;
        Ok(url)
    }

    /// GET with redirects (each hop re-checked); non-2xx statuses are returned, not errors.
    pub async fn get(&self, url: &str, max_bytes: usize, timeout: Duration) -> Result<FetchedResponse, FetchError> {
        self.send(SafeRequest::get(url, max_bytes, timeout)).await
    }

    /// POST of a JSON body (already serialised: signatures cover the exact bytes) with extra
    /// headers, redirects NOT followed (a 3xx is returned as the response).
    pub async fn post_json(
        &self,
        url: &str,
        headers: HeaderMap,
        body: Vec<u8>,
        timeout: Duration,
        max_response_bytes: usize,
    ) -> Result<FetchedResponse, FetchError> {
        let request = SafeRequest::post(url, body, max_response_bytes, timeout)
            .header(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))
            .headers(headers);
        self.send(request).await
    }

    /// Sends a request within its timeout, following redirects when asked.
    pub async fn send(&self, request: SafeRequest) -> Result<FetchedResponse, FetchError> {
        let timeout = request.timeout;
        tokio::time::timeout(timeout, self.send_inner(request)).await.map_err(|_| FetchError::Timeout(timeout))?
    }

    async fn send_inner(&self, request: SafeRequest) -> Result<FetchedResponse, FetchError> {
        let SafeRequest {
            mut method, url, mut headers, mut body, max_response_bytes, overflow, follow_redirects, ..
        } = request;
        let mut url = parse_url(&url)?;
        let mut redirects = 0;
        loop {
            let hop = self.hop(&method, &url, &headers, body.clone(), max_response_bytes, overflow, follow_redirects);
            match hop.await? {
                Hop::Done(response) => return Ok(response),
                Hop::Redirect { status, location } => {
                    if redirects == MAX_REDIRECTS {
                        return Err(FetchError::TooManyRedirects(MAX_REDIRECTS));
                    }
                    redirects += 1;
                    // 303 always, and 301/302 after a POST, continue as GET without a body (what
                    // browsers do); 307/308 repeat the request.
                    if status == StatusCode::SEE_OTHER
                        || (method == Method::POST
                            && matches!(status, StatusCode::MOVED_PERMANENTLY | StatusCode::FOUND))
                    {
                        method = Method::GET;
                        body = None;
                        headers.remove(header::CONTENT_TYPE);
                        headers.remove(header::CONTENT_LENGTH);
                    }
                    if location.origin() != url.origin() {
                        for name in [header::AUTHORIZATION, header::COOKIE, header::PROXY_AUTHORIZATION] {
                            headers.remove(name);
                        }
                    }
                    url = location;
                }
            }
        }
    }

    /// One request, no redirect following: policy check, send, peer check, then either the
    /// redirect target (when `follow` and the response is a redirect with a `Location`) or the
    /// capped body. No timeout of its own: callers bound it.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn hop(
        &self,
        method: &Method,
        url: &Url,
        headers: &HeaderMap,
        body: Option<Vec<u8>>,
        max_bytes: usize,
        overflow: Overflow,
        follow: bool,
    ) -> Result<Hop, FetchError> {
        self.policy.check_url(url)?;
        let mut builder = self.client.request(method.clone(), url.clone()).headers(headers.clone());
        if let Some(body) = body {
            builder = builder.body(body);
        }
        let mut response = builder.send().await.map_err(map_reqwest_error)?;
        if let Some(peer) = response.remote_addr()
            && let Some(why) = self.policy.ip_refusal(peer.ip())
        {
            return Err(FetchError::Blocked(format!("connected address {why}")));
        }
        let status = response.status();
        if follow
            && matches!(
                status,
                StatusCode::MOVED_PERMANENTLY
                    | StatusCode::FOUND
                    | StatusCode::SEE_OTHER
                    | StatusCode::TEMPORARY_REDIRECT
                    | StatusCode::PERMANENT_REDIRECT
            )
            && let Some(location) = response.headers().get(header::LOCATION)
        {
            let mut location = location
                .to_str()
                .ok()
                .and_then(|l| url.join(l.trim()).ok())
                .ok_or_else(|| FetchError::Invalid("a redirect points to an invalid location".into()))?;
            location.set_fragment(None);
            return Ok(Hop::Redirect { status, location });
        }

        let headers = response.headers().clone();
        let content_type = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(str::to_string);
        if overflow == Overflow::Error && response.content_length().is_some_and(|len| len > max_bytes as u64) {
            return Err(FetchError::TooLarge { limit: max_bytes });
        }
        let mut body = Vec::new();
        let mut truncated = false;
        while let Some(chunk) = response.chunk().await.map_err(map_reqwest_error)? {
            let room = max_bytes - body.len();
            if chunk.len() > room {
                if overflow == Overflow::Error {
                    return Err(FetchError::TooLarge { limit: max_bytes });
                }
                body.extend_from_slice(&chunk[..room]);
                truncated = true;
                break;
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Hop::Done(FetchedResponse { final_url: url.clone(), status, headers, content_type, body, truncated }))
    }
}

/// A `reqwest` error as a [`FetchError`]: a refusal by the connect-time resolver is `Blocked`.
fn map_reqwest_error(error: reqwest::Error) -> FetchError {
    let mut source: Option<&(dyn StdError + 'static)> = Some(&error);
    while let Some(e) = source {
        if let Some(refused) = e.downcast_ref::<RefusedAddress>() {
            return FetchError::Blocked(refused.0.clone());
        }
        source = e.source();
    }
    FetchError::Network(error_chain(&error))
}

/// "outer: inner: innermost", without repeating a message its wrapper already contains.
fn error_chain(error: &(dyn StdError + 'static)) -> String {
    let mut out = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        let message = e.to_string();
        if !out.contains(&message) {
            out.push_str(": ");
            out.push_str(&message);
        }
        source = e.source();
    }
    out
}
