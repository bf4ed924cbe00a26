-- QingLong PostgreSQL schema v4: a management quota receipt names one request (DESIGN §3, issue 10).
-- From this version the code stores each receipt as {"id": receipt id, "d": request digest}: "d" is
-- the SHA-256 (64 lowercase hex digits) of operation + target + body. The same id with another
-- digest is refused (409 idempotency_key_reused) and never counted.
--
-- Existing rows are kept as they are: their receipts are plain strings ("legacy receipts") and the
-- code treats them as matching any digest, exactly as before this version. They live at most one
-- window (5 min hard bound): the next window reset replaces the whole array. Nothing is converted or
-- cleared, so no bucket loses a count.
--
-- Bounds (ADR 000 unchanged): at most 1000 receipts (consumed_count CHECK), array length = count and
-- at most 256 KiB of text (V1 CHECKs, kept). The largest receipt, a 128-character id and a digest,
-- is 213 bytes of jsonb text with its separator, so 1000 of them are 213,000 bytes < 262,144.
--
-- This CHECK keeps receipts to those two shapes. It looks at the last element only, in constant
-- time under the bucket's row lock (a jsonpath over all 1000 elements costs tens of milliseconds per
-- decision): the decision statement only ever writes a one-element array or appends one element,
-- so every element is checked when it is written. coalesce: a CHECK that is NULL would pass.
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).

ALTER TABLE plugin_package_management_quota_buckets
  ADD CONSTRAINT plugin_package_management_quota_buckets_receipt_shape_check
  CHECK (coalesce(
    CASE jsonb_typeof(receipt_ids -> -1)
      WHEN 'string' THEN (receipt_ids ->> -1) ~ '^[A-Za-z0-9._:-]{1,128}$'
      WHEN 'object' THEN (receipt_ids -> -1) - 'id' - 'd' = '{}'::jsonb
                         AND jsonb_typeof(receipt_ids -> -1 -> 'id') = 'string'
                         AND (receipt_ids -> -1 ->> 'id') ~ '^[A-Za-z0-9._:-]{1,128}$'
                         AND jsonb_typeof(receipt_ids -> -1 -> 'd') = 'string'
                         AND (receipt_ids -> -1 ->> 'd') ~ '^[0-9a-f]{64}$'
      ELSE false
    END, false));
