-- The chunk index of the pgvector adapter (lib/pgvector): every chunk of every source with its
-- embedding and its full-text vector. Applied once by `PgIndex::migrate()`, which records it in
-- `lore_migrations`; statements are idempotent anyway.
--
-- Embeddings: one `vector` column WITHOUT a fixed dimension, so that one table serves every
-- embedder (the model name is stored per chunk; a deployment that changes its embedder re-embeds,
-- see `sources_with_other_models`). A column without a dimension cannot carry an HNSW index, so
-- the HNSW indexes are PARTIAL EXPRESSION indexes, one per supported dimension: they index
-- `embedding::vector(N)` for the rows `WHERE vector_dims(embedding) = N`. Queries that want one
-- repeat that expression and predicate. Dimensions without an index (any other embedder) are
-- searched exactly by a filtered scan. Add a dimension with a new migration, same pattern.
--
-- Operator class: inner product (`vector_ip_ops`, `<#>`). Embedders produce unit vectors, for
-- which the inner product IS the cosine similarity; it is also what the embedded index computes,
-- so both backends rank and score identically.
--
-- HNSW build parameters: m = 16 (graph degree), ef_construction = 64 (pgvector's defaults: good
-- recall for ≤ ~1M rows per dimension at moderate build cost). The query-time `hnsw.ef_search`
-- is set per query by the adapter (see lib/pgvector/src/lib.rs).

CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE IF NOT EXISTS chunks (
    id            text PRIMARY KEY,
    workspace_id  text NOT NULL,
    chatbot_id    text NOT NULL,
    source_id     text NOT NULL,
    position      integer NOT NULL,
    content       text NOT NULL,
    content_hash  text NOT NULL,
    url           text,
    model         text NOT NULL,
    embedding     vector NOT NULL,
    tsv           tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED
);

CREATE INDEX IF NOT EXISTS chunks_source_idx ON chunks (source_id);
CREATE INDEX IF NOT EXISTS chunks_chatbot_idx ON chunks (chatbot_id, model);
CREATE INDEX IF NOT EXISTS chunks_model_idx ON chunks (model);
CREATE INDEX IF NOT EXISTS chunks_tsv_idx ON chunks USING gin (tsv);

-- all-MiniLM-L6-v2 (the local embedder) and friends.
CREATE INDEX IF NOT EXISTS chunks_embedding_384_hnsw ON chunks
    USING hnsw ((embedding::vector(384)) vector_ip_ops) WITH (m = 16, ef_construction = 64)
    WHERE vector_dims(embedding) = 384;

-- OpenAI text-embedding-3-small / ada-002.
CREATE INDEX IF NOT EXISTS chunks_embedding_1536_hnsw ON chunks
    USING hnsw ((embedding::vector(1536)) vector_ip_ops) WITH (m = 16, ef_construction = 64)
    WHERE vector_dims(embedding) = 1536;
