-- QingLong SQLite schema v7: the operations a management quota bucket may count are rows of
-- management_quota_operations, and the bucket's operation is a foreign key to it, instead of a
-- CHECK that lists the names. SQLite cannot alter a CHECK, so V2 and V4 rebuilt the bucket table
-- to add an operation; from this version a new operation is one INSERT into
-- management_quota_operations in a new migration (docs/architecture.md, "A new management-quota
-- operation"). This is the last rebuild for that.
--
-- A bad operation name still cannot be stored: the foreign key refuses it (every connection opens
-- with foreign_keys on, SqliteDatabase.open). SQLite checks it when a bucket is inserted (one
-- primary-key probe, on the first decision of a user and operation) and not when the decision
-- updates the bucket, because the update never changes the operation.
--
-- Receipts are {"id", "d"} objects only. The plain-string receipts of schema versions before V3
-- are no longer read by the code; this schema was never released, so no database holds one, and
-- a development database that might is cleaned here: a bucket that still holds a plain string is
-- not copied (at worst its subject gets a fresh window once). The receipt-shape rule moves from
-- the V3/V4 triggers into a CHECK of the rebuilt table (dropping the old table drops the
-- triggers): it looks at the last element only, as they did, because the decision only ever
-- writes a one-element array or appends one element.
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).

CREATE TABLE management_quota_operations (
  operation TEXT NOT NULL PRIMARY KEY CHECK (length(operation) BETWEEN 1 AND 64
                                             AND operation NOT GLOB '*[^a-z0-9.-]*')
) STRICT;

INSERT INTO management_quota_operations (operation) VALUES
  ('plugin-package.propose'),
  ('plugin-package.decide'),
  ('plugin-package.inspect'),
  ('model-usage.read'),
  ('artifact.upload');

CREATE TABLE plugin_package_management_quota_buckets_v7 (
  project_id           TEXT    NOT NULL,
  subject_type         TEXT    NOT NULL CHECK (subject_type = 'user'),
  subject_id           TEXT    NOT NULL,
  operation            TEXT    NOT NULL REFERENCES management_quota_operations (operation),
  window_started_at_ms INTEGER NOT NULL,
  consumed_count       INTEGER NOT NULL CHECK (consumed_count BETWEEN 1 AND 1000),
  -- JSON array of the current window's receipts; its length is the count. At most 1000 receipts
  -- and 256 KiB: the largest receipt (a 128-character id and a digest) is 210 bytes with its
  -- separator, so 1000 of them fit.
  receipt_ids          TEXT    NOT NULL CHECK (json_valid(receipt_ids)
                                               AND json_type(receipt_ids) = 'array'
                                               AND json_array_length(receipt_ids) = consumed_count
                                               AND length(CAST(receipt_ids AS BLOB)) <= 262144),
  updated_at_ms        INTEGER NOT NULL,
  PRIMARY KEY (project_id, subject_type, subject_id, operation),
  -- The last receipt is {"id": 1..128 of [A-Za-z0-9._:-], "d": 64 lowercase hex digits} and
  -- nothing else. CASE, so that nothing parses a last element that is not an object (json_remove
  -- would fail on it instead of the CHECK); coalesce, because a CHECK that is NULL would pass.
  CONSTRAINT receipt_shape CHECK (coalesce(
    CASE json_type(receipt_ids, '$[#-1]')
      WHEN 'object' THEN json_remove(json_extract(receipt_ids, '$[#-1]'), '$.id', '$.d') = '{}'
                         AND json_type(receipt_ids, '$[#-1].id') = 'text'
                         AND length(json_extract(receipt_ids, '$[#-1].id')) BETWEEN 1 AND 128
                         AND json_extract(receipt_ids, '$[#-1].id')
                               NOT GLOB '*[^A-Za-z0-9._:-]*'
                         AND json_type(receipt_ids, '$[#-1].d') = 'text'
                         AND length(json_extract(receipt_ids, '$[#-1].d')) = 64
                         AND json_extract(receipt_ids, '$[#-1].d') NOT GLOB '*[^0-9a-f]*'
      ELSE 0
    END, 0))
) STRICT;

INSERT INTO plugin_package_management_quota_buckets_v7
  (project_id, subject_type, subject_id, operation,
   window_started_at_ms, consumed_count, receipt_ids, updated_at_ms)
SELECT project_id, subject_type, subject_id, operation,
       window_started_at_ms, consumed_count, receipt_ids, updated_at_ms
FROM plugin_package_management_quota_buckets b
WHERE NOT EXISTS (SELECT 1 FROM json_each(b.receipt_ids) e WHERE e.type <> 'object');

DROP TABLE plugin_package_management_quota_buckets;

ALTER TABLE plugin_package_management_quota_buckets_v7
  RENAME TO plugin_package_management_quota_buckets;
