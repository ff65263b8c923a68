-- Analytics (docs/api.md §19): an owner's counters per UTC day, its sources' citations per
-- day and its unanswered questions, written in the transaction of the conversation, message
-- or rating they count (`lore_domain::analytics::Tally`), so a report reads one row per day
-- instead of every message. Counters are history: deleting a conversation keeps them (its
-- unanswered questions, which quote the visitor, go with it); deleting the owner removes all.
-- Conversations stored before this version are counted here once, from their messages.
CREATE TABLE analytics_days (
    owner_id TEXT NOT NULL,
    day TEXT NOT NULL,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    conversations INTEGER NOT NULL DEFAULT 0,
    messages INTEGER NOT NULL DEFAULT 0,
    leads INTEGER NOT NULL DEFAULT 0,
    answered INTEGER NOT NULL DEFAULT 0,
    unanswered INTEGER NOT NULL DEFAULT 0,
    ratings_up INTEGER NOT NULL DEFAULT 0,
    ratings_down INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (owner_id, day)
) WITHOUT ROWID;
CREATE TABLE analytics_sources (
    owner_id TEXT NOT NULL,
    day TEXT NOT NULL,
    source_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    source_name TEXT NOT NULL,
    citations INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (owner_id, day, source_id)
) WITHOUT ROWID;
CREATE TABLE unanswered_questions (
    message_id TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    owner_id TEXT NOT NULL,
    question TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX unanswered_of_owner ON unanswered_questions (owner_id, created_at DESC, message_id DESC);
CREATE INDEX unanswered_of_conversation ON unanswered_questions (conversation_id);

CREATE TEMP TABLE turns AS
    SELECT c.owner_id, c.workspace_id, m.id, m.conversation_id, m.created_at,
           date(m.created_at / 1000, 'unixepoch') AS day,
           json_extract(m.body, '$.role') AS role, m.body,
           LAG(json_extract(m.body, '$.role')) OVER w AS prev_role,
           LAG(json_extract(m.body, '$.content')) OVER w AS prev_content
    FROM messages m JOIN conversations c ON c.id = m.conversation_id
    WINDOW w AS (PARTITION BY m.conversation_id ORDER BY m.id);
CREATE TEMP TABLE answers AS
    SELECT *, COALESCE(json_extract(body, '$.answered'),
                       json_extract(body, '$.generatedBy') = 'correction'
                       OR json_array_length(body, '$.citations') > 0) AS ok
    FROM turns WHERE role = 'assistant' AND prev_role = 'user';
INSERT INTO analytics_days (owner_id, day, workspace_id, conversations, leads)
    SELECT owner_id, date(created_at / 1000, 'unixepoch'), workspace_id, COUNT(*),
           SUM(json_extract(details, '$.visitor.email') IS NOT NULL)
    FROM conversations GROUP BY 1, 2, 3;
INSERT INTO analytics_days (owner_id, day, workspace_id, messages, answered, unanswered, ratings_up, ratings_down)
    SELECT owner_id, day, workspace_id,
           SUM(role = 'user'),
           SUM(role = 'assistant' AND prev_role = 'user' AND ok),
           SUM(role = 'assistant' AND prev_role = 'user' AND NOT ok),
           SUM(json_extract(body, '$.feedback.rating') = 'up'),
           SUM(json_extract(body, '$.feedback.rating') = 'down')
    FROM (SELECT t.*, a.ok FROM turns t LEFT JOIN answers a ON a.id = t.id) GROUP BY 1, 2, 3
    ON CONFLICT (owner_id, day) DO UPDATE SET messages = excluded.messages, answered = excluded.answered,
        unanswered = excluded.unanswered, ratings_up = excluded.ratings_up, ratings_down = excluded.ratings_down;
INSERT INTO analytics_sources (owner_id, day, source_id, workspace_id, source_name, citations)
    SELECT a.owner_id, a.day, json_extract(c.value, '$.sourceId'), a.workspace_id,
           MAX(json_extract(c.value, '$.sourceName')), COUNT(DISTINCT a.id)
    FROM answers a, json_each(a.body, '$.citations') c WHERE a.ok GROUP BY 1, 2, 3, 4;
INSERT INTO unanswered_questions (message_id, conversation_id, owner_id, question, created_at)
    SELECT id, conversation_id, owner_id, prev_content, created_at FROM answers WHERE NOT ok;
DROP TABLE turns;
DROP TABLE answers;
