-- QingLong PostgreSQL schema v9: the operations a management quota bucket may count are rows of
-- management_quota_operations, and the bucket's operation is a foreign key to it, instead of a
-- CHECK that lists the names (which V2 and V6 dropped and re-added to add an operation). From this
-- version a new operation is one INSERT into management_quota_operations in a new migration
-- (docs/architecture.md, "A new management-quota operation").
--
-- A bad operation name still cannot be stored: the foreign key refuses it. PostgreSQL checks it
-- when a bucket is inserted (one primary-key probe, on the first decision of a user and operation)
-- and not when the decision updates the bucket, because the update never changes the operation.
-- The check runs with the table owner's rights, so no login role needs a privilege on the new
-- table, and none gets one.
--
-- Receipts are {"id", "d"} objects only. The plain-string receipts of schema versions before V4
-- are no longer read by the code; this schema was never released, so no database holds one, and
-- a development database that might is cleaned here: a bucket that still holds a plain string is
-- deleted (at worst its subject gets a fresh window once). The receipt-shape CHECK is narrowed to
-- the object form (a CASE, as in V4, so that "-" never meets a string); it still looks at the last
-- element only, because the decision only ever writes a one-element array or appends one element.
-- Constraint names are those V1, V4 and V6 left; no IF EXISTS, so a schema that differs fails here
-- loudly.
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).

CREATE TABLE management_quota_operations (
  operation text PRIMARY KEY CHECK (operation ~ '^[a-z0-9.-]{1,64}$')
);

INSERT INTO management_quota_operations (operation) VALUES
  ('plugin-package.propose'),
  ('plugin-package.decide'),
  ('plugin-package.inspect'),
  ('model-usage.read'),
  ('artifact.upload');

REVOKE ALL ON management_quota_operations FROM PUBLIC;

DELETE FROM plugin_package_management_quota_buckets b
WHERE EXISTS (SELECT 1 FROM jsonb_array_elements(b.receipt_ids) e
              WHERE jsonb_typeof(e) <> 'object');

ALTER TABLE plugin_package_management_quota_buckets
  DROP CONSTRAINT plugin_package_management_quota_buckets_operation_check;

ALTER TABLE plugin_package_management_quota_buckets
  ADD CONSTRAINT plugin_package_management_quota_buckets_operation_fkey
  FOREIGN KEY (operation) REFERENCES management_quota_operations (operation);

ALTER TABLE plugin_package_management_quota_buckets
  DROP CONSTRAINT plugin_package_management_quota_buckets_receipt_shape_check;

ALTER TABLE plugin_package_management_quota_buckets
  ADD CONSTRAINT plugin_package_management_quota_buckets_receipt_shape_check
  CHECK (coalesce(
    CASE jsonb_typeof(receipt_ids -> -1)
      WHEN 'object' THEN (receipt_ids -> -1) - 'id' - 'd' = '{}'::jsonb
                         AND jsonb_typeof(receipt_ids -> -1 -> 'id') = 'string'
                         AND (receipt_ids -> -1 ->> 'id') ~ '^[A-Za-z0-9._:-]{1,128}$'
                         AND jsonb_typeof(receipt_ids -> -1 -> 'd') = 'string'
                         AND (receipt_ids -> -1 ->> 'd') ~ '^[0-9a-f]{64}$'
      ELSE false
    END, false));
