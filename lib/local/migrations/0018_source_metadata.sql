-- Source metadata (docs/api.md §6 "Metadata"): the owner's tags of a source as one JSON object
-- (`lore_domain::metadata::Metadata`), read by search filters. Existing sources have none.
ALTER TABLE sources ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
