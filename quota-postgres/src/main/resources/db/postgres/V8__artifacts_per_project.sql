-- QingLong PostgreSQL schema v8: artifacts are per Project (issue 18). The content store stays
-- content-addressed and shared by all Projects, but a Project publishes (and so serves) only a
-- digest that was uploaded into that Project: PUT /v1/projects/{p}/artifacts/{digest} records the
-- (Project, digest) pair here, and the completion worker's scan and publication
-- (JdbcGovernanceStore.APPROVED_UNPUBLISHED, MARK_PUBLISHED) require the pair of the proposal.
-- Expand only: a new table, nothing existing is changed. Proposals already published stay
-- published; an approved proposal whose artifact was uploaded before this version is published
-- once the artifact is uploaded again into its Project (nothing here can tell who uploaded what).
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).

CREATE TABLE project_artifacts (
  project_id      text   NOT NULL CHECK (project_id ~ '^[A-Za-z0-9._:-]{1,128}$'),
  artifact_digest text   NOT NULL CHECK (artifact_digest ~ '^sha256:[0-9a-f]{64}$'),
  size_bytes      bigint NOT NULL CHECK (size_bytes >= 0),
  uploaded_at_ms  bigint NOT NULL,
  PRIMARY KEY (project_id, artifact_digest)
);

-- The management API records uploads (insert, or refresh an earlier upload's size and time); the
-- completion worker reads them before it publishes. No DELETE for anyone; nothing for the others.
REVOKE ALL ON project_artifacts FROM PUBLIC;
GRANT SELECT, INSERT, UPDATE ON project_artifacts TO ql3_package_manager;
GRANT SELECT ON project_artifacts TO ql3_package_executor;
