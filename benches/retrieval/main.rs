//! Retrieval-quality benchmark, end to end through the HTTP API.
//!
//! ```sh
//! bash scripts/bench-retrieval.sh      # fetches the model, builds, runs, rewrites docs/benchmarks.md
//! cargo bench --profile perf --bench retrieval -- [--embedders local,minilm] [--write FILE]
//!     [--per-query FILE] [--dump FILE] [--from-dump FILE] [--corpus FILE] [--queries FILE]
//! ```
//!
//! For each embedder (`local`: the lexical hashing `LocalEmbedder`; `minilm`: all-MiniLM-L6-v2,
//! skipped when its files are missing; `e5`: multilingual-e5-small, likewise, with its variants
//! `e5-sym` and `e5-w254`) it starts the real server in process (`lore::serve::start`
//! on 127.0.0.1:0, fresh data dir), creates a chatbot, creates one text source per passage of
//! `benches/retrieval/corpus.jsonl` (name = passage id) and processes it, waits until every
//! source is ready, then sends every query of `benches/retrieval/queries.jsonl` in each mode
//! (`keyword`, `semantic`, `hybrid`, topK 10, one request at a time) and scores the answers
//! (nDCG@10, recall@10, MRR@10, see `metrics.rs`) and their latency (HTTP round trip and the
//! response's `tookMs`).
//!
//! A fusion analysis follows (`fusion.rs`): the semantic and keyword rankings are fetched again at
//! topK 50 (and the keyword one also for the query without stopwords) and fused client-side under
//! other settings; settings are chosen on the odd-numbered queries and checked on the even-numbered
//! ones. Its "hybrid as served" row must reproduce the server's hybrid answers.
//!
//! `--write` replaces the marked block of the given Markdown file with the report; `--per-query`
//! writes one JSON line per embedder, mode and query (scores, first passages); `--dump` the
//! rankings of the fusion analysis with their scores; `--from-dump FILE` reruns only the fusion
//! analysis on such a file (no server, no indexing: seconds instead of minutes) and prints it.
//!
//! The workspace the passages go into is made with the same use cases `lore workspaces create` and
//! `lore keys create` run (in process, on the server's `App`), with a sources limit above the
//! corpus size and a rate limit the benchmark cannot reach; everything else goes over HTTP.

mod fusion;
mod metrics;

#[path = "../common/machine.rs"]
mod machine;
use machine::{cpu_model, today};
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
/// The markers of the report's block in the Markdown file; `--section NAME` adds `-NAME`.
fn markers(section: Option<&str>) -> (String, String) {
    let tag = section.map(|s| format!("retrieval-results-{s}")).unwrap_or_else(|| "retrieval-results".into());
    (format!("<!-- {tag}:begin (written by benches/retrieval/main.rs) -->"), format!("<!-- {tag}:end -->"))
}

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
    /// Where to write the fusion analysis's rankings (topK 50, with scores) of every query.
    dump: Option<PathBuf>,
    /// Only rerun the fusion analysis on the rankings of this `--dump` file.
    from_dump: Option<PathBuf>,
    /// The BM25 anchor of the corpus (`scripts/bm25-anchor.py` output), reported beside our modes.
    anchor: Option<PathBuf>,
    /// Which block of the `--write` file the report goes into (none: the first corpus's).
    section: Option<String>,
    /// Also run every embedder on the AWS composition (`lore serve --backend aws`, on the moto
    /// server and PostgreSQL the environment names) and fail unless each mode's nDCG@10 is
    /// within [`PARITY`] of the embedded backend's.
    aws_parity: bool,
    command: String,
}

/// How far the AWS composition's nDCG@10 may be from the embedded backend's, per mode.
const PARITY: f64 = 0.01;

fn parse_options() -> Result<Option<Options>> {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let mut o = Options {
        embedders: vec!["local".into(), "minilm".into()],
        write: None,
        corpus: root.join("benches/retrieval/corpus.jsonl"),
        queries: root.join("benches/retrieval/queries.jsonl"),
        per_query: None,
        dump: None,
        from_dump: None,
        anchor: None,
        section: None,
        aws_parity: false,
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
            "--from-dump" => o.from_dump = Some(PathBuf::from(value()?)),
            "--anchor" => o.anchor = Some(PathBuf::from(value()?)),
            "--section" => o.section = Some(value()?),
            "--aws-parity" => o.aws_parity = true,
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
    async fn start(embedder: Arc<dyn lore_embed::Embedder>, backend: lore::compose::Backend) -> Result<Self> {
        let dir = tempfile::tempdir()?;
        let running = lore::serve::start(lore::serve::ServeConfig {
            addr: "127.0.0.1:0".parse()?,
            data_dir: dir.path().to_path_buf(),
            backend,
            overrides: lore::compose::Overrides { embedder: Some(embedder), ..Default::default() },
        })
        .await
        .map_err(|e| e.to_string())?;
        let limits = lore_domain::workspace::LimitsPatch {
            sources_limit: Some(100_000),
            rate_limit_per_minute: Some(1_000_000),
            ..Default::default()
        };
        // Unique: names are, and the AWS backend's table outlives a run.
        let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let workspace = format!("retrieval-bench-{stamp}");
        let name = lore_domain::workspace::WorkspaceName::parse(&workspace).map_err(|e| format!("{e:?}"))?;
        running.app.create_workspace(name, limits).await.map_err(|e| format!("{e:?}"))?;
        let issued = running
            .app
            .create_key(&workspace, lore_domain::scope::ScopeSet::all(), None)
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
        let contents = results.iter().map(|r| str_of(r, "content").map(str::to_owned)).collect::<Result<_>>()?;
        Ok(Answer {
            passages: metrics::dedup(&names),
            chunks,
            contents,
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
    /// The results' texts, as `chunks`.
    contents: Vec<String>,
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

struct EmbedderResult {
    name: String,
    model: String,
    index_time: Duration,
    modes: Vec<ModeResult>,
    /// The rankings of the fusion analysis.
    run: fusion::Run,
    /// `--dump` lines.
    dump: Vec<Value>,
}

/// all-MiniLM-L6-v2 without its token window: chunks of 3,200 characters (4 per token, as for
/// embedders without a tokenizer), of which the model reads the first 256 word pieces. For
/// comparison with the served chunking (`--embedders minilm-chars`).
struct CharChunked(lore_embed::MiniLmEmbedder);

#[async_trait::async_trait]
impl lore_embed::Embedder for CharChunked {
    fn model_id(&self) -> &str {
        self.0.model_id()
    }
    fn dimensions(&self) -> usize {
        self.0.dimensions()
    }
    async fn embed(&self, texts: &[String]) -> std::result::Result<Vec<Vec<f32>>, lore_app::ports::EmbedError> {
        self.0.embed(texts).await
    }
    // Late interaction as served: the comparison is of the chunking alone.
    fn has_token_states(&self) -> bool {
        self.0.has_token_states()
    }
    async fn embed_with_token_states(
        &self,
        texts: &[String],
    ) -> std::result::Result<Vec<lore_app::ports::Embedding>, lore_app::ports::EmbedError> {
        self.0.embed_with_token_states(texts).await
    }
}

/// multilingual-e5-small as an experiment varies it (`--embedders e5-sym,e5-w254`): questions
/// embedded as passages (`passage: ` on both sides, as the model card says for symmetric tasks),
/// or chunks cut to a smaller window of its tokens (254: the size MiniLM reads).
struct E5Variant {
    model: lore_embed::E5Embedder,
    symmetric: bool,
    window: Option<usize>,
}

#[async_trait::async_trait]
impl lore_embed::Embedder for E5Variant {
    fn model_id(&self) -> &str {
        self.model.model_id()
    }
    fn dimensions(&self) -> usize {
        self.model.dimensions()
    }
    fn token_window(&self) -> Option<lore_app::ports::TokenWindow> {
        let served = self.model.token_window()?;
        Some(lore_app::ports::TokenWindow { max_tokens: self.window.unwrap_or(served.max_tokens), ..served })
    }
    async fn embed(&self, texts: &[String]) -> std::result::Result<Vec<Vec<f32>>, lore_app::ports::EmbedError> {
        self.model.embed(texts).await
    }
    async fn embed_queries(&self, texts: &[String]) -> std::result::Result<Vec<Vec<f32>>, lore_app::ports::EmbedError> {
        let model = &self.model;
        if self.symmetric { model.embed(texts).await } else { lore_embed::Embedder::embed_queries(model, texts).await }
    }
}

fn load_e5() -> Result<Option<lore_embed::E5Embedder>> {
    let dir = lore_embed::e5::e5_dir_from_lookup(|name| std::env::var(name).ok()).ok_or("set LORE_E5_DIR or HOME")?;
    match lore_embed::E5Embedder::load(&dir) {
        Ok(model) => Ok(Some(model)),
        Err(lore_embed::E5Error::Missing { .. }) => {
            eprintln!(
                "retrieval: e5 skipped: the model is not in {} (run bash scripts/fetch-model.sh e5)",
                dir.display()
            );
            Ok(None)
        }
        Err(e) => Err(e.to_string().into()),
    }
}

fn load_embedder(name: &str) -> Result<Option<Arc<dyn lore_embed::Embedder>>> {
    match name {
        "e5" => Ok(load_e5()?.map(|m| Arc::new(m) as Arc<dyn lore_embed::Embedder>)),
        "e5-sym" | "e5-w254" => Ok(load_e5()?.map(|model| {
            let variant = E5Variant { model, symmetric: name == "e5-sym", window: (name == "e5-w254").then_some(254) };
            Arc::new(variant) as Arc<dyn lore_embed::Embedder>
        })),
        "local" => Ok(Some(Arc::new(lore_embed::LocalEmbedder::new()))),
        "minilm-chars" => Ok(load_embedder("minilm")?.map(|_| {
            let dir = minilm_dir();
            Arc::new(CharChunked(lore_embed::MiniLmEmbedder::load(&dir).expect("loaded just before")))
                as Arc<dyn lore_embed::Embedder>
        })),
        "minilm" => {
            let dir = minilm_dir();
            if !lore_embed::minilm::missing_model_files(&dir).is_empty() {
                eprintln!(
                    "retrieval: minilm skipped: the model is not in {} (run bash scripts/fetch-model.sh)",
                    dir.display()
                );
                return Ok(None);
            }
            Ok(Some(Arc::new(lore_embed::MiniLmEmbedder::load(&dir)?)))
        }
        other => Err(format!("unknown embedder {other:?} (local, minilm, minilm-chars, e5, e5-sym, e5-w254)").into()),
    }
}

fn minilm_dir() -> PathBuf {
    std::env::var_os("LORE_MODEL_DIR").map(PathBuf::from).unwrap_or_else(|| {
        lore_embed::minilm::default_model_dir(Path::new(&std::env::var_os("HOME").unwrap_or_default()))
    })
}

async fn run_embedder(
    name: &str,
    passages: &[Passage],
    queries: &[Query],
    backend: lore::compose::Backend,
) -> Result<Option<EmbedderResult>> {
    let Some(embedder) = load_embedder(name)? else { return Ok(None) };
    let model = embedder.model_id().to_owned();
    let embedder_lexical = embedder.lexical_only();
    let mut rescorer = embedder.has_token_states().then(|| Rescorer::new(embedder.clone()));
    let bench = Bench::start(embedder, backend).await?;
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
    let mut hybrid_names = Vec::new();
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
                hybrid_names.push(a.by_chunk);
            }
        }
        modes.push(r);
    }

    // Fusion analysis over the same queries: the single-mode rankings at topK 50, fused in `fusion.rs`.
    let lexical_only = embedder_lexical;
    let mut lists = Vec::new();
    let mut dump = Vec::new();
    for ((q, hybrid), hybrid_by_chunk) in queries.iter().zip(hybrid_answers).zip(hybrid_names) {
        let sem = bench.search(&bot, &q.text, "semantic", SWEEP_K).await?;
        let kw = bench.search(&bot, &q.text, "keyword", SWEEP_K).await?;
        // Hybrid's semantic ranking: the server rescores the cosine top max(4 × topK, 50) — the
        // 50 fetched here — by late interaction; recomputed here from the model's own output.
        let sem_pairs: Vec<(String, f32)> = sem.chunks.iter().cloned().zip(sem.scores.iter().copied()).collect();
        let hybrid_semantic = match rescorer.as_mut() {
            Some(r) => r.rescore(&q.text, &sem).await?,
            None => sem_pairs.clone(),
        };
        let mut names = sem.by_chunk.clone();
        names.extend(kw.by_chunk.clone());
        names.extend(hybrid_by_chunk);
        let pairs = |a: &Answer| -> Vec<(String, f32)> {
            a.chunks.iter().map(|c| names[c].clone()).zip(a.scores.iter().copied()).collect()
        };
        let named =
            |v: &[(String, f32)]| -> Vec<(String, f32)> { v.iter().map(|(c, s)| (names[c].clone(), *s)).collect() };
        let mut line = json!({
            "embedder": name, "lexicalOnly": lexical_only, "query": q.id, "kind": q.kind, "relevant": q.judged,
            "semantic": pairs(&sem), "keyword": pairs(&kw),
            "hybrid": hybrid.iter().map(|c| names.get(c).cloned().unwrap_or_default()).collect::<Vec<_>>(),
        });
        if rescorer.is_some() {
            line["hybridSemantic"] = json!(named(&hybrid_semantic));
        }
        dump.push(line);
        lists.push(fusion::Lists {
            semantic: sem_pairs,
            hybrid_semantic,
            keyword: kw.chunks.into_iter().zip(kw.scores).collect(),
            hybrid,
            names,
        });
    }
    bench.running.stop().await?;
    Ok(Some(EmbedderResult {
        name: name.to_owned(),
        model,
        index_time,
        modes,
        run: fusion::Run {
            name: name.to_owned(),
            lexical_only,
            late_interaction: rescorer.is_some(),
            lists,
            from_dump: false,
        },
        dump,
    }))
}

/// Recomputes the late-interaction rescoring hybrid search applies to its semantic candidates
/// (`lore_app::search::rescore_late_interaction`), from the same model: each chunk's token signs
/// (embedded once per chunk), the question's token states.
struct Rescorer {
    embedder: Arc<dyn lore_embed::Embedder>,
    signs: BTreeMap<String, lore_domain::late_interaction::TokenSigns>,
}

impl Rescorer {
    fn new(embedder: Arc<dyn lore_embed::Embedder>) -> Self {
        Self { embedder, signs: BTreeMap::new() }
    }

    /// The semantic answer `sem` (cosines) rescored, best first.
    async fn rescore(&mut self, question: &str, sem: &Answer) -> Result<Vec<(String, f32)>> {
        let missing: Vec<(String, String)> = sem
            .chunks
            .iter()
            .zip(&sem.contents)
            .filter(|(c, _)| !self.signs.contains_key(*c))
            .map(|(c, t)| (c.clone(), t.clone()))
            .collect();
        let mut texts: Vec<String> = missing.iter().map(|(_, t)| t.clone()).collect();
        texts.push(question.to_owned());
        let mut embedded = self.embedder.embed_with_token_states(&texts).await.map_err(|e| e.to_string())?;
        let states = embedded.pop().and_then(|e| e.token_states).ok_or("no token states for the question")?;
        for ((chunk, _), e) in missing.into_iter().zip(embedded) {
            self.signs.insert(chunk, e.token_states.ok_or("no token states for a chunk")?.signs());
        }
        let mut hits: Vec<lore_app::ports::ChunkHit> = sem
            .chunks
            .iter()
            .zip(&sem.scores)
            .map(|(c, score)| lore_app::ports::ChunkHit {
                language: None,
                chunk_id: c.clone(),
                source_id: lore_domain::id::SourceId::generate(),
                content: String::new(),
                position: 0,
                url: None,
                score: *score,
                token_signs: self.signs.get(c).cloned(),
            })
            .collect();
        lore_app::search::rescore_late_interaction(&mut hits, &states);
        Ok(hits.into_iter().map(|h| (h.chunk_id, h.score)).collect())
    }
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
    let anchor = o.anchor.as_ref().map(|path| -> Result<Value> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(serde_json::from_str(&text)?)
    });
    let anchor = anchor.transpose().unwrap_or_else(|e| {
        eprintln!("retrieval: BM25 anchor not read: {e}");
        None
    });
    let anchor_ndcg = anchor.as_ref().and_then(|a| a["ndcg10"].as_f64());
    if let Some(a) = &anchor {
        let _ = writeln!(
            s,
            "| BM25 anchor (rank_bm25 {}, k1 1.5, b 0.75) | — | {:.3} | {:.3} | {:.3} | | | | |",
            a["version"]["rank_bm25"].as_str().unwrap_or("?"),
            a["ndcg10"].as_f64().unwrap_or(0.0),
            a["recall10"].as_f64().unwrap_or(0.0),
            a["mrr10"].as_f64().unwrap_or(0.0)
        );
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
        let target = |ok: bool| if ok { "met" } else { "**not met**" };
        let over_anchor = anchor_ndcg
            .map(|a| {
                let ratio = if a > 0.0 { h / a } else { f64::INFINITY };
                format!("; against the BM25 anchor {a:.3}: {ratio:.2}× (target ≥ 1.17×: {})", target(h >= 1.17 * a))
            })
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "- `{}` (`{}`): hybrid {h:.3} vs keyword {k:.3} and semantic {se:.3}: {verdict} ({:+.3} over the better one; target +0.02: {}){over_anchor}.",
            r.name,
            r.model,
            h - k.max(se),
            target(h >= k.max(se) + 0.02)
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
    let runs: Vec<&fusion::Run> = results.iter().map(|r| &r.run).collect();
    s.push_str(&fusion::report(&runs, queries));
    s
}

/// Replaces the text between the markers in `path` (appends a section when they are missing).
fn write_into(path: &Path, section: &str, name: Option<&str>) -> Result<()> {
    let (begin, end) = markers(name);
    let old = std::fs::read_to_string(path).unwrap_or_default();
    let block = format!("{begin}\n{section}{end}");
    let new = match (old.find(&begin), old.find(&end)) {
        (Some(b), Some(e)) if b < e => format!("{}{block}{}", &old[..b], &old[e + end.len()..]),
        _ => {
            let head = if old.is_empty() { "# Benchmarks\n".to_owned() } else { old.trim_end().to_owned() + "\n" };
            format!("{head}\n## Retrieval quality\n\n{block}\n")
        }
    };
    std::fs::write(path, new)?;
    Ok(())
}

/// One mode's nDCG@10 on the two backends.
struct Parity {
    embedder: String,
    mode: &'static str,
    embedded: f64,
    aws: f64,
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() { 0.0 } else { v.iter().sum::<f64>() / v.len() as f64 }
}

fn parity_rows(embedded: &EmbedderResult, aws: &EmbedderResult) -> Vec<Parity> {
    embedded
        .modes
        .iter()
        .zip(&aws.modes)
        .map(|(e, a)| Parity {
            embedder: embedded.name.clone(),
            mode: e.mode,
            embedded: mean(&e.all.ndcg),
            aws: mean(&a.all.ndcg),
        })
        .collect()
}

fn parity_table(rows: &[Parity]) -> String {
    use std::fmt::Write;
    let mut s = String::from(
        "AWS composition (`lore serve --backend aws`: DynamoDB, S3, SQS and EventBridge on moto, chunks in \
         PostgreSQL + pgvector) against the embedded backend, same corpus, queries and embedder:\n\n\
         | embedder | mode | nDCG@10 embedded | nDCG@10 AWS | difference | within 0.01 |\n|---|---|---:|---:|---:|---|\n",
    );
    for p in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {:.4} | {:.4} | {:+.4} | {} |",
            p.embedder,
            p.mode,
            p.embedded,
            p.aws,
            p.aws - p.embedded,
            if (p.aws - p.embedded).abs() <= PARITY { "yes" } else { "**no**" }
        );
    }
    s
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
    if let Some(path) = &o.from_dump {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let runs = fusion::Run::from_dump(&text, &queries)?;
        println!("{}", fusion::report(&runs.iter().collect::<Vec<_>>(), &queries));
        return Ok(());
    }
    let mut results = Vec::new();
    let mut skipped = Vec::new();
    let mut parity = Vec::new();
    for name in &o.embedders {
        match run_embedder(name, &passages, &queries, lore::compose::Backend::Local).await? {
            Some(r) => {
                if o.aws_parity {
                    eprintln!("retrieval: {name}: again on the AWS composition (moto + PostgreSQL)…");
                    let aws = run_embedder(name, &passages, &queries, lore::compose::Backend::Aws)
                        .await?
                        .ok_or("the embedder vanished between the two runs")?;
                    parity.extend(parity_rows(&r, &aws));
                }
                results.push(r)
            }
            None => skipped.push(name.clone()),
        }
    }
    let section = report(&o, &passages, &queries, &results, &skipped);
    println!("{section}");
    if o.aws_parity {
        println!("{}", parity_table(&parity));
        if let Some(far) = parity.iter().find(|p| (p.aws - p.embedded).abs() > PARITY) {
            return Err(format!(
                "AWS parity: {} {} nDCG@10 {:.4} on AWS, {:.4} embedded (more than {PARITY} apart)",
                far.embedder, far.mode, far.aws, far.embedded
            )
            .into());
        }
    }
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
        write_into(path, &section, o.section.as_deref())?;
        eprintln!("retrieval: results written into {}", path.display());
    }
    eprintln!("retrieval: done in {:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}
