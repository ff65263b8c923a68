//! Local test sites on 127.0.0.1 (axum), a raw TCP server for byte-exact responses, and
//! resolvers that map test host names to 127.0.0.1 without real DNS.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lore_crawl::{Cidr, HostResolver, NetPolicy};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// What a path answers.
#[derive(Clone, Debug)]
pub enum Reply {
    Html(String),
    Typed(&'static str, Vec<u8>),
    Redirect(u16, String),
    Status(u16),
    /// Never answers.
    Hang,
    /// Answers with the request's method, content type, `x-test` header, user agent and body.
    Echo,
}

pub fn html(body: &str) -> Reply {
    Reply::Html(body.to_string())
}

/// An HTML page whose body is links to `hrefs`.
pub fn links(hrefs: &[&str]) -> Reply {
    let anchors: String = hrefs.iter().map(|h| format!("<a href=\"{h}\">{h}</a>\n")).collect();
    Reply::Html(format!("<!doctype html><html><head><title>t</title></head><body>{anchors}</body></html>"))
}

/// One request the server saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    pub host: String,
    pub path: String,
}

#[derive(Clone)]
struct Site {
    routes: Arc<HashMap<String, Reply>>,
    hits: Arc<Mutex<Vec<Hit>>>,
}

pub struct TestServer {
    pub addr: SocketAddr,
    hits: Arc<Mutex<Vec<Hit>>>,
}

impl TestServer {
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    pub fn hits(&self) -> Vec<Hit> {
        self.hits.lock().unwrap().clone()
    }

    /// Requests for `path` (path and query), any host.
    pub fn count(&self, path: &str) -> usize {
        self.hits().iter().filter(|h| h.path == path).count()
    }

    pub fn count_prefix(&self, prefix: &str) -> usize {
        self.hits().iter().filter(|h| h.path.starts_with(prefix)).count()
    }

    /// Requests whose `Host` header names `host` (port ignored).
    pub fn count_host(&self, host: &str) -> usize {
        self.hits().iter().filter(|h| h.host.rsplit_once(':').map_or(h.host.as_str(), |(name, _)| name) == host).count()
    }
}

/// Serves on 127.0.0.1:0; `routes` gets the port (for absolute links) and returns path → reply.
/// Unknown paths answer 404.
pub async fn serve(routes: impl FnOnce(u16) -> Vec<(String, Reply)>) -> TestServer {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let routes: HashMap<String, Reply> = routes(addr.port()).into_iter().collect();
    let hits = Arc::new(Mutex::new(Vec::new()));
    let site = Site { routes: Arc::new(routes), hits: hits.clone() };
    let app = Router::new().fallback(handle).with_state(site);
    tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    TestServer { addr, hits }
}

async fn handle(State(site): State<Site>, request: Request<Body>) -> Response {
    let (parts, body) = request.into_parts();
    let path = parts.uri.path_and_query().map(|p| p.as_str().to_string()).unwrap_or_default();
    let host = parts.headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("").to_string();
    site.hits.lock().unwrap().push(Hit { host, path: path.clone() });
    let Some(reply) = site.routes.get(&path).cloned() else {
        return StatusCode::NOT_FOUND.into_response();
    };
    match reply {
        Reply::Html(body) => ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response(),
        Reply::Typed(ct, body) => ([(header::CONTENT_TYPE, ct)], body).into_response(),
        Reply::Redirect(status, location) => {
            (StatusCode::from_u16(status).unwrap(), [(header::LOCATION, location)]).into_response()
        }
        Reply::Status(status) => StatusCode::from_u16(status).unwrap().into_response(),
        Reply::Hang => std::future::pending().await,
        Reply::Echo => echo(&parts.method, &parts.headers, body).await,
    }
}

async fn echo(method: &Method, headers: &HeaderMap, body: Body) -> Response {
    let body: Bytes = axum::body::to_bytes(body, 1 << 20).await.unwrap();
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("-").to_string();
    let text = format!(
        "method={method}\ncontent-type={}\nx-test={}\nuser-agent={}\nbody={}",
        get("content-type"),
        get("x-test"),
        get("user-agent"),
        String::from_utf8_lossy(&body)
    );
    ([(header::CONTENT_TYPE, "text/plain")], text).into_response()
}

/// A raw TCP server on 127.0.0.1:0 that answers every connection with `response` verbatim and
/// closes it. Returns the address and a connection counter.
pub async fn raw_server(response: Vec<u8>) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let connections = Arc::new(AtomicUsize::new(0));
    let counter = connections.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else { return };
            counter.fetch_add(1, Ordering::SeqCst);
            let response = response.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 1024];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let _ = stream.write_all(&response).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    (addr, connections)
}

/// Test host names → 127.0.0.1 (via `lore_crawl::StaticResolver`).
pub fn local_names(names: &[&str]) -> Arc<dyn HostResolver> {
    let loopback: IpAddr = "127.0.0.1".parse().unwrap();
    let resolver = names.iter().fold(lore_crawl::StaticResolver::new(), |r, name| r.with(name, [loopback]));
    Arc::new(resolver)
}

/// The production address rule, with 127.0.0.1 (only) allowed and any port: reaches the test
/// servers while link-local, private, other loopback addresses … stay refused.
pub fn loopback_only_policy() -> NetPolicy {
    NetPolicy::strict().with_allowed_cidr(Cidr::host("127.0.0.1".parse().unwrap())).with_any_port()
}

/// Answers `first` on the first lookup and `then` on every later one (DNS rebinding).
pub struct RebindingResolver {
    pub first: IpAddr,
    pub then: IpAddr,
    pub calls: AtomicUsize,
}

#[async_trait]
impl HostResolver for RebindingResolver {
    async fn lookup(&self, _host: &str) -> io::Result<Vec<IpAddr>> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        Ok(vec![if n == 0 { self.first } else { self.then }])
    }
}

/// Bytes of one page the crawl tests allow.
pub const PAGE_CAP: usize = 64 * 1024;

/// A crawler whose client resolves `site.test` and `other.test` to 127.0.0.1.
pub fn crawler(policy: NetPolicy) -> lore_crawl::WebCrawler {
    let client =
        lore_crawl::SafeClient::builder(policy).resolver(local_names(&["site.test", "other.test"])).build().unwrap();
    lore_crawl::WebCrawler::new(client)
}

/// A crawl of `path` on `site.test` at `server`'s port: 50 pages of [`PAGE_CAP`] bytes, 5 s each.
pub fn request(server: &TestServer, path: &str, depth: u8) -> lore_app::ports::CrawlRequest {
    lore_app::ports::CrawlRequest {
        url: format!("http://site.test:{}{path}", server.port()),
        depth,
        max_pages: 50,
        max_page_bytes: PAGE_CAP,
        page_timeout: std::time::Duration::from_secs(5),
    }
}
