//! `SafeClient`: redirects, connect-time address checks (DNS rebinding), caps, timeouts, POST.

mod support;

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use lore_app::ports::UrlGuard;
use lore_crawl::reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use lore_crawl::{FetchError, Guard, NetPolicy, Overflow, SafeClient, SafeRequest, StaticResolver};
use support::{Reply, html, local_names, loopback_only_policy, raw_server, serve};

const MB: usize = 1024 * 1024;
const T: Duration = Duration::from_secs(10);

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

fn client(policy: NetPolicy) -> SafeClient {
    SafeClient::builder(policy).resolver(local_names(&["site.test"])).build().unwrap()
}

fn chain(port: u16) -> Vec<(String, Reply)> {
    let mut routes = vec![
        ("/page".to_string(), html("<p>hello</p>")),
        ("/relative".to_string(), Reply::Redirect(302, "page#frag".to_string())),
        ("/r/0".to_string(), html("end of chain")),
        ("/meta".to_string(), Reply::Redirect(302, "http://169.254.169.254/latest/meta-data/".to_string())),
        ("/file".to_string(), Reply::Redirect(301, "file:///etc/passwd".to_string())),
        ("/internal".to_string(), Reply::Redirect(307, format!("http://internal.test:{port}/page"))),
        ("/other-loopback".to_string(), Reply::Redirect(302, format!("http://127.0.0.2:{port}/page"))),
        ("/missing-location".to_string(), Reply::Status(302)),
        ("/gone".to_string(), Reply::Status(404)),
        ("/big".to_string(), Reply::Typed("text/plain", vec![b'x'; 2 * MB])),
        ("/hang".to_string(), Reply::Hang),
        ("/echo".to_string(), Reply::Echo),
        ("/post-redirect".to_string(), Reply::Redirect(302, "/echo".to_string())),
    ];
    for n in 1..=6 {
        routes.push((format!("/r/{n}"), Reply::Redirect(302, format!("/r/{}", n - 1))));
    }
    routes
}

#[tokio::test]
async fn get_follows_a_relative_redirect() {
    let server = serve(chain).await;
    let client = client(loopback_only_policy());
    let response = client.get(&format!("http://127.0.0.1:{}/relative", server.port()), MB, T).await.unwrap();
    assert_eq!(response.status.as_u16(), 200);
    assert_eq!(response.final_url.as_str(), format!("http://127.0.0.1:{}/page", server.port()));
    assert_eq!(response.content_type.as_deref(), Some("text/html; charset=utf-8"));
    assert_eq!(response.body, b"<p>hello</p>");
    assert!(!response.truncated);
    assert_eq!(server.count("/relative"), 1);
    assert_eq!(server.count("/page"), 1);
}

#[tokio::test]
async fn sends_the_lorebot_user_agent() {
    let server = serve(chain).await;
    let response = client(loopback_only_policy()).get(&format!("http://127.0.0.1:{}/echo", server.port()), MB, T).await;
    let body = String::from_utf8(response.unwrap().body).unwrap();
    assert!(body.contains("user-agent=LoreBot/0.1 (+https://github.com/lore)"), "{body}");
}

#[tokio::test]
async fn five_redirects_are_followed_a_sixth_is_an_error() {
    let server = serve(chain).await;
    let client = client(loopback_only_policy());
    let ok = client.get(&format!("http://127.0.0.1:{}/r/5", server.port()), MB, T).await.unwrap();
    assert_eq!(ok.final_url.path(), "/r/0");
    assert_eq!(ok.body, b"end of chain");
    let err = client.get(&format!("http://127.0.0.1:{}/r/6", server.port()), MB, T).await.unwrap_err();
    assert_eq!(err, FetchError::TooManyRedirects(5));
    assert_eq!(server.count("/r/0"), 1, "the 7th URL is never requested");
}

#[tokio::test]
async fn redirect_to_metadata_address_is_blocked() {
    let server = serve(chain).await;
    let err = client(loopback_only_policy())
        .get(&format!("http://127.0.0.1:{}/meta", server.port()), MB, T)
        .await
        .unwrap_err();
    assert!(matches!(err, FetchError::Blocked(ref m) if m.contains("169.254.169.254")), "{err:?}");
}

#[tokio::test]
async fn redirect_to_another_loopback_address_or_scheme_is_blocked() {
    let server = serve(chain).await;
    let client = client(loopback_only_policy());
    for path in ["/other-loopback", "/file"] {
        let err = client.get(&format!("http://127.0.0.1:{}{path}", server.port()), MB, T).await.unwrap_err();
        assert!(matches!(err, FetchError::Blocked(_)), "{path}: {err:?}");
    }
    assert_eq!(server.count("/page"), 0);
}

#[tokio::test]
async fn redirect_to_a_name_resolving_to_a_private_address_is_blocked_at_connect_time() {
    let server = serve(chain).await;
    let resolver = StaticResolver::new().with("site.test", [ip("127.0.0.1")]).with("internal.test", [ip("10.0.0.1")]);
    let client = SafeClient::builder(loopback_only_policy()).resolver(Arc::new(resolver)).build().unwrap();
    let err = client.get(&format!("http://site.test:{}/internal", server.port()), MB, T).await.unwrap_err();
    assert!(matches!(err, FetchError::Blocked(ref m) if m.contains("10.0.0.1")), "{err:?}");
}

#[tokio::test]
async fn literal_refused_address_is_never_contacted() {
    let server = serve(chain).await;
    let strict_any_port = NetPolicy::strict().with_any_port();
    let err = client(strict_any_port).get(&format!("http://127.0.0.1:{}/page", server.port()), MB, T).await;
    assert!(matches!(err, Err(FetchError::Blocked(_))), "{err:?}");
    assert!(server.hits().is_empty());
}

#[tokio::test]
async fn name_resolving_to_loopback_is_refused_by_the_connect_time_resolver() {
    let server = serve(chain).await;
    // The static check passes (a domain); the resolver installed in reqwest refuses 127.0.0.1.
    let client = client(NetPolicy::strict().with_any_port());
    let err = client.get(&format!("http://site.test:{}/page", server.port()), MB, T).await.unwrap_err();
    assert!(matches!(err, FetchError::Blocked(ref m) if m.contains("loopback")), "{err:?}");
    assert!(server.hits().is_empty());
}

#[tokio::test]
async fn dns_rebinding_after_the_guard_check_is_refused() {
    let server = serve(chain).await;
    let resolver = Arc::new(support::RebindingResolver {
        first: ip("93.184.216.34"),
        then: ip("127.0.0.1"),
        calls: AtomicUsize::new(0),
    });
    let policy = NetPolicy::strict().with_any_port();
    let url = format!("http://rebind.test:{}/page", server.port());
    // The guard sees the public address and accepts the URL …
    let guard = Guard::with_resolver(policy.clone(), resolver.clone());
    assert!(guard.check(&url).await.is_ok());
    // … the connection resolves again, gets loopback, and is refused.
    let client = SafeClient::builder(policy).resolver(resolver.clone()).build().unwrap();
    let err = client.get(&url, MB, T).await.unwrap_err();
    assert!(matches!(err, FetchError::Blocked(_)), "{err:?}");
    assert_eq!(resolver.calls.load(Ordering::SeqCst), 2);
    assert!(server.hits().is_empty());
}

#[tokio::test]
async fn body_over_the_cap_is_too_large() {
    let server = serve(chain).await;
    let client = client(loopback_only_policy());
    let url = format!("http://127.0.0.1:{}/big", server.port());
    // Content-Length says 2 MB: refused before the body is read.
    assert_eq!(client.get(&url, MB, T).await.unwrap_err(), FetchError::TooLarge { limit: MB });
    // Truncation on request.
    let response = client.send(SafeRequest::get(&url, 1000, T).overflow(Overflow::Truncate)).await.unwrap();
    assert_eq!(response.body.len(), 1000);
    assert!(response.truncated);
    // Exactly at the cap is fine.
    assert_eq!(client.get(&url, 2 * MB, T).await.unwrap().body.len(), 2 * MB);
}

#[tokio::test]
async fn body_without_length_is_cut_while_streaming() {
    let mut response = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n".to_vec();
    response.extend(std::iter::repeat_n(b'y', 300_000));
    let (addr, _) = raw_server(response).await;
    let client = client(loopback_only_policy());
    let url = format!("http://{addr}/");
    assert_eq!(client.get(&url, 100_000, T).await.unwrap_err(), FetchError::TooLarge { limit: 100_000 });
    assert_eq!(client.get(&url, 300_000, T).await.unwrap().body.len(), 300_000);
}

#[tokio::test]
async fn a_hanging_server_times_out() {
    let server = serve(chain).await;
    let started = Instant::now();
    let err = client(loopback_only_policy())
        .get(&format!("http://127.0.0.1:{}/hang", server.port()), MB, Duration::from_millis(300))
        .await
        .unwrap_err();
    assert_eq!(err, FetchError::Timeout(Duration::from_millis(300)));
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn refused_connection_is_a_network_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let err = client(loopback_only_policy()).get(&format!("http://127.0.0.1:{port}/"), MB, T).await.unwrap_err();
    assert!(matches!(err, FetchError::Network(_)), "{err:?}");
}

#[tokio::test]
async fn non_success_statuses_are_responses() {
    let server = serve(chain).await;
    let client = client(loopback_only_policy());
    let response = client.get(&format!("http://127.0.0.1:{}/gone", server.port()), MB, T).await.unwrap();
    assert_eq!(response.status.as_u16(), 404);
    assert!(!response.is_success());
    let response = client.get(&format!("http://127.0.0.1:{}/missing-location", server.port()), MB, T).await.unwrap();
    assert_eq!(response.status.as_u16(), 302);
}

#[tokio::test]
async fn post_json_sends_body_and_headers_and_does_not_follow_redirects() {
    let server = serve(chain).await;
    let client = client(loopback_only_policy());
    let mut headers = HeaderMap::new();
    headers.insert(HeaderName::from_static("x-test"), HeaderValue::from_static("signed"));
    let body = br#"{"hello":"world"}"#.to_vec();
    let url = format!("http://127.0.0.1:{}/echo", server.port());
    let response = client.post_json(&url, headers.clone(), body.clone(), T, MB).await.unwrap();
    let text = String::from_utf8(response.body).unwrap();
    assert!(text.contains("method=POST"), "{text}");
    assert!(text.contains("content-type=application/json"), "{text}");
    assert!(text.contains("x-test=signed"), "{text}");
    assert!(text.contains(r#"body={"hello":"world"}"#), "{text}");

    let url = format!("http://127.0.0.1:{}/post-redirect", server.port());
    let response = client.post_json(&url, headers, body, T, MB).await.unwrap();
    assert_eq!(response.status.as_u16(), 302);
    assert_eq!(server.count("/echo"), 1, "the redirect is not followed");
}

#[tokio::test]
async fn post_is_checked_like_get() {
    let client = client(loopback_only_policy());
    for url in ["http://169.254.169.254/hook", "http://10.0.0.1/hook", "ftp://127.0.0.1/", "not a url"] {
        let err = client.post_json(url, HeaderMap::new(), b"{}".to_vec(), T, MB).await.unwrap_err();
        assert!(matches!(err, FetchError::Blocked(_) | FetchError::Invalid(_)), "{url}: {err:?}");
    }
}

#[tokio::test]
async fn check_url_is_static() {
    let client = client(NetPolicy::strict());
    assert_eq!(client.check_url("https://example.com/a#b").unwrap().as_str(), "https://example.com/a");
    assert!(client.check_url("http://0x7f.0.0.1/").is_err());
    assert!(client.check_url("http://example.com:25/").is_err());
    assert!(client.check_url("http://").is_err());
}
