//! Builds the use cases over a backend's adapters, once per process: the backend's module
//! (`local`, `aws`) returns its storage ports, `shared` builds the ports every backend shares,
//! and [`open_with`] assembles them into `lore_app::Ports` — the one place that does.

#[cfg(feature = "aws")]
mod aws;
#[cfg(feature = "aws")]
pub(crate) use aws::open_index;
mod local;
mod parts;
mod shared;

pub use crate::settings::Backend;
#[cfg(feature = "aws")]
pub use parts::AwsOverrides;
pub use parts::{Overrides, SharedPorts, StoragePorts, Uses};

use crate::settings::Settings;
use lore_app::{App, AppConfig, Ports};
use lore_local::{LocalSignal, SqliteStore};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A composed system: the use cases, and the jobs its queue hands to workers.
pub struct Composition {
    pub app: App,
    /// `Some` for the in-process queue: whoever runs workers takes it.
    pub jobs: Option<Arc<lore_local::FairQueue>>,
    /// The embedded store, for operators and tests (event outbox).
    pub store: Option<Arc<SqliteStore>>,
    /// Raised on every published event: whoever runs the in-process dispatcher waits on it.
    pub dispatch: Option<LocalSignal>,
    /// The AWS adapters, when the backend is `aws`: `lore serve` consumes their queues.
    #[cfg(feature = "aws")]
    pub aws: Option<lore_aws::AwsBackend>,
}

/// What a build without the `aws` feature says when asked for the AWS backend.
pub const AWS_NOT_BUILT: &str = "this lore was built without the AWS backend: build it with \
    `cargo build --release --features aws --bin lore` (the Lambda functions always have it)";

/// For the `main` of every binary built on this composition, first thing: when this process was
/// started as a document-parser child, parses one document and exits.
pub fn serve_extraction_child_if_requested() {
    lore_extract::serve_child_if_requested();
}

/// The composition `settings.backend` names over `data_dir` (the embedded backend's directory,
/// created when absent). `public_base` is where clients reach this server (`fileUrl`s are built
/// from it).
pub async fn open_with(
    settings: &Settings,
    data_dir: &Path,
    public_base: &str,
    overrides: &Overrides,
    uses: Uses,
) -> anyhow::Result<Composition> {
    match settings.backend {
        Backend::Local => embedded_with(settings, data_dir, public_base, overrides, uses),
        #[cfg(not(feature = "aws"))]
        Backend::Aws => anyhow::bail!(AWS_NOT_BUILT),
        #[cfg(feature = "aws")]
        Backend::Aws => {
            let ocr_wants_key = matches!(
                settings.app.extract_limits.ocr.map(|o| o.engine),
                Some(lore_app::ports::OcrEngine::OpenAi { api_key: None, .. })
            );
            let needs_key = overrides.embedder.is_none()
                || overrides.transcriber.is_none()
                || overrides.responder.is_none()
                || overrides.speech.is_none()
                || ocr_wants_key;
            let aws = aws::storage(settings, overrides.aws.as_ref(), public_base, uses, needs_key).await?;
            let keys = &aws.keys;
            let shared =
                shared::shared(settings, overrides, uses, keys.openai_key.as_deref(), keys.rerank_key.as_deref())?;
            let signal = LocalSignal::new();
            let app = assemble(settings, overrides, aws.ports, shared, &signal, keys.openai_key.as_deref());
            Ok(Composition { app, jobs: None, store: None, dispatch: Some(signal), aws: Some(aws.backend) })
        }
    }
}

fn embedded_with(
    settings: &Settings,
    data_dir: &Path,
    public_base: &str,
    overrides: &Overrides,
    uses: Uses,
) -> anyhow::Result<Composition> {
    let signal = LocalSignal::new();
    let local = local::storage(settings, data_dir, public_base, &signal)?;
    let shared = shared::shared(settings, overrides, uses, None, None)?;
    let app = assemble(settings, overrides, local.ports, shared, &signal, None);
    Ok(Composition {
        app,
        jobs: Some(local.jobs),
        store: Some(local.store),
        dispatch: Some(signal),
        #[cfg(feature = "aws")]
        aws: None,
    })
}

/// The one place the ports come together. `signal` wakes an in-process dispatcher at once when
/// a delivery is due; on Lambda nobody listens (the dispatcher function runs on its queue and
/// schedule). `openai_key`: the key a backend read from its secret store.
fn assemble(
    settings: &Settings,
    overrides: &Overrides,
    storage: StoragePorts,
    shared: SharedPorts,
    signal: &LocalSignal,
    openai_key: Option<&str>,
) -> App {
    let ports = Ports { storage, shared, dispatch_signal: Arc::new(signal.clone()) };
    App::new(ports, config(settings, overrides, openai_key))
}

/// The use cases' settings with the caller's overrides applied; text recognition by a vision
/// model gets the secret store's key when the environment gave none.
fn config(settings: &Settings, overrides: &Overrides, openai_key: Option<&str>) -> AppConfig {
    let mut config = settings.app.clone();
    config.extract_limits.ocr = config.extract_limits.ocr.map(|o| o.with_api_key_if_missing(openai_key));
    if let Some(schedule) = &overrides.webhook_retry_schedule {
        config.webhook_retry_schedule = schedule.clone();
    }
    if let Some(limit) = overrides.max_hooks_per_workspace {
        config.max_hooks_per_workspace = limit;
    }
    if let Some(limit) = overrides.max_keys_per_workspace {
        config.max_keys_per_workspace = limit.max(1);
    }
    if let Some(timeout) = overrides.test_run_timeout {
        config.test_run_timeout = timeout;
    }
    if let Some(timeout) = overrides.action_timeout {
        config.action_timeout = timeout;
    }
    if let Some(kept) = overrides.max_revoked_keys_per_workspace {
        config.max_revoked_keys_per_workspace = kept;
    }
    if let Some(timeout) = overrides.webhook_timeout {
        config.webhook_timeout = timeout;
    }
    if let Some(limit) = overrides.public_chat_per_mind_per_minute {
        config.public_chat_per_mind_per_minute = limit.max(1);
    }
    if let Some(ocr) = overrides.ocr {
        config.extract_limits.ocr = Some(ocr);
    }
    config
}

/// [`open_with`] for `backend`, every port, the settings of the environment.
pub async fn open(
    backend: Backend,
    data_dir: &Path,
    public_base: &str,
    overrides: &Overrides,
) -> anyhow::Result<Composition> {
    let mut settings = Settings::from_env()?;
    settings.backend = backend;
    open_with(&settings, data_dir, public_base, overrides, Uses::Everything).await
}

/// The embedded composition over `data_dir` with the settings of the environment (tests and
/// tools that work on a data dir directly).
pub fn embedded(data_dir: &Path, public_base: &str, overrides: &Overrides) -> anyhow::Result<Composition> {
    embedded_with(&Settings::from_env()?, data_dir, public_base, overrides, Uses::Everything)
}

/// The composition of a Lambda function, from its environment: `LORE_BACKEND` (default
/// `local`) and `LORE_DATA_DIR` (default `/tmp/lore`, the writable path on Lambda). Must run
/// inside the Tokio runtime: an in-process queue gets its workers here. With `aws`, the queues
/// trigger the worker functions instead and nothing runs in the background.
pub async fn from_env(uses: Uses) -> anyhow::Result<App> {
    let settings = Settings::from_env()?;
    let data_dir = settings.data_dir.clone().unwrap_or_else(|| PathBuf::from("/tmp/lore"));
    let public_base = settings.public_base_or("http://localhost:3000");
    let mut c = open_with(&settings, &data_dir, &public_base, &Overrides::default(), uses).await?;
    if let Some(jobs) = c.jobs.take() {
        // They serve for the life of the execution environment; dropping the handle would
        // abort them at once.
        std::mem::forget(crate::workers::spawn(c.app.clone(), jobs));
    }
    // No webhook dispatcher here: in AWS it is its own function (`webhook-dispatcher`); with
    // the embedded backend `lore serve` runs it.
    Ok(c.app)
}
