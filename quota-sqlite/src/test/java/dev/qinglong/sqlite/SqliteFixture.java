package dev.qinglong.sqlite;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.core.governance.GovernanceStore;
import dev.qinglong.core.modelquota.ModelQuotaStore;
import dev.qinglong.core.policy.ProjectPolicyStore;
import dev.qinglong.core.quota.ManagementQuotaStore;
import dev.qinglong.core.quota.QuotaKey;
import dev.qinglong.core.quota.RequestDigest;
import dev.qinglong.core.webhooks.SecretSealer;
import dev.qinglong.core.webhooks.WebhookEventOutbox;
import dev.qinglong.core.webhooks.WebhookStore;
import dev.qinglong.jdbc.JdbcGovernanceStore;
import dev.qinglong.jdbc.JdbcManagementQuotaStore;
import dev.qinglong.jdbc.JdbcModelQuotaStore;
import dev.qinglong.jdbc.JdbcPolicyStore;
import dev.qinglong.jdbc.JdbcWebhookEventOutbox;
import dev.qinglong.jdbc.JdbcWebhookStore;
import dev.qinglong.testkit.ModelQuotaFixture;
import dev.qinglong.testkit.WebhookEventsFixture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

/**
 * A migrated SQLite file per test class (base schema, plus the AI feature when asked), with
 * owner-level probes for the contract suites.
 */
final class SqliteFixture implements ModelQuotaFixture, WebhookEventsFixture {
  private final Path dir;
  private final Path file;
  private final List<HikariDataSource> pools = new CopyOnWriteArrayList<>();
  private final HikariDataSource owner;

  SqliteFixture() {
    this(false);
  }

  SqliteFixture(boolean ai) {
    try {
      dir = Files.createTempDirectory("qinglong-sqlite-test");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    file = dir.resolve("qinglong.db");
    owner = (HikariDataSource) newDataSource();
    SqliteDatabase.migrate(owner);
    if (ai) {
      SqliteDatabase.migrateAi(owner);
    }
  }

  @Override
  public DataSource newRuntimeDataSource() {
    return newDataSource();
  }

  @Override
  public ModelQuotaStore modelQuotaStore(DataSource dataSource) {
    return new JdbcModelQuotaStore(dataSource, SqliteDialect.INSTANCE);
  }

  @Override
  public int ownerUpdate(String sql, Object... parameters) {
    try (Connection c = owner.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        ps.setObject(i + 1, parameters[i]);
      }
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  Path file() {
    return file;
  }

  @Override
  public DataSource newDataSource() {
    HikariDataSource pool = SqliteDatabase.open(file);
    pools.add(pool);
    return pool;
  }

  @Override
  public ManagementQuotaStore quotaStore(DataSource dataSource) {
    return new JdbcManagementQuotaStore(dataSource, SqliteDialect.INSTANCE);
  }

  @Override
  public ManagementQuotaStore quotaStore(
      DataSource dataSource, java.util.function.LongSupplier nanoTime) {
    return new JdbcManagementQuotaStore(dataSource, SqliteDialect.INSTANCE, nanoTime);
  }

  @Override
  public GovernanceStore governanceStore(DataSource dataSource) {
    return new JdbcGovernanceStore(dataSource, SqliteDialect.INSTANCE);
  }

  @Override
  public WebhookStore webhookStore(SecretSealer sealer) {
    return new JdbcWebhookStore(newDataSource(), SqliteDialect.INSTANCE, sealer);
  }

  @Override
  public WebhookStore deliveryStore(SecretSealer sealer) {
    return new JdbcWebhookStore(newDataSource(), SqliteDialect.INSTANCE, sealer);
  }

  @Override
  public WebhookEventOutbox rejectionOutbox() {
    return new JdbcWebhookEventOutbox(newDataSource(), SqliteDialect.INSTANCE);
  }

  @Override
  public WebhookEventOutbox workerOutbox() {
    return new JdbcWebhookEventOutbox(newDataSource(), SqliteDialect.INSTANCE);
  }

  @Override
  public ModelQuotaStore workerUsage() {
    return new JdbcModelQuotaStore(newDataSource(), SqliteDialect.INSTANCE);
  }

  @Override
  public byte[] storedSecret(String projectId, String webhookId) {
    try (Connection c = owner.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT secret_sealed FROM webhook_endpoints WHERE project_id = ? AND webhook_id = ?")) {
      ps.setString(1, projectId);
      ps.setString(2, webhookId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getBytes(1) : null;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public ProjectPolicyStore policyStore(DataSource dataSource) {
    return new JdbcPolicyStore(dataSource, SqliteDialect.INSTANCE);
  }

  @Override
  public long databaseNowMs() {
    return queryLong("SELECT CAST(unixepoch('subsec') * 1000 AS INTEGER)");
  }

  @Override
  public Optional<BucketRow> readBucket(QuotaKey key) {
    try (Connection c = owner.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT window_started_at_ms, consumed_count, updated_at_ms, receipt_ids"
                    + " FROM plugin_package_management_quota_buckets"
                    + " WHERE project_id = ? AND subject_type = ? AND subject_id = ?"
                    + " AND operation = ?")) {
      bind(ps, key);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        long start = rs.getLong(1);
        int count = rs.getInt(2);
        long updated = rs.getLong(3);
        List<String> receipts = new ArrayList<>();
        List<String> digests = new ArrayList<>();
        // A receipt is {"id", "d"}.
        try (PreparedStatement each =
            c.prepareStatement(
                "SELECT json_extract(value, '$.id'), json_extract(value, '$.d')"
                    + " FROM json_each(?) ORDER BY key")) {
          each.setString(1, rs.getString(4));
          try (ResultSet items = each.executeQuery()) {
            while (items.next()) {
              receipts.add(items.getString(1));
              digests.add(items.getString(2));
            }
          }
        }
        return Optional.of(new BucketRow(start, count, receipts, digests, updated));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void setWindowStart(QuotaKey key, long windowStartedAtMs) {
    update(
        "UPDATE plugin_package_management_quota_buckets SET window_started_at_ms = "
            + windowStartedAtMs,
        key);
  }

  @Override
  public boolean databaseRejectsCountReceiptMismatch(QuotaKey key) {
    return rejected(
        () ->
            update(
                "UPDATE plugin_package_management_quota_buckets"
                    + " SET consumed_count = consumed_count + 1",
                key));
  }

  @Override
  public boolean databaseRejectsOversizedReceipts(QuotaKey key) {
    String thousandAndOne = jsonArray(1001, 8);
    String tooManyBytes = jsonArray(1000, 300);
    return rejected(() -> insertBucket(key, 1001, thousandAndOne))
        && rejected(() -> insertBucket(key, 1000, tooManyBytes));
  }

  @Override
  public boolean databaseRejectsUnknownOperation(QuotaKey key) {
    String receipts = "[{\"id\":\"a\",\"d\":\"" + "ab".repeat(32) + "\"}]";
    boolean refused;
    try {
      insertBucket(key, "plugin-package.withdraw", 1, receipts, 0);
      refused = false;
    } catch (IllegalStateException e) {
      // SQLITE_CONSTRAINT_FOREIGNKEY: the operation is not a row of management_quota_operations.
      refused = e.getCause() instanceof SQLException s && s.getMessage().contains("FOREIGN KEY");
    }
    insertBucket(key, 1, receipts);
    return refused && readBucket(key).isPresent();
  }

  @Override
  public void addOperation(String wireName) {
    ownerUpdate("INSERT INTO management_quota_operations (operation) VALUES (?)", wireName);
  }

  @Override
  public String decideStatement() {
    return SqliteDialect.INSTANCE.decideStatement();
  }

  @Override
  public DataSource decidingDataSource() {
    return owner;
  }

  @Override
  public void storeCorruptBucket(
      QuotaKey key, int count, List<String> receiptIds, RequestDigest request) {
    StringBuilder json = new StringBuilder("[");
    for (String id : receiptIds) {
      json.append(json.length() == 1 ? "" : ",").append(receipt(id, request.hex()));
    }
    long now = databaseNowMs();
    try (Connection c = owner.getConnection()) {
      try (Statement st = c.createStatement()) {
        st.execute("PRAGMA ignore_check_constraints = ON");
      }
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO plugin_package_management_quota_buckets (project_id, subject_type,"
                  + " subject_id, operation, window_started_at_ms, consumed_count, receipt_ids,"
                  + " updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
        bind(ps, key);
        ps.setLong(5, now);
        ps.setInt(6, count);
        ps.setString(7, json.append(']').toString());
        ps.setLong(8, now);
        ps.executeUpdate();
      } finally {
        try (Statement st = c.createStatement()) {
          st.execute("PRAGMA ignore_check_constraints = OFF");
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public boolean databaseRejectsMalformedReceipts(QuotaKey key) {
    String digest = "ab".repeat(32);
    boolean rejectedAll =
        rejected(() -> insertBucket(key, 1, "[{\"id\":\"a\",\"d\":\"NOT-HEX\"}]"))
            && rejected(
                () -> insertBucket(key, 1, "[{\"id\":\"a\",\"d\":\"" + digest + "\",\"x\":1}]"))
            && rejected(() -> insertBucket(key, 1, "[{\"id\":\"a\"}]"));
    // The well-formed shape is accepted, so the refusals above are about the shape.
    insertBucket(key, 1, "[{\"id\":\"a\",\"d\":\"" + digest + "\"}]");
    return rejectedAll && readBucket(key).isPresent();
  }

  private void insertBucket(QuotaKey key, int count, String receipts) {
    insertBucket(key, count, receipts, 0);
  }

  private void insertBucket(QuotaKey key, int count, String receipts, long windowStartedAtMs) {
    insertBucket(key, key.operation().wireName(), count, receipts, windowStartedAtMs);
  }

  private void insertBucket(
      QuotaKey key, String operation, int count, String receipts, long windowStartedAtMs) {
    try (Connection c = owner.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO plugin_package_management_quota_buckets (project_id, subject_type,"
                    + " subject_id, operation, window_started_at_ms, consumed_count, receipt_ids,"
                    + " updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, key.projectId());
      ps.setString(2, key.subjectType().wireName());
      ps.setString(3, key.subjectId());
      ps.setString(4, operation);
      ps.setLong(5, windowStartedAtMs);
      ps.setInt(6, count);
      ps.setString(7, receipts);
      ps.setLong(8, windowStartedAtMs);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * {@code items} receipts whose ids are {@code idLength} digits, except the last, which is of the
   * shape the table accepts: so that a refusal is about the array's bounds, not its last receipt.
   */
  private static String jsonArray(int items, int idLength) {
    String digest = "ab".repeat(32);
    StringBuilder json = new StringBuilder("[");
    for (int i = 0; i < items; i++) {
      String id = String.format("%0" + (i == items - 1 ? 8 : idLength) + "d", i);
      json.append(i == 0 ? "" : ",").append(receipt(id, digest));
    }
    return json.append(']').toString();
  }

  private static String receipt(String id, String digestHex) {
    return "{\"id\":\"" + id + "\",\"d\":\"" + digestHex + "\"}";
  }

  private static boolean rejected(Runnable write) {
    try {
      write.run();
      return false;
    } catch (IllegalStateException e) {
      return e.getCause() instanceof SQLException;
    }
  }

  private void update(String setClause, QuotaKey key) {
    try (Connection c = owner.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                setClause
                    + " WHERE project_id = ? AND subject_type = ? AND subject_id = ?"
                    + " AND operation = ?")) {
      bind(ps, key);
      if (ps.executeUpdate() != 1) {
        throw new AssertionError("no bucket for " + key);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void bind(PreparedStatement ps, QuotaKey key) throws SQLException {
    ps.setString(1, key.projectId());
    ps.setString(2, key.subjectType().wireName());
    ps.setString(3, key.subjectId());
    ps.setString(4, key.operation().wireName());
  }

  private long queryLong(String sql) {
    try (Connection c = owner.getConnection();
        PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    pools.forEach(HikariDataSource::close);
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
