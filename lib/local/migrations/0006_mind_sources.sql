-- Mind knowledge sources (docs/api.md §9) share the sources table with chatbot sources: a source
-- belongs to a chatbot or a Mind (exactly one), and goes with it (ON DELETE CASCADE, then its
-- chunks with it). `owner_id` is the owner's id whichever it is. The table is rebuilt (SQLite
-- cannot relax NOT NULL in place); `migrate` runs this with foreign keys off, as SQLite's
-- table-rebuild procedure requires, and checks them before committing.
CREATE TABLE sources_new (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    chatbot_id TEXT REFERENCES chatbots(id) ON DELETE CASCADE,
    mind_id TEXT REFERENCES minds(id) ON DELETE CASCADE,
    owner_id TEXT GENERATED ALWAYS AS (COALESCE(chatbot_id, mind_id)) VIRTUAL,
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
    processed_at INTEGER,
    CHECK ((chatbot_id IS NULL) <> (mind_id IS NULL))
);
INSERT INTO sources_new (id, workspace_id, chatbot_id, type, name, status, spec, size_bytes, chunk_count, error,
    content_hash, progress, generation, lease_owner, lease_until, attempts, created_at, updated_at, processed_at)
SELECT id, workspace_id, chatbot_id, type, name, status, spec, size_bytes, chunk_count, error,
    content_hash, progress, generation, lease_owner, lease_until, attempts, created_at, updated_at, processed_at
FROM sources;
DROP TABLE sources;
ALTER TABLE sources_new RENAME TO sources;
CREATE INDEX sources_newest_first ON sources (owner_id, created_at DESC, id DESC);
CREATE INDEX sources_by_workspace ON sources (workspace_id);
CREATE INDEX sources_by_status ON sources (status, lease_until);
CREATE INDEX sources_of_minds ON sources (mind_id, status) WHERE mind_id IS NOT NULL;
-- A Mind's counts are read from its sources (one indexed query), not kept beside them.
ALTER TABLE minds DROP COLUMN sources_pending;
ALTER TABLE minds DROP COLUMN sources_processing;
ALTER TABLE minds DROP COLUMN sources_transcribing;
ALTER TABLE minds DROP COLUMN sources_ready;
ALTER TABLE minds DROP COLUMN sources_failed;
-- `chunks.chatbot_id` holds the owner's id (a chatbot's or a Mind's) from here on.
