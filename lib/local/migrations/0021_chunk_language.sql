-- Languages (docs/api.md §20): each chunk keeps the language it is written in (ISO 639-1, NULL
-- when too short to tell). Chunks written before are detected once, by the Rust step that runs
-- with this migration (`sqlite.rs`, `detect_chunk_languages`); the keyword index is built in
-- memory from the chunks, so it reads them folded by their language from then on.
ALTER TABLE chunks ADD COLUMN language TEXT;
