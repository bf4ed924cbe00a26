-- QingLong SQLite schema v3: a management quota receipt names one request (DESIGN §3, issue 10).
-- From this version the code stores each receipt as {"id": receipt id, "d": request digest}: "d" is
-- the SHA-256 (64 lowercase hex digits) of operation + target + body. The same id with another
-- digest is refused (409 idempotency_key_reused) and never counted.
--
-- Existing rows are kept as they are: their receipts are plain strings ("legacy receipts") and the
-- code treats them as matching any digest, exactly as before this version. They live at most one
-- window (5 min hard bound): the next window reset replaces the whole array. Nothing is converted or
-- cleared, so no bucket loses a count.
--
-- Bounds (ADR 000 unchanged): at most 1000 receipts, array length = count and at most 256 KiB (V2
-- CHECKs, kept). The largest receipt, a 128-character id and a digest, is 210 bytes of JSON text
-- with its separator, so 1000 of them are 210,000 bytes < 262,144.
--
-- These triggers keep receipts to those two shapes (a trigger, because adding a CHECK would mean
-- rebuilding the table). They look at the last element only, in constant time: the decision
-- statement only ever writes a one-element array or appends one element, so every element is
-- checked when it is written.
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).

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
