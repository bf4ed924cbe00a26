-- QingLong optional AI feature, PostgreSQL v4: the writes of one admission and of one completion as
-- one server-side procedure each, so that the window lock is held for no client round trip.
--
-- The store (JdbcModelQuotaStore) reads everything an admission or completion depends on in one
-- statement (one snapshot, no lock), lets ModelQuotaRules (quota-core) decide, and calls one of
-- these procedures in auto-commit with the receipts the rules produced and the window heads it read.
-- The procedure takes the advisory locks (window, then ledger), checks that what the decision read
-- is still what stands (each statement of a PL/pgSQL procedure takes a new snapshot in
-- READ COMMITTED, so it sees everything the previous lock holder committed) and writes the rows;
-- the locks end with the CALL's own commit. If anything changed it writes nothing and answers
-- 'stale': the store reads and decides again. No quota rule is evaluated here: the decision stays
-- in ModelQuotaRules, these procedures only compare and write.
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).

CREATE PROCEDURE model_lifecycle_admit(
  p_window_key bigint, p_expected_window_seq bigint, p_expected_settle_seq bigint,
  p_project_id text, p_invocation_id text, p_step_run_id text, p_run_id text, p_model_id text,
  p_model_policy_revision bigint, p_quota_policy_revision bigint, p_window_start_ms bigint,
  p_window_ms bigint, p_budget_max_invocations bigint, p_budget_max_tokens bigint,
  p_budget_max_cost_micros bigint, p_reserved_tokens bigint, p_reserved_cost_micros bigint,
  p_window_seq bigint, p_window_invocations bigint, p_window_reserved_tokens bigint,
  p_window_reserved_cost_micros bigint, p_reserved_at_ms bigint, p_digest text,
  p_start_reservation_digest text, p_started_at_ms bigint, p_start_digest text,
  INOUT p_result text)
LANGUAGE plpgsql
SET search_path = qinglong, pg_temp
AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(p_window_key);
  IF COALESCE((SELECT window_seq FROM model_invocation_reservations
               WHERE project_id = p_project_id AND window_start_ms = p_window_start_ms
                 AND window_ms = p_window_ms
               ORDER BY window_seq DESC LIMIT 1), 0) <> p_expected_window_seq
     OR COALESCE((SELECT window_settle_seq FROM model_invocation_settlements
                  WHERE project_id = p_project_id AND window_start_ms = p_window_start_ms
                    AND window_ms = p_window_ms
                  ORDER BY window_settle_seq DESC LIMIT 1), 0) <> p_expected_settle_seq THEN
    p_result := 'stale';
    RETURN;
  END IF;
  UPDATE model_step_runs
     SET state = 'running', invocation_id = p_invocation_id, updated_at_ms = p_reserved_at_ms
   WHERE project_id = p_project_id AND step_run_id = p_step_run_id AND state = 'ready';
  IF NOT FOUND THEN
    p_result := 'stale';
    RETURN;
  END IF;
  INSERT INTO model_invocation_reservations
    (project_id, invocation_id, step_run_id, run_id, model_id, model_policy_revision,
     quota_policy_revision, window_start_ms, window_ms, budget_max_invocations,
     budget_max_tokens, budget_max_cost_micros, reserved_tokens, reserved_cost_micros,
     window_seq, window_invocations, window_reserved_tokens,
     window_reserved_cost_micros, reserved_at_ms, digest)
  VALUES (p_project_id, p_invocation_id, p_step_run_id, p_run_id, p_model_id,
          p_model_policy_revision, p_quota_policy_revision, p_window_start_ms, p_window_ms,
          p_budget_max_invocations, p_budget_max_tokens, p_budget_max_cost_micros,
          p_reserved_tokens, p_reserved_cost_micros, p_window_seq, p_window_invocations,
          p_window_reserved_tokens, p_window_reserved_cost_micros, p_reserved_at_ms, p_digest);
  INSERT INTO model_invocation_starts
    (project_id, invocation_id, step_run_id, run_id, model_id, reservation_digest,
     started_at_ms, digest)
  VALUES (p_project_id, p_invocation_id, p_step_run_id, p_run_id, p_model_id,
          p_start_reservation_digest, p_started_at_ms, p_start_digest);
  p_result := 'written';
END
$$;

CREATE PROCEDURE model_lifecycle_complete(
  p_window_key bigint, p_ledger_key bigint, p_expected_settle_seq bigint,
  p_expected_ledger_seq bigint, p_terminal_state text,
  p_project_id text, p_invocation_id text, p_step_run_id text, p_run_id text, p_model_id text,
  p_outcome text, p_input_tokens bigint, p_output_tokens bigint, p_total_tokens bigint,
  p_cost_micros bigint, p_completed_at_ms bigint, p_completion_digest text,
  p_ledger_seq bigint, p_recorded_at_ms bigint, p_ledger_digest text,
  p_window_start_ms bigint, p_window_ms bigint, p_reservation_digest text,
  p_settled_tokens bigint, p_settled_cost_micros bigint, p_released_tokens bigint,
  p_released_cost_micros bigint, p_window_settle_seq bigint, p_window_released_tokens bigint,
  p_window_released_cost_micros bigint, p_settled_at_ms bigint, p_settlement_digest text,
  INOUT p_result text)
LANGUAGE plpgsql
SET search_path = qinglong, pg_temp
AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(p_window_key);
  PERFORM pg_advisory_xact_lock(p_ledger_key);
  IF COALESCE((SELECT window_settle_seq FROM model_invocation_settlements
               WHERE project_id = p_project_id AND window_start_ms = p_window_start_ms
                 AND window_ms = p_window_ms
               ORDER BY window_settle_seq DESC LIMIT 1), 0) <> p_expected_settle_seq
     OR COALESCE((SELECT ledger_seq FROM model_usage_ledger WHERE project_id = p_project_id
                  ORDER BY ledger_seq DESC LIMIT 1), 0) <> p_expected_ledger_seq
     OR EXISTS (SELECT 1 FROM model_invocation_completions
                WHERE project_id = p_project_id AND invocation_id = p_invocation_id)
     OR NOT EXISTS (SELECT 1 FROM model_step_runs
                    WHERE project_id = p_project_id AND step_run_id = p_step_run_id
                      AND state = 'running' AND invocation_id = p_invocation_id) THEN
    p_result := 'stale';
    RETURN;
  END IF;
  INSERT INTO model_invocation_completions
    (project_id, invocation_id, step_run_id, outcome, input_tokens, output_tokens,
     total_tokens, cost_micros, completed_at_ms, digest)
  VALUES (p_project_id, p_invocation_id, p_step_run_id, p_outcome, p_input_tokens,
          p_output_tokens, p_total_tokens, p_cost_micros, p_completed_at_ms, p_completion_digest);
  INSERT INTO model_usage_ledger
    (project_id, ledger_seq, invocation_id, step_run_id, run_id, model_id, outcome,
     input_tokens, output_tokens, total_tokens, cost_micros, completion_digest,
     recorded_at_ms, digest)
  VALUES (p_project_id, p_ledger_seq, p_invocation_id, p_step_run_id, p_run_id, p_model_id,
          p_outcome, p_input_tokens, p_output_tokens, p_total_tokens, p_cost_micros,
          p_completion_digest, p_recorded_at_ms, p_ledger_digest);
  -- The settlement goes before the StepRun ends: the StepRun guard refuses the reverse.
  INSERT INTO model_invocation_settlements
    (project_id, invocation_id, window_start_ms, window_ms, reservation_digest,
     completion_digest, settled_tokens, settled_cost_micros, released_tokens,
     released_cost_micros, window_settle_seq, window_released_tokens,
     window_released_cost_micros, settled_at_ms, digest)
  VALUES (p_project_id, p_invocation_id, p_window_start_ms, p_window_ms, p_reservation_digest,
          p_completion_digest, p_settled_tokens, p_settled_cost_micros, p_released_tokens,
          p_released_cost_micros, p_window_settle_seq, p_window_released_tokens,
          p_window_released_cost_micros, p_settled_at_ms, p_settlement_digest);
  UPDATE model_step_runs SET state = p_terminal_state, updated_at_ms = p_settled_at_ms
   WHERE project_id = p_project_id AND step_run_id = p_step_run_id AND state = 'running'
     AND invocation_id = p_invocation_id;
  p_result := 'written';
END
$$;

REVOKE ALL ON PROCEDURE model_lifecycle_admit(bigint, bigint, bigint, text, text, text, text, text,
  bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint,
  bigint, bigint, text, text, bigint, text, text) FROM PUBLIC;
REVOKE ALL ON PROCEDURE model_lifecycle_complete(bigint, bigint, bigint, bigint, text, text, text,
  text, text, text, text, bigint, bigint, bigint, bigint, bigint, text, bigint, bigint, text,
  bigint, bigint, text, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint, text,
  text) FROM PUBLIC;
GRANT EXECUTE ON PROCEDURE model_lifecycle_admit(bigint, bigint, bigint, text, text, text, text,
  text, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint,
  bigint, bigint, bigint, text, text, bigint, text, text) TO ql3_runtime;
GRANT EXECUTE ON PROCEDURE model_lifecycle_complete(bigint, bigint, bigint, bigint, text, text,
  text, text, text, text, text, bigint, bigint, bigint, bigint, bigint, text, bigint, bigint, text,
  bigint, bigint, text, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint, text,
  text) TO ql3_runtime;
