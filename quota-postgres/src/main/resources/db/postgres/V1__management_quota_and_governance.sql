-- QingLong PostgreSQL schema v1: Project Policy, plugin-package governance, management quota
-- (ADR 000). Runs as the schema owner inside schema "qinglong" (created by Flyway).
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).
-- The ql3_* login roles must exist (CloudNativePG managed roles, or qinglong.postgres.bootstrap-roles).

CREATE TABLE project_members (
  project_id    text     NOT NULL CHECK (project_id ~ '^[A-Za-z0-9._:-]{1,128}$'),
  user_id       text     NOT NULL CHECK (user_id ~ '^[A-Za-z0-9._:-]{1,128}$'),
  permissions   text[]   NOT NULL CHECK (permissions <@ ARRAY['package.manage', 'approval.decide',
                                                                'package.read', 'model.invoke',
                                                                'model.usage.read', 'project.admin']),
  updated_at_ms bigint   NOT NULL,
  PRIMARY KEY (project_id, user_id)
);

CREATE TABLE plugin_package_proposals (
  project_id      text   NOT NULL,
  proposal_id     text   NOT NULL,
  approval_id     text   NOT NULL,
  action_ref      text   NOT NULL CHECK (action_ref ~ '^[A-Za-z0-9._:-]{1,128}$'),
  action_type     text   NOT NULL CHECK (action_type IN ('install', 'upgrade', 'remove')),
  package_name    text   NOT NULL,
  package_version text   NOT NULL,
  artifact_digest text   CHECK (artifact_digest ~ '^sha256:[0-9a-f]{64}$'),
  action_digest   text   NOT NULL CHECK (action_digest ~ '^sha256:[0-9a-f]{64}$'),
  proposed_by     text   NOT NULL,
  state           text   NOT NULL CHECK (state IN ('pending', 'approved', 'rejected', 'published')),
  created_at_ms   bigint NOT NULL,
  updated_at_ms   bigint NOT NULL,
  PRIMARY KEY (project_id, proposal_id),
  UNIQUE (project_id, action_ref),
  UNIQUE (project_id, approval_id),
  CHECK ((action_type = 'remove') = (artifact_digest IS NULL))
);

CREATE TABLE plugin_package_approvals (
  project_id    text   NOT NULL,
  approval_id   text   NOT NULL,
  proposal_id   text   NOT NULL,
  action_digest text   NOT NULL CHECK (action_digest ~ '^sha256:[0-9a-f]{64}$'),
  proposed_by   text   NOT NULL,
  state         text   NOT NULL CHECK (state IN ('pending', 'approved', 'rejected')),
  decision_id   text,
  decision      text   CHECK (decision IN ('approve', 'reject')),
  decided_by    text,
  decided_at_ms bigint,
  created_at_ms bigint NOT NULL,
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
);

CREATE TABLE plugin_package_management_quota_buckets (
  project_id           text    NOT NULL,
  subject_type         text    NOT NULL CHECK (subject_type = 'user'),
  subject_id           text    NOT NULL,
  operation            text    NOT NULL CHECK (operation IN ('plugin-package.propose',
                                                             'plugin-package.decide',
                                                             'plugin-package.inspect')),
  window_started_at_ms bigint  NOT NULL,
  consumed_count       integer NOT NULL CHECK (consumed_count BETWEEN 1 AND 1000),
  -- Receipt ids of the current window; the array length is the count (ADR 000).
  receipt_ids          jsonb   NOT NULL CHECK (jsonb_typeof(receipt_ids) = 'array'
                                               AND jsonb_array_length(receipt_ids) = consumed_count
                                               AND octet_length(receipt_ids::text) <= 262144),
  updated_at_ms        bigint  NOT NULL,
  PRIMARY KEY (project_id, subject_type, subject_id, operation)
);

-- Least privilege (DESIGN §4). Nothing for PUBLIC; no role gets DELETE, ownership or CREATE.
REVOKE ALL ON SCHEMA qinglong FROM PUBLIC;
REVOKE ALL ON ALL TABLES IN SCHEMA qinglong FROM PUBLIC;
GRANT USAGE ON SCHEMA qinglong
  TO ql3_admin, ql3_package_manager, ql3_package_executor, ql3_runtime, ql3_worker_ingress;

-- Only the package manager decides quota and governs packages.
GRANT SELECT, INSERT, UPDATE ON plugin_package_management_quota_buckets TO ql3_package_manager;
GRANT SELECT, INSERT, UPDATE ON plugin_package_proposals, plugin_package_approvals
  TO ql3_package_manager;
GRANT SELECT ON project_members TO ql3_package_manager;

-- The administrator maintains Project Policy (memberships are replaced, never deleted).
GRANT SELECT, INSERT, UPDATE ON project_members TO ql3_admin;

-- Readiness of every component compares the applied schema version with the one it needs.
GRANT SELECT ON flyway_schema_history
  TO ql3_admin, ql3_package_manager, ql3_package_executor, ql3_runtime, ql3_worker_ingress;
