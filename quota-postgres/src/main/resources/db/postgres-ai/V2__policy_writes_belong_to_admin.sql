-- QingLong optional AI feature, PostgreSQL v2: model and Project quota policies are written by the
-- administrator's login (ql3_admin, the `project.admin` routes), never by the runtime that is
-- fenced by them: ql3_runtime could otherwise raise its own budget. The runtime keeps reading them.
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).

REVOKE INSERT ON model_invocation_policies, model_project_quota_policies FROM ql3_runtime;

-- Revisions are append-only for the administrator too: SELECT (the latest revision) and INSERT.
GRANT SELECT, INSERT ON model_invocation_policies, model_project_quota_policies TO ql3_admin;
