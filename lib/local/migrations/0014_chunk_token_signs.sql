-- A chunk's token signs, for late interaction (`lore_domain::late_interaction`); NULL for
-- chunks of an embedder without token states.
ALTER TABLE chunks ADD COLUMN token_signs BLOB;
