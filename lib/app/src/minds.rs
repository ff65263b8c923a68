//! Mind use cases (docs/api.md §8): create, list with usage, read, partial update, delete,
//! publish, and the public page's lookup.
//!
//! Limits are read from the workspace record at each call, not from the (briefly cached) key,
//! so a limit changed with `lore workspaces update` applies and is reported at once.

use crate::audit::mind_fields;
use crate::auth::Principal;
use crate::chatbots::slug_taken;
use crate::ports::StoreError;
use crate::ports::{MindInsert, RevisedWrite};
use crate::{App, AppError};
use lore_domain::Timestamp;
use lore_domain::audit::{AuditAction, AuditDetails};
use lore_domain::chatbot::SlugChoice;
use lore_domain::id::MindId;
use lore_domain::mind::{Mind, MindPatch, NewMind};
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::slug::Slug;
use lore_domain::source::SourceOwner;
use lore_domain::workspace::Workspace;
use lore_domain::{DomainError, ErrorCode};

/// How many `-N` alternatives a generated slug tries before giving up.
const MAX_SLUG_ATTEMPTS: u32 = 1_000;
/// How often a partial update is re-applied when concurrent writes keep coming first.
pub(crate) const MAX_WRITE_ATTEMPTS: usize = 32;

/// A workspace's Mind limits and what it uses of them (`usage` of the list).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MindsUsage {
    pub minds_used: u64,
    pub minds_limit: u32,
    pub sources_used: u64,
    pub sources_limit: u32,
}

/// A page of Minds and the workspace's usage.
#[derive(Debug, Clone, PartialEq)]
pub struct MindListing {
    pub page: Page<Mind>,
    pub usage: MindsUsage,
}

/// A Mind with what its detail reports besides its own fields.
#[derive(Debug, Clone, PartialEq)]
pub struct MindDetail {
    pub mind: Mind,
    /// Knowledge sources this Mind may have (the workspace's `mindSourceLimit`).
    pub source_limit: u32,
    /// Its conversations created in the last 30 days.
    pub recent_conversations: u64,
}

/// The answer to publish: the Mind, and a warning when it has no ready knowledge source.
#[derive(Debug, Clone, PartialEq)]
pub struct Publication {
    pub mind: Mind,
    pub warning: Option<String>,
}

fn public_slug_taken(slug: &Slug) -> AppError {
    let mut e = DomainError::new(
        ErrorCode::SlugTaken,
        format!("the public address /m/{slug} belongs to another published Mind; give this Mind another slug"),
    );
    e.fields.insert("slug".into(), "is the public address of another published Mind".into());
    AppError::Rejected(e)
}

/// Maps a refused write of `mind` to the contract's codes.
fn write_error(e: StoreError, mind: &Mind) -> AppError {
    match e {
        StoreError::Conflict("slug") => slug_taken(mind.slug.as_str()),
        StoreError::Conflict("public_slug") => public_slug_taken(&mind.slug),
        e => e.into(),
    }
}

fn minds_limit_reached(used: u64, limit: u32) -> AppError {
    AppError::Rejected(DomainError::new(
        ErrorCode::MindsLimitReached,
        format!("this workspace has {used} Minds and its mindsLimit is {limit}; delete a Mind or raise the limit"),
    ))
}

pub(crate) fn too_contended() -> AppError {
    AppError::Storage("a Mind or chatbot kept changing under concurrent updates".into())
}

impl App {
    /// The caller's workspace as stored now (limits included).
    pub(crate) async fn current_workspace(&self, p: &Principal) -> Result<Workspace, AppError> {
        self.workspace(p.workspace_id()).await
    }

    async fn detail(&self, mind: Mind, ws: &Workspace) -> Result<MindDetail, AppError> {
        let recent_conversations = self.recent_conversations(&ws.id, &SourceOwner::Mind(mind.id.clone())).await?;
        Ok(mind_detail(mind, ws, recent_conversations))
    }

    /// Creates a Mind with the contract's defaults, within the workspace's `mindsLimit`.
    pub async fn create_mind(&self, p: &Principal, new: NewMind) -> Result<MindDetail, AppError> {
        let ws = self.current_workspace(p).await?;
        let limit = ws.limits.minds_limit;
        let (base, generated) = match new.slug.clone() {
            SlugChoice::Explicit(s) => (s, false),
            SlugChoice::Generated(s) => (s, true),
        };
        let mut mind = Mind::create(ws.id.clone(), new, base.clone(), Timestamp::now());
        for n in 1..=MAX_SLUG_ATTEMPTS {
            mind.slug = base.with_suffix(n);
            let details = AuditDetails::new().text("name", mind.name.as_str()).text("slug", mind.slug.as_str());
            let entry = Self::audit_entry(p, AuditAction::MindCreated, mind.id.as_str(), details);
            match self.ports.storage.minds.insert_mind_recorded(&mind, limit, Some(&entry)).await {
                Ok(MindInsert::Inserted) => return self.detail(mind, &ws).await,
                Ok(MindInsert::LimitReached { used }) => return Err(minds_limit_reached(used, limit)),
                Err(StoreError::Conflict("slug")) if generated => continue,
                Err(e) => return Err(write_error(e, &mind)),
            }
        }
        Err(slug_taken(base.as_str()))
    }

    /// A page of the workspace's Minds, newest first, with the workspace's usage.
    pub async fn list_minds(&self, p: &Principal, page: PageRequest) -> Result<MindListing, AppError> {
        let ws = self.current_workspace(p).await?;
        let page = self.ports.storage.minds.list_minds(&ws.id, page).await?;
        let used = self.ports.storage.minds.mind_usage(&ws.id).await?;
        let usage = MindsUsage {
            minds_used: used.minds,
            minds_limit: ws.limits.minds_limit,
            sources_used: used.sources,
            sources_limit: ws.limits.sources_limit,
        };
        Ok(MindListing { page, usage })
    }

    pub(crate) async fn find_mind(&self, p: &Principal, id: &MindId) -> Result<Mind, AppError> {
        self.ports.storage.minds.get_mind(p.workspace_id(), id).await?.ok_or(AppError::NotFound("mind"))
    }

    pub async fn get_mind(&self, p: &Principal, id: &MindId) -> Result<MindDetail, AppError> {
        // Three independent reads at once (on DynamoDB each is a round trip). The count is of the
        // caller's own workspace, and is dropped when the Mind is not found.
        let owner = SourceOwner::Mind(id.clone());
        let (mind, ws, recent_conversations) = futures::try_join!(
            self.find_mind(p, id),
            self.current_workspace(p),
            self.recent_conversations(p.workspace_id(), &owner)
        )?;
        Ok(mind_detail(mind, &ws, recent_conversations))
    }

    /// Reads the Mind, applies `change`, and writes it back unless another write came first,
    /// in which case it starts over from the newer Mind: concurrent partial updates of
    /// different settings all land. `audit` names the change for the audit log, written with it
    /// (a change that changes nothing writes neither).
    async fn change_mind(
        &self,
        p: &Principal,
        id: &MindId,
        change: impl Fn(&mut Mind),
        audit: impl Fn(&Mind) -> (AuditAction, AuditDetails),
    ) -> Result<Mind, AppError> {
        for _ in 0..MAX_WRITE_ATTEMPTS {
            let current = self.find_mind(p, id).await?;
            let mut mind = current.clone();
            change(&mut mind);
            if mind == current {
                return Ok(current);
            }
            mind.updated_at = Timestamp::now().max(current.updated_at);
            mind.revision = current.revision + 1;
            let (action, details) = audit(&mind);
            let entry = Self::audit_entry(p, action, id.as_str(), details);
            match self.ports.storage.minds.update_mind_recorded(&mind, Some(&entry)).await {
                Ok(RevisedWrite::Done) => return Ok(mind),
                Ok(RevisedWrite::NotFound) => return Err(AppError::NotFound("mind")),
                Ok(RevisedWrite::Stale) => continue,
                Err(e) => return Err(write_error(e, &mind)),
            }
        }
        Err(too_contended())
    }

    /// Changes the settings the patch names; the others keep their values.
    pub async fn update_mind(&self, p: &Principal, id: &MindId, patch: MindPatch) -> Result<MindDetail, AppError> {
        let fields = mind_fields(&patch);
        let mind = self
            .change_mind(
                p,
                id,
                |m| patch.apply(m),
                |m| {
                    let details =
                        AuditDetails::new().text("name", m.name.as_str()).names("fields", fields.iter().copied());
                    (AuditAction::MindUpdated, details)
                },
            )
            .await?;
        self.detail(mind, &self.current_workspace(p).await?).await
    }

    /// Publishes (or unpublishes) the Mind. The warning is present exactly when the Mind has
    /// no `ready` knowledge source (docs/api.md §8, §16.23).
    pub async fn publish_mind(&self, p: &Principal, id: &MindId, publish: bool) -> Result<Publication, AppError> {
        let mind = self
            .change_mind(
                p,
                id,
                |m| m.is_published = publish,
                |m| {
                    (
                        AuditAction::MindPublished,
                        AuditDetails::new().text("name", m.name.as_str()).flag("published", publish),
                    )
                },
            )
            .await?;
        let warning = (!mind.has_ready_source()).then(|| {
            if publish {
                "This Mind has no ready knowledge source yet: its public page is live, but it has nothing to answer \
                 from until a source is ready."
            } else {
                "This Mind has no ready knowledge source."
            }
            .to_owned()
        });
        Ok(Publication { mind, warning })
    }

    /// A new identity secret for the Mind, replacing the one before (docs/api.md §18).
    pub async fn new_mind_identity_secret(
        &self,
        p: &Principal,
        id: &MindId,
    ) -> Result<lore_domain::embed::IdentitySecret, AppError> {
        let secret = lore_domain::embed::IdentitySecret::generate();
        // The secret itself is never in the entry.
        self.change_mind(
            p,
            id,
            |m| m.settings.embed.identity_secret = Some(secret.clone()),
            |_| (AuditAction::IdentitySecretCreated, AuditDetails::new().text("owner", "mind")),
        )
        .await?;
        Ok(secret)
    }

    /// Deletes the Mind with everything it owns.
    pub async fn delete_mind(&self, p: &Principal, id: &MindId) -> Result<(), AppError> {
        // 1. The records, in one step: the Mind and (once they exist) its knowledge sources.
        let entry = Self::audit_entry(p, AuditAction::MindDeleted, id.as_str(), AuditDetails::new());
        let channels = self.owner_channels(p.workspace_id(), &SourceOwner::Mind(id.clone())).await?;
        let removal = self
            .ports
            .storage
            .minds
            .delete_mind_recorded(p.workspace_id(), id, Some(&entry))
            .await?
            .ok_or(AppError::NotFound("mind"))?;
        // Its conversations: once the Mind is gone none can be started, so this removes them all
        // (the embedded store removed them with the Mind already).
        self.ports
            .storage
            .conversations
            .delete_owner_conversations(p.workspace_id(), &SourceOwner::Mind(id.clone()))
            .await?;
        self.ports.storage.tests.delete_owner_tests(p.workspace_id(), &SourceOwner::Mind(id.clone())).await?;
        self.ports.storage.actions.delete_owner_actions(p.workspace_id(), &SourceOwner::Mind(id.clone())).await?;
        self.delete_owner_channels(p.workspace_id(), &SourceOwner::Mind(id.clone()), &channels).await?;
        // 2. Its chunks in the vector index (an index in another database is not reached by the
        //    records' transaction). A failure leaves chunks no search can reach: their sources
        //    are gone, and searches only look at chunks of listed ready sources.
        if let Err(e) = self.ports.storage.index.delete_owner_chunks(&SourceOwner::Mind(id.clone())).await {
            tracing::warn!(mind = %id, error = %e, "could not delete the chunks of a deleted Mind");
        }
        // 3. Its files. After the records are gone, so a failure here leaves unreferenced
        //    bytes behind, never a record that points at nothing.
        for key in &removal.file_keys {
            if let Err(e) = self.ports.storage.blobs.delete(key).await {
                tracing::warn!(mind = %id, key, error = %e, "could not delete a file of a deleted Mind");
            }
        }
        // Its uploads: every one lives under `<workspace>/<mind>/` (files.rs).
        let uploads = format!("{}/{}/", p.workspace_id(), id);
        if let Err(e) = self.ports.storage.blobs.delete_prefix(&uploads).await {
            tracing::warn!(mind = %id, error = %e, "could not delete the uploads of a deleted Mind");
        }
        Ok(())
    }

    /// The published Mind behind the public page `/m/{slug}` (no key: the page is public).
    pub async fn published_mind(&self, slug: &str) -> Result<Mind, AppError> {
        let slug = Slug::parse("slug", slug).map_err(|_| AppError::NotFound("mind"))?;
        self.ports.storage.minds.find_published_mind(slug.as_str()).await?.ok_or(AppError::NotFound("mind"))
    }
}

/// A Mind as the API shows it: with its workspace's source limit and its recent conversations.
fn mind_detail(mind: Mind, ws: &Workspace, recent_conversations: u64) -> MindDetail {
    MindDetail { mind, source_limit: ws.limits.mind_source_limit, recent_conversations }
}
