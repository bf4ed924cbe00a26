package dev.qinglong.jdbc;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.quota.BucketReading;
import dev.qinglong.core.quota.BucketsSnapshot;
import dev.qinglong.core.quota.ManagementQuotaStore;
import dev.qinglong.core.quota.QuotaDecision;
import dev.qinglong.core.quota.QuotaKey;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.core.quota.ReceiptId;
import dev.qinglong.core.quota.RequestDigest;
import dev.qinglong.core.quota.SubjectType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import javax.sql.DataSource;

/**
 * {@link ManagementQuotaStore} over JDBC: the dialect's single ADR 000 statement ({@link
 * JdbcDialect#decideStatement}) decides and classifies every outcome in auto-commit, on the
 * database clock ({@link JdbcDialect#nowMs}), never the application's; {@link BucketReading} checks
 * the row it returns. There is no read-back statement: a refusal or a replay is answered from the
 * row the deciding statement locked.
 *
 * <p>A new receipt id for a bucket that this instance has seen full in the current window is
 * refused without a connection or a statement ({@link HotBuckets}); an id that may be in the bucket
 * still goes to the database. Use one instance per process, so that the fast path has something to
 * remember.
 */
public final class JdbcManagementQuotaStore implements ManagementQuotaStore {
  /**
   * Runs of the statement for one decision. A second run happens only when another transaction
   * created the bucket after the first run's snapshot (PostgreSQL); buckets are never deleted, so
   * the second run finds it, locks it and decides.
   */
  private static final int RUNS = 2;

  /**
   * A subject's buckets with the database clock in one statement; the outer row keeps the clock
   * when there is no bucket. Written once: both databases run it.
   */
  private static final String BUCKETS =
      """
      SELECT n.now_ms, b.operation, b.window_started_at_ms, b.consumed_count
      FROM (SELECT %s AS now_ms) n
      LEFT JOIN plugin_package_management_quota_buckets b
        ON b.project_id = ? AND b.subject_type = ? AND b.subject_id = ?
      ORDER BY b.operation
      """;

  private final JdbcTransactions jdbc;
  private final String buckets;
  private final String decide;
  private final HotBuckets hot;

  public JdbcManagementQuotaStore(DataSource dataSource, JdbcDialect dialect) {
    this(dataSource, dialect, System::nanoTime);
  }

  /**
   * With the monotonic clock the hot-bucket fast path measures time on ({@link System#nanoTime} in
   * production; tests give one with another origin). It is never compared with a database time,
   * only used to measure how much of the database's remaining window has passed.
   */
  public JdbcManagementQuotaStore(
      DataSource dataSource, JdbcDialect dialect, LongSupplier nanoTime) {
    this.jdbc = new JdbcTransactions(dataSource, dialect);
    this.decide = Objects.requireNonNull(dialect.decideStatement());
    this.hot =
        new HotBuckets(nanoTime, HotBuckets.DEFAULT_MAX_RECEIPTS, HotBuckets.DEFAULT_MAX_HOLD);
    this.buckets = BUCKETS.formatted(dialect.nowMs());
  }

  @Override
  public BucketsSnapshot buckets(String projectId, SubjectType subjectType, String subjectId) {
    return jdbc.autoCommit(
        "quota read",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(buckets)) {
            ps.setString(1, projectId);
            ps.setString(2, subjectType.wireName());
            ps.setString(3, subjectId);
            try (ResultSet rs = ps.executeQuery()) {
              long now = 0;
              Map<QuotaOperation, BucketsSnapshot.Bucket> found =
                  new EnumMap<>(QuotaOperation.class);
              boolean any = false;
              while (rs.next()) {
                any = true;
                now = rs.getLong(1);
                String operation = rs.getString(2);
                if (operation == null) {
                  continue;
                }
                found.put(
                    operationOf(operation),
                    new BucketsSnapshot.Bucket(rs.getLong(3), rs.getInt(4)));
              }
              if (!any) {
                throw new StoreUnavailableException("quota read returned no clock");
              }
              return new BucketsSnapshot(now, found);
            }
          }
        });
  }

  private static QuotaOperation operationOf(String wireName) {
    for (QuotaOperation op : QuotaOperation.values()) {
      if (op.wireName().equals(wireName)) {
        return op;
      }
    }
    throw new StoreUnavailableException("corrupt quota bucket: unknown operation");
  }

  @Override
  public QuotaDecision consume(
      QuotaKey key, ReceiptId receipt, RequestDigest request, int limit, Duration window) {
    Objects.requireNonNull(receipt, "receipt");
    Objects.requireNonNull(request, "request");
    if (limit < 1 || limit > 1000) {
      throw new IllegalArgumentException("limit must be 1..1000");
    }
    QuotaDecision.Rejected known = hot.refuse(key, receipt, limit, window);
    if (known != null) {
      return known;
    }
    // Before the statement is sent: the deadline of a bucket it finds full must not outlast it.
    long sentAtNanos = hot.nanoTime();
    Decided decided =
        jdbc.autoCommit(
            "quota decision",
            c -> {
              for (int run = 0; run < RUNS; run++) {
                Decided d = decide(c, key, receipt, request, limit, window);
                if (d != null) {
                  return d;
                }
              }
              throw new StoreUnavailableException(
                  "quota decision undetermined after " + RUNS + " runs");
            });
    if (decided.fullReceiptIds() != null) {
      hot.remember(key, limit, window, sentAtNanos, decided.reading(), decided.fullReceiptIds());
    }
    return decided.decision();
  }

  /** The statement's decision, with the receipt ids of a full bucket when it refused. */
  private record Decided(QuotaDecision decision, BucketReading reading, String fullReceiptIds) {}

  /** One run of the statement; null when it could not decide (see {@link #RUNS}). */
  private Decided decide(
      Connection c,
      QuotaKey key,
      ReceiptId receipt,
      RequestDigest request,
      int limit,
      Duration window)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(decide)) {
      // The parameters of JdbcDialect#decideStatement.
      ps.setString(1, key.projectId());
      ps.setString(2, key.subjectType().wireName());
      ps.setString(3, key.subjectId());
      ps.setString(4, key.operation().wireName());
      ps.setString(5, receipt.value());
      ps.setString(6, request.hex());
      ps.setLong(7, window.toMillis());
      ps.setInt(8, limit);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          // SQLite: the statement refuses to update a corrupt bucket and so returns nothing.
          throw new StoreUnavailableException("corrupt quota bucket: no decision row");
        }
        String outcome = rs.getString(1);
        if (outcome == null) {
          return null;
        }
        BucketReading reading =
            new BucketReading(
                BucketReading.Outcome.fromWire(outcome),
                rs.getLong(2),
                rs.getInt(3),
                rs.getInt(4),
                rs.getLong(5));
        return new Decided(reading.decision(limit, window), reading, rs.getString(6));
      }
    }
  }
}
