package dev.qinglong.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.core.quota.QuotaDecision;
import dev.qinglong.core.quota.QuotaKey;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.core.quota.ReceiptId;
import dev.qinglong.core.quota.RequestDigest;
import dev.qinglong.jdbc.JdbcManagementQuotaStore;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SQLite decision skips the receipt-by-receipt look-up when the receipt array's text cannot
 * hold the id ({@code SqliteDialect}'s text pre-check). These are the cases where the text does not
 * spell the id as the id is: receipts stored with JSON escapes, and ids that are part of other ids.
 * Each is still recognised exactly (replay, reused key) or counted.
 */
class SqliteReceiptPrefilterTest {
  private static final Duration WINDOW = Duration.ofMinutes(5);
  private static final String DIGEST = "a".repeat(64);
  private static final String OTHER_DIGEST = "b".repeat(64);

  @TempDir Path dir;
  private HikariDataSource pool;
  private JdbcManagementQuotaStore store;

  @BeforeEach
  void open() {
    pool = SqliteDatabase.open(dir.resolve("prefilter.db"));
    SqliteDatabase.migrate(pool);
    store = new JdbcManagementQuotaStore(pool, SqliteDialect.INSTANCE);
  }

  @AfterEach
  void close() {
    pool.close();
  }

  @Test
  void anEscapedReceiptIdIsStillAReplayOrAReusedKey() throws SQLException {
    // "r1" spelled with escapes: the text holds no "r1" at all.
    seed("u1", "[{\"id\":\"\\u0072\\u0031\",\"d\":\"" + DIGEST + "\"}]", 1);

    assertThat(consume("u1", "r1", DIGEST)).isInstanceOf(QuotaDecision.Replayed.class);
    assertThat(consume("u1", "r1", OTHER_DIGEST)).isInstanceOf(QuotaDecision.KeyReused.class);
    assertThat(count("u1")).isEqualTo(1);
  }

  @Test
  void anIdThatIsPartOfAnotherIdIsCountedAndThenReplayed() throws SQLException {
    seed(
        "u3",
        "[{\"id\":\"r33\",\"d\":\"" + DIGEST + "\"},{\"id\":\"xr3\",\"d\":\"" + DIGEST + "\"}]",
        2);

    assertThat(consume("u3", "r3", DIGEST)).isInstanceOf(QuotaDecision.Allowed.class);
    assertThat(count("u3")).isEqualTo(3);
    assertThat(consume("u3", "r3", DIGEST)).isInstanceOf(QuotaDecision.Replayed.class);
    assertThat(consume("u3", "r3", OTHER_DIGEST)).isInstanceOf(QuotaDecision.KeyReused.class);
    // An id equal to a stored digest's text is not a receipt either.
    assertThat(consume("u3", DIGEST, DIGEST)).isInstanceOf(QuotaDecision.Allowed.class);
    assertThat(count("u3")).isEqualTo(4);
  }

  @Test
  void aFullBucketRefusesAnAbsentIdAndStillRecognisesAnEscapedOne() throws SQLException {
    seed("u4", "[{\"id\":\"\\u0072\\u0034\",\"d\":\"" + DIGEST + "\"}]", 1);

    assertThat(consume("u4", "r5", DIGEST, 1)).isInstanceOf(QuotaDecision.Rejected.class);
    assertThat(consume("u4", "r4", DIGEST, 1)).isInstanceOf(QuotaDecision.Replayed.class);
    assertThat(count("u4")).isEqualTo(1);
  }

  private QuotaDecision consume(String user, String receipt, String digest) {
    return consume(user, receipt, digest, 600);
  }

  private QuotaDecision consume(String user, String receipt, String digest, int limit) {
    return store.consume(
        QuotaKey.user("p", user, QuotaOperation.INSPECT),
        new ReceiptId(receipt),
        new RequestDigest(digest),
        limit,
        WINDOW);
  }

  /** A bucket in the current window (database clock) with these receipts, written by SQL. */
  private void seed(String user, String receipts, int count) throws SQLException {
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                """
                INSERT INTO plugin_package_management_quota_buckets
                  (project_id, subject_type, subject_id, operation, window_started_at_ms,
                   consumed_count, receipt_ids, updated_at_ms)
                VALUES ('p', 'user', ?, 'plugin-package.inspect',
                        CAST(unixepoch('subsec') * 1000 AS INTEGER), ?, ?,
                        CAST(unixepoch('subsec') * 1000 AS INTEGER) - 1000)
                """)) {
      ps.setString(1, user);
      ps.setInt(2, count);
      ps.setString(3, receipts);
      ps.executeUpdate();
    }
  }

  private int count(String user) throws SQLException {
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT consumed_count FROM plugin_package_management_quota_buckets"
                    + " WHERE subject_id = ?")) {
      ps.setString(1, user);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        return rs.getInt(1);
      }
    }
  }
}
