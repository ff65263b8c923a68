-- Answer tests (docs/api.md §21): an owner's pinned questions, the runs that answer them, and
-- each run's results. Tests and runs go with their Mind or chatbot; results with their run. The
-- documents are `lore_records::{AnswerTestRecord, TestRunRecord, TestResultRecord}`.
CREATE TABLE answer_tests (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    chatbot_id TEXT REFERENCES chatbots(id) ON DELETE CASCADE,
    mind_id TEXT REFERENCES minds(id) ON DELETE CASCADE,
    owner_id TEXT GENERATED ALWAYS AS (COALESCE(chatbot_id, mind_id)) VIRTUAL,
    details TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    CHECK ((chatbot_id IS NULL) <> (mind_id IS NULL))
);
CREATE INDEX answer_tests_of_owner ON answer_tests (owner_id, created_at, id);

CREATE TABLE test_runs (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    chatbot_id TEXT REFERENCES chatbots(id) ON DELETE CASCADE,
    mind_id TEXT REFERENCES minds(id) ON DELETE CASCADE,
    owner_id TEXT GENERATED ALWAYS AS (COALESCE(chatbot_id, mind_id)) VIRTUAL,
    -- `queued`, `running` or `done`: what the one-run-at-a-time rule reads.
    status TEXT NOT NULL,
    details TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    CHECK ((chatbot_id IS NULL) <> (mind_id IS NULL))
);
CREATE INDEX test_runs_of_owner ON test_runs (owner_id, started_at DESC, id DESC);

CREATE TABLE test_results (
    run_id TEXT NOT NULL REFERENCES test_runs(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    details TEXT NOT NULL,
    PRIMARY KEY (run_id, position)
);
