//! Uploads in the workspace's storage quota (docs/limits.md "Storage quota"): an upload counts
//! against `storageQuotaBytes` from the moment its bytes arrived through this service (a
//! multipart upload, a signed PUT to `lore serve`) until a source takes it over (the source
//! counts the bytes then) or it expires unused after `upload_retention` and is deleted. A signed
//! upload URL is refused early when the declared size does not fit, but holds nothing: on AWS
//! its bytes go straight to S3 and count once a source uses them.

use crate::ports::Charged;
use crate::{App, AppError};
use lore_domain::id::WorkspaceId;
use lore_domain::{DomainError, ErrorCode, Timestamp};

pub(crate) fn storage_limit(used: u64, quota: u64) -> AppError {
    AppError::Rejected(DomainError::new(
        ErrorCode::StorageLimit,
        format!("the workspace storage quota of {quota} bytes would be exceeded ({used} bytes in use)"),
    ))
}

impl App {
    /// Counts `bytes` of the upload at `key` against the workspace's quota (after deleting the
    /// workspace's expired uploads); `storage_limit` when they do not fit (nothing counted). A
    /// key counted before is counted again with the new size.
    pub(crate) async fn charge_upload(&self, ws: &WorkspaceId, key: &str, bytes: u64) -> Result<(), AppError> {
        self.expire_uploads(ws).await?;
        let quota = match self.ports.storage.workspaces.get_workspace(ws).await? {
            Some(w) => w.limits.storage_quota_bytes,
            // A workspace that no longer exists stores nothing.
            None => return Err(AppError::NotFound("workspace")),
        };
        self.ports.storage.sources.release_upload(ws, key).await?;
        match self.ports.storage.sources.charge_upload(ws, key, bytes, quota, Timestamp::now()).await? {
            Charged::OverQuota { used } => Err(storage_limit(used, quota)),
            Charged::Done => Ok(()),
        }
    }

    /// Whether `bytes` more fit the workspace's quota now, without counting them:
    /// `storage_limit` when not.
    pub(crate) async fn check_storage_room(&self, ws: &WorkspaceId, key: &str, bytes: u64) -> Result<(), AppError> {
        self.charge_upload(ws, key, bytes).await?;
        self.release_upload(ws, key).await
    }

    /// A source took over the upload at `key` (its bytes count as the source's now).
    pub(crate) async fn release_upload(&self, ws: &WorkspaceId, key: &str) -> Result<(), AppError> {
        self.ports.storage.sources.release_upload(ws, key).await?;
        Ok(())
    }

    /// Deletes the workspace's uploads no source took over within `upload_retention`, and stops
    /// counting them. Run before each new charge: the quota a stale upload held comes back
    /// exactly when the workspace needs room, on every backend, without a scheduler.
    async fn expire_uploads(&self, ws: &WorkspaceId) -> Result<(), AppError> {
        let retention = i64::try_from(self.config.upload_retention.as_millis()).unwrap_or(i64::MAX);
        let before = Timestamp::from_millis(Timestamp::now().millis().saturating_sub(retention));
        for key in self.ports.storage.sources.uploads_charged_before(ws, before).await? {
            self.ports.storage.blobs.delete(&key).await?;
            self.ports.storage.sources.release_upload(ws, &key).await?;
            tracing::info!(workspace = %ws, key, "deleted an upload no source used");
        }
        Ok(())
    }
}
