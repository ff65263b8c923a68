//! The `ActionCaller` port over the SSRF-safe client (docs/api.md §23): an owner's endpoint is
//! called like a webhook receiver — the address actually connected to checked, no redirects
//! followed, the answer read up to its cap and the rest dropped unread.

use crate::{FetchError, NetPolicy, Overflow, SafeClient, SafeRequest};
use async_trait::async_trait;
use lore_app::ports::{ActionCaller, ActionOutcome, ActionRequest};
use lore_domain::action::ActionMethod;
use reqwest::header::{CONTENT_TYPE, HeaderName, HeaderValue, USER_AGENT};

pub const USER_AGENT_VALUE: &str = "Lore-Actions/0.1";

#[derive(Clone)]
pub struct ActionClient {
    client: SafeClient,
}

impl ActionClient {
    pub fn new(policy: NetPolicy) -> Result<Self, String> {
        let client = SafeClient::builder(policy)
            .user_agent(USER_AGENT_VALUE)
            .build()
            .map_err(|e| format!("cannot build the actions' HTTP client: {e:?}"))?;
        Ok(Self { client })
    }
}

/// The URL with the request's query pairs appended (percent-encoded).
fn url_of(request: &ActionRequest) -> String {
    match url::Url::parse(&request.url) {
        Ok(mut url) if !request.query.is_empty() => {
            url.query_pairs_mut().extend_pairs(request.query.iter());
            url.to_string()
        }
        // An unparsable URL is refused by the client with its reason.
        _ => request.url.clone(),
    }
}

fn safe_request(request: &ActionRequest) -> SafeRequest {
    let (cap, timeout, url) = (request.max_answer_bytes, request.timeout, url_of(request));
    let mut safe = match (request.method, &request.body) {
        (ActionMethod::Post, body) => SafeRequest::post(url, body.clone().unwrap_or_default(), cap, timeout)
            .header(CONTENT_TYPE, HeaderValue::from_static("application/json")),
        (ActionMethod::Get, _) => SafeRequest::get(url, cap, timeout).follow_redirects(false),
    };
    safe = safe.header(USER_AGENT, HeaderValue::from_static(USER_AGENT_VALUE)).overflow(Overflow::Truncate);
    for (name, value) in &request.headers {
        // Names and values were validated when the action was saved; one that is not a header
        // now is left out rather than failing the call.
        if let (Ok(n), Ok(v)) = (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(value)) {
            safe = safe.header(n, v);
        }
    }
    safe
}

#[async_trait]
impl ActionCaller for ActionClient {
    async fn call(&self, request: &ActionRequest) -> ActionOutcome {
        match self.client.send(safe_request(request)).await {
            Ok(answer) => ActionOutcome::Answered {
                status: answer.status.as_u16(),
                body: answer.body,
                truncated: answer.truncated,
            },
            Err(FetchError::Timeout(_)) => ActionOutcome::TimedOut,
            Err(FetchError::Blocked(why)) => ActionOutcome::Failed(format!("blocked by request protection: {why}")),
            Err(e) => ActionOutcome::Failed(e.to_string()),
        }
    }
}
