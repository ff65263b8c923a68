//! Operator use cases behind the `lore` CLI: workspaces and API keys (docs/api.md §3, §15).

use crate::ports::StoreError;
use crate::{App, AppError};
use lore_domain::Timestamp;
use lore_domain::api_key::{ApiKey, ApiKeySecret, KeyName};
use lore_domain::audit::{AuditAction, AuditDetails, AuditEntry};
use lore_domain::id::{ApiKeyId, WorkspaceId};
use lore_domain::scope::ScopeSet;
use lore_domain::workspace::{LimitsPatch, Workspace, WorkspaceLimits, WorkspaceName};
use lore_domain::{DomainError, ErrorCode};

/// The name of the workspace `lore serve` creates on an empty data dir.
pub const DEFAULT_WORKSPACE: &str = "default";

fn name_taken(name: &str) -> AppError {
    AppError::Rejected(DomainError::new(
        ErrorCode::ValidationError,
        format!("a workspace named '{name}' already exists"),
    ))
}

/// A key just created: the only moment its secret exists outside the caller's hands.
#[derive(Debug)]
pub struct IssuedKey {
    pub key: ApiKey,
    pub secret: ApiKeySecret,
}

impl App {
    pub async fn create_workspace(&self, name: WorkspaceName, limits: LimitsPatch) -> Result<Workspace, AppError> {
        let ws = Workspace {
            id: WorkspaceId::generate(),
            name,
            limits: limits.apply(WorkspaceLimits::default())?,
            created_at: Timestamp::now(),
        };
        match self.ports.storage.workspaces.insert_workspace(&ws).await {
            Ok(()) => Ok(ws),
            Err(StoreError::Conflict(_)) => Err(name_taken(ws.name.as_str())),
            Err(e) => Err(e.into()),
        }
    }

    /// Finds a workspace by id or by name.
    pub async fn find_workspace(&self, id_or_name: &str) -> Result<Workspace, AppError> {
        let found = match WorkspaceId::parse(id_or_name) {
            Some(id) => self.ports.storage.workspaces.get_workspace(&id).await?,
            None => self.ports.storage.workspaces.find_workspace_by_name(id_or_name.trim()).await?,
        };
        found.ok_or(AppError::NotFound("workspace"))
    }

    pub async fn list_workspaces(&self) -> Result<Vec<Workspace>, AppError> {
        Ok(self.ports.storage.workspaces.list_workspaces().await?)
    }

    pub async fn update_workspace(
        &self,
        id_or_name: &str,
        name: Option<WorkspaceName>,
        limits: LimitsPatch,
    ) -> Result<Workspace, AppError> {
        let mut ws = self.find_workspace(id_or_name).await?;
        ws.limits = limits.apply(ws.limits)?;
        if let Some(n) = name {
            ws.name = n;
        }
        match self.ports.storage.workspaces.update_workspace(&ws).await {
            Ok(()) => Ok(ws),
            Err(StoreError::Conflict(_)) => Err(name_taken(ws.name.as_str())),
            Err(e) => Err(e.into()),
        }
    }

    pub async fn create_key(
        &self,
        workspace: &str,
        scopes: ScopeSet,
        name: Option<KeyName>,
    ) -> Result<IssuedKey, AppError> {
        let ws = self.find_workspace(workspace).await?;
        let (key, secret) = ApiKey::issue(ws.id, name, scopes);
        // Made by the CLI: no key made it.
        let scopes = key.scopes.iter().map(|s| s.as_str());
        let details = AuditDetails::new().text("name", key.name.as_str()).names("scopes", scopes);
        let entry = AuditEntry::new(key.workspace_id.clone(), None, AuditAction::KeyCreated, key.id.as_str(), details);
        self.ports.storage.keys.insert_key_recorded(&key, Some(&entry)).await?;
        Ok(IssuedKey { key, secret })
    }

    pub async fn list_keys(&self, workspace: Option<&str>) -> Result<Vec<ApiKey>, AppError> {
        let ws = match workspace {
            Some(w) => Some(self.find_workspace(w).await?.id),
            None => None,
        };
        Ok(self.ports.storage.keys.list_keys(ws.as_ref()).await?)
    }

    pub async fn revoke_key(&self, id: &str) -> Result<(), AppError> {
        let id = ApiKeyId::parse(id.trim()).ok_or(AppError::NotFound("key"))?;
        // The key's workspace and name, for its entry (the CLI names a key by id alone).
        let keys = self.ports.storage.keys.list_keys(None).await?;
        let key = keys.into_iter().find(|k| k.id == id).ok_or(AppError::NotFound("key"))?;
        let details = AuditDetails::new().text("name", key.name.as_str());
        let entry = AuditEntry::new(key.workspace_id, None, AuditAction::KeyRevoked, id.as_str(), details);
        if self.ports.storage.keys.revoke_key_recorded(&id, Timestamp::now(), Some(&entry)).await? {
            Ok(())
        } else {
            Err(AppError::NotFound("key"))
        }
    }

    /// The dev bootstrap of `lore serve`: workspace `default` and a key with every scope.
    /// Returns `None` when the workspace already exists (the data dir is not empty).
    pub async fn bootstrap_default(&self) -> Result<Option<IssuedKey>, AppError> {
        let name = WorkspaceName::parse(DEFAULT_WORKSPACE)?;
        match self.create_workspace(name, LimitsPatch::default()).await {
            Ok(ws) => {
                let key = self.create_key(ws.id.as_str(), ScopeSet::all(), Some(KeyName::parse("dev key")?)).await?;
                Ok(Some(key))
            }
            Err(AppError::Rejected(e)) if e.code == ErrorCode::ValidationError => Ok(None),
            Err(e) => Err(e),
        }
    }
}
