package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.AiInspector;
import dev.qinglong.app.support.PgApps;
import dev.qinglong.app.support.StoreInspector;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The model quota HTTP contract on PostgreSQL: the AI store on its own pool as {@code ql3_runtime},
 * the management quota of the usage reads on {@code ql3_package_manager}.
 */
class PostgresModelQuotaApiTest extends ModelQuotaApiContract {
  @TempDir static Path dataDir;
  private TestDatabase db;

  @Override
  protected TestApp startApp(Map<String, String> properties) {
    db = PostgresTestServer.get().createDatabase("app_ai");
    return PgApps.start(db, dataDir, properties);
  }

  @Override
  protected StoreInspector inspector(TestApp app) {
    return PgApps.inspector(db);
  }

  @Override
  protected AiInspector aiInspector(TestApp app) {
    return AiInspector.postgres(db.jdbcUrl(), db.username(), db.password());
  }

  @Test
  void theAiStoreConnectsAsTheRuntimeRoleAndReadsQuotaAsThePackageManager() throws Exception {
    String p = project();
    setUp(p, "m1", 100, null, quotaJson("1h", 10, 1_000, null));
    step(p, "s1", "m1");
    admitted(p, "inv1", "s1");
    windowUsage(p);
    assertThat(store.consumed(p, "bob", "model-usage.read")).isEqualTo(1);
    try (Connection c =
            DriverManager.getConnection(
                db.jdbcUrl(), db.username(), db.password() == null ? "" : db.password());
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT application_name, usename, count(*) FROM pg_stat_activity"
                    + " WHERE datname = current_database() AND application_name LIKE 'qinglong-%'"
                    + " GROUP BY application_name, usename")) {
      Map<String, String> roleByPool = new HashMap<>();
      while (rs.next()) {
        roleByPool.put(rs.getString(1), rs.getString(2));
      }
      assertThat(roleByPool)
          .containsEntry("qinglong-runtime", "ql3_runtime")
          .containsEntry("qinglong-package-manager", "ql3_package_manager");
    }
    // The runtime role cannot touch the management quota buckets, the manager not the AI tables.
    assertThat(
            ai.queryOne(
                "SELECT has_table_privilege('ql3_runtime',"
                    + " 'qinglong.plugin_package_management_quota_buckets', 'SELECT')"))
        .isEqualTo("f");
    assertThat(
            ai.queryOne(
                "SELECT has_table_privilege('ql3_package_manager',"
                    + " 'qinglong.model_invocation_reservations', 'SELECT')"))
        .isEqualTo("f");
  }
}
