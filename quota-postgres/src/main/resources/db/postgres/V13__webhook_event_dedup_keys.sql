-- QingLong PostgreSQL schema v13: events that report no change of their own (issue 21).
-- A refusal of the management quota (management-quota.rejected) and a model-quota window reaching
-- a configured fraction (model-quota.threshold) have no change transaction to share, so they are
-- written after the fact, possibly by several processes at once. Each such delivery carries a
-- deduplication key (the bucket and window; the window, dimension and fraction), unique per
-- endpoint: a second writer's INSERT … ON CONFLICT DO NOTHING writes nothing, so every replica
-- together writes the event once. Deliveries of the transactional outbox have no key (NULL, never
-- in conflict).
-- Expand only: one nullable column and one partial index; existing rows keep NULL.
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).
-- No new grant: ql3_admin (the refusal, written by the management side) and ql3_package_executor
-- (the threshold pass, run by the worker) already insert deliveries and read subscriptions (v12).

ALTER TABLE webhook_deliveries
  ADD COLUMN dedup_key text
    CHECK (length(dedup_key) BETWEEN 1 AND 400 AND dedup_key ~ '^[A-Za-z0-9._:-]+$');

CREATE UNIQUE INDEX webhook_deliveries_dedup_idx
  ON webhook_deliveries (project_id, webhook_id, dedup_key) WHERE dedup_key IS NOT NULL;
