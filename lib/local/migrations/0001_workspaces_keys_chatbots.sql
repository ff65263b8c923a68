CREATE TABLE workspaces (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    storage_quota_bytes INTEGER NOT NULL,
    minds_limit INTEGER NOT NULL,
    sources_limit INTEGER NOT NULL,
    mind_source_limit INTEGER NOT NULL,
    rate_limit_per_minute INTEGER NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    scopes TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
);
CREATE INDEX api_keys_by_workspace ON api_keys (workspace_id, id);
CREATE TABLE chatbots (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    slug TEXT NOT NULL,
    descriptor TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    source_count INTEGER NOT NULL DEFAULT 0,
    conversation_count INTEGER NOT NULL DEFAULT 0,
    UNIQUE (workspace_id, slug)
);
CREATE INDEX chatbots_newest_first ON chatbots (workspace_id, created_at DESC, id DESC);
