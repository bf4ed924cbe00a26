-- QingLong PostgreSQL schema v11: management-quota limits as data. The configured limits stay the
-- defaults; a Project may have its own limits and shadow limits, and so may one user in a Project.
-- Each change is an immutable revision (who, when on the database clock) in
-- management_quota_limit_revisions, numbered from 1 per (Project, user); user_id '' is the
-- Project's own policy (no user id is empty). The revision's values are rows of
-- management_quota_limits, one per operation known when it was written, NULL where the revision
-- sets nothing, so that the latest row of a (Project, user, operation) is the operation's value in
-- the latest revision: the deciding statement looks it up with one backward probe of the primary
-- key, per level (user, Project). An operation added by a later migration has no row in older
-- revisions and so falls through to the next level, as it should.
--
-- Only ql3_admin writes them (a policy write, as the Project Policy's members are); the package
-- manager, whose statements decide, reads them. Nobody changes or deletes a revision (triggers,
-- the owner included).
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).

CREATE TABLE management_quota_limit_revisions (
  project_id text   NOT NULL,
  user_id    text   NOT NULL,
  revision   bigint NOT NULL CHECK (revision >= 1),
  set_by     text   NOT NULL,
  set_at_ms  bigint NOT NULL,
  PRIMARY KEY (project_id, user_id, revision)
);

CREATE TABLE management_quota_limits (
  project_id   text    NOT NULL,
  user_id      text    NOT NULL,
  operation    text    NOT NULL REFERENCES management_quota_operations (operation),
  revision     bigint  NOT NULL,
  limit_value  integer CHECK (limit_value BETWEEN 1 AND 1000),
  shadow_limit integer CHECK (shadow_limit BETWEEN 1 AND 1000),
  PRIMARY KEY (project_id, user_id, operation, revision),
  FOREIGN KEY (project_id, user_id, revision)
    REFERENCES management_quota_limit_revisions (project_id, user_id, revision)
);

REVOKE ALL ON management_quota_limit_revisions, management_quota_limits FROM PUBLIC;
GRANT SELECT, INSERT ON management_quota_limit_revisions, management_quota_limits TO ql3_admin;
GRANT SELECT ON management_quota_limit_revisions, management_quota_limits TO ql3_package_manager;

CREATE TRIGGER management_quota_limit_revisions_append_only
BEFORE UPDATE OR DELETE ON management_quota_limit_revisions
FOR EACH ROW EXECUTE FUNCTION plugin_package_append_only();

CREATE TRIGGER management_quota_limit_revisions_truncate
BEFORE TRUNCATE ON management_quota_limit_revisions
FOR EACH STATEMENT EXECUTE FUNCTION plugin_package_append_only();

CREATE TRIGGER management_quota_limits_append_only
BEFORE UPDATE OR DELETE ON management_quota_limits
FOR EACH ROW EXECUTE FUNCTION plugin_package_append_only();

CREATE TRIGGER management_quota_limits_truncate
BEFORE TRUNCATE ON management_quota_limits
FOR EACH STATEMENT EXECUTE FUNCTION plugin_package_append_only();
