-- QingLong PostgreSQL schema v12: signed webhooks from a transactional outbox (issue 21).
-- A Project's endpoints (at most 10), the event types each one subscribes to, and one delivery row
-- per (event, endpoint). A change that reports an event (a proposal created, an approval decided,
-- a proposal published) inserts its delivery rows in its own transaction, so an event is reported
-- exactly when its change committed. The delivery worker claims due rows (a lease moves
-- next_attempt_at_ms forward and claim_token up by one) and records each attempt only while it
-- still holds the claim token.
--
-- Signing secrets are stored sealed (AES-GCM, the key is in the application's configuration, not
-- in the database): whoever reads the database or a backup cannot sign a webhook. A rotated secret
-- stays valid for 24 hours (previous_secret_*), so both signatures are sent meanwhile.
--
-- webhook_projects holds one row per Project that ever registered an endpoint; a registration
-- locks it, so that concurrent registrations count the Project's endpoints one after the other
-- and the limit of 10 holds. Deleting an endpoint deletes its event types and delivery rows (the
-- foreign keys cascade with the owner's rights).
-- Expand only: new tables, nothing existing is changed.
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).

CREATE TABLE webhook_projects (
  project_id    text   PRIMARY KEY CHECK (project_id ~ '^[A-Za-z0-9._:-]{1,128}$'),
  locked_at_ms  bigint NOT NULL
);

CREATE TABLE webhook_endpoints (
  project_id               text   NOT NULL REFERENCES webhook_projects (project_id),
  webhook_id               text   NOT NULL CHECK (webhook_id ~ '^[A-Za-z0-9._:-]{1,128}$'),
  url                      text   NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
  model_quota_thresholds   text   NOT NULL CHECK (model_quota_thresholds ~ '^([0-9.]+( [0-9.]+)*)?$'),
  secret_sealed            bytea  NOT NULL CHECK (length(secret_sealed) BETWEEN 29 AND 256),
  previous_secret_sealed   bytea  CHECK (length(previous_secret_sealed) BETWEEN 29 AND 256),
  previous_secret_until_ms bigint,
  created_at_ms            bigint NOT NULL,
  updated_at_ms            bigint NOT NULL,
  PRIMARY KEY (project_id, webhook_id),
  CHECK ((previous_secret_sealed IS NULL) = (previous_secret_until_ms IS NULL))
);

CREATE TABLE webhook_endpoint_events (
  project_id text NOT NULL,
  webhook_id text NOT NULL,
  event_type text NOT NULL CHECK (event_type IN ('approval.pending', 'approval.decided',
    'proposal.published', 'model-quota.threshold', 'management-quota.rejected', 'webhook.test')),
  PRIMARY KEY (project_id, event_type, webhook_id),
  FOREIGN KEY (project_id, webhook_id)
    REFERENCES webhook_endpoints (project_id, webhook_id) ON DELETE CASCADE
);

CREATE INDEX webhook_endpoint_events_endpoint_idx
  ON webhook_endpoint_events (project_id, webhook_id);

CREATE TABLE webhook_deliveries (
  delivery_id        text    PRIMARY KEY CHECK (delivery_id ~ '^msg_[A-Za-z0-9_-]{1,64}$'),
  project_id         text    NOT NULL,
  webhook_id         text    NOT NULL,
  event_type         text    NOT NULL CHECK (event_type IN ('approval.pending', 'approval.decided',
    'proposal.published', 'model-quota.threshold', 'management-quota.rejected', 'webhook.test')),
  payload            text    NOT NULL CHECK (length(payload) BETWEEN 2 AND 65536),
  created_at_ms      bigint  NOT NULL,
  status             text    NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts           integer NOT NULL CHECK (attempts >= 0),
  next_attempt_at_ms bigint,
  claim_token        bigint  NOT NULL CHECK (claim_token >= 0),
  last_status_code   integer CHECK (last_status_code BETWEEN 100 AND 599),
  last_error         text    CHECK (length(last_error) <= 200),
  last_attempt_at_ms bigint,
  delivered_at_ms    bigint,
  FOREIGN KEY (project_id, webhook_id)
    REFERENCES webhook_endpoints (project_id, webhook_id) ON DELETE CASCADE,
  CHECK ((status = 'pending') = (next_attempt_at_ms IS NOT NULL)),
  CHECK ((status = 'delivered') = (delivered_at_ms IS NOT NULL))
);

-- The worker's scan: due rows, oldest due first.
CREATE INDEX webhook_deliveries_due_idx
  ON webhook_deliveries (next_attempt_at_ms) WHERE status = 'pending';

-- An endpoint's delivery log, newest first (and the foreign key's cascade).
CREATE INDEX webhook_deliveries_log_idx
  ON webhook_deliveries (project_id, webhook_id, created_at_ms, delivery_id);

-- Who writes what (least privilege): the administrator registers endpoints (a Policy write, as
-- members are) and enqueues test events; the package manager (proposals, decisions) and the
-- package executor (publication) insert the delivery rows of their changes, reading only which
-- endpoints subscribe; the executor, the only login of the delivery worker, reads the endpoints
-- (URL, sealed secrets) and claims and updates delivery rows. Nobody else sees anything.
REVOKE ALL ON webhook_projects, webhook_endpoints, webhook_endpoint_events, webhook_deliveries
  FROM PUBLIC;
GRANT SELECT, INSERT, UPDATE ON webhook_projects TO ql3_admin;
GRANT SELECT, INSERT, UPDATE, DELETE ON webhook_endpoints, webhook_endpoint_events TO ql3_admin;
GRANT SELECT, INSERT ON webhook_deliveries TO ql3_admin;
GRANT SELECT ON webhook_endpoint_events TO ql3_package_manager, ql3_package_executor;
GRANT INSERT ON webhook_deliveries TO ql3_package_manager;
GRANT SELECT ON webhook_endpoints TO ql3_package_executor;
GRANT SELECT, INSERT ON webhook_deliveries TO ql3_package_executor;
GRANT UPDATE (status, attempts, next_attempt_at_ms, claim_token, last_status_code, last_error,
  last_attempt_at_ms, delivered_at_ms) ON webhook_deliveries TO ql3_package_executor;
