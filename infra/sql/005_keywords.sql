-- Keyword search by BM25, ranked as the embedded index ranks (lib/keywords, lib/pgvector/src/keywords.rs).
--
-- PostgreSQL does not cut the text: the adapter cuts every chunk with SQLite FTS5's tokenizer (the
-- embedded index's terms, to the byte) and keeps per-term postings here. The unit is a SEGMENT:
-- the enabled chunks of one source whose positions share `position / 256`. A segment row holds
-- its partial statistics (chunks, terms) and one past its highest position offset (span); a postings row holds, for one term of one segment, how
-- many of its chunks have the term (`df`) and, packed (varints), each such chunk's position
-- offset, term count and length. A search sums the owner's segments for N and the average
-- length, sums `df` per query term, then reads and scores the postings of its terms in Rust.
-- Nothing is shared between sources, so concurrent writers of one owner never wait on a
-- counter row, and a source's segments are replaced in the chunk write's own transaction.
--
-- Terms are `bytea` (FTS5's bytes, compared bytewise, no collation). The primary key INCLUDEs
-- df and the postings, so a search reads a term's rows in key order from the index's leaf pages
-- (an index-only scan once autovacuum has marked the pages visible) instead of one heap page per
-- segment; a segment spans 256 positions so that an entry stays far below the btree's ~2.7 KB
-- limit (at most ~6 bytes a chunk).

CREATE TABLE IF NOT EXISTS keyword_segments (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    owner_id      text NOT NULL,
    workspace_id  text NOT NULL,
    source_id     text NOT NULL,
    block         integer NOT NULL,
    span          integer NOT NULL,
    chunks        integer NOT NULL,
    terms         bigint NOT NULL,
    UNIQUE (source_id, block)
);
CREATE INDEX IF NOT EXISTS keyword_segments_owner ON keyword_segments (owner_id, workspace_id)
    INCLUDE (id, source_id, block, span, chunks, terms);

CREATE TABLE IF NOT EXISTS keyword_postings (
    owner_id    text NOT NULL,
    term        bytea NOT NULL,
    segment_id  bigint NOT NULL REFERENCES keyword_segments (id) ON DELETE CASCADE,
    df          integer NOT NULL,
    postings    bytea NOT NULL,
    PRIMARY KEY (owner_id, term, segment_id) INCLUDE (df, postings)
);
CREATE INDEX IF NOT EXISTS keyword_postings_segment ON keyword_postings (segment_id);

-- Sources whose chunks were written before this migration: they have no segments yet, and
-- keyword search does not find them until `lore migrate --backend aws` (docs/deploying-aws.md, "Upgrading a stack") has
-- built theirs. Any write of a source takes it off the list.
CREATE TABLE IF NOT EXISTS keyword_backlog (source_id text PRIMARY KEY);
INSERT INTO keyword_backlog (source_id) SELECT DISTINCT source_id FROM chunks ON CONFLICT DO NOTHING;

-- A hit is fetched by (source, position), and a segment is rebuilt by a range of positions;
-- this index serves every lookup by source too, so the one on source_id alone goes.
CREATE INDEX IF NOT EXISTS chunks_source_position ON chunks (source_id, position);
DROP INDEX IF EXISTS chunks_source_idx;

-- PostgreSQL's own full text is no longer read: drop it (and its GIN index) so writes stop paying
-- for it. Dropping a column rewrites no row.
ALTER TABLE chunks DROP COLUMN IF EXISTS tsv;
