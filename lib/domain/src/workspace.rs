//! Workspaces own everything; each has limits settable by the CLI (docs/api.md §3).

use crate::error::DomainError;
use crate::id::WorkspaceId;
use crate::time::Timestamp;
use serde::Serialize;

pub const MAX_WORKSPACE_NAME: usize = 100;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct WorkspaceName(String);

impl WorkspaceName {
    /// Workspace names are looked up by the CLI (`--workspace <id|name>`), so they are single
    /// tokens-friendly but otherwise free text: 1..=100 characters, trimmed.
    pub fn parse(s: &str) -> Result<Self, DomainError> {
        let name = crate::text::bounded("name", s, MAX_WORKSPACE_NAME)?;
        if WorkspaceId::parse(&name).is_some() {
            return Err(DomainError::field("name", "must not look like a workspace id"));
        }
        Ok(Self(name))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn from_stored(s: String) -> Self {
        Self(s)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceLimits {
    pub storage_quota_bytes: u64,
    pub minds_limit: u32,
    pub sources_limit: u32,
    pub mind_source_limit: u32,
    pub rate_limit_per_minute: u32,
}

impl Default for WorkspaceLimits {
    fn default() -> Self {
        Self {
            storage_quota_bytes: 1 << 30,
            minds_limit: 10,
            sources_limit: 500,
            mind_source_limit: 100,
            rate_limit_per_minute: 600,
        }
    }
}

/// A partial change of limits; `None` keeps the current value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LimitsPatch {
    pub storage_quota_bytes: Option<u64>,
    pub minds_limit: Option<u32>,
    pub sources_limit: Option<u32>,
    pub mind_source_limit: Option<u32>,
    pub rate_limit_per_minute: Option<u32>,
}

impl LimitsPatch {
    pub fn apply(self, mut l: WorkspaceLimits) -> Result<WorkspaceLimits, DomainError> {
        if self.rate_limit_per_minute == Some(0) {
            return Err(DomainError::field("rateLimitPerMinute", "must be at least 1"));
        }
        if let Some(v) = self.storage_quota_bytes {
            l.storage_quota_bytes = v;
        }
        if let Some(v) = self.minds_limit {
            l.minds_limit = v;
        }
        if let Some(v) = self.sources_limit {
            l.sources_limit = v;
        }
        if let Some(v) = self.mind_source_limit {
            l.mind_source_limit = v;
        }
        if let Some(v) = self.rate_limit_per_minute {
            l.rate_limit_per_minute = v;
        }
        Ok(l)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Workspace {
    pub id: WorkspaceId,
    pub name: WorkspaceName,
    pub limits: WorkspaceLimits,
    pub created_at: Timestamp,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_patch_keeps_unsent_values_and_refuses_zero_rate() {
        let l = LimitsPatch { minds_limit: Some(3), ..Default::default() }.apply(WorkspaceLimits::default()).unwrap();
        assert_eq!(l.minds_limit, 3);
        assert_eq!(l.sources_limit, 500);
        assert!(LimitsPatch { rate_limit_per_minute: Some(0), ..Default::default() }.apply(l).is_err());
    }

    #[test]
    fn names_are_bounded_and_not_ids() {
        assert!(WorkspaceName::parse(" acme ").is_ok());
        assert!(WorkspaceName::parse("").is_err());
        assert!(WorkspaceName::parse(WorkspaceId::generate().as_str()).is_err());
    }
}
