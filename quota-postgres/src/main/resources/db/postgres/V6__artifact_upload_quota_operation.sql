-- QingLong PostgreSQL schema v6: the management quota also limits artifact uploads (operation
-- 'artifact.upload', DESIGN §6), and the clean-up of unreferenced artifacts asks "does any proposal
-- name this digest?" without a scan. Rows are untouched; only the CHECK on operation is widened
-- (named as V2 left it; no IF EXISTS, so a schema that differs fails here loudly).
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).

ALTER TABLE plugin_package_management_quota_buckets
  DROP CONSTRAINT plugin_package_management_quota_buckets_operation_check;

ALTER TABLE plugin_package_management_quota_buckets
  ADD CONSTRAINT plugin_package_management_quota_buckets_operation_check
  CHECK (operation IN ('plugin-package.propose',
                       'plugin-package.decide',
                       'plugin-package.inspect',
                       'model-usage.read',
                       'artifact.upload'));

CREATE INDEX plugin_package_proposals_artifact_idx
  ON plugin_package_proposals (artifact_digest)
  WHERE artifact_digest IS NOT NULL;
