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

-- Dropping the old table dropped V3's receipt-shape triggers with it: the same two again.
CREATE TRIGGER plugin_package_management_quota_buckets_receipt_shape_insert
BEFORE INSERT ON plugin_package_management_quota_buckets
WHEN NOT coalesce(
  CASE json_type(NEW.receipt_ids, '$[#-1]')
    WHEN 'text' THEN length(json_extract(NEW.receipt_ids, '$[#-1]')) BETWEEN 1 AND 128
                     AND json_extract(NEW.receipt_ids, '$[#-1]') NOT GLOB '*[^A-Za-z0-9._:-]*'
    WHEN 'object' THEN json_remove(json_extract(NEW.receipt_ids, '$[#-1]'), '$.id', '$.d') = '{}'
                       AND json_type(NEW.receipt_ids, '$[#-1].id') = 'text'
                       AND length(json_extract(NEW.receipt_ids, '$[#-1].id')) BETWEEN 1 AND 128
                       AND json_extract(NEW.receipt_ids, '$[#-1].id')
                             NOT GLOB '*[^A-Za-z0-9._:-]*'
                       AND json_type(NEW.receipt_ids, '$[#-1].d') = 'text'
                       AND length(json_extract(NEW.receipt_ids, '$[#-1].d')) = 64
                       AND json_extract(NEW.receipt_ids, '$[#-1].d') NOT GLOB '*[^0-9a-f]*'
    ELSE 0
  END, 0)
BEGIN
  SELECT RAISE(ABORT, 'malformed management quota receipt');
END;

CREATE TRIGGER plugin_package_management_quota_buckets_receipt_shape_update
BEFORE UPDATE OF receipt_ids ON plugin_package_management_quota_buckets
WHEN NOT coalesce(
  CASE json_type(NEW.receipt_ids, '$[#-1]')
    WHEN 'text' THEN length(json_extract(NEW.receipt_ids, '$[#-1]')) BETWEEN 1 AND 128
                     AND json_extract(NEW.receipt_ids, '$[#-1]') NOT GLOB '*[^A-Za-z0-9._:-]*'
    WHEN 'object' THEN json_remove(json_extract(NEW.receipt_ids, '$[#-1]'), '$.id', '$.d') = '{}'
                       AND json_type(NEW.receipt_ids, '$[#-1].id') = 'text'
                       AND length(json_extract(NEW.receipt_ids, '$[#-1].id')) BETWEEN 1 AND 128
                       AND json_extract(NEW.receipt_ids, '$[#-1].id')
                             NOT GLOB '*[^A-Za-z0-9._:-]*'
                       AND json_type(NEW.receipt_ids, '$[#-1].d') = 'text'
                       AND length(json_extract(NEW.receipt_ids, '$[#-1].d')) = 64
                       AND json_extract(NEW.receipt_ids, '$[#-1].d') NOT GLOB '*[^0-9a-f]*'
    ELSE 0
  END, 0)
BEGIN
  SELECT RAISE(ABORT, 'malformed management quota receipt');
END;
