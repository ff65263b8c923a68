-- Owners see and change their chunks (docs/api.md §6, "Chunks"): a disabled chunk is left out of
-- the in-memory search indexes (`vectors.rs`, `keywords.rs`), so no search or answer finds it; an
-- edited one holds its owner's text, embedded again. A run over unchanged content keeps both.
ALTER TABLE chunks ADD COLUMN enabled INTEGER NOT NULL DEFAULT 1;
ALTER TABLE chunks ADD COLUMN edited INTEGER NOT NULL DEFAULT 0;
