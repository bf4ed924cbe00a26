-- QingLong SQLite schema v10: signed webhooks from a transactional outbox (issue 21).
-- A Project's endpoints (at most 10), the event types each one subscribes to, and one delivery row
-- per (event, endpoint). A change that reports an event (a proposal created, an approval decided,
-- a proposal published) inserts its delivery rows in its own transaction, so an event is reported
-- exactly when its change committed. The delivery worker claims due rows (a lease moves
-- next_attempt_at_ms forward and claim_token up by one) and records each attempt only while it
-- still holds the claim token.
--
-- Signing secrets are stored sealed (AES-GCM, the key is in the application's configuration or in
-- <data-dir>/webhook-secret.key, not in this file): a copy of the database alone cannot sign a
-- webhook. A rotated secret stays valid for 24 hours (previous_secret_*).
--
-- webhook_projects holds one row per Project that ever registered an endpoint (registrations lock
-- it, as on PostgreSQL). Deleting an endpoint deletes its event types and delivery rows (foreign
-- keys are on, SqliteDatabase.open).
-- Expand only: new tables, nothing existing is changed.
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).

CREATE TABLE webhook_projects (
  project_id   TEXT    PRIMARY KEY CHECK (length(project_id) BETWEEN 1 AND 128),
  locked_at_ms INTEGER NOT NULL
) STRICT;

CREATE TABLE webhook_endpoints (
  project_id               TEXT    NOT NULL REFERENCES webhook_projects (project_id),
  webhook_id               TEXT    NOT NULL CHECK (length(webhook_id) BETWEEN 1 AND 128),
  url                      TEXT    NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
  model_quota_thresholds   TEXT    NOT NULL,
  secret_sealed            BLOB    NOT NULL CHECK (length(secret_sealed) BETWEEN 29 AND 256),
  previous_secret_sealed   BLOB    CHECK (length(previous_secret_sealed) BETWEEN 29 AND 256),
  previous_secret_until_ms INTEGER,
  created_at_ms            INTEGER NOT NULL,
  updated_at_ms            INTEGER NOT NULL,
  PRIMARY KEY (project_id, webhook_id),
  CHECK ((previous_secret_sealed IS NULL) = (previous_secret_until_ms IS NULL))
) STRICT;

CREATE TABLE webhook_endpoint_events (
  project_id TEXT NOT NULL,
  webhook_id TEXT NOT NULL,
  event_type TEXT NOT NULL CHECK (event_type IN ('approval.pending', 'approval.decided',
    'proposal.published', 'model-quota.threshold', 'management-quota.rejected', 'webhook.test')),
  PRIMARY KEY (project_id, event_type, webhook_id),
  FOREIGN KEY (project_id, webhook_id)
    REFERENCES webhook_endpoints (project_id, webhook_id) ON DELETE CASCADE
) STRICT;

CREATE INDEX webhook_endpoint_events_endpoint_idx
  ON webhook_endpoint_events (project_id, webhook_id);

CREATE TABLE webhook_deliveries (
  delivery_id        TEXT    PRIMARY KEY CHECK (delivery_id GLOB 'msg_*'
                                                AND length(delivery_id) BETWEEN 5 AND 68),
  project_id         TEXT    NOT NULL,
  webhook_id         TEXT    NOT NULL,
  event_type         TEXT    NOT NULL CHECK (event_type IN ('approval.pending', 'approval.decided',
    'proposal.published', 'model-quota.threshold', 'management-quota.rejected', 'webhook.test')),
  payload            TEXT    NOT NULL CHECK (length(payload) BETWEEN 2 AND 65536),
  created_at_ms      INTEGER NOT NULL,
  status             TEXT    NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts           INTEGER NOT NULL CHECK (attempts >= 0),
  next_attempt_at_ms INTEGER,
  claim_token        INTEGER NOT NULL CHECK (claim_token >= 0),
  last_status_code   INTEGER CHECK (last_status_code BETWEEN 100 AND 599),
  last_error         TEXT    CHECK (length(last_error) <= 200),
  last_attempt_at_ms INTEGER,
  delivered_at_ms    INTEGER,
  FOREIGN KEY (project_id, webhook_id)
    REFERENCES webhook_endpoints (project_id, webhook_id) ON DELETE CASCADE,
  CHECK ((status = 'pending') = (next_attempt_at_ms IS NOT NULL)),
  CHECK ((status = 'delivered') = (delivered_at_ms IS NOT NULL))
) STRICT;

-- The worker's scan: due rows, oldest due first.
CREATE INDEX webhook_deliveries_due_idx
  ON webhook_deliveries (next_attempt_at_ms) WHERE status = 'pending';

-- An endpoint's delivery log, newest first (and the foreign key's cascade).
CREATE INDEX webhook_deliveries_log_idx
  ON webhook_deliveries (project_id, webhook_id, created_at_ms, delivery_id);
