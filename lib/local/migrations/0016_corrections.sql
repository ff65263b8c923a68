-- Corrections (docs/api.md §19): an owner's answers to questions, given again verbatim; they
-- go with their Mind or chatbot. The question, answer and embedding are one document
-- (`lore_records::CorrectionRecord`).
CREATE TABLE corrections (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    chatbot_id TEXT REFERENCES chatbots(id) ON DELETE CASCADE,
    mind_id TEXT REFERENCES minds(id) ON DELETE CASCADE,
    owner_id TEXT GENERATED ALWAYS AS (COALESCE(chatbot_id, mind_id)) VIRTUAL,
    details TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    CHECK ((chatbot_id IS NULL) <> (mind_id IS NULL))
);
CREATE INDEX corrections_of_owner ON corrections (owner_id, created_at DESC, id DESC);
