-- A chunk's token signs, for late interaction (lore_domain::late_interaction): per two
-- consecutive tokens, one bit a dimension. NULL for chunks of an embedder without token states.
ALTER TABLE chunks ADD COLUMN IF NOT EXISTS token_signs bytea;
