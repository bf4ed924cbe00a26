-- QingLong SQLite schema v5: the proposal list (GET /v1/projects/{p}/plugin-packages/proposals,
-- JdbcGovernanceStore.PROPOSAL_PAGE) reads one Project's proposals in keyset pages ordered by
-- (created_at_ms, proposal_id), optionally of one state. Without an index that is a scan and sort
-- of the Project's rows per page. (project_id, created_at_ms, proposal_id) gives the order and the
-- cursor bound directly. One index serves both shapes of the query: SQLite plans the statement once
-- and does not fold the bound "? IS NULL" terms, so a (project_id, state, ...) index (PostgreSQL V7
-- has one) would not be chosen here; with ?state= the rows of the Project are walked in order and
-- filtered on state.
-- Checked with EXPLAIN QUERY PLAN on SQLite 3.40 (20,000 proposals over 20 Projects and all four
-- states): "SEARCH plugin_package_proposals USING INDEX plugin_package_proposals_created_idx
-- (project_id=?)", no "USE TEMP B-TREE FOR ORDER BY", with and without the state filter.
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).

CREATE INDEX plugin_package_proposals_created_idx
  ON plugin_package_proposals (project_id, created_at_ms, proposal_id);
