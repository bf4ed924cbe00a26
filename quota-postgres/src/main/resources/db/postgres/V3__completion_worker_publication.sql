-- QingLong PostgreSQL schema v3: the completion worker (ADR 002, DESIGN §6) publishes approved
-- install/upgrade proposals as ql3_package_executor; the download routes look up published
-- artifacts per Project. Released migrations are never edited: add a new version instead (checksums
-- are pinned by a test).

-- The worker's keyset scan over approved, not yet published proposals.
CREATE INDEX plugin_package_proposals_approved_idx
  ON plugin_package_proposals (project_id, proposal_id)
  WHERE state = 'approved' AND artifact_digest IS NOT NULL;

-- "Is this artifact published in this Project?" (GET|HEAD /v1/projects/{p}/artifacts/{digest}).
CREATE INDEX plugin_package_proposals_published_artifact_idx
  ON plugin_package_proposals (project_id, artifact_digest)
  WHERE state = 'published';

-- The executor reads proposals and may change only their state and timestamp: no INSERT, no
-- DELETE, nothing on approvals, members or quota buckets.
GRANT SELECT ON plugin_package_proposals TO ql3_package_executor;
GRANT UPDATE (state, updated_at_ms) ON plugin_package_proposals TO ql3_package_executor;
