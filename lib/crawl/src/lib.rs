//! Request protection and crawling.
//!
//! * [`NetPolicy`]: which schemes, ports and addresses may be contacted (docs/api.md §14);
//!   `LORE_ALLOW_PRIVATE_NETWORK=true` lifts the address and port rules, `LORE_ALLOWED_PORTS`
//!   replaces the default ports `80,443,8000-8999`.
//! * [`Guard`]: the `UrlGuard` port — parse, normalise, resolve and judge a URL.
//! * [`SafeClient`]: an HTTP client that re-checks every hop and every address it connects to;
//!   shared by the crawler and webhook delivery.
//! * [`WebCrawler`]: the `Crawler` port — same-site, robots.txt-respecting, sitemap-reading, bounded.
//! * [`SignedSender`]: the `WebhookSender` port — Standard Webhooks signatures over [`SafeClient`].
//! * [`LazyCrawler`], [`LazySender`]: the same, with the HTTP client built at first use (loading
//!   the system's root certificates costs a Lambda cold start milliseconds in functions that never
//!   crawl or deliver).

mod actions;
mod client;
mod crawler;
mod guard;
mod lazy;
mod links;
mod policy;
mod resolve;
mod robots;
mod sitemap;
pub mod webhooks;

pub use actions::ActionClient;
pub use client::{
    ClientBuildError, DEFAULT_USER_AGENT, FetchError, FetchedResponse, MAX_REDIRECTS, Overflow, SafeClient,
    SafeClientBuilder, SafeRequest,
};
pub use crawler::{CrawlConfig, WebCrawler};
pub use guard::Guard;
pub use lazy::{LazyActionCaller, LazyCrawler, LazySender};
pub use links::{canonical_url, extract_links, has_skipped_extension, is_html, is_text_page, media_type};
pub use policy::{
    ALLOW_PRIVATE_ENV, ALLOWED_PORTS_ENV, Cidr, CidrError, MAX_URL_LEN, NetPolicy, default_ports, parse_ports,
    parse_url, refusal_reason,
};
pub use resolve::{HostResolver, LOOKUP_TIMEOUT, StaticResolver, SystemResolver};
pub use robots::{ROBOTS_MAX_BYTES, ROBOTS_USER_AGENT, RobotsRules, fetch_robots};
pub use sitemap::{SitemapEntries, parse_sitemap};
pub use webhooks::SignedSender;

/// The `reqwest` and `url` versions this crate's API uses.
pub use reqwest;
pub use url;
