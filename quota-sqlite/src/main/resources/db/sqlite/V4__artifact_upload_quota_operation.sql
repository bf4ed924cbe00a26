-- QingLong SQLite schema v4: the management quota also limits artifact uploads (operation
-- 'artifact.upload', DESIGN §6), and the clean-up of unreferenced artifacts asks "does any proposal
-- name this digest?" without a scan. SQLite cannot alter a CHECK constraint, so the bucket table is
-- rebuilt and every row copied, as in V2; nothing else references it.
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).

CREATE TABLE plugin_package_management_quota_buckets_v4 (
  project_id           TEXT    NOT NULL,
  subject_type         TEXT    NOT NULL CHECK (subject_type = 'user'),
  subject_id           TEXT    NOT NULL,
  operation            TEXT    NOT NULL CHECK (operation IN ('plugin-package.propose',
                                                             'plugin-package.decide',
                                                             'plugin-package.inspect',
                                                             'model-usage.read',
                                                             'artifact.upload')),
  window_started_at_ms INTEGER NOT NULL,
  consumed_count       INTEGER NOT NULL CHECK (consumed_count BETWEEN 1 AND 1000),
  -- JSON array of receipt ids of the current window; its length is the count (ADR 000).
  receipt_ids          TEXT    NOT NULL CHECK (json_valid(receipt_ids)
                                               AND json_type(receipt_ids) = 'array'
                                               AND json_array_length(receipt_ids) = consumed_count
                                               AND length(CAST(receipt_ids AS BLOB)) <= 262144),
  updated_at_ms        INTEGER NOT NULL,
  PRIMARY KEY (project_id, subject_type, subject_id, operation)
) STRICT;

INSERT INTO plugin_package_management_quota_buckets_v4
  (project_id, subject_type, subject_id, operation,
   window_started_at_ms, consumed_count, receipt_ids, updated_at_ms)
SELECT project_id, subject_type, subject_id, operation,
       window_started_at_ms, consumed_count, receipt_ids, updated_at_ms
FROM plugin_package_management_quota_buckets;

DROP TABLE plugin_package_management_quota_buckets;

ALTER TABLE plugin_package_management_quota_buckets_v4
  RENAME TO plugin_package_management_quota_buckets;

CREATE INDEX plugin_package_proposals_artifact_idx
  ON plugin_package_proposals (artifact_digest)
  WHERE artifact_digest IS NOT NULL;
