-- A rotated secret keeps signing until its grace period ends.
ALTER TABLE hooks ADD COLUMN retiring_secret TEXT;
ALTER TABLE hooks ADD COLUMN retiring_until INTEGER;
