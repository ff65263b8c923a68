-- Due deliveries in claim order (`ORDER BY next_attempt_at, id`) straight from the index: on
-- `next_attempt_at` alone, every claim sorted the due deliveries that share a time (a
-- fan-out's all do) to find its first few.
DROP INDEX deliveries_due;
CREATE INDEX deliveries_due ON deliveries (next_attempt_at, id) WHERE status = 'pending';
