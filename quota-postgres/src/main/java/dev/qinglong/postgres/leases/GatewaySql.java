package dev.qinglong.postgres.leases;

/**
 * Every statement of the gateway PostgreSQL adapters. DDL lives in {@code db/postgres-downloads}.
 */
final class GatewaySql {
  private GatewaySql() {}

  /**
   * Advisory locks use the two-integer key space, which never overlaps the single-bigint keys that
   * other parts of QingLong hash into (the model quota's window locks). Class id: "QL".
   */
  static final int LOCK_CLASS = 0x514C;

  /** Object id of the standalone/shared mode barrier. */
  static final int MODE_BARRIER = 1;

  /** Object id of the publication-worker lock. */
  static final int WORKER_LOCK = 2;

  static final String TRY_SHARED_LOCK = "SELECT pg_try_advisory_lock_shared(?, ?)";
  static final String TRY_EXCLUSIVE_LOCK = "SELECT pg_try_advisory_lock(?, ?)";

  /** Whether this session holds the given lock (shared or exclusive), granted. */
  static final String HOLDS_LOCK =
      """
      SELECT count(*) > 0 FROM pg_locks
      WHERE locktype = 'advisory' AND classid = ?::int::oid AND objid = ?::int::oid
        AND objsubid = 2 AND pid = pg_backend_pid() AND granted
      """;

  static final String INSERT_POLICY =
      """
      INSERT INTO qinglong.download_policy
        (rate_bytes_per_second, per_principal_bytes_per_second, slots, created_at,
         created_by_owner)
      VALUES (?, ?, ?, clock_timestamp(), ?)
      ON CONFLICT (singleton) DO NOTHING
      """;

  static final String READ_POLICY =
      """
      SELECT rate_bytes_per_second, per_principal_bytes_per_second, slots
      FROM qinglong.download_policy
      """;

  /**
   * Takes a slot that is free or whose reservation has expired on the database clock; the
   * generation goes up by one on every new owner. Parameters: slot, owner, lease ms. Returns the
   * generation, or no row if a reservation is still live.
   */
  static final String ACQUIRE_SLOT =
      """
      INSERT INTO qinglong.download_slot_leases AS l
        (slot, owner, generation, acquired_at, renewed_at, expires_at)
      VALUES (?, ?, 1, clock_timestamp(), clock_timestamp(),
              clock_timestamp() + make_interval(secs => ?::double precision / 1000))
      ON CONFLICT (slot) DO UPDATE SET
        owner = excluded.owner,
        generation = l.generation + 1,
        acquired_at = excluded.acquired_at,
        renewed_at = excluded.renewed_at,
        expires_at = excluded.expires_at
      WHERE l.expires_at <= clock_timestamp()
      RETURNING generation
      """;

  /**
   * The current holder of a slot, with its renewal time as microseconds so a change is exact.
   * Parameter: slot.
   */
  static final String READ_SLOT =
      """
      SELECT owner, generation,
             (extract(epoch FROM renewed_at) * 1000000)::bigint AS renewed_us,
             expires_at > clock_timestamp() AS live
      FROM qinglong.download_slot_leases WHERE slot = ?
      """;

  /**
   * Renews only for the same owner and generation, and only while the reservation is live on the
   * database clock. Parameters: lease ms, slot, owner, generation. One row updated = renewed.
   */
  static final String RENEW_SLOT =
      """
      UPDATE qinglong.download_slot_leases SET
        renewed_at = clock_timestamp(),
        expires_at = clock_timestamp() + make_interval(secs => ?::double precision / 1000)
      WHERE slot = ? AND owner = ? AND generation = ? AND expires_at > clock_timestamp()
      """;

  /** The database clock as microseconds since the epoch. */
  static final String DATABASE_NOW_US =
      "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint";

  /** Every stored slot lease, with liveness on the database clock (the operator's listing). */
  static final String LIST_SLOTS =
      """
      SELECT slot, generation,
             (extract(epoch FROM renewed_at) * 1000000)::bigint AS renewed_us,
             (extract(epoch FROM expires_at) * 1000000)::bigint AS expires_us,
             expires_at > clock_timestamp() AS live
      FROM qinglong.download_slot_leases ORDER BY slot
      """;
}
