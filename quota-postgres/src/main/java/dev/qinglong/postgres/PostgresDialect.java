package dev.qinglong.postgres;

import dev.qinglong.jdbc.JdbcDialect;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * PostgreSQL for the stores of {@code quota-jdbc}: tables in schema {@value
 * PostgresMigrations#SCHEMA} (the pools set it), the clock {@code clock_timestamp()}, buckets'
 * receipts as {@code jsonb}, permissions as a sorted {@code text[]}, and transaction-scoped
 * advisory locks ({@code pg_advisory_xact_lock}) to serialise a model quota window or a Project's
 * ledger. Stateless: use {@link #INSTANCE}, e.g. {@code new JdbcManagementQuotaStore(pool,
 * PostgresDialect.INSTANCE)}.
 */
public final class PostgresDialect implements JdbcDialect {
  /** The one instance; the dialect has no state. */
  public static final PostgresDialect INSTANCE = new PostgresDialect();

  /** clock_timestamp(), not now(): ADR 000 wants the clock of the statement, not of the BEGIN. */
  private static final String NOW_MS =
      "floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint";

  private static final String ADVISORY_XACT_LOCK = "SELECT pg_advisory_xact_lock(?)";

  private PostgresDialect() {}

  @Override
  public String name() {
    return "postgres";
  }

  /**
   * The parameters enter once through {@code input}: JDBC binds each {@code ?} once, and the window
   * and limit are needed in several places. {@code found} locks the bucket ({@code FOR NO KEY
   * UPDATE}, READ COMMITTED: the latest committed version, waiting for a writer in progress), so
   * {@code verdict}, the one write and the returned row all rest on the same locked bucket; a
   * refusal writes nothing. A receipt is {@code {"id": …, "d": …}}; containment ({@code @>}) with
   * {@code {"id": …}} finds the id whatever its digest, and with the plain string a legacy receipt.
   * When no bucket was found, {@code created} inserts one; if another transaction created it after
   * this statement's snapshot, the insert does nothing and the outcome is NULL (decide again).
   */
  @Override
  public String decideStatement() {
    return """
        WITH input AS (
          SELECT ?::text AS project_id, ?::text AS subject_type, ?::text AS subject_id,
                 ?::text AS operation, ?::text AS receipt_id, ?::text AS digest,
                 ?::bigint AS window_ms, ?::integer AS max_count, %s AS now_ms
        ),
        found AS (
          SELECT b.window_started_at_ms, b.consumed_count, b.receipt_ids
          FROM plugin_package_management_quota_buckets b, input i
          WHERE b.project_id = i.project_id AND b.subject_type = i.subject_type
            AND b.subject_id = i.subject_id AND b.operation = i.operation
          FOR NO KEY UPDATE OF b
        ),
        verdict AS (
          SELECT f.window_started_at_ms, f.consumed_count, f.receipt_ids,
                 jsonb_array_length(f.receipt_ids) AS receipt_count,
                 CASE WHEN f.window_started_at_ms + i.window_ms <= i.now_ms THEN 'restart'
                      WHEN f.consumed_count NOT BETWEEN 1 AND 1000
                        OR jsonb_array_length(f.receipt_ids) <> f.consumed_count THEN 'corrupt'
                      WHEN f.receipt_ids @> jsonb_build_array(
                                              jsonb_build_object('id', i.receipt_id, 'd', i.digest))
                        OR f.receipt_ids @> jsonb_build_array(i.receipt_id) THEN 'replayed'
                      WHEN f.receipt_ids @> jsonb_build_array(jsonb_build_object('id', i.receipt_id))
                        THEN 'key_reused'
                      WHEN f.consumed_count < i.max_count THEN 'append'
                      ELSE 'rejected' END AS verdict
          FROM found f, input i
        ),
        created AS (
          INSERT INTO plugin_package_management_quota_buckets AS b
            (project_id, subject_type, subject_id, operation,
             window_started_at_ms, consumed_count, receipt_ids, updated_at_ms)
          SELECT i.project_id, i.subject_type, i.subject_id, i.operation, i.now_ms, 1,
                 jsonb_build_array(jsonb_build_object('id', i.receipt_id, 'd', i.digest)), i.now_ms
          FROM input i
          WHERE NOT EXISTS (SELECT 1 FROM found)
          ON CONFLICT (project_id, subject_type, subject_id, operation) DO NOTHING
          RETURNING b.window_started_at_ms, b.consumed_count, b.receipt_ids
        ),
        counted AS (
          UPDATE plugin_package_management_quota_buckets b SET
            window_started_at_ms =
              CASE v.verdict WHEN 'restart' THEN i.now_ms ELSE b.window_started_at_ms END,
            consumed_count = CASE v.verdict WHEN 'restart' THEN 1 ELSE b.consumed_count + 1 END,
            receipt_ids =
              CASE v.verdict
                WHEN 'restart'
                THEN jsonb_build_array(jsonb_build_object('id', i.receipt_id, 'd', i.digest))
                ELSE b.receipt_ids
                     || jsonb_build_array(jsonb_build_object('id', i.receipt_id, 'd', i.digest))
              END,
            updated_at_ms = i.now_ms
          FROM verdict v, input i
          WHERE b.project_id = i.project_id AND b.subject_type = i.subject_type
            AND b.subject_id = i.subject_id AND b.operation = i.operation
            AND v.verdict IN ('restart', 'append')
          RETURNING b.window_started_at_ms, b.consumed_count, b.receipt_ids
        ),
        written AS (SELECT * FROM created UNION ALL SELECT * FROM counted)
        SELECT CASE WHEN w.consumed_count IS NOT NULL THEN 'allowed'
                    WHEN v.verdict IN ('replayed', 'key_reused', 'rejected', 'corrupt')
                    THEN v.verdict END AS outcome,
               coalesce(w.window_started_at_ms, v.window_started_at_ms),
               coalesce(w.consumed_count, v.consumed_count),
               CASE WHEN w.consumed_count IS NOT NULL THEN w.consumed_count
                    ELSE v.receipt_count END,
               i.now_ms,
               CASE WHEN coalesce(w.consumed_count, v.consumed_count) >= i.max_count
                         AND (w.consumed_count IS NOT NULL
                              OR v.verdict IN ('replayed', 'key_reused', 'rejected'))
                    THEN (SELECT string_agg(coalesce(e ->> 'id', e #>> '{}'), ' ')
                          FROM jsonb_array_elements(coalesce(w.receipt_ids, v.receipt_ids)) e)
               END
        FROM input i
        LEFT JOIN verdict v ON true
        LEFT JOIN written w ON true
        """
        .formatted(NOW_MS);
  }

  @Override
  public String nowMs() {
    return NOW_MS;
  }

  /**
   * {@code pg_advisory_xact_lock}, released at commit or rollback. Always returns true: the lock
   * may have waited for a transaction that committed since.
   */
  @Override
  public boolean lockUntilCommit(Connection connection, long key) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(ADVISORY_XACT_LOCK)) {
      ps.setLong(1, key);
      ps.executeQuery().close();
    }
    return true;
  }

  /**
   * REPEATABLE READ: one snapshot keeps reads without a lock consistent with each other. (Admission
   * and completion stay READ COMMITTED, so that what they read after their lock is fresh.)
   */
  @Override
  public int snapshotIsolation() {
    return Connection.TRANSACTION_REPEATABLE_READ;
  }

  @Override
  public void setPermissions(PreparedStatement statement, int index, List<String> wireNames)
      throws SQLException {
    statement.setArray(
        index, statement.getConnection().createArrayOf("text", wireNames.toArray(String[]::new)));
  }

  @Override
  public List<String> getPermissions(ResultSet row, int column) throws SQLException {
    Array array = row.getArray(column);
    List<String> names = new ArrayList<>();
    for (Object name : (Object[]) array.getArray()) {
      names.add((String) name);
    }
    return names;
  }
}
