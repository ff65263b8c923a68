//! The `Crawler` port on a local site. `site.test` and `other.test` both resolve to 127.0.0.1
//! (static resolver), so "another host" is a different host string on the same server and every
//! request that reaches it is visible in the hit log.

mod support;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use lore_app::ports::{CrawlError, CrawlRequest, CrawledPage, Crawler};
use lore_crawl::{CrawlConfig, NetPolicy, SafeClient, WebCrawler};
use support::{PAGE_CAP, Reply, crawler, html, links, loopback_only_policy, request, serve};

fn site(port: u16) -> Vec<(String, Reply)> {
    let r = |p: &str, reply: Reply| (p.to_string(), reply);
    let mut routes = vec![
        r("/robots.txt", Reply::Typed("text/plain", b"User-agent: *\nDisallow: /private\n".to_vec())),
        r(
            "/a",
            links(&[
                "/b",
                "/private/secret",
                &format!("http://other.test:{port}/x"),
                &format!("http://127.0.0.1:{port}/y"),
                "/logo.png",
                "mailto:someone@example.com",
                "javascript:void(0)",
                "/a#top",
                "#top",
                "/huge",
                "/moved",
            ]),
        ),
        r("/b", links(&["/c", "/a", "b"])),
        r("/c", links(&["/d"])),
        r("/d", links(&["/e"])),
        r("/e", html("<p>e</p>")),
        r("/huge", Reply::Html(format!("<html><body>{}</body></html>", "x".repeat(PAGE_CAP + 1)))),
        r("/moved", Reply::Redirect(302, "/private/elsewhere".into())),
        r("/private/secret", html("<p>secret</p>")),
        r("/private/elsewhere", html("<p>secret</p>")),
        r("/x", html("<p>x</p>")),
        r("/y", html("<p>y</p>")),
        r("/plain", Reply::Typed("text/plain; charset=utf-8", b"Plain text. <a href=\"/b\">b</a>".to_vec())),
        r("/notes.md", Reply::Typed("text/markdown", b"# Notes\n\n[b](/b)\n".to_vec())),
        r(
            "/many",
            links(
                &(0..20).map(|n| format!("/p/{n}")).collect::<Vec<_>>().iter().map(String::as_str).collect::<Vec<_>>(),
            ),
        ),
        r("/meta", Reply::Redirect(302, "http://169.254.169.254/latest/meta-data/".into())),
        r("/slow", Reply::Hang),
        r("/base", html(r#"<html><head><base href="/sub/"></head><body><a href="x">x</a></body></html>"#)),
        r("/sub/x", html("<p>sub x</p>")),
        r("/go-other", Reply::Redirect(301, format!("http://other.test:{port}/o1"))),
        r("/o1", links(&["/o2"])),
        r("/o2", html("<p>o2</p>")),
        r("/mixed", links(&["/gone", "/slow", "/offsite", "/image", "/to-b", "/b", "/plain"])),
        r("/gone", Reply::Status(404)),
        r("/offsite", Reply::Redirect(302, format!("http://other.test:{port}/x"))),
        r("/image", Reply::Typed("image/png", vec![0x89, b'P', b'N', b'G'])),
        r("/to-b", Reply::Redirect(302, "/b".into())),
    ];
    for n in 0..20 {
        routes.push((format!("/p/{n}"), html(&format!("<p>page {n}</p>"))));
    }
    for n in 1..=6 {
        routes.push((format!("/r/{n}"), Reply::Redirect(302, format!("/r/{}", n - 1))));
    }
    routes.push(("/r/0".into(), html("<p>end</p>")));
    routes
}

fn paths(pages: &[CrawledPage]) -> Vec<String> {
    pages.iter().map(|p| url::Url::parse(&p.url).unwrap().path().to_string()).collect()
}

async fn crawl(crawler: &WebCrawler, request: CrawlRequest) -> (Result<Vec<CrawledPage>, CrawlError>, Vec<usize>) {
    let progress = Mutex::new(Vec::new());
    let on_page = |n: usize| progress.lock().unwrap().push(n);
    let result = crawler.crawl(request, &on_page).await;
    (result, progress.into_inner().unwrap())
}

#[tokio::test]
async fn depth_1_is_only_the_start_page() {
    let server = serve(site).await;
    let (result, progress) = crawl(&crawler(loopback_only_policy()), request(&server, "/a", 1)).await;
    let pages = result.unwrap();
    assert_eq!(paths(&pages), ["/a"]);
    assert_eq!(pages[0].url, format!("http://site.test:{}/a", server.port()));
    assert_eq!(pages[0].content_type.as_deref(), Some("text/html; charset=utf-8"));
    assert!(String::from_utf8_lossy(&pages[0].body).contains("/private/secret"));
    assert_eq!(progress, [1]);
    let requested: Vec<String> = server.hits().into_iter().map(|h| h.path).collect();
    assert_eq!(requested, ["/robots.txt", "/a"]);
}

#[tokio::test]
async fn depth_3_follows_two_hops_on_the_same_host_only() {
    let server = serve(site).await;
    let (result, progress) = crawl(&crawler(loopback_only_policy()), request(&server, "/a", 3)).await;
    let pages = result.unwrap();
    // a (level 1); b (level 2; /huge is over the cap, /moved redirects into /private); c (level 3).
    assert_eq!(paths(&pages), ["/a", "/b", "/c"]);
    assert_eq!(progress, [1, 2, 3]);
    assert_eq!(server.count("/d"), 0, "d is 3 hops away");
    assert_eq!(server.count("/robots.txt"), 1, "robots.txt is fetched once per crawl");
    assert_eq!(server.count_prefix("/private"), 0, "robots.txt disallows /private, also as a redirect target");
    assert_eq!(server.count_host("other.test"), 0, "another host is not followed");
    assert_eq!(server.count_host("127.0.0.1"), 0, "another host string for the same server is not followed");
    assert_eq!(server.count("/logo.png"), 0, "binary extensions are skipped");
    assert_eq!(server.count("/a"), 1, "links back to the start page are de-duplicated");
    assert_eq!(server.count("/b"), 1);
    assert!(server.hits().iter().all(|h| h.host == format!("site.test:{}", server.port())));
}

#[tokio::test]
async fn depth_5_reaches_the_end_of_the_chain() {
    let server = serve(site).await;
    let (result, _) = crawl(&crawler(loopback_only_policy()), request(&server, "/a", 5)).await;
    assert_eq!(paths(&result.unwrap()), ["/a", "/b", "/c", "/d", "/e"]);
}

#[tokio::test]
async fn max_pages_is_respected() {
    let server = serve(site).await;
    let mut req = request(&server, "/many", 2);
    req.max_pages = 5;
    let (result, progress) = crawl(&crawler(loopback_only_policy()), req).await;
    assert_eq!(paths(&result.unwrap()), ["/many", "/p/0", "/p/1", "/p/2", "/p/3"]);
    assert_eq!(progress, [1, 2, 3, 4, 5]);
    assert_eq!(server.count_prefix("/p/"), 4, "no page is fetched beyond the cap");
}

#[tokio::test]
async fn non_html_start_page_is_returned_once() {
    let server = serve(site).await;
    for (path, content_type) in [("/plain", "text/plain; charset=utf-8"), ("/notes.md", "text/markdown")] {
        let (result, progress) = crawl(&crawler(loopback_only_policy()), request(&server, path, 3)).await;
        let pages = result.unwrap();
        assert_eq!(paths(&pages), [path]);
        assert_eq!(pages[0].content_type.as_deref(), Some(content_type));
        assert_eq!(progress, [1]);
    }
    assert_eq!(server.count("/b"), 0, "links in non-HTML pages are not followed");
}

#[tokio::test]
async fn base_href_is_respected() {
    let server = serve(site).await;
    let (result, _) = crawl(&crawler(loopback_only_policy()), request(&server, "/base", 2)).await;
    assert_eq!(paths(&result.unwrap()), ["/base", "/sub/x"]);
}

#[tokio::test]
async fn failing_later_pages_are_skipped() {
    let server = serve(site).await;
    let mut req = request(&server, "/mixed", 2);
    req.page_timeout = Duration::from_millis(500);
    let started = Instant::now();
    let (result, progress) = crawl(&crawler(loopback_only_policy()), req).await;
    let pages = result.unwrap();
    // /gone 404, /slow times out, /offsite redirects to other.test, /image is not text,
    // /to-b redirects to /b (stored once, under its final URL), /plain is text.
    assert_eq!(paths(&pages), ["/mixed", "/b", "/plain"]);
    assert_eq!(progress, [1, 2, 3]);
    assert_eq!(server.count_host("other.test"), 0);
    assert_eq!(server.count("/b"), 1, "/b is fetched once although reached twice");
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[tokio::test]
async fn start_redirect_to_another_host_moves_the_crawl_there() {
    let server = serve(site).await;
    let (result, _) = crawl(&crawler(loopback_only_policy()), request(&server, "/go-other", 2)).await;
    let pages = result.unwrap();
    assert_eq!(pages[0].url, format!("http://other.test:{}/o1", server.port()));
    assert_eq!(paths(&pages), ["/o1", "/o2"]);
    assert_eq!(server.count_host("other.test"), 4, "robots.txt, /o1, /o2, /sitemap.xml");
    assert_eq!(server.count_host("site.test"), 2, "robots.txt and the redirecting start URL only");
}

#[tokio::test]
async fn start_page_over_the_cap_is_unreachable() {
    let server = serve(site).await;
    let (result, progress) = crawl(&crawler(loopback_only_policy()), request(&server, "/huge", 2)).await;
    match result {
        Err(CrawlError::Unreachable { url, reason }) => {
            assert!(url.ends_with("/huge"));
            assert!(reason.contains("larger than"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    assert!(progress.is_empty());
}

#[tokio::test]
async fn start_page_failures_are_unreachable() {
    let server = serve(site).await;
    let crawler = crawler(loopback_only_policy());
    for (path, needle) in
        [("/gone", "404"), ("/private/secret", "robots.txt"), ("/moved", "robots.txt"), ("/r/6", "redirects")]
    {
        let (result, _) = crawl(&crawler, request(&server, path, 2)).await;
        match result {
            Err(CrawlError::Unreachable { reason, .. }) => assert!(reason.contains(needle), "{path}: {reason}"),
            other => panic!("{path}: {other:?}"),
        }
    }
    assert_eq!(server.count_prefix("/private"), 0);
    // Five redirects are fine.
    let (result, _) = crawl(&crawler, request(&server, "/r/5", 1)).await;
    assert_eq!(paths(&result.unwrap()), ["/r/0"]);
}

#[tokio::test]
async fn start_page_timeout_is_unreachable() {
    let server = serve(site).await;
    let mut req = request(&server, "/slow", 1);
    req.page_timeout = Duration::from_millis(300);
    let started = Instant::now();
    let (result, _) = crawl(&crawler(loopback_only_policy()), req).await;
    assert!(matches!(result, Err(CrawlError::Unreachable { .. })), "{result:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn start_redirect_to_metadata_is_blocked() {
    let server = serve(site).await;
    let (result, _) = crawl(&crawler(loopback_only_policy()), request(&server, "/meta", 2)).await;
    assert!(matches!(result, Err(CrawlError::Blocked(ref m)) if m.contains("169.254.169.254")), "{result:?}");
}

#[tokio::test]
async fn blocked_start_urls() {
    let crawler = crawler(NetPolicy::strict());
    for url in ["http://127.0.0.1/", "http://169.254.169.254/", "ftp://site.test/", "http://site.test:22/"] {
        let req = CrawlRequest {
            url: url.into(),
            depth: 2,
            max_pages: 5,
            max_page_bytes: PAGE_CAP,
            page_timeout: Duration::from_secs(2),
        };
        let (result, _) = crawl(&crawler, req).await;
        assert!(matches!(result, Err(CrawlError::Blocked(_))), "{url}: {result:?}");
    }
}

#[tokio::test]
async fn a_host_resolving_to_loopback_is_blocked_at_connect_time() {
    let server = serve(site).await;
    // Strict addresses: site.test → 127.0.0.1 is refused by the client's resolver.
    let (result, _) = crawl(&crawler(NetPolicy::strict().with_any_port()), request(&server, "/a", 2)).await;
    assert!(matches!(result, Err(CrawlError::Blocked(_))), "{result:?}");
    // robots.txt could not be fetched either (blocked → treated as absent): no request reached the server.
    assert!(server.hits().is_empty());
}

#[tokio::test]
async fn robots_txt_server_error_disallows_the_crawl() {
    let server = serve(|_| vec![("/robots.txt".into(), Reply::Status(503)), ("/".into(), html("<p>home</p>"))]).await;
    let (result, _) = crawl(&crawler(loopback_only_policy()), request(&server, "/", 1)).await;
    assert!(matches!(result, Err(CrawlError::Unreachable { ref reason, .. }) if reason.contains("503")), "{result:?}");
    assert_eq!(server.count("/"), 0);
}

#[tokio::test]
async fn missing_robots_txt_allows_everything() {
    let server = serve(|_| vec![("/".into(), links(&["/private"])), ("/private".into(), html("<p>ok</p>"))]).await;
    let (result, _) = crawl(&crawler(loopback_only_policy()), request(&server, "/", 2)).await;
    assert_eq!(paths(&result.unwrap()), ["/", "/private"]);
}

#[tokio::test]
async fn robots_txt_for_lorebot_is_honoured() {
    let robots = b"User-agent: LoreBot\nDisallow: /no-lore\n\nUser-agent: *\nDisallow: /\n".to_vec();
    let server = serve(move |_| {
        vec![
            ("/robots.txt".into(), Reply::Typed("text/plain", robots)),
            ("/".into(), links(&["/no-lore", "/yes"])),
            ("/no-lore".into(), html("<p>no</p>")),
            ("/yes".into(), html("<p>yes</p>")),
        ]
    })
    .await;
    let (result, _) = crawl(&crawler(loopback_only_policy()), request(&server, "/", 2)).await;
    assert_eq!(paths(&result.unwrap()), ["/", "/yes"]);
    assert_eq!(server.count("/no-lore"), 0);
}

#[tokio::test]
async fn allow_private_reaches_loopback_sites() {
    let server = serve(site).await;
    let crawler = WebCrawler::with_config(SafeClient::new(NetPolicy::allow_private()).unwrap(), CrawlConfig::default());
    let req = CrawlRequest { url: format!("http://127.0.0.1:{}/b", server.port()), ..request(&server, "/b", 2) };
    let (result, _) = crawl(&crawler, req).await;
    assert_eq!(paths(&result.unwrap()), ["/b", "/c", "/a"]);
}
