//! Load test: sustained mixed traffic from concurrent clients against the real `lore serve`
//! binary (embedded backend) over a socket, for a bounded time.
//!
//! Each client loops over a fixed mix of requests — source lists and details, text sources
//! created and processed, searches, chatbot lists, stats, valid and invalid form submissions, a
//! detail of a source that does not exist — and one more client spends a deliberately small
//! rate limit. Every answer's status is counted per operation. Then the test asserts that
//! nothing failed (no 5xx, no connection error, no status other than the one each operation
//! intends), that every source created reached `ready`, and that the stats, the lists and the
//! database agree with what the clients created.
//!
//! `LORE_LOAD_SECS` (default 20) is the traffic's duration, `LORE_LOAD_CLIENTS` (default 8) the
//! number of concurrent clients, `LORE_LOAD_EMBEDDER` (default `local`) the server's embedder.
//! `bash scripts/load.sh` runs it for 5 minutes and prints the report (docs/fault-and-load.md).

use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const LORE: &str = env!("CARGO_BIN_EXE_lore");
/// Chatbots the clients share (client `k` writes to chatbot `k % CHATBOTS`).
const CHATBOTS: usize = 2;
/// The budget of the rate-limited client's workspace, per minute.
const SMALL_LIMIT: u64 = 30;
/// Words the sources are made of and the searches ask for.
const WORDS: [&str; 8] = ["shipment", "invoice", "warranty", "refund", "courier", "pallet", "customs", "voucher"];

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok()).unwrap_or(default)
}

/// The `lore serve` child process; killed when dropped.
struct Server {
    child: Child,
    base: String,
    stderr: std::path::PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn lore_cli(data_dir: &Path, args: &[&str]) -> String {
    let out = Command::new(LORE).arg("--data-dir").arg(data_dir).args(args).env("RUST_LOG", "warn").output().unwrap();
    assert!(out.status.success(), "lore {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().last().unwrap_or("").to_owned()
}

fn serve(data_dir: &Path, embedder: &str) -> Server {
    let stderr = data_dir.join("serve.stderr");
    let mut child = Command::new(LORE)
        .arg("--data-dir")
        .arg(data_dir)
        .args(["serve", "--addr", "127.0.0.1:0"])
        .env("RUST_LOG", "warn")
        .env("LORE_EMBEDDER", embedder)
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&stderr).unwrap())
        .spawn()
        .expect("lore serve starts");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut base = None;
    loop {
        let line = rx.recv_timeout(Duration::from_secs(60)).expect("lore serve prints its banner");
        if let Some(b) = line.strip_prefix("Lore is listening on ") {
            base = Some(b.to_owned());
        }
        if line.starts_with("Try:") {
            break;
        }
    }
    Server { child, base: base.expect("listening line"), stderr }
}

/// What one operation intends to get.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Op {
    ListSources,
    SourceDetail,
    MissingDetail,
    CreateSource,
    Process,
    Search,
    ListChatbots,
    Stats,
    SubmitValid,
    SubmitInvalid,
    RateLimited,
}

impl Op {
    /// The statuses this operation may answer; anything else is a failure.
    fn intended(self) -> &'static [u16] {
        match self {
            Op::CreateSource | Op::SubmitValid => &[201],
            Op::Process => &[202],
            Op::MissingDetail => &[404],
            Op::SubmitInvalid => &[400],
            Op::RateLimited => &[200, 429],
            _ => &[200],
        }
    }
}

/// One client's mix, repeated: mostly reads, one source created per round.
const MIX: [Op; 12] = [
    Op::ListSources,
    Op::SourceDetail,
    Op::Search,
    Op::CreateSource,
    Op::SubmitValid,
    Op::ListChatbots,
    Op::SourceDetail,
    Op::Search,
    Op::Stats,
    Op::SubmitValid,
    Op::SubmitInvalid,
    Op::MissingDetail,
];

/// Counts and latencies of what the clients did.
#[derive(Default)]
struct Tally {
    statuses: BTreeMap<(Op, u16), u64>,
    latencies: HashMap<Op, Vec<Duration>>,
    /// Requests that got no HTTP answer (connect, reset, timeout, unreadable body).
    transport_errors: Vec<String>,
    /// Answers whose body was not the documented envelope.
    bad_bodies: Vec<String>,
    /// 429 answers without a usable `Retry-After`.
    missing_retry_after: u64,
}

impl Tally {
    fn merge(&mut self, other: Tally) {
        for (k, v) in other.statuses {
            *self.statuses.entry(k).or_default() += v;
        }
        for (k, v) in other.latencies {
            self.latencies.entry(k).or_default().extend(v);
        }
        self.transport_errors.extend(other.transport_errors);
        self.bad_bodies.extend(other.bad_bodies);
        self.missing_retry_after += other.missing_retry_after;
    }

    fn count(&self, op: Op, status: u16) -> u64 {
        self.statuses.get(&(op, status)).copied().unwrap_or(0)
    }

    fn total(&self) -> u64 {
        self.statuses.values().sum()
    }
}

/// Sends one request, counts its answer under `op`, and returns its status and body.
async fn call(tally: &mut Tally, op: Op, req: reqwest::RequestBuilder) -> Option<(u16, Value)> {
    let started = Instant::now();
    let res = match req.send().await {
        Ok(r) => r,
        Err(e) => {
            tally.transport_errors.push(format!("{op:?}: {e}"));
            return None;
        }
    };
    let status = res.status().as_u16();
    let retry_after = res.headers().get("retry-after").and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    let body = match res.json::<Value>().await {
        Ok(b) => b,
        Err(e) => {
            tally.transport_errors.push(format!("{op:?}: {status} with an unreadable body: {e}"));
            return None;
        }
    };
    tally.latencies.entry(op).or_default().push(started.elapsed());
    *tally.statuses.entry((op, status)).or_default() += 1;
    let envelope = if status < 400 { "success" } else { "error" };
    if body["status"] != envelope {
        tally.bad_bodies.push(format!("{op:?} {status}: {body}"));
    }
    if status == 429 && retry_after.is_none_or(|s| s < 1) {
        tally.missing_retry_after += 1;
    }
    Some((status, body))
}

/// What the clients share: the API, the key, the chatbots and form, and the sources created.
struct Shared {
    base: String,
    key: String,
    bots: Vec<String>,
    form: String,
    /// `(chatbot index, source id)` of every source whose creation answered 201.
    created: Mutex<Vec<(usize, String)>>,
}

async fn client_loop(shared: Arc<Shared>, k: usize, until: Instant) -> Tally {
    let http = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().unwrap();
    let mut tally = Tally::default();
    let bot_index = k % CHATBOTS;
    let bot = &shared.bots[bot_index];
    let api = |path: &str| format!("{}/api/v1{path}", shared.base);
    let sources = api(&format!("/chatbots/{bot}/sources"));
    let mut i = k; // clients start at different points of the mix
    while Instant::now() < until {
        let op = MIX[i % MIX.len()];
        let word = WORDS[i % WORDS.len()];
        let key = &shared.key;
        match op {
            Op::ListSources => {
                let page = 1 + (i / MIX.len()) % 3;
                call(&mut tally, op, http.get(format!("{sources}?page={page}&limit=20")).bearer_auth(key)).await;
            }
            Op::SourceDetail => {
                let pick = {
                    let created = shared.created.lock().unwrap();
                    (!created.is_empty()).then(|| created[(i * 7919) % created.len()].clone())
                };
                if let Some((b, id)) = pick {
                    let url = api(&format!("/chatbots/{}/sources/{id}", shared.bots[b]));
                    call(&mut tally, op, http.get(url).bearer_auth(key)).await;
                }
            }
            Op::MissingDetail => {
                let url = format!("{sources}/src_01arz3ndektsv4rrffq69g5fav");
                call(&mut tally, op, http.get(url).bearer_auth(key)).await;
            }
            Op::CreateSource => {
                let n = i / MIX.len();
                let body = json!({
                    "type": "text",
                    "name": format!("Note {k}-{n}"),
                    "content": format!("Note {k}-{n}: the {word} desk answers within {n} days. \
                                        Ask the {word} team about client {k}."),
                });
                let created = call(&mut tally, op, http.post(&sources).bearer_auth(key).json(&body)).await;
                if let Some((201, body)) = created {
                    let id = body["source"]["id"].as_str().unwrap().to_owned();
                    call(&mut tally, Op::Process, http.post(format!("{sources}/{id}/process")).bearer_auth(key)).await;
                    shared.created.lock().unwrap().push((bot_index, id));
                }
            }
            Op::Search => {
                let body = json!({"query": format!("{word} desk"), "topK": 5});
                let url = api(&format!("/chatbots/{bot}/knowledge/search"));
                call(&mut tally, op, http.post(url).bearer_auth(key).json(&body)).await;
            }
            Op::ListChatbots => {
                call(&mut tally, op, http.get(api("/chatbots?limit=10")).bearer_auth(key)).await;
            }
            Op::Stats => {
                call(&mut tally, op, http.get(api(&format!("/chatbots/{bot}/knowledge/stats"))).bearer_auth(key)).await;
            }
            Op::SubmitValid | Op::SubmitInvalid => {
                let values = if op == Op::SubmitValid {
                    json!({"name": format!("Client {k}"), "email": format!("c{k}.{i}@example.com")})
                } else {
                    json!({"email": "not an address"})
                };
                let url = api(&format!("/forms/{}/responses", shared.form));
                call(&mut tally, op, http.post(url).bearer_auth(key).json(&json!({"values": values}))).await;
            }
            Op::Process | Op::RateLimited => unreachable!("not in the mix"),
        }
        i += 1;
    }
    tally
}

/// A client of a workspace with a budget of [`SMALL_LIMIT`] requests a minute: it asks every
/// 20 ms and must get 429s with `Retry-After` once the budget is spent, and nothing else.
async fn rate_limited_loop(base: String, key: String, until: Instant) -> Tally {
    let http = reqwest::Client::new();
    let mut tally = Tally::default();
    let mut pace = tokio::time::interval(Duration::from_millis(20));
    while Instant::now() < until {
        pace.tick().await;
        call(&mut tally, Op::RateLimited, http.get(format!("{base}/api/v1/chatbots")).bearer_auth(&key)).await;
    }
    tally
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

fn report(tally: &Tally, secs: f64, clients: usize) -> String {
    let mut out = format!(
        "{} requests in {secs:.1} s from {clients} clients + 1 rate-limited client: {:.0} requests/s\n",
        tally.total(),
        tally.total() as f64 / secs
    );
    out.push_str(&format!(
        "{:<14} {:>7}  {:<22} {:>8} {:>8} {:>8} {:>8}\n",
        "operation", "count", "statuses", "p50 ms", "p95 ms", "p99 ms", "max ms"
    ));
    let mut ops: Vec<Op> = tally.latencies.keys().copied().collect();
    ops.sort();
    for op in ops {
        let mut l = tally.latencies[&op].clone();
        l.sort();
        let statuses: Vec<String> =
            tally.statuses.iter().filter(|((o, _), _)| *o == op).map(|((_, s), n)| format!("{s}×{n}")).collect();
        out.push_str(&format!(
            "{:<14} {:>7}  {:<22} {:>8.1} {:>8.1} {:>8.1} {:>8.1}\n",
            format!("{op:?}"),
            l.len(),
            statuses.join(" "),
            percentile(&l, 0.5),
            percentile(&l, 0.95),
            percentile(&l, 0.99),
            percentile(&l, 1.0)
        ));
    }
    out
}

async fn get_json(http: &reqwest::Client, url: &str, key: &str) -> Value {
    let res = http.get(url).bearer_auth(key).send().await.unwrap();
    let status = res.status().as_u16();
    let body: Value = res.json().await.unwrap();
    assert_eq!(status, 200, "GET {url}: {body}");
    body
}

async fn post_json(http: &reqwest::Client, url: &str, key: &str, body: Value) -> Value {
    let res = http.post(url).bearer_auth(key).json(&body).send().await.unwrap();
    let status = res.status().as_u16();
    let body: Value = res.json().await.unwrap();
    assert_eq!(status, 201, "POST {url}: {body}");
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sustained_mixed_traffic_answers_without_errors_and_leaves_consistent_records() {
    let secs: u64 = env_or("LORE_LOAD_SECS", 20);
    let clients: usize = env_or("LORE_LOAD_CLIENTS", 8).max(1);
    let embedder = std::env::var("LORE_LOAD_EMBEDDER").unwrap_or_else(|_| "local".into());
    let dir = tempfile::tempdir().unwrap();
    let mut server = serve(dir.path(), &embedder);
    // The load's workspace may spend as much as it likes; the other one has a small budget.
    lore_cli(dir.path(), &["workspaces", "create", "--name", "load", "--rate-limit-per-minute", "100000000"]);
    let key = lore_cli(dir.path(), &["keys", "create", "--workspace", "load", "--scopes", "all"]);
    let small = SMALL_LIMIT.to_string();
    lore_cli(dir.path(), &["workspaces", "create", "--name", "small", "--rate-limit-per-minute", &small]);
    let small_key = lore_cli(dir.path(), &["keys", "create", "--workspace", "small", "--scopes", "chatbot:read"]);

    let http = reqwest::Client::new();
    let api = |path: &str| format!("{}/api/v1{path}", server.base);
    let mut bots = Vec::new();
    for n in 0..CHATBOTS {
        let bot = post_json(&http, &api("/chatbots"), &key, json!({"name": format!("Load {n}")})).await;
        bots.push(bot["chatbot"]["id"].as_str().unwrap().to_owned());
    }
    let fields = json!([
        {"key": "name", "label": "Name", "type": "short_text", "required": true},
        {"key": "email", "label": "E-mail", "type": "email"},
    ]);
    let form = post_json(&http, &api("/forms"), &key, json!({"name": "Contact", "fields": fields})).await;
    let form = form["form"]["id"].as_str().unwrap().to_owned();
    let shared =
        Arc::new(Shared { base: server.base.clone(), key: key.clone(), bots, form, created: Mutex::default() });

    // The traffic.
    let started = Instant::now();
    let until = started + Duration::from_secs(secs);
    let mut tasks = Vec::new();
    for k in 0..clients {
        tasks.push(tokio::spawn(client_loop(shared.clone(), k, until)));
    }
    tasks.push(tokio::spawn(rate_limited_loop(server.base.clone(), small_key, until)));
    let mut tally = Tally::default();
    for t in tasks {
        tally.merge(t.await.expect("client task"));
    }
    let elapsed = started.elapsed().as_secs_f64();
    let report = report(&tally, elapsed, clients);
    println!("{report}");

    assert!(tally.transport_errors.is_empty(), "requests without an answer: {:?}\n{report}", tally.transport_errors);
    assert!(tally.bad_bodies.is_empty(), "answers that are not the envelope: {:?}", tally.bad_bodies);
    let unintended: Vec<_> = tally.statuses.iter().filter(|((op, s), _)| !op.intended().contains(s)).collect();
    assert!(unintended.is_empty(), "unintended statuses (operation, status) × count: {unintended:?}\n{report}");
    for op in MIX {
        assert!(tally.latencies.get(&op).is_some_and(|l| !l.is_empty()), "{op:?} never ran\n{report}");
    }
    // The small workspace's budget: its first window passes in full, then 429s with Retry-After;
    // at most one full budget per window that started.
    let windows = 1 + (elapsed / 60.0).floor() as u64;
    let passed = tally.count(Op::RateLimited, 200);
    assert!((SMALL_LIMIT..=SMALL_LIMIT * windows).contains(&passed), "{passed} passed in {windows} window(s)");
    assert!(tally.count(Op::RateLimited, 429) > 0, "the small budget was never exceeded\n{report}");
    assert_eq!(tally.missing_retry_after, 0, "429s without Retry-After");

    // Afterwards: every source created reaches `ready` (processing may still run for a while),
    // and the stats, the lists and the database agree with what was created.
    let created = shared.created.lock().unwrap().clone();
    assert_eq!(created.len() as u64, tally.count(Op::CreateSource, 201));
    assert_eq!(tally.count(Op::Process, 202), created.len() as u64, "every created source was started");
    assert!(!created.is_empty());
    let settle_deadline = Instant::now() + Duration::from_secs(120 + secs);
    for (b, bot) in shared.bots.iter().enumerate() {
        let mine: HashSet<&str> = created.iter().filter(|(i, _)| *i == b).map(|(_, id)| id.as_str()).collect();
        let n = mine.len();
        let stats = loop {
            let stats = get_json(&http, &api(&format!("/chatbots/{bot}/knowledge/stats")), &key).await["stats"].clone();
            if stats["sourcesByStatus"] == json!({"ready": n}) {
                break stats;
            }
            assert!(Instant::now() < settle_deadline, "sources not all ready after the load: {stats}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        assert_eq!(stats["totalSources"], n, "{stats}");
        assert_eq!(stats["sourcesByType"], json!({"text": n, "url": 0, "file": 0}), "{stats}");
        assert_eq!(stats["totalChunks"], n, "one chunk per note: {stats}");
        let mut listed = HashSet::new();
        for page in 1.. {
            let body = get_json(&http, &api(&format!("/chatbots/{bot}/sources?page={page}&limit=100")), &key).await;
            assert_eq!(body["pagination"]["total"], n, "{}", body["pagination"]);
            let items = body["sources"].as_array().unwrap();
            for s in items {
                assert_eq!((s["status"].as_str(), s["chunkCount"].as_u64()), (Some("ready"), Some(1)), "{s}");
                assert!(listed.insert(s["id"].as_str().unwrap().to_owned()), "listed twice: {s}");
            }
            if items.len() < 100 {
                break;
            }
        }
        assert_eq!(listed.iter().map(String::as_str).collect::<HashSet<_>>(), mine, "the list is what was created");
        let bot_body = get_json(&http, &api(&format!("/chatbots/{bot}")), &key).await;
        assert_eq!(bot_body["chatbot"]["sourceCount"], n, "{bot_body}");
    }
    let accepted = tally.count(Op::SubmitValid, 201);
    let responses =
        get_json(&http, &api(&format!("/forms/{}/responses?limit=1", shared.form)), &key).await["pagination"].clone();
    assert_eq!(responses["total"], accepted, "form responses == accepted submissions: {responses}");
    // The database beneath: one chunk per source, one row per accepted submission.
    let db =
        rusqlite::Connection::open_with_flags(dir.path().join("lore.db"), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let count = |table: &str| db.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get::<_, u64>(0));
    assert_eq!(count("chunks").unwrap(), created.len() as u64, "no chunk lost or duplicated");
    assert_eq!(count("form_responses").unwrap(), accepted);

    // The server is still up and logged no error or panic.
    assert!(server.child.try_wait().unwrap().is_none(), "lore serve exited");
    let log = std::fs::read_to_string(&server.stderr).unwrap();
    let bad: Vec<&str> = log.lines().filter(|l| l.contains("ERROR") || l.contains("panicked")).collect();
    assert!(bad.is_empty(), "lore serve logged errors under load:\n{}", bad.join("\n"));
    println!(
        "afterwards: {} sources ready with {} chunks, {} form responses",
        created.len(),
        count("chunks").unwrap(),
        accepted
    );
}
