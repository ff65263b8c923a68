//! The workspace's own administration through the API (docs/api.md §3, "Keys" and
//! "Workspace"): its keys for a caller with `workspace:admin`, its limits and usage for any key.
//! The operator's side (every workspace, from the CLI) is [`crate::admin`].

use crate::admin::IssuedKey;
use crate::auth::Principal;
use crate::{App, AppError};
use lore_domain::api_key::{ApiKey, KeyName};
use lore_domain::audit::{AuditAction, AuditDetails};
use lore_domain::id::ApiKeyId;
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::scope::{Scope, ScopeSet};
use lore_domain::workspace::Workspace;
use lore_domain::{DomainError, ErrorCode, Timestamp};

/// A workspace with what it uses of its limits.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkspaceUsage {
    pub workspace: Workspace,
    /// Bytes of stored files and texts counted against `storageQuotaBytes`.
    pub storage_bytes: u64,
    pub chatbots: u64,
    pub minds: u64,
    /// Sources of Minds across the workspace (what `sourcesLimit` bounds).
    pub mind_sources: u64,
    /// Keys not revoked (what `LORE_MAX_KEYS_PER_WORKSPACE` bounds).
    pub active_keys: u64,
    /// Webhook subscriptions, active or disabled (what `LORE_MAX_HOOKS_PER_WORKSPACE` bounds).
    pub webhooks: u64,
}

/// Revoked keys' records deleted by one revocation at most (see `prune_revoked_keys`).
const MAX_PRUNED_PER_REVOCATION: usize = 25;
impl App {
    /// The caller's workspace, its limits and what it uses of them. Any key may ask.
    pub async fn workspace_usage(&self, p: &Principal) -> Result<WorkspaceUsage, AppError> {
        let ws = p.workspace_id();
        let (workspace, storage_bytes, chatbots, minds, keys, hooks) = futures::try_join!(
            self.current_workspace(p),
            async { Ok::<_, AppError>(self.ports.storage.sources.storage_used(ws).await?) },
            async {
                Ok::<_, AppError>(self.ports.storage.chatbots.list_chatbots(ws, PageRequest::new(1, 1)).await?.total)
            },
            async { Ok::<_, AppError>(self.ports.storage.minds.mind_usage(ws).await?) },
            async { Ok::<_, AppError>(self.ports.storage.keys.list_keys(Some(ws)).await?) },
            async { Ok::<_, AppError>(self.ports.storage.hooks.count_hooks(ws).await?) },
        )?;
        Ok(WorkspaceUsage {
            workspace,
            storage_bytes,
            chatbots,
            minds: minds.minds,
            mind_sources: minds.sources,
            active_keys: keys.iter().filter(|k| k.revoked_at.is_none()).count() as u64,
            webhooks: hooks.active + hooks.disabled,
        })
    }

    /// The workspace's keys, revoked ones included, newest first.
    pub async fn list_workspace_keys(&self, p: &Principal, page: PageRequest) -> Result<Page<ApiKey>, AppError> {
        p.require(Scope::WorkspaceAdmin)?;
        let all = self.ports.storage.keys.list_keys(Some(p.workspace_id())).await?;
        let total = all.len() as u64;
        let items = all.into_iter().skip(page.offset() as usize).take(page.limit() as usize).collect();
        Ok(Page { items, total, request: page })
    }

    /// A new key of the caller's workspace. Its secret is in the answer and nowhere else.
    pub async fn issue_workspace_key(
        &self,
        p: &Principal,
        name: Option<KeyName>,
        scopes: ScopeSet,
    ) -> Result<IssuedKey, AppError> {
        p.require(Scope::WorkspaceAdmin)?;
        let limit = self.config.max_keys_per_workspace;
        let keys = self.ports.storage.keys.list_keys(Some(p.workspace_id())).await?;
        let active = keys.iter().filter(|k| k.revoked_at.is_none()).count();
        if active >= limit as usize {
            return Err(DomainError::new(
                ErrorCode::KeysLimitReached,
                format!("this workspace already has {limit} active keys; revoke one first"),
            )
            .into());
        }
        let (key, secret) = ApiKey::issue(p.workspace_id().clone(), name, scopes);
        let scopes = key.scopes.iter().map(|s| s.as_str());
        let details = AuditDetails::new().text("name", key.name.as_str()).names("scopes", scopes);
        let entry = Self::audit_entry(p, AuditAction::KeyCreated, key.id.as_str(), details);
        self.ports.storage.keys.insert_key_recorded(&key, Some(&entry)).await?;
        Ok(IssuedKey { key, secret })
    }

    /// Revokes a key of the caller's workspace (the caller's own too: it signs itself out).
    /// Revoking a revoked key answers it as it is; another workspace's key is not found.
    pub async fn revoke_workspace_key(&self, p: &Principal, id: &ApiKeyId) -> Result<ApiKey, AppError> {
        p.require(Scope::WorkspaceAdmin)?;
        let mut keys = self.ports.storage.keys.list_keys(Some(p.workspace_id())).await?;
        let key = keys.iter_mut().find(|k| &k.id == id).ok_or(AppError::NotFound("key"))?;
        if key.revoked_at.is_some() {
            return Ok(key.clone());
        }
        let at = Timestamp::now();
        let details = AuditDetails::new().text("name", key.name.as_str());
        let entry = Self::audit_entry(p, AuditAction::KeyRevoked, id.as_str(), details);
        self.ports.storage.keys.revoke_key_recorded(id, at, Some(&entry)).await?;
        self.key_cache.forget(&key.hash);
        key.revoked_at = Some(at);
        let revoked = key.clone();
        self.prune_revoked_keys(keys).await?;
        Ok(revoked)
    }

    /// Deletes the records of a workspace's oldest revoked keys (at most
    /// [`MAX_PRUNED_PER_REVOCATION`] at a time) beyond
    /// [`AppConfig::max_revoked_keys_per_workspace`](crate::AppConfig): revoked keys are kept
    /// to be listed, but an admin key making and revoking keys in a loop must not grow them
    /// without bound.
    async fn prune_revoked_keys(&self, keys: Vec<ApiKey>) -> Result<(), AppError> {
        let mut revoked: Vec<ApiKey> = keys.into_iter().filter(|k| k.revoked_at.is_some()).collect();
        let kept = self.config.max_revoked_keys_per_workspace as usize;
        if revoked.len() <= kept {
            return Ok(());
        }
        // Newest revocation first; among equal times, the newer key (ids sort by creation).
        revoked.sort_by(|a, b| b.revoked_at.cmp(&a.revoked_at).then_with(|| b.id.as_str().cmp(a.id.as_str())));
        // Oldest first, a bounded number per request: a backlog (a lowered setting) shrinks over
        // the next revocations instead of holding one request for thousands of deletes.
        for key in revoked[kept..].iter().rev().take(MAX_PRUNED_PER_REVOCATION) {
            self.ports.storage.keys.delete_revoked_key(&key.id).await?;
        }
        Ok(())
    }
}
