-- QingLong PostgreSQL schema v10: N-of-M approvals. A Project sets how many distinct approvers its
-- plugin-package proposals need (1..5, immutable revisions in plugin_package_approval_policies; no
-- row: 1). Each approval binds the number in force when it was proposed (required_approvals) and
-- records every decision in plugin_package_approval_decisions: one per approver, never the
-- proposer, each decision id naming one decision in the Project. A reject ends the approval; so
-- does the required_approvals-th approve. The approval's deciding columns (decision_id, decision,
-- decided_by, decided_at_ms) stay the decision that ended it.
--
-- Expand only: a column with a default (1, what every existing approval needed) and two new
-- tables. Every approval decided before this version gets its one decision backfilled from its
-- deciding columns, so the replaced update guard holds for every stored row.
--
-- What ql3_package_manager does, and so all that is allowed from now on (V5 otherwise unchanged):
--   * inserts a pending approval with its required_approvals (never changed afterwards);
--   * records a decision of a pending approval (INSERT only: decisions are never changed or
--     deleted, by anyone short of dropping the triggers);
--   * locks a pending approval while it decides (an UPDATE that changes nothing), and ends it as
--     approved only once at least required_approvals approves are recorded and the deciding
--     columns name one of them, or as rejected only when they name a recorded reject;
--   * appends approval policy revisions (INSERT only).
-- Only the package manager reads approvals (the executor and the reader never did), so only it is
-- granted the new tables.
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).

ALTER TABLE plugin_package_approvals
  ADD COLUMN required_approvals integer NOT NULL DEFAULT 1
  CHECK (required_approvals BETWEEN 1 AND 5);

-- The decisions' foreign key names the proposer too, so that the CHECK below compares the decider
-- with the approval's own proposer.
ALTER TABLE plugin_package_approvals
  ADD CONSTRAINT plugin_package_approvals_proposer_key
  UNIQUE (project_id, approval_id, proposed_by);

CREATE TABLE plugin_package_approval_decisions (
  project_id    text   NOT NULL,
  approval_id   text   NOT NULL,
  decision_id   text   NOT NULL,
  decision      text   NOT NULL CHECK (decision IN ('approve', 'reject')),
  decided_by    text   NOT NULL,
  proposed_by   text   NOT NULL,
  decided_at_ms bigint NOT NULL,
  -- Distinct deciders; a decision id names one decision in the Project.
  PRIMARY KEY (project_id, approval_id, decided_by),
  UNIQUE (project_id, decision_id),
  -- The proposer never decides.
  CHECK (decided_by <> proposed_by),
  FOREIGN KEY (project_id, approval_id, proposed_by)
    REFERENCES plugin_package_approvals (project_id, approval_id, proposed_by)
);

INSERT INTO plugin_package_approval_decisions
  (project_id, approval_id, decision_id, decision, decided_by, proposed_by, decided_at_ms)
SELECT project_id, approval_id, decision_id, decision, decided_by, proposed_by, decided_at_ms
FROM plugin_package_approvals
WHERE decision_id IS NOT NULL;

CREATE TABLE plugin_package_approval_policies (
  project_id         text    NOT NULL,
  revision           bigint  NOT NULL CHECK (revision >= 1),
  required_approvals integer NOT NULL CHECK (required_approvals BETWEEN 1 AND 5),
  set_by             text    NOT NULL,
  set_at_ms          bigint  NOT NULL,
  PRIMARY KEY (project_id, revision)
);

REVOKE ALL ON plugin_package_approval_decisions, plugin_package_approval_policies FROM PUBLIC;
-- Decisions are the package manager's (it decides); the policy is a policy write, the admin's
-- alone, as the Project Policy's members are: the login that proposes and decides cannot lower
-- the number of approvals. The package manager reads it when a proposal binds it.
GRANT SELECT, INSERT ON plugin_package_approval_decisions TO ql3_package_manager;
GRANT SELECT ON plugin_package_approval_policies TO ql3_package_manager;
GRANT SELECT, INSERT ON plugin_package_approval_policies TO ql3_admin;

-- Append-only for every role, the owner included (short of dropping the triggers).
CREATE FUNCTION plugin_package_append_only() RETURNS trigger
LANGUAGE plpgsql
SET search_path = qinglong, pg_temp
AS $$
BEGIN
  RAISE EXCEPTION '%: rows are never changed or deleted', TG_TABLE_NAME
    USING ERRCODE = 'check_violation';
END
$$;

-- A decision is recorded only while its approval is pending. Runs with the inserting role's
-- rights (the package manager reads approvals).
CREATE FUNCTION plugin_package_approval_decisions_insert_guard() RETURNS trigger
LANGUAGE plpgsql
SET search_path = qinglong, pg_temp
AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM plugin_package_approvals a
                 WHERE a.project_id = NEW.project_id AND a.approval_id = NEW.approval_id
                   AND a.state = 'pending') THEN
    RAISE EXCEPTION 'plugin_package_approval_decisions: the approval is not pending'
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER plugin_package_approval_decisions_append_only
BEFORE UPDATE OR DELETE ON plugin_package_approval_decisions
FOR EACH ROW EXECUTE FUNCTION plugin_package_append_only();

CREATE TRIGGER plugin_package_approval_decisions_truncate
BEFORE TRUNCATE ON plugin_package_approval_decisions
FOR EACH STATEMENT EXECUTE FUNCTION plugin_package_append_only();

CREATE TRIGGER plugin_package_approval_decisions_insert_guard
BEFORE INSERT ON plugin_package_approval_decisions
FOR EACH ROW EXECUTE FUNCTION plugin_package_approval_decisions_insert_guard();

CREATE TRIGGER plugin_package_approval_policies_append_only
BEFORE UPDATE OR DELETE ON plugin_package_approval_policies
FOR EACH ROW EXECUTE FUNCTION plugin_package_append_only();

CREATE TRIGGER plugin_package_approval_policies_truncate
BEFORE TRUNCATE ON plugin_package_approval_policies
FOR EACH STATEMENT EXECUTE FUNCTION plugin_package_append_only();

-- Replaces V5's guard (same trigger). Runs with the updating role's rights: it must be able to read
-- the decisions (only the package manager can, and only it may update approvals).
CREATE OR REPLACE FUNCTION plugin_package_approvals_update_guard() RETURNS trigger
LANGUAGE plpgsql
SET search_path = qinglong, pg_temp
AS $$
BEGIN
  IF (NEW.project_id, NEW.approval_id, NEW.proposal_id, NEW.action_digest, NEW.proposed_by,
      NEW.created_at_ms, NEW.required_approvals)
     IS DISTINCT FROM
     (OLD.project_id, OLD.approval_id, OLD.proposal_id, OLD.action_digest, OLD.proposed_by,
      OLD.created_at_ms, OLD.required_approvals) THEN
    RAISE EXCEPTION 'plugin_package_approvals: only the decision of a pending approval changes'
      USING ERRCODE = 'check_violation';
  END IF;
  IF OLD.state = 'pending' AND NEW IS NOT DISTINCT FROM OLD THEN
    -- The store's row lock while it records a decision: nothing changes.
    RETURN NEW;
  END IF;
  IF OLD.state <> 'pending' OR NEW.state NOT IN ('approved', 'rejected') THEN
    RAISE EXCEPTION 'plugin_package_approvals: only a pending approval can be decided, once'
      USING ERRCODE = 'check_violation';
  END IF;
  -- The deciding columns name a recorded decision of this approval with the approval's verdict;
  -- the V1 CHECKs keep them all-or-nothing and consistent with the state.
  IF NOT EXISTS (SELECT 1 FROM plugin_package_approval_decisions d
                 WHERE d.project_id = NEW.project_id AND d.approval_id = NEW.approval_id
                   AND d.decision_id = NEW.decision_id AND d.decision = NEW.decision
                   AND d.decided_by = NEW.decided_by AND d.decided_at_ms = NEW.decided_at_ms
                   AND d.decision = CASE NEW.state WHEN 'approved' THEN 'approve'
                                                   ELSE 'reject' END) THEN
    RAISE EXCEPTION 'plugin_package_approvals: decided only by a recorded decision'
      USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.state = 'approved'
     AND (SELECT count(*) FROM plugin_package_approval_decisions d
          WHERE d.project_id = NEW.project_id AND d.approval_id = NEW.approval_id
            AND d.decision = 'approve') < NEW.required_approvals THEN
    RAISE EXCEPTION 'plugin_package_approvals: approved needs % recorded approves',
      NEW.required_approvals
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;

REVOKE ALL ON FUNCTION plugin_package_append_only(),
  plugin_package_approval_decisions_insert_guard(),
  plugin_package_approvals_update_guard() FROM PUBLIC;
