-- QingLong SQLite schema v6: artifacts are per Project (issue 18). The content store stays
-- content-addressed and shared by all Projects, but a Project publishes (and so serves) only a
-- digest that was uploaded into that Project: PUT /v1/projects/{p}/artifacts/{digest} records the
-- (Project, digest) pair here, and the completion worker's scan and publication
-- (JdbcGovernanceStore.APPROVED_UNPUBLISHED, MARK_PUBLISHED) require the pair of the proposal.
-- Expand only: a new table, nothing existing is changed. Proposals already published stay
-- published; an approved proposal whose artifact was uploaded before this version is published
-- once the artifact is uploaded again into its Project (nothing here can tell who uploaded what).
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).

CREATE TABLE project_artifacts (
  project_id      TEXT    NOT NULL CHECK (length(project_id) BETWEEN 1 AND 128),
  artifact_digest TEXT    NOT NULL CHECK (length(artifact_digest) = 71),
  size_bytes      INTEGER NOT NULL CHECK (size_bytes >= 0),
  uploaded_at_ms  INTEGER NOT NULL,
  PRIMARY KEY (project_id, artifact_digest)
) STRICT;
