-- A `mind.lead.captured` subscription may narrow to one Mind.
ALTER TABLE hooks ADD COLUMN mind_id TEXT;
