//! The `lore` command line (docs/api.md §15). Commands that create something print its id or key
//! as their last stdout line, so scripts can take `| tail -n1`; everything else goes to stderr.

use crate::compose::{self, Backend, Overrides, Uses};
use crate::data_dir::dev_key_path;
use crate::serve::{self, ServeConfig};
use crate::settings::Settings;
use clap::{Args, Parser, Subcommand};
use lore_domain::api_key::KeyName;
use lore_domain::scope::ScopeSet;
use lore_domain::workspace::{LimitsPatch, Workspace, WorkspaceName};
use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(name = "lore", version, about = "Lore: knowledge bases, Minds and form webhooks over one HTTP API")]
pub struct Cli {
    /// Where the embedded backend keeps its database and files (and the dev key)
    /// [default: `LORE_DATA_DIR`, else .lore].
    #[arg(long, global = true)]
    pub data_dir: Option<PathBuf>,
    /// Which adapters serve the records, files, queues and index [default: `LORE_BACKEND`, else
    /// local].
    #[arg(long, global = true, value_enum)]
    pub backend: Option<Backend>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve every route group, the workers and the dispatcher in one process.
    Serve {
        /// Address to listen on [default: `LORE_ADDR`, else 127.0.0.1:3000].
        #[arg(long)]
        addr: Option<SocketAddr>,
    },
    /// Create, update and list workspaces.
    #[command(subcommand)]
    Workspaces(WorkspaceCommand),
    /// Create, list and revoke API keys.
    #[command(subcommand)]
    Keys(KeyCommand),
    /// Print the OpenAPI 3.1 document `lore serve` serves at /api/v1/openapi.json (for SDK
    /// generators and linters; needs no data dir).
    Openapi,
    /// Queue a processing run for every source whose chunks were made by another embedder or
    /// chunk size than the configured one (`LORE_EMBEDDER`, `LORE_CHUNK_*`); prints how many.
    /// For `--backend aws` after changing the stack's `Embedder`, run with the functions'
    /// settings; `lore serve` on the embedded backend does this itself at start.
    Reembed,
    /// Bring the storage schema up to date. On `--backend aws`: apply the pgvector migrations,
    /// build the keyword postings of chunks written before them (resumable; prints how many
    /// sources it built) and move the text of text sources stored inline on their DynamoDB items
    /// to items of their own (resumable). Run once after deploying a release that says so
    /// (docs/deploying-aws.md, "Upgrading a stack"). The embedded backend migrates itself when
    /// `lore serve` opens it.
    Migrate,
}

#[derive(Debug, Subcommand)]
pub enum WorkspaceCommand {
    /// Create a workspace; prints its id last.
    Create {
        #[arg(long)]
        name: String,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Change a workspace's name or limits.
    Update {
        /// Workspace id (`ws_…`) or name.
        workspace: String,
        /// A new name.
        #[arg(long)]
        name: Option<String>,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// List workspaces with their limits.
    List,
}

#[derive(Debug, Args)]
pub struct LimitArgs {
    /// Storage quota in bytes (default 1 GiB).
    #[arg(long)]
    storage_quota: Option<u64>,
    /// Most Minds in the workspace (default 10).
    #[arg(long)]
    minds_limit: Option<u32>,
    /// Most Mind knowledge sources in the workspace (default 500).
    #[arg(long)]
    sources_limit: Option<u32>,
    /// Most knowledge sources per Mind (default 100).
    #[arg(long)]
    mind_source_limit: Option<u32>,
    /// Requests per minute per key (default 600).
    #[arg(long)]
    rate_limit_per_minute: Option<u32>,
}

impl From<LimitArgs> for LimitsPatch {
    fn from(a: LimitArgs) -> Self {
        LimitsPatch {
            storage_quota_bytes: a.storage_quota,
            minds_limit: a.minds_limit,
            sources_limit: a.sources_limit,
            mind_source_limit: a.mind_source_limit,
            rate_limit_per_minute: a.rate_limit_per_minute,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum KeyCommand {
    /// Create a key; prints the key last. It is shown this once: only its hash is stored.
    Create {
        /// Workspace id (`ws_…`) or name.
        #[arg(long)]
        workspace: String,
        /// Comma-separated scopes, or `all`.
        #[arg(long)]
        scopes: String,
        /// A label to recognise the key by.
        #[arg(long)]
        name: Option<String>,
    },
    /// List keys (never their secrets).
    List {
        /// Only this workspace's keys (id or name).
        #[arg(long)]
        workspace: Option<String>,
    },
    /// Revoke a key by its id (`key_…`); running servers refuse it within 5 s.
    Revoke { id: String },
}

fn describe(ws: &Workspace) -> String {
    let l = ws.limits;
    format!(
        "{}  {}  storage-quota={} minds-limit={} sources-limit={} mind-source-limit={} rate-limit-per-minute={}",
        ws.id,
        ws.name.as_str(),
        l.storage_quota_bytes,
        l.minds_limit,
        l.sources_limit,
        l.mind_source_limit,
        l.rate_limit_per_minute
    )
}

/// Runs one parsed command to completion.
/// The use cases for an administrative command: the records only (no chunk index, no model).
async fn admin_app(settings: &Settings, data_dir: &std::path::Path) -> anyhow::Result<lore_app::App> {
    let public_base = settings.public_base_or("http://127.0.0.1:3000");
    Ok(compose::open_with(settings, data_dir, &public_base, &Overrides::default(), Uses::RecordsOnly).await?.app)
}

/// Flags win over the settings of the environment, which win over the defaults.
pub async fn run(cli: Cli) -> anyhow::Result<()> {
    let settings = Settings::from_env()?;
    let backend = cli.backend.unwrap_or(settings.backend);
    let data_dir = cli.data_dir.or_else(|| settings.data_dir.clone()).unwrap_or_else(|| PathBuf::from(".lore"));
    let mut settings = settings;
    settings.backend = backend;
    match cli.command {
        Command::Serve { addr } => serve(settings, data_dir, addr).await,
        Command::Openapi => {
            println!("{:#}", lore_http::openapi(&lore_http::RouteGroup::ALL));
            Ok(())
        }
        Command::Reembed => reembed(&settings, &data_dir).await,
        Command::Migrate => migrate(&settings, &data_dir).await,
        Command::Workspaces(cmd) => workspaces(cmd, admin_app(&settings, &data_dir).await?).await,
        Command::Keys(cmd) => keys(cmd, admin_app(&settings, &data_dir).await?).await,
    }
}

/// `lore serve`: starts, says where and how to sign in, serves until told to stop.
async fn serve(settings: Settings, data_dir: PathBuf, addr: Option<SocketAddr>) -> anyhow::Result<()> {
    let addr = addr.or(settings.addr).unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 3000)));
    let backend = settings.backend;
    let config = ServeConfig { addr, data_dir: data_dir.clone(), backend, overrides: Overrides::default() };
    let running = serve::start_with(settings, config).await?;
    println!("Lore is listening on http://{}", running.addr);
    println!("Conversations are answered by: {}", running.app.responder_description());
    println!("Spoken answers by: {}", running.app.speech_description());
    println!("Hybrid search re-ranked by: {}", running.app.reranker_description());
    match &running.new_dev_key {
        Some(key) => {
            println!("Created workspace 'default' and a dev API key with every scope:");
            println!("  {key}");
            println!("(saved to {}; it is not shown again)", dev_key_path(&data_dir).display());
        }
        None => println!("Dev API key: see {}", dev_key_path(&data_dir).display()),
    }
    println!(
        "Try: curl -H \"Authorization: Bearer $(cat {})\" http://{}/api/v1/chatbots",
        dev_key_path(&data_dir).display(),
        running.addr
    );
    println!("Console: http://{}/console (sign in with the key)", running.addr);
    running.wait_for_signal().await?;
    Ok(())
}

/// `lore reembed`: queues the sources embedded by another model than the current one.
async fn reembed(settings: &Settings, data_dir: &std::path::Path) -> anyhow::Result<()> {
    if settings.backend == Backend::Local {
        // Its job queue lives in the server's process: a run queued here would wait for the
        // lease to expire. The server re-embeds at start instead.
        anyhow::bail!("on the embedded backend `lore serve` re-embeds at start; `lore reembed` is for --backend aws");
    }
    let public_base = settings.public_base_or("http://127.0.0.1:3000");
    let app = compose::open_with(settings, data_dir, &public_base, &Overrides::default(), Uses::Everything).await?.app;
    let queued = app.reembed_other_models().await?;
    eprintln!("queued {queued} source(s) for re-embedding with {}", app.index_model());
    println!("{queued}");
    Ok(())
}

/// `lore migrate`: the embedded backend migrates by opening; AWS has its own steps.
async fn migrate(settings: &Settings, data_dir: &std::path::Path) -> anyhow::Result<()> {
    if settings.backend == Backend::Local {
        compose::open_with(settings, data_dir, "http://127.0.0.1:3000", &Overrides::default(), Uses::RecordsOnly)
            .await?;
        eprintln!("the embedded backend at {} is up to date", data_dir.display());
        println!("0");
    } else {
        println!("{}", migrate_aws(settings).await?);
    }
    Ok(())
}

/// `lore workspaces …`.
async fn workspaces(cmd: WorkspaceCommand, app: lore_app::App) -> anyhow::Result<()> {
    match cmd {
        WorkspaceCommand::Create { name, limits } => {
            let ws = app.create_workspace(WorkspaceName::parse(&name)?, limits.into()).await?;
            eprintln!("created {}", describe(&ws));
            println!("{}", ws.id);
        }
        WorkspaceCommand::Update { workspace, name, limits } => {
            let name = name.as_deref().map(WorkspaceName::parse).transpose()?;
            let ws = app.update_workspace(&workspace, name, limits.into()).await?;
            eprintln!("updated {}", describe(&ws));
            println!("{}", ws.id);
        }
        WorkspaceCommand::List => {
            for ws in app.list_workspaces().await? {
                println!("{}", describe(&ws));
            }
        }
    }
    Ok(())
}

/// `lore keys …`: a key's secret is printed once, at creation.
async fn keys(cmd: KeyCommand, app: lore_app::App) -> anyhow::Result<()> {
    match cmd {
        KeyCommand::Create { workspace, scopes, name } => {
            let scopes = ScopeSet::parse(&scopes)?;
            let name = name.as_deref().map(KeyName::parse).transpose()?;
            let issued = app.create_key(&workspace, scopes, name).await?;
            eprintln!(
                "created key {} in {} with scopes {} (shown once; only its hash is stored)",
                issued.key.id,
                issued.key.workspace_id,
                scopes.to_csv()
            );
            println!("{}", issued.secret.expose());
        }
        KeyCommand::List { workspace } => {
            for k in app.list_keys(workspace.as_deref()).await? {
                let state = match k.revoked_at {
                    Some(at) => format!("revoked {at}"),
                    None => "active".to_owned(),
                };
                let (name, scopes) = (k.name.as_str(), k.scopes.to_csv());
                println!("{}  {}  {name}  {scopes}  {}  {state}", k.id, k.workspace_id, k.created_at);
            }
        }
        KeyCommand::Revoke { id } => {
            app.revoke_key(&id).await?;
            eprintln!("revoked {id}");
        }
    }
    Ok(())
}

/// `lore migrate --backend aws`: the pgvector schema, the keyword postings of sources on the
/// backlog, and the text sources written before their text had an item of its own. Returns how
/// many sources' postings it built.
#[cfg(feature = "aws")]
async fn migrate_aws(settings: &Settings) -> anyhow::Result<u64> {
    let index = compose::open_index(settings).await?;
    eprintln!("pgvector schema up to date; building the keyword postings of older sources…");
    let built = index.build_keyword_backlog().await?;
    eprintln!("built the keyword postings of {built} source(s)");
    let sdk = lore_aws::load_sdk_config().await;
    let backend = lore_aws::AwsBackend::connect_with(&sdk, settings.aws.clone()).await?;
    let moved = backend.dynamo.move_inline_texts().await?;
    eprintln!("moved the text of {moved} text source(s) to its own item");
    Ok(built)
}

#[cfg(not(feature = "aws"))]
async fn migrate_aws(_: &Settings) -> anyhow::Result<u64> {
    anyhow::bail!(compose::AWS_NOT_BUILT)
}
