//! The OpenAI provider against a stub OpenAI-compatible transcription server on 127.0.0.1.

mod support;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Multipart, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use lore_domain::audio::AudioFormat;
use lore_transcribe::{AudioClip, OpenAiTranscriber, OpenAiTranscriberConfig, TranscribeError, Transcriber};
use serde_json::json;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use support::*;

const KEY: &str = "sk-test-5ecret-Key";

// ---------------------------------------------------------------- the stub server

#[derive(Clone, Debug)]
enum Reply {
    /// `{"text": "<file name>", "usage": …}`; the first piece (`…part01…`) answers after a delay so
    /// that pieces finish out of order.
    Transcribe,
    /// 200 with a body that is not JSON.
    NotJson,
    /// 200 with JSON lacking `text`.
    NoText,
    /// An error status with a body and extra headers.
    Error { status: u16, body: String, headers: Vec<(&'static str, &'static str)> },
}

fn error(status: u16, message: &str) -> Reply {
    let body = json!({"error": {"message": message, "type": "invalid_request_error", "param": null, "code": null}});
    Reply::Error { status, body: body.to_string(), headers: vec![] }
}

#[derive(Debug, Clone)]
struct Recorded {
    path: String,
    authorization: Option<String>,
    model: Option<String>,
    file_name: Option<String>,
    file: Vec<u8>,
    /// Names of the other form fields.
    other_fields: Vec<String>,
}

#[derive(Default)]
struct StubState {
    requests: Mutex<Vec<Recorded>>,
    script: Mutex<VecDeque<Reply>>,
    fallback: Option<Reply>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
}

#[derive(Clone)]
struct Stub {
    state: Arc<StubState>,
    base_url: String,
}

impl Stub {
    /// A stub replying `script` in order, then `fallback` (default: transcriptions).
    async fn start(script: Vec<Reply>, fallback: Option<Reply>) -> Self {
        let state = Arc::new(StubState { script: Mutex::new(script.into()), fallback, ..Default::default() });
        let app = Router::new()
            .route("/v1/audio/transcriptions", post(transcriptions))
            .layer(DefaultBodyLimit::max(64 * 1024 * 1024))
            .with_state(state.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self { state, base_url: format!("http://{addr}/v1") }
    }

    fn requests(&self) -> Vec<Recorded> {
        self.state.requests.lock().unwrap().clone()
    }

    fn transcriber(&self, limit: usize) -> OpenAiTranscriber {
        OpenAiTranscriber::new(test_config(&self.base_url, limit)).unwrap()
    }
}

fn test_config(base_url: &str, limit: usize) -> OpenAiTranscriberConfig {
    OpenAiTranscriberConfig {
        base_url: base_url.to_owned(),
        max_request_bytes: limit,
        max_retries: 3,
        initial_backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(4),
        request_timeout: Duration::from_secs(20),
        ..OpenAiTranscriberConfig::new(Some(KEY.to_owned()))
    }
}

async fn transcriptions(
    State(state): State<Arc<StubState>>,
    uri: Uri,
    headers: HeaderMap,
    mut form: Multipart,
) -> Response {
    let now = state.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    state.max_in_flight.fetch_max(now, Ordering::SeqCst);
    let mut recorded = Recorded {
        path: uri.path().to_owned(),
        authorization: headers.get("authorization").and_then(|v| v.to_str().ok()).map(str::to_owned),
        model: None,
        file_name: None,
        file: vec![],
        other_fields: vec![],
    };
    while let Some(field) = form.next_field().await.unwrap() {
        match field.name().unwrap_or_default() {
            "model" => recorded.model = Some(field.text().await.unwrap()),
            "file" => {
                recorded.file_name = field.file_name().map(str::to_owned);
                recorded.file = field.bytes().await.unwrap().to_vec();
            }
            other => recorded.other_fields.push(other.to_owned()),
        }
    }
    let reply = {
        let mut script = state.script.lock().unwrap();
        script.pop_front().or_else(|| state.fallback.clone()).unwrap_or(Reply::Transcribe)
    };
    let name = recorded.file_name.clone().unwrap_or_default();
    if matches!(reply, Reply::Transcribe) && name.contains("part01") {
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    state.requests.lock().unwrap().push(recorded);
    state.in_flight.fetch_sub(1, Ordering::SeqCst);
    match reply {
        Reply::Transcribe => {
            let body = json!({"text": format!(" <{name}> "), "usage": {"type": "duration", "seconds": 1}});
            (StatusCode::OK, [("content-type", "application/json")], body.to_string()).into_response()
        }
        Reply::NotJson => (StatusCode::OK, "<html>gateway</html>").into_response(),
        Reply::NoText => (StatusCode::OK, [("content-type", "application/json")], "{\"words\": []}").into_response(),
        Reply::Error { status, body, headers } => {
            let mut response = (StatusCode::from_u16(status).unwrap(), body).into_response();
            for (name, value) in headers {
                response.headers_mut().insert(name, value.parse().unwrap());
            }
            response
        }
    }
}

fn clip(name: &str, format: AudioFormat, file_name: &str) -> AudioClip {
    AudioClip { bytes: fixture(name), format, file_name: file_name.to_owned() }
}

async fn transcribe(
    transcriber: &OpenAiTranscriber,
    clip: AudioClip,
) -> (Result<String, TranscribeError>, Vec<(usize, usize)>) {
    let progress = Mutex::new(Vec::new());
    let result = transcriber.transcribe(clip, &|done, total| progress.lock().unwrap().push((done, total))).await;
    (result.map(|t| t.text), progress.into_inner().unwrap())
}

// ---------------------------------------------------------------- requests

#[tokio::test]
async fn a_small_file_is_one_request_with_the_model_key_and_a_named_file() {
    let stub = Stub::start(vec![], None).await;
    let transcriber = stub.transcriber(24_000_000);
    assert_eq!(transcriber.model_id(), "whisper-1");
    // The extension comes from the content, not from the uploaded name.
    let bytes = fixture("tone-id3.mp3");
    let clip = AudioClip { bytes: bytes.clone(), format: AudioFormat::Mp3, file_name: "uploads/My Show #3.bin".into() };
    let transcript = transcriber.transcribe(clip, &|_, _| {}).await.unwrap();
    assert_eq!(transcript.text, "<My Show _3.mp3>");
    assert_eq!(transcript.pieces, 1);

    let requests = stub.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(request.path, "/v1/audio/transcriptions");
    assert_eq!(request.authorization.as_deref(), Some(format!("Bearer {KEY}").as_str()));
    assert_eq!(request.model.as_deref(), Some("whisper-1"));
    assert_eq!(request.file_name.as_deref(), Some("My Show _3.mp3"));
    assert_eq!(request.file, bytes, "a file within the limit is sent untouched");
    assert!(request.other_fields.is_empty(), "{:?}", request.other_fields);
}

#[tokio::test]
async fn a_file_over_the_limit_is_sent_in_valid_pieces_joined_in_order() {
    for (name, format, limit, pieces) in [
        ("tone.wav", AudioFormat::Wav, 5000, 4),
        ("tone.mp3", AudioFormat::Mp3, 4000, 4),
        ("tone.opus.ogg", AudioFormat::Ogg, 2000, 4),
    ] {
        let stub = Stub::start(vec![], None).await;
        let (text, progress) = transcribe(&stub.transcriber(limit), clip(name, format, "episode.x")).await;
        let ext = format.extension();
        let expected: Vec<String> = (1..=pieces).map(|i| format!("<episode-part{i:02}.{ext}>")).collect();
        assert_eq!(text.unwrap(), expected.join(" "), "{name}: texts joined in piece order");

        let requests = stub.requests();
        assert_eq!(requests.len(), pieces, "{name}");
        for request in &requests {
            assert!(request.file.len() <= limit, "{name}: a piece of {} bytes", request.file.len());
            assert_valid_piece(&request.file, format);
            assert_eq!(request.model.as_deref(), Some("whisper-1"));
        }
        // Two pieces were in flight at once, never more; the delayed first piece finished after
        // the second, and its text still comes first.
        assert_eq!(stub.state.max_in_flight.load(Ordering::SeqCst), 2, "{name}");
        let finished: Vec<String> = requests.iter().map(|r| r.file_name.clone().unwrap()).collect();
        assert_eq!(finished[..2], [format!("episode-part02.{ext}"), format!("episode-part01.{ext}")], "{name}");
        assert_eq!(progress, (1..=pieces).map(|done| (done, pieces)).collect::<Vec<_>>(), "{name}");
    }
}

#[tokio::test]
async fn wav_pieces_carry_all_samples_in_order() {
    let stub = Stub::start(vec![], None).await;
    let (text, _) = transcribe(&stub.transcriber(3000), clip("tone.wav", AudioFormat::Wav, "tone.wav")).await;
    assert!(text.is_ok());
    let mut requests = stub.requests();
    requests.sort_by(|a, b| a.file_name.cmp(&b.file_name));
    let joined: Vec<u8> = requests.iter().flat_map(|r| wav_samples(&r.file)).collect();
    assert_eq!(joined, wav_samples(&fixture("tone.wav")));
}

#[tokio::test]
async fn an_m4a_over_the_limit_fails_before_any_request() {
    let stub = Stub::start(vec![], None).await;
    let (result, _) = transcribe(&stub.transcriber(5000), clip("tone.m4a", AudioFormat::M4a, "talk.m4a")).await;
    let err = result.unwrap_err();
    assert!(matches!(&err, TranscribeError::TooLarge(m) if m.contains("convert it to MP3")), "{err}");
    assert!(stub.requests().is_empty());
}

#[tokio::test]
async fn a_keyless_server_gets_no_authorization_header() {
    let stub = Stub::start(vec![], None).await;
    let config = OpenAiTranscriberConfig { api_key: None, ..test_config(&stub.base_url, 24_000_000) };
    let transcriber = OpenAiTranscriber::new(config).unwrap();
    transcriber.transcribe(clip("tone.ogg", AudioFormat::Ogg, "a.ogg"), &|_, _| {}).await.unwrap();
    assert_eq!(stub.requests()[0].authorization, None);
}

#[tokio::test]
async fn the_model_and_a_trailing_slash_are_honoured() {
    let stub = Stub::start(vec![], None).await;
    let config = OpenAiTranscriberConfig {
        base_url: format!("{}/", stub.base_url),
        model: "gpt-4o-mini-transcribe".into(),
        ..test_config(&stub.base_url, 24_000_000)
    };
    let transcriber = OpenAiTranscriber::new(config).unwrap();
    transcriber.transcribe(clip("tone.wav", AudioFormat::Wav, "a.wav"), &|_, _| {}).await.unwrap();
    assert_eq!(stub.requests()[0].model.as_deref(), Some("gpt-4o-mini-transcribe"));
}

// ---------------------------------------------------------------- retries and errors

#[tokio::test]
async fn rate_limits_are_retried_until_success() {
    let limited = Reply::Error { status: 429, body: "slow down".into(), headers: vec![] };
    let stub = Stub::start(vec![limited.clone(), limited], None).await;
    let (text, _) = transcribe(&stub.transcriber(24_000_000), clip("tone.mp3", AudioFormat::Mp3, "a.mp3")).await;
    assert_eq!(text.unwrap(), "<a.mp3>");
    let requests = stub.requests();
    assert_eq!(requests.len(), 3);
    assert!(requests.iter().all(|r| r.file == fixture("tone.mp3")), "each retry re-sends the same audio");
}

#[tokio::test]
async fn retry_after_replaces_the_backoff() {
    // A backoff of an hour: only the server's `Retry-After: 0` lets this finish.
    let limited = Reply::Error { status: 429, body: "slow down".into(), headers: vec![("retry-after", "0")] };
    let stub = Stub::start(vec![limited], None).await;
    let config = OpenAiTranscriberConfig {
        initial_backoff: Duration::from_secs(3600),
        max_backoff: Duration::from_secs(3600),
        ..test_config(&stub.base_url, 24_000_000)
    };
    let transcriber = OpenAiTranscriber::new(config).unwrap();
    let run = transcriber.transcribe(clip("tone.wav", AudioFormat::Wav, "a.wav"), &|_, _| {});
    let result = tokio::time::timeout(Duration::from_secs(30), run).await;
    assert!(result.expect("Retry-After was not honoured").is_ok());
    assert_eq!(stub.requests().len(), 2);
}

#[tokio::test]
async fn a_bad_request_is_a_clear_error_and_not_retried() {
    let stub = Stub::start(vec![], Some(error(400, "Invalid file format. Supported formats: ['mp3', 'wav']"))).await;
    let (result, progress) =
        transcribe(&stub.transcriber(24_000_000), clip("tone.ogg", AudioFormat::Ogg, "a.ogg")).await;
    let err = result.unwrap_err();
    assert!(
        matches!(&err, TranscribeError::Rejected(m) if m.contains("400") && m.contains("Invalid file format")),
        "{err:?}"
    );
    assert!(err.to_string().starts_with("transcription failed: "), "{err}");
    assert!(!err.is_transient());
    assert_eq!(stub.requests().len(), 1);
    assert!(progress.is_empty());
}

#[tokio::test]
async fn a_failing_piece_fails_the_whole_file() {
    let stub = Stub::start(vec![Reply::Transcribe], Some(error(400, "audio too short"))).await;
    let (result, _) = transcribe(&stub.transcriber(4000), clip("tone.mp3", AudioFormat::Mp3, "a.mp3")).await;
    assert!(matches!(result, Err(TranscribeError::Rejected(m)) if m.contains("audio too short")));
}

#[tokio::test]
async fn too_large_from_the_server_says_to_lower_the_limit() {
    let stub = Stub::start(vec![], Some(error(413, "Maximum content size limit exceeded"))).await;
    let (result, _) = transcribe(&stub.transcriber(24_000_000), clip("tone.wav", AudioFormat::Wav, "a.wav")).await;
    let err = result.unwrap_err();
    assert!(
        matches!(&err, TranscribeError::TooLarge(m) if m.contains("LORE_TRANSCRIPTION_MAX_REQUEST_BYTES")),
        "{err:?}"
    );
    assert_eq!(stub.requests().len(), 1);
}

#[tokio::test]
async fn server_errors_exhaust_the_retries() {
    let failing = Reply::Error { status: 503, body: "overloaded".into(), headers: vec![] };
    let stub = Stub::start(vec![], Some(failing)).await;
    let (result, _) = transcribe(&stub.transcriber(24_000_000), clip("tone.wav", AudioFormat::Wav, "a.wav")).await;
    let err = result.unwrap_err();
    assert!(
        matches!(&err, TranscribeError::Unavailable(m) if m.contains("503") && m.contains("4 attempts")),
        "{err:?}"
    );
    assert!(err.is_transient());
    assert_eq!(stub.requests().len(), 4, "max_retries (3) + 1");
}

#[tokio::test]
async fn insufficient_quota_is_not_retried() {
    let body = json!({"error": {"message": "You exceeded your current quota", "type": "insufficient_quota"}});
    let stub = Stub::start(vec![], Some(Reply::Error { status: 429, body: body.to_string(), headers: vec![] })).await;
    let (result, _) = transcribe(&stub.transcriber(24_000_000), clip("tone.wav", AudioFormat::Wav, "a.wav")).await;
    assert!(matches!(result, Err(TranscribeError::Rejected(m)) if m.contains("quota")));
    assert_eq!(stub.requests().len(), 1);
}

#[tokio::test]
async fn malformed_answers_are_rejected() {
    for reply in [Reply::NotJson, Reply::NoText] {
        let stub = Stub::start(vec![], Some(reply.clone())).await;
        let (result, _) = transcribe(&stub.transcriber(24_000_000), clip("tone.wav", AudioFormat::Wav, "a.wav")).await;
        let err = result.unwrap_err();
        assert!(
            matches!(&err, TranscribeError::Rejected(m) if m.contains("not in the OpenAI format")),
            "{reply:?}: {err}"
        );
        assert_eq!(stub.requests().len(), 1, "{reply:?}");
    }
}

#[tokio::test]
async fn errors_never_contain_the_key() {
    // A server that echoes the key back in its error message.
    let echo = error(401, &format!("Incorrect API key provided: {KEY}"));
    let stub = Stub::start(vec![], Some(echo)).await;
    let (result, _) = transcribe(&stub.transcriber(24_000_000), clip("tone.wav", AudioFormat::Wav, "a.wav")).await;
    let err = result.unwrap_err();
    assert!(matches!(err, TranscribeError::Rejected(_)));
    for text in [err.to_string(), format!("{err:?}")] {
        assert!(!text.contains(KEY), "{text}");
        assert!(text.contains("Incorrect API key provided: <redacted>"), "{text}");
    }
    assert!(!format!("{:?}", stub.transcriber(1)).contains(KEY));
}

/// A TCP server that accepts connections and closes them at once; returns its base URL and the
/// count of accepted connections.
async fn closing_server() -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let counter = accepted.clone();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            drop(socket);
        }
    });
    (format!("http://{addr}/v1"), accepted)
}

#[tokio::test]
async fn connections_closed_without_an_answer_are_retried_then_unavailable() {
    let (base_url, accepted) = closing_server().await;
    let config = OpenAiTranscriberConfig { max_retries: 2, ..test_config(&base_url, 24_000_000) };
    let transcriber = OpenAiTranscriber::new(config).unwrap();
    let (result, _) = transcribe(&transcriber, clip("tone.wav", AudioFormat::Wav, "a.wav")).await;
    let err = result.unwrap_err();
    assert!(
        matches!(&err, TranscribeError::Unavailable(m) if m.contains("transport") && m.contains("3 attempts")),
        "{err:?}"
    );
    assert_eq!(accepted.load(Ordering::SeqCst), 3);
}

// ---------------------------------------------------------------- configuration

#[tokio::test]
async fn the_environment_without_a_key_gives_no_transcriber_and_with_one_a_working_one() {
    assert!(lore_transcribe::transcriber_from_lookup(|_| None).unwrap().is_none());
    let stub = Stub::start(vec![], None).await;
    let base_url = stub.base_url.clone();
    let transcriber = lore_transcribe::transcriber_from_lookup(move |name| match name {
        "OPENAI_API_KEY" => Some(KEY.to_owned()),
        "LORE_TRANSCRIPTION_BASE_URL" => Some(base_url.clone()),
        "LORE_TRANSCRIPTION_MODEL" => Some("whisper-large-v3".to_owned()),
        _ => None,
    })
    .unwrap()
    .expect("a transcriber");
    let transcript = transcriber.transcribe(clip("tone.mp3", AudioFormat::Mp3, "x.mp3"), &|_, _| {}).await.unwrap();
    assert_eq!(transcript.text, "<x.mp3>");
    assert_eq!(stub.requests()[0].model.as_deref(), Some("whisper-large-v3"));
}
