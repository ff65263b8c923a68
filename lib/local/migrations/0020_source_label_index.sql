-- Every search reads the id, name, type and metadata of the owner's ready sources. `metadata` came
-- last (0018), after `spec`, which holds a text source's whole content: reading it from the row
-- walks that content's overflow pages, ~7 ms a search for 250 sources of 80 KB each. These
-- indexes hold all that search reads, so the rows themselves are not read. One per kind of owner:
-- SQLite does not answer from an index on the generated `owner_id` alone.
CREATE INDEX sources_chatbot_labels ON sources (chatbot_id, workspace_id, status, id, name, type, metadata)
    WHERE chatbot_id IS NOT NULL;
CREATE INDEX sources_mind_labels ON sources (mind_id, workspace_id, status, id, name, type, metadata)
    WHERE mind_id IS NOT NULL;
-- The storage quota's sum reads `size_bytes`, which also sits after `spec`: the same cure.
DROP INDEX sources_by_workspace;
CREATE INDEX sources_by_workspace ON sources (workspace_id, size_bytes);
