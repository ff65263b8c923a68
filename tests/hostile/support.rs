//! A `lore serve` child process on a fresh data dir, its dev key, a CLI on the same data dir, and
//! its memory as the kernel reports it.

#![allow(dead_code)]

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub const LORE: &str = env!("CARGO_BIN_EXE_lore");

/// Memory budget of `lore serve` with the lexical embedder under every hostile case, in KiB
/// (docs/limits.md): peak resident set size (`VmHWM`) of the server process.
pub const SERVER_PEAK_RSS_BUDGET_KIB: u64 = 300 * 1024;

/// A `lore serve` child process, killed when dropped.
pub struct Server {
    child: Child,
    pub base: String,
    /// The key `lore serve` bootstrapped (workspace `default`, every scope).
    pub key: String,
    pub client: reqwest::Client,
    pub dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `lore serve` on a fresh data dir with the lexical embedder, private addresses allowed
/// (test sites on 127.0.0.1), and `env` on top.
pub fn serve(env: &[(&str, &str)]) -> Server {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut child = Command::new(LORE)
        .arg("--data-dir")
        .arg(dir.path())
        .args(["serve", "--addr", "127.0.0.1:0"])
        .env("RUST_LOG", "warn")
        .env("LORE_EMBEDDER", "local")
        .env("LORE_ALLOW_PRIVATE_NETWORK", "true")
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("lore serve starts");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut base = None;
    // The banner ends with the "Try:" line.
    loop {
        let line = rx.recv_timeout(Duration::from_secs(60)).expect("lore serve prints its banner");
        if let Some(b) = line.strip_prefix("Lore is listening on ") {
            base = Some(b.to_owned());
        }
        if line.starts_with("Try:") {
            break;
        }
    }
    let key = std::fs::read_to_string(dir.path().join("dev-key")).expect("dev key").trim().to_owned();
    Server { child, base: base.expect("listening line"), key, client: reqwest::Client::new(), dir }
}

/// A field of `/proc/<pid>/status` in KiB (`VmRSS`, `VmHWM`).
pub fn proc_status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field).and_then(|r| r.strip_prefix(':')))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{field} in /proc/{pid}/status"))
}

impl Server {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Resident set size now, KiB.
    pub fn rss_kib(&self) -> u64 {
        proc_status_kib(self.pid(), "VmRSS")
    }

    /// Peak resident set size since the server started, KiB.
    pub fn peak_rss_kib(&self) -> u64 {
        proc_status_kib(self.pid(), "VmHWM")
    }

    /// Fails the test when the server's peak RSS passed the budget.
    pub fn assert_peak_within_budget(&self, what: &str) {
        let peak = self.peak_rss_kib();
        assert!(
            peak <= SERVER_PEAK_RSS_BUDGET_KIB,
            "{what}: lore serve peaked at {} MiB, over the {} MiB budget",
            peak / 1024,
            SERVER_PEAK_RSS_BUDGET_KIB / 1024
        );
    }

    /// Runs `lore <args>` on this server's data dir; returns its last stdout line.
    pub fn lore(&self, args: &[&str]) -> String {
        let out = Command::new(LORE)
            .arg("--data-dir")
            .arg(self.dir.path())
            .args(args)
            .env("RUST_LOG", "warn")
            .env("LORE_EMBEDDER", "local")
            .output()
            .expect("lore runs");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "lore {args:?} failed: {}\n{stdout}", String::from_utf8_lossy(&out.stderr));
        stdout.lines().last().unwrap_or("").to_owned()
    }

    /// A new workspace (CLI flags such as `--storage-quota 1000000`) and a key with every
    /// scope for it.
    pub fn tenant(&self, name: &str, flags: &[&str]) -> String {
        let mut args = vec!["workspaces", "create", "--name", name];
        args.extend_from_slice(flags);
        let ws = self.lore(&args);
        self.lore(&["keys", "create", "--workspace", &ws, "--scopes", "all"])
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// A request with `key`.
    pub fn req(&self, method: reqwest::Method, path: &str, key: &str) -> reqwest::RequestBuilder {
        self.client.request(method, self.url(path)).bearer_auth(key)
    }

    /// A JSON request with `key`; returns the status and the body (Null when not JSON).
    pub async fn json(&self, method: reqwest::Method, path: &str, key: &str, body: Option<Value>) -> (u16, Value) {
        let mut req = self.req(method, path, key);
        if let Some(body) = body {
            req = req.json(&body);
        }
        let res = req.send().await.expect("request");
        let status = res.status().as_u16();
        (status, res.json().await.unwrap_or(Value::Null))
    }

    /// A new chatbot of `key`'s workspace; returns its id.
    pub async fn chatbot(&self, key: &str) -> String {
        let (status, body) =
            self.json(reqwest::Method::POST, "/api/v1/chatbots", key, Some(serde_json::json!({"name": "bot"}))).await;
        assert_eq!(status, 201, "{body}");
        body["chatbot"]["id"].as_str().expect("chatbot id").to_owned()
    }

    /// Polls a chatbot source until it leaves `pending`/`processing` or `within` passes; returns
    /// its last detail.
    pub async fn settle_source(&self, key: &str, chatbot: &str, source: &str, within: Duration) -> Value {
        let started = Instant::now();
        loop {
            let (_, body) = self
                .json(reqwest::Method::GET, &format!("/api/v1/chatbots/{chatbot}/sources/{source}"), key, None)
                .await;
            let status = body["source"]["status"].as_str().unwrap_or("").to_owned();
            if (status != "pending" && status != "processing") || started.elapsed() > within {
                return body["source"].clone();
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// Polls `check` every 50 ms until it is true or `within` passes; returns whether it became true.
pub async fn eventually(within: Duration, mut check: impl AsyncFnMut() -> bool) -> bool {
    let started = Instant::now();
    loop {
        if check().await {
            return true;
        }
        if started.elapsed() > within {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Whether `path` exists (for cleanup checks).
pub fn exists(path: &Path) -> bool {
    path.exists()
}
