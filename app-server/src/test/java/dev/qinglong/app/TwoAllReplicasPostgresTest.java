package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.PgApps;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.nio.file.Path;
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
}
