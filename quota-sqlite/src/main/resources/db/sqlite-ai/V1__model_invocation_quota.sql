-- QingLong optional AI feature, SQLite v1: model-invocation quota (ADR 001, DESIGN §5).
-- Applied only when qinglong.ai.enabled=true, with its own history table (flyway_ai_schema_history).
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).
--
-- Policies and receipts are append-only: nothing here is ever updated or deleted. Only a StepRun's
-- state changes, and only along ready -> running -> succeeded|failed|unknown.
-- Window usage is read from running totals on the latest reservation and settlement of a window
-- (one index seek each), never by summing the window; see docs/model-quota.md.

CREATE TABLE model_invocation_policies (
  project_id       TEXT    NOT NULL CHECK (length(project_id) BETWEEN 1 AND 128),
  model_id         TEXT    NOT NULL CHECK (length(model_id) BETWEEN 1 AND 128),
  revision         INTEGER NOT NULL CHECK (revision >= 1),
  max_total_tokens INTEGER NOT NULL CHECK (max_total_tokens >= 1),
  max_cost_micros  INTEGER CHECK (max_cost_micros >= 0),
  created_at_ms    INTEGER NOT NULL,
  PRIMARY KEY (project_id, model_id, revision)
) STRICT;

CREATE TABLE model_project_quota_policies (
  project_id      TEXT    NOT NULL CHECK (length(project_id) BETWEEN 1 AND 128),
  revision        INTEGER NOT NULL CHECK (revision >= 1),
  window_ms       INTEGER NOT NULL CHECK (window_ms IN (60000, 3600000, 86400000)),
  max_invocations INTEGER NOT NULL CHECK (max_invocations >= 1),
  max_tokens      INTEGER NOT NULL CHECK (max_tokens >= 1),
  max_cost_micros INTEGER CHECK (max_cost_micros >= 0),
  created_at_ms   INTEGER NOT NULL,
  PRIMARY KEY (project_id, revision)
) STRICT;

CREATE TABLE model_step_runs (
  project_id    TEXT    NOT NULL CHECK (length(project_id) BETWEEN 1 AND 128),
  step_run_id   TEXT    NOT NULL CHECK (length(step_run_id) BETWEEN 1 AND 128),
  run_id        TEXT    NOT NULL CHECK (length(run_id) BETWEEN 1 AND 128),
  model_id      TEXT    NOT NULL CHECK (length(model_id) BETWEEN 1 AND 128),
  state         TEXT    NOT NULL CHECK (state IN ('ready', 'running', 'succeeded', 'failed',
                                                  'unknown')),
  invocation_id TEXT,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (project_id, step_run_id),
  UNIQUE (project_id, invocation_id),
  CHECK ((state = 'ready') = (invocation_id IS NULL))
) STRICT;

CREATE TABLE model_invocation_reservations (
  project_id                  TEXT    NOT NULL,
  invocation_id               TEXT    NOT NULL CHECK (length(invocation_id) BETWEEN 1 AND 128),
  step_run_id                 TEXT    NOT NULL,
  run_id                      TEXT    NOT NULL,
  model_id                    TEXT    NOT NULL,
  model_policy_revision       INTEGER NOT NULL,
  quota_policy_revision       INTEGER NOT NULL,
  window_start_ms             INTEGER NOT NULL,
  window_ms                   INTEGER NOT NULL CHECK (window_ms IN (60000, 3600000, 86400000)),
  budget_max_invocations      INTEGER,
  budget_max_tokens           INTEGER,
  budget_max_cost_micros      INTEGER,
  reserved_tokens             INTEGER NOT NULL CHECK (reserved_tokens >= 1),
  reserved_cost_micros        INTEGER CHECK (reserved_cost_micros >= 0),
  -- Running totals of the window after this reservation, written under the window's lock.
  window_seq                  INTEGER NOT NULL CHECK (window_seq >= 1),
  window_invocations          INTEGER NOT NULL,
  window_reserved_tokens      INTEGER NOT NULL,
  window_reserved_cost_micros INTEGER NOT NULL,
  reserved_at_ms              INTEGER NOT NULL,
  digest                      TEXT    NOT NULL CHECK (length(digest) = 71),
  PRIMARY KEY (project_id, invocation_id),
  UNIQUE (project_id, step_run_id),
  -- The window's latest reservation is one seek down this index.
  UNIQUE (project_id, window_start_ms, window_ms, window_seq)
) STRICT;

CREATE TABLE model_invocation_starts (
  project_id         TEXT    NOT NULL,
  invocation_id      TEXT    NOT NULL,
  step_run_id        TEXT    NOT NULL,
  run_id             TEXT    NOT NULL,
  model_id           TEXT    NOT NULL,
  reservation_digest TEXT    NOT NULL CHECK (length(reservation_digest) = 71),
  started_at_ms      INTEGER NOT NULL,
  digest             TEXT    NOT NULL CHECK (length(digest) = 71),
  PRIMARY KEY (project_id, invocation_id)
) STRICT;

CREATE TABLE model_invocation_completions (
  project_id      TEXT    NOT NULL,
  invocation_id   TEXT    NOT NULL,
  step_run_id     TEXT    NOT NULL,
  outcome         TEXT    NOT NULL CHECK (outcome IN ('succeeded', 'failed', 'unknown')),
  input_tokens    INTEGER,
  output_tokens   INTEGER,
  total_tokens    INTEGER,
  cost_micros     INTEGER CHECK (cost_micros >= 0),
  completed_at_ms INTEGER NOT NULL,
  digest          TEXT    NOT NULL CHECK (length(digest) = 71),
  PRIMARY KEY (project_id, invocation_id),
  CHECK ((input_tokens IS NULL) = (total_tokens IS NULL)
         AND (output_tokens IS NULL) = (total_tokens IS NULL))
) STRICT;

CREATE TABLE model_usage_ledger (
  project_id        TEXT    NOT NULL,
  ledger_seq        INTEGER NOT NULL CHECK (ledger_seq >= 1),
  invocation_id     TEXT    NOT NULL,
  step_run_id       TEXT    NOT NULL,
  run_id            TEXT    NOT NULL,
  model_id          TEXT    NOT NULL,
  outcome           TEXT    NOT NULL CHECK (outcome IN ('succeeded', 'failed', 'unknown')),
  input_tokens      INTEGER,
  output_tokens     INTEGER,
  total_tokens      INTEGER,
  cost_micros       INTEGER CHECK (cost_micros >= 0),
  completion_digest TEXT    NOT NULL CHECK (length(completion_digest) = 71),
  recorded_at_ms    INTEGER NOT NULL,
  digest            TEXT    NOT NULL CHECK (length(digest) = 71),
  PRIMARY KEY (project_id, ledger_seq),
  UNIQUE (project_id, invocation_id)
) STRICT;

CREATE TABLE model_invocation_settlements (
  project_id                  TEXT    NOT NULL,
  invocation_id               TEXT    NOT NULL,
  window_start_ms             INTEGER NOT NULL,
  window_ms                   INTEGER NOT NULL,
  reservation_digest          TEXT    NOT NULL CHECK (length(reservation_digest) = 71),
  completion_digest           TEXT    NOT NULL CHECK (length(completion_digest) = 71),
  settled_tokens              INTEGER NOT NULL CHECK (settled_tokens >= 0),
  settled_cost_micros         INTEGER CHECK (settled_cost_micros >= 0),
  released_tokens             INTEGER NOT NULL CHECK (released_tokens >= 0),
  released_cost_micros        INTEGER NOT NULL CHECK (released_cost_micros >= 0),
  -- Running release totals of the window after this settlement, written under the window's lock.
  window_settle_seq           INTEGER NOT NULL CHECK (window_settle_seq >= 1),
  window_released_tokens      INTEGER NOT NULL,
  window_released_cost_micros INTEGER NOT NULL,
  settled_at_ms               INTEGER NOT NULL,
  digest                      TEXT    NOT NULL CHECK (length(digest) = 71),
  PRIMARY KEY (project_id, invocation_id),
  UNIQUE (project_id, window_start_ms, window_ms, window_settle_seq)
) STRICT;

-- The StepRun state machine holds in the data too, and a StepRun with a reservation can only end
-- through the quota-aware completion: its settlement must already be written.
CREATE TRIGGER model_step_runs_transition
BEFORE UPDATE ON model_step_runs
WHEN NOT ((OLD.state = 'ready' AND NEW.state = 'running')
          OR (OLD.state = 'running' AND NEW.state IN ('succeeded', 'failed', 'unknown')
              AND NEW.invocation_id IS OLD.invocation_id))
  OR NEW.project_id IS NOT OLD.project_id
  OR NEW.step_run_id IS NOT OLD.step_run_id
  OR NEW.run_id IS NOT OLD.run_id
  OR NEW.model_id IS NOT OLD.model_id
BEGIN
  SELECT RAISE(ABORT, 'model_step_runs: transition not allowed');
END;

CREATE TRIGGER model_step_runs_end_needs_settlement
BEFORE UPDATE OF state ON model_step_runs
WHEN NEW.state IN ('succeeded', 'failed', 'unknown')
  AND NOT EXISTS (SELECT 1 FROM model_invocation_settlements s
                  WHERE s.project_id = NEW.project_id AND s.invocation_id = NEW.invocation_id)
BEGIN
  SELECT RAISE(ABORT, 'model_step_runs: a step run ends only through its quota settlement');
END;
