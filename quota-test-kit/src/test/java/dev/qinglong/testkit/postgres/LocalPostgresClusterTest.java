package dev.qinglong.testkit.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * Clusters from the local binaries (needs {@code initdb}/{@code pg_ctl}; fails, never skips, when
 * they are missing): fast by default, durable with statement statistics when the benchmark harness
 * asks for it.
 */
class LocalPostgresClusterTest {

  @Test
  void startsWithoutDurabilityByDefault() throws SQLException {
    LocalPostgresCluster cluster = LocalPostgresCluster.start();
    try (Connection c = connect(cluster)) {
      assertThat(setting(c, "fsync")).isEqualTo("off");
      assertThat(setting(c, "synchronous_commit")).isEqualTo("off");
    } finally {
      cluster.stop();
    }
  }

  @Test
  void startsDurableWithStatementStatisticsWhenAsked() throws SQLException {
    String before = System.getProperty(LocalPostgresCluster.DURABLE_PROPERTY);
    System.setProperty(LocalPostgresCluster.DURABLE_PROPERTY, "true");
    LocalPostgresCluster cluster;
    try {
      cluster = LocalPostgresCluster.start();
    } finally {
      if (before == null) {
        System.clearProperty(LocalPostgresCluster.DURABLE_PROPERTY);
      } else {
        System.setProperty(LocalPostgresCluster.DURABLE_PROPERTY, before);
      }
    }
    try (Connection c = connect(cluster)) {
      assertThat(setting(c, "fsync")).isEqualTo("on");
      assertThat(setting(c, "synchronous_commit")).isEqualTo("on");
      assertThat(setting(c, "full_page_writes")).isEqualTo("on");
      // Debian's server package ships the extension, as on the machines this runs on.
      assertThat(setting(c, "shared_preload_libraries")).contains("pg_stat_statements");
    } finally {
      cluster.stop();
    }
  }

  private static Connection connect(LocalPostgresCluster cluster) throws SQLException {
    return DriverManager.getConnection(
        "jdbc:postgresql://127.0.0.1:" + cluster.port() + "/postgres",
        LocalPostgresCluster.SUPERUSER,
        "");
  }

  private static String setting(Connection c, String name) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT current_setting('" + name + "')")) {
      rs.next();
      return rs.getString(1);
    }
  }
}
