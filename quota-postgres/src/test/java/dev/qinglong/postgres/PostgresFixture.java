package dev.qinglong.postgres;

import com.zaxxer.hikari.HikariConfig;
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
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
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
 * A fresh PostgreSQL database per test class, migrated by its owner, with stores connected as the
 * least-privileged roles the application uses: quota and governance as {@code ql3_package_manager},
 * publication as {@code ql3_package_executor}, Project Policy and model-policy writes as {@code
 * ql3_admin}, the model quota (when the AI feature is migrated) as {@code ql3_runtime}.
 */
final class PostgresFixture implements ModelQuotaFixture, WebhookEventsFixture {
  private final TestDatabase database;
  private final HikariDataSource owner;
  private final HikariDataSource admin;
  private final List<HikariDataSource> pools = new CopyOnWriteArrayList<>();
  private GovernanceStore executor;
  private DataSource manager;

  PostgresFixture(String name) {
    this(name, false);
  }

  PostgresFixture(String name, boolean ai) {
    database = PostgresTestServer.get().createDatabase(name);
    owner = database.newDataSource(4);
    PostgresLogins.bootstrap(owner);
    PostgresMigrations.migrate(owner);
    if (ai) {
      PostgresMigrations.migrateAi(owner);
    }
    admin = rolePool(PostgresLogins.ADMIN, 2);
  }

  @Override
  public DataSource newRuntimeDataSource() {
    return rolePool(PostgresLogins.RUNTIME, 8);
  }

  @Override
  public ModelQuotaStore modelQuotaStore(DataSource dataSource) {
    // Policy writes belong to ql3_admin (as PostgresBackend wires it); a foreign data source (e.g.
    // unreachable) is used as is.
    return ours(dataSource)
        ? new JdbcModelQuotaStore(dataSource, admin, PostgresDialect.INSTANCE)
        : new JdbcModelQuotaStore(dataSource, PostgresDialect.INSTANCE);
  }

  private boolean ours(DataSource dataSource) {
    return dataSource instanceof HikariDataSource h && pools.contains(h);
  }

  @Override
  public int ownerUpdate(String sql, Object... parameters) {
    try (Connection c = owner.getConnection()) {
      c.setSchema(PostgresMigrations.SCHEMA);
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        for (int i = 0; i < parameters.length; i++) {
          ps.setObject(i + 1, parameters[i]);
        }
        return ps.executeUpdate();
      } finally {
        c.setSchema("public");
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  TestDatabase database() {
    return database;
  }

  HikariDataSource owner() {
    return owner;
  }

  /** A pool that logs in as {@code role} with schema qinglong, as the application does. */
  HikariDataSource rolePool(String role, int size) {
    HikariConfig config = new HikariConfig();
    config.setPoolName(role + "-" + database.name() + "-" + pools.size());
    config.setJdbcUrl(database.jdbcUrl());
    config.setUsername(role);
    config.setSchema(PostgresMigrations.SCHEMA);
    config.setMaximumPoolSize(size);
    config.setConnectionInitSql("SET TIME ZONE '" + PostgresTestServer.TEST_TIME_ZONE + "'");
    HikariDataSource pool = new HikariDataSource(config);
    pools.add(pool);
    return pool;
  }

  @Override
  public DataSource newDataSource() {
    return rolePool(PostgresLogins.PACKAGE_MANAGER, 8);
  }

  @Override
  public ManagementQuotaStore quotaStore(DataSource dataSource) {
    return quotaStore(dataSource, System::nanoTime);
  }

  @Override
  public ManagementQuotaStore quotaStore(
      DataSource dataSource, java.util.function.LongSupplier nanoTime) {
    // Limit revisions belong to ql3_admin (migration V11), as PostgresBackend wires them.
    return new JdbcManagementQuotaStore(
        dataSource,
        ours(dataSource) ? admin : dataSource,
        PostgresDialect.INSTANCE,
        nanoTime,
        JdbcManagementQuotaStore.Coalescing.DEFAULTS);
  }

  @Override
  public GovernanceStore governanceStore(DataSource dataSource) {
    // Approval-policy writes belong to ql3_admin (migration V10), as PostgresBackend wires them.
    GovernanceStore manager =
        new JdbcGovernanceStore(
            dataSource, ours(dataSource) ? admin : dataSource, PostgresDialect.INSTANCE);
    // Only the publication worker's login publishes (migration V5), as PostgresBackend wires it.
    return ours(dataSource) ? new PublishingAsExecutor(manager, executor()) : manager;
  }

  private synchronized GovernanceStore executor() {
    if (executor == null) {
      executor =
          new JdbcGovernanceStore(
              rolePool(PostgresLogins.PACKAGE_EXECUTOR, 8), PostgresDialect.INSTANCE);
    }
    return executor;
  }

  @Override
  public WebhookStore webhookStore(SecretSealer sealer) {
    // Registrations are the admin's (migration V12), as PostgresBackend wires them.
    return new JdbcWebhookStore(
        rolePool(PostgresLogins.ADMIN, 4), PostgresDialect.INSTANCE, sealer);
  }

  @Override
  public WebhookStore deliveryStore(SecretSealer sealer) {
    // The delivery worker's login, as PostgresBackend wires it.
    return new JdbcWebhookStore(
        rolePool(PostgresLogins.PACKAGE_EXECUTOR, 2), PostgresDialect.INSTANCE, sealer);
  }

  @Override
  public WebhookEventOutbox rejectionOutbox() {
    // Refusals are written by the management side as the admin, as PostgresBackend wires it.
    return new JdbcWebhookEventOutbox(rolePool(PostgresLogins.ADMIN, 4), PostgresDialect.INSTANCE);
  }

  @Override
  public WebhookEventOutbox workerOutbox() {
    // The threshold pass runs on the worker, as the executor.
    return new JdbcWebhookEventOutbox(
        rolePool(PostgresLogins.PACKAGE_EXECUTOR, 2), PostgresDialect.INSTANCE);
  }

  @Override
  public ModelQuotaStore workerUsage() {
    // Reads windows only (db/postgres-ai V5 grants the executor SELECT on those three tables).
    DataSource executorPool = rolePool(PostgresLogins.PACKAGE_EXECUTOR, 2);
    return new JdbcModelQuotaStore(executorPool, PostgresDialect.INSTANCE);
  }

  @Override
  public byte[] storedSecret(String projectId, String webhookId) {
    try (Connection c = owner.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT secret_sealed FROM qinglong.webhook_endpoints"
                    + " WHERE project_id = ? AND webhook_id = ?")) {
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
    // Policy writes belong to ql3_admin; a foreign data source (e.g. unreachable) is used as is.
    return new JdbcPolicyStore(ours(dataSource) ? admin : dataSource, PostgresDialect.INSTANCE);
  }

  @Override
  public long databaseNowMs() {
    try (Connection c = owner.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT " + PostgresDialect.INSTANCE.nowMs());
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public Optional<BucketRow> readBucket(QuotaKey key) {
    try (Connection c = owner.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT window_started_at_ms, consumed_count, updated_at_ms,"
                    // A receipt is {"id", "d"}.
                    + " ARRAY(SELECT e ->> 'id' FROM jsonb_array_elements(receipt_ids)"
                    + " WITH ORDINALITY AS r(e, n) ORDER BY n),"
                    + " ARRAY(SELECT e ->> 'd' FROM jsonb_array_elements(receipt_ids)"
                    + " WITH ORDINALITY AS r(e, n) ORDER BY n)"
                    + " FROM qinglong.plugin_package_management_quota_buckets"
                    + " WHERE project_id = ? AND subject_type = ? AND subject_id = ?"
                    + " AND operation = ?")) {
      bind(ps, key);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        List<String> receipts = new ArrayList<>();
        for (Object id : (Object[]) rs.getArray(4).getArray()) {
          receipts.add((String) id);
        }
        List<String> digests = new ArrayList<>();
        for (Object digest : (Object[]) rs.getArray(5).getArray()) {
          digests.add((String) digest);
        }
        return Optional.of(
            new BucketRow(rs.getLong(1), rs.getInt(2), receipts, digests, rs.getLong(3)));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void setWindowStart(QuotaKey key, long windowStartedAtMs) {
    update(
        "UPDATE qinglong.plugin_package_management_quota_buckets SET window_started_at_ms = "
            + windowStartedAtMs,
        key);
  }

  @Override
  public boolean databaseRejectsCountReceiptMismatch(QuotaKey key) {
    return rejected(
        () ->
            update(
                "UPDATE qinglong.plugin_package_management_quota_buckets"
                    + " SET consumed_count = consumed_count + 1",
                key));
  }

  @Override
  public boolean databaseRejectsOversizedReceipts(QuotaKey key) {
    return rejected(() -> insertBucket(key, 1001, 8))
        && rejected(() -> insertBucket(key, 1000, 300));
  }

  @Override
  public boolean databaseRejectsUnknownOperation(QuotaKey key) {
    String receipts = "[{\"id\":\"a\",\"d\":\"" + "ab".repeat(32) + "\"}]";
    boolean refused;
    try {
      insertRaw(key, "plugin-package.withdraw", 1, receipts, 0);
      refused = false;
    } catch (IllegalStateException e) {
      // 23503: foreign_key_violation, the operation is not a row of management_quota_operations.
      refused = e.getCause() instanceof SQLException s && "23503".equals(s.getSQLState());
    }
    return refused && fixtureCanInsert(key, receipts);
  }

  @Override
  public void addOperation(String wireName) {
    ownerUpdate("INSERT INTO management_quota_operations (operation) VALUES (?)", wireName);
  }

  /** As {@code ql3_package_manager}, the login of the quota store. */
  @Override
  public String decideStatement() {
    return PostgresDialect.INSTANCE.decideStatement();
  }

  /** As {@code ql3_package_manager}, the login of the quota store. */
  @Override
  public synchronized DataSource decidingDataSource() {
    if (manager == null) {
      manager = rolePool(PostgresLogins.PACKAGE_MANAGER, 2);
    }
    return manager;
  }

  @Override
  public void storeCorruptBucket(
      QuotaKey key, int count, List<String> receiptIds, RequestDigest request) {
    StringBuilder json = new StringBuilder("[");
    for (String id : receiptIds) {
      json.append(json.length() == 1 ? "" : ",")
          .append("{\"id\":\"")
          .append(id)
          .append("\",\"d\":\"")
          .append(request.hex())
          .append("\"}");
    }
    long now = databaseNowMs();
    String table = "qinglong.plugin_package_management_quota_buckets";
    try (Connection c = owner.getConnection()) {
      c.setAutoCommit(false);
      try (Statement st = c.createStatement()) {
        List<String[]> checks = new java.util.ArrayList<>();
        try (ResultSet rs =
            st.executeQuery(
                "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint"
                    + " WHERE conrelid = '"
                    + table
                    + "'::regclass AND contype = 'c'")) {
          while (rs.next()) {
            checks.add(new String[] {rs.getString(1), rs.getString(2)});
          }
        }
        for (String[] check : checks) {
          st.execute("ALTER TABLE " + table + " DROP CONSTRAINT \"" + check[0] + "\"");
        }
        try (PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO "
                    + table
                    + " (project_id, subject_type, subject_id, operation, window_started_at_ms,"
                    + " consumed_count, receipt_ids, updated_at_ms)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?::jsonb, ?)")) {
          bind(ps, key);
          ps.setLong(5, now);
          ps.setInt(6, count);
          ps.setString(7, json.append(']').toString());
          ps.setLong(8, now);
          ps.executeUpdate();
        }
        for (String[] check : checks) {
          st.execute(
              "ALTER TABLE "
                  + table
                  + " ADD CONSTRAINT \""
                  + check[0]
                  + "\" "
                  + check[1]
                  + " NOT VALID");
        }
      }
      c.commit();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public boolean databaseRejectsMalformedReceipts(QuotaKey key) {
    String digest = "ab".repeat(32);
    return rejected(() -> insertRaw(key, 1, "[{\"id\":\"a\",\"d\":\"NOT-HEX\"}]", 0))
        && rejected(() -> insertRaw(key, 1, "[{\"id\":\"a\",\"d\":\"" + digest + "\",\"x\":1}]", 0))
        && rejected(() -> insertRaw(key, 1, "[{\"id\":\"a\"}]", 0))
        && fixtureCanInsert(key, "[{\"id\":\"a\",\"d\":\"" + digest + "\"}]");
  }

  private boolean fixtureCanInsert(QuotaKey key, String receipts) {
    insertRaw(key, 1, receipts, 0);
    return readBucket(key).isPresent();
  }

  private void insertRaw(QuotaKey key, int count, String receipts, long windowStartedAtMs) {
    insertRaw(key, key.operation().wireName(), count, receipts, windowStartedAtMs);
  }

  private void insertRaw(
      QuotaKey key, String operation, int count, String receipts, long windowStartedAtMs) {
    try (Connection c = owner.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO qinglong.plugin_package_management_quota_buckets (project_id,"
                    + " subject_type, subject_id, operation, window_started_at_ms,"
                    + " consumed_count, receipt_ids, updated_at_ms)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?::jsonb, ?)")) {
      bind(ps, key);
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

  private void insertBucket(QuotaKey key, int count, int idLength) {
    try (Connection c = owner.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO qinglong.plugin_package_management_quota_buckets (project_id,"
                    + " subject_type, subject_id, operation, window_started_at_ms,"
                    + " consumed_count, receipt_ids, updated_at_ms)"
                    // Every id idLength digits but the last, which is of the shape the CHECK
                    // accepts: so that a refusal is about the array's bounds.
                    + " SELECT ?, ?, ?, ?, 0, ?, jsonb_agg(jsonb_build_object('id',"
                    + " lpad(g::text, CASE WHEN g = ? THEN 8 ELSE ? END, '0'),"
                    + " 'd', repeat('ab', 32)) ORDER BY g), 0"
                    + " FROM generate_series(1, ?) g")) {
      bind(ps, key);
      ps.setInt(5, count);
      ps.setInt(6, count);
      ps.setInt(7, idLength);
      ps.setInt(8, count);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean rejected(Runnable write) {
    try {
      write.run();
      return false;
    } catch (IllegalStateException e) {
      // 23514: check_violation, the constraint we expect to hold.
      return e.getCause() instanceof SQLException s && "23514".equals(s.getSQLState());
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

  @Override
  public void close() {
    pools.forEach(HikariDataSource::close);
    owner.close();
  }
}
