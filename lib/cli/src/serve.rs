//! `lore serve`: every route group, the ingest workers and the webhook dispatcher in one process,
//! on the embedded backend (default) or on AWS (`--backend aws`: the queues are consumed here).

use crate::compose;
use crate::data_dir::{dev_key_path, private_data_dir, write_private};
use crate::settings::Settings;
use lore_app::App;
use lore_http::RouteGroup;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

#[derive(Clone)]
pub struct ServeConfig {
    pub addr: SocketAddr,
    pub data_dir: PathBuf,
    pub backend: compose::Backend,
    pub overrides: compose::Overrides,
}

/// A running server: its address, the dev key it created (if it created one), and a way to stop.
pub struct Running {
    pub addr: SocketAddr,
    pub app: App,
    /// The embedded store (event outbox), when the backend is local.
    pub store: Option<std::sync::Arc<lore_local::SqliteStore>>,
    /// The AWS adapters, when the backend is aws.
    #[cfg(feature = "aws")]
    pub aws: Option<lore_aws::AwsBackend>,
    _workers: Option<crate::workers::Workers>,
    _dispatcher: Option<crate::workers::Workers>,
    _events: Option<crate::workers::Workers>,
    /// Set when this start created the dev key (empty data dir).
    pub new_dev_key: Option<String>,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<std::io::Result<()>>,
}

impl Running {
    /// Stops accepting, lets in-flight requests finish, and waits.
    pub async fn stop(mut self) -> std::io::Result<()> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        self.task.await.unwrap_or_else(|e| Err(std::io::Error::other(e)))
    }

    /// Serves until the process is told to stop (Ctrl-C or SIGTERM).
    pub async fn wait_for_signal(self) -> std::io::Result<()> {
        shutdown_signal().await;
        tracing::info!("shutting down");
        self.stop().await
    }
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(s) => s,
            Err(_) => {
                let _ = ctrl_c.await;
                return;
            }
        };
        tokio::select! { _ = ctrl_c => {}, _ = term.recv() => {} }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}

/// Creates workspace `default` and a key with every scope when the data dir has no dev key
/// yet, and writes the key to `<data-dir>/dev-key` (readable by the owner only).
pub async fn bootstrap_dev_key(app: &App, data_dir: &Path) -> anyhow::Result<Option<String>> {
    private_data_dir(data_dir)?;
    let path = dev_key_path(data_dir);
    if path.exists() {
        return Ok(None);
    }
    let issued = match app.bootstrap_default().await? {
        Some(k) => k,
        None => {
            let scopes = lore_domain::scope::ScopeSet::all();
            let name = lore_domain::api_key::KeyName::parse("dev key")?;
            app.create_key(lore_app::admin::DEFAULT_WORKSPACE, scopes, Some(name)).await?
        }
    };
    let secret = issued.secret.expose().to_owned();
    write_private(&path, format!("{secret}\n"))?;
    Ok(Some(secret))
}

/// [`start_with`] the settings of the environment.
pub async fn start(config: ServeConfig) -> anyhow::Result<Running> {
    start_with(Settings::from_env()?, config).await
}

/// Opens the backend, bootstraps the dev key, binds and starts serving in the background.
/// `config` says where (its backend and data dir win over `settings`').
pub async fn start_with(settings: Settings, config: ServeConfig) -> anyhow::Result<Running> {
    // Bind first: the public base URL defaults to the address actually bound (port 0 in tests).
    let listener =
        TcpListener::bind(config.addr).await.map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", config.addr))?;
    let addr = listener.local_addr()?;
    let mut settings = settings;
    settings.backend = config.backend;
    let public_base = settings.public_base_or(&format!("http://{addr}"));
    let mut composition =
        compose::open_with(&settings, &config.data_dir, &public_base, &config.overrides, compose::Uses::Everything)
            .await?;
    let app = composition.app.clone();
    let new_dev_key = bootstrap_dev_key(&app, &config.data_dir).await?;
    let workers = composition.jobs.take().map(|jobs| crate::workers::spawn(app.clone(), jobs));
    let dispatcher = composition.dispatch.clone().map(|signal| crate::workers::spawn_dispatcher(app.clone(), signal));
    #[cfg(feature = "aws")]
    let (workers, events) = match &composition.aws {
        // What the Lambda event sources do on AWS: consume the ingest and deliveries queues.
        Some(aws) => {
            let ingest = lore_aws::SqsPoller::new(aws.sqs.client().clone(), aws.sqs.queue_url());
            let url = aws.deliveries_queue_url().await.map_err(|e| anyhow::anyhow!("deliveries queue: {e}"))?;
            let deliveries = lore_aws::SqsPoller::new(aws.sqs.client().clone(), url);
            let signal = composition.dispatch.clone().unwrap_or_default();
            (
                Some(crate::workers::spawn_sqs(app.clone(), ingest)),
                Some(crate::workers::spawn_event_consumer(app.clone(), deliveries, signal)),
            )
        }
        None => (workers, None),
    };
    #[cfg(not(feature = "aws"))]
    let events: Option<crate::workers::Workers> = None;
    let router = lore_http::router(app.clone(), &RouteGroup::ALL);
    let (tx, rx) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        // Small writes go out at once: an answer streams its events as separate small writes, and
        // with Nagle's algorithm each waited for the client's delayed ACK (~40 ms a turn).
        let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
            if let Err(e) = tcp.set_nodelay(true) {
                tracing::debug!(error = %e, "TCP_NODELAY not set");
            }
        });
        // The peer address is the client address of public chat's per-address budget.
        axum::serve(listener, router.into_make_service_with_connect_info::<std::net::SocketAddr>())
            .with_graceful_shutdown(async {
                let _ = rx.await;
            })
            .await
    });
    Ok(Running {
        addr,
        app,
        store: composition.store,
        #[cfg(feature = "aws")]
        aws: composition.aws,
        _workers: workers,
        _dispatcher: dispatcher,
        _events: events,
        new_dev_key,
        shutdown: Some(tx),
        task,
    })
}
