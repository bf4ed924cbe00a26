package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.PgApps;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * README's "Several replicas on PostgreSQL": two replicas of the default role ({@code all},
 * standalone downloads) on one database both start and become ready. Only the first takes the
 * standalone download barrier; the second serves the whole API but no download payload (503 with
 * Retry-After, so a client retries elsewhere), and says so in readiness.
 */
class TwoAllReplicasPostgresTest {
  @TempDir Path dir;

  @Test
  void twoAllReplicasBothBecomeReadyAndOnlyOneServesDownloads() {
    TestDatabase db = PostgresTestServer.get().createDatabase("two_all");
    try (TestApp first = PgApps.start(db, dir, Map.of());
        TestApp second = PgApps.start(db, dir, Map.of())) {
      Response a = first.management.get("/actuator/health/readiness", null);
      Response b = second.management.get("/actuator/health/readiness", null);
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      assertThat(b.status()).as(b.body()).isEqualTo(200);
      assertThat(
              a.json().at("/components/gateway/details/sharedDownloads/standaloneBarrier").asText())
          .isEqualTo("held");
      assertThat(b.json().at("/components/gateway/details/sharedDownloads/serves").asBoolean())
          .isFalse();
      assertThat(
              b.json().at("/components/gateway/details/sharedDownloads/standaloneBarrier").asText())
          .isEqualTo("held-elsewhere");

      // Both serve the management API on the one database.
      String body =
          "{\"actionRef\":\"two-all\",\"action\":{\"type\":\"remove\",\"package\":\"p\","
              + "\"version\":\"1\"}}";
      Response created =
          first.http.post(
              "/v1/projects/demo/plugin-packages/proposals", first.token("alice"), body);
      assertThat(created.status()).as(created.body()).isEqualTo(201);
      Response replay =
          second.http.post(
              "/v1/projects/demo/plugin-packages/proposals", second.token("alice"), body);
      assertThat(replay.status()).as(replay.body()).isEqualTo(200);
    }
  }

  private static String barrier(TestApp app) {
    Response r = app.management.get("/actuator/health/readiness", null);
    return r.status()
        + " "
        + r.json().at("/components/gateway/details/sharedDownloads/standaloneBarrier").asText()
        + " "
        + r.json().at("/components/gateway/details/sharedDownloads/serves").asBoolean();
  }

  private static void awaitBarrier(TestApp app, String expected) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    String seen = barrier(app);
    while (!seen.equals(expected) && System.nanoTime() < deadline) {
      Thread.sleep(200);
      seen = barrier(app);
    }
    assertThat(seen).isEqualTo(expected);
  }

  private static long barrierSessions(TestDatabase db, boolean terminate) throws Exception {
    try (HikariDataSource ds = db.newDataSource(1);
        Connection c = ds.getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT count("
                    + (terminate ? "pg_terminate_backend(pid, 5000)" : "*")
                    + ") FROM pg_stat_activity WHERE application_name = 'qinglong-download-lease'"
                    + " AND usename = 'ql3_reader' AND datname = current_database()")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void whenTheDownloadServerStopsTheOtherReplicaTakesTheBarrierOver() throws Exception {
    TestDatabase db = PostgresTestServer.get().createDatabase("two_all_takeover");
    try (TestApp second = startSecondAfterFirstStops(db)) {
      awaitBarrier(second, "200 held true");
    }
  }

  private TestApp startSecondAfterFirstStops(TestDatabase db) throws Exception {
    TestApp second;
    try (TestApp first = PgApps.start(db, dir, Map.of())) {
      second = PgApps.start(db, dir, Map.of());
      awaitBarrier(first, "200 held true");
      awaitBarrier(second, "200 held-elsewhere false");
    }
    return second;
  }

  @Test
  void aBarrierWhoseSessionDiedIsRetakenAndReadinessFollows() throws Exception {
    TestDatabase db = PostgresTestServer.get().createDatabase("all_barrier_retake");
    try (TestApp app = PgApps.start(db, dir, Map.of())) {
      awaitBarrier(app, "200 held true");
      assertThat(barrierSessions(db, true)).isEqualTo(1L);
      // Re-taken in the background on a new session; readiness shows it held again.
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (barrierSessions(db, false) != 1L && System.nanoTime() < deadline) {
        Thread.sleep(200);
      }
      assertThat(barrierSessions(db, false)).isEqualTo(1L);
      awaitBarrier(app, "200 held true");
    }
  }
}
