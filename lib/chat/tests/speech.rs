//! The speech adapter against a local OpenAI-compatible server over a socket: audio is taken up
//! to its cap and no further, and one deadline bounds every attempt together.

use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use lore_app::ports::{SpeechError, Synthesizer};
use lore_chat::speech::{OpenAiSpeech, SpeechConfig};
use lore_openai::Retries;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const MP3: &[u8] = b"ID3\x04\x00\x00\x00\x00\x00\x00 a spoken answer";
const HUNDRED_MB: usize = 100 * 1000 * 1000;
const PIECE: usize = 64 * 1024;

#[derive(Default)]
struct Seen {
    /// Attempts that reached the server.
    requests: AtomicUsize,
    /// Bytes of body the server has produced (handed to its connection).
    produced: AtomicUsize,
    /// The long answer's body was dropped: the connection is gone.
    dropped: AtomicBool,
    bodies: Mutex<Vec<(Option<String>, serde_json::Value)>>,
}

/// Counts what a streamed body produced, and says when it is dropped.
struct Counted(Arc<Seen>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.dropped.store(true, Ordering::SeqCst);
    }
}

/// `len` bytes in 64 KiB pieces, made only as the connection takes them.
fn endless(seen: Arc<Seen>, len: usize) -> Body {
    let guard = Counted(seen);
    let stream = futures::stream::unfold((guard, 0usize), move |(guard, sent)| async move {
        if sent >= len {
            return None;
        }
        let n = PIECE.min(len - sent);
        guard.0.produced.fetch_add(n, Ordering::SeqCst);
        Some((Ok::<_, std::io::Error>(Bytes::from(vec![0xFFu8; n])), (guard, sent + n)))
    });
    Body::from_stream(stream)
}

/// `/{mode}/v1/audio/speech`: `ok` answers MP3, `big` 100 MB of it, `trickle` one byte every
/// 100 ms without end, `busy` a 503 with a 100 MB body.
async fn speak(
    State(seen): State<Arc<Seen>>,
    Path(mode): Path<String>,
    headers: axum::http::HeaderMap,
    body: Bytes,
) -> Response {
    seen.requests.fetch_add(1, Ordering::SeqCst);
    let auth = headers.get("authorization").map(|v| v.to_str().unwrap().to_owned());
    seen.bodies.lock().unwrap().push((auth, serde_json::from_slice(&body).unwrap()));
    match mode.as_str() {
        "ok" => ([("content-type", "audio/mpeg")], MP3).into_response(),
        "big" => ([("content-type", "audio/mpeg")], endless(seen.clone(), HUNDRED_MB)).into_response(),
        "busy" => (StatusCode::SERVICE_UNAVAILABLE, endless(seen.clone(), HUNDRED_MB)).into_response(),
        _ => {
            let stream = futures::stream::unfold((), |()| async {
                // The server's pace, not the test's synchronisation.
                tokio::time::sleep(Duration::from_millis(100)).await;
                Some((Ok::<_, std::io::Error>(Bytes::from_static(b"\xFF")), ()))
            });
            ([("content-type", "audio/mpeg")], Body::from_stream(stream)).into_response()
        }
    }
}

async fn server() -> (String, Arc<Seen>) {
    let seen = Arc::new(Seen::default());
    let app = axum::Router::new().route("/{mode}/v1/audio/speech", axum::routing::post(speak)).with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (base, seen)
}

fn speech(base: &str, mode: &str, key: Option<&str>, max_bytes: usize, timeout: Duration) -> OpenAiSpeech {
    let mut config = SpeechConfig::new(&format!("{base}/{mode}/v1/"), key.map(str::to_owned), "tts-test");
    config.max_bytes = max_bytes;
    config.timeout = timeout;
    config.retries = Retries {
        max_retries: 2,
        initial_backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(1),
        max_retry_after: Duration::from_millis(1),
    };
    OpenAiSpeech::with_config(config).unwrap()
}

/// Polls until the server has dropped the body it was sending.
async fn until_dropped(seen: &Seen) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !seen.dropped.load(Ordering::SeqCst) {
        assert!(Instant::now() < deadline, "the server is still sending");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test]
async fn audio_within_the_cap_is_returned_as_sent_with_the_request_the_api_expects() {
    let (base, seen) = server().await;
    let keyed = speech(&base, "ok", Some("sk-test"), MP3.len(), Duration::from_secs(10));
    assert_eq!(keyed.describe(), format!("openai (model tts-test at {base}/ok/v1)"));
    assert_eq!(keyed.speak("Refunds take five days.", "nova", 1.5).await.unwrap(), MP3, "exactly the cap fits");
    let keyless = speech(&base, "ok", None, 1 << 20, Duration::from_secs(10));
    assert_eq!(keyless.speak("Hello", "alloy", 1.0).await.unwrap(), MP3);
    let bodies = seen.bodies.lock().unwrap().clone();
    assert_eq!(bodies[0].0.as_deref(), Some("Bearer sk-test"));
    assert_eq!(
        bodies[0].1,
        serde_json::json!({"model": "tts-test", "input": "Refunds take five days.", "voice": "nova",
            "response_format": "mp3", "speed": 1.5})
    );
    assert_eq!(bodies[1].0, None, "no Authorization header without a key");
}

#[tokio::test]
async fn audio_past_the_cap_is_refused_once_without_reading_the_rest() {
    let (base, seen) = server().await;
    let cap = 1 << 20;
    let err = speech(&base, "big", None, cap, Duration::from_secs(30)).speak("text", "nova", 1.0).await.unwrap_err();
    let SpeechError::Failed(why) = err else { panic!("{err:?}") };
    assert!(why.contains("larger than 1048576 bytes"), "{why}");
    assert_eq!(seen.requests.load(Ordering::SeqCst), 1, "too large is not retried");
    until_dropped(&seen).await;
    // What the connection took before it closed: the cap and the sockets' buffers, not 100 MB.
    let produced = seen.produced.load(Ordering::SeqCst);
    assert!(produced < 32 << 20, "the server produced {produced} bytes");
}

#[tokio::test]
async fn an_error_answer_is_read_only_in_its_first_bytes() {
    let (base, seen) = server().await;
    let err = speech(&base, "busy", None, 1 << 20, Duration::from_secs(30)).speak("text", "nova", 1.0).await;
    let Err(SpeechError::Failed(why)) = err else { panic!("{err:?}") };
    assert!(why.contains("503") && why.contains("gave up after 3 attempts"), "{why}");
    assert_eq!(seen.requests.load(Ordering::SeqCst), 3, "503 is retried");
    until_dropped(&seen).await;
    let produced = seen.produced.load(Ordering::SeqCst);
    assert!(produced < 3 * (32 << 20), "the server produced {produced} bytes for three 100 MB error bodies");
}

#[tokio::test]
async fn a_trickling_server_is_given_one_deadline_for_every_attempt_together() {
    let (base, seen) = server().await;
    let deadline = Duration::from_secs(2);
    let started = Instant::now();
    let err = speech(&base, "trickle", None, 1 << 20, deadline).speak("text", "nova", 1.0).await.unwrap_err();
    let elapsed = started.elapsed();
    let SpeechError::Failed(why) = err else { panic!("{err:?}") };
    assert!(why.contains("no audio within 2 s") && why.contains("LORE_SPEECH_TIMEOUT_SECS"), "{why}");
    assert!(elapsed >= deadline, "{elapsed:?}");
    // Each attempt alone may take the whole deadline; three of them, as before, would take 6 s.
    assert!(elapsed < deadline + Duration::from_millis(1500), "{elapsed:?}");
    assert!(seen.requests.load(Ordering::SeqCst) >= 1);
}
