-- QingLong PostgreSQL schema v2: the management quota also limits model usage reads (DESIGN §5,
-- operation 'model-usage.read'). Rows are untouched; only the CHECK on operation is widened.
-- The constraint name is PostgreSQL's default for V1's column CHECK; no IF EXISTS, so a schema that
-- differs from V1 fails here loudly instead of keeping the old constraint.
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).

ALTER TABLE plugin_package_management_quota_buckets
  DROP CONSTRAINT plugin_package_management_quota_buckets_operation_check;

ALTER TABLE plugin_package_management_quota_buckets
  ADD CONSTRAINT plugin_package_management_quota_buckets_operation_check
  CHECK (operation IN ('plugin-package.propose',
                       'plugin-package.decide',
                       'plugin-package.inspect',
                       'model-usage.read'));
