package dev.qinglong.postgres;

import dev.qinglong.jdbc.JdbcDialect;
import dev.qinglong.jdbc.JdbcTransactions;
import dev.qinglong.jdbc.ModelLifecycle;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
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

  /**
   * clock_timestamp(), not now(): a quota window runs on the clock of the statement, not of the
   * BEGIN (docs/design.md#fixed-windows-on-the-database-clock).
   */
  private static final String NOW_MS =
      "floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint";

  /**
   * Each request of {@code request} with the limit it is decided under: {@code max_count}, the
   * user's latest value for the operation, else the Project's (user id {@code ''}), else the
   * default the caller sent; {@code shadow_count} the same way without a default; {@code
   * limit_source} which one it was. One backward primary-key probe of {@code
   * management_quota_limits} per level (migration V11: every revision has a row per operation, NULL
   * where it sets nothing, so the latest row is the latest revision's value). Read with the
   * statement's snapshot, like the bucket: a revision committed before the statement started is in
   * force for it.
   */
  private static final String EFFECTIVE_LIMITS =
      """
      SELECT r.*,
             coalesce(u.limit_value, p.limit_value, r.default_limit) AS max_count,
             coalesce(u.shadow_limit, p.shadow_limit) AS shadow_count,
             CASE WHEN u.limit_value IS NOT NULL THEN 'user'
                  WHEN p.limit_value IS NOT NULL THEN 'project'
                  ELSE 'default' END AS limit_source
      FROM request r
      LEFT JOIN LATERAL (
        SELECT l.limit_value, l.shadow_limit FROM management_quota_limits l
        WHERE l.project_id = r.project_id AND l.user_id = r.subject_id
          AND l.operation = r.operation
        ORDER BY l.revision DESC LIMIT 1) u ON true
      LEFT JOIN LATERAL (
        SELECT l.limit_value, l.shadow_limit FROM management_quota_limits l
        WHERE l.project_id = r.project_id AND l.user_id = ''
          AND l.operation = r.operation
        ORDER BY l.revision DESC LIMIT 1) p ON true""";

  /** Each request of {@code input} as a new bucket: its window starts now with its receipt. */
  private static final String FIRST_RECEIPT =
      """
      INSERT INTO plugin_package_management_quota_buckets AS b
        (project_id, subject_type, subject_id, operation,
         window_started_at_ms, consumed_count, receipt_ids, updated_at_ms)
      SELECT project_id, subject_type, subject_id, operation, now_ms, 1,
             jsonb_build_array(jsonb_build_object('id', receipt_id, 'd', digest)), now_ms
      FROM input""";

  /**
   * How a bucket {@code found} (locked, not counted) answers the request {@code i}: its receipt
   * count and the verdict, a replay, a reused key, a full window or a corrupt bucket.
   */
  private static final String VERDICT =
      """
      jsonb_array_length(f.receipt_ids) AS receipt_count,
      CASE WHEN f.consumed_count NOT BETWEEN 1 AND 1000
             OR jsonb_array_length(f.receipt_ids) <> f.consumed_count THEN 'corrupt'
           WHEN f.receipt_ids @> jsonb_build_array(
                                   jsonb_build_object('id', i.receipt_id, 'd', i.digest))
             THEN 'replayed'
           WHEN f.receipt_ids @> jsonb_build_array(jsonb_build_object('id', i.receipt_id))
             THEN 'key_reused'
           WHEN f.consumed_count >= i.max_count THEN 'rejected'
           ELSE 'corrupt' END AS verdict""";

  /** The receipt ids of a full window {@code d}, space-separated, for the hot-bucket cache. */
  private static final String FULL_WINDOW_RECEIPTS =
      """
      CASE WHEN d.consumed_count >= i.max_count AND d.outcome <> 'corrupt'
           THEN (SELECT string_agg(e ->> 'id', ' ')
                 FROM jsonb_array_elements(d.receipt_ids) e) END""";

  private PostgresDialect() {}

  @Override
  public String name() {
    return "postgres";
  }

  /**
   * The parameters enter once through {@code request}, and {@code input} adds the limit they are
   * decided under ({@link #EFFECTIVE_LIMITS}): JDBC binds each {@code ?} once, and the window and
   * limit are needed in several places. {@code counted} is the one-statement decision of
   * docs/design.md#fixed-windows-on-the-database-clock, an upsert: it inserts the bucket, restarts
   * an ended window or appends the receipt, and otherwise writes nothing, but ({@code ON CONFLICT
   * DO UPDATE}) still locks the bucket. Only when it wrote nothing, {@code found} reads the bucket
   * {@code FOR NO KEY UPDATE}: at READ COMMITTED that is the latest committed version, the one
   * {@code counted} locked (the lock is this transaction's own, so it does not wait), and the final
   * {@code SELECT} classifies it: a replay, a reused key, a full window or a corrupt bucket. A
   * receipt is {@code {"id": …, "d": …}}; containment ({@code @>}) with {@code {"id": …}} finds the
   * id whatever its digest. If another transaction created the bucket after this statement's
   * snapshot and {@code counted} wrote nothing, {@code found} cannot see it: the outcome is NULL
   * (decide again).
   */
  @Override
  public String decideStatement() {
    return """
        WITH request AS (
          SELECT ?::text AS project_id, ?::text AS subject_type, ?::text AS subject_id,
                 ?::text AS operation, ?::text AS receipt_id, ?::text AS digest,
                 ?::bigint AS window_ms, ?::integer AS default_limit, %1$s AS now_ms
        ),
        input AS (
          %5$s
        ),
        counted AS (
          %4$s
          ON CONFLICT (project_id, subject_type, subject_id, operation) DO UPDATE SET
            window_started_at_ms =
              CASE WHEN b.window_started_at_ms + (SELECT window_ms FROM input)
                          <= excluded.updated_at_ms
                   THEN excluded.window_started_at_ms
                   ELSE b.window_started_at_ms END,
            consumed_count =
              CASE WHEN b.window_started_at_ms + (SELECT window_ms FROM input)
                          <= excluded.updated_at_ms
                   THEN 1
                   ELSE b.consumed_count + 1 END,
            receipt_ids =
              CASE WHEN b.window_started_at_ms + (SELECT window_ms FROM input)
                          <= excluded.updated_at_ms
                   THEN excluded.receipt_ids
                   ELSE b.receipt_ids || excluded.receipt_ids END,
            updated_at_ms = excluded.updated_at_ms
          WHERE b.window_started_at_ms + (SELECT window_ms FROM input) <= excluded.updated_at_ms
             OR (b.consumed_count < (SELECT max_count FROM input)
                 AND jsonb_array_length(b.receipt_ids) = b.consumed_count
                 AND NOT b.receipt_ids @> (SELECT jsonb_build_array(
                                                    jsonb_build_object('id', receipt_id))
                                           FROM input))
          RETURNING b.window_started_at_ms, b.consumed_count, b.receipt_ids
        ),
        found AS (
          SELECT b.window_started_at_ms, b.consumed_count, b.receipt_ids
          FROM plugin_package_management_quota_buckets b, input i
          WHERE NOT EXISTS (SELECT 1 FROM counted)
            AND b.project_id = i.project_id AND b.subject_type = i.subject_type
            AND b.subject_id = i.subject_id AND b.operation = i.operation
          FOR NO KEY UPDATE OF b
        ),
        verdict AS (
          SELECT f.window_started_at_ms, f.consumed_count, f.receipt_ids,
                 %2$s
          FROM found f, input i
        ),
        decided AS (
          SELECT 'allowed' AS outcome, c.window_started_at_ms, c.consumed_count,
                 c.consumed_count AS receipt_count, c.receipt_ids
          FROM counted c
          UNION ALL
          SELECT v.verdict, v.window_started_at_ms, v.consumed_count, v.receipt_count,
                 v.receipt_ids
          FROM verdict v
        )
        SELECT d.outcome, d.window_started_at_ms, d.consumed_count, d.receipt_count, i.now_ms,
               %3$s,
               i.max_count, i.shadow_count, i.limit_source
        FROM input i
        LEFT JOIN decided d ON true
        """
        .formatted(NOW_MS, VERDICT, FULL_WINDOW_RECEIPTS, FIRST_RECEIPT, EFFECTIVE_LIMITS);
  }

  /**
   * {@link #decideStatement} over arrays: {@code input} unnests the requests with their ordinal and
   * one clock reading; {@code counted} is the same upsert for every request, its rows sorted by
   * bucket so that the row locks are taken in one order in every process. {@code excluded} carries
   * only table columns, so each request's window length and limit are looked up in {@code input} by
   * the bucket (distinct within a statement: {@code ON CONFLICT DO UPDATE} cannot touch a row
   * twice). {@code found} reads, {@code FOR NO KEY UPDATE}, the buckets of the requests {@code
   * counted} did not write (locked by {@code counted} already: this transaction's own locks); the
   * classification and the final row are those of the single statement, joined back to the request
   * on its ordinal.
   */
  @Override
  public String decideBatchStatement() {
    return """
        WITH request AS (
          SELECT u.ord, u.project_id, u.subject_type, u.subject_id, u.operation, u.receipt_id,
                 u.digest, u.window_ms, u.default_limit, n.now_ms
          FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],
                      ?::bigint[], ?::integer[])
                 WITH ORDINALITY AS u(project_id, subject_type, subject_id, operation, receipt_id,
                                      digest, window_ms, default_limit, ord),
               (SELECT %1$s AS now_ms) n
        ),
        input AS (
          %5$s
        ),
        counted AS (
          %4$s
          ORDER BY project_id, subject_type, subject_id, operation
          ON CONFLICT (project_id, subject_type, subject_id, operation) DO UPDATE SET
            (window_started_at_ms, consumed_count, receipt_ids, updated_at_ms) = (
              SELECT CASE WHEN b.window_started_at_ms + i.window_ms <= excluded.updated_at_ms
                          THEN excluded.window_started_at_ms
                          ELSE b.window_started_at_ms END,
                     CASE WHEN b.window_started_at_ms + i.window_ms <= excluded.updated_at_ms
                          THEN 1
                          ELSE b.consumed_count + 1 END,
                     CASE WHEN b.window_started_at_ms + i.window_ms <= excluded.updated_at_ms
                          THEN excluded.receipt_ids
                          ELSE b.receipt_ids || excluded.receipt_ids END,
                     excluded.updated_at_ms
              FROM input i
              WHERE i.project_id = excluded.project_id AND i.subject_type = excluded.subject_type
                AND i.subject_id = excluded.subject_id AND i.operation = excluded.operation)
          WHERE EXISTS (
            SELECT 1 FROM input i
            WHERE i.project_id = excluded.project_id AND i.subject_type = excluded.subject_type
              AND i.subject_id = excluded.subject_id AND i.operation = excluded.operation
              AND (b.window_started_at_ms + i.window_ms <= excluded.updated_at_ms
                   OR (b.consumed_count < i.max_count
                       AND jsonb_array_length(b.receipt_ids) = b.consumed_count
                       AND NOT b.receipt_ids @> jsonb_build_array(
                                                  jsonb_build_object('id', i.receipt_id)))))
          RETURNING b.project_id, b.subject_type, b.subject_id, b.operation,
                    b.window_started_at_ms, b.consumed_count, b.receipt_ids
        ),
        found AS (
          SELECT i.ord, b.window_started_at_ms, b.consumed_count, b.receipt_ids
          FROM input i
          JOIN plugin_package_management_quota_buckets b
            ON b.project_id = i.project_id AND b.subject_type = i.subject_type
           AND b.subject_id = i.subject_id AND b.operation = i.operation
          WHERE NOT EXISTS (
            SELECT 1 FROM counted c
            WHERE c.project_id = i.project_id AND c.subject_type = i.subject_type
              AND c.subject_id = i.subject_id AND c.operation = i.operation)
          FOR NO KEY UPDATE OF b
        ),
        verdict AS (
          SELECT f.ord, f.window_started_at_ms, f.consumed_count, f.receipt_ids,
                 %2$s
          FROM found f JOIN input i ON i.ord = f.ord
        ),
        decided AS (
          SELECT i.ord, 'allowed' AS outcome, c.window_started_at_ms, c.consumed_count,
                 c.consumed_count AS receipt_count, c.receipt_ids
          FROM counted c
          JOIN input i
            ON i.project_id = c.project_id AND i.subject_type = c.subject_type
           AND i.subject_id = c.subject_id AND i.operation = c.operation
          UNION ALL
          SELECT v.ord, v.verdict, v.window_started_at_ms, v.consumed_count, v.receipt_count,
                 v.receipt_ids
          FROM verdict v
        )
        SELECT i.ord, d.outcome, d.window_started_at_ms, d.consumed_count, d.receipt_count,
               i.now_ms,
               %3$s,
               i.max_count, i.shadow_count, i.limit_source
        FROM input i
        LEFT JOIN decided d ON d.ord = i.ord
        ORDER BY i.ord
        """
        .formatted(NOW_MS, VERDICT, FULL_WINDOW_RECEIPTS, FIRST_RECEIPT, EFFECTIVE_LIMITS);
  }

  @Override
  public String newDeliveryId() {
    return "'msg_' || replace(gen_random_uuid()::text, '-', '')";
  }

  @Override
  public String nowMs() {
    return NOW_MS;
  }

  @Override
  public void setPermissions(PreparedStatement statement, int index, List<String> wireNames)
      throws SQLException {
    statement.setArray(
        index, statement.getConnection().createArrayOf("text", wireNames.toArray(String[]::new)));
  }

  @Override
  public List<String> getPermissions(ResultSet row, int column) throws SQLException {
    return Arrays.stream((Object[]) row.getArray(column).getArray())
        .map(String.class::cast)
        .toList();
  }

  /**
   * One snapshot read and one {@code CALL} of the procedures of migration {@code db/postgres-ai/V4}
   * per admission and completion, in auto-commit.
   */
  @Override
  public ModelLifecycle modelLifecycle(JdbcTransactions jdbc) {
    return new PostgresModelLifecycle(jdbc, this);
  }
}
