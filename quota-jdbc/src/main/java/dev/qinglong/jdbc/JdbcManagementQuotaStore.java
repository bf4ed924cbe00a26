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
import java.util.Optional;
import javax.sql.DataSource;

/**
 * {@link ManagementQuotaStore} over JDBC: the dialect's single ADR 000 statement ({@link
 * JdbcDialect#consumeStatement}), and when it changed nothing, one read-back with the database
 * clock ({@link JdbcDialect#readBucketStatement}) classified by {@link BucketReading}. Both run in
 * auto-commit: each is one atomic statement. The clock is the database's ({@link
 * JdbcDialect#nowMs}), never the application's.
 */
public final class JdbcManagementQuotaStore implements ManagementQuotaStore {
  /** A read that finds the bucket changed since the statement decides again, this often. */
  private static final int ATTEMPTS = 3;

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
  private final String consume;
  private final String readBucket;

  public JdbcManagementQuotaStore(DataSource dataSource, JdbcDialect dialect) {
    this.jdbc = new JdbcTransactions(dataSource, dialect);
    this.consume = Objects.requireNonNull(dialect.consumeStatement());
    this.readBucket = Objects.requireNonNull(dialect.readBucketStatement());
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
    Optional<QuotaDecision> decision =
        jdbc.autoCommit(
            "quota decision",
            c -> {
              for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
                Optional<QuotaDecision> counted = count(c, key, receipt, request, limit, window);
                if (counted.isPresent()) {
                  return counted;
                }
                Optional<QuotaDecision> unchanged = read(c, key, receipt, request, limit, window);
                if (unchanged.isPresent()) {
                  return unchanged;
                }
              }
              return Optional.empty();
            });
    return decision.orElseThrow(
        () ->
            new StoreUnavailableException(
                "quota decision undetermined after " + ATTEMPTS + " tries"));
  }

  private Optional<QuotaDecision> count(
      Connection c,
      QuotaKey key,
      ReceiptId receipt,
      RequestDigest request,
      int limit,
      Duration window)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(consume)) {
      // The parameters of JdbcDialect#consumeStatement.
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
          return Optional.empty();
        }
        long windowStart = rs.getLong(1);
        int count = rs.getInt(2);
        if (count < 1 || count > limit) {
          throw new StoreUnavailableException("corrupt quota bucket: count out of range");
        }
        return Optional.of(new QuotaDecision.Allowed(windowStart, count));
      }
    }
  }

  private Optional<QuotaDecision> read(
      Connection c,
      QuotaKey key,
      ReceiptId receipt,
      RequestDigest request,
      int limit,
      Duration window)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(readBucket)) {
      // The parameters of JdbcDialect#readBucketStatement.
      ps.setString(1, receipt.value());
      ps.setString(2, request.hex());
      ps.setString(3, key.projectId());
      ps.setString(4, key.subjectType().wireName());
      ps.setString(5, key.subjectId());
      ps.setString(6, key.operation().wireName());
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return new BucketReading(
                rs.getLong(1),
                rs.getInt(2),
                rs.getInt(6),
                rs.getBoolean(3),
                rs.getBoolean(4),
                rs.getLong(5))
            .classify(limit, window);
      }
    }
  }
}
