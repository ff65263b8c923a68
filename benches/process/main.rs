//! Process-level performance budgets of the performance budgets (docs/benchmarks.md), each against its peer in the same run:
//!
//! 1. Lambda cold start (spawn → first response against a local Runtime API emulator): the
//!    `api-chatbots` binary vs a hello-world `lambda_http` + axum binary, minus the harness floor
//!    (a bare `lambda_runtime` echo loop).
//! 2. API request overhead: `lore serve`, GET source detail, 32 connections, `wrk` vs an axum
//!    hello world.
//! 3. Memory: `lore serve` idle RSS vs the axum hello world's; peak RSS processing a ~10 MB PDF
//!    in `lore serve`, in the `api-chatbots` Lambda and in the `ingest-worker` Lambda.
//!
//! `bash scripts/bench-process.sh` builds the Lambda binaries and their peers with the `lambda`
//! profile (as deployed: fat LTO, one codegen unit, stripped), `lore serve` and its peer with
//! `perf`, and runs this; see benches/process/README.md.

mod emulator;
mod minilm_lambda;
mod pdf;

use anyhow::{Context, Result, anyhow, bail};
use emulator::Emulator;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BEGIN: &str = "<!-- perf-process:begin -->";
const END: &str = "<!-- perf-process:end -->";
const HEADING: &str = "## Performance budgets (processes)";
/// The PDF: ~10 MB (under the 10 MiB upload limit), 250 text pages, 25 images.
const PDF_BYTES: usize = 10_000_000;
const PDF_PAGES: usize = 250;
const PDF_IMAGES: usize = 25;
const PROCESS_TIMEOUT: Duration = Duration::from_secs(1200);

struct Opts {
    /// `lore` and the HTTP hello world.
    bin_dir: PathBuf,
    /// The Lambda functions and the Lambda peers (hello worlds, floor).
    lambda_bin_dir: PathBuf,
    reps: usize,
    duration_secs: u64,
    connections: u32,
    write: Option<PathBuf>,
    only: Option<String>,
    /// Extra environment of our function in the cold-start row (`--ours-env K=V`, diagnostics).
    ours_env: Vec<(String, String)>,
}

fn parse_args() -> Result<Opts> {
    let exe = std::env::current_exe()?;
    // target/<profile>/deps/process-… → target/<profile>
    let default_bin_dir = exe.parent().and_then(Path::parent).map(Path::to_path_buf).unwrap_or_default();
    let mut o = Opts {
        lambda_bin_dir: default_bin_dir.clone(),
        bin_dir: default_bin_dir,
        reps: 100,
        duration_secs: 10,
        connections: 32,
        write: None,
        only: None,
        ours_env: vec![],
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or_else(|| anyhow!("{a} needs a value"));
        match a.as_str() {
            "--bench" => {}
            "--bin-dir" => o.bin_dir = value()?.into(),
            "--lambda-bin-dir" => o.lambda_bin_dir = value()?.into(),
            "--reps" => o.reps = value()?.parse()?,
            "--duration" => o.duration_secs = value()?.parse()?,
            "--connections" => o.connections = value()?.parse()?,
            "--write" => o.write = Some(value()?.into()),
            "--only" => o.only = Some(value()?),
            "--ours-env" => {
                let kv = value()?;
                let (k, v) = kv.split_once('=').ok_or_else(|| anyhow!("--ours-env takes K=V"))?;
                o.ours_env.push((k.to_owned(), v.to_owned()));
            }
            other => bail!(
                "unknown argument {other} (--bin-dir, --lambda-bin-dir, --reps, --duration, --connections, --write, --only)"
            ),
        }
    }
    Ok(o)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    let o = parse_args()?;
    let bins = Bins::new(&o.bin_dir, &o.lambda_bin_dir)?;
    let work = tempfile::Builder::new().prefix("lore-bench-process-").tempdir()?;
    let machine = machine();
    eprintln!(
        "bench-process: {machine}; binaries from {} (Lambda: {}); scratch {}",
        o.bin_dir.display(),
        o.lambda_bin_dir.display(),
        work.path().display()
    );
    let run = |name: &str| o.only.as_deref().is_none_or(|only| only.split(',').any(|x| x == name));

    let mut report = Report::default();
    let api_setup = if run("api") || run("cold") { Some(ApiSetup::prepare(&bins, work.path()).await?) } else { None };
    if run("api") {
        let setup = api_setup.as_ref().unwrap();
        report.api = Some(api_overhead(&bins, setup, &o).await?);
    }
    if run("cold") {
        let setup = api_setup.as_ref().unwrap();
        report.cold = Some(cold_start(&bins, setup, o.reps, &o.ours_env).await?);
    }
    if run("aws-cold") || run("minilm-lambda") {
        let moto = std::env::var("LORE_BENCH_MOTO_URL")
            .context("aws-cold and minilm-lambda need LORE_BENCH_MOTO_URL (a moto server)")?;
        let database = std::env::var("LORE_BENCH_DATABASE_URL")
            .context("aws-cold and minilm-lambda need LORE_BENCH_DATABASE_URL (PostgreSQL + pgvector)")?;
        let setup = AwsSetup::prepare(&bins, work.path(), &moto, &database).await?;
        if run("aws-cold") {
            report.aws_cold = Some(aws_cold_start(&bins, &setup, o.reps).await?);
        }
        if run("minilm-lambda") {
            match minilm_dir() {
                Some(dir) => report.minilm = Some(minilm_lambda::minilm_lambda(&bins, &setup, &dir).await?),
                None => eprintln!("bench-process: minilm-lambda skipped: run `bash scripts/fetch-model.sh` first"),
            }
        }
    }
    if run("idle") {
        report.idle = Some(idle_memory(&bins, work.path()).await?);
    }
    if run("pdf") {
        report.pdf = Some(pdf_memory(&bins, work.path()).await?);
    }
    let block = report.render(&machine, &o);
    println!("{block}");
    if o.only.is_some() && o.write.is_some() {
        eprintln!("bench-process: a partial run (--only) does not rewrite the block; run every row to update it");
    } else if let Some(path) = &o.write {
        write_block(path, &block)?;
        eprintln!("bench-process: wrote the block to {}", path.display());
    }
    Ok(())
}

// ---------------------------------------------------------------- binaries and processes

struct Bins {
    lore: PathBuf,
    api_chatbots: PathBuf,
    api_forms: PathBuf,
    api_minds: PathBuf,
    api_integrations: PathBuf,
    ingest_worker: PathBuf,
    hello_lambda: PathBuf,
    hello_dynamo: PathBuf,
    floor_lambda: PathBuf,
    hello_http: PathBuf,
}

impl Bins {
    /// `dir`: `lore` and the HTTP hello world; `lambda`: the functions and the Lambda peers.
    fn new(dir: &Path, lambda: &Path) -> Result<Self> {
        let b = Bins {
            lore: dir.join("lore"),
            api_chatbots: lambda.join("api-chatbots"),
            api_forms: lambda.join("api-forms"),
            api_minds: lambda.join("api-minds"),
            api_integrations: lambda.join("api-integrations"),
            ingest_worker: lambda.join("ingest-worker"),
            hello_lambda: lambda.join("examples/process-hello-lambda"),
            hello_dynamo: lambda.join("examples/process-hello-dynamo"),
            floor_lambda: lambda.join("examples/process-floor-lambda"),
            hello_http: dir.join("examples/process-hello-http"),
        };
        for p in [
            &b.lore,
            &b.api_chatbots,
            &b.api_forms,
            &b.api_minds,
            &b.api_integrations,
            &b.ingest_worker,
            &b.hello_lambda,
            &b.hello_dynamo,
            &b.floor_lambda,
            &b.hello_http,
        ] {
            if !p.exists() {
                bail!("{} is missing: build it first (scripts/bench-process.sh does)", p.display());
            }
        }
        Ok(b)
    }
}

/// `VmRSS` and `VmHWM` of a process, in KiB.
#[derive(Debug, Clone, Copy, Default)]
struct Mem {
    rss_kib: u64,
    hwm_kib: u64,
}

impl Mem {
    fn of(pid: u32) -> Result<Mem> {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
        let field = |name: &str| -> Result<u64> {
            let line = status.lines().find(|l| l.starts_with(name)).ok_or_else(|| anyhow!("no {name}"))?;
            Ok(line.split_whitespace().nth(1).unwrap_or("0").parse()?)
        };
        Ok(Mem { rss_kib: field("VmRSS:")?, hwm_kib: field("VmHWM:")? })
    }
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn free_port() -> Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

fn stop(child: &mut Child, grace: Duration) {
    let _ = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status();
    let until = Instant::now() + grace;
    while Instant::now() < until {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// A running `lore serve` on a data dir.
struct Serve {
    child: Child,
    base: String,
    client: reqwest::Client,
    key: String,
}

impl Serve {
    /// Starts `lore serve` and waits until it answers. `key`: the one to use (default: the dev key).
    async fn start(bins: &Bins, data_dir: &Path, env: &[(&str, &str)], key: Option<&str>) -> Result<Serve> {
        let port = free_port()?;
        let log = std::fs::File::create(data_dir.with_extension("serve.log"))?;
        let mut cmd = Command::new(&bins.lore);
        cmd.arg("--data-dir")
            .arg(data_dir)
            .arg("serve")
            .arg("--addr")
            .arg(format!("127.0.0.1:{port}"))
            .env_remove("LORE_BACKEND")
            .env_remove("LORE_EMBEDDER")
            .env_remove("RUST_LOG")
            .stdout(Stdio::null())
            .stderr(log);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().context("spawning lore serve")?;
        let base = format!("http://127.0.0.1:{port}");
        let client = reqwest::Client::new();
        let until = Instant::now() + Duration::from_secs(180);
        loop {
            if let Ok(r) = client.get(format!("{base}/api/v1/openapi.json")).send().await
                && r.status().is_success()
            {
                break;
            }
            if let Ok(Some(status)) = child.try_wait() {
                bail!("lore serve exited ({status}); log in {}", data_dir.with_extension("serve.log").display());
            }
            if Instant::now() > until {
                stop(&mut child, Duration::from_secs(1));
                bail!("lore serve did not answer within 180 s");
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let key = match key {
            Some(k) => k.to_owned(),
            None => std::fs::read_to_string(data_dir.join("dev-key"))?.trim().to_owned(),
        };
        Ok(Serve { child, base, client, key })
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Result<(u16, Value)> {
        let mut req = self.client.request(method, format!("{}{path}", self.base)).bearer_auth(&self.key);
        if let Some(b) = body {
            req = req.json(&b);
        }
        let res = req.send().await?;
        let status = res.status().as_u16();
        Ok((status, res.json().await.unwrap_or(Value::Null)))
    }

    async fn create_chatbot(&self) -> Result<String> {
        let (status, v) =
            self.call(reqwest::Method::POST, "/api/v1/chatbots", Some(json!({ "name": "Bench bot" }))).await?;
        str_at(&v, "/chatbot/id").with_context(|| format!("create chatbot: {status} {v}"))
    }

    /// Uploads `bytes` as a file source (multipart `POST …/sources`): upload + create in one request.
    async fn create_pdf_source(&self, bot: &str, bytes: Vec<u8>) -> Result<String> {
        let part = reqwest::multipart::Part::bytes(bytes).file_name("handbook.pdf").mime_str("application/pdf")?;
        let form = reqwest::multipart::Form::new().part("file", part).text("name", "Handbook");
        let res = self
            .client
            .post(format!("{}/api/v1/chatbots/{bot}/sources", self.base))
            .bearer_auth(&self.key)
            .multipart(form)
            .send()
            .await?;
        let status = res.status();
        let v: Value = res.json().await.unwrap_or(Value::Null);
        str_at(&v, "/source/id").with_context(|| format!("create file source: {status} {v}"))
    }

    async fn process(&self, bot: &str, source: &str) -> Result<()> {
        let (status, v) =
            self.call(reqwest::Method::POST, &format!("/api/v1/chatbots/{bot}/sources/{source}/process"), None).await?;
        if status != 202 {
            bail!("process: {status} {v}");
        }
        Ok(())
    }

    /// Polls the source's detail until it is `ready`; its chunk count.
    async fn wait_ready(&self, bot: &str, source: &str) -> Result<u64> {
        let until = Instant::now() + PROCESS_TIMEOUT;
        loop {
            let (_, v) =
                self.call(reqwest::Method::GET, &format!("/api/v1/chatbots/{bot}/sources/{source}"), None).await?;
            match v.pointer("/source/status").and_then(Value::as_str) {
                Some("ready") => return Ok(v.pointer("/source/chunkCount").and_then(Value::as_u64).unwrap_or(0)),
                Some("error") => bail!("the source ended in error: {v}"),
                _ if Instant::now() > until => bail!("the source was not ready within {PROCESS_TIMEOUT:?}: {v}"),
                _ => tokio::time::sleep(Duration::from_millis(250)).await,
            }
        }
    }

    fn stop(mut self) {
        stop(&mut self.child, Duration::from_secs(10));
    }

    fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn str_at(v: &Value, pointer: &str) -> Result<String> {
    v.pointer(pointer).and_then(Value::as_str).map(str::to_owned).ok_or_else(|| anyhow!("no {pointer}"))
}

/// Runs the `lore` CLI; its last stdout line (the id or key it created).
fn cli(bins: &Bins, data_dir: &Path, args: &[&str]) -> Result<String> {
    let out =
        Command::new(&bins.lore).arg("--data-dir").arg(data_dir).args(args).env_remove("LORE_BACKEND").output()?;
    if !out.status.success() {
        bail!("lore {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let stdout = String::from_utf8(out.stdout)?;
    stdout.lines().rfind(|l| !l.trim().is_empty()).map(|l| l.trim().to_owned()).ok_or_else(|| anyhow!("no output"))
}

/// A function process as Lambda starts it: a clean environment with the Runtime API's address
/// and the `AWS_LAMBDA_*` variables, plus `env`.
fn lambda_command(bin: &Path, api: &Emulator, name: &str, env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(bin);
    cmd.env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("AWS_LAMBDA_RUNTIME_API", api.addr.to_string())
        .env("AWS_LAMBDA_FUNCTION_NAME", name)
        .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128")
        .env("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
        .env("AWS_LAMBDA_LOG_STREAM_NAME", "2026/05/01/[$LATEST]0123456789abcdef")
        .env("AWS_LAMBDA_LOG_GROUP_NAME", format!("/aws/lambda/{name}"))
        .env("AWS_REGION", "eu-west-1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// An API Gateway HTTP API (2.0) event for `method path` (with a JSON `body`, if any), from the
/// shipped `get-chatbot.json`.
fn http_event(template: &Value, key: &str, method: &str, path: &str, body: Option<&Value>) -> String {
    let mut e = template.clone();
    e["rawPath"] = json!(path);
    e["requestContext"]["http"]["path"] = json!(path);
    e["requestContext"]["http"]["method"] = json!(method);
    e["pathParameters"]["proxy"] = json!(path.trim_start_matches("/api/v1/chatbots/"));
    e["headers"]["authorization"] = json!(format!("Bearer {key}"));
    if let Some(body) = body {
        e["headers"]["content-type"] = json!("application/json");
        e["body"] = json!(body.to_string());
    }
    e.to_string()
}

fn api_gateway_template() -> Result<Value> {
    // Cargo runs a bench in its package's directory: the event is found from the workspace root.
    let event = concat!(env!("CARGO_MANIFEST_DIR"), "/../../events/api-chatbots/get-chatbot.json");
    let text = std::fs::read_to_string(event).context("events/api-chatbots/get-chatbot.json")?;
    Ok(serde_json::from_str(&text)?)
}

// ---------------------------------------------------------------- statistics

#[derive(Debug, Clone, Copy, Default)]
struct Dist {
    median: f64,
    p90: f64,
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    // Nearest rank.
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

fn dist(values: &[f64]) -> Dist {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    Dist { median: quantile(&v, 0.5), p90: quantile(&v, 0.9) }
}

// ---------------------------------------------------------------- row 1: cold start

/// A data dir with a workspace (high rate limit), a key, a chatbot and a ready text source.
struct ApiSetup {
    data_dir: PathBuf,
    key: String,
    bot: String,
    source: String,
}

impl ApiSetup {
    async fn prepare(bins: &Bins, work: &Path) -> Result<Self> {
        let data_dir = work.join("api");
        cli(bins, &data_dir, &["workspaces", "create", "--name", "bench", "--rate-limit-per-minute", "100000000"])?;
        let key = cli(bins, &data_dir, &["keys", "create", "--workspace", "bench", "--scopes", "all"])?;
        let serve = Serve::start(bins, &data_dir, &[("LORE_EMBEDDER", "local")], Some(&key)).await?;
        let bot = serve.create_chatbot().await?;
        let content = "Refunds are accepted within 14 days of purchase. ".repeat(40);
        let (status, v) = serve
            .call(
                reqwest::Method::POST,
                &format!("/api/v1/chatbots/{bot}/sources"),
                Some(json!({ "type": "text", "name": "Refund policy", "content": content })),
            )
            .await?;
        let source = str_at(&v, "/source/id").with_context(|| format!("create text source: {status} {v}"))?;
        serve.process(&bot, &source).await?;
        serve.wait_ready(&bot, &source).await?;
        serve.stop();
        Ok(ApiSetup { data_dir, key, bot, source })
    }
}

struct ColdRow {
    label: String,
    total: Dist,
    init: Dist,
    rss_mib: f64,
    /// The binary's size without symbols (the `lambda` profile strips already: as deployed).
    stripped_bytes: Option<u64>,
}

/// The size of `bin` stripped of symbols (`strip -o` into a scratch file); `None` without `strip`.
fn stripped_size(bin: &Path) -> Option<u64> {
    let dir = tempfile::tempdir().ok()?;
    let out = dir.path().join("stripped");
    let ok = Command::new("strip").arg("-o").arg(&out).arg(bin).status().ok()?.success();
    if ok { std::fs::metadata(&out).ok().map(|m| m.len()) } else { None }
}

struct Cold {
    rows: Vec<ColdRow>,
    reps: usize,
}

/// Spawn → first response, each binary in turn (round robin, so that load from elsewhere on the
/// machine falls on all three alike); the first round is a warm-up (page cache) and not counted.
async fn cold_start(bins: &Bins, setup: &ApiSetup, reps: usize, extra: &[(String, String)]) -> Result<Cold> {
    let template = api_gateway_template()?;
    let ours_event = http_event(&template, &setup.key, "GET", &format!("/api/v1/chatbots/{}", setup.bot), None);
    let hello_event = ours_event.clone();
    let floor_event = json!({ "hello": "floor" }).to_string();
    let data_dir = setup.data_dir.to_string_lossy().into_owned();
    let mut ours_env: Vec<(&str, &str)> =
        vec![("LORE_BACKEND", "local"), ("LORE_DATA_DIR", &data_dir), ("LORE_EMBEDDER", "local")];
    ours_env.extend(extra.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let cases: Vec<Case> = vec![
        ("floor: bare `lambda_runtime` echo loop", &bins.floor_lambda, "floor", vec![], &floor_event),
        ("hello world: `lambda_http` + axum", &bins.hello_lambda, "hello", vec![], &hello_event),
        ("ours: `api-chatbots`, GET chatbot", &bins.api_chatbots, "api-chatbots", ours_env, &ours_event),
    ];
    Ok(Cold { rows: measure_cold(&cases, reps).await?, reps })
}

/// A function to cold-start: label, binary, function name, environment, the event it answers.
type Case<'a> = (&'a str, &'a Path, &'a str, Vec<(&'a str, &'a str)>, &'a str);

/// Spawns each case `reps` + 1 times, round robin, the first round a warm-up; a case passes when
/// its function posts a response (an HTTP event's must say 200).
async fn measure_cold(cases: &[Case<'_>], reps: usize) -> Result<Vec<ColdRow>> {
    let mut totals = vec![Vec::new(); cases.len()];
    let mut inits = vec![Vec::new(); cases.len()];
    let mut rss = vec![Vec::new(); cases.len()];
    for rep in 0..=reps {
        for (i, (label, bin, name, env, event)) in cases.iter().enumerate() {
            let mut api = Emulator::start(name).await?;
            api.queue((*event).to_owned());
            let mut cmd = lambda_command(bin, &api, name, env);
            let t0 = Instant::now();
            let mut child = cmd.spawn().with_context(|| format!("spawning {}", bin.display()))?;
            let posted = api.wait(Duration::from_secs(30)).await;
            let mem = Mem::of(child.id()).unwrap_or_default();
            let _ = child.kill();
            let _ = child.wait();
            let posted = posted.ok_or_else(|| anyhow!("{label}: no response within 30 s"))?;
            if posted.kind != emulator::Kind::Response {
                bail!("{label}: posted {:?}: {}", posted.kind, String::from_utf8_lossy(&posted.body));
            }
            let answer = posted.json();
            let failed_items = answer.get("batchItemFailures").and_then(Value::as_array).is_some_and(|f| !f.is_empty());
            if answer.get("statusCode").is_some_and(|s| s != 200) || failed_items {
                bail!("{label}: answered {answer}");
            }
            if rep > 0 {
                totals[i].push((posted.at - t0).as_secs_f64() * 1e3);
                inits[i].push(api.first_next().map(|t| (t - t0).as_secs_f64() * 1e3).unwrap_or(f64::NAN));
                rss[i].push(mib(mem.rss_kib));
            }
        }
        if rep % 20 == 0 {
            eprintln!("bench-process: cold start {rep}/{reps}");
        }
    }
    Ok(cases
        .iter()
        .enumerate()
        .map(|(i, c)| ColdRow {
            label: c.0.to_owned(),
            total: dist(&totals[i]),
            init: dist(&inits[i]),
            rss_mib: dist(&rss[i]).median,
            stripped_bytes: stripped_size(c.1),
        })
        .collect())
}

// ---------------------------------------------------------------- row 1b: cold start, AWS composition

/// The functions as deployed, pointed at moto and the test PostgreSQL: the environment
/// `template.yaml` gives them (queue URLs, the database URL in Secrets Manager), and a workspace
/// with a key, a chatbot, a form and a Mind made through `lore serve --backend aws`.
struct AwsSetup {
    env: Vec<(String, String)>,
    /// The SDK configuration for moto.
    sdk: aws_config::SdkConfig,
    key: String,
    ids: Vec<(&'static str, String)>,
    table: String,
}

/// The placeholders of `events/` (events/README.md) and what the AWS setup puts in their place.
const SAMPLE_KEY: &str = "lore_sk_EXAMPLEexampleEXAMPLEexampleEXAMPLEexample000";
const SAMPLE_CHATBOT: &str = "cb_01jq3z5v7b8c9d0e1f2g3h4j5k";
const SAMPLE_FORM: &str = "form_01jq3z5v7b8c9d0e1f2g3h4j5k";
const SAMPLE_MIND: &str = "mind_01jq3z5v7b8c9d0e1f2g3h4j5k";
/// The table item the hello world reads.
const HELLO_PK: &str = "bench#hello";

impl AwsSetup {
    async fn prepare(bins: &Bins, work: &Path, moto: &str, database: &str) -> Result<Self> {
        let name = format!("lore-bench-{}", std::process::id());
        let sdk = lore_aws::local_sdk_config(moto).await;
        let secret = aws_sdk_secretsmanager::Client::new(&sdk)
            .create_secret()
            .name(format!("{name}-database"))
            .secret_string(json!({ "url": database }).to_string())
            .send()
            .await
            .context("creating the database secret on moto")?
            .arn
            .ok_or_else(|| anyhow!("the secret has no ARN"))?;
        let common: Vec<(String, String)> = [
            ("AWS_ENDPOINT_URL", moto.to_owned()),
            ("AWS_REGION", "us-east-1".to_owned()),
            ("AWS_ACCESS_KEY_ID", "testing".to_owned()),
            ("AWS_SECRET_ACCESS_KEY", "testing".to_owned()),
            ("LORE_BACKEND", "aws".to_owned()),
            ("LORE_DYNAMODB_TABLE", name.clone()),
            ("LORE_S3_BUCKET", name.clone()),
            ("LORE_EVENT_BUS", name.clone()),
            ("LORE_DATABASE_SECRET_ARN", secret),
            ("LORE_EMBEDDER", "local".to_owned()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();

        // `lore serve` creates the resources (LORE_AWS_BOOTSTRAP) and the records, then stops.
        let data_dir = work.join("aws");
        std::fs::create_dir_all(&data_dir)?;
        let mut serve_env: Vec<(&str, &str)> = common.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let (ingest, deliveries) = (format!("{name}-ingest"), format!("{name}-deliveries"));
        serve_env.extend([
            ("LORE_AWS_BOOTSTRAP", "true"),
            ("LORE_INGEST_QUEUE", ingest.as_str()),
            ("LORE_DELIVERIES_QUEUE", deliveries.as_str()),
        ]);
        let serve = Serve::start(bins, &data_dir, &serve_env, None).await?;
        let bot = serve.create_chatbot().await?;
        let (status, v) = serve
            .call(
                reqwest::Method::POST,
                "/api/v1/forms",
                Some(json!({ "name": "Contact", "fields": [{ "key": "email", "label": "E-mail", "type": "email" }] })),
            )
            .await?;
        let form = str_at(&v, "/form/id").with_context(|| format!("create form: {status} {v}"))?;
        let (status, v) =
            serve.call(reqwest::Method::POST, "/api/v1/minds", Some(json!({ "name": "Bench Mind" }))).await?;
        let mind = str_at(&v, "/mind/id").with_context(|| format!("create mind: {status} {v}"))?;
        let key = serve.key.clone();
        serve.stop();

        // As `template.yaml` configures them: queue URLs, not names.
        let sqs = aws_sdk_sqs::Client::new(&sdk);
        let mut env = common;
        for (var, queue) in [("LORE_INGEST_QUEUE_URL", &ingest), ("LORE_DELIVERIES_QUEUE_URL", &deliveries)] {
            let url = sqs.get_queue_url().queue_name(queue).send().await?.queue_url.unwrap_or_default();
            env.push((var.to_owned(), url));
        }
        // The hello world's item.
        aws_sdk_dynamodb::Client::new(&sdk)
            .put_item()
            .table_name(&name)
            .item("pk", aws_sdk_dynamodb::types::AttributeValue::S(HELLO_PK.into()))
            .item("sk", aws_sdk_dynamodb::types::AttributeValue::S(HELLO_PK.into()))
            .item("message", aws_sdk_dynamodb::types::AttributeValue::S("hello".into()))
            .send()
            .await
            .context("writing the hello world's item")?;
        let ids = vec![(SAMPLE_CHATBOT, bot), (SAMPLE_FORM, form), (SAMPLE_MIND, mind)];
        Ok(AwsSetup { env, sdk, key, ids, table: name })
    }

    /// `events/<function>/<file>` with the placeholders replaced by the setup's key and ids.
    fn event(&self, function: &str, file: &str) -> Result<String> {
        let path = format!("{}/../../events/{function}/{file}", env!("CARGO_MANIFEST_DIR"));
        let mut text = std::fs::read_to_string(&path).with_context(|| path.clone())?;
        text = text.replace(SAMPLE_KEY, &self.key);
        for (placeholder, id) in &self.ids {
            text = text.replace(placeholder, id);
        }
        Ok(text)
    }
}

/// What each route group's sample request asks of DynamoDB after the key's `UpdateItem` (the
/// request window, which returns the key): how many reads, all at once. The peer making one
/// `GetItem` and then as many at once (`HELLO_THEN_AT_ONCE`) makes the same number of round trips,
/// so each route's row can say what its calls cost and what the rest of ours does:
/// - `GET chatbot`, `GET form`: the record (1);
/// - `GET auth/verify`: the workspace and the webhook counters (2);
/// - `GET Mind`: the Mind, the workspace (its Mind-source limit), and for the count of recent
///   conversations the Mind's item again (is it this workspace's?) beside the count query (4).
const SAME_CALLS: [(&str, usize); 4] =
    [("`api-chatbots`", 1), ("`api-forms`", 1), ("`api-integrations`", 2), ("`api-minds`", 4)];

/// The peers making a route's calls, in the order of their rows (after the one-`GetItem` peer).
const THEN_AT_ONCE: [usize; 3] = [1, 2, 4];

struct AwsCold {
    rows: Vec<ColdRow>,
    reps: usize,
}

/// The route-group functions and the ingest worker on the AWS composition, against the floor and
/// a hello world that makes one DynamoDB `GetItem` on the same moto.
async fn aws_cold_start(bins: &Bins, setup: &AwsSetup, reps: usize) -> Result<AwsCold> {
    let env: Vec<(&str, &str)> = setup.env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let hello_env: Vec<(&str, &str)> = env
        .iter()
        .filter(|(k, _)| k.starts_with("AWS_"))
        .copied()
        .chain([("HELLO_TABLE", setup.table.as_str()), ("HELLO_PK", HELLO_PK)])
        .collect();
    let then_at_once: Vec<String> = THEN_AT_ONCE.iter().map(|n| n.to_string()).collect();
    let same_calls: Vec<(String, Vec<(&str, &str)>)> = then_at_once
        .iter()
        .map(|n| {
            let label = format!("hello world: `lambda_http` + axum, one `GetItem`, then {n} at once");
            (label, hello_env.iter().copied().chain([("HELLO_THEN_AT_ONCE", n.as_str())]).collect())
        })
        .collect();
    let floor_event = json!({ "hello": "floor" }).to_string();
    let get_chatbot = setup.event("api-chatbots", "get-chatbot.json")?;
    let events = [
        setup.event("api-forms", "get-form.json")?,
        setup.event("api-minds", "get-mind.json")?,
        setup.event("api-integrations", "auth-verify.json")?,
    ];
    // One ingest job, for a source that does not exist: the worker looks it up, finds nothing to
    // do, and acknowledges the message.
    let sqs: Value = serde_json::from_str(&setup.event("ingest-worker", "sqs-batch.json")?)?;
    let mut one = sqs.clone();
    one["Records"] = json!([sqs["Records"][0].clone()]);
    let ingest_event = one.to_string();
    let cases: Vec<Case> = vec![
        ("floor: bare `lambda_runtime` echo loop", &bins.floor_lambda, "floor", vec![], &floor_event),
        (
            "hello world: `lambda_http` + axum, one DynamoDB `GetItem`",
            &bins.hello_dynamo,
            "hello",
            hello_env,
            &get_chatbot,
        ),
        ("`api-chatbots`: GET chatbot", &bins.api_chatbots, "api-chatbots", env.clone(), &get_chatbot),
        ("`api-forms`: GET form", &bins.api_forms, "api-forms", env.clone(), &events[0]),
        ("`api-minds`: GET Mind", &bins.api_minds, "api-minds", env.clone(), &events[1]),
        ("`api-integrations`: GET auth/verify", &bins.api_integrations, "api-integrations", env.clone(), &events[2]),
        ("`ingest-worker`: one SQS ingest job", &bins.ingest_worker, "ingest-worker", env.clone(), &ingest_event),
    ];
    // The functions that embed, configured for the local model as the MiniLM layer does: the layer's
    // directory is the machine's model cache here.
    let model_dir = minilm_dir().map(|d| d.to_string_lossy().into_owned());
    let mut cases = cases;
    for (i, (label, env)) in same_calls.iter().enumerate() {
        cases.insert(2 + i, (label.as_str(), &bins.hello_dynamo, "hello", env.clone(), &get_chatbot));
    }
    if let Some(dir) = &model_dir {
        let minilm: Vec<(&str, &str)> =
            env.iter().copied().chain([("LORE_EMBEDDER", "minilm"), ("LORE_MODEL_DIR", dir.as_str())]).collect();
        cases.push((
            "`api-chatbots`, `LORE_EMBEDDER=minilm`: GET chatbot",
            &bins.api_chatbots,
            "api-chatbots",
            minilm.clone(),
            &get_chatbot,
        ));
        cases.push((
            "`ingest-worker`, `LORE_EMBEDDER=minilm`: one SQS ingest job",
            &bins.ingest_worker,
            "ingest-worker",
            minilm,
            &ingest_event,
        ));
    }
    Ok(AwsCold { rows: measure_cold(&cases, reps).await?, reps })
}

// ---------------------------------------------------------------- row 2: API overhead

#[derive(Debug, Clone, Default)]
struct Wrk {
    rps: f64,
    p50_ms: f64,
    p90_ms: f64,
    p99_ms: f64,
    requests: u64,
    non_2xx: u64,
    errors: String,
}

fn wrk_duration_ms(s: &str) -> Option<f64> {
    let s = s.trim();
    let (num, factor) = if let Some(n) = s.strip_suffix("us") {
        (n, 1e-3)
    } else if let Some(n) = s.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = s.strip_suffix("m") {
        (n, 60e3)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1e3)
    } else {
        return None;
    };
    num.parse::<f64>().ok().map(|v| v * factor)
}

fn run_wrk(url: &str, key: Option<&str>, connections: u32, secs: u64) -> Result<Wrk> {
    let mut cmd = Command::new("wrk");
    cmd.args(["-t2", &format!("-c{connections}"), &format!("-d{secs}s"), "--latency"]);
    if let Some(k) = key {
        cmd.args(["-H", &format!("Authorization: Bearer {k}")]);
    }
    let out = cmd.arg(url).output().context("running wrk (apt-get install wrk)")?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        bail!("wrk failed: {text}{}", String::from_utf8_lossy(&out.stderr));
    }
    let mut w = Wrk::default();
    for line in text.lines() {
        let t = line.trim();
        let mut parts = t.split_whitespace();
        match (parts.next(), parts.next()) {
            (Some("50%"), Some(v)) => w.p50_ms = wrk_duration_ms(v).unwrap_or(f64::NAN),
            (Some("90%"), Some(v)) => w.p90_ms = wrk_duration_ms(v).unwrap_or(f64::NAN),
            (Some("99%"), Some(v)) => w.p99_ms = wrk_duration_ms(v).unwrap_or(f64::NAN),
            (Some("Requests/sec:"), Some(v)) => w.rps = v.parse().unwrap_or(f64::NAN),
            _ => {}
        }
        if t.contains("requests in") {
            w.requests = t.split_whitespace().next().and_then(|n| n.parse().ok()).unwrap_or(0);
        }
        if let Some(n) = t.strip_prefix("Non-2xx or 3xx responses:") {
            w.non_2xx = n.trim().parse().unwrap_or(0);
        }
        if t.starts_with("Socket errors:") {
            w.errors = t.to_owned();
        }
    }
    Ok(w)
}

struct Api {
    ours: Wrk,
    hello: Wrk,
    connections: u32,
    secs: u64,
    body_bytes: usize,
}

async fn api_overhead(bins: &Bins, setup: &ApiSetup, o: &Opts) -> Result<Api> {
    // `lore serve` as a user starts it, on the prepared data dir, with the embedder that indexed
    // it: with another one it would re-index the source at start, while being measured.
    let serve = Serve::start(bins, &setup.data_dir, &[("LORE_EMBEDDER", "local")], Some(&setup.key)).await?;
    let path = format!("/api/v1/chatbots/{}/sources/{}", setup.bot, setup.source);
    let (status, body) = serve.call(reqwest::Method::GET, &path, None).await?;
    if status != 200 {
        bail!("GET source detail answered {status}: {body}");
    }
    let body_bytes = body.to_string().len();
    let url = format!("{}{path}", serve.base);
    eprintln!("bench-process: wrk {} connections, {} s: lore serve", o.connections, o.duration_secs);
    run_wrk(&url, Some(&setup.key), o.connections, 2)?; // warm-up
    let ours = run_wrk(&url, Some(&setup.key), o.connections, o.duration_secs)?;
    serve.stop();

    let port = free_port()?;
    let mut hello = Command::new(&bins.hello_http)
        .arg(format!("127.0.0.1:{port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    let hello_url = format!("http://127.0.0.1:{port}/");
    wait_http(&hello_url).await?;
    eprintln!("bench-process: wrk {} connections, {} s: axum hello world", o.connections, o.duration_secs);
    run_wrk(&hello_url, None, o.connections, 2)?;
    let peer = run_wrk(&hello_url, None, o.connections, o.duration_secs)?;
    stop(&mut hello, Duration::from_secs(5));
    if ours.non_2xx > 0 {
        bail!("lore serve answered {} non-2xx responses under load (rate limit?)", ours.non_2xx);
    }
    Ok(Api { ours, hello: peer, connections: o.connections, secs: o.duration_secs, body_bytes })
}

async fn wait_http(url: &str) -> Result<()> {
    let until = Instant::now() + Duration::from_secs(30);
    while Instant::now() < until {
        if reqwest::get(url).await.is_ok_and(|r| r.status().is_success()) {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    bail!("{url} did not answer")
}

// ---------------------------------------------------------------- row 3: memory

struct IdleRow {
    label: String,
    mem: Mem,
}

/// RSS a second after start + one request.
async fn idle_memory(bins: &Bins, work: &Path) -> Result<Vec<IdleRow>> {
    let mut rows = Vec::new();
    let minilm = minilm_present();
    let mut variants: Vec<(String, Vec<(&str, &str)>)> = Vec::new();
    if minilm {
        variants.push((
            "`lore serve`, default embedder (all-MiniLM-L6-v2 found; its weights load on the first embedding)".into(),
            vec![],
        ));
    } else {
        variants.push(("`lore serve`, default embedder (no MiniLM files: lexical)".into(), vec![]));
    }
    variants.push(("`lore serve`, `LORE_EMBEDDER=local` (lexical)".into(), vec![("LORE_EMBEDDER", "local")]));
    if e5_present() {
        variants.push((
            "`lore serve`, `LORE_EMBEDDER=e5` (multilingual-e5-small found; read on the first embedding)".into(),
            vec![("LORE_EMBEDDER", "e5")],
        ));
    }
    for (n, (label, env)) in variants.into_iter().enumerate() {
        let dir = work.join(format!("idle-{n}"));
        let serve = Serve::start(bins, &dir, &env, None).await?;
        let (status, _) = serve.call(reqwest::Method::GET, "/api/v1/chatbots", None).await?;
        if status != 200 {
            bail!("GET /api/v1/chatbots answered {status}");
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
        rows.push(IdleRow { label, mem: Mem::of(serve.pid())? });
        serve.stop();
    }
    let port = free_port()?;
    let mut hello = Command::new(&bins.hello_http)
        .arg(format!("127.0.0.1:{port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    wait_http(&format!("http://127.0.0.1:{port}/")).await?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    rows.push(IdleRow { label: "axum hello world (baseline)".into(), mem: Mem::of(hello.id())? });
    stop(&mut hello, Duration::from_secs(5));
    Ok(rows)
}

/// Whether `scripts/fetch-model.sh e5` has put multilingual-e5-small where `lore serve` looks for it.
fn e5_present() -> bool {
    lore_embed::e5::e5_dir_from_lookup(|name| std::env::var(name).ok())
        .is_some_and(|d| d.join(lore_embed::e5::E5_FILE_NAME).is_file())
}

fn minilm_present() -> bool {
    minilm_dir().is_some()
}

/// The all-MiniLM-L6-v2 directory `scripts/fetch-model.sh` fills, when it holds the weights.
fn minilm_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/lore/models/all-MiniLM-L6-v2"))?;
    dir.join("model.safetensors").exists().then_some(dir)
}

struct PdfRow {
    label: String,
    mem: Mem,
    secs: f64,
    chunks: u64,
}

struct PdfReport {
    bytes: usize,
    text_bytes: usize,
    rows: Vec<PdfRow>,
    skipped: Vec<String>,
}

async fn pdf_memory(bins: &Bins, work: &Path) -> Result<PdfReport> {
    let bytes = pdf::generate(PDF_BYTES, PDF_PAGES, PDF_IMAGES);
    std::fs::write(work.join("handbook.pdf"), &bytes)?;
    let mut report =
        PdfReport { bytes: bytes.len(), text_bytes: pdf::text_bytes(PDF_PAGES), rows: vec![], skipped: vec![] };

    // lore serve: upload + create (one multipart request), process, poll until ready.
    let mut variants: Vec<(String, Vec<(&str, &str)>)> = vec![(
        "`lore serve`, `LORE_EMBEDDER=local`: upload + create + process".into(),
        vec![("LORE_EMBEDDER", "local")],
    )];
    if e5_present() {
        variants.push((
            "`lore serve`, `LORE_EMBEDDER=e5` (multilingual-e5-small): upload + create + process".into(),
            vec![("LORE_EMBEDDER", "e5")],
        ));
    }
    if minilm_present() {
        variants.push(("`lore serve`, default embedder (MiniLM): upload + create + process".into(), vec![]));
    }
    for (n, (label, env)) in variants.into_iter().enumerate() {
        let dir = work.join(format!("pdf-serve-{n}"));
        let serve = Serve::start(bins, &dir, &env, None).await?;
        let t0 = Instant::now();
        let bot = serve.create_chatbot().await?;
        let source = serve.create_pdf_source(&bot, bytes.clone()).await?;
        serve.process(&bot, &source).await?;
        let chunks = serve.wait_ready(&bot, &source).await?;
        let secs = t0.elapsed().as_secs_f64();
        let mem = Mem::of(serve.pid())?;
        eprintln!("bench-process: {label}: {chunks} chunks in {secs:.1} s, peak {:.1} MiB", mib(mem.hwm_kib));
        report.rows.push(PdfRow { label, mem, secs, chunks });
        serve.stop();
    }

    // The api-chatbots Lambda (embedded backend, lexical embedder as deployed): POST …/process,
    // then GET detail events until ready; its in-process workers run the job.
    match lambda_api_pdf(bins, work, &bytes).await {
        Ok(row) => report.rows.push(row),
        Err(e) => report.skipped.push(format!("`api-chatbots` Lambda: {e:#}")),
    }
    match lambda_worker_pdf(bins, work, &bytes).await {
        Ok(row) => report.rows.push(row),
        Err(e) => report.skipped.push(format!("`ingest-worker` Lambda: {e:#}")),
    }
    Ok(report)
}

async fn lambda_api_pdf(bins: &Bins, work: &Path, bytes: &[u8]) -> Result<PdfRow> {
    let dir = work.join("pdf-lambda-api");
    let serve = Serve::start(bins, &dir, &[("LORE_EMBEDDER", "local")], None).await?;
    let bot = serve.create_chatbot().await?;
    let source = serve.create_pdf_source(&bot, bytes.to_vec()).await?;
    let key = serve.key.clone();
    serve.stop();

    let template = api_gateway_template()?;
    let dir_s = dir.to_string_lossy().into_owned();
    let env = [("LORE_BACKEND", "local"), ("LORE_DATA_DIR", dir_s.as_str()), ("LORE_EMBEDDER", "local")];
    let mut api = Emulator::start("api-chatbots").await?;
    let mut child = lambda_command(&bins.api_chatbots, &api, "api-chatbots", &env).spawn()?;
    let result = async {
        let t0 = Instant::now();
        let path = format!("/api/v1/chatbots/{bot}/sources/{source}");
        let posted = api
            .invoke(http_event(&template, &key, "POST", &format!("{path}/process"), None), Duration::from_secs(60))
            .await?;
        if posted.json()["statusCode"] != 202 {
            bail!("POST process answered {}", posted.json());
        }
        let until = Instant::now() + PROCESS_TIMEOUT;
        loop {
            let answer =
                api.invoke(http_event(&template, &key, "GET", &path, None), Duration::from_secs(60)).await?.json();
            let body: Value = serde_json::from_str(answer["body"].as_str().unwrap_or("null")).unwrap_or(Value::Null);
            match body.pointer("/source/status").and_then(Value::as_str) {
                Some("ready") => {
                    let chunks = body.pointer("/source/chunkCount").and_then(Value::as_u64).unwrap_or(0);
                    let mem = Mem::of(child.id())?;
                    return Ok(PdfRow {
                        label: "`api-chatbots` Lambda (embedded backend, `LORE_EMBEDDER=local`): process + poll; \
                                the run executes in its in-process worker"
                            .into(),
                        mem,
                        secs: t0.elapsed().as_secs_f64(),
                        chunks,
                    });
                }
                Some("error") => bail!("the source ended in error: {body}"),
                _ if Instant::now() > until => bail!("not ready within {PROCESS_TIMEOUT:?}"),
                _ => tokio::time::sleep(Duration::from_millis(250)).await,
            }
        }
    }
    .await;
    let _ = child.kill();
    let _ = child.wait();
    result
}

/// The ingest-worker with the embedded backend. The job must be in `processing` in the data dir
/// before the worker starts: `lore serve` starts the run (POST …/process) and is killed (-9) as soon
/// as it has answered 202. At init the worker's sweeper adopts that orphaned run (the embedded
/// backend's rule for a data dir's runs) and runs it with `App::run_ingest_job`, the function the
/// SQS handler calls; the SQS event for the same job is delivered once the run finished (a no-op
/// then, by its generation guard), so that one run, not two concurrent ones, is measured.
async fn lambda_worker_pdf(bins: &Bins, work: &Path, bytes: &[u8]) -> Result<PdfRow> {
    let dir = work.join("pdf-lambda-worker");
    let serve = Serve::start(bins, &dir, &[("LORE_EMBEDDER", "local")], None).await?;
    let bot = serve.create_chatbot().await?;
    let source = serve.create_pdf_source(&bot, bytes.to_vec()).await?;
    serve.process(&bot, &source).await?;
    serve.kill();

    let db = rusqlite::Connection::open_with_flags(
        dir.join("lore.db"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    let state = |db: &rusqlite::Connection| -> Result<(String, String, u64, u64)> {
        Ok(db.query_row(
            "SELECT status, workspace_id, generation, chunk_count FROM sources WHERE id = ?1",
            [&source],
            |r| Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? as u64, r.get::<_, i64>(3)? as u64)),
        )?)
    };
    let (status, workspace, generation, _) = state(&db)?;
    if status != "processing" {
        bail!("after the kill the source is {status}, not processing (lore serve finished it first)");
    }
    let dir_s = dir.to_string_lossy().into_owned();
    let env = [("LORE_BACKEND", "local"), ("LORE_DATA_DIR", dir_s.as_str()), ("LORE_EMBEDDER", "local")];
    let mut api = Emulator::start("ingest-worker").await?;
    let t0 = Instant::now();
    let mut child = lambda_command(&bins.ingest_worker, &api, "ingest-worker", &env).spawn()?;
    let result = async {
        let until = Instant::now() + PROCESS_TIMEOUT;
        let chunks = loop {
            tokio::time::sleep(Duration::from_millis(250)).await;
            let (status, _, _, chunks) = state(&db)?;
            match status.as_str() {
                "ready" => break chunks,
                "error" => bail!("the source ended in error"),
                _ if Instant::now() > until => bail!("not ready within {PROCESS_TIMEOUT:?}"),
                _ => {}
            }
            if let Ok(Some(s)) = child.try_wait() {
                bail!("the ingest-worker exited: {s}");
            }
        };
        let secs = t0.elapsed().as_secs_f64();
        let job = json!({ "type": "ingest", "workspaceId": workspace, "sourceId": source, "generation": generation });
        let event = json!({ "Records": [{
            "messageId": "bench-1", "receiptHandle": "bench", "body": job.to_string(), "attributes": {},
            "messageAttributes": {}, "eventSource": "aws:sqs",
            "eventSourceARN": "arn:aws:sqs:eu-west-1:123456789012:lore-IngestQueue", "awsRegion": "eu-west-1"
        }]});
        let answer = api.invoke(event.to_string(), Duration::from_secs(60)).await?.json();
        if answer["batchItemFailures"].as_array().is_some_and(|f| !f.is_empty()) {
            bail!("the SQS batch reported failures: {answer}");
        }
        Ok(PdfRow {
            label: "`ingest-worker` Lambda (embedded backend, `LORE_EMBEDDER=local`): the run adopted at init, \
                    then the SQS job event"
                .into(),
            mem: Mem::of(child.id())?,
            secs,
            chunks,
        })
    }
    .await;
    let _ = child.kill();
    let _ = child.wait();
    result
}

// ---------------------------------------------------------------- report

#[derive(Default)]
struct Report {
    cold: Option<Cold>,
    aws_cold: Option<AwsCold>,
    api: Option<Api>,
    idle: Option<Vec<IdleRow>>,
    pdf: Option<PdfReport>,
    minilm: Option<minilm_lambda::MiniLmLambda>,
}

/// The table of a cold-start section: one row per binary.
fn cold_table(s: &mut String, rows: &[ColdRow]) {
    let _ = writeln!(s, "| binary | median | p90 | init median | init p90 | RSS after 1st response | size, stripped |");
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let size = r.stripped_bytes.map_or_else(|| "–".to_owned(), |b| format!("{:.1} MB", b as f64 / 1e6));
        let _ = writeln!(
            s,
            "| {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.1} MiB | {size} |",
            r.label, r.total.median, r.total.p90, r.init.median, r.init.p90, r.rss_mib
        );
    }
    let _ = writeln!(s);
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap_or("").trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| m.lines().next().and_then(|l| l.split_whitespace().nth(1)).and_then(|k| k.parse::<u64>().ok()))
        .map(|k| format!(", {:.1} GiB RAM", k as f64 / 1024.0 / 1024.0))
        .unwrap_or_default();
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|l| format!(", load average at start {}", l.split_whitespace().take(3).collect::<Vec<_>>().join(" ")))
        .unwrap_or_default();
    format!("{cpu}, {cores} cores{mem}{load}")
}

fn revision() -> String {
    let git = |args: &[&str]| {
        Command::new("git").args(args).output().ok().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
    };
    let rev = git(&["rev-parse", "--short", "HEAD"]).filter(|r| !r.is_empty()).unwrap_or_else(|| "unknown".into());
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    if dirty { format!("{rev} + uncommitted changes") } else { rev }
}

fn met(ok: bool) -> &'static str {
    if ok { "**met**" } else { "**missed**" }
}

impl Report {
    fn render(&self, machine: &str, o: &Opts) -> String {
        let command = std::env::var("LORE_BENCH_COMMAND").unwrap_or_else(|_| "bash scripts/bench-process.sh".into());
        let date = Command::new("date")
            .args(["-u", "+%Y-%m-%d %H:%M UTC"])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .unwrap_or_default();
        let mut s = String::new();
        let _ = writeln!(s, "{BEGIN}");
        let _ = writeln!(
            s,
            "Measured {date} on {machine}; Rust profile `lambda` (fat LTO, one codegen unit, as deployed) for the \
             Lambda binaries and their peers, `perf` for `lore serve` and its peer; \
             revision {}. Reproduce with:\n\n```sh\n{command}\n```\n",
            revision()
        );
        let _ = writeln!(s, "| row | ours | peer / baseline (same run) | ratio | budget | met? |");
        let _ = writeln!(s, "|---|---:|---:|---:|---|---|");
        if let Some(c) = &self.cold {
            let (floor, hello, ours) = (&c.rows[0], &c.rows[1], &c.rows[2]);
            let net = |r: &ColdRow, f: fn(&Dist) -> f64| f(&r.total) - f(&floor.total);
            let ratio_med = net(ours, |d| d.median) / net(hello, |d| d.median);
            let ratio_p90 = net(ours, |d| d.p90) / net(hello, |d| d.p90);
            let _ = writeln!(
                s,
                "| Lambda cold start, spawn → first response, minus floor (median / p90) | {:.2} / {:.2} ms | \
                 hello world {:.2} / {:.2} ms | **{ratio_med:.2}× / {ratio_p90:.2}×** | ≤ 2× | {} |",
                net(ours, |d| d.median),
                net(ours, |d| d.p90),
                net(hello, |d| d.median),
                net(hello, |d| d.p90),
                met(ratio_med <= 2.0 && ratio_p90 <= 2.0)
            );
        }
        if let Some(c) = &self.aws_cold {
            let (floor, hello) = (&c.rows[0], &c.rows[1]);
            let peers_then = &c.rows[2..2 + THEN_AT_ONCE.len()];
            let net = |r: &ColdRow, f: fn(&Dist) -> f64| f(&r.total) - f(&floor.total);
            for ours in &c.rows[2 + THEN_AT_ONCE.len()..] {
                let mut peers = vec![(hello, "hello world + `GetItem`".to_owned())];
                // The route's own calls, set against a peer making as many (see the text below the table).
                let calls = SAME_CALLS.iter().find(|(prefix, _)| ours.label.starts_with(prefix)).map(|(_, n)| *n);
                if let Some(i) = calls.and_then(|n| THEN_AT_ONCE.iter().position(|m| *m == n)) {
                    let n = THEN_AT_ONCE[i];
                    peers.push((&peers_then[i], format!("hello world + as many calls (1, then {n} at once)")));
                }
                for (peer, peer_name) in peers {
                    let ratio_med = net(ours, |d| d.median) / net(peer, |d| d.median);
                    let ratio_p90 = net(ours, |d| d.p90) / net(peer, |d| d.p90);
                    let _ = writeln!(
                        s,
                        "| Lambda cold start on the AWS composition (moto + PostgreSQL), minus floor (median / p90): {} | \
                         {:.2} / {:.2} ms | {peer_name} {:.2} / {:.2} ms | **{ratio_med:.2}× / {ratio_p90:.2}×** | ≤ 2× | {} |",
                        ours.label,
                        net(ours, |d| d.median),
                        net(ours, |d| d.p90),
                        net(peer, |d| d.median),
                        net(peer, |d| d.p90),
                        met(ratio_med <= 2.0 && ratio_p90 <= 2.0)
                    );
                }
            }
        }
        if let Some(a) = &self.api {
            let _ = writeln!(
                s,
                "| API overhead, GET source detail, {} connections: p99 | {:.2} ms | hello world {:.2} ms | {:.1}× | ≤ 5 ms | {} |",
                a.connections,
                a.ours.p99_ms,
                a.hello.p99_ms,
                a.ours.p99_ms / a.hello.p99_ms,
                met(a.ours.p99_ms <= 5.0)
            );
            let _ = writeln!(
                s,
                "| API overhead, same run: throughput | {:.0} req/s | hello world {:.0} req/s | {:.2}× | ≥ 10,000 req/s on 2 cores | {} |",
                a.ours.rps,
                a.hello.rps,
                a.ours.rps / a.hello.rps,
                met(a.ours.rps >= 10_000.0)
            );
        }
        if let Some(idle) = &self.idle {
            let base = idle.last().map(|r| r.mem.rss_kib).unwrap_or(1);
            for r in &idle[..idle.len().saturating_sub(1)] {
                let _ = writeln!(
                    s,
                    "| Memory idle (start + one request): {} | {:.1} MiB RSS | hello world {:.1} MiB | {:.1}× | ≤ 50 MB | {} |",
                    r.label,
                    mib(r.mem.rss_kib),
                    mib(base),
                    r.mem.rss_kib as f64 / base as f64,
                    met(r.mem.rss_kib * 1024 <= 50_000_000)
                );
            }
        }
        if let Some(p) = &self.pdf {
            for r in &p.rows {
                let lambda = r.label.contains("Lambda");
                let _ = writeln!(
                    s,
                    "| Memory peak (VmHWM), {:.1} MB PDF: {} | {:.1} MiB | no peer (budget only) | {:.2}× the budget | {} | {} |",
                    p.bytes as f64 / 1e6,
                    r.label,
                    mib(r.mem.hwm_kib),
                    r.mem.hwm_kib as f64 * 1024.0 / 128e6,
                    if lambda { "≤ 128 MB (Lambda handler)" } else { "≤ 128 MB is for a Lambda handler: info" },
                    if lambda { met(r.mem.hwm_kib * 1024 <= 128_000_000) } else { "(info)" }
                );
            }
        }
        let _ = writeln!(s);
        if let Some(c) = &self.cold {
            let _ = writeln!(
                s,
                "**Cold start** ({} spawns of each binary, round robin, after one warm-up round; local Runtime API \
                 emulator `benches/process/emulator.rs` on 127.0.0.1, a fresh one per process; `api-chatbots` with \
                 `LORE_BACKEND=local`, `LORE_EMBEDDER=local` on a data dir holding one workspace, key and chatbot, \
                 answering `events/api-chatbots/get-chatbot.json` with the real key and id: 200). Times in ms from \
                 `spawn()` to the emulator receiving the response; *init* = to the first `GET …/invocation/next`; \
                 RSS = VmRSS right after the response:\n",
                c.reps
            );
            cold_table(&mut s, &c.rows);
        }
        if let Some(c) = &self.aws_cold {
            let _ = writeln!(
                s,
                "**Cold start on the AWS composition** ({} spawns of each binary, round robin, after a warm-up round; \
                 the same emulator). The functions get the environment `template.yaml` gives them, pointed at a local \
                 moto server (`AWS_ENDPOINT_URL`) and the test PostgreSQL + pgvector on loopback: `LORE_BACKEND=aws`, \
                 the table, bucket and event bus, the queue URLs, the database URL read from a Secrets Manager secret \
                 (`LORE_DATABASE_SECRET_ARN`), `LORE_EMBEDDER=local` (the two `minilm` rows: `LORE_EMBEDDER=minilm` \
                 and `LORE_MODEL_DIR`, the layer's files). Each answers a sample event of `events/` with a \
                 real key and ids (made by `lore serve --backend aws` on the same moto): 200; the ingest worker gets \
                 one SQS job for a source that does not exist and acknowledges it. The peer, \
                 `benches/process/hello_dynamo.rs`, is the hello world plus a DynamoDB client made at init and one \
                 `GetItem` on the same moto table per request; each route group is also set against the same peer \
                 making as many DynamoDB calls as its request (`HELLO_THEN_AT_ONCE=N`: one `GetItem`, then N at once, \
                 as each route updates the key's item, then makes its reads at once: `GET chatbot` and `GET form` \
                 read their record (N = 1), `GET auth/verify` the workspace and the webhook counters (2), `GET Mind` \
                 the Mind, the workspace, the Mind's item again and the count of recent conversations (4); moto \
                 answers DynamoDB one request at a time, DynamoDB would answer the reads together). Times in ms \
                 from `spawn()` to the response; *init* = to the first `GET …/invocation/next`:\n",
                c.reps
            );
            cold_table(&mut s, &c.rows);
        }
        if let Some(m) = &self.minilm {
            let _ = writeln!(
                s,
                "**MiniLM on Lambda** (`benches/process/minilm_lambda.rs`): the same AWS composition, \
                 once per embedder. `api-chatbots` creates a chatbot and a text source of {} characters (this \
                 repository's docs) and starts it; the job is taken from the SQS ingest queue on moto and handed to a \
                 freshly spawned `ingest-worker` as an SQS event (*ingest* = spawn → the batch's answer: init, model \
                 load, extraction, chunking, embedding, pgvector writes). A fresh `api-chatbots` then answers {} \
                 different hybrid searches (`topK` 5; *first* includes loading the weights). The functions use both \
                 cores of this machine: on Lambda a function gets CPU in proportion to its memory (one vCPU at \
                 1,769 MB), so expect these times ÷ the share `template.yaml`'s memory sizes give.\n",
                m.text_chars,
                m.runs.first().map_or(0, |r| r.query_count + 1)
            );
            let _ =
                writeln!(s, "| embedder | chunks | ingest | chunks/s | first search | search median | search p90 |");
            let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|");
            for r in &m.runs {
                let _ = writeln!(
                    s,
                    "| {} | {} | {:.2} s | {:.1} | {:.0} ms | {:.1} ms | {:.1} ms |",
                    r.label,
                    r.chunks,
                    r.ingest_secs,
                    r.chunks as f64 / r.ingest_secs,
                    r.first_query_ms,
                    r.queries.median,
                    r.queries.p90
                );
            }
            let _ = writeln!(s);
        }
        if let Some(a) = &self.api {
            let _ = writeln!(
                s,
                "**API overhead** (`wrk -t2 -c{} -d{}s --latency`, after a 2 s warm-up each, load generator on the \
                 same 2 cores): `lore serve` (embedded backend, default settings but `LORE_EMBEDDER=local`, the embedder the data dir was indexed with, so that no re-indexing runs beside the measurement) `GET /api/v1/chatbots/{{chatbotId}}/sources/{{sourceId}}` (a ready text source; {} B of JSON) with a key of a \
                 workspace created with `--rate-limit-per-minute 100000000` vs `process-hello-http` (`GET /` → \
                 `Hello, World!`).\n",
                a.connections, a.secs, a.body_bytes
            );
            let _ = writeln!(s, "| server | req/s | p50 ms | p90 ms | p99 ms | requests | non-2xx | socket errors |");
            let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---|");
            for (name, w) in [("`lore serve`", &a.ours), ("axum hello world", &a.hello)] {
                let _ = writeln!(
                    s,
                    "| {name} | {:.0} | {:.2} | {:.2} | {:.2} | {} | {} | {} |",
                    w.rps,
                    w.p50_ms,
                    w.p90_ms,
                    w.p99_ms,
                    w.requests,
                    w.non_2xx,
                    if w.errors.is_empty() { "none" } else { &w.errors }
                );
            }
            let _ = writeln!(s);
        }
        if let Some(idle) = &self.idle {
            let _ =
                writeln!(s, "**Idle memory** (fresh data dir, one `GET /api/v1/chatbots` — or `GET /` — then 1 s):\n");
            let _ = writeln!(s, "| process | VmRSS | VmHWM |");
            let _ = writeln!(s, "|---|---:|---:|");
            for r in idle {
                let _ = writeln!(s, "| {} | {:.1} MiB | {:.1} MiB |", r.label, mib(r.mem.rss_kib), mib(r.mem.hwm_kib));
            }
            let _ = writeln!(s);
        }
        if let Some(p) = &self.pdf {
            let _ = writeln!(
                s,
                "**Peak memory for a {:.1} MB PDF** (generated deterministically by `benches/process/pdf.rs`: {PDF_PAGES} \
                 Helvetica text pages, {:.0} KB of uncompressed text streams, and {PDF_IMAGES} raw RGB images of \
                 incompressible pixels for the rest). VmHWM of the process that ran the job, read when the source was \
                 `ready`; the time is from the first request (or the worker's spawn) to `ready`:\n",
                p.bytes as f64 / 1e6,
                p.text_bytes as f64 / 1e3
            );
            let _ = writeln!(s, "| process | VmHWM (peak) | VmRSS after | chunks | time |");
            let _ = writeln!(s, "|---|---:|---:|---:|---:|");
            for r in &p.rows {
                let _ = writeln!(
                    s,
                    "| {} | {:.1} MiB | {:.1} MiB | {} | {:.1} s |",
                    r.label,
                    mib(r.mem.hwm_kib),
                    mib(r.mem.rss_kib),
                    r.chunks,
                    r.secs
                );
            }
            for skipped in &p.skipped {
                let _ = writeln!(s, "\nNot measured: {skipped}");
            }
            let _ = writeln!(s);
        }
        if o.only.is_none() {
            let _ = writeln!(s, "{}", include_str!("FINDINGS.md").trim_end());
            let _ = writeln!(s);
        }
        if o.only.is_some() {
            let _ = writeln!(s, "(partial run: `--only {}`)\n", o.only.as_deref().unwrap_or(""));
        }
        let _ = write!(s, "{END}");
        s
    }
}

/// Replaces the block between the markers, or appends the heading and the block at the end.
fn write_block(path: &Path, block: &str) -> Result<()> {
    let doc = std::fs::read_to_string(path).unwrap_or_default();
    let new = match (doc.find(BEGIN), doc.find(END)) {
        (Some(b), Some(e)) if e > b => format!("{}{block}{}", &doc[..b], &doc[e + END.len()..]),
        _ => format!("{}\n\n{HEADING}\n\n{block}\n", doc.trim_end()),
    };
    std::fs::write(path, new)?;
    Ok(())
}
