-- QingLong PostgreSQL schema v5: the governance tables enforce their own state machine, so each
-- login can do only what the service does with them (least privilege in the data, not only in the
-- code; downloads trust a proposal's 'published').
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).
--
-- What the service does, and so all that is allowed from now on:
--   * ql3_package_manager inserts a pending proposal with its pending approval (same ids, action
--     digest and proposer), decides a pending approval once (pending -> approved|rejected, the
--     decision columns set together, CHECKs of V1), and moves the proposal to the same state;
--   * ql3_package_executor (the completion worker) moves an approved install/upgrade proposal to
--     published, changing only state and updated_at_ms.
-- Nothing else ever changes: no other transition, no other column, for any role (the owner too,
-- short of dropping the triggers).

-- The package manager may update only the columns the service writes.
REVOKE UPDATE ON plugin_package_proposals, plugin_package_approvals FROM ql3_package_manager;
GRANT UPDATE (state, updated_at_ms) ON plugin_package_proposals TO ql3_package_manager;
GRANT UPDATE (state, decision_id, decision, decided_by, decided_at_ms)
  ON plugin_package_approvals TO ql3_package_manager;

CREATE FUNCTION plugin_package_proposals_insert_guard() RETURNS trigger
LANGUAGE plpgsql
SET search_path = qinglong, pg_temp
AS $$
BEGIN
  IF NEW.state <> 'pending' OR NEW.updated_at_ms <> NEW.created_at_ms THEN
    RAISE EXCEPTION 'plugin_package_proposals: a proposal starts pending'
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;

CREATE FUNCTION plugin_package_approvals_insert_guard() RETURNS trigger
LANGUAGE plpgsql
SET search_path = qinglong, pg_temp
AS $$
BEGIN
  -- Runs with the inserting role's rights: it must be able to read the proposal it approves.
  IF NEW.state <> 'pending'
     OR NOT EXISTS (SELECT 1 FROM plugin_package_proposals p
                    WHERE p.project_id = NEW.project_id AND p.proposal_id = NEW.proposal_id
                      AND p.approval_id = NEW.approval_id AND p.action_digest = NEW.action_digest
                      AND p.proposed_by = NEW.proposed_by AND p.state = 'pending') THEN
    RAISE EXCEPTION 'plugin_package_approvals: an approval starts pending, bound to its proposal'
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;

CREATE FUNCTION plugin_package_approvals_update_guard() RETURNS trigger
LANGUAGE plpgsql
SET search_path = qinglong, pg_temp
AS $$
BEGIN
  -- Decided once: pending -> approved|rejected; the V1 CHECKs make the decision columns
  -- all-or-nothing, consistent with the state, and the decider not the proposer.
  IF NOT (OLD.state = 'pending' AND NEW.state IN ('approved', 'rejected'))
     OR (NEW.project_id, NEW.approval_id, NEW.proposal_id, NEW.action_digest, NEW.proposed_by,
         NEW.created_at_ms)
        IS DISTINCT FROM
        (OLD.project_id, OLD.approval_id, OLD.proposal_id, OLD.action_digest, OLD.proposed_by,
         OLD.created_at_ms) THEN
    RAISE EXCEPTION 'plugin_package_approvals: only a pending approval can be decided, once'
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;

CREATE FUNCTION plugin_package_proposals_update_guard() RETURNS trigger
LANGUAGE plpgsql
SET search_path = qinglong, pg_temp
AS $$
BEGIN
  IF (NEW.project_id, NEW.proposal_id, NEW.approval_id, NEW.action_ref, NEW.action_type,
      NEW.package_name, NEW.package_version, NEW.artifact_digest, NEW.action_digest,
      NEW.proposed_by, NEW.created_at_ms)
     IS DISTINCT FROM
     (OLD.project_id, OLD.proposal_id, OLD.approval_id, OLD.action_ref, OLD.action_type,
      OLD.package_name, OLD.package_version, OLD.artifact_digest, OLD.action_digest,
      OLD.proposed_by, OLD.created_at_ms) THEN
    RAISE EXCEPTION 'plugin_package_proposals: only state and updated_at_ms change'
      USING ERRCODE = 'check_violation';
  END IF;
  IF OLD.state = 'pending' AND NEW.state IN ('approved', 'rejected') THEN
    -- Follows its approval, decided earlier in the same transaction. Runs with the updating role's
    -- rights: a role that cannot read approvals (the executor) cannot take this path at all.
    IF NOT EXISTS (SELECT 1 FROM plugin_package_approvals a
                   WHERE a.project_id = NEW.project_id AND a.approval_id = NEW.approval_id
                     AND a.proposal_id = NEW.proposal_id AND a.state = NEW.state) THEN
      RAISE EXCEPTION 'plugin_package_proposals: the state follows the approval''s decision'
        USING ERRCODE = 'check_violation';
    END IF;
  ELSIF OLD.state = 'approved' AND NEW.state = 'published' AND NEW.artifact_digest IS NOT NULL THEN
    -- Publication is the completion worker's: it checked that the artifact is stored and verified.
    IF NOT pg_has_role('ql3_package_executor', 'USAGE') THEN
      RAISE EXCEPTION 'plugin_package_proposals: only the completion worker publishes'
        USING ERRCODE = 'insufficient_privilege';
    END IF;
  ELSE
    RAISE EXCEPTION 'plugin_package_proposals: transition % -> % not allowed', OLD.state, NEW.state
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER plugin_package_proposals_insert_guard
BEFORE INSERT ON plugin_package_proposals
FOR EACH ROW EXECUTE FUNCTION plugin_package_proposals_insert_guard();

CREATE TRIGGER plugin_package_proposals_update_guard
BEFORE UPDATE ON plugin_package_proposals
FOR EACH ROW EXECUTE FUNCTION plugin_package_proposals_update_guard();

CREATE TRIGGER plugin_package_approvals_insert_guard
BEFORE INSERT ON plugin_package_approvals
FOR EACH ROW EXECUTE FUNCTION plugin_package_approvals_insert_guard();

CREATE TRIGGER plugin_package_approvals_update_guard
BEFORE UPDATE ON plugin_package_approvals
FOR EACH ROW EXECUTE FUNCTION plugin_package_approvals_update_guard();

REVOKE ALL ON FUNCTION plugin_package_proposals_insert_guard(),
  plugin_package_proposals_update_guard(), plugin_package_approvals_insert_guard(),
  plugin_package_approvals_update_guard() FROM PUBLIC;
