CREATE TABLE sources (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    chatbot_id TEXT NOT NULL REFERENCES chatbots(id) ON DELETE CASCADE,
    type TEXT NOT NULL,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    spec TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    chunk_count INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    content_hash TEXT,
    progress TEXT,
    generation INTEGER NOT NULL DEFAULT 0,
    lease_owner TEXT,
    lease_until INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    processed_at INTEGER
);
CREATE INDEX sources_newest_first ON sources (chatbot_id, created_at DESC, id DESC);
CREATE INDEX sources_by_workspace ON sources (workspace_id);
CREATE INDEX sources_by_status ON sources (status, lease_until);
CREATE TABLE chunks (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    chatbot_id TEXT NOT NULL,
    source_id TEXT NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    content TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    url TEXT,
    model TEXT NOT NULL,
    embedding BLOB NOT NULL
);
CREATE INDEX chunks_by_source ON chunks (source_id, position);
CREATE INDEX chunks_by_chatbot ON chunks (chatbot_id);
CREATE TABLE events (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    type TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    data TEXT NOT NULL,
    metadata TEXT NOT NULL
);
CREATE INDEX events_by_workspace ON events (workspace_id, id);
