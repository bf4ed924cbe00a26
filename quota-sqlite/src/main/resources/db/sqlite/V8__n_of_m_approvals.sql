-- QingLong SQLite schema v8: N-of-M approvals. A Project sets how many distinct approvers its
-- plugin-package proposals need (1..5, immutable revisions in plugin_package_approval_policies; no
-- row: 1). Each approval binds the number in force when it was proposed (required_approvals) and
-- records every decision in plugin_package_approval_decisions: one per approver, never the
-- proposer, each decision id naming one decision in the Project. A reject ends the approval; so
-- does the required_approvals-th approve. The approval's deciding columns (decision_id, decision,
-- decided_by, decided_at_ms) stay the decision that ended it.
--
-- Expand only: a column with a default (1, what every existing approval needed) and two new
-- tables. Every approval decided before this version gets its one decision backfilled from its
-- deciding columns, so the triggers below hold for every stored row.
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).

ALTER TABLE plugin_package_approvals
  ADD COLUMN required_approvals INTEGER NOT NULL DEFAULT 1
  CHECK (required_approvals BETWEEN 1 AND 5);

-- The decisions' foreign key names the proposer too, so that the CHECK below compares the decider
-- with the approval's own proposer.
CREATE UNIQUE INDEX plugin_package_approvals_proposer_idx
  ON plugin_package_approvals (project_id, approval_id, proposed_by);

CREATE TABLE plugin_package_approval_decisions (
  project_id    TEXT    NOT NULL,
  approval_id   TEXT    NOT NULL,
  decision_id   TEXT    NOT NULL,
  decision      TEXT    NOT NULL CHECK (decision IN ('approve', 'reject')),
  decided_by    TEXT    NOT NULL,
  proposed_by   TEXT    NOT NULL,
  decided_at_ms INTEGER NOT NULL,
  -- Distinct deciders; a decision id names one decision in the Project.
  PRIMARY KEY (project_id, approval_id, decided_by),
  UNIQUE (project_id, decision_id),
  -- The proposer never decides.
  CHECK (decided_by <> proposed_by),
  FOREIGN KEY (project_id, approval_id, proposed_by)
    REFERENCES plugin_package_approvals (project_id, approval_id, proposed_by)
) STRICT;

INSERT INTO plugin_package_approval_decisions
  (project_id, approval_id, decision_id, decision, decided_by, proposed_by, decided_at_ms)
SELECT project_id, approval_id, decision_id, decision, decided_by, proposed_by, decided_at_ms
FROM plugin_package_approvals
WHERE decision_id IS NOT NULL;

CREATE TABLE plugin_package_approval_policies (
  project_id         TEXT    NOT NULL,
  revision           INTEGER NOT NULL CHECK (revision >= 1),
  required_approvals INTEGER NOT NULL CHECK (required_approvals BETWEEN 1 AND 5),
  set_by             TEXT    NOT NULL,
  set_at_ms          INTEGER NOT NULL,
  PRIMARY KEY (project_id, revision)
) STRICT;

-- Decisions and policy revisions are append-only.
CREATE TRIGGER plugin_package_approval_decisions_no_update
BEFORE UPDATE ON plugin_package_approval_decisions
BEGIN
  SELECT RAISE(ABORT, 'plugin_package_approval_decisions: a decision is never changed');
END;

CREATE TRIGGER plugin_package_approval_decisions_no_delete
BEFORE DELETE ON plugin_package_approval_decisions
BEGIN
  SELECT RAISE(ABORT, 'plugin_package_approval_decisions: a decision is never deleted');
END;

-- A decision is recorded only while its approval is pending (created after the backfill).
CREATE TRIGGER plugin_package_approval_decisions_pending_only
BEFORE INSERT ON plugin_package_approval_decisions
WHEN NOT EXISTS (SELECT 1 FROM plugin_package_approvals a
                 WHERE a.project_id = NEW.project_id AND a.approval_id = NEW.approval_id
                   AND a.state = 'pending')
BEGIN
  SELECT RAISE(ABORT, 'plugin_package_approval_decisions: the approval is not pending');
END;

CREATE TRIGGER plugin_package_approval_policies_no_update
BEFORE UPDATE ON plugin_package_approval_policies
BEGIN
  SELECT RAISE(ABORT, 'plugin_package_approval_policies: a revision is never changed');
END;

CREATE TRIGGER plugin_package_approval_policies_no_delete
BEFORE DELETE ON plugin_package_approval_policies
BEGIN
  SELECT RAISE(ABORT, 'plugin_package_approval_policies: a revision is never deleted');
END;

-- An approval binds its number of approvers for good.
CREATE TRIGGER plugin_package_approvals_required_fixed
BEFORE UPDATE OF required_approvals ON plugin_package_approvals
WHEN NEW.required_approvals IS NOT OLD.required_approvals
BEGIN
  SELECT RAISE(ABORT, 'plugin_package_approvals: required_approvals never changes');
END;

-- Approved only with at least required_approvals recorded approves, ended by one of them.
CREATE TRIGGER plugin_package_approvals_approved_by_enough
BEFORE UPDATE ON plugin_package_approvals
WHEN NEW.state = 'approved'
 AND ((SELECT count(*) FROM plugin_package_approval_decisions d
       WHERE d.project_id = NEW.project_id AND d.approval_id = NEW.approval_id
         AND d.decision = 'approve') < NEW.required_approvals
      OR NOT EXISTS (SELECT 1 FROM plugin_package_approval_decisions d
                     WHERE d.project_id = NEW.project_id AND d.approval_id = NEW.approval_id
                       AND d.decision_id IS NEW.decision_id AND d.decision = 'approve'
                       AND d.decided_by IS NEW.decided_by
                       AND d.decided_at_ms IS NEW.decided_at_ms))
BEGIN
  SELECT RAISE(ABORT, 'plugin_package_approvals: approved needs its recorded approves');
END;

-- Rejected only by a recorded reject.
CREATE TRIGGER plugin_package_approvals_rejected_by_a_reject
BEFORE UPDATE ON plugin_package_approvals
WHEN NEW.state = 'rejected'
 AND NOT EXISTS (SELECT 1 FROM plugin_package_approval_decisions d
                 WHERE d.project_id = NEW.project_id AND d.approval_id = NEW.approval_id
                   AND d.decision_id IS NEW.decision_id AND d.decision = 'reject'
                   AND d.decided_by IS NEW.decided_by
                   AND d.decided_at_ms IS NEW.decided_at_ms)
BEGIN
  SELECT RAISE(ABORT, 'plugin_package_approvals: rejected needs its recorded reject');
END;
