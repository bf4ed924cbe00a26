-- QingLong SQLite schema v9: management-quota limits as data. The configured limits stay the
-- defaults; a Project may have its own limits and shadow limits, and so may one user in a Project.
-- Each change is an immutable revision (who, when on the database clock) in
-- management_quota_limit_revisions, numbered from 1 per (Project, user); user_id '' is the
-- Project's own policy (no user id is empty). The revision's values are rows of
-- management_quota_limits, one per operation known when it was written, NULL where the revision
-- sets nothing, so that the latest row of a (Project, user, operation) is the operation's value in
-- the latest revision: the deciding statement looks it up with one backward probe of the primary
-- key, per level (user, Project). An operation added by a later migration has no row in older
-- revisions and so falls through to the next level, as it should. Nobody changes or deletes a
-- revision (triggers).
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).

CREATE TABLE management_quota_limit_revisions (
  project_id TEXT    NOT NULL,
  user_id    TEXT    NOT NULL,
  revision   INTEGER NOT NULL CHECK (revision >= 1),
  set_by     TEXT    NOT NULL,
  set_at_ms  INTEGER NOT NULL,
  PRIMARY KEY (project_id, user_id, revision)
) STRICT;

CREATE TABLE management_quota_limits (
  project_id   TEXT    NOT NULL,
  user_id      TEXT    NOT NULL,
  operation    TEXT    NOT NULL REFERENCES management_quota_operations (operation),
  revision     INTEGER NOT NULL,
  limit_value  INTEGER CHECK (limit_value BETWEEN 1 AND 1000),
  shadow_limit INTEGER CHECK (shadow_limit BETWEEN 1 AND 1000),
  PRIMARY KEY (project_id, user_id, operation, revision),
  FOREIGN KEY (project_id, user_id, revision)
    REFERENCES management_quota_limit_revisions (project_id, user_id, revision)
) STRICT;

CREATE TRIGGER management_quota_limit_revisions_no_update
BEFORE UPDATE ON management_quota_limit_revisions
BEGIN
  SELECT RAISE(ABORT, 'management_quota_limit_revisions: a revision is never changed');
END;

CREATE TRIGGER management_quota_limit_revisions_no_delete
BEFORE DELETE ON management_quota_limit_revisions
BEGIN
  SELECT RAISE(ABORT, 'management_quota_limit_revisions: a revision is never deleted');
END;

CREATE TRIGGER management_quota_limits_no_update
BEFORE UPDATE ON management_quota_limits
BEGIN
  SELECT RAISE(ABORT, 'management_quota_limits: a revision is never changed');
END;

CREATE TRIGGER management_quota_limits_no_delete
BEFORE DELETE ON management_quota_limits
BEGIN
  SELECT RAISE(ABORT, 'management_quota_limits: a revision is never deleted');
END;
