-- QingLong SQLite schema v11: events that report no change of their own (issue 21).
-- A refusal of the management quota (management-quota.rejected) and a model-quota window reaching
-- a configured fraction (model-quota.threshold) have no change transaction to share, so they are
-- written after the fact. Each such delivery carries a deduplication key (the bucket and window;
-- the window, dimension and fraction), unique per endpoint: writing it again (INSERT … ON CONFLICT
-- DO NOTHING) writes nothing, so the event is written once. Outbox deliveries have no key (NULL).
-- Expand only: one nullable column and one partial index; existing rows keep NULL.
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).

ALTER TABLE webhook_deliveries
  ADD COLUMN dedup_key TEXT CHECK (length(dedup_key) BETWEEN 1 AND 400);

CREATE UNIQUE INDEX webhook_deliveries_dedup_idx
  ON webhook_deliveries (project_id, webhook_id, dedup_key) WHERE dedup_key IS NOT NULL;
