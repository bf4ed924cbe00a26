package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.AiInspector;
import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.PgApps;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two independent app instances (separate Spring contexts and runtime pools) on one PostgreSQL
 * database race admissions of distinct StepRuns into a window with {@code maxInvocations=1}:
 * exactly one 201, every round; the others get 429 and their StepRuns stay ready.
 */
class TwoInstancesModelQuotaPostgresTest {
  static final int ROUNDS = 6;
  static final int RACERS = 6;

  @TempDir Path dirA;
  @TempDir Path dirB;

  @Test
  void racingAdmissionsOverTwoInstancesAdmitExactlyOneEveryRound() throws Exception {
    TestDatabase db = PostgresTestServer.get().createDatabase("app_ai_two");
    Map<String, String> ai = Map.of("qinglong.ai.enabled", "true");
    AiInspector inspector = AiInspector.postgres(db.jdbcUrl(), db.username(), db.password());
    ExecutorService pool = Executors.newFixedThreadPool(RACERS);
    // The second instance is a writer: two "all" processes would both claim the standalone
    // download server of the database, and only one may hold it.
    try (TestApp a = PgApps.start(db, dirA, ai);
        TestApp b =
            PgApps.start(
                db, dirB, Map.of("qinglong.ai.enabled", "true", "qinglong.role", "writer"))) {
      for (int round = 1; round <= ROUNDS; round++) {
        String p = "race-" + round;
        put(a, "/v1/projects/" + p + "/members/alice", "{\"permissions\":[\"model.invoke\"]}");
        put(b, "/v1/projects/" + p + "/model-policies/m1", "{\"maxTotalTokens\":10}");
        String quota = "{\"window\":\"1d\",\"maxInvocations\":1,\"maxTokens\":1000}";
        // Exactly one admission per round: the round must not run across midnight (UTC).
        ModelQuotaApiContract.awaitRoomForCounts(quota);
        put(a, "/v1/projects/" + p + "/model-quota", quota);
        for (int i = 0; i < RACERS; i++) {
          TestApp app = i % 2 == 0 ? a : b;
          Response s =
              app.http.post(
                  "/v1/projects/" + p + "/step-runs",
                  app.token("alice"),
                  "{\"stepRunId\":\"s" + i + "\",\"runId\":\"r\",\"modelId\":\"m1\"}");
          assertThat(s.status()).as(s.body()).isEqualTo(201);
        }
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Response>> futures = new ArrayList<>();
        for (int i = 0; i < RACERS; i++) {
          TestApp app = i % 2 == 0 ? a : b;
          String token = app.token("alice");
          String body = "{\"invocationId\":\"inv" + i + "\",\"stepRunId\":\"s" + i + "\"}";
          futures.add(
              pool.submit(
                  () -> {
                    go.await();
                    return app.http.post("/v1/projects/" + p + "/model-invocations", token, body);
                  }));
        }
        go.countDown();
        int admitted = 0;
        int refused = 0;
        for (Future<Response> f : futures) {
          Response r = f.get(60, TimeUnit.SECONDS);
          if (r.status() == 201) {
            admitted++;
          } else {
            assertThat(r.status()).as(r.body()).isEqualTo(429);
            assertThat(r.code()).isEqualTo("model_project_quota_exceeded");
            assertThat(Long.parseLong(r.header("Retry-After").orElseThrow()))
                .isBetween(1L, 86_400L);
            refused++;
          }
        }
        assertThat(admitted).as("round " + round).isEqualTo(1);
        assertThat(refused).as("round " + round).isEqualTo(RACERS - 1);
        assertThat(
                inspector.queryOne(
                    "SELECT count(*) FROM model_invocation_reservations WHERE project_id = ?", p))
            .isEqualTo("1");
        assertThat(
                inspector.queryOne(
                    "SELECT count(*) FROM model_step_runs WHERE project_id = ? AND state = 'ready'",
                    p))
            .isEqualTo(Integer.toString(RACERS - 1));
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** As that instance's admin (each instance has its own dev tokens). */
  private static void put(TestApp app, String path, String body) {
    Response r = app.http.put(path, app.token("admin"), body);
    assertThat(r.status()).as(r.body()).isEqualTo(200);
  }
}
