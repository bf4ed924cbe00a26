-- QingLong optional AI feature, PostgreSQL v1: model-invocation quota (ADR 001, DESIGN §5).
-- Applied by the schema owner only when qinglong.ai.enabled=true, into schema "qinglong", with its
-- own history table (flyway_ai_schema_history).
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).
--
-- Policies and receipts are append-only: ql3_runtime may SELECT and INSERT them, never UPDATE or
-- DELETE. Only a StepRun's state changes (UPDATE on model_step_runs alone), and only along
-- ready -> running -> succeeded|failed|unknown. Window usage is read from running totals on the
-- latest reservation and settlement of a window (one index seek each); see docs/model-quota.md.

CREATE TABLE model_invocation_policies (
  project_id       text   NOT NULL CHECK (project_id ~ '^[A-Za-z0-9._:-]{1,128}$'),
  model_id         text   NOT NULL CHECK (model_id ~ '^[A-Za-z0-9._:-]{1,128}$'),
  revision         bigint NOT NULL CHECK (revision >= 1),
  max_total_tokens bigint NOT NULL CHECK (max_total_tokens >= 1),
  max_cost_micros  bigint CHECK (max_cost_micros >= 0),
  created_at_ms    bigint NOT NULL,
  PRIMARY KEY (project_id, model_id, revision)
);

CREATE TABLE model_project_quota_policies (
  project_id      text   NOT NULL CHECK (project_id ~ '^[A-Za-z0-9._:-]{1,128}$'),
  revision        bigint NOT NULL CHECK (revision >= 1),
  window_ms       bigint NOT NULL CHECK (window_ms IN (60000, 3600000, 86400000)),
  max_invocations bigint NOT NULL CHECK (max_invocations >= 1),
  max_tokens      bigint NOT NULL CHECK (max_tokens >= 1),
  max_cost_micros bigint CHECK (max_cost_micros >= 0),
  created_at_ms   bigint NOT NULL,
  PRIMARY KEY (project_id, revision)
);

CREATE TABLE model_step_runs (
  project_id    text   NOT NULL CHECK (project_id ~ '^[A-Za-z0-9._:-]{1,128}$'),
  step_run_id   text   NOT NULL CHECK (step_run_id ~ '^[A-Za-z0-9._:-]{1,128}$'),
  run_id        text   NOT NULL CHECK (run_id ~ '^[A-Za-z0-9._:-]{1,128}$'),
  model_id      text   NOT NULL CHECK (model_id ~ '^[A-Za-z0-9._:-]{1,128}$'),
  state         text   NOT NULL CHECK (state IN ('ready', 'running', 'succeeded', 'failed',
                                                 'unknown')),
  invocation_id text   CHECK (invocation_id ~ '^[A-Za-z0-9._:-]{1,128}$'),
  created_at_ms bigint NOT NULL,
  updated_at_ms bigint NOT NULL,
  PRIMARY KEY (project_id, step_run_id),
  UNIQUE (project_id, invocation_id),
  CHECK ((state = 'ready') = (invocation_id IS NULL))
);

CREATE TABLE model_invocation_reservations (
  project_id                  text   NOT NULL,
  invocation_id               text   NOT NULL CHECK (invocation_id ~ '^[A-Za-z0-9._:-]{1,128}$'),
  step_run_id                 text   NOT NULL,
  run_id                      text   NOT NULL,
  model_id                    text   NOT NULL,
  model_policy_revision       bigint NOT NULL,
  quota_policy_revision       bigint NOT NULL,
  window_start_ms             bigint NOT NULL,
  window_ms                   bigint NOT NULL CHECK (window_ms IN (60000, 3600000, 86400000)),
  budget_max_invocations      bigint,
  budget_max_tokens           bigint,
  budget_max_cost_micros      bigint,
  reserved_tokens             bigint NOT NULL CHECK (reserved_tokens >= 1),
  reserved_cost_micros        bigint CHECK (reserved_cost_micros >= 0),
  -- Running totals of the window after this reservation, written under the window's lock.
  window_seq                  bigint NOT NULL CHECK (window_seq >= 1),
  window_invocations          bigint NOT NULL,
  window_reserved_tokens      bigint NOT NULL,
  window_reserved_cost_micros bigint NOT NULL,
  reserved_at_ms              bigint NOT NULL,
  digest                      text   NOT NULL CHECK (digest ~ '^sha256:[0-9a-f]{64}$'),
  PRIMARY KEY (project_id, invocation_id),
  UNIQUE (project_id, step_run_id),
  -- The window's latest reservation is one seek down this index.
  UNIQUE (project_id, window_start_ms, window_ms, window_seq)
);

CREATE TABLE model_invocation_starts (
  project_id         text   NOT NULL,
  invocation_id      text   NOT NULL,
  step_run_id        text   NOT NULL,
  run_id             text   NOT NULL,
  model_id           text   NOT NULL,
  reservation_digest text   NOT NULL CHECK (reservation_digest ~ '^sha256:[0-9a-f]{64}$'),
  started_at_ms      bigint NOT NULL,
  digest             text   NOT NULL CHECK (digest ~ '^sha256:[0-9a-f]{64}$'),
  PRIMARY KEY (project_id, invocation_id)
);

CREATE TABLE model_invocation_completions (
  project_id      text   NOT NULL,
  invocation_id   text   NOT NULL,
  step_run_id     text   NOT NULL,
  outcome         text   NOT NULL CHECK (outcome IN ('succeeded', 'failed', 'unknown')),
  input_tokens    bigint,
  output_tokens   bigint,
  total_tokens    bigint,
  cost_micros     bigint CHECK (cost_micros >= 0),
  completed_at_ms bigint NOT NULL,
  digest          text   NOT NULL CHECK (digest ~ '^sha256:[0-9a-f]{64}$'),
  PRIMARY KEY (project_id, invocation_id),
  CHECK ((input_tokens IS NULL) = (total_tokens IS NULL)
         AND (output_tokens IS NULL) = (total_tokens IS NULL))
);

CREATE TABLE model_usage_ledger (
  project_id        text   NOT NULL,
  ledger_seq        bigint NOT NULL CHECK (ledger_seq >= 1),
  invocation_id     text   NOT NULL,
  step_run_id       text   NOT NULL,
  run_id            text   NOT NULL,
  model_id          text   NOT NULL,
  outcome           text   NOT NULL CHECK (outcome IN ('succeeded', 'failed', 'unknown')),
  input_tokens      bigint,
  output_tokens     bigint,
  total_tokens      bigint,
  cost_micros       bigint CHECK (cost_micros >= 0),
  completion_digest text   NOT NULL CHECK (completion_digest ~ '^sha256:[0-9a-f]{64}$'),
  recorded_at_ms    bigint NOT NULL,
  digest            text   NOT NULL CHECK (digest ~ '^sha256:[0-9a-f]{64}$'),
  PRIMARY KEY (project_id, ledger_seq),
  UNIQUE (project_id, invocation_id)
);

CREATE TABLE model_invocation_settlements (
  project_id                  text   NOT NULL,
  invocation_id               text   NOT NULL,
  window_start_ms             bigint NOT NULL,
  window_ms                   bigint NOT NULL,
  reservation_digest          text   NOT NULL CHECK (reservation_digest ~ '^sha256:[0-9a-f]{64}$'),
  completion_digest           text   NOT NULL CHECK (completion_digest ~ '^sha256:[0-9a-f]{64}$'),
  settled_tokens              bigint NOT NULL CHECK (settled_tokens >= 0),
  settled_cost_micros         bigint CHECK (settled_cost_micros >= 0),
  released_tokens             bigint NOT NULL CHECK (released_tokens >= 0),
  released_cost_micros        bigint NOT NULL CHECK (released_cost_micros >= 0),
  -- Running release totals of the window after this settlement, written under the window's lock.
  window_settle_seq           bigint NOT NULL CHECK (window_settle_seq >= 1),
  window_released_tokens      bigint NOT NULL,
  window_released_cost_micros bigint NOT NULL,
  settled_at_ms               bigint NOT NULL,
  digest                      text   NOT NULL CHECK (digest ~ '^sha256:[0-9a-f]{64}$'),
  PRIMARY KEY (project_id, invocation_id),
  UNIQUE (project_id, window_start_ms, window_ms, window_settle_seq)
);

-- The StepRun state machine holds in the data too, and a StepRun with a reservation can only end
-- through the quota-aware completion: its settlement must already be written.
CREATE FUNCTION model_step_runs_guard() RETURNS trigger
LANGUAGE plpgsql
SET search_path = qinglong, pg_temp
AS $$
BEGIN
  IF NOT ((OLD.state = 'ready' AND NEW.state = 'running')
          OR (OLD.state = 'running' AND NEW.state IN ('succeeded', 'failed', 'unknown')
              AND NEW.invocation_id IS NOT DISTINCT FROM OLD.invocation_id))
     OR NEW.project_id IS DISTINCT FROM OLD.project_id
     OR NEW.step_run_id IS DISTINCT FROM OLD.step_run_id
     OR NEW.run_id IS DISTINCT FROM OLD.run_id
     OR NEW.model_id IS DISTINCT FROM OLD.model_id THEN
    RAISE EXCEPTION 'model_step_runs: transition not allowed' USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.state IN ('succeeded', 'failed', 'unknown')
     AND NOT EXISTS (SELECT 1 FROM model_invocation_settlements s
                     WHERE s.project_id = NEW.project_id AND s.invocation_id = NEW.invocation_id)
  THEN
    RAISE EXCEPTION 'model_step_runs: a step run ends only through its quota settlement'
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER model_step_runs_guard
BEFORE UPDATE ON model_step_runs
FOR EACH ROW EXECUTE FUNCTION model_step_runs_guard();

-- Least privilege: nothing for PUBLIC; only ql3_runtime, and receipts stay append-only for it.
REVOKE ALL ON model_invocation_policies, model_project_quota_policies, model_step_runs,
  model_invocation_reservations, model_invocation_starts, model_invocation_completions,
  model_usage_ledger, model_invocation_settlements FROM PUBLIC;
REVOKE ALL ON FUNCTION model_step_runs_guard() FROM PUBLIC;

GRANT SELECT, INSERT ON model_invocation_policies, model_project_quota_policies,
  model_invocation_reservations, model_invocation_starts, model_invocation_completions,
  model_usage_ledger, model_invocation_settlements
  TO ql3_runtime;
GRANT SELECT, INSERT, UPDATE ON model_step_runs TO ql3_runtime;

-- Readiness of the runtime compares the applied AI schema version with the one it needs.
GRANT SELECT ON flyway_ai_schema_history TO ql3_runtime;
