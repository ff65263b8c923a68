-- Forms, their responses, webhook subscriptions and deliveries. The delivery schedule
-- (`next_attempt_at`, claims) is stored so that a crash or restart loses no due delivery.
CREATE TABLE forms (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    fields TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX forms_newest_first ON forms (workspace_id, created_at DESC, id DESC);
CREATE TABLE form_responses (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    form_id TEXT NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    event_id TEXT NOT NULL,
    source TEXT NOT NULL,
    answers TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX form_responses_newest_first ON form_responses (form_id, created_at DESC, id DESC);
CREATE INDEX form_responses_by_workspace ON form_responses (workspace_id, created_at DESC, id DESC);
CREATE TABLE hooks (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    hook_url TEXT NOT NULL,
    event TEXT NOT NULL,
    form_id TEXT,
    chatbot_id TEXT,
    secret TEXT NOT NULL,
    status TEXT NOT NULL,
    consecutive_failures INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
);
CREATE INDEX hooks_by_workspace ON hooks (workspace_id, status);
CREATE TABLE deliveries (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    hook_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    payload TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts TEXT NOT NULL,
    next_attempt_at INTEGER,
    round_start INTEGER NOT NULL DEFAULT 0,
    claim INTEGER NOT NULL DEFAULT 0,
    claim_owner TEXT,
    claimed_until INTEGER,
    created_at INTEGER NOT NULL,
    UNIQUE (event_id, hook_id)
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_newest_first ON deliveries (workspace_id, created_at DESC, id DESC);
CREATE INDEX deliveries_by_hook ON deliveries (hook_id, created_at DESC, id DESC);
-- Events written before subscriptions existed had no one to go to.
ALTER TABLE events ADD COLUMN fanned_out_at INTEGER;
UPDATE events SET fanned_out_at = created_at;
CREATE INDEX events_to_fan_out ON events (id) WHERE fanned_out_at IS NULL;
