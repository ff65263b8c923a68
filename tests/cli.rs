//! The `lore` binary as a user runs it: workspaces, keys, and `lore serve` on the same data dir.

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const LORE: &str = env!("CARGO_BIN_EXE_lore");

fn lore(data_dir: &Path, args: &[&str]) -> Output {
    Command::new(LORE).arg("--data-dir").arg(data_dir).args(args).env("RUST_LOG", "warn").output().expect("lore runs")
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
    let mut child = Command::new(LORE)
        .arg("--data-dir")
        .arg(data_dir)
        .args(["serve", "--addr", "127.0.0.1:0"])
        .env("RUST_LOG", "warn")
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
        let line = rx.recv_timeout(Duration::from_secs(30)).expect("lore serve prints its banner");
        let done = line.starts_with("Try:");
        lines.push(line);
        if done {
            break;
        }
    }
    let base = lines.iter().find_map(|l| l.strip_prefix("Lore is listening on ")).expect("listening line").to_owned();
    Server { child, base, lines }
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
    let server = serve(dir.path());
    let key = std::fs::read_to_string(dir.path().join("dev-key")).unwrap().trim().to_owned();
    assert!(key.starts_with("lore_sk_"));
    assert!(server.lines.iter().any(|l| l.trim() == key), "the new key is printed: {:?}", server.lines);
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
    assert_eq!(verify["key"]["scopes"].as_array().unwrap().len(), 10);
    drop(server);

    // A restart keeps the data dir's key and does not print or create another.
    let again = serve(dir.path());
    assert!(!again.lines.iter().any(|l| l.contains("lore_sk_")), "{:?}", again.lines);
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
