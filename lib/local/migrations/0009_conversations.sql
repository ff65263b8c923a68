-- Conversations (docs/api.md §17) belong to a chatbot or a Mind, exactly one, and go with it.
-- A chatbot's `conversation_count` is kept in the same transaction as its conversations; a
-- Mind's is counted from them (index `conversations_of_owner`).
CREATE TABLE conversations (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    chatbot_id TEXT REFERENCES chatbots(id) ON DELETE CASCADE,
    mind_id TEXT REFERENCES minds(id) ON DELETE CASCADE,
    owner_id TEXT GENERATED ALWAYS AS (COALESCE(chatbot_id, mind_id)) VIRTUAL,
    details TEXT NOT NULL,
    message_count INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    CHECK ((chatbot_id IS NULL) <> (mind_id IS NULL))
);
CREATE INDEX conversations_of_owner ON conversations (owner_id, created_at DESC, id DESC);
CREATE INDEX conversations_of_minds ON conversations (mind_id) WHERE mind_id IS NOT NULL;
CREATE TABLE messages (
    id TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    body TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX messages_in_order ON messages (conversation_id, id);
