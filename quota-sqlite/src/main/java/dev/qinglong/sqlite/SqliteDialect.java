package dev.qinglong.sqlite;

import dev.qinglong.jdbc.JdbcDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
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

  /**
   * The receipt id of a {@code json_each} element {@code e}: an object's {@code id}, or a legacy
   * receipt's text. CASE, because json_extract on a text element's value would fail to parse it.
   */
  private static final String RECEIPT_ID =
      "CASE e.type WHEN 'object' THEN json_extract(e.value, '$.id') ELSE e.atom END";

  /** Permission wire names are lower-case words and dots: no escapes to decode. */
  private static final Pattern JSON_STRING = Pattern.compile("\"([a-z.]+)\"");

  private SqliteDialect() {}

  @Override
  public String name() {
    return "sqlite";
  }

  /** Takes none and returns false: {@code BEGIN IMMEDIATE} already serialised the transaction. */
  @Override
  public boolean lockUntilCommit(Connection connection, long key) {
    return false;
  }

  /** {@link Connection#TRANSACTION_NONE}: SQLite transactions are serialisable anyway. */
  @Override
  public int snapshotIsolation() {
    return Connection.TRANSACTION_NONE;
  }

  @Override
  public String nowMs() {
    return NOW_MS;
  }

  /**
   * Numbered parameters ?1 … ?8, in {@link JdbcDialect#consumeStatement}'s order, reused freely. A
   * receipt is {@code {"id": …, "d": …}}; a text element is a legacy receipt id. The statement
   * counts only an id found in neither form, so a reused id is never appended or counted.
   */
  @Override
  public String consumeStatement() {
    return """
        INSERT INTO plugin_package_management_quota_buckets AS b
          (project_id, subject_type, subject_id, operation,
           window_started_at_ms, consumed_count, receipt_ids, updated_at_ms)
        VALUES (?1, ?2, ?3, ?4, %1$s, 1, json_array(json_object('id', ?5, 'd', ?6)), %1$s)
        ON CONFLICT (project_id, subject_type, subject_id, operation) DO UPDATE SET
          window_started_at_ms = CASE WHEN b.window_started_at_ms + ?7 <= excluded.updated_at_ms
                                      THEN excluded.window_started_at_ms
                                      ELSE b.window_started_at_ms END,
          consumed_count = CASE WHEN b.window_started_at_ms + ?7 <= excluded.updated_at_ms
                                THEN 1
                                ELSE b.consumed_count + 1 END,
          receipt_ids = CASE WHEN b.window_started_at_ms + ?7 <= excluded.updated_at_ms
                             THEN excluded.receipt_ids
                             ELSE json_insert(b.receipt_ids, '$[#]',
                                              json_object('id', ?5, 'd', ?6)) END,
          updated_at_ms = excluded.updated_at_ms
        WHERE b.window_started_at_ms + ?7 <= excluded.updated_at_ms
           OR (b.consumed_count < ?8
               AND NOT EXISTS (SELECT 1 FROM json_each(b.receipt_ids) e WHERE %2$s = ?5))
        RETURNING window_started_at_ms, consumed_count
        """
        .formatted(NOW_MS, RECEIPT_ID);
  }

  @Override
  public String readBucketStatement() {
    return """
        SELECT window_started_at_ms, consumed_count,
               EXISTS (SELECT 1 FROM json_each(receipt_ids) e WHERE %2$s = ?1) AS has_receipt,
               EXISTS (SELECT 1 FROM json_each(receipt_ids) e
                       WHERE %2$s = ?1
                         AND CASE e.type WHEN 'object' THEN json_extract(e.value, '$.d') = ?2
                                         ELSE 1 END) AS same_request,
               %1$s AS now_ms,
               json_array_length(receipt_ids) AS receipt_count
        FROM plugin_package_management_quota_buckets
        WHERE project_id = ?3 AND subject_type = ?4 AND subject_id = ?5 AND operation = ?6
        """
        .formatted(NOW_MS, RECEIPT_ID);
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
    List<String> names = new ArrayList<>();
    Matcher m = JSON_STRING.matcher(row.getString(column));
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }
}
