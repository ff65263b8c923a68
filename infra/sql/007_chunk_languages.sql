-- Each chunk counts only the terms its own language folds a question into (lib/keywords
-- `QueryTerm`), so a keyword segment keeps its chunks' languages one byte per position offset
-- (lib/keywords `LanguageSet::position`). Segments written before have none and count every term,
-- as before, until the keyword backlog (`lore migrate --backend aws`) writes them again.
ALTER TABLE keyword_segments ADD COLUMN IF NOT EXISTS chunk_languages bytea NOT NULL DEFAULT '\x';
DROP INDEX IF EXISTS keyword_segments_owner;
CREATE INDEX IF NOT EXISTS keyword_segments_owner ON keyword_segments (owner_id, workspace_id)
    INCLUDE (id, source_id, block, span, chunks, terms, languages, chunk_languages);
INSERT INTO keyword_backlog (source_id) SELECT DISTINCT source_id FROM keyword_segments ON CONFLICT DO NOTHING;
