-- Uploads no source uses yet: counted in the workspace's storage until a source takes them
-- over or they expire (docs/limits.md "Storage quota").
CREATE TABLE uploads (
    blob_key TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    charged_at INTEGER NOT NULL
);
CREATE INDEX uploads_by_workspace ON uploads (workspace_id, charged_at);
