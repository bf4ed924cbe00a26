-- QingLong SQLite schema v1: Project Policy, plugin-package governance, management quota (ADR 000).
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).

CREATE TABLE project_members (
  project_id    TEXT    NOT NULL CHECK (length(project_id) BETWEEN 1 AND 128),
  user_id       TEXT    NOT NULL CHECK (length(user_id) BETWEEN 1 AND 128),
  -- JSON array of permission names, sorted.
  permissions   TEXT    NOT NULL CHECK (json_valid(permissions) AND json_type(permissions) = 'array'),
  updated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (project_id, user_id)
) STRICT;

CREATE TABLE plugin_package_proposals (
  project_id      TEXT    NOT NULL,
  proposal_id     TEXT    NOT NULL,
  approval_id     TEXT    NOT NULL,
  action_ref      TEXT    NOT NULL CHECK (length(action_ref) BETWEEN 1 AND 128),
  action_type     TEXT    NOT NULL CHECK (action_type IN ('install', 'upgrade', 'remove')),
  package_name    TEXT    NOT NULL,
  package_version TEXT    NOT NULL,
  artifact_digest TEXT,
  action_digest   TEXT    NOT NULL CHECK (length(action_digest) = 71),
  proposed_by     TEXT    NOT NULL,
  state           TEXT    NOT NULL CHECK (state IN ('pending', 'approved', 'rejected', 'published')),
  created_at_ms   INTEGER NOT NULL,
  updated_at_ms   INTEGER NOT NULL,
  PRIMARY KEY (project_id, proposal_id),
  UNIQUE (project_id, action_ref),
  UNIQUE (project_id, approval_id),
  CHECK ((action_type = 'remove') = (artifact_digest IS NULL))
) STRICT;

CREATE TABLE plugin_package_approvals (
  project_id    TEXT    NOT NULL,
  approval_id   TEXT    NOT NULL,
  proposal_id   TEXT    NOT NULL,
  action_digest TEXT    NOT NULL,
  proposed_by   TEXT    NOT NULL,
  state         TEXT    NOT NULL CHECK (state IN ('pending', 'approved', 'rejected')),
  decision_id   TEXT,
  decision      TEXT    CHECK (decision IN ('approve', 'reject')),
  decided_by    TEXT,
  decided_at_ms INTEGER,
  created_at_ms INTEGER NOT NULL,
  PRIMARY KEY (project_id, approval_id),
  UNIQUE (project_id, decision_id),
  FOREIGN KEY (project_id, proposal_id) REFERENCES plugin_package_proposals (project_id, proposal_id),
  -- A decision is all-or-nothing, and the four-eyes rule holds in the data too.
  CHECK ((state = 'pending') = (decision_id IS NULL)),
  CHECK ((decision_id IS NULL) = (decision IS NULL)),
  CHECK ((decision_id IS NULL) = (decided_by IS NULL)),
  CHECK ((decision_id IS NULL) = (decided_at_ms IS NULL)),
  CHECK (decided_by IS NULL OR decided_by <> proposed_by),
  CHECK (decision IS NULL OR (decision = 'approve') = (state = 'approved'))
) STRICT;

CREATE TABLE plugin_package_management_quota_buckets (
  project_id           TEXT    NOT NULL,
  subject_type         TEXT    NOT NULL CHECK (subject_type = 'user'),
  subject_id           TEXT    NOT NULL,
  operation            TEXT    NOT NULL CHECK (operation IN ('plugin-package.propose',
                                                             'plugin-package.decide',
                                                             'plugin-package.inspect')),
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
