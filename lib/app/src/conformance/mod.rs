//! Conformance suites for the ports: written once, run against every adapter family (embedded
//! and AWS), so both behave the same. Each suite panics with a message naming the broken rule.

use crate::ports::{BlobStore, EventBus, InsertLimits, Lease, SourceStore, VectorIndex};
use crate::ports::{ChatbotStore, KeyStore, RateLimiter, WorkspaceStore};
use lore_domain::Timestamp;
use lore_domain::chatbot::{Chatbot, NewChatbot};
use lore_domain::event::Event;
use lore_domain::id::EventId;
use lore_domain::id::{SourceId, WorkspaceId};
use lore_domain::slug::Slug;
use lore_domain::source::{KnowledgeSource, SourceOwner, SourceSpec, SourceStatus};
use lore_domain::workspace::{Workspace, WorkspaceLimits, WorkspaceName};
use std::sync::Arc;

mod actions;
mod answer_tests;
mod audit;
mod channels;
mod chatbots;
mod conversations;
mod files;
mod forms;
mod minds;
mod search;
mod slots;
mod sources;
mod webhooks;
mod workspaces;

pub use actions::{ActionStores, action_races, actions};
pub use answer_tests::{TestStores, answer_tests, test_run_claim, test_run_end, test_run_race};
pub use audit::{AuditStores, audit_log, audited_writes};
pub use channels::{ChannelStores, channel_races, channels};
pub use chatbots::{chatbot_slug_race, chatbots, published_chatbots};
pub use conversations::{analytics, conversations};
pub use files::{blob_streams, blobs};
pub use forms::forms;
pub use minds::{MindStores, mind_races, mind_sources, minds};
pub use search::{chunk_edits, chunk_index, chunk_languages, index_search};
pub use slots::{slot_expiry, slot_race, slots};
pub use sources::{processing_race, refresh_schedule, sources, uploads};
pub use webhooks::{deliveries, delivery_claim_race, delivery_erasure, hook_secret_rotation, hooks, hooks_limit_race};
pub use workspaces::{keys, rate_limiter, workspaces};

pub(super) fn workspace(name: &str) -> Workspace {
    Workspace {
        id: WorkspaceId::generate(),
        name: WorkspaceName::parse(name).unwrap(),
        limits: WorkspaceLimits::default(),
        created_at: Timestamp::now(),
    }
}

pub(super) fn chatbot(ws: &WorkspaceId, slug: &str, created_ms: i64) -> Chatbot {
    let new = NewChatbot::parse(Some("Bot"), None, Some("d")).unwrap();
    Chatbot::create(ws.clone(), new, Slug::parse("slug", slug).unwrap(), Timestamp::from_millis(created_ms))
}

pub(super) async fn new_workspace(p: &Stores, name: &str) -> Workspace {
    let ws = workspace(name);
    p.workspaces.insert_workspace(&ws).await.unwrap();
    ws
}

pub async fn chatbot_in_new_workspace(p: &Stores, name: &str) -> (Workspace, Chatbot) {
    let ws = workspace(name);
    p.workspaces.insert_workspace(&ws).await.unwrap();
    let bot = chatbot(&ws.id, "bot", 1_700_000_000_000);
    p.chatbots.insert_chatbot(&bot).await.unwrap();
    (ws, bot)
}

pub fn text_source(bot: &Chatbot, content: &str, created_ms: i64) -> KnowledgeSource {
    KnowledgeSource {
        id: SourceId::generate(),
        workspace_id: bot.workspace_id.clone(),
        owner: SourceOwner::Chatbot(bot.id.clone()),
        name: "t".into(),
        status: SourceStatus::Pending,
        spec: SourceSpec::Text { content: content.into() },
        created_at: Timestamp::from_millis(created_ms),
        updated_at: Timestamp::from_millis(created_ms),
        processed_at: None,
        chunk_count: 0,
        size_bytes: content.len() as u64,
        error: None,
        content_hash: None,
        progress: None,
        generation: 0,
        metadata: Default::default(),
    }
}

/// Limits of a chatbot source insert: only the storage quota applies.
pub fn quota(bytes: u64) -> InsertLimits {
    InsertLimits { storage_quota: bytes, workspace_sources: u32::MAX, mind_sources: u32::MAX }
}

pub(super) fn lease() -> Lease {
    Lease { owner: "conformance".into(), until: Timestamp::from_millis(Timestamp::now().millis() + 60_000) }
}

pub(super) async fn unfanned(p: &Stores, id: &EventId) -> Option<Event> {
    p.deliveries.unfanned_events(10_000).await.unwrap().into_iter().find(|e| &e.id == id)
}

/// The storage-side ports of one adapter family.
#[derive(Clone)]
pub struct Stores {
    pub workspaces: Arc<dyn WorkspaceStore>,
    pub keys: Arc<dyn KeyStore>,
    pub chatbots: Arc<dyn ChatbotStore>,
    pub rate_limiter: Arc<dyn RateLimiter>,
    pub sources: Arc<dyn SourceStore>,
    pub index: Arc<dyn VectorIndex>,
    pub blobs: Arc<dyn BlobStore>,
    pub events: Arc<dyn EventBus>,
    pub forms: Arc<dyn crate::ports::FormStore>,
    pub hooks: Arc<dyn crate::ports::HookStore>,
    pub deliveries: Arc<dyn crate::ports::DeliveryStore>,
}

/// Instantiates the conformance suites of one port family as tests: a module named after the
/// family with one `#[tokio::test]` per suite, each on fresh stores from `$make`, and one test
/// (`all_on_one_store`) that runs every suite of the family twice in a row on one store, the
/// way one deployment shares its stores. The suites are listed here only, so a new suite runs on
/// every backend that instantiates its family.
///
/// `$make` names an async fn in the calling module taking the suite's name and returning the
/// stores (`Stores`, `MindStores` for `minds`, `Arc<dyn SlotStore>` for `slots`, `AuditStores` for `audit`, `ActionStores` for `actions`, `ChannelStores` for `channels`) with whatever must live as long as they do
/// (a temp dir, a backend):
///
/// ```ignore
/// async fn stores(suite: &str) -> (Stores, tempfile::TempDir) { … }
/// lore_app::conformance_tests!(stores => records);
/// ```
#[macro_export]
macro_rules! conformance_tests {
    ($make:ident => records) => {
        $crate::conformance_tests!(@family records, $make;
            workspaces keys chatbots chatbot_slug_race published_chatbots rate_limiter sources processing_race refresh_schedule uploads
            forms hooks hooks_limit_race hook_secret_rotation deliveries delivery_claim_race delivery_erasure);
    };
    ($make:ident => files) => {
        $crate::conformance_tests!(@family files, $make; blobs blob_streams);
    };
    ($make:ident => search) => {
        $crate::conformance_tests!(@family search, $make; chunk_index index_search chunk_edits chunk_languages);
    };
    ($make:ident => minds) => {
        $crate::conformance_tests!(@family minds, $make; minds mind_races mind_sources conversations analytics);
    };
    ($make:ident => slots) => {
        $crate::conformance_tests!(@family slots, $make; slots slot_expiry slot_race);
    };
    ($make:ident => answer_tests) => {
        $crate::conformance_tests!(@family answer_tests, $make; answer_tests test_run_race test_run_claim test_run_end);
    };
    ($make:ident => actions) => {
        $crate::conformance_tests!(@family actions, $make; actions action_races);
    };
    ($make:ident => channels) => {
        $crate::conformance_tests!(@family channels, $make; channels channel_races);
    };
    ($make:ident => audit) => {
        $crate::conformance_tests!(@family audit, $make; audit_log audited_writes);
    };
    (@family $family:ident, $make:ident; $($suite:ident)*) => {
        mod $family {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $suite() {
                    let (stores, _keep) = super::$make(stringify!($suite)).await;
                    $crate::conformance::$suite(&stores, stringify!($suite)).await;
                }
            )*

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn all_on_one_store() {
                let (stores, _keep) = super::$make(concat!(stringify!($family), "-all")).await;
                for unique in ["one", "two"] {
                    $($crate::conformance::$suite(&stores, unique).await;)*
                }
            }
        }
    };
}
