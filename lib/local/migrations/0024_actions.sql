-- Actions (docs/api.md §23): an owner's HTTP endpoints a model may call. They go with their Mind
-- or chatbot; a name is unique per owner. The document is `lore_records::ActionRecord`; it holds
-- the header values and the signing secret (secrets, in a file only the service reads: 0600).
CREATE TABLE actions (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    chatbot_id TEXT REFERENCES chatbots(id) ON DELETE CASCADE,
    mind_id TEXT REFERENCES minds(id) ON DELETE CASCADE,
    owner_id TEXT GENERATED ALWAYS AS (COALESCE(chatbot_id, mind_id)) VIRTUAL,
    name TEXT NOT NULL,
    details TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    CHECK ((chatbot_id IS NULL) <> (mind_id IS NULL))
);
CREATE UNIQUE INDEX actions_name_of_owner ON actions (workspace_id, COALESCE(chatbot_id, mind_id), name);
CREATE INDEX actions_of_owner ON actions (owner_id, created_at, id);
