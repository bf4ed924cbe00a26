package dev.qinglong.sqlite;

import dev.qinglong.jdbc.JdbcDialect;
import dev.qinglong.jdbc.JdbcTransactions;
import dev.qinglong.jdbc.ModelLifecycle;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * SQLite for the stores of {@code quota-jdbc}, on a pool from {@link SqliteDatabase#open}: the
 * clock {@code unixepoch('subsec')}, buckets' receipts and permissions as JSON arrays, and no lock
 * of its own, because every transaction starts with {@code BEGIN IMMEDIATE} (the pool's {@code
 * transaction_mode}) and so holds SQLite's single writer lock from its start, across connections
 * and processes. Stateless: use {@link #INSTANCE}, e.g. {@code new JdbcManagementQuotaStore(pool,
 * SqliteDialect.INSTANCE)}.
 */
public final class SqliteDialect implements JdbcDialect {
  /** The one instance; the dialect has no state. */
  public static final SqliteDialect INSTANCE = new SqliteDialect();

  /** SQLite's own clock in epoch milliseconds; constant within one statement. */
  private static final String NOW_MS = "CAST(unixepoch('subsec') * 1000 AS INTEGER)";

  /** The receipt id of a {@code json_each} element {@code e}, a {@code {"id", "d"}} object. */
  private static final String RECEIPT_ID = "json_extract(e.value, '$.id')";

  /** The request digest of a {@code json_each} element {@code e}. */
  private static final String RECEIPT_DIGEST = "json_extract(e.value, '$.d')";

  /**
   * True when the JSON text {@code %s} (a column) holds no receipt with the id {@code ?5}, decided
   * without parsing it: the quoted id is not in the text and the text has no backslash. Exact for
   * any valid JSON: without escapes every string in the text is spelled as it decodes, so a receipt
   * with that id would put {@code "id"} (quotes included) in the text. When false the receipts are
   * looked at one by one ({@code json_each}), as before: for a replay, a reused key, an escaped
   * string, or an id that is part of another string.
   */
  private static final String ABSENT =
      "(instr(%1$s, '\"' || ?5 || '\"') = 0 AND instr(%1$s, '\\') = 0)";

  /**
   * The latest value of column {@code %1$s} of the {@code management_quota_limits} row of the
   * bucket's Project, operation and user {@code %2$s} ({@code ?3}, or {@code ''} for the Project's
   * own policy): one backward probe of the primary key (migration V9: every revision has a row per
   * operation, NULL where it sets nothing, so the latest row is the latest revision's value). A
   * subquery of parameters only, so SQLite evaluates it once per statement, inside the write lock
   * the statement holds from its start.
   */
  private static final String LATEST =
      "(SELECT l.%1$s FROM management_quota_limits l WHERE l.project_id = ?1"
          + " AND l.user_id = %2$s AND l.operation = ?4 ORDER BY l.revision DESC LIMIT 1)";

  /** The limit the statement decides under: the user's, else the Project's, else the default ?8. */
  private static final String MAX_COUNT =
      "coalesce(%s, %s, ?8)"
          .formatted(LATEST.formatted("limit_value", "?3"), LATEST.formatted("limit_value", "''"));

  /** The shadow limit in force, the same way without a default. */
  private static final String SHADOW_COUNT =
      "coalesce(%s, %s)"
          .formatted(
              LATEST.formatted("shadow_limit", "?3"), LATEST.formatted("shadow_limit", "''"));

  /** Where {@link #MAX_COUNT} came from. */
  private static final String LIMIT_SOURCE =
      "CASE WHEN %s IS NOT NULL THEN 'user' WHEN %s IS NOT NULL THEN 'project' ELSE 'default' END"
          .formatted(LATEST.formatted("limit_value", "?3"), LATEST.formatted("limit_value", "''"));

  /** Permission wire names are lower-case words and dots: no escapes to decode. */
  private static final Pattern JSON_STRING = Pattern.compile("\"([a-z.]+)\"");

  private SqliteDialect() {}

  @Override
  public String name() {
    return "sqlite";
  }

  @Override
  public String newDeliveryId() {
    return "'msg_' || lower(hex(randomblob(16)))";
  }

  @Override
  public String nowMs() {
    return NOW_MS;
  }

  /**
   * Numbered parameters ?1 … ?8, in {@link JdbcDialect#decideStatement}'s order, reused freely; the
   * limit is {@link #MAX_COUNT}, resolved from the limit rows and the default ?8. The statement
   * holds SQLite's write lock from its start. SQLite's {@code RETURNING} sees only the row as the
   * statement leaves it (not the row it found, nor {@code excluded}, nor another table), and only a
   * row the statement wrote; so on a conflict the update always runs, and the outcome is read from
   * the row it leaves:
   *
   * <ul>
   *   <li>a refusal writes every column back unchanged: the receipt id is absent (rejected) or
   *       there with another digest (key reused);
   *   <li>an admission leaves the receipt last, with this digest, and {@code updated_at_ms} = the
   *       statement's clock;
   *   <li>a replay leaves the receipt where it was, and {@code updated_at_ms} as it was unless that
   *       is the statement's clock (the receipt was counted in this same millisecond), then one
   *       millisecond earlier: so that a replay never looks like the admission it repeats.
   * </ul>
   *
   * A corrupt bucket (count outside 1..1000, or not the receipt array's length) is never updated,
   * unless its window has ended: no row comes back. A receipt is {@code {"id": …, "d": …}} (the
   * table's CHECK allows no other shape).
   *
   * <p>A new id (the common case) is found absent from the array's text by {@code instr} ({@link
   * #ABSENT}), without parsing it; the receipts are looked at one by one ({@code json_each}) only
   * when the text may hold the id.
   */
  @Override
  public String decideStatement() {
    String ended = "b.window_started_at_ms + ?7 <= excluded.updated_at_ms";
    String absent = ABSENT.formatted("b.receipt_ids");
    String counts =
        ("b.consumed_count < %s AND (%s"
                + " OR NOT EXISTS (SELECT 1 FROM json_each(b.receipt_ids) e WHERE %s = ?5))")
            .formatted(MAX_COUNT, absent, RECEIPT_ID);
    String replays =
        ("NOT %s AND EXISTS (SELECT 1 FROM json_each(b.receipt_ids) e WHERE %s = ?5 AND %s = ?6)")
            .formatted(absent, RECEIPT_ID, RECEIPT_DIGEST);
    return """
        INSERT INTO plugin_package_management_quota_buckets AS b
          (project_id, subject_type, subject_id, operation,
           window_started_at_ms, consumed_count, receipt_ids, updated_at_ms)
        VALUES (?1, ?2, ?3, ?4, %1$s, 1, json_array(json_object('id', ?5, 'd', ?6)), %1$s)
        ON CONFLICT (project_id, subject_type, subject_id, operation) DO UPDATE SET
          window_started_at_ms = CASE WHEN %3$s THEN excluded.window_started_at_ms
                                      ELSE b.window_started_at_ms END,
          consumed_count = CASE WHEN %3$s THEN 1
                                WHEN %4$s THEN b.consumed_count + 1
                                ELSE b.consumed_count END,
          receipt_ids = CASE WHEN %3$s THEN excluded.receipt_ids
                             WHEN %4$s THEN json_insert(b.receipt_ids, '$[#]',
                                                        json_object('id', ?5, 'd', ?6))
                             ELSE b.receipt_ids END,
          updated_at_ms = CASE WHEN %3$s OR %4$s THEN excluded.updated_at_ms
                               WHEN b.updated_at_ms = excluded.updated_at_ms AND %5$s
                               THEN b.updated_at_ms - 1
                               ELSE b.updated_at_ms END
        WHERE %3$s
           OR (b.consumed_count BETWEEN 1 AND 1000
               AND json_array_length(b.receipt_ids) = b.consumed_count)
        RETURNING
          CASE WHEN updated_at_ms = %1$s
                    AND json_extract(receipt_ids, '$[#-1].id') = ?5
                    AND json_extract(receipt_ids, '$[#-1].d') = ?6 THEN 'allowed'
               WHEN %6$s THEN 'rejected'
               ELSE coalesce((SELECT CASE max(CASE WHEN %7$s = ?6 THEN 2 ELSE 1 END)
                                       WHEN 2 THEN 'replayed' WHEN 1 THEN 'key_reused' END
                              FROM json_each(receipt_ids) e WHERE %2$s = ?5),
                             'rejected') END,
          window_started_at_ms, consumed_count, json_array_length(receipt_ids), %1$s,
          CASE WHEN consumed_count >= %8$s THEN
            (SELECT group_concat(%2$s, ' ') FROM json_each(receipt_ids) e) END,
          %8$s, %9$s, %10$s
        """
        .formatted(
            NOW_MS,
            RECEIPT_ID,
            ended,
            counts,
            replays,
            ABSENT.formatted("receipt_ids"),
            RECEIPT_DIGEST,
            MAX_COUNT,
            SHADOW_COUNT,
            LIMIT_SOURCE);
  }

  /** A JSON array of the names, e.g. {@code ["model.invoke","package.read"]}. */
  @Override
  public void setPermissions(PreparedStatement statement, int index, List<String> wireNames)
      throws SQLException {
    statement.setString(
        index,
        wireNames.stream()
            .map(name -> "\"" + name + "\"")
            .collect(Collectors.joining(",", "[", "]")));
  }

  @Override
  public List<String> getPermissions(ResultSet row, int column) throws SQLException {
    return JSON_STRING.matcher(row.getString(column)).results().map(m -> m.group(1)).toList();
  }

  /** One {@code BEGIN IMMEDIATE} transaction per admission and completion. */
  @Override
  public ModelLifecycle modelLifecycle(JdbcTransactions jdbc) {
    return new SqliteModelLifecycle(jdbc);
  }
}
