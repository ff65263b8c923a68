//! Network adapters built on first use. Their HTTP clients load the system's root certificates
//! (hundreds of files), which cost a Lambda cold start milliseconds (docs/benchmarks.md,
//! "processes") in every function, though only the ingest worker crawls and only the dispatcher
//! sends webhooks.

use crate::NetPolicy;
use async_trait::async_trait;
use lore_app::ports::{ActionCaller, ActionOutcome, ActionRequest};
use lore_app::ports::{CrawlError, CrawlRequest, CrawledPage, Crawler};
use lore_app::ports::{SendOutcome, WebhookRequest, WebhookSender};
use std::sync::OnceLock;

/// A value built once by `build`, or the reason it could not be.
struct Lazy<T> {
    policy: NetPolicy,
    build: fn(NetPolicy) -> Result<T, String>,
    cell: OnceLock<Result<T, String>>,
}

impl<T> Lazy<T> {
    fn get(&self) -> Result<&T, &str> {
        self.cell.get_or_init(|| (self.build)(self.policy.clone())).as_ref().map_err(String::as_str)
    }
}

/// [`crate::WebCrawler`] on a client built at the first crawl: the `Crawler` the compositions use.
pub struct LazyCrawler(Lazy<crate::WebCrawler>);

impl LazyCrawler {
    pub fn new(policy: NetPolicy) -> Self {
        Self(Lazy {
            policy,
            build: |p| {
                crate::SafeClient::new(p)
                    .map(crate::WebCrawler::new)
                    .map_err(|e| format!("cannot build the HTTP client: {e:?}"))
            },
            cell: OnceLock::new(),
        })
    }
}

#[async_trait]
impl Crawler for LazyCrawler {
    async fn crawl(
        &self,
        request: CrawlRequest,
        on_page: &(dyn Fn(usize) + Send + Sync),
    ) -> Result<Vec<CrawledPage>, CrawlError> {
        match self.0.get() {
            Ok(crawler) => crawler.crawl(request, on_page).await,
            Err(reason) => Err(CrawlError::Unreachable { url: request.url, reason: reason.to_owned() }),
        }
    }
}

/// [`crate::SignedSender`] on a client built at the first delivery: the `WebhookSender` the
/// compositions use.
pub struct LazySender(Lazy<crate::webhooks::SignedSender>);

impl LazySender {
    pub fn new(policy: NetPolicy) -> Self {
        Self(Lazy { policy, build: |p| crate::webhooks::SignedSender::new(p), cell: OnceLock::new() })
    }
}

#[async_trait]
impl WebhookSender for LazySender {
    async fn send(&self, request: &WebhookRequest) -> SendOutcome {
        match self.0.get() {
            Ok(sender) => sender.send(request).await,
            Err(reason) => SendOutcome::NoAnswer(reason.to_owned()),
        }
    }
}

/// [`crate::ActionClient`] on a client built at the first call: the `ActionCaller` the
/// compositions use.
pub struct LazyActionCaller(Lazy<crate::ActionClient>);

impl LazyActionCaller {
    pub fn new(policy: NetPolicy) -> Self {
        Self(Lazy { policy, build: crate::ActionClient::new, cell: OnceLock::new() })
    }
}

#[async_trait]
impl ActionCaller for LazyActionCaller {
    async fn call(&self, request: &ActionRequest) -> ActionOutcome {
        match self.0.get() {
            Ok(caller) => caller.call(request).await,
            Err(reason) => ActionOutcome::Failed(reason.to_owned()),
        }
    }
}
