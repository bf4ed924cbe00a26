package dev.qinglong.testkit;

import dev.qinglong.core.governance.GovernanceStore;
import dev.qinglong.core.policy.ProjectPolicyStore;
import dev.qinglong.core.quota.ManagementQuotaStore;
import dev.qinglong.core.quota.QuotaKey;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * What an adapter supplies to run the contract suites: one migrated database per test class, a way
 * to open independent connection pools to it, the adapter's stores over a pool, and a few
 * owner-level probes (database clock, raw bucket rows) that the port deliberately does not offer.
 */
public interface StoreFixture extends AutoCloseable {

  /**
   * Opens a new, independent connection pool to the same database, sized as the adapter runs in
   * production (SQLite: one writer connection). The fixture closes every pool it opened.
   */
  DataSource newDataSource();

  ManagementQuotaStore quotaStore(DataSource dataSource);

  /**
   * The adapter's quota store whose hot-bucket fast path measures time on {@code nanoTime} (a
   * monotonic clock of any origin, as {@link System#nanoTime}).
   */
  ManagementQuotaStore quotaStore(DataSource dataSource, java.util.function.LongSupplier nanoTime);

  GovernanceStore governanceStore(DataSource dataSource);

  ProjectPolicyStore policyStore(DataSource dataSource);

  /**
   * Runs one statement as the schema owner, with the application schema on the search path, and
   * returns the update count: the way tests show what the schema itself refuses.
   *
   * @throws IllegalStateException wrapping the {@link java.sql.SQLException} if the database
   *     refuses the statement
   */
  int ownerUpdate(String sql, Object... parameters);

  /** The database clock, in epoch milliseconds, read by the database itself. */
  long databaseNowMs();

  /** The bucket row as stored, or empty. */
  Optional<BucketRow> readBucket(QuotaKey key);

  /**
   * Overwrites the bucket's window start, as an operator with owner rights could: the way tests
   * move a window into the past instead of sleeping through it.
   */
  void setWindowStart(QuotaKey key, long windowStartedAtMs);

  /**
   * Tries to store a bucket whose consumed count differs from its receipt array length.
   *
   * @return true if the database refused it (the CHECK constraint holds)
   */
  boolean databaseRejectsCountReceiptMismatch(QuotaKey key);

  /**
   * Tries to store a bucket with 1001 receipts.
   *
   * @return true if the database refused it
   */
  boolean databaseRejectsOversizedReceipts(QuotaKey key);

  /**
   * Tries to store a bucket of an operation the database does not know ({@code key}'s, renamed to
   * one that no migration added), and then the same bucket with {@code key}'s own operation.
   *
   * @return true if the database refused the first and stored the second
   */
  boolean databaseRejectsUnknownOperation(QuotaKey key);

  /**
   * Adds an operation to those the database accepts, as the migration that adds an operation does:
   * one insert into {@code management_quota_operations}, no table rebuilt.
   */
  void addOperation(String wireName);

  /**
   * Runs the adapter's deciding statement ({@code JdbcDialect.decideStatement}), bound as {@code
   * JdbcManagementQuotaStore} binds it, on {@link #decidingDataSource} for a bucket of subject type
   * {@code user} and of any operation name, including one that no {@link
   * dev.qinglong.core.quota.QuotaOperation} constant names yet.
   *
   * @return the outcome column's wire name ({@code allowed}, {@code replayed}, …)
   * @throws IllegalStateException wrapping the {@link java.sql.SQLException} if the statement fails
   */
  default String decide(
      String projectId,
      String subjectId,
      String operation,
      String receiptId,
      String requestDigestHex,
      int limit,
      long windowMs) {
    try (java.sql.Connection c = decidingDataSource().getConnection();
        java.sql.PreparedStatement ps = c.prepareStatement(decideStatement())) {
      ps.setString(1, projectId);
      ps.setString(2, "user");
      ps.setString(3, subjectId);
      ps.setString(4, operation);
      ps.setString(5, receiptId);
      ps.setString(6, requestDigestHex);
      ps.setLong(7, windowMs);
      ps.setInt(8, limit);
      try (java.sql.ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new AssertionError("the deciding statement returned no row");
        }
        return rs.getString(1);
      }
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The adapter dialect's {@code decideStatement()}, for {@link #decide}. */
  String decideStatement();

  /** A pool logged in as the quota store's login (PostgreSQL: the package manager). */
  DataSource decidingDataSource();

  /**
   * Tries to store receipts of a shape the code never writes: an object with a digest that is not
   * 64 lowercase hex digits, and one with a member besides {@code id} and {@code d}.
   *
   * @return true if the database refused both
   */
  boolean databaseRejectsMalformedReceipts(QuotaKey key);

  /**
   * Stores, as the owner and past the table's CHECKs (SQLite: {@code ignore_check_constraints};
   * PostgreSQL: the CHECKs dropped and re-added {@code NOT VALID} in one transaction), a bucket in
   * the current database window with {@code count} and receipts of these ids, each spent on {@code
   * request}, however count and receipts disagree: the corruption the code must answer with 503.
   */
  void storeCorruptBucket(
      QuotaKey key,
      int count,
      java.util.List<String> receiptIds,
      dev.qinglong.core.quota.RequestDigest request);

  /**
   * A stored bucket: window start, count, the receipt ids in stored order and, at the same
   * positions, their request digests.
   */
  record BucketRow(
      long windowStartedAtMs,
      int consumedCount,
      java.util.List<String> receiptIds,
      java.util.List<String> receiptDigests,
      long updatedAtMs) {}

  @Override
  void close();
}
