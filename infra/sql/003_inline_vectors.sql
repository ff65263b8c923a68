-- Vectors stay in the row. pgvector's type defaults to EXTERNAL storage, so once a row passed
-- ~2 KB (a 384-dimension vector is 1.5 KB, next to the chunk's text and its tsvector) the vector
-- was moved to the TOAST table, and the exact scan of a search fetched every candidate's vector
-- from there: 8 buffer reads a row, 57 ms for 10k chunks (docs/benchmarks.md, "pgvector search
-- latency"). With MAIN the text and the tsvector leave the row first; a 384-dimension vector stays
-- (11 ms). A 1536-dimension vector (6 KB) does not fit the row's 2 KB target and is still moved.
-- Only rows written from now on: a source's chunks move in when it is processed again.
ALTER TABLE chunks ALTER COLUMN embedding SET STORAGE MAIN;
