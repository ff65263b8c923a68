//! The `UrlGuard` port: the SSRF matrix (docs/api.md §14, §16.9/10/17). No real DNS except `localhost`.

mod support;

use std::net::IpAddr;
use std::sync::Arc;

use lore_app::ports::{UrlGuard, UrlRejection};
use lore_crawl::{Guard, NetPolicy, StaticResolver, parse_url};

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// A strict guard whose resolver knows only `example.com` (a public address): nothing here
/// touches real DNS.
fn strict_guard() -> Guard {
    let resolver = StaticResolver::new().with("example.com", [ip("93.184.216.34")]);
    Guard::with_resolver(NetPolicy::strict(), Arc::new(resolver))
}

#[tokio::test]
async fn ssrf_matrix_is_blocked() {
    let guard = strict_guard();
    for url in [
        "http://127.0.0.1/",
        "http://10.0.0.1/",
        "http://172.16.0.1/",
        "http://192.168.1.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:7f00:1]/",
        "http://2130706433/",
        "http://0x7f.0.0.1/",
        "http://0177.0.0.1/",
        "http://127.1/",
        "http://127.0.0.1./",
        "http://0/",
        "http://[0:0:0:0:0:ffff:169.254.169.254]/",
        "http://0.0.0.0/",
        "http://[::]/",
        "http://[fe80::1]/",
        "http://[fc00::1]/",
        "http://224.0.0.1/",
        "http://255.255.255.255/",
        "http://100.64.0.1/",
        "http://[64:ff9b::a9fe:a9fe]/",
        "http://[2002:7f00:1::1]/",
        "ftp://example.com/",
        "file:///etc/passwd",
        "gopher://x/",
        "javascript:alert(1)",
        "data:text/plain,hello",
        "http://example.com:22/",
        "http://example.com:6379/",
        "http://user:pass@example.com/",
        "http://example.com@169.254.169.254/",
    ] {
        let outcome = guard.check(url).await;
        assert!(matches!(outcome, Err(UrlRejection::Blocked(_))), "{url} → {outcome:?}");
    }
}

#[tokio::test]
async fn localhost_is_blocked_through_the_system_resolver() {
    let guard = Guard::new(NetPolicy::strict());
    let outcome = guard.check("http://localhost/").await;
    assert!(matches!(outcome, Err(UrlRejection::Blocked(ref m)) if m.contains("loopback")), "{outcome:?}");
    let outcome = guard.check("http://LOCALHOST:8080/x").await;
    assert!(matches!(outcome, Err(UrlRejection::Blocked(_))), "{outcome:?}");
}

#[tokio::test]
async fn malformed_urls_are_invalid() {
    let guard = strict_guard();
    for url in ["not a url", "http://", "", "   ", "/just/a/path", "example.com:8080/x", "http://exa mple.com/"] {
        let outcome = guard.check(url).await;
        assert!(matches!(outcome, Err(UrlRejection::Invalid(_))), "{url:?} → {outcome:?}");
    }
}

#[tokio::test]
async fn unresolvable_host_is_invalid() {
    let outcome = strict_guard().check("https://nowhere.invalid/").await;
    assert_eq!(outcome, Err(UrlRejection::Invalid("host does not resolve".into())));
}

#[tokio::test]
async fn public_url_passes_and_is_normalised() {
    let guard = strict_guard();
    assert_eq!(guard.check("https://example.com/").await.unwrap(), "https://example.com/");
    assert_eq!(guard.check("  HTTPS://Example.COM:443/a/b?c=d#section ").await.unwrap(), "https://example.com/a/b?c=d");
    assert_eq!(guard.check("http://example.com:8080/").await.unwrap(), "http://example.com:8080/");
    // The pure policy step on a parsed URL and an address list.
    let url = parse_url("https://example.com/").unwrap();
    assert_eq!(NetPolicy::strict().check_resolved(&url, &[ip("93.184.216.34")]), Ok(()));
}

#[tokio::test]
async fn any_refused_address_blocks_a_host() {
    let resolver = StaticResolver::new()
        .with("mixed.test", [ip("93.184.216.34"), ip("10.0.0.7")])
        .with("metadata.test", [ip("169.254.169.254")])
        .with("mapped.test", [ip("::ffff:192.168.0.1")]);
    let guard = Guard::with_resolver(NetPolicy::strict(), Arc::new(resolver));
    for url in ["http://mixed.test/", "http://metadata.test/", "http://mapped.test/"] {
        let outcome = guard.check(url).await;
        assert!(
            matches!(outcome, Err(UrlRejection::Blocked(ref m)) if m.contains("resolves to")),
            "{url} → {outcome:?}"
        );
    }
}

#[tokio::test]
async fn allow_private_lifts_address_and_port_rules_but_not_the_scheme_rule() {
    let guard = Guard::new(NetPolicy::allow_private());
    assert_eq!(guard.check("http://127.0.0.1:22/").await.unwrap(), "http://127.0.0.1:22/");
    assert_eq!(guard.check("http://[::1]:3000/").await.unwrap(), "http://[::1]:3000/");
    assert_eq!(guard.check("http://localhost:3000/").await.unwrap(), "http://localhost:3000/");
    for url in ["ftp://127.0.0.1/", "file:///etc/passwd", "gopher://x/"] {
        assert!(matches!(guard.check(url).await, Err(UrlRejection::Blocked(_))), "{url}");
    }
}

#[tokio::test]
async fn allow_private_from_env_vars() {
    let policy =
        NetPolicy::from_vars(|name| (name == "LORE_ALLOW_PRIVATE_NETWORK").then(|| "true".to_string())).unwrap();
    assert!(policy.allow_private);
    let guard = Guard::with_resolver(policy, Arc::new(StaticResolver::new()));
    assert!(guard.check("http://10.0.0.1:9999/").await.is_ok());
}

#[tokio::test]
async fn allow_cidrs_are_exceptions_not_a_bypass() {
    let guard = Guard::new(support::loopback_only_policy());
    assert!(guard.check("http://127.0.0.1:4567/").await.is_ok());
    for url in ["http://127.0.0.2/", "http://169.254.169.254/", "http://[::1]/", "ftp://127.0.0.1/"] {
        assert!(matches!(guard.check(url).await, Err(UrlRejection::Blocked(_))), "{url}");
    }
}
