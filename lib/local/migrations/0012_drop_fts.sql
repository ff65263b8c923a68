-- Keyword search ranks from postings kept in memory per owner (`keywords.rs`), built from
-- the chunk texts with the same tokenizer; the FTS5 table was no longer read, and kept every
-- chunk write busy.
DROP TRIGGER chunks_fts_insert;
DROP TRIGGER chunks_fts_delete;
DROP TRIGGER chunks_fts_update;
DROP TABLE chunks_fts;
