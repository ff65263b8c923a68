-- The workspace's audit log (docs/api.md §22, "Audit log"): one row per change of keys,
-- assistants, sources, identity secrets and webhooks, per erasure and per export. Written in the
-- transaction of the change it records (docs/decisions.md); deleted 365 days after `at` by the
-- retention sweep. `details` is a small JSON object without secrets.
CREATE TABLE audit_log (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    key_id TEXT,
    action TEXT NOT NULL,
    target_id TEXT NOT NULL,
    details TEXT NOT NULL
);
CREATE INDEX audit_log_newest ON audit_log (workspace_id, at DESC, id DESC);
CREATE INDEX audit_log_action ON audit_log (workspace_id, action, at DESC, id DESC);
CREATE INDEX audit_log_at ON audit_log (at);
