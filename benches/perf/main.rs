//! In-process performance budgets (the performance budgets (docs/benchmarks.md)), each measured against its peer or baseline in the
//! same run and reported as a ratio.
//!
//! ```sh
//! bash scripts/bench-perf.sh      # venv with the Python peers, build, run, rewrite docs/benchmarks.md
//! cargo bench --profile perf --bench perf -- [--only chunking,extraction,embedding,search,pg-search,pg-real,http-search,webhooks,conversations,analytics]
//!     [--write FILE] [--quick] [--python PATH]
//! ```
//!
//! - `chunking` (`chunking.rs`): `lore_app::chunking::chunk_text` with the deployment's default
//!   settings against LangChain's `RecursiveCharacterTextSplitter` on the same files.
//! - `extraction` (`extract.rs`): `lore_extract::DocumentExtractor` against pypdf, python-docx,
//!   openpyxl, python-pptx and ebooklib on the same generated PDF, DOCX, XLSX, PPTX and EPUB files.
//! - `embedding` (`embed.rs`): all-MiniLM-L6-v2 (our encoder) against sentence-transformers
//!   (PyTorch) with the same weights on the same chunks (`benches/embed/peer.py`).
//! - `search` (`search.rs`): the embedded index (`lore_local::SqliteStore` as `VectorIndex`) at
//!   10k and 100k chunks against a brute-force scan of the same vectors.
//! - `pg-search` (`pg_search.rs`): the pgvector index of the AWS composition on the test
//!   PostgreSQL (`LORE_BENCH_DATABASE_URL`) at 10k and 100k chunks, the same chunks and questions:
//!   semantic (with its recall), keyword and hybrid latency; reported, no budget of its own.
//! - `pg-real` (`pg_real.rs`): the same index at 100k chunks of real text (documentation passages
//!   of `scripts/build-scale-corpus.py` embedded with all-MiniLM-L6-v2, vectors cached) and 200
//!   embedded questions: semantic latency and recall@10 per `ef_search`, keyword and hybrid
//!   latency, against the pgvector budgets of docs/benchmarks.md.
//! - `http-search` (`http_search.rs`): hybrid search through `lore serve`'s HTTP API at 10k chunks
//!   with all-MiniLM-L6-v2 embedding each query, against the model's own time per query.
//! - `webhooks` (`webhooks.rs`): the dispatcher of `lore serve` delivering to a local receiver,
//!   against a plain reqwest loop to the same receiver; and retry timing on a short schedule.
//! - `conversations` (`chat.rs`): streamed answers of `lore serve` from a local stub model at
//!   10k chunks (time to the first `citations` and `delta` events against the model's own first
//!   piece, and the time until `citations` stage by stage) on the embedded backend with the
//!   lexical embedder and with all-MiniLM-L6-v2, and on the AWS composition with MiniLM (the
//!   test moto server and PostgreSQL, `LORE_BENCH_MOTO_URL`, `LORE_BENCH_DATABASE_URL`); and
//!   conversations a second under 4 clients against the stub alone.
//! - `analytics` (`analytics.rs`): the analytics report of a chatbot with 100,000 messages over
//!   90 days through `lore serve`'s HTTP API, against a scan of the same messages.
//!
//! The Python peers (`peers.py`) run with `--python` (default `$LORE_BENCH_PYTHON`, else
//! `python3`); without the packages their columns say "not measured". `--quick` shrinks every
//! row (smaller sizes, fewer repeats) to check the bench itself; its numbers are not published.

mod analytics;
mod answer_tests;
mod chat;
mod chunking;
mod embed;
mod extract;
mod http_search;
mod pg_real;
mod pg_search;
mod search;
mod webhooks;

#[path = "../common/machine.rs"]
mod machine;
use machine::{cpu_model, today};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const BEGIN: &str = "<!-- perf-inprocess:begin (written by benches/perf/main.rs) -->";
const BEGIN_PREFIX: &str = "<!-- perf-inprocess:begin";
const END: &str = "<!-- perf-inprocess:end -->";
const HEADING: &str = "## Performance budgets (in process)";

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;
pub type Result<T> = std::result::Result<T, BoxError>;

pub struct Options {
    pub only: Vec<String>,
    pub write: Option<PathBuf>,
    pub quick: bool,
    pub python: PathBuf,
    pub command: String,
    pub root: PathBuf,
}

impl Options {
    fn parse() -> Result<Self> {
        let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
        let mut o = Options {
            only: vec![],
            write: None,
            quick: false,
            python: std::env::var_os("LORE_BENCH_PYTHON").map_or_else(|| PathBuf::from("python3"), PathBuf::from),
            command: std::env::var("LORE_BENCH_COMMAND")
                .unwrap_or_else(|_| "cargo bench --profile perf --bench perf".to_owned()),
            root,
        };
        let mut args = std::env::args().skip(1);
        while let Some(a) = args.next() {
            match a.as_str() {
                "--only" => o.only = args.next().ok_or("--only needs a list")?.split(',').map(str::to_owned).collect(),
                "--write" => o.write = Some(PathBuf::from(args.next().ok_or("--write needs a file")?)),
                "--python" => o.python = PathBuf::from(args.next().ok_or("--python needs a path")?),
                "--quick" => o.quick = true,
                // `cargo bench` passes `--bench` to harness-less targets.
                "--bench" => {}
                other => return Err(format!("unknown argument {other:?}").into()),
            }
        }
        Ok(o)
    }

    fn wants(&self, row: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|o| o == row)
    }
}

/// A row of the report: runs its measurements.
type RowFn = fn(&Options) -> Result<Section>;

/// One section of the report: its Markdown, and whether every budget in it was met.
pub struct Section {
    pub markdown: String,
    pub met: Vec<(String, bool)>,
}

fn main() {
    if let Err(e) = run() {
        eprintln!("perf bench: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let o = Options::parse()?;
    let started = Instant::now();
    let peers = python_versions(&o);
    let mut sections: Vec<Section> = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    let rows: [(&str, RowFn); 11] = [
        ("chunking", chunking::run),
        ("extraction", extract::run),
        ("embedding", embed::run),
        ("search", search::run),
        ("pg-search", pg_search::run),
        ("pg-real", pg_real::run),
        ("http-search", http_search::run),
        ("webhooks", webhooks::run),
        ("conversations", chat::run),
        ("analytics", analytics::run),
        ("answer-tests", answer_tests::run),
    ];
    for (name, f) in rows {
        if !o.wants(name) {
            continue;
        }
        eprintln!("perf bench: {name} …");
        let t = Instant::now();
        match f(&o) {
            Ok(s) => {
                println!("{}", s.markdown);
                sections.push(s);
            }
            Err(e) => {
                eprintln!("perf bench: {name} failed: {e}");
                failures.push(format!("- **{name}**: not measured: {e}"));
            }
        }
        eprintln!("perf bench: {name} took {:.1} s", t.elapsed().as_secs_f64());
    }
    let report = report(&o, &peers, &sections, &failures);
    if let Some(path) = &o.write {
        if o.quick {
            eprintln!("perf bench: --quick results are not written to {}", path.display());
        } else {
            write_block(path, &report)?;
            eprintln!("perf bench: wrote {}", path.display());
        }
    } else {
        println!("{report}");
    }
    eprintln!("perf bench: done in {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

fn python_versions(o: &Options) -> Option<Value> {
    python(o, &["versions"]).map_err(|e| eprintln!("perf bench: the Python peers are not available: {e}")).ok()
}

/// Runs `peers.py` with `args`; its JSON answer.
pub fn python(o: &Options, args: &[&str]) -> Result<Value> {
    let script = o.root.join("benches/perf/peers.py");
    let out = std::process::Command::new(&o.python)
        .arg(&script)
        .args(args)
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", o.python.display()))?;
    if !out.status.success() {
        return Err(format!("peers.py {} exited with {}", args.first().unwrap_or(&""), out.status).into());
    }
    Ok(serde_json::from_slice(&out.stdout)?)
}

/// Runs `f` once untimed, then until `min` has passed and at least `min_runs` runs were made;
/// every timed run's seconds.
pub fn timed_runs<T>(min: Duration, min_runs: usize, mut f: impl FnMut() -> T) -> (T, Vec<f64>) {
    let result = f();
    let mut runs = Vec::new();
    let started = Instant::now();
    while runs.len() < min_runs || started.elapsed() < min {
        let t = Instant::now();
        std::hint::black_box(f());
        runs.push(t.elapsed().as_secs_f64());
    }
    (result, runs)
}

pub fn median(v: &[f64]) -> f64 {
    percentile(v, 50.0)
}

/// A memory figure of this process from /proc/self/status (`VmRSS:`, `VmHWM:`), MiB.
pub fn own_memory_mib(field: &str) -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    Some(line.split_whitespace().nth(1)?.parse::<f64>().ok()? / 1024.0)
}

/// CPU time (user + system) this process has used so far, seconds, from /proc/self/stat (in
/// USER_HZ ticks, 100 per second on Linux); `None` where that file is not readable.
pub fn own_cpu_secs() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i)?.parse::<f64>().ok();
    Some((ticks(11)? + ticks(12)?) / 100.0)
}

/// Nearest-rank percentile (`p` in 0..=100) of unsorted values.
pub fn percentile(v: &[f64], p: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * s.len() as f64).ceil().max(1.0) as usize;
    s[rank.min(s.len()) - 1]
}

pub fn runs_of(v: &Value) -> Vec<f64> {
    v["runs"].as_array().map(|a| a.iter().filter_map(Value::as_f64).collect()).unwrap_or_default()
}

pub fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}

pub fn human_bytes(bytes: usize) -> String {
    match bytes {
        b if b >= 1_000_000 => format!("{:.1} MB", b as f64 / 1e6),
        b if b >= 1_000 => format!("{:.0} KB", b as f64 / 1e3),
        b => format!("{b} B"),
    }
}

/// A workspace named `name` on the running server, with limits no bench reaches, and a client
/// holding a key of it with every scope.
pub async fn bench_workspace(
    running: &lore::serve::Running,
    name: &str,
) -> Result<(lore_domain::workspace::Workspace, Api)> {
    let limits = lore_domain::workspace::LimitsPatch {
        sources_limit: Some(1_000_000),
        storage_quota_bytes: Some(1 << 40),
        rate_limit_per_minute: Some(100_000_000),
        ..Default::default()
    };
    let parsed = lore_domain::workspace::WorkspaceName::parse(name).map_err(|e| format!("{e:?}"))?;
    let ws = running.app.create_workspace(parsed, limits).await.map_err(|e| format!("{e:?}"))?;
    let issued =
        running.app.create_key(name, lore_domain::scope::ScopeSet::all(), None).await.map_err(|e| format!("{e:?}"))?;
    let api = Api {
        base: format!("http://{}", running.addr),
        key: issued.secret.expose().to_owned(),
        client: reqwest::Client::new(),
    };
    Ok((ws, api))
}

/// A client of the server under test: its address and a key of the bench's workspace.
pub struct Api {
    pub base: String,
    pub key: String,
    pub client: reqwest::Client,
}

impl Api {
    /// POSTs `body` and returns the JSON answer; an error for any non-2xx status.
    pub async fn post(&self, path: &str, body: &Value) -> Result<Value> {
        let res = self.client.post(format!("{}{path}", self.base)).bearer_auth(&self.key).json(body).send().await?;
        let status = res.status();
        let json: Value = res.json().await?;
        if !status.is_success() {
            return Err(format!("{path}: {status} {json}").into());
        }
        Ok(json)
    }

    pub async fn get(&self, path: &str) -> Result<Value> {
        Ok(self.client.get(format!("{}{path}", self.base)).bearer_auth(&self.key).send().await?.json().await?)
    }
}

pub fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "**not met**" }
}

fn git_revision(root: &Path) -> String {
    let git = |args: &[&str]| std::process::Command::new("git").current_dir(root).args(args).output().ok();
    let Some(rev) = git(&["rev-parse", "--short", "HEAD"]).and_then(|o| String::from_utf8(o.stdout).ok()) else {
        return "unknown revision".to_owned();
    };
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|o| !o.stdout.is_empty());
    let rev = rev.trim().to_owned();
    if dirty { format!("{rev} + uncommitted changes") } else { rev }
}

/// The cores this process may run on (the machine's, on the bench machines).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn report(o: &Options, peers: &Option<Value>, sections: &[Section], failures: &[String]) -> String {
    let cores = cores();
    let mut s = String::new();
    let load =
        std::fs::read_to_string("/proc/loadavg").ok().and_then(|l| l.split_whitespace().next().map(str::to_owned));
    s.push_str(&format!(
        "Measured {} on {} ({cores} cores; load average {} when the report was written), Rust profile `perf`, revision {}.{}\n",
        today(),
        cpu_model(),
        load.as_deref().unwrap_or("?"),
        git_revision(&o.root),
        if o.quick { " **--quick run: smaller inputs, not for publication.**" } else { "" }
    ));
    match peers {
        Some(v) => s.push_str(&format!(
            "Python {} with langchain-text-splitters {}, pypdf {}, python-docx {}, openpyxl {}, python-pptx {}, \
             EbookLib {} (lxml {}). Reproduce with:\n\n",
            v["python"].as_str().unwrap_or("?"),
            v["langchain-text-splitters"].as_str().unwrap_or("?"),
            v["pypdf"].as_str().unwrap_or("?"),
            v["python-docx"].as_str().unwrap_or("?"),
            v["openpyxl"].as_str().unwrap_or("?"),
            v["python-pptx"].as_str().unwrap_or("?"),
            v["EbookLib"].as_str().unwrap_or("?"),
            v["lxml"].as_str().unwrap_or("?"),
        )),
        None => s.push_str("The Python peers were not available in this run. Reproduce with:\n\n"),
    }
    s.push_str(&format!("```sh\n{}\n```\n\n", o.command));
    let all: Vec<&(String, bool)> = sections.iter().flat_map(|x| &x.met).collect();
    if !all.is_empty() {
        s.push_str("| budget | verdict |\n|---|---|\n");
        for (what, met) in &all {
            s.push_str(&format!("| {what} | {} |\n", verdict(*met)));
        }
        s.push('\n');
    }
    for sec in sections {
        s.push_str(&sec.markdown);
        s.push('\n');
    }
    if !failures.is_empty() {
        s.push_str("Not measured in this run:\n\n");
        for f in failures {
            s.push_str(f);
            s.push('\n');
        }
    }
    s
}

/// Replaces the marked block of `path` with `body`; adds the heading and markers at the end of
/// the file when they are not there yet.
fn write_block(path: &Path, body: &str) -> Result<()> {
    let doc = std::fs::read_to_string(path).unwrap_or_default();
    let block = format!("{BEGIN}\n{body}{END}");
    let new = match (doc.find(BEGIN_PREFIX), doc.find(END)) {
        (Some(b), Some(e)) if b < e => format!("{}{block}{}", &doc[..b], &doc[e + END.len()..]),
        _ => format!("{}\n\n{HEADING}\n\n{block}\n", doc.trim_end()),
    };
    std::fs::write(path, new)?;
    Ok(())
}

/// SplitMix64: a small deterministic generator for the bench's inputs.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in [-1, 1).
    pub fn signed_unit(&mut self) -> f32 {
        ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
}

/// `(title, text)` of every passage of the retrieval corpus (benches/retrieval/corpus.jsonl,
/// CPython docstrings): the prose every row's inputs are made of.
pub fn corpus(o: &Options) -> Result<Vec<(String, String)>> {
    let path = o.root.join("benches/retrieval/corpus.jsonl");
    let raw = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for line in raw.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line)?;
        let (Some(title), Some(text)) = (v["title"].as_str(), v["text"].as_str()) else { continue };
        out.push((title.to_owned(), text.to_owned()));
    }
    if out.is_empty() {
        return Err(format!("{} has no passages", path.display()).into());
    }
    Ok(out)
}
