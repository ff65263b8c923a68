//! A small website on 127.0.0.1 for crawl tests: linked pages, robots.txt, a page on another
//! host name, a page whose text can change, and a page held open until the test releases it.

use axum::Router;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::Semaphore;

#[derive(Clone)]
struct Shared {
    hits: Arc<Mutex<HashMap<String, usize>>>,
    changing: Arc<Mutex<String>>,
    /// `/slow` answers once a permit is available.
    gate: Arc<Semaphore>,
    port: u16,
}

pub struct Site {
    pub base: String,
    shared: Shared,
}

fn page(title: &str, body: &str, links: &[String]) -> String {
    let links: String = links.iter().map(|l| format!("<li><a href=\"{l}\">{l}</a></li>")).collect();
    format!(
        "<html><head><title>{title}</title><script>var tracking = 'SCRIPT-NOISE';</script></head>\
         <body><nav>NAV-NOISE menu</nav><main><h1>{title}</h1><p>{body}</p><ul>{links}</ul></main>\
         <footer>FOOTER-NOISE</footer></body></html>"
    )
}

async fn serve_page(State(s): State<Shared>, Path(name): Path<String>) -> axum::response::Response {
    *s.hits.lock().unwrap().entry(name.clone()).or_default() += 1;
    let html = |t: &str, b: &str, l: &[String]| {
        ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], page(t, b, l)).into_response()
    };
    match name.as_str() {
        "a" => html(
            "Alpha page",
            "Alpha explains account setup.",
            &["/b".into(), "/private".into(), format!("http://localhost:{}/elsewhere", s.port)],
        ),
        "b" => html("Beta page", "Beta covers billing cycles.", &["/c".into()]),
        "c" => html("Gamma page", "Gamma describes cancellation.", &["/d".into()]),
        "d" => html("Delta page", "Delta is too deep to reach.", &[]),
        "private" => html("Private", "PRIVATE-SHOULD-NOT-BE-CRAWLED", &[]),
        "elsewhere" => html("Elsewhere", "OTHER-HOST-SHOULD-NOT-BE-CRAWLED", &[]),
        "changing" => {
            let text = s.changing.lock().unwrap().clone();
            ([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response()
        }
        "slow" => {
            let _permit = s.gate.acquire().await.expect("gate open");
            html("Slow page", "The slow page finally answered.", &[])
        }
        _ => (axum::http::StatusCode::NOT_FOUND, "no such page").into_response(),
    }
}

/// An mdBook-shaped book under `/book/`: the index's only navigation is a `<noscript><iframe>` of
/// the table of contents (mdBook builds its menu with JavaScript), chapters open with back-to-back
/// headings over a section longer than a chunk, and `print.html` repeats every chapter.
fn book_page(name: &str) -> Option<String> {
    let shell = |title: &str, main: &str| {
        format!(
            "<html><head><title>{title}</title><script>buildMenu();</script></head><body>\
             <nav><noscript><iframe src=\"toc.html\"></iframe></noscript></nav><main>{main}</main></body></html>"
        )
    };
    let install: String = (1..=6)
        .map(|i| {
            format!(
                "<p>Installation step {i}: rustup downloads the compiler and the standard library for your \
                 platform, keeps them up to date and lets several toolchains live side by side. {}</p>",
                "Run the installer again whenever a release is out. ".repeat(8)
            )
        })
        .collect();
    let ch1 = format!("<h1>Getting Started</h1><h2>Installation</h2>{install}");
    let ch2 = "<h1>Hello, World!</h1><p>The traditional first program prints a greeting with the println macro \
               from a main function.</p>";
    Some(match name {
        "index.html" => shell("The Book", "<h1>The Book</h1><p>This book teaches the language from the ground up.</p>"),
        "toc.html" => "<html><body><ol><li><a href=\"ch01.html\">Getting Started</a></li>\
                       <li><a href=\"ch02.html\">Hello, World!</a></li><li><a href=\"print.html\">Print</a></li>\
                       </ol></body></html>"
            .to_owned(),
        "ch01.html" => shell("Getting Started", &ch1),
        "ch02.html" => shell("Hello, World!", ch2),
        "print.html" => shell("The Book", &format!("{ch1}{ch2}")),
        _ => return None,
    })
}

async fn serve_book(State(s): State<Shared>, Path(name): Path<String>) -> axum::response::Response {
    *s.hits.lock().unwrap().entry(format!("book/{name}")).or_default() += 1;
    match book_page(&name) {
        Some(html) => ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response(),
        None => (axum::http::StatusCode::NOT_FOUND, "no such page").into_response(),
    }
}

impl Site {
    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let shared =
            Shared { hits: Default::default(), changing: Default::default(), gate: Arc::new(Semaphore::new(0)), port };
        *shared.changing.lock().unwrap() = "Version one of the changing page.".into();
        let app = Router::new()
            .route("/robots.txt", get(|| async { "User-agent: *\nDisallow: /private\n" }))
            .route("/{name}", get(serve_page))
            .route("/book/{name}", get(serve_book))
            .with_state(shared.clone());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self { base: format!("http://127.0.0.1:{port}"), shared }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    pub fn hits(&self, name: &str) -> usize {
        self.shared.hits.lock().unwrap().get(name).copied().unwrap_or(0)
    }

    pub fn set_changing(&self, text: &str) {
        *self.shared.changing.lock().unwrap() = text.to_owned();
    }

    /// Lets every held and future `/slow` request answer.
    pub fn release_slow(&self) {
        self.shared.gate.add_permits(1_000);
    }
}
