//! How the crawler finds pages beyond `<a href>`: frames (also inside `<noscript>`) and sitemaps.
//! Same set-up as crawl.rs: `site.test` and `other.test` both resolve to the local server.

mod support;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use lore_app::ports::{CrawlError, CrawlRequest, CrawledPage, Crawler};
use lore_crawl::{CrawlConfig, WebCrawler};
use support::{Reply, TestServer, html, links, local_names, loopback_only_policy, request, serve};

fn crawler() -> WebCrawler {
    support::crawler(loopback_only_policy())
}

async fn crawl_with(crawler: &WebCrawler, request: CrawlRequest) -> Result<Vec<CrawledPage>, CrawlError> {
    let progress = Mutex::new(0);
    let on_page = |n: usize| *progress.lock().unwrap() = n;
    let result = crawler.crawl(request, &on_page).await;
    if let Ok(pages) = &result {
        assert_eq!(*progress.lock().unwrap(), pages.len());
    }
    result
}

async fn crawl(server: &TestServer, path: &str, depth: u8) -> Vec<String> {
    paths(&crawl_with(&crawler(), request(server, path, depth)).await.unwrap())
}

fn paths(pages: &[CrawledPage]) -> Vec<String> {
    pages.iter().map(|p| url::Url::parse(&p.url).unwrap().path().to_string()).collect()
}

fn route(path: &str, reply: Reply) -> (String, Reply) {
    (path.to_string(), reply)
}

fn text(body: &str) -> Reply {
    Reply::Typed("text/plain", body.as_bytes().to_vec())
}

fn xml(body: String) -> Reply {
    Reply::Typed("application/xml", body.into_bytes())
}

/// A `<urlset>` of `urls` (absolute, or paths on site.test).
fn urlset(port: u16, urls: &[&str]) -> Reply {
    let entries: String = urls
        .iter()
        .map(|u| {
            let u = if u.starts_with('/') { format!("http://site.test:{port}{u}") } else { u.to_string() };
            format!("<url><loc>{u}</loc><lastmod>2024-01-01</lastmod></url>\n")
        })
        .collect();
    xml(format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n{entries}</urlset>\n"
    ))
}

/// A `<sitemapindex>` of sitemap paths on site.test.
fn sitemap_index(port: u16, paths: &[&str]) -> Reply {
    let entries: String =
        paths.iter().map(|p| format!("<sitemap><loc>http://site.test:{port}{p}</loc></sitemap>\n")).collect();
    xml(format!("<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n{entries}</sitemapindex>"))
}

/// robots.txt that allows everything but `disallow` and names `sitemaps` (paths on site.test, or
/// absolute URLs).
fn robots(port: u16, disallow: &str, sitemaps: &[&str]) -> Reply {
    let mut body = format!("User-agent: *\nDisallow: {disallow}\n\n");
    for s in sitemaps {
        let s = if s.starts_with('/') { format!("http://site.test:{port}{s}") } else { s.to_string() };
        body.push_str(&format!("Sitemap: {s}\n"));
    }
    text(&body)
}

/// An mdBook page: the table of contents only as `<noscript><iframe src="toc.html">` (the
/// JavaScript builds it otherwise), the content's own links to `next` only.
fn mdbook_page(title: &str, next: Option<&str>) -> Reply {
    let next = next.map(|n| format!(r#"<a rel="next" href="{n}">Next</a>"#)).unwrap_or_default();
    Reply::Html(format!(
        r#"<!DOCTYPE HTML><html lang="en"><head><meta charset="UTF-8"><title>{title}</title>
        <link rel="stylesheet" href="css/general.css"><script src="toc.js"></script></head><body>
        <nav id="mdbook-sidebar" class="sidebar" aria-label="Table of contents">
            <!-- populated by js -->
            <mdbook-sidebar-scrollbox class="sidebar-scrollbox"></mdbook-sidebar-scrollbox>
            <noscript>
                <iframe class="sidebar-iframe-outer" src="toc.html"></iframe>
            </noscript>
        </nav>
        <main><h1>{title}</h1><p>Text of {title}.</p></main>
        <nav class="nav-wrapper">{next}</nav>
        </body></html>"#
    ))
}

fn mdbook(port: u16) -> Vec<(String, Reply)> {
    let _ = port;
    vec![
        route("/robots.txt", Reply::Status(404)),
        route("/book/index.html", mdbook_page("Introduction", Some("ch01.html"))),
        route(
            "/book/toc.html",
            Reply::Html(
                r#"<!DOCTYPE HTML><html><head><meta name="robots" content="noindex"><base target="_parent"></head>
                <body class="sidebar-iframe-inner"><ol class="chapter">
                <li><a href="index.html">Introduction</a></li>
                <li><a href="ch01.html"><strong>1.</strong> Getting started</a></li>
                <li><a href="ch02.html"><strong>2.</strong> Guessing game</a></li>
                <li><a href="ch03.html"><strong>3.</strong> Concepts</a></li>
                <li><a href="print.html">Print this book</a></li>
                </ol></body></html>"#
                    .into(),
            ),
        ),
        route("/book/ch01.html", mdbook_page("Getting started", Some("ch02.html"))),
        route("/book/ch02.html", mdbook_page("Guessing game", Some("ch03.html"))),
        route("/book/ch03.html", mdbook_page("Concepts", None)),
        route("/book/print.html", mdbook_page("The whole book", None)),
    ]
}

#[tokio::test]
async fn mdbook_toc_in_a_noscript_iframe_reaches_every_chapter() {
    let server = serve(mdbook).await;
    // index (1) → toc.html (2) → chapters (3).
    let pages = crawl(&server, "/book/index.html", 3).await;
    for chapter in ["/book/ch01.html", "/book/ch02.html", "/book/ch03.html", "/book/print.html"] {
        assert!(pages.contains(&chapter.to_string()), "{chapter} missing from {pages:?}");
    }
    assert_eq!(
        pages,
        [
            "/book/index.html",
            "/book/toc.html",
            "/book/ch01.html",
            "/book/ch02.html",
            "/book/ch03.html",
            "/book/print.html"
        ]
    );
    assert_eq!(server.count("/book/toc.html"), 1, "every page frames toc.html; it is fetched once");
    assert_eq!(server.count("/book/toc.js"), 0, "scripts are not links");
    assert_eq!(server.count_prefix("/book/css"), 0, "stylesheets are not links");
}

#[tokio::test]
async fn mdbook_at_depth_2_reaches_the_toc_and_the_first_chapter() {
    // toc.html and ch01.html (the index's "next" link) are one hop away; the other chapters two.
    let server = serve(mdbook).await;
    assert_eq!(crawl(&server, "/book/index.html", 2).await, ["/book/index.html", "/book/toc.html", "/book/ch01.html"]);
}

#[tokio::test]
async fn iframes_and_frames_are_followed_on_the_same_site_only() {
    let server = serve(|port| {
        vec![
            route(
                "/",
                html(&format!(
                    r#"<iframe src="/framed"></iframe>
                    <iframe src="http://other.test:{port}/embed"></iframe>
                    <noscript><iframe src="http://other.test:{port}/noscript-embed"></iframe></noscript>
                    <iframe src="/player.js"></iframe>"#
                )),
            ),
            route("/framed", links(&["/from-frame"])),
            route("/from-frame", html("<p>reached through a frame</p>")),
            route("/frameset", html(r#"<frameset><frame src="/left"><frame src="/right"></frameset>"#)),
            route("/left", html("<p>left</p>")),
            route("/right", html("<p>right</p>")),
            route("/embed", html("<p>embed</p>")),
            route("/noscript-embed", html("<p>embed</p>")),
        ]
    })
    .await;
    assert_eq!(crawl(&server, "/", 3).await, ["/", "/framed", "/from-frame"]);
    assert_eq!(crawl(&server, "/frameset", 2).await, ["/frameset", "/left", "/right"]);
    assert_eq!(server.count_host("other.test"), 0);
    assert_eq!(server.count("/player.js"), 0);
}

#[tokio::test]
async fn robots_sitemap_lines_are_followed() {
    let server = serve(|port| {
        vec![
            route("/robots.txt", robots(port, "/private", &["/maps/pages.xml", "/maps/more.txt"])),
            route("/", links(&["/a"])),
            route("/a", links(&["/a-child"])),
            route("/a-child", html("<p>a child</p>")),
            route("/maps/pages.xml", urlset(port, &["/", "/a", "/s1", "/s2"])),
            route("/maps/more.txt", text(&format!("http://site.test:{port}/s3\n"))),
            route("/s1", links(&["/s1-child"])),
            route("/s1-child", html("<p>s1 child</p>")),
            route("/s2", html("<p>s2</p>")),
            route("/s3", html("<p>s3</p>")),
        ]
    })
    .await;
    // Depth 2: the start page, its links, then the sitemaps' pages (not their links).
    assert_eq!(crawl(&server, "/", 2).await, ["/", "/a", "/s1", "/s2", "/s3"]);
    assert_eq!(server.count("/sitemap.xml"), 0, "robots.txt names the sitemaps; /sitemap.xml is not probed");
    assert_eq!(server.count("/maps/pages.xml"), 1);
    assert_eq!(server.count("/a"), 1, "a page both linked and listed is fetched once");
    // Depth 3: sitemap pages are at depth 2, ahead of the depth-3 links, and their links are followed.
    assert_eq!(crawl(&server, "/", 3).await, ["/", "/a", "/s1", "/s2", "/s3", "/a-child", "/s1-child"]);
}

#[tokio::test]
async fn root_sitemap_xml_is_read_when_robots_names_none() {
    let server = serve(|port| {
        vec![
            route("/", html("<p>a start page without links</p>")),
            route("/sitemap.xml", urlset(port, &["/s1", "/docs/s2?lang=en&amp;v=2#part"])),
            route("/s1", html("<p>s1</p>")),
            route("/docs/s2?lang=en&v=2", html("<p>s2</p>")),
        ]
    })
    .await;
    let pages = crawl_with(&crawler(), request(&server, "/", 2)).await.unwrap();
    let urls: Vec<&str> = pages.iter().map(|p| p.url.as_str()).collect();
    let port = server.port();
    assert_eq!(
        urls,
        [
            format!("http://site.test:{port}/"),
            format!("http://site.test:{port}/s1"),
            format!("http://site.test:{port}/docs/s2?lang=en&v=2"),
        ]
    );
    assert_eq!(server.count("/robots.txt"), 1);
}

#[tokio::test]
async fn depth_1_and_a_full_crawl_read_no_sitemap() {
    let server = serve(|port| {
        vec![
            route("/", links(&["/a", "/b"])),
            route("/a", html("<p>a</p>")),
            route("/b", html("<p>b</p>")),
            route("/sitemap.xml", urlset(port, &["/s1"])),
            route("/s1", html("<p>s1</p>")),
        ]
    })
    .await;
    assert_eq!(crawl(&server, "/", 1).await, ["/"]);
    let mut req = request(&server, "/", 3);
    req.max_pages = 3;
    assert_eq!(paths(&crawl_with(&crawler(), req).await.unwrap()), ["/", "/a", "/b"]);
    assert_eq!(server.count("/sitemap.xml"), 0, "the start page's links filled the crawl");
    // With room left, the sitemap fills it.
    assert_eq!(crawl(&server, "/", 2).await, ["/", "/a", "/b", "/s1"]);
}

#[tokio::test]
async fn sitemap_index_is_read_one_level_deep() {
    let server = serve(|port| {
        vec![
            route("/robots.txt", robots(port, "/nothing", &["/index.xml"])),
            route("/", html("<p>home</p>")),
            route("/index.xml", sitemap_index(port, &["/part-a.xml", "/part-b.txt", "/nested.xml", "/part-c.xml.gz"])),
            route("/part-a.xml", urlset(port, &["/p1", "/p2"])),
            route("/part-b.txt", text(&format!("http://site.test:{port}/p3\nhttp://site.test:{port}/p1\n"))),
            route("/nested.xml", sitemap_index(port, &["/deep.xml"])),
            route("/deep.xml", urlset(port, &["/deep"])),
            route("/p1", html("<p>1</p>")),
            route("/p2", html("<p>2</p>")),
            route("/p3", html("<p>3</p>")),
            route("/deep", html("<p>deep</p>")),
        ]
    })
    .await;
    assert_eq!(crawl(&server, "/", 2).await, ["/", "/p1", "/p2", "/p3"]);
    assert_eq!(server.count("/nested.xml"), 1, "an index listed by the index is read");
    assert_eq!(server.count("/deep.xml"), 0, "… but its own entries are not followed");
    assert_eq!(server.count("/part-c.xml.gz"), 0, "compressed sitemaps are skipped");
}

#[tokio::test]
async fn off_site_sitemaps_and_entries_are_ignored() {
    let server = serve(|port| {
        vec![
            // An off-site sitemap is not read; with no same-site one named, /sitemap.xml is.
            route("/robots.txt", robots(port, "/nothing", &[&format!("http://other.test:{port}/sitemap.xml")])),
            route("/", html("<p>home</p>")),
            route(
                "/sitemap.xml",
                urlset(
                    port,
                    &[
                        &format!("http://other.test:{port}/x"),
                        &format!("http://127.0.0.1:{port}/y"),
                        "https://elsewhere.example/z",
                        "/ok",
                    ],
                ),
            ),
            route("/ok", html("<p>ok</p>")),
            route("/x", html("<p>x</p>")),
            route("/y", html("<p>y</p>")),
        ]
    })
    .await;
    assert_eq!(crawl(&server, "/", 2).await, ["/", "/ok"]);
    assert_eq!(server.count_host("other.test"), 0);
    assert_eq!(server.count_host("127.0.0.1"), 0);
}

#[tokio::test]
async fn sitemap_entries_disallowed_by_robots_are_skipped() {
    let routes = |sitemaps: &'static [&'static str]| {
        move |port| {
            vec![
                route("/robots.txt", robots(port, "/private", sitemaps)),
                route("/", html("<p>home</p>")),
                route("/sitemap.xml", urlset(port, &["/private/a", "/private/b", "/ok"])),
                route("/private/map.xml", urlset(port, &["/from-private-map"])),
                route("/private/a", html("<p>secret</p>")),
                route("/private/b", html("<p>secret</p>")),
                route("/ok", html("<p>ok</p>")),
                route("/from-private-map", html("<p>listed by a disallowed sitemap</p>")),
            ]
        }
    };
    let server = serve(routes(&["/private/map.xml", "/sitemap.xml"])).await;
    assert_eq!(crawl(&server, "/", 2).await, ["/", "/ok"]);
    assert_eq!(server.count_prefix("/private"), 0, "neither disallowed pages nor a disallowed sitemap");
    assert_eq!(server.count("/from-private-map"), 0);

    // Disallowed entries are dropped before they cost attempts: with 2 attempts in all, one
    // goes to /sitemap.xml and the other to /ok.
    let server = serve(routes(&["/sitemap.xml"])).await;
    let client =
        lore_crawl::SafeClient::builder(loopback_only_policy()).resolver(local_names(&["site.test"])).build().unwrap();
    let stingy = WebCrawler::with_config(client, CrawlConfig { attempts_per_page: 1, ..CrawlConfig::default() });
    let mut req = request(&server, "/", 2);
    req.max_pages = 2;
    assert_eq!(paths(&crawl_with(&stingy, req).await.unwrap()), ["/", "/ok"]);
}

#[tokio::test]
async fn huge_malformed_or_hanging_sitemaps_do_not_fail_the_crawl() {
    let server = serve(|port| {
        // Over the byte cap: its first entries (up to the cut) are used.
        let huge: Vec<String> = (0..5_000).map(|n| format!("/h/{n}")).collect();
        let huge: Vec<&str> = huge.iter().map(String::as_str).collect();
        let mut routes = vec![
            route(
                "/robots.txt",
                robots(
                    port,
                    "/nothing",
                    &["/hang.xml", "/gone.xml", "/broken.xml", "/page.xml", "/binary.xml", "/huge.xml"],
                ),
            ),
            route("/", html("<p>home</p>")),
            route("/hang.xml", Reply::Hang),
            route("/gone.xml", Reply::Status(404)),
            route(
                "/broken.xml",
                xml(format!(
                    "<urlset><url><loc>http://site.test:{port}/b1</loc></url></nope><url><loc>/b2</loc>&bogus;<<<"
                )),
            ),
            // A site's "page not found" answered with 200.
            route("/page.xml", links(&["/from-html"])),
            route("/binary.xml", Reply::Typed("application/octet-stream", vec![0x1f, 0x8b, 0, 0xff, b'<', 0])),
            route("/huge.xml", urlset(port, &huge)),
            route("/b1", html("<p>b1</p>")),
            route("/from-html", html("<p>not a sitemap entry</p>")),
        ];
        for n in 0..3 {
            routes.push((format!("/h/{n}"), html(&format!("<p>huge {n}</p>"))));
        }
        routes
    })
    .await;
    let mut req = request(&server, "/", 2);
    req.max_pages = 5;
    req.page_timeout = Duration::from_millis(500);
    let started = Instant::now();
    let pages = paths(&crawl_with(&crawler(), req).await.unwrap());
    assert_eq!(pages, ["/", "/b1", "/h/0", "/h/1", "/h/2"]);
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    assert_eq!(server.count("/huge.xml"), 1);
    assert_eq!(server.count("/from-html"), 0, "an HTML answer is not a sitemap");
    assert_eq!(server.count("/h/3"), 0, "max_pages holds for sitemap pages too");
}

#[tokio::test]
async fn sitemap_fetches_are_bounded() {
    let server = serve(|port| {
        let maps: Vec<String> = (0..20).map(|n| format!("/map-{n}.xml")).collect();
        let maps: Vec<&str> = maps.iter().map(String::as_str).collect();
        let mut routes = vec![route("/robots.txt", robots(port, "/nothing", &maps)), route("/", html("<p>home</p>"))];
        for n in 0..20 {
            routes.push((format!("/map-{n}.xml"), urlset(port, &[])));
        }
        routes
    })
    .await;
    // Default config: at most 8 sitemaps.
    assert_eq!(crawl(&server, "/", 2).await, ["/"]);
    assert_eq!(server.count_prefix("/map-"), 8);
    // The attempts budget counts sitemap fetches: 2 pages × 1 attempt.
    let client =
        lore_crawl::SafeClient::builder(loopback_only_policy()).resolver(local_names(&["site.test"])).build().unwrap();
    let stingy = WebCrawler::with_config(client, CrawlConfig { attempts_per_page: 1, ..CrawlConfig::default() });
    let mut req = request(&server, "/", 2);
    req.max_pages = 2;
    assert_eq!(paths(&crawl_with(&stingy, req).await.unwrap()), ["/"]);
    assert_eq!(server.count_prefix("/map-"), 8 + 2);
}

/// A page naming `canonical` as its canonical URL.
fn canonical_page(canonical: &str, body: &str) -> Reply {
    Reply::Html(format!(
        r#"<!DOCTYPE html><html><head><link rel="canonical" href="{canonical}"></head><body>{body}</body></html>"#
    ))
}

#[tokio::test]
async fn pages_naming_another_crawled_page_as_canonical_are_left_out() {
    let server = serve(|port| {
        vec![
            route("/", links(&["/a", "/a-print", "/old", "/self", "/away", "/not-crawled"])),
            route("/a", html("<p>the chapter</p>")),
            // Leaf pages (depth 2): parsed for their canonical URL only.
            route("/a-print", canonical_page(&format!("http://site.test:{port}/a#top"), "<p>the chapter</p>")),
            route("/old", canonical_page("a", r#"<p>Redirecting to <a href="a">a</a></p>"#)),
            route("/self", canonical_page("/self", "<p>self</p>")),
            route("/away", canonical_page(&format!("http://other.test:{port}/a"), "<p>away</p>")),
            route("/not-crawled", canonical_page("/deep", "<p>only copy</p>")),
            route("/deep", html("<p>too deep</p>")),
        ]
    })
    .await;
    assert_eq!(crawl(&server, "/", 2).await, ["/", "/a", "/self", "/away", "/not-crawled"]);
    assert_eq!(server.count("/old"), 1, "fetched, then left out");
    assert_eq!(server.count("/deep"), 0);

    // The start page may be the duplicate; its links are followed all the same.
    let server = serve(|_| {
        vec![
            route("/index.html", canonical_page("/", r#"<a href="/">home</a><a href="/b">b</a>"#)),
            route("/", links(&["/b"])),
            route("/b", html("<p>b</p>")),
        ]
    })
    .await;
    assert_eq!(crawl(&server, "/index.html", 2).await, ["/", "/b"]);
}

#[tokio::test]
async fn noindex_pages_give_their_place_to_indexable_pages_in_a_full_crawl() {
    let noindex = |text: &str| {
        Reply::Html(format!(
            r#"<html><head><meta name="robots" content="noindex"></head><body><p>{text}</p></body></html>"#
        ))
    };
    let server = serve(|_| {
        vec![
            route("/", links(&["/print", "/toc", "/a", "/b", "/c"])),
            route("/print", noindex("every chapter")),
            route("/toc", noindex("contents")),
            route("/a", html("<p>a</p>")),
            route("/b", html("<p>b</p>")),
            route("/c", html("<p>c</p>")),
        ]
    })
    .await;
    let crawler = crawler();
    let capped = CrawlRequest { max_pages: 4, ..request(&server, "/", 2) };
    assert_eq!(paths(&crawl_with(&crawler, capped).await.unwrap()), ["/", "/a", "/b", "/c"]);
    let roomy = CrawlRequest { max_pages: 10, ..request(&server, "/", 2) };
    assert_eq!(paths(&crawl_with(&crawler, roomy).await.unwrap()), ["/", "/print", "/toc", "/a", "/b", "/c"]);
    // Room for one page after the start page: the first indexable one.
    let one = CrawlRequest { max_pages: 2, ..request(&server, "/", 2) };
    assert_eq!(paths(&crawl_with(&crawler, one).await.unwrap()), ["/", "/a"]);
}
