-- Languages (docs/api.md §20). Each chunk keeps the language it is written in (ISO 639-1, NULL when
-- too short to tell); each keyword segment the set of its chunks' languages (bits, lib/keywords
-- `LanguageSet`), which a question is folded for. The keyword terms changed with this release
-- (one Rust tokenizer for every script instead of SQLite's English one): every source goes on the
-- keyword backlog, whose build (`lore migrate --backend aws`) detects the languages of chunks
-- written before and cuts their terms again. Constant defaults: adding the columns rewrites no row.
ALTER TABLE chunks ADD COLUMN IF NOT EXISTS language text;
ALTER TABLE keyword_segments ADD COLUMN IF NOT EXISTS languages bigint NOT NULL DEFAULT 0;
DROP INDEX IF EXISTS keyword_segments_owner;
CREATE INDEX IF NOT EXISTS keyword_segments_owner ON keyword_segments (owner_id, workspace_id)
    INCLUDE (id, source_id, block, span, chunks, terms, languages);
INSERT INTO keyword_backlog (source_id) SELECT DISTINCT source_id FROM chunks ON CONFLICT DO NOTHING;
