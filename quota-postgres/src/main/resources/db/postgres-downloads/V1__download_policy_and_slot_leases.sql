-- QingLong shared downloads (ADR 002): the single policy row and the slot leases.
-- Own Flyway location (db/postgres-downloads) and history table (flyway_downloads_history) in
-- schema "qinglong"; applied after the base schema. Runs as the schema owner.
-- Released migrations are never edited: add a new version instead (checksums are pinned by a test).
-- The ql3_reader login role must exist (CloudNativePG managed role, or GatewayRoles.bootstrap).

CREATE TABLE download_policy (
  -- At most one row: the primary key can only be true.
  singleton                      boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
  rate_bytes_per_second          bigint      NOT NULL CHECK (rate_bytes_per_second >= 0),
  per_principal_bytes_per_second bigint      NOT NULL CHECK (per_principal_bytes_per_second >= 0),
  slots                          integer     NOT NULL CHECK (slots BETWEEN 1 AND 1024),
  created_at                     timestamptz NOT NULL,
  created_by_owner               uuid        NOT NULL
);

CREATE TABLE download_slot_leases (
  slot        integer     PRIMARY KEY CHECK (slot BETWEEN 0 AND 1023),
  -- A fresh UUID per process start; with generation the fencing token of every renewal.
  owner       uuid        NOT NULL,
  generation  bigint      NOT NULL CHECK (generation >= 1),
  acquired_at timestamptz NOT NULL,
  renewed_at  timestamptz NOT NULL,
  -- Database clock (clock_timestamp()) only; the application clock never decides expiry.
  expires_at  timestamptz NOT NULL,
  CHECK (renewed_at >= acquired_at),
  CHECK (expires_at > renewed_at)
);

-- Readers run the leases: slot 0 inserts the policy, every slot inserts/updates its lease row.
-- No DELETE and no policy UPDATE: a policy changes only offline, by the schema owner.
GRANT USAGE ON SCHEMA qinglong TO ql3_reader;
GRANT SELECT, INSERT ON download_policy TO ql3_reader;
GRANT SELECT, INSERT, UPDATE ON download_slot_leases TO ql3_reader;
