//! The `lore` binary as a user runs it: workspaces, keys, and `lore serve` on the same data dir.

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const LORE: &str = env!("CARGO_BIN_EXE_lore");

fn lore(data_dir: &Path, args: &[&str]) -> Output {
    Command::new(LORE)
        .arg("--data-dir")
        .arg(data_dir)
        .args(args)
        .env("RUST_LOG", "warn")
        .env("LORE_EMBEDDER", "local")
        .output()
        .expect("lore runs")
}

/// Runs a command that must succeed and returns its last stdout line.
fn lore_ok(data_dir: &Path, args: &[&str]) -> String {
    let out = lore(data_dir, args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "lore {args:?} failed: {}\n{stdout}", String::from_utf8_lossy(&out.stderr));
    stdout.lines().last().unwrap_or("").to_owned()
}

/// A `lore serve` child process, killed when dropped.
struct Server {
    child: Child,
    base: String,
    lines: Vec<String>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(data_dir: &Path) -> Server {
    serve_with(data_dir, &[])
}

fn serve_with(data_dir: &Path, env: &[(&str, &str)]) -> Server {
    let mut command = Command::new(LORE);
    command.arg("--data-dir").arg(data_dir).args(["serve", "--addr", "127.0.0.1:0"]);
    serve_child(command, env)
}

/// Starts `command` (a `lore … serve`) and waits for its banner.
fn serve_child(mut command: Command, env: &[(&str, &str)]) -> Server {
    let mut child = command
        .env("RUST_LOG", "warn")
        .env("LORE_EMBEDDER", "local")
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("lore serve starts");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut lines = Vec::new();
    // The banner ends with the "Try:" line; collect up to it.
    loop {
        let line = rx.recv_timeout(Duration::from_secs(90)).expect("lore serve prints its banner");
        let done = line.starts_with("Try:");
        lines.push(line);
        if done {
            break;
        }
    }
    let base = lines.iter().find_map(|l| l.strip_prefix("Lore is listening on ")).expect("listening line").to_owned();
    Server { child, base, lines }
}

fn send(req: reqwest::RequestBuilder) -> (u16, Value) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let res = req.send().await.unwrap();
        let status = res.status().as_u16();
        (status, res.json().await.unwrap())
    })
}

/// Creates a chatbot `kb` through the API; its id and the URL of its sources.
fn new_chatbot(client: &reqwest::Client, base: &str, key: &str) -> (String, String) {
    let (status, bot) =
        send(client.post(format!("{base}/api/v1/chatbots")).bearer_auth(key).json(&serde_json::json!({"name": "kb"})));
    assert_eq!(status, 201, "{bot}");
    let bot = bot["chatbot"]["id"].as_str().unwrap().to_owned();
    let sources = format!("{base}/api/v1/chatbots/{bot}/sources");
    (bot, sources)
}

fn get(url: &str, key: &str) -> (u16, Value) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let res = reqwest::Client::new().get(url).bearer_auth(key).send().await.unwrap();
        let status = res.status().as_u16();
        (status, res.json().await.unwrap())
    })
}

#[test]
fn serve_bootstraps_a_dev_key_once_and_it_works() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve_with(dir.path(), &[("LORE_SPEECH", "none")]);
    let key = std::fs::read_to_string(dir.path().join("dev-key")).unwrap().trim().to_owned();
    assert!(key.starts_with("lore_sk_"));
    assert!(server.lines.iter().any(|l| l.trim() == key), "the new key is printed: {:?}", server.lines);
    assert!(server.lines.iter().any(|l| l == "Spoken answers by: none"), "{:?}", server.lines);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.path().join("dev-key")).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "dev-key readable by others: {mode:o}");
    }
    let (status, body) = get(&format!("{}/api/v1/chatbots", server.base), &key);
    assert_eq!(status, 200);
    assert_eq!(body["status"], "success");
    let (_, verify) = get(&format!("{}/api/integrations/webhooks/auth/verify", server.base), &key);
    assert_eq!(verify["workspace"]["name"], "default");
    assert_eq!(verify["key"]["scopes"].as_array().unwrap().len(), lore_domain::scope::Scope::ALL.len());
    drop(server);

    // A restart keeps the data dir's key and does not print or create another. Its banner names
    // the speech model, here on the chat model's server (nothing listens there: it is not called).
    let speech =
        [("LORE_SPEECH", "openai"), ("LORE_LLM_BASE_URL", "http://127.0.0.1:9/v1"), ("LORE_SPEECH_MODEL", "tts-x")];
    let again = serve_with(dir.path(), &speech);
    assert!(!again.lines.iter().any(|l| l.contains("lore_sk_")), "{:?}", again.lines);
    let named = "Spoken answers by: openai (model tts-x at http://127.0.0.1:9/v1)";
    assert!(again.lines.iter().any(|l| l == named), "{:?}", again.lines);
    assert_eq!(std::fs::read_to_string(dir.path().join("dev-key")).unwrap().trim(), key);
    assert_eq!(get(&format!("{}/api/v1/chatbots", again.base), &key).0, 200);
    let keys = lore_ok(dir.path(), &["keys", "list"]);
    assert_eq!(keys.lines().count(), 1);
}

#[test]
fn workspaces_and_keys_made_by_the_cli_work_against_a_running_server() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve(dir.path());

    let ws = lore_ok(dir.path(), &["workspaces", "create", "--name", "acme", "--rate-limit-per-minute", "1000"]);
    assert!(ws.starts_with("ws_") && ws.len() == 29, "{ws}");
    let key = lore_ok(dir.path(), &["keys", "create", "--workspace", "acme", "--scopes", "chatbot:read,forms:read"]);
    assert!(key.starts_with("lore_sk_"), "{key}");
    let by_id = lore_ok(dir.path(), &["keys", "create", "--workspace", &ws, "--scopes", "all", "--name", "ci"]);
    assert!(by_id.starts_with("lore_sk_") && by_id != key);

    let (status, verify) = get(&format!("{}/api/integrations/webhooks/auth/verify", server.base), &key);
    assert_eq!(status, 200);
    assert_eq!(verify["workspace"]["id"], ws.as_str());
    assert_eq!(verify["key"]["scopes"], serde_json::json!(["chatbot:read", "forms:read"]));
    assert_eq!(get(&format!("{}/api/v1/chatbots", server.base), &key).0, 200);

    // The key list shows ids and scopes, never secrets.
    let list = String::from_utf8(lore(dir.path(), &["keys", "list", "--workspace", "acme"]).stdout).unwrap();
    assert_eq!(list.lines().count(), 2, "{list}");
    assert!(!list.contains("lore_sk_"));
    let key_id = verify["key"]["id"].as_str().unwrap();
    assert!(list.contains(key_id));

    // Updating limits keeps the rest.
    let updated = lore(dir.path(), &["workspaces", "update", "acme", "--minds-limit", "3"]);
    assert!(updated.status.success());
    let listed = String::from_utf8(lore(dir.path(), &["workspaces", "list"]).stdout).unwrap();
    let line = listed.lines().find(|l| l.contains(&ws)).unwrap();
    assert!(line.contains("minds-limit=3") && line.contains("rate-limit-per-minute=1000"), "{line}");

    // Revoking through the CLI is seen by the running server within 5 s.
    lore_ok(dir.path(), &["keys", "revoke", key_id]);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let (status, _) = get(&format!("{}/api/v1/chatbots", server.base), &key);
        if status == 401 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "revoked key still accepted");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(get(&format!("{}/api/v1/chatbots", server.base), &by_id).0, 200);
}

#[test]
fn bad_cli_input_fails_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    lore_ok(dir.path(), &["workspaces", "create", "--name", "acme"]);
    for args in [
        &["workspaces", "create", "--name", "acme"][..],
        &["workspaces", "create", "--name", ""],
        &["workspaces", "update", "nope", "--minds-limit", "1"],
        &["workspaces", "update", "acme", "--rate-limit-per-minute", "0"],
        &["keys", "create", "--workspace", "nope", "--scopes", "all"],
        &["keys", "create", "--workspace", "acme", "--scopes", "chatbot:admin"],
        &["keys", "create", "--workspace", "acme", "--scopes", ""],
        &["keys", "revoke", "key_01jq3z5v7b8c9d0e1f2g3h4j5k"],
        &["keys", "revoke", "not-an-id"],
    ] {
        let out = lore(dir.path(), args);
        assert!(!out.status.success(), "{args:?} succeeded");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("error"), "{args:?}: {stderr}");
        assert!(String::from_utf8_lossy(&out.stdout).is_empty(), "{args:?} printed to stdout");
    }
}

#[test]
fn every_command_has_help() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["--help"][..],
        &["serve", "--help"],
        &["workspaces", "--help"],
        &["workspaces", "create", "--help"],
        &["workspaces", "update", "--help"],
        &["workspaces", "list", "--help"],
        &["keys", "--help"],
        &["keys", "create", "--help"],
        &["keys", "list", "--help"],
        &["keys", "revoke", "--help"],
    ] {
        let out = lore(dir.path(), args);
        assert!(out.status.success(), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("Usage: lore"), "{args:?}");
    }
    let out = lore(dir.path(), &["keys", "create", "--help"]);
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("--scopes") && help.contains("--workspace"));
}

#[path = "api/site.rs"]
#[allow(dead_code)]
mod site;

/// A `lore serve` killed with SIGKILL in the middle of a processing run: after a restart the
/// source still ends `ready`, with exactly one set of chunks.
#[test]
fn a_run_interrupted_by_kill_9_finishes_after_restart_without_duplicates() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let site = rt.block_on(site::Site::start());
    let dir = tempfile::tempdir().unwrap();
    let env = [("LORE_ALLOW_PRIVATE_NETWORK", "true")];
    let mut server = serve_with(dir.path(), &env);
    let key = std::fs::read_to_string(dir.path().join("dev-key")).unwrap().trim().to_owned();
    let client = reqwest::Client::new();
    let (status, bot) = send(
        client
            .post(format!("{}/api/v1/chatbots", server.base))
            .bearer_auth(&key)
            .json(&serde_json::json!({"name": "kb"})),
    );
    assert_eq!(status, 201);
    let bot = bot["chatbot"]["id"].as_str().unwrap().to_owned();
    let sources = format!("{}/api/v1/chatbots/{bot}/sources", server.base);
    let body = serde_json::json!({"type": "url", "url": site.url("/slow")});
    let (status, src) = send(client.post(&sources).bearer_auth(&key).json(&body));
    assert_eq!(status, 201, "{src}");
    let id = src["source"]["id"].as_str().unwrap().to_owned();
    let (status, _) = send(client.post(format!("{sources}/{id}/process")).bearer_auth(&key));
    assert_eq!(status, 202);

    // Wait until the worker is inside the fetch, then kill the process outright.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while site.hits("slow") == 0 {
        assert!(std::time::Instant::now() < deadline, "the worker never fetched the page");
        std::thread::sleep(Duration::from_millis(20));
    }
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    site.release_slow();

    let restarted = serve_with(dir.path(), &env);
    let detail = format!("{}/api/v1/chatbots/{bot}/sources/{id}", restarted.base);
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let done = loop {
        let (_, body) = send(client.get(&detail).bearer_auth(&key));
        if body["source"]["status"] == "ready" || body["source"]["status"] == "error" {
            break body["source"].clone();
        }
        assert!(std::time::Instant::now() < deadline, "still {}", body["source"]["status"]);
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(done["status"], "ready", "{done}");
    let chunks = done["chunkCount"].as_u64().unwrap();
    assert!(chunks >= 1);
    let db =
        rusqlite::Connection::open_with_flags(dir.path().join("lore.db"), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let stored: u64 = db.query_row("SELECT COUNT(*) FROM chunks WHERE source_id = ?1", [&id], |r| r.get(0)).unwrap();
    assert_eq!(stored, chunks, "no duplicate chunks");
    drop(restarted);
    drop(rt);
}

/// A run whose worker is killed twice (an input that crashes the server, say) is not started a
/// third time: the next server ends the source in `error` instead of fetching again.
#[test]
fn a_run_whose_worker_died_twice_ends_in_error_without_a_third_attempt() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let site = rt.block_on(site::Site::start());
    let dir = tempfile::tempdir().unwrap();
    let env = [("LORE_ALLOW_PRIVATE_NETWORK", "true")];
    let mut server = serve_with(dir.path(), &env);
    let key = std::fs::read_to_string(dir.path().join("dev-key")).unwrap().trim().to_owned();
    let client = reqwest::Client::new();
    let (bot, sources) = new_chatbot(&client, &server.base, &key);
    let (status, src) = send(
        client.post(&sources).bearer_auth(&key).json(&serde_json::json!({"type": "url", "url": site.url("/slow")})),
    );
    assert_eq!(status, 201, "{src}");
    let id = src["source"]["id"].as_str().unwrap().to_owned();
    let (status, _) = send(client.post(format!("{sources}/{id}/process")).bearer_auth(&key));
    assert_eq!(status, 202);

    // Two runs, each killed with the server while it is inside the fetch.
    for attempt in 1..=2 {
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while site.hits("slow") < attempt {
            assert!(std::time::Instant::now() < deadline, "run {attempt} never fetched the page");
            std::thread::sleep(Duration::from_millis(20));
        }
        server.child.kill().unwrap();
        server.child.wait().unwrap();
        server = serve_with(dir.path(), &env);
    }

    let detail = format!("{}/api/v1/chatbots/{bot}/sources/{id}", server.base);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let done = loop {
        let (_, body) = send(client.get(&detail).bearer_auth(&key));
        if body["source"]["status"] == "ready" || body["source"]["status"] == "error" {
            break body["source"].clone();
        }
        assert!(std::time::Instant::now() < deadline, "still {}", body["source"]["status"]);
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(done["status"], "error", "{done}");
    assert!(done["error"].as_str().unwrap().contains("after 2 attempts"), "{done}");
    assert_eq!(site.hits("slow"), 2, "no third run fetched the page");
    site.release_slow();
    drop(server);
    drop(rt);
}

/// Files `lore serve` writes hold secrets (the database keeps webhook secrets in clear to sign
/// deliveries): they are the owner's alone, in a data dir only the owner can enter.
#[cfg(unix)]
#[test]
fn the_data_dir_and_the_files_in_it_are_private_to_the_owner() {
    use std::os::unix::fs::PermissionsExt;
    let parent = tempfile::tempdir().unwrap();
    let data_dir = parent.path().join("data");
    let server = serve(&data_dir);
    let key = std::fs::read_to_string(data_dir.join("dev-key")).unwrap().trim().to_owned();
    // An upload puts a file (and its directories) under the data dir.
    let form = reqwest::multipart::Form::new()
        .part("file", reqwest::multipart::Part::bytes(b"# Notes\n\nPrivate.".to_vec()).file_name("notes.md"));
    let (_, bot) = send(
        reqwest::Client::new()
            .post(format!("{}/api/v1/chatbots", server.base))
            .bearer_auth(&key)
            .json(&serde_json::json!({"name": "kb"})),
    );
    let bot = bot["chatbot"]["id"].as_str().unwrap().to_owned();
    let (status, upload) = send(
        reqwest::Client::new()
            .post(format!("{}/api/v1/chatbots/{bot}/uploads", server.base))
            .bearer_auth(&key)
            .multipart(form),
    );
    assert_eq!(status, 201, "{upload}");

    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&data_dir), 0o700, "data dir");
    let mut seen = 0;
    let mut stack = vec![data_dir.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                assert_eq!(mode(&path), 0o700, "{}", path.display());
                stack.push(path);
            } else {
                assert_eq!(mode(&path), 0o600, "{}", path.display());
                seen += 1;
            }
        }
    }
    // lore.db (+ -wal, -shm), dev-key, upload-signing-key and the upload at least.
    assert!(seen >= 5, "only {seen} files checked");
    assert!(data_dir.join("lore.db").exists() && data_dir.join("upload-signing-key").exists());

    // A data dir of ours left open by an older version is tightened at start.
    drop(server);
    std::fs::set_permissions(&data_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(data_dir.join("lore.db"), std::fs::Permissions::from_mode(0o644)).unwrap();
    let again = serve(&data_dir);
    assert_eq!(mode(&data_dir), 0o700);
    assert_eq!(mode(&data_dir.join("lore.db")), 0o600);
    drop(again);
}

#[path = "api/receiver.rs"]
#[allow(dead_code)]
mod receiver;

/// A webhook attempt fails, `lore serve` is killed with SIGKILL before the retry is due, and a
/// new server on the same data dir makes that retry — once, at its time, with the same event id.
#[test]
fn a_retry_pending_when_the_server_is_killed_happens_once_after_a_restart() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let rx = rt.block_on(receiver::Receiver::start());
    rx.script("/hook", vec![receiver::Reply::Status(500)]);
    let dir = tempfile::tempdir().unwrap();
    let env = [("LORE_ALLOW_PRIVATE_NETWORK", "true"), ("LORE_WEBHOOK_RETRY_SCHEDULE", "3s,3s,3s")];
    let mut server = serve_with(dir.path(), &env);
    let key = std::fs::read_to_string(dir.path().join("dev-key")).unwrap().trim().to_owned();
    let client = reqwest::Client::new();
    let form =
        serde_json::json!({"name": "Contact", "fields": [{"key": "name", "label": "Name", "type": "short_text"}]});
    let (status, form) = send(client.post(format!("{}/api/v1/forms", server.base)).bearer_auth(&key).json(&form));
    assert_eq!(status, 201, "{form}");
    let form = form["form"]["id"].as_str().unwrap().to_owned();
    let subscribe = serde_json::json!({"hookUrl": rx.url("/hook"), "formId": form});
    let url = format!("{}/api/integrations/webhooks/triggers/subscribe", server.base);
    let (status, hook) = send(client.post(url).bearer_auth(&key).json(&subscribe));
    assert_eq!(status, 201, "{hook}");
    let answers = serde_json::json!({"values": {"name": "Ada"}});
    let (status, _) =
        send(client.post(format!("{}/api/v1/forms/{form}/responses", server.base)).bearer_auth(&key).json(&answers));
    assert_eq!(status, 201);

    let first = rt.block_on(rx.next(Duration::from_secs(30)));
    // Kill only once the failure and its retry time are stored.
    let log = |base: &str| send(client.get(format!("{base}/api/integrations/webhooks/deliveries")).bearer_auth(&key)).1;
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let body = log(&server.base);
        let d = &body["deliveries"][0];
        if d["attempts"].as_array().is_some_and(|a| a.len() == 1) {
            assert_eq!((d["status"].as_str(), d["attempts"][0]["statusCode"].as_u64()), (Some("pending"), Some(500)));
            assert!(d["nextAttemptAt"].is_string(), "{d}");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the failed attempt was never recorded: {body}");
        std::thread::sleep(Duration::from_millis(20));
    }
    server.child.kill().unwrap();
    server.child.wait().unwrap();

    let restarted = serve_with(dir.path(), &env);
    let second = rt.block_on(rx.next(Duration::from_secs(30)));
    assert_eq!(second.header("webhook-id"), first.header("webhook-id"), "the same event id after the restart");
    assert!(second.at - first.at >= Duration::from_secs(3), "the retry kept its schedule: {:?}", second.at - first.at);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let done = loop {
        let body = log(&restarted.base);
        if body["deliveries"][0]["status"] == "succeeded" {
            break body["deliveries"][0].clone();
        }
        assert!(std::time::Instant::now() < deadline, "the retry was never recorded: {body}");
        std::thread::sleep(Duration::from_millis(20));
    };
    let codes: Vec<u64> =
        done["attempts"].as_array().unwrap().iter().map(|a| a["statusCode"].as_u64().unwrap()).collect();
    assert_eq!(codes, [500, 200]);
    rt.block_on(rx.expect_none(Duration::from_secs(2)));
    drop(restarted);
    drop(rx);
    drop(rt);
}

/// A variable `scripts/test.sh` sets (the moto server, the PostgreSQL server).
fn need(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set: run the tests with scripts/test.sh"))
}

/// The SDK configuration of the moto server at `moto`.
async fn moto_sdk(moto: &str) -> aws_config::SdkConfig {
    lore_aws::local_sdk_config(moto).await
}

/// The environment of `lore --backend aws` on the moto server `moto`, with resources named
/// `name` (created at start: `LORE_AWS_BOOTSTRAP`) and the database named by `database`
/// (`LORE_DATABASE_URL` or `LORE_DATABASE_SECRET_ARN`, and its value).
fn aws_env(moto: &str, name: &str, database: (&'static str, &str)) -> Vec<(&'static str, String)> {
    vec![
        ("AWS_ENDPOINT_URL", moto.to_owned()),
        ("AWS_REGION", "us-east-1".to_owned()),
        ("AWS_ACCESS_KEY_ID", "testing".to_owned()),
        ("AWS_SECRET_ACCESS_KEY", "testing".to_owned()),
        ("LORE_AWS_BOOTSTRAP", "true".to_owned()),
        ("LORE_DYNAMODB_TABLE", name.to_owned()),
        ("LORE_S3_BUCKET", name.to_owned()),
        ("LORE_INGEST_QUEUE", format!("{name}-ingest")),
        ("LORE_EVENT_BUS", name.to_owned()),
        (database.0, database.1.to_owned()),
    ]
}

/// `lore --backend aws serve` on `data_dir` with `env` (see [`aws_env`]).
fn serve_aws(data_dir: &Path, env: &[(&str, &str)]) -> Server {
    let mut command = Command::new(LORE);
    command.arg("--data-dir").arg(data_dir).args(["--backend", "aws", "serve", "--addr", "127.0.0.1:0"]);
    serve_child(command, env)
}

/// Polls the source's detail until it is `ready` or `error` (at most 60 s) and returns it.
fn settle(client: &reqwest::Client, detail: &str, key: &str) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let (_, body) = send(client.get(detail).bearer_auth(key));
        if body["source"]["status"] == "ready" || body["source"]["status"] == "error" {
            return body["source"].clone();
        }
        assert!(std::time::Instant::now() < deadline, "still {}", body["source"]["status"]);
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The same binary on the AWS backend, configured only through the environment as on a laptop
/// pointed at moto: `lore serve --backend aws` creates its resources (`LORE_AWS_BOOTSTRAP`), reads
/// the database URL from Secrets Manager,
/// takes a source through the SQS ingest queue to pgvector, and finds it by search; the CLI's
/// admin commands see the same DynamoDB table.
#[test]
fn serve_on_the_aws_backend_runs_the_whole_pipeline() {
    let (moto, database) = (need("LORE_TEST_MOTO_URL"), need("LORE_TEST_DATABASE_URL"));
    let name = format!("lore-cli-{}", std::process::id());
    // The database URL reaches the server as a Secrets Manager secret, as on Lambda.
    let secret_arn = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
        let sdk = moto_sdk(&moto).await;
        let created = aws_sdk_secretsmanager::Client::new(&sdk)
            .create_secret()
            .name(format!("{name}-database"))
            .secret_string(serde_json::json!({ "url": database }).to_string())
            .send()
            .await
            .expect("secret created on moto");
        created.arn.expect("secret ARN")
    });
    let env = aws_env(&moto, &name, ("LORE_DATABASE_SECRET_ARN", &secret_arn));
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let dir = tempfile::tempdir().unwrap();
    let server = serve_aws(dir.path(), &env);
    let key = std::fs::read_to_string(dir.path().join("dev-key")).unwrap().trim().to_owned();
    let client = reqwest::Client::new();
    let (bot, sources) = new_chatbot(&client, &server.base, &key);
    let body = serde_json::json!({"type": "text", "name": "Refunds", "content": "Refunds are paid within fourteen days of a return."});
    let (status, src) = send(client.post(&sources).bearer_auth(&key).json(&body));
    assert_eq!(status, 201, "{src}");
    let id = src["source"]["id"].as_str().unwrap().to_owned();
    assert_eq!(send(client.post(format!("{sources}/{id}/process")).bearer_auth(&key)).0, 202);
    let done = settle(&client, &format!("{sources}/{id}"), &key);
    assert_eq!(done["status"], "ready", "{done}");
    let search = format!("{}/api/v1/chatbots/{bot}/knowledge/search", server.base);
    let (status, found) =
        send(client.post(&search).bearer_auth(&key).json(&serde_json::json!({"query": "refund days"})));
    assert_eq!(status, 200, "{found}");
    assert_eq!(found["results"][0]["sourceId"], id.as_str(), "{found}");

    // An index written before the keyword tables (as the migration leaves it: the source on the
    // backlog, no postings) is not found by keyword search until `lore migrate` has run.
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
        let (db, connection) = tokio_postgres::connect(&database, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(connection);
        db.execute("DELETE FROM keyword_segments WHERE source_id = $1", &[&id]).await.unwrap();
        db.execute("INSERT INTO keyword_backlog VALUES ($1)", &[&id]).await.unwrap();
        // And the text source as written before its text had an item of its own: inline.
        let dynamo = aws_sdk_dynamodb::Client::new(&moto_sdk(&moto).await);
        let key = |sk: &str| {
            use aws_sdk_dynamodb::types::AttributeValue::S;
            std::collections::HashMap::from([
                ("pk".to_owned(), S(format!("SRC#{id}"))),
                ("sk".to_owned(), S(sk.into())),
            ])
        };
        let read =
            |sk: &'static str| dynamo.get_item().table_name(&name).set_key(Some(key(sk))).consistent_read(true).send();
        let mut item = read("SRC").await.unwrap().item.expect("the source item");
        let text = read("TEXT").await.unwrap().item.expect("the text item");
        item.insert("content".into(), text["content"].clone());
        dynamo.put_item().table_name(&name).set_item(Some(item)).send().await.unwrap();
        dynamo.delete_item().table_name(&name).set_key(Some(key("TEXT"))).send().await.unwrap();
    });
    let keyword = serde_json::json!({"query": "refund days", "mode": "keyword"});
    let (_, found) = send(client.post(&search).bearer_auth(&key).json(&keyword));
    assert_eq!(found["results"].as_array().map(Vec::len), Some(0), "not built yet: {found}");
    let out = Command::new(LORE)
        .arg("--data-dir")
        .arg(dir.path())
        .args(["--backend", "aws", "migrate"])
        .env("LORE_EMBEDDER", "local")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let built: u64 = String::from_utf8_lossy(&out.stdout).trim().parse().expect("prints how many it built");
    assert!(built >= 1, "built {built}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("moved the text of 1 text source(s) to its own item"), "{said}");
    let (status, moved) = send(client.get(format!("{sources}/{id}")).bearer_auth(&key));
    assert_eq!(status, 200, "{moved}");
    assert_eq!(moved["source"]["content"], "Refunds are paid within fourteen days of a return.", "{moved}");
    let (_, found) = send(client.post(&search).bearer_auth(&key).json(&keyword));
    assert_eq!(found["results"][0]["sourceId"], id.as_str(), "found again: {found}");

    let out = Command::new(LORE)
        .arg("--data-dir")
        .arg(dir.path())
        .args(["--backend", "aws", "workspaces", "list"])
        .env("LORE_EMBEDDER", "local")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("default"), "the table the server bootstrapped");
    drop(server);
}

/// The AWS backend opens the pgvector database on first use: with the database unreachable,
/// `lore serve --backend aws` starts and serves what needs no chunks (chatbots, an empty search),
/// and a request that needs the chunk index fails with the contract's 500, without taking the
/// server down.
#[test]
fn aws_backend_serves_records_while_the_database_is_unreachable() {
    let moto = need("LORE_TEST_MOTO_URL");
    let name = format!("lore-nodb-{}", std::process::id());
    // A port nothing listens on: connections are refused at once.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let database = format!("postgres://lore@127.0.0.1:{closed}/lore");
    let env = aws_env(&moto, &name, ("LORE_DATABASE_URL", &database));
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let dir = tempfile::tempdir().unwrap();
    let server = serve_aws(dir.path(), &env);
    let key = std::fs::read_to_string(dir.path().join("dev-key")).unwrap().trim().to_owned();
    let client = reqwest::Client::new();
    let chatbots = format!("{}/api/v1/chatbots", server.base);
    let (status, bot) = send(client.post(&chatbots).bearer_auth(&key).json(&serde_json::json!({"name": "kb"})));
    assert_eq!(status, 201, "{bot}");
    let bot = bot["chatbot"]["id"].as_str().unwrap().to_owned();
    let search = format!("{chatbots}/{bot}/knowledge/search");
    let (status, found) = send(client.post(&search).bearer_auth(&key).json(&serde_json::json!({"query": "refunds"})));
    assert_eq!((status, found["results"].as_array().map(Vec::len)), (200, Some(0)), "no sources, no index: {found}");

    let sources = format!("{chatbots}/{bot}/sources");
    let body = serde_json::json!({"type": "text", "name": "Refunds", "content": "Refunds take fourteen days."});
    let (status, src) = send(client.post(&sources).bearer_auth(&key).json(&body));
    assert_eq!(status, 201, "{src}");
    let id = src["source"]["id"].as_str().unwrap();
    let (status, failed) = send(client.delete(format!("{sources}/{id}")).bearer_auth(&key));
    assert_eq!((status, failed["error"]["code"].as_str()), (500, Some("internal_error")), "{failed}");
    let (status, again) = send(client.get(format!("{chatbots}/{bot}")).bearer_auth(&key));
    assert_eq!(status, 200, "still serving: {again}");
    drop(server);
}

/// The queue's counts of waiting and in-flight messages (`ApproximateNumberOfMessages`,
/// `ApproximateNumberOfMessagesNotVisible`).
async fn queue_counts(queue: &lore_aws::SqsJobQueue) -> (u64, u64) {
    let out = queue
        .client()
        .get_queue_attributes()
        .queue_url(queue.queue_url())
        .attribute_names("ApproximateNumberOfMessages".into())
        .attribute_names("ApproximateNumberOfMessagesNotVisible".into())
        .send()
        .await
        .expect("queue attributes");
    let attributes = out.attributes.unwrap_or_default();
    let count = |name: &str| {
        attributes.iter().find(|(k, _)| k.as_str() == name).map(|(_, v)| v.parse().unwrap()).unwrap_or(u64::MAX)
    };
    (count("ApproximateNumberOfMessages"), count("ApproximateNumberOfMessagesNotVisible"))
}

/// `lore serve --backend aws` killed with SIGKILL while its SQS ingest worker is inside a run
/// (a URL source whose page never answers): the message it held was never deleted, so SQS
/// delivers it again after the queue's visibility timeout; a restarted server takes it and the
/// source ends `ready` with exactly one set of chunks in pgvector. The lease stays at its default
/// (15 min), so the sweeper cannot be what finishes the run: only the redelivery can.
#[test]
fn an_aws_ingest_run_killed_by_kill_9_is_redelivered_and_finishes_without_duplicates() {
    let (moto, database) = (need("LORE_TEST_MOTO_URL"), need("LORE_TEST_DATABASE_URL"));
    let name = format!("lore-kill-{}", std::process::id());
    let mut env = aws_env(&moto, &name, ("LORE_DATABASE_URL", &database));
    env.push(("LORE_ALLOW_PRIVATE_NETWORK", "true".to_owned()));
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let site = rt.block_on(site::Site::start());
    // The resources as bootstrap makes them, then the ingest queue's visibility timeout cut from
    // 30 min to 15 s (bootstrap leaves existing resources as they are): long enough that a
    // loaded machine does not redeliver the message before the kill.
    const VISIBILITY_SECS: u64 = 15;
    let queue = rt.block_on(async {
        let vars: std::collections::HashMap<&str, &str> = env.iter().copied().collect();
        let settings = lore_aws::AwsSettings::from_lookup(|k| vars.get(k).map(|v| v.to_string()));
        let aws = lore_aws::AwsBackend::connect_with(&moto_sdk(&moto).await, settings).await.expect("bootstrap");
        aws.sqs
            .client()
            .set_queue_attributes()
            .queue_url(aws.sqs.queue_url())
            .attributes("VisibilityTimeout".into(), VISIBILITY_SECS.to_string())
            .send()
            .await
            .expect("visibility timeout set");
        aws.sqs
    });

    let dir = tempfile::tempdir().unwrap();
    let mut server = serve_aws(dir.path(), &env);
    let key = std::fs::read_to_string(dir.path().join("dev-key")).unwrap().trim().to_owned();
    let client = reqwest::Client::new();
    let (bot, sources) = new_chatbot(&client, &server.base, &key);
    let body = serde_json::json!({"type": "url", "url": site.url("/slow")});
    let (status, src) = send(client.post(&sources).bearer_auth(&key).json(&body));
    assert_eq!(status, 201, "{src}");
    let id = src["source"]["id"].as_str().unwrap().to_owned();
    // The job's message is sent, and received, after this instant.
    let before_process = std::time::Instant::now();
    let (status, started) = send(client.post(format!("{sources}/{id}/process")).bearer_auth(&key));
    assert_eq!((status, started["source"]["status"].as_str()), (202, Some("processing")), "{started}");

    // Kill the server once its worker is inside the fetch, i.e. holds the job's message.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while site.hits("slow") == 0 {
        assert!(std::time::Instant::now() < deadline, "the worker never fetched the page");
        std::thread::sleep(Duration::from_millis(20));
    }
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    assert_eq!(rt.block_on(queue_counts(&queue)), (0, 1), "the killed worker's message is in flight, not deleted");
    site.release_slow();

    let restarted = serve_aws(dir.path(), &env);
    let detail = format!("{}/api/v1/chatbots/{bot}/sources/{id}", restarted.base);
    let done = settle(&client, &detail, &key);
    assert_eq!(done["status"], "ready", "{done}");
    let waited = before_process.elapsed();
    assert!(waited >= Duration::from_secs(VISIBILITY_SECS), "ready only after the visibility timeout: {waited:?}");
    assert!(site.hits("slow") >= 2, "the restarted server fetched the page again");
    assert_eq!(done["chunkCount"], 1, "{done}");
    let index = rt.block_on(lore_pgvector::PgIndex::connect(&database)).expect("pgvector");
    let source_id = lore_domain::id::SourceId::parse(&id).unwrap();
    let stored = rt.block_on(lore_app::ports::VectorIndex::count_source_chunks(&index, &source_id)).unwrap();
    assert_eq!(stored, 1, "exactly one set of chunks in pgvector");
    // The redelivered message was deleted once its run finished.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let counts = rt.block_on(queue_counts(&queue));
        if counts == (0, 0) {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the job's message is still queued: {counts:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(restarted);
    drop(rt);
}

/// After the embedder of an AWS deployment changes, `lore reembed` with the new settings queues a
/// run for each source made with the old one (and for nothing else): the ingest worker then
/// re-chunks and re-embeds it. On the embedded backend it refuses, saying the server does it.
#[test]
fn reembed_queues_the_sources_of_another_embedder_on_aws() {
    let (moto, database) = (need("LORE_TEST_MOTO_URL"), need("LORE_TEST_DATABASE_URL"));
    let name = format!("lore-reembed-{}", std::process::id());
    let env = aws_env(&moto, &name, ("LORE_DATABASE_URL", &database));
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let dir = tempfile::tempdir().unwrap();
    let mut with_lexical = env.clone();
    with_lexical.push(("LORE_EMBEDDER", "local"));
    let server = serve_aws(dir.path(), &with_lexical);
    let key = std::fs::read_to_string(dir.path().join("dev-key")).unwrap().trim().to_owned();
    let client = reqwest::Client::new();
    let (_, sources) = new_chatbot(&client, &server.base, &key);
    let body = serde_json::json!({"type": "text", "content": "Refunds are paid within fourteen days of a return."});
    let (_, src) = send(client.post(&sources).bearer_auth(&key).json(&body));
    let id = src["source"]["id"].as_str().unwrap().to_owned();
    assert_eq!(send(client.post(format!("{sources}/{id}/process")).bearer_auth(&key)).0, 202);
    assert_eq!(settle(&client, &format!("{sources}/{id}"), &key)["status"], "ready");
    // The server deletes the finished job from the queue after marking the source ready: wait
    // for that, so the queue holds only what `lore reembed` adds.
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let queue = rt.block_on(async {
        let vars: std::collections::HashMap<&str, &str> = env.iter().copied().collect();
        let settings = lore_aws::AwsSettings::from_lookup(|k| vars.get(k).map(|v| v.to_string()));
        lore_aws::AwsBackend::connect_with(&moto_sdk(&moto).await, settings).await.expect("connect").sqs
    });
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while rt.block_on(queue_counts(&queue)) != (0, 0) {
        assert!(std::time::Instant::now() < deadline, "the finished job stayed on the queue");
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(server);

    let reembed = |embedder: &[(&str, &str)]| {
        let out = Command::new(LORE)
            .arg("--data-dir")
            .arg(dir.path())
            .args(["--backend", "aws", "reembed"])
            .envs(env.iter().copied())
            .envs(embedder.iter().copied())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    assert_eq!(reembed(&[("LORE_EMBEDDER", "local")]), "0", "the configured embedder made every chunk");
    assert_eq!(reembed(&[("LORE_EMBEDDER", "minilm")]), "1", "the one source of the lexical embedder");
    assert_eq!(reembed(&[("LORE_EMBEDDER", "minilm")]), "0", "a source already queued is left to its run");

    // The run is on the ingest queue (taken or not by the stopped server's pending long poll,
    // which moto answers after the process is gone).
    let (visible, in_flight) = rt.block_on(queue_counts(&queue));
    assert_eq!(visible + in_flight, 1, "one job queued");

    let local = lore(dir.path(), &["--backend", "local", "reembed"]);
    assert!(!local.status.success());
    assert!(String::from_utf8_lossy(&local.stderr).contains("`lore serve` re-embeds at start"), "{local:?}");
}
