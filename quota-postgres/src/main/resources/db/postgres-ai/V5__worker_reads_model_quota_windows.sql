-- QingLong PostgreSQL AI schema v5: the worker reads model-quota windows (issue 21).
-- The model-quota.threshold webhook event is derived by the active worker from durable state: a
-- periodic pass reads each subscribed Project's current window (its quota policy, the window's
-- latest reservation and settlement, exactly what the usage route reads) and writes the event with
-- a deduplication key. The worker's login, ql3_package_executor, gets SELECT on those three tables
-- only: it reads usage, never writes a receipt, and sees no other model-quota table.
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).

GRANT SELECT ON model_project_quota_policies, model_invocation_reservations,
  model_invocation_settlements TO ql3_package_executor;
