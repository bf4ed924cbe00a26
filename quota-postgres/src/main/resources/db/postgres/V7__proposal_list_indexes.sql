-- QingLong PostgreSQL schema v7: the proposal list (GET /v1/projects/{p}/plugin-packages/proposals,
-- JdbcGovernanceStore.PROPOSAL_PAGE) reads one Project's proposals in keyset pages ordered by
-- (created_at_ms, proposal_id), optionally of one state. Without an index that is a scan and sort
-- of the Project's rows per page. Two indexes, one per shape of the query:
--   * without ?state=: (project_id, created_at_ms, proposal_id) gives the order and the cursor
--     bound directly, so a page reads only its LIMIT rows;
--   * with ?state=: (project_id, state, created_at_ms, proposal_id) does the same within one state,
--     without stepping over rows of other states.
-- Checked with EXPLAIN on PostgreSQL 15 (20,000 proposals over 20 Projects and all four states,
-- parameters bound as the JDBC statement binds them): both the first page and a page after a
-- cursor are an Index Scan on the matching index under a Limit, with no Sort node (PostgreSQL's
-- custom plans for the bound values fold the "? IS NULL" terms). A generic plan (plan_cache_mode =
-- force_generic_plan) keeps the Index Scan on plugin_package_proposals_created_idx, filtering the
-- state; it never sorts.
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).

CREATE INDEX plugin_package_proposals_created_idx
  ON plugin_package_proposals (project_id, created_at_ms, proposal_id);

CREATE INDEX plugin_package_proposals_state_created_idx
  ON plugin_package_proposals (project_id, state, created_at_ms, proposal_id);
