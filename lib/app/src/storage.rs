//! Storage accounting of uploaded bytes against the workspace's `storageQuotaBytes`
//! (CONTRACT §3, §16.21; docs/limits.md).
//!
//! Placeholder signatures agreed between the upload path and the quota work: both land together.

use crate::{App, AppError};
use lore_domain::id::WorkspaceId;

impl App {
    /// Whether `bytes` more would still fit the workspace's storage quota, without charging them
    /// (an upload URL is refused early when the declared size cannot fit). `storage_limit` (403)
    /// when not.
    pub async fn check_storage_room(&self, workspace: &WorkspaceId, bytes: u64) -> Result<(), AppError> {
        let _ = (workspace, bytes);
        Ok(())
    }

    /// Charges `bytes` of the upload stored at blob `key` to the workspace's storage quota, in
    /// one conditional write; `storage_limit` (403) when it would pass the quota (then nothing is
    /// charged). Called before the upload is kept.
    pub async fn charge_upload(&self, workspace: &WorkspaceId, key: &str, bytes: u64) -> Result<(), AppError> {
        let _ = (workspace, key, bytes);
        Ok(())
    }

    /// Gives back what `charge_upload` charged for `key` (an upload refused after its bytes
    /// arrived, or deleted). Nothing happens for a key that was never charged.
    pub async fn refund_upload(&self, workspace: &WorkspaceId, key: &str) -> Result<(), AppError> {
        let _ = (workspace, key);
        Ok(())
    }
}
