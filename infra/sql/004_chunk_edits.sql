-- Owners see and change their chunks (docs/api.md §6, "Chunks"). Both searches read only enabled
-- chunks (`WHERE enabled`, lib/pgvector/src/lib.rs); an edited chunk holds its owner's text with
-- its new embedding (`tsv`, a generated column, follows the text). A run over unchanged content
-- keeps both. Constant defaults: adding the columns rewrites no row.
ALTER TABLE chunks ADD COLUMN IF NOT EXISTS enabled boolean NOT NULL DEFAULT true;
ALTER TABLE chunks ADD COLUMN IF NOT EXISTS edited boolean NOT NULL DEFAULT false;
