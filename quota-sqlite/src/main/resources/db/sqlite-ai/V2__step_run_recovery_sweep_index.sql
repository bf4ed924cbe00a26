-- QingLong optional AI feature, SQLite v2: the recovery sweep (qinglong.ai.recover-unknown-after)
-- reads running StepRuns oldest first, in pages keyed by (updated_at_ms, project_id, step_run_id).
-- A partial index over only the running rows keeps that read one short index scan however many
-- finished StepRuns the file holds (finished rows leave the index when their state changes).
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).

CREATE INDEX model_step_runs_running_sweep
  ON model_step_runs (updated_at_ms, project_id, step_run_id)
  WHERE state = 'running';
