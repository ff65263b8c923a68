//! Retrieval-quality benchmark, end to end through the HTTP API.
//!
//! ```sh
//! bash scripts/bench-retrieval.sh      # fetches the model, builds, runs, rewrites docs/benchmarks.md
//! cargo bench --profile perf --bench retrieval -- [--embedders local,minilm] [--write FILE]
//!     [--per-query FILE] [--dump FILE] [--corpus FILE] [--queries FILE]
//! ```
//!
//! For each embedder (`local`: the lexical hashing `LocalEmbedder`; `minilm`: all-MiniLM-L6-v2,
//! skipped when its files are missing) it starts the real server in process (`lore::serve::start`
//! on 127.0.0.1:0, fresh data dir), creates a chatbot, creates one text source per passage of
//! `benches/retrieval/corpus.jsonl` (name = passage id) and processes it, waits until every
//! source is ready, then sends every query of `benches/retrieval/queries.jsonl` in each mode
//! (`keyword`, `semantic`, `hybrid`, topK 10, one request at a time) and scores the answers
//! (nDCG@10, recall@10, MRR@10, see `metrics.rs`) and their latency (HTTP round trip and the
//! response's `tookMs`).
//!
//! A fusion sweep follows: the semantic and keyword rankings are fetched again at topK 50 (and the
//! keyword one also for the query without stopwords) and fused client-side under other settings
//! (RRF k, depth, weights; weighted sums of scores). Its first row uses the server's settings and
//! must reproduce the server's hybrid answers; the sweep shows what a change of
//! `lib/app/src/search.rs` would do without changing it.
//!
//! `--write` replaces the marked block of the given Markdown file with the report; `--per-query`
//! writes one JSON line per embedder, mode and query (scores, first passages); `--dump` the sweep's
//! rankings with their scores, for analyses outside the bench.
//!
//! The workspace the passages go into is made with the same use cases `lore workspaces create` and
//! `lore keys create` run (in process, on the server's `App`), with a sources limit above the
//! corpus size and a rate limit the benchmark cannot reach; everything else goes over HTTP.

mod metrics;

use metrics::Judgements;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

const TOP_K: usize = 10;
const SWEEP_K: usize = 50;
const MODES: [&str; 3] = ["keyword", "semantic", "hybrid"];
/// Requests in flight while the corpus is uploaded.
const UPLOAD_CONCURRENCY: usize = 8;
/// Give up when the corpus is not indexed after this long.
const INDEX_TIMEOUT: Duration = Duration::from_secs(900);
const BEGIN: &str = "<!-- retrieval-results:begin (written by benches/retrieval/main.rs) -->";
const END: &str = "<!-- retrieval-results:end -->";

type BoxError = Box<dyn std::error::Error + Send + Sync>;
type Result<T> = std::result::Result<T, BoxError>;

struct Passage {
    id: String,
    text: String,
}

struct Query {
    id: String,
    kind: String,
    text: String,
    judged: Judgements,
}

struct Options {
    embedders: Vec<String>,
    write: Option<PathBuf>,
    corpus: PathBuf,
    queries: PathBuf,
    /// Where to write one JSON line per query, mode and embedder (ranking and scores).
    per_query: Option<PathBuf>,
    /// Where to write the sweep's rankings (topK 50, with scores) of every query.
    dump: Option<PathBuf>,
    command: String,
}

fn parse_options() -> Result<Option<Options>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut o = Options {
        embedders: vec!["local".into(), "minilm".into()],
        write: None,
        corpus: root.join("benches/retrieval/corpus.jsonl"),
        queries: root.join("benches/retrieval/queries.jsonl"),
        per_query: None,
        dump: None,
        command: std::env::var("LORE_BENCH_COMMAND")
            .unwrap_or_else(|_| "cargo bench --profile perf --bench retrieval".to_owned()),
    };
    let mut bench_mode = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--bench" => bench_mode = true,
            "--embedders" => o.embedders = value()?.split(',').map(str::to_owned).collect(),
            "--write" => o.write = Some(PathBuf::from(value()?)),
            "--corpus" => o.corpus = PathBuf::from(value()?),
            "--queries" => o.queries = PathBuf::from(value()?),
            "--per-query" => o.per_query = Some(PathBuf::from(value()?)),
            "--dump" => o.dump = Some(PathBuf::from(value()?)),
            other => return Err(format!("unknown argument {other:?}").into()),
        }
    }
    // `cargo test --benches` runs this binary without `--bench`: nothing to do then (the metrics
    // have their own tests, target `retrieval_metrics`).
    Ok(bench_mode.then_some(o))
}

fn read_jsonl(path: &Path) -> Result<Vec<Value>> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).map_err(|e| format!("{}: {e}", path.display()).into()))
        .collect()
}

fn str_of<'a>(v: &'a Value, key: &str) -> Result<&'a str> {
    v[key].as_str().ok_or_else(|| format!("missing string {key:?} in {v}").into())
}

fn load(o: &Options) -> Result<(Vec<Passage>, Vec<Query>)> {
    let passages = read_jsonl(&o.corpus)?
        .iter()
        .map(|p| Ok(Passage { id: str_of(p, "id")?.to_owned(), text: str_of(p, "text")?.to_owned() }))
        .collect::<Result<Vec<_>>>()?;
    let ids: std::collections::HashSet<&str> = passages.iter().map(|p| p.id.as_str()).collect();
    let mut queries = Vec::new();
    for q in read_jsonl(&o.queries)? {
        let judged: Judgements = q["relevant"]
            .as_object()
            .ok_or("relevant must be an object")?
            .iter()
            .map(|(id, g)| (id.clone(), g.as_u64().unwrap_or(0) as u8))
            .collect();
        if let Some(missing) = judged.keys().find(|id| !ids.contains(id.as_str())) {
            return Err(format!("query {}: judged passage {missing} is not in the corpus", q["id"]).into());
        }
        queries.push(Query {
            id: str_of(&q, "id")?.to_owned(),
            kind: str_of(&q, "kind")?.to_owned(),
            text: str_of(&q, "query")?.to_owned(),
            judged,
        });
    }
    Ok((passages, queries))
}

/// A server of its own, and a client with a key of a workspace big enough for the corpus.
struct Bench {
    base: String,
    key: String,
    client: reqwest::Client,
    running: lore::serve::Running,
    _dir: tempfile::TempDir,
}

impl Bench {
    async fn start(embedder: Arc<dyn lore_embed::Embedder>) -> Result<Self> {
        let dir = tempfile::tempdir()?;
        let running = lore::serve::start(lore::serve::ServeConfig {
            addr: "127.0.0.1:0".parse()?,
            data_dir: dir.path().to_path_buf(),
            backend: lore::compose::Backend::Local,
            overrides: lore::compose::Overrides { embedder: Some(embedder), ..Default::default() },
        })
        .await
        .map_err(|e| e.to_string())?;
        let limits = lore_domain::workspace::LimitsPatch {
            sources_limit: Some(100_000),
            rate_limit_per_minute: Some(1_000_000),
            ..Default::default()
        };
        let name = lore_domain::workspace::WorkspaceName::parse("retrieval-bench").map_err(|e| format!("{e:?}"))?;
        running.app.create_workspace(name, limits).await.map_err(|e| format!("{e:?}"))?;
        let issued = running
            .app
            .create_key("retrieval-bench", lore_domain::scope::ScopeSet::all(), None)
            .await
            .map_err(|e| format!("{e:?}"))?;
        Ok(Self {
            base: format!("http://{}", running.addr),
            key: issued.secret.expose().to_owned(),
            client: reqwest::Client::new(),
            running,
            _dir: dir,
        })
    }

    /// Sends a request; the JSON body of a 2xx answer, else an error with the answer.
    async fn call(&self, method: reqwest::Method, path: &str, body: Option<&Value>) -> Result<Value> {
        let mut req = self.client.request(method, format!("{}{path}", self.base)).bearer_auth(&self.key);
        if let Some(b) = body {
            req = req.json(b);
        }
        let res = req.send().await?;
        let status = res.status();
        let json: Value = res.json().await?;
        if !status.is_success() {
            return Err(format!("{path}: {status} {json}").into());
        }
        Ok(json)
    }

    /// Creates the chatbot and one processed text source per passage; returns the chatbot id and
    /// how long indexing took.
    async fn index(&self, passages: &[Passage]) -> Result<(String, Duration)> {
        let bot =
            self.call(reqwest::Method::POST, "/api/v1/chatbots", Some(&json!({"name": "retrieval bench"}))).await?;
        let bot = str_of(&bot["chatbot"], "id")?.to_owned();
        let started = Instant::now();
        let this = Arc::new(self.handle());
        let mut tasks = tokio::task::JoinSet::new();
        for (i, p) in passages.iter().enumerate() {
            if tasks.len() >= UPLOAD_CONCURRENCY {
                tasks.join_next().await.ok_or("no task")???;
            }
            let (h, bot, name, content) = (this.clone(), bot.clone(), p.id.clone(), p.text.clone());
            tasks.spawn(async move {
                let body = json!({"type": "text", "name": name, "content": content});
                let created = h.call(reqwest::Method::POST, &format!("/api/v1/chatbots/{bot}/sources"), &body).await?;
                let id = str_of(&created["source"], "id")?.to_owned();
                let path = format!("/api/v1/chatbots/{bot}/sources/{id}/process");
                h.call(reqwest::Method::POST, &path, &json!({})).await.map_err(|e| format!("passage {i}: {e}"))?;
                Ok::<(), BoxError>(())
            });
        }
        while let Some(done) = tasks.join_next().await {
            done??;
        }
        loop {
            let stats =
                self.call(reqwest::Method::GET, &format!("/api/v1/chatbots/{bot}/knowledge/stats"), None).await?;
            let by_status = &stats["stats"]["sourcesByStatus"];
            let ready = by_status["ready"].as_u64().unwrap_or(0) as usize;
            let failed = by_status["error"].as_u64().unwrap_or(0);
            if failed > 0 {
                return Err(format!("{failed} sources failed to process: {stats}").into());
            }
            if ready == passages.len() {
                return Ok((bot, started.elapsed()));
            }
            if started.elapsed() > INDEX_TIMEOUT {
                return Err(format!("not indexed after {INDEX_TIMEOUT:?}: {stats}").into());
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    fn handle(&self) -> Handle {
        Handle { base: self.base.clone(), key: self.key.clone(), client: self.client.clone() }
    }

    /// One search: passage ids (deduplicated, best first), chunk ids, the round trip and `tookMs`.
    async fn search(&self, bot: &str, query: &str, mode: &str, top_k: usize) -> Result<Answer> {
        let body = json!({"query": query, "mode": mode, "topK": top_k});
        let started = Instant::now();
        let res =
            self.call(reqwest::Method::POST, &format!("/api/v1/chatbots/{bot}/knowledge/search"), Some(&body)).await?;
        let round_trip_ms = started.elapsed().as_secs_f64() * 1000.0;
        let results = res["results"].as_array().ok_or("no results")?;
        let names: Vec<String> =
            results.iter().map(|r| str_of(r, "sourceName").map(str::to_owned)).collect::<Result<_>>()?;
        let chunks: Vec<String> =
            results.iter().map(|r| str_of(r, "chunkId").map(str::to_owned)).collect::<Result<_>>()?;
        let by_chunk = chunks.iter().cloned().zip(names.iter().cloned()).collect();
        let scores = results.iter().map(|r| r["score"].as_f64().unwrap_or(0.0) as f32).collect();
        Ok(Answer {
            passages: metrics::dedup(&names),
            chunks,
            scores,
            by_chunk,
            round_trip_ms,
            took_ms: res["tookMs"].as_f64().ok_or("no tookMs")?,
        })
    }
}

/// What an upload task needs (the tasks outlive a borrow of `Bench`).
struct Handle {
    base: String,
    key: String,
    client: reqwest::Client,
}

impl Handle {
    async fn call(&self, method: reqwest::Method, path: &str, body: &Value) -> Result<Value> {
        let res = self
            .client
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.key)
            .json(body)
            .send()
            .await?;
        let status = res.status();
        let json: Value = res.json().await?;
        if !status.is_success() {
            return Err(format!("{path}: {status} {json}").into());
        }
        Ok(json)
    }
}

struct Answer {
    passages: Vec<String>,
    chunks: Vec<String>,
    /// The results' scores, as `chunks`.
    scores: Vec<f32>,
    by_chunk: BTreeMap<String, String>,
    round_trip_ms: f64,
    took_ms: f64,
}

#[derive(Default, Clone)]
struct Scores {
    ndcg: Vec<f64>,
    recall: Vec<f64>,
    rr: Vec<f64>,
}

impl Scores {
    fn add(&mut self, ranked: &[String], judged: &Judgements) {
        self.ndcg.push(metrics::ndcg_at(ranked, judged, TOP_K));
        self.recall.push(metrics::recall_at(ranked, judged, TOP_K));
        self.rr.push(metrics::reciprocal_rank(ranked, judged, TOP_K));
    }
}

struct ModeResult {
    mode: &'static str,
    all: Scores,
    by_kind: BTreeMap<String, Scores>,
    round_trip: Vec<f64>,
    took: Vec<f64>,
    /// One JSON line per query: its id, scores and the first passages returned.
    lines: Vec<Value>,
}

struct SweepRow {
    label: String,
    scores: Scores,
    /// Queries 1, 3, 5, … and 2, 4, 6, … (a setting picked on one half can be checked on the other).
    halves: [Scores; 2],
}

/// The single-mode rankings of one query at topK 50: chunk ids with their scores.
struct Lists {
    semantic: Vec<(String, f32)>,
    keyword: Vec<(String, f32)>,
    /// Keyword search for the query without stopwords (`content_words`).
    keyword_content: Vec<(String, f32)>,
    /// chunk id → passage id
    names: BTreeMap<String, String>,
}

/// A way of fusing the semantic and keyword rankings, computed client-side.
enum Fusion {
    /// `metrics::rrf` with semantic weight 1.
    Rrf { k: f32, depth: usize, keyword_weight: f32, content_words: bool },
    /// `metrics::score_fusion`: `semantic_weight` · semantic + (1 − it) · keyword, min-max normalised.
    Scores { semantic_weight: f32 },
}

impl Fusion {
    fn apply(&self, l: &Lists) -> Vec<String> {
        let ids = |v: &[(String, f32)]| v.iter().map(|(c, _)| c.clone()).collect::<Vec<_>>();
        match *self {
            Fusion::Rrf { k, depth, keyword_weight, content_words } => {
                let kw = ids(if content_words { &l.keyword_content } else { &l.keyword });
                metrics::rrf(&[(&ids(&l.semantic), 1.0), (&kw, keyword_weight)], k, depth)
            }
            Fusion::Scores { semantic_weight } => {
                metrics::score_fusion(&[(&l.semantic, semantic_weight), (&l.keyword, 1.0 - semantic_weight)])
            }
        }
    }
}

/// The settings the sweep tries. The first is the server's (`lib/app/src/search.rs`: k = 60, depth
/// 4 × topK, equal weights); the two marked "grid best" are the best of a wider grid (k 1–60,
/// depth 10–50, keyword weight 0.1–2) for each embedder on these same queries.
fn sweep_variants() -> Vec<(String, Fusion)> {
    let rrf = |k, depth, keyword_weight| Fusion::Rrf { k, depth, keyword_weight, content_words: false };
    vec![
        ("RRF k=60, depth 40, keyword weight 1 (server today)".into(), rrf(60.0, 40, 1.0)),
        ("RRF k=60, depth 10".into(), rrf(60.0, 10, 1.0)),
        ("RRF k=60, depth 20".into(), rrf(60.0, 20, 1.0)),
        ("RRF k=10, depth 40".into(), rrf(10.0, 40, 1.0)),
        ("RRF k=1, depth 40".into(), rrf(1.0, 40, 1.0)),
        ("RRF k=60, depth 40, keyword weight 0.5".into(), rrf(60.0, 40, 0.5)),
        ("RRF k=60, depth 40, keyword weight 2".into(), rrf(60.0, 40, 2.0)),
        (
            "RRF k=60, depth 40, keyword query without stopwords".into(),
            Fusion::Rrf { k: 60.0, depth: 40, keyword_weight: 1.0, content_words: true },
        ),
        ("RRF k=1, depth 40, keyword weight 0.25 (grid best for minilm)".into(), rrf(1.0, 40, 0.25)),
        ("RRF k=5, depth 10, keyword weight 2 (grid best for local)".into(), rrf(5.0, 10, 2.0)),
        ("scores 0.5 · semantic + 0.5 · keyword (min-max)".into(), Fusion::Scores { semantic_weight: 0.5 }),
        ("scores 0.8 · semantic + 0.2 · keyword (min-max)".into(), Fusion::Scores { semantic_weight: 0.8 }),
    ]
}

struct EmbedderResult {
    name: String,
    model: String,
    index_time: Duration,
    modes: Vec<ModeResult>,
    sweep: Vec<SweepRow>,
    /// Queries on which the client-side fusion with the server's settings gave the server's hybrid
    /// top 10 exactly.
    reproduced: usize,
    /// `--dump` lines.
    dump: Vec<Value>,
    /// The best RRF settings of the grid (label, nDCG@10), best first, and how many were tried.
    grid: Vec<(String, f64)>,
    grid_size: usize,
}

fn load_embedder(name: &str) -> Result<Option<Arc<dyn lore_embed::Embedder>>> {
    match name {
        "local" => Ok(Some(Arc::new(lore_embed::LocalEmbedder::new()))),
        "minilm" => {
            let dir = std::env::var_os("LORE_MODEL_DIR").map(PathBuf::from).unwrap_or_else(|| {
                lore_embed::minilm::default_model_dir(Path::new(&std::env::var_os("HOME").unwrap_or_default()))
            });
            if !lore_embed::minilm::missing_model_files(&dir).is_empty() {
                eprintln!(
                    "retrieval: minilm skipped: the model is not in {} (run bash scripts/fetch-model.sh)",
                    dir.display()
                );
                return Ok(None);
            }
            Ok(Some(Arc::new(lore_embed::MiniLmEmbedder::load(&dir)?)))
        }
        other => Err(format!("unknown embedder {other:?} (local, minilm)").into()),
    }
}

async fn run_embedder(name: &str, passages: &[Passage], queries: &[Query]) -> Result<Option<EmbedderResult>> {
    let Some(embedder) = load_embedder(name)? else { return Ok(None) };
    let model = embedder.model_id().to_owned();
    let bench = Bench::start(embedder).await?;
    eprintln!("retrieval: {name}: indexing {} passages through the API…", passages.len());
    let (bot, index_time) = bench.index(passages).await?;
    eprintln!(
        "retrieval: {name}: indexed in {:.1} s; {} queries × {} modes",
        index_time.as_secs_f64(),
        queries.len(),
        MODES.len()
    );

    // Warm-up (first query embedding, the vector cache of the chatbot): not measured.
    for mode in MODES {
        bench.search(&bot, "warm up the caches", mode, TOP_K).await?;
    }
    let mut modes = Vec::new();
    let mut hybrid_answers = Vec::new();
    for mode in MODES {
        let mut r = ModeResult {
            mode,
            all: Scores::default(),
            by_kind: BTreeMap::new(),
            round_trip: Vec::new(),
            took: Vec::new(),
            lines: Vec::new(),
        };
        for q in queries {
            let a = bench.search(&bot, &q.text, mode, TOP_K).await?;
            r.all.add(&a.passages, &q.judged);
            r.by_kind.entry(q.kind.clone()).or_default().add(&a.passages, &q.judged);
            r.round_trip.push(a.round_trip_ms);
            r.took.push(a.took_ms);
            r.lines.push(json!({
                "embedder": name, "mode": mode, "query": q.id, "kind": q.kind,
                "ndcg": metrics::ndcg_at(&a.passages, &q.judged, TOP_K),
                "recall": metrics::recall_at(&a.passages, &q.judged, TOP_K),
                "top": a.passages.iter().take(5).collect::<Vec<_>>(),
            }));
            if mode == "hybrid" {
                hybrid_answers.push(a.chunks);
            }
        }
        modes.push(r);
    }

    // Fusion sweep over the same queries: the single-mode rankings at topK 50, fused here.
    let mut rankings = Vec::new();
    let mut dump = Vec::new();
    for (qi, q) in queries.iter().enumerate() {
        let sem = bench.search(&bot, &q.text, "semantic", SWEEP_K).await?;
        let kw = bench.search(&bot, &q.text, "keyword", SWEEP_K).await?;
        let kwc = bench.search(&bot, &content_words(&q.text), "keyword", SWEEP_K).await?;
        let mut names = sem.by_chunk.clone();
        names.extend(kw.by_chunk.clone());
        names.extend(kwc.by_chunk.clone());
        let pairs = |a: &Answer| -> Vec<(String, f32)> {
            a.chunks.iter().map(|c| names[c].clone()).zip(a.scores.iter().copied()).collect()
        };
        dump.push(json!({
            "embedder": name, "query": q.id, "kind": q.kind, "relevant": q.judged,
            "semantic": pairs(&sem), "keyword": pairs(&kw), "keywordContent": pairs(&kwc),
            "hybrid": hybrid_answers[qi].iter().map(|c| names.get(c).cloned().unwrap_or_default()).collect::<Vec<_>>(),
        }));
        rankings.push(Lists {
            semantic: sem.chunks.into_iter().zip(sem.scores).collect(),
            keyword: kw.chunks.into_iter().zip(kw.scores).collect(),
            keyword_content: kwc.chunks.into_iter().zip(kwc.scores).collect(),
            names,
        });
    }
    let mut sweep = Vec::new();
    let mut reproduced = 0;
    for (i, (label, fusion)) in sweep_variants().into_iter().enumerate() {
        let mut row = SweepRow { label, scores: Scores::default(), halves: [Scores::default(), Scores::default()] };
        for (qi, (q, lists)) in queries.iter().zip(&rankings).enumerate() {
            let fused = fusion.apply(lists);
            if i == 0 && fused.iter().take(TOP_K).eq(hybrid_answers[qi].iter()) {
                reproduced += 1;
            }
            let ranked = metrics::dedup(&fused.iter().filter_map(|c| lists.names.get(c).cloned()).collect::<Vec<_>>());
            row.scores.add(&ranked, &q.judged);
            row.halves[qi % 2].add(&ranked, &q.judged);
        }
        sweep.push(row);
    }
    // The grid the "grid best" rows of the sweep come from: the best RRF settings on these queries.
    let mut grid = Vec::new();
    for k in [1.0, 5.0, 10.0, 20.0, 30.0, 60.0] {
        for depth in [10, 20, 40, 50] {
            for keyword_weight in [0.1, 0.2, 0.25, 0.33, 0.5, 0.75, 1.0, 1.5, 2.0] {
                let fusion = Fusion::Rrf { k, depth, keyword_weight, content_words: false };
                let mut scores = Scores::default();
                for (q, lists) in queries.iter().zip(&rankings) {
                    let fused = fusion.apply(lists);
                    scores.add(
                        &metrics::dedup(&fused.iter().filter_map(|c| lists.names.get(c).cloned()).collect::<Vec<_>>()),
                        &q.judged,
                    );
                }
                grid.push((
                    format!("k={k}, depth {depth}, keyword weight {keyword_weight}"),
                    metrics::mean(&scores.ndcg),
                ));
            }
        }
    }
    grid.sort_by(|a, b| b.1.total_cmp(&a.1));
    let grid_size = grid.len();
    grid.truncate(3);
    bench.running.stop().await?;
    Ok(Some(EmbedderResult {
        name: name.to_owned(),
        model,
        index_time,
        modes,
        sweep,
        reproduced,
        dump,
        grid,
        grid_size,
    }))
}

/// The query without stopwords and single letters (the `LocalEmbedder`'s list), for the keyword
/// index: what a keyword search would see if the server dropped them. The query itself when
/// nothing else is left.
fn content_words(query: &str) -> String {
    let words: Vec<String> = query
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.chars().count() > 1 && !lore_embed::local::STOPWORDS.contains(&w.as_str()))
        .collect();
    if words.is_empty() { query.to_owned() } else { words.join(" ") }
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned())
}

/// Today (UTC) as YYYY-MM-DD, from the system clock (civil-from-days, H. Hinnant).
fn today() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

fn git_revision() -> Option<String> {
    let out = std::process::Command::new("git").args(["rev-parse", "--short", "HEAD"]).output().ok()?;
    let rev = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    let dirty = std::process::Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .output()
        .ok()
        .is_some_and(|o| !o.stdout.is_empty());
    (!rev.is_empty()).then(|| if dirty { format!("{rev} + uncommitted changes") } else { rev })
}

fn report(
    o: &Options,
    passages: &[Passage],
    queries: &[Query],
    results: &[EmbedderResult],
    skipped: &[String],
) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let kinds: BTreeMap<&str, usize> = queries.iter().fold(BTreeMap::new(), |mut m, q| {
        *m.entry(q.kind.as_str()).or_default() += 1;
        m
    });
    let kinds_text: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let _ = writeln!(
        s,
        "Measured {} on {} ({cpus} CPUs), Rust profile `perf`{}.",
        today(),
        cpu_model(),
        git_revision().map(|r| format!(", revision {r}")).unwrap_or_default()
    );
    let _ = writeln!(
        s,
        "Corpus {} passages, {} queries ({}), top {TOP_K}. Reproduce with:\n",
        passages.len(),
        queries.len(),
        kinds_text.join(", ")
    );
    let _ = writeln!(s, "```sh\n{}\n```\n", o.command);
    let _ = writeln!(
        s,
        "| embedder | mode | nDCG@10 | recall@10 | MRR@10 | HTTP p50 ms | HTTP p95 ms | tookMs p50 | tookMs p95 |"
    );
    let _ = writeln!(s, "|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for r in results {
        let best_single =
            r.modes.iter().filter(|m| m.mode != "hybrid").map(|m| metrics::mean(&m.all.ndcg)).fold(f64::MIN, f64::max);
        for m in &r.modes {
            let ndcg = metrics::mean(&m.all.ndcg);
            let bold = m.mode == "hybrid" && ndcg > best_single;
            let cell = if bold { format!("**{ndcg:.3}**") } else { format!("{ndcg:.3}") };
            let _ = writeln!(
                s,
                "| {} | {} | {cell} | {:.3} | {:.3} | {:.1} | {:.1} | {:.1} | {:.1} |",
                r.name,
                m.mode,
                metrics::mean(&m.all.recall),
                metrics::mean(&m.all.rr),
                metrics::percentile(&m.round_trip, 50.0),
                metrics::percentile(&m.round_trip, 95.0),
                metrics::percentile(&m.took, 50.0),
                metrics::percentile(&m.took, 95.0),
            );
        }
    }
    for name in skipped {
        let _ =
            writeln!(s, "| {name} | — | skipped: model files missing (`bash scripts/fetch-model.sh`) | | | | | | |");
    }
    let _ = writeln!(s, "\nHybrid against the better single mode (nDCG@10):\n");
    for r in results {
        let get = |mode: &str| r.modes.iter().find(|m| m.mode == mode).map_or(0.0, |m| metrics::mean(&m.all.ndcg));
        let (h, k, se) = (get("hybrid"), get("keyword"), get("semantic"));
        let verdict = if h > k && h > se { "beats both" } else { "does **not** beat both" };
        let _ = writeln!(
            s,
            "- `{}` (`{}`): hybrid {h:.3} vs keyword {k:.3} and semantic {se:.3}: {verdict} ({:+.3} over the better one).",
            r.name,
            r.model,
            h - k.max(se)
        );
    }
    let _ = writeln!(s, "\nnDCG@10 by kind of query:\n");
    let kind_names: Vec<&str> = kinds.keys().copied().collect();
    let _ = writeln!(
        s,
        "| embedder | mode | {} |",
        kind_names.iter().map(|k| format!("{k} ({})", kinds[k])).collect::<Vec<_>>().join(" | ")
    );
    let _ = writeln!(s, "|---|---|{}", "---:|".repeat(kind_names.len()));
    for r in results {
        for m in &r.modes {
            let cells: Vec<String> = kind_names
                .iter()
                .map(|k| format!("{:.3}", m.by_kind.get(*k).map_or(0.0, |x| metrics::mean(&x.ndcg))))
                .collect();
            let _ = writeln!(s, "| {} | {} | {} |", r.name, m.mode, cells.join(" | "));
        }
    }
    let _ = writeln!(s, "\nIndexing through the API (create + process every passage, until all are ready):\n");
    for r in results {
        let secs = r.index_time.as_secs_f64();
        let _ = writeln!(
            s,
            "- `{}`: {} passages in {secs:.1} s ({:.0} passages/s)",
            r.name,
            passages.len(),
            passages.len() as f64 / secs
        );
    }
    let _ = writeln!(
        s,
        "\nFusion sweep: the semantic and keyword rankings fetched at topK {SWEEP_K} and fused client-side \
         (`benches/retrieval/metrics.rs`). nDCG@10 on all queries, then on the odd / even halves, and recall@10. \
         Same queries as above, so any setting picked from this table is judged optimistically.\n"
    );
    let _ = writeln!(
        s,
        "| fusion | {} |",
        results
            .iter()
            .map(|r| format!("{0} nDCG@10 | {0} odd / even | {0} recall@10", r.name))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let _ = writeln!(s, "|---|{}", "---:|---:|---:|".repeat(results.len()));
    if let Some(first) = results.first() {
        for (i, row) in first.sweep.iter().enumerate() {
            let cells: Vec<String> = results
                .iter()
                .map(|r| {
                    let w = &r.sweep[i];
                    format!(
                        "{:.3} | {:.3} / {:.3} | {:.3}",
                        metrics::mean(&w.scores.ndcg),
                        metrics::mean(&w.halves[0].ndcg),
                        metrics::mean(&w.halves[1].ndcg),
                        metrics::mean(&w.scores.recall)
                    )
                })
                .collect();
            let _ = writeln!(s, "| {} | {} |", row.label, cells.join(" | "));
        }
    }
    let _ = writeln!(s, "\nThe single modes on the same halves, for comparison:\n");
    for r in results {
        let halves: Vec<String> = r
            .modes
            .iter()
            .map(|m| {
                let half = |h: usize| metrics::mean(&m.all.ndcg.iter().skip(h).step_by(2).copied().collect::<Vec<_>>());
                format!("{} {:.3} / {:.3}", m.mode, half(0), half(1))
            })
            .collect();
        let _ = writeln!(s, "- `{}`: {}", r.name, halves.join(", "));
    }
    for r in results {
        let best: Vec<String> = r.grid.iter().map(|(label, ndcg)| format!("{label}: {ndcg:.3}")).collect();
        let _ = writeln!(
            s,
            "\nBest of a grid of {} RRF settings (k 1–60, depth 10–50, keyword weight 0.1–2) for `{}`: {}.",
            r.grid_size,
            r.name,
            best.join("; ")
        );
    }
    let checks: Vec<String> =
        results.iter().map(|r| format!("`{}` {}/{}", r.name, r.reproduced, queries.len())).collect();
    let _ = writeln!(
        s,
        "\nCheck: the sweep's first row gives exactly the server's hybrid top 10 on {} queries.",
        checks.join(", ")
    );
    s
}

/// Replaces the text between the markers in `path` (appends a section when they are missing).
fn write_into(path: &Path, section: &str) -> Result<()> {
    let old = std::fs::read_to_string(path).unwrap_or_default();
    let block = format!("{BEGIN}\n{section}{END}");
    let new = match (old.find(BEGIN), old.find(END)) {
        (Some(b), Some(e)) if b < e => format!("{}{block}{}", &old[..b], &old[e + END.len()..]),
        _ => {
            let head = if old.is_empty() { "# Benchmarks\n".to_owned() } else { old.trim_end().to_owned() + "\n" };
            format!("{head}\n## Retrieval quality\n\n{block}\n")
        }
    };
    std::fs::write(path, new)?;
    Ok(())
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> Result<()> {
    let Some(o) = parse_options()? else {
        eprintln!(
            "retrieval: run it with `cargo bench --profile perf --bench retrieval` (or bash scripts/bench-retrieval.sh)"
        );
        return Ok(());
    };
    let started = Instant::now();
    let (passages, queries) = load(&o)?;
    eprintln!("retrieval: {} passages, {} queries", passages.len(), queries.len());
    let mut results = Vec::new();
    let mut skipped = Vec::new();
    for name in &o.embedders {
        match run_embedder(name, &passages, &queries).await? {
            Some(r) => results.push(r),
            None => skipped.push(name.clone()),
        }
    }
    let section = report(&o, &passages, &queries, &results, &skipped);
    println!("{section}");
    if let Some(path) = &o.per_query {
        let lines: Vec<String> =
            results.iter().flat_map(|r| &r.modes).flat_map(|m| &m.lines).map(Value::to_string).collect();
        std::fs::write(path, lines.join("\n") + "\n")?;
    }
    if let Some(path) = &o.dump {
        let lines: Vec<String> = results.iter().flat_map(|r| &r.dump).map(Value::to_string).collect();
        std::fs::write(path, lines.join("\n") + "\n")?;
    }
    if let Some(path) = &o.write {
        write_into(path, &section)?;
        eprintln!("retrieval: results written into {}", path.display());
    }
    eprintln!("retrieval: done in {:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}
