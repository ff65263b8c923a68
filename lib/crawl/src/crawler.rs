//! [`WebCrawler`]: the `Crawler` port — a polite, bounded, same-site, breadth-first crawl.

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use lore_app::ports::{CrawlError, CrawlRequest, CrawledPage, Crawler, UrlRejection};
use reqwest::header::HeaderMap;
use reqwest::{Method, StatusCode};
use url::Url;

use crate::client::{FetchError, FetchedResponse, Hop, MAX_REDIRECTS, Overflow, SafeClient};
use crate::links::{PageFacts, has_skipped_extension, is_html, is_text_page, mentions_canonical, read_page};
use crate::policy::parse_url;
use crate::robots::{ROBOTS_MAX_BYTES, RobotsRules, fetch_robots};
use crate::sitemap::{SitemapEntries, parse_sitemap};

/// Bounds of a crawl beyond those of the [`CrawlRequest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrawlConfig {
    /// Bytes of robots.txt read (default 500 KiB; the rest is ignored).
    pub robots_max_bytes: usize,
    /// Longest `Crawl-delay` honoured between two page fetches (default 2 s; longer delays are
    /// shortened to this, so a crawl stays within the ingest lease).
    pub max_crawl_delay: Duration,
    /// Wall-clock budget of the whole crawl (default 10 min); when it runs out the pages fetched
    /// so far are returned.
    pub max_total_time: Duration,
    /// Page fetches attempted per page of `max_pages` (default 3): a site full of broken links
    /// cannot keep the crawl busy forever.
    pub attempts_per_page: usize,
    /// Most URLs remembered (queued or seen) per crawl (default 10 000); also the most page
    /// URLs taken from the sitemaps.
    pub max_known_urls: usize,
    /// Sitemap files fetched per crawl, index children included (default 8). Each one also
    /// counts as an attempt of the `attempts_per_page` budget.
    pub max_sitemaps: usize,
}

impl Default for CrawlConfig {
    fn default() -> Self {
        Self {
            robots_max_bytes: ROBOTS_MAX_BYTES,
            max_crawl_delay: Duration::from_secs(2),
            max_total_time: Duration::from_secs(600),
            attempts_per_page: 3,
            max_known_urls: 10_000,
            max_sitemaps: 8,
        }
    }
}

/// Crawls through a [`SafeClient`].
///
/// Behaviour:
/// * Breadth first from the start URL; depth 1 = the start page only, depth N = links followed
///   up to N-1 hops (depth 0 is treated as 1, `max_pages` 0 as 1).
/// * **Same site**: a link is followed only when its host string equals the crawl's host
///   exactly and its port is the same — except that `http` on port 80 and `https` on port 443
///   count as the same site (so an `http → https` upgrade stays inside). The crawl's site is that
///   of the start page's *final* URL, so `example.com → www.example.com` redirects of the start
///   page work. A later page that redirects off-site is skipped. Pages are de-duplicated by URL
///   without scheme.
/// * robots.txt is fetched once per origin (in practice: once, from the start host) through the
///   same client, capped at 500 KiB, for user agent `LoreBot`. Every URL — each redirect hop too —
///   is checked against it before it is requested. 4xx = no rules; 5xx/429/network errors = all
///   disallowed (RFC 9309). `Crawl-delay` is honoured up to [`CrawlConfig::max_crawl_delay`].
/// * Links: `<a href>`, `<iframe src>` and `<frame src>`, also inside `<noscript>` (the plain-HTML
///   navigation of JavaScript-built sites, e.g. mdBook's `<noscript><iframe src="toc.html">`),
///   resolved against `<base href>` / the page URL, fragments dropped, http(s) only, links to
///   non-page files (`.png`, `.zip`, `.pdf`, …) skipped. Only HTML pages are parsed for links; a
///   framed page is a page like any other (fetched, stored, its links followed).
/// * **Sitemaps**, when the start page is HTML and depth ≥ 2: the same-site `Sitemap:` URLs of the
///   site's robots.txt, or `/sitemap.xml` when robots.txt lists none (a site that names its
///   sitemaps is not probed for another). XML `<urlset>`s, plain-text sitemaps (one URL per line)
///   and `<sitemapindex>` files, whose children are read one level deep (an index inside an
///   index is ignored). Every sitemap fetch is a page fetch: same site (every redirect hop),
///   robots.txt, request protection, `page_timeout`, crawl delay, one attempt of the attempts
///   budget; at most [`CrawlConfig::max_sitemaps`] of them; bodies are read up to
///   `max_page_bytes` and a longer one is cut there (its URLs up to the cut are used); `.gz`
///   sitemaps (not decompressed: no compression bombs) and HTML answers (a site's "not found"
///   page) are skipped. A missing, failing or malformed sitemap only costs its attempt.
/// * **Order**: the sitemaps are read when the crawl has taken every link of the start page, so a
///   crawl that fills `max_pages` from the start page's links fetches no sitemap. Their page URLs
///   (same site, allowed by robots.txt, not yet known, at most `max_known_urls`) then go at
///   depth 2 in sitemap order, ahead of the depth-3 links found meanwhile: the crawl stays
///   breadth first, depth 1 is still the start page only, and a depth-2 crawl gets the start
///   page, its links, then the sitemap's pages. Navigation links come first because they are
///   what the site shows its readers; the sitemap fills in the pages they do not reach.
/// * Start page: any 2xx content type is returned (the extractor decides what it is; a
///   `text/plain` or Markdown start page is a one-page crawl). Later pages are kept only when they
///   are HTML, plain text or Markdown.
/// * A page over `max_page_bytes` is **skipped** (never truncated: half a page is worse than none);
///   a start page over the cap makes the crawl `Unreachable`.
/// * Start page failure: refused by request protection → `CrawlError::Blocked`; anything else
///   (DNS, connection, timeout, non-2xx, too large, robots.txt, > 5 redirects) → `Unreachable`.
///   Later page failures are skipped (`tracing::debug!`).
/// * **Canonical URLs**: a page whose `<link rel="canonical" href="…">` names another page of the
///   crawl (a stored page's final URL, or a URL that led to it; compared without scheme) is left
///   out of the result: that page holds its text under the address the site wants cited (mdBook's
///   redirect stubs, `?page=1` and print variants that say so). Its links are still followed.
///   Chains are followed to their end (`a → b → c`: `a` and `b` are left out); pages whose
///   canonical URLs form a cycle, name themselves, another site or a page not crawled are kept.
///   Leaf pages (links not followed) are parsed for it only when their body mentions `canonical`.
/// * **`noindex` pages give way** when the crawl is full: a page with
///   `<meta name="robots" content="noindex">` (mdBook's `print.html`, the whole book on one page,
///   and its `toc.html`) is kept while there is room, but once `max_pages` pages are kept the next
///   indexable page takes the place of the last `noindex` page kept (never the start page), and
///   further `noindex` pages are not kept (their links are still followed). So a capped crawl of a
///   book holds chapters, not the print page that would be the only copy of the chapters it did
///   not reach. The crawl stops when it is full of indexable pages (or a budget runs out).
/// * One request at a time; `on_page(n)` after each stored page (and once more with the final
///   count when canonical duplicates were left out).
#[derive(Debug, Clone)]
pub struct WebCrawler {
    client: SafeClient,
    config: CrawlConfig,
}

impl WebCrawler {
    pub fn new(client: SafeClient) -> Self {
        Self::with_config(client, CrawlConfig::default())
    }

    pub fn with_config(client: SafeClient, config: CrawlConfig) -> Self {
        Self { client, config }
    }

    pub fn client(&self) -> &SafeClient {
        &self.client
    }

    pub fn config(&self) -> &CrawlConfig {
        &self.config
    }
}

/// Host and port identity of a site (scheme-insensitive on default ports, see [`WebCrawler`]).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Site {
    host: String,
    /// `None` for the scheme's default port.
    port: Option<u16>,
}

impl Site {
    fn of(url: &Url) -> Option<Self> {
        Some(Self { host: url.host_str()?.to_string(), port: url.port() })
    }

    fn contains(&self, url: &Url) -> bool {
        Self::of(url).as_ref() == Some(self)
    }
}

/// De-duplication key: the URL without its scheme.
fn url_key(url: &Url) -> String {
    let s = url.as_str();
    s.split_once("://").map_or(s, |(_, rest)| rest).to_string()
}

/// Why one page was not fetched.
#[derive(Debug, thiserror::Error)]
enum PageError {
    #[error(transparent)]
    Fetch(#[from] FetchError),
    #[error("the server answered HTTP {0}")]
    Status(StatusCode),
    #[error("{0}")]
    Robots(String),
    #[error("it redirects to another site ({0})")]
    OffSite(Url),
}

impl From<UrlRejection> for PageError {
    fn from(r: UrlRejection) -> Self {
        Self::Fetch(r.into())
    }
}

/// State of one crawl.
struct Run<'a> {
    crawler: &'a WebCrawler,
    request: &'a CrawlRequest,
    robots: HashMap<String, RobotsRules>,
    last_fetch: Option<Instant>,
}

impl Run<'_> {
    /// The rules of `url`'s origin, fetched on first use.
    async fn robots_for(&mut self, url: &Url) -> &RobotsRules {
        let origin = url.origin().ascii_serialization();
        if !self.robots.contains_key(&origin) {
            let rules = fetch_robots(
                &self.crawler.client,
                url,
                self.crawler.config.robots_max_bytes,
                self.request.page_timeout,
            )
            .await;
            self.robots.insert(origin.clone(), rules);
        }
        &self.robots[&origin]
    }

    /// Waits out the crawl delay of `url`'s origin since the previous page fetch.
    async fn politeness_delay(&mut self, url: &Url) {
        let delay = self.robots_for(url).await.crawl_delay().map(|d| d.min(self.crawler.config.max_crawl_delay));
        if let (Some(delay), Some(last)) = (delay, self.last_fetch) {
            tokio::time::sleep_until((last + delay).into()).await;
        }
    }

    /// Fetches one page: each hop checked against policy, site (unless `site` is `None`: the
    /// start page) and robots.txt; redirects followed up to [`MAX_REDIRECTS`]; a 2xx required;
    /// the whole page within `page_timeout`.
    async fn fetch_page(&mut self, url: &Url, site: Option<&Site>) -> Result<FetchedResponse, PageError> {
        self.fetch(url, site, Overflow::Error).await
    }

    /// [`Self::fetch_page`] with a choice of what a body over `max_page_bytes` does.
    async fn fetch(
        &mut self,
        url: &Url,
        site: Option<&Site>,
        overflow: Overflow,
    ) -> Result<FetchedResponse, PageError> {
        let timeout = self.request.page_timeout;
        // The clock starts with the first request (the robots.txt fetch has its own timeout).
        let mut deadline: Option<Instant> = None;
        let mut current = url.clone();
        let mut redirects = 0;
        let no_headers = HeaderMap::new();
        loop {
            self.crawler.client.policy().check_url(&current)?;
            if let Some(site) = site
                && !site.contains(&current)
            {
                return Err(PageError::OffSite(current));
            }
            if let Some(refusal) = self.robots_for(&current).await.refusal(&current) {
                return Err(PageError::Robots(refusal));
            }
            let deadline = *deadline.get_or_insert_with(|| Instant::now() + timeout);
            let remaining = deadline.saturating_duration_since(Instant::now());
            let hop = self.crawler.client.hop(
                &Method::GET,
                &current,
                &no_headers,
                None,
                self.request.max_page_bytes,
                overflow,
                true,
            );
            self.last_fetch = Some(Instant::now());
            let hop = tokio::time::timeout(remaining, hop).await.map_err(|_| FetchError::Timeout(timeout))??;
            match hop {
                Hop::Done(response) if response.status.is_success() => return Ok(response),
                Hop::Done(response) => return Err(PageError::Status(response.status)),
                Hop::Redirect { location, .. } => {
                    if redirects == MAX_REDIRECTS {
                        return Err(FetchError::TooManyRedirects(MAX_REDIRECTS).into());
                    }
                    redirects += 1;
                    current = location;
                }
            }
        }
    }

    /// The page URLs listed by the sitemaps of the site of `home` (see [`WebCrawler`]), allowed
    /// by robots.txt as far as its rules are loaded (the rest is checked when fetched).
    async fn sitemap_pages(&mut self, home: &Url, site: &Site, budget: &mut Budget) -> Vec<Url> {
        let max_entries = self.crawler.config.max_known_urls;
        let mut todo: VecDeque<(Url, bool)> = match self.robots_for(home).await {
            RobotsRules::Rules(robot) => {
                robot.sitemaps.iter().filter_map(|s| home.join(s.trim()).ok()).map(|u| (u, false)).collect()
            }
            _ => VecDeque::new(),
        };
        todo.retain(|(u, _)| site.contains(u));
        if todo.is_empty() {
            todo.extend(home.join("/sitemap.xml").ok().map(|u| (u, false)));
        }
        let mut seen = HashSet::new();
        let mut fetched = 0;
        let mut pages = Vec::new();
        // `nested`: listed by an index, whose own index entries are not followed.
        while let Some((url, nested)) = todo.pop_front() {
            if fetched >= self.crawler.config.max_sitemaps || pages.len() >= max_entries || budget.spent() {
                break;
            }
            if !site.contains(&url) || has_skipped_extension(&url) || !seen.insert(url_key(&url)) {
                continue;
            }
            fetched += 1;
            budget.take();
            self.politeness_delay(&url).await;
            let response = match self.fetch(&url, Some(site), Overflow::Truncate).await {
                Ok(response) => response,
                Err(error) => {
                    tracing::debug!(%url, %error, "crawl: skipping sitemap");
                    continue;
                }
            };
            if is_html(response.content_type.as_deref(), &response.body) {
                tracing::debug!(%url, "crawl: skipping sitemap that is an HTML page");
                continue;
            }
            let entries = sitemap_entries(response, max_entries - pages.len()).await;
            pages.extend(entries.pages);
            if !nested {
                todo.extend(entries.sitemaps.into_iter().map(|u| (u, true)));
            }
        }
        pages.retain(|url| self.robots.get(&url.origin().ascii_serialization()).is_none_or(|r| r.allows(url)));
        pages
    }
}

/// The entries of a fetched sitemap, parsed off the async threads (like [`page_links`]).
async fn sitemap_entries(response: FetchedResponse, max_entries: usize) -> SitemapEntries {
    let url = response.final_url;
    let body = response.body;
    let at = url.clone();
    match tokio::task::spawn_blocking(move || parse_sitemap(&body, &at, max_entries)).await {
        Ok(entries) => entries,
        Err(e) => {
            tracing::debug!(%url, error = %e, "crawl: sitemap parsing failed");
            SitemapEntries::default()
        }
    }
}

/// The fetch-attempt and wall-clock budgets of a crawl.
struct Budget {
    attempts: usize,
    max_attempts: usize,
    started: Instant,
    max_time: Duration,
}

impl Budget {
    /// Whether no further fetch may be attempted.
    fn spent(&self) -> bool {
        if self.attempts >= self.max_attempts {
            tracing::debug!(attempts = self.attempts, "crawl stopped: fetch attempt budget spent");
            return true;
        }
        if self.started.elapsed() >= self.max_time {
            tracing::debug!(elapsed = ?self.started.elapsed(), "crawl stopped: time budget spent");
            return true;
        }
        false
    }

    fn take(&mut self) {
        self.attempts += 1;
    }
}

/// What the crawl knows of a page it keeps.
struct Kept {
    /// The key of its final URL.
    key: String,
    /// The key of the canonical URL it names.
    canonical: Option<String>,
    /// It asks not to be indexed (never set for the start page).
    noindex: bool,
}

/// What the crawl does next.
enum Task {
    /// Fetch a page found at this depth.
    Page(Url, u8),
    /// Read the sitemaps (queued after the start page's links).
    Sitemaps,
}

/// URLs to visit, and every URL queued or fetched so far (requested and final).
struct Frontier {
    known: HashSet<String>,
    queue: VecDeque<Task>,
    site: Site,
    depth: u8,
    max_known: usize,
}

impl Frontier {
    /// Queues the new same-site `links` of a page at `level` when `level < depth`.
    fn enqueue_links(&mut self, links: Vec<Url>, level: u8) {
        if level >= self.depth {
            return;
        }
        for link in links {
            if self.known.len() >= self.max_known {
                break;
            }
            if self.site.contains(&link) && self.known.insert(url_key(&link)) {
                self.queue.push_back(Task::Page(link, level + 1));
            }
        }
    }

    /// Queues the new same-site `urls` at `level`, in order, ahead of everything queued.
    fn enqueue_first(&mut self, urls: Vec<Url>, level: u8) {
        let mut new = Vec::new();
        for url in urls {
            if self.known.len() >= self.max_known {
                break;
            }
            if self.site.contains(&url) && self.known.insert(url_key(&url)) {
                new.push(Task::Page(url, level));
            }
        }
        for task in new.into_iter().rev() {
            self.queue.push_front(task);
        }
    }
}

/// The links and canonical URL of an HTML page found at `level`, parsed off the async threads
/// (a 5 MB page takes a while; a parser panic costs the page's links, not the crawl). A page
/// whose links are not followed is parsed only when it may name a canonical URL.
async fn page_facts(page: &FetchedResponse, level: u8, depth: u8) -> PageFacts {
    if !is_html(page.content_type.as_deref(), &page.body) || level >= depth && !mentions_canonical(&page.body) {
        return PageFacts::default();
    }
    let body = page.body.clone();
    let url = page.final_url.clone();
    match tokio::task::spawn_blocking(move || read_page(&body, &url)).await {
        Ok(facts) => facts,
        Err(e) => {
            tracing::debug!(url = %page.final_url, error = %e, "crawl: link extraction failed");
            PageFacts::default()
        }
    }
}

/// Which stored pages are canonical duplicates (see [`WebCrawler`]): `canonical[i]` is the key of
/// page `i`'s canonical URL, `pages` maps the keys of the crawl's URLs to the page they led to.
/// Page `i` goes when following canonical URLs from it through stored pages ends at another page;
/// a cycle keeps every page on it.
fn canonical_duplicates(canonical: &[Option<String>], pages: &HashMap<String, usize>) -> Vec<bool> {
    let next = |i: usize| canonical[i].as_ref().and_then(|key| pages.get(key)).copied().filter(|&j| j != i);
    (0..canonical.len())
        .map(|i| {
            let mut at = i;
            let mut steps = 0;
            while let Some(j) = next(at) {
                at = j;
                steps += 1;
                if at == i || steps > canonical.len() {
                    return false; // a cycle: no page of it is the canonical one
                }
            }
            at != i
        })
        .collect()
}

fn start_error(request: &CrawlRequest, error: PageError) -> CrawlError {
    match error {
        PageError::Fetch(FetchError::Blocked(reason)) => CrawlError::Blocked(reason),
        other => CrawlError::Unreachable { url: request.url.clone(), reason: other.to_string() },
    }
}

#[async_trait]
impl Crawler for WebCrawler {
    async fn crawl(
        &self,
        request: CrawlRequest,
        on_page: &(dyn Fn(usize) + Send + Sync),
    ) -> Result<Vec<CrawledPage>, CrawlError> {
        let depth = request.depth.max(1);
        let max_pages = request.max_pages.max(1);
        let mut budget = Budget {
            attempts: 0,
            max_attempts: max_pages.saturating_mul(self.config.attempts_per_page.max(1)),
            started: Instant::now(),
            max_time: self.config.max_total_time,
        };

        let start = parse_url(&request.url).map_err(|r| start_error(&request, r.into()))?;
        let mut run = Run { crawler: self, request: &request, robots: HashMap::new(), last_fetch: None };

        // The start page decides the site.
        let first = run.fetch_page(&start, None).await.map_err(|e| start_error(&request, e))?;
        let site = Site::of(&first.final_url).ok_or_else(|| {
            start_error(&request, PageError::Fetch(FetchError::Invalid("the final URL has no host".into())))
        })?;

        let mut frontier = Frontier {
            known: HashSet::from([url_key(&start), url_key(&first.final_url)]),
            queue: VecDeque::new(),
            site,
            depth,
            max_known: self.config.max_known_urls,
        };
        // Final URLs of stored pages.
        let mut stored: HashSet<String> = HashSet::from([url_key(&first.final_url)]);
        let facts = page_facts(&first, 1, depth).await;
        frontier.enqueue_links(facts.links, 1);
        if depth >= 2 && is_html(first.content_type.as_deref(), &first.body) {
            frontier.queue.push_back(Task::Sitemaps);
        }
        let home = first.final_url.clone();
        let mut collected = Collected::start(&start, first, facts.canonical.as_ref().map(url_key), max_pages);
        on_page(collected.pages.len());

        while let Some(task) = frontier.queue.pop_front() {
            if collected.full() || budget.spent() {
                break;
            }
            let (url, level) = match task {
                Task::Page(url, level) => (url, level),
                Task::Sitemaps => {
                    let site = frontier.site.clone();
                    let urls = run.sitemap_pages(&home, &site, &mut budget).await;
                    frontier.enqueue_first(urls, 2);
                    continue;
                }
            };
            if stored.contains(&url_key(&url)) || has_skipped_extension(&url) {
                continue;
            }
            budget.take();
            run.politeness_delay(&url).await;
            let page = match run.fetch_page(&url, Some(&frontier.site)).await {
                Ok(page) => page,
                Err(error) => {
                    tracing::debug!(%url, %error, "crawl: skipping page");
                    continue;
                }
            };
            if !stored.insert(url_key(&page.final_url)) {
                tracing::debug!(%url, final_url = %page.final_url, "crawl: skipping page already fetched");
                collected.led_to.entry(url_key(&url)).or_insert_with(|| url_key(&page.final_url));
                continue;
            }
            frontier.known.insert(url_key(&page.final_url));
            if !is_text_page(page.content_type.as_deref(), &page.body) {
                tracing::debug!(%url, content_type = ?page.content_type, "crawl: skipping non-text page");
                continue;
            }
            let facts = page_facts(&page, level, depth).await;
            frontier.enqueue_links(facts.links, level);
            let key = url_key(&page.final_url);
            for from in [url_key(&url), key.clone()] {
                collected.led_to.entry(from).or_insert_with(|| key.clone());
            }
            let kept = Kept { key, canonical: facts.canonical.as_ref().map(url_key), noindex: facts.noindex };
            let page =
                CrawledPage { url: page.final_url.to_string(), content_type: page.content_type, body: page.body };
            if collected.keep(page, kept) {
                on_page(collected.pages.len());
            }
        }
        Ok(collected.without_canonical_duplicates(on_page))
    }
}

/// The pages a crawl keeps, in order, with what decides which of them stay.
struct Collected {
    pages: Vec<CrawledPage>,
    /// Of each page in `pages`: its final URL key, canonical URL key and `noindex`.
    kept: Vec<Kept>,
    /// The final URL key each fetched URL key led to.
    led_to: HashMap<String, String>,
    max_pages: usize,
}

impl Collected {
    /// The start page, fetched from `start`, kept first whatever it says (`noindex` included).
    fn start(start: &Url, first: FetchedResponse, canonical: Option<String>, max_pages: usize) -> Self {
        let key = url_key(&first.final_url);
        Collected {
            kept: vec![Kept { key: key.clone(), canonical, noindex: false }],
            led_to: HashMap::from([(url_key(start), key.clone()), (key.clone(), key)]),
            pages: vec![CrawledPage {
                url: first.final_url.to_string(),
                content_type: first.content_type,
                body: first.body,
            }],
            max_pages,
        }
    }

    /// Whether the crawl may stop: it has its pages, and no `noindex` page holds a place an
    /// indexable page may take.
    fn full(&self) -> bool {
        self.pages.len() >= self.max_pages && !self.kept[1..].iter().any(|k| k.noindex)
    }

    /// Keeps `page`; when the crawl has its pages, an indexable page takes the place of the last
    /// `noindex` one, and a `noindex` page is not kept. Whether it was kept.
    fn keep(&mut self, page: CrawledPage, kept: Kept) -> bool {
        if self.pages.len() >= self.max_pages {
            let last_noindex = (1..self.kept.len()).rev().find(|&i| self.kept[i].noindex);
            match last_noindex {
                Some(i) if !kept.noindex => {
                    tracing::debug!(url = %self.pages[i].url, "crawl: a noindex page gives its place to another page");
                    self.pages.remove(i);
                    self.kept.remove(i);
                }
                _ => {
                    tracing::debug!(url = %page.url, "crawl: no place for another noindex page");
                    return false;
                }
            }
        }
        self.kept.push(kept);
        self.pages.push(page);
        true
    }

    /// The pages without those whose canonical URL is another kept page.
    fn without_canonical_duplicates(self, on_page: &(dyn Fn(usize) + Send + Sync)) -> Vec<CrawledPage> {
        let Collected { mut pages, kept, led_to, .. } = self;
        let index: HashMap<&str, usize> = kept.iter().enumerate().map(|(i, k)| (k.key.as_str(), i)).collect();
        let led_to: HashMap<String, usize> =
            led_to.into_iter().filter_map(|(from, to)| Some((from, *index.get(to.as_str())?))).collect();
        let canonical: Vec<Option<String>> = kept.into_iter().map(|k| k.canonical).collect();
        let duplicates = canonical_duplicates(&canonical, &led_to);
        if duplicates.contains(&true) {
            let mut n = 0;
            pages.retain(|page| {
                let duplicate = duplicates[n];
                n += 1;
                if duplicate {
                    tracing::debug!(url = %page.url, "crawl: leaving out a page whose canonical URL is another page");
                }
                !duplicate
            });
            on_page(pages.len());
        }
        pages
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pages `0..n` at keys `p0, p1, …`, with `canonical[i]` naming a key (or none).
    fn duplicates(canonical: &[Option<&str>], extra: &[(&str, usize)]) -> Vec<bool> {
        let mut keys: HashMap<String, usize> = (0..canonical.len()).map(|i| (format!("p{i}"), i)).collect();
        keys.extend(extra.iter().map(|&(k, i)| (k.to_string(), i)));
        let canonical: Vec<Option<String>> = canonical.iter().map(|c| c.map(String::from)).collect();
        canonical_duplicates(&canonical, &keys)
    }

    #[test]
    fn a_page_naming_another_page_of_the_crawl_is_a_duplicate() {
        assert_eq!(duplicates(&[None, Some("p0"), Some("p1"), Some("p3")], &[]), [false, true, true, false]);
        assert_eq!(duplicates(&[Some("p0"), Some("elsewhere"), None], &[]), [false, false, false], "self, not crawled");
        // A URL that redirected to a stored page counts as that page.
        assert_eq!(duplicates(&[None, Some("old-p0")], &[("old-p0", 0)]), [false, true]);
        // The canonical page comes later in the crawl: still the one kept.
        assert_eq!(duplicates(&[Some("p1"), None], &[]), [true, false]);
    }

    #[test]
    fn canonical_cycles_keep_their_pages() {
        assert_eq!(duplicates(&[Some("p1"), Some("p0")], &[]), [false, false]);
        assert_eq!(duplicates(&[Some("p1"), Some("p2"), Some("p1")], &[]), [false, false, false]);
        assert!(duplicates(&[], &[]).is_empty());
    }
}
