package dev.qinglong.app;

import static dev.qinglong.app.ApiContract.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.modelquota.ModelQuotaConfiguration;
import dev.qinglong.app.modelquota.ModelQuotaController;
import dev.qinglong.app.modelquota.ModelQuotaExceptionHandler;
import dev.qinglong.app.support.AiInspector;
import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.PgApps;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.core.modelquota.ModelQuota;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code qinglong.ai.enabled=false} (the default), on both stores: no AI migration ran (no AI table
 * exists), no AI bean is loaded, and every AI route answers 404 {@code not_found} even to a global
 * administrator. Enabling it later, on the same data directory or database, applies the migrations
 * and serves the routes.
 */
class AiDisabledTest {
  static final List<String> AI_TABLES =
      List.of(
          "flyway_ai_schema_history",
          "model_invocation_completions",
          "model_invocation_policies",
          "model_invocation_reservations",
          "model_invocation_settlements",
          "model_invocation_starts",
          "model_project_quota_policies",
          "model_step_runs",
          "model_usage_ledger");

  @Test
  void sqliteDisabledHasNothingOfItThenEnablingAppliesIt(@TempDir Path dir) {
    disabledThenEnabled(extra -> TestApp.start(dir, extra), AiInspector.sqlite(dir));
  }

  @Test
  void postgresDisabledHasNothingOfItThenEnablingAppliesIt(@TempDir Path dir) {
    TestDatabase db = PostgresTestServer.get().createDatabase("app_ai_off");
    disabledThenEnabled(
        extra -> PgApps.start(db, dir, extra),
        AiInspector.postgres(db.jdbcUrl(), db.username(), db.password()));
  }

  private static void disabledThenEnabled(
      Function<Map<String, String>, TestApp> start, AiInspector ai) {
    try (TestApp app = start.apply(Map.of())) {
      assertThat(ai.existingAiTables()).isEmpty();
      for (Class<?> type :
          List.of(
              ModelQuotaConfiguration.class,
              ModelQuotaExceptionHandler.class,
              ModelQuotaController.class,
              ModelQuota.class)) {
        assertThat(app.beanCount(type)).as(type.getSimpleName()).isZero();
      }
      String admin = app.token("admin");
      List<Response> responses =
          List.of(
              app.http.put("/v1/projects/demo/model-policies/m1", admin, "{\"maxTotalTokens\":10}"),
              app.http.put(
                  "/v1/projects/demo/model-quota",
                  admin,
                  "{\"window\":\"1m\",\"maxInvocations\":1,\"maxTokens\":1}"),
              app.http.post(
                  "/v1/projects/demo/step-runs",
                  admin,
                  "{\"stepRunId\":\"s\",\"runId\":\"r\",\"modelId\":\"m1\"}"),
              app.http.post(
                  "/v1/projects/demo/model-invocations",
                  admin,
                  "{\"invocationId\":\"i\",\"stepRunId\":\"s\"}"),
              app.http.post(
                  "/v1/projects/demo/model-invocations/i/completion",
                  admin,
                  "{\"outcome\":\"unknown\"}"),
              app.http.get("/v1/projects/demo/model-usage/window", admin),
              app.http.get("/v1/projects/demo/model-usage/ledger?limit=5", admin));
      for (Response r : responses) {
        assertProblem(r, 404, "not_found");
      }
      // Still authenticated first: no token is 401, as for every /v1 route.
      assertProblem(
          app.http.get("/v1/projects/demo/model-usage/window", null), 401, "unauthenticated");
      assertThat(ai.existingAiTables()).isEmpty();
    }
    try (TestApp app = start.apply(Map.of("qinglong.ai.enabled", "true"))) {
      assertThat(ai.existingAiTables()).containsExactlyElementsOf(AI_TABLES);
      assertThat(app.beanCount(ModelQuota.class)).isEqualTo(1);
      String admin = app.token("admin");
      Response policy =
          app.http.put("/v1/projects/demo/model-policies/m1", admin, "{\"maxTotalTokens\":10}");
      assertThat(policy.status()).as(policy.body()).isEqualTo(200);
      assertThat(policy.json().get("revision").asLong()).isEqualTo(1);
    }
    String applied = ai.queryOne("SELECT count(*) FROM flyway_ai_schema_history WHERE success");
    // Starting again enabled applies nothing new and keeps the data.
    try (TestApp app = start.apply(Map.of("qinglong.ai.enabled", "true"))) {
      assertThat(ai.queryOne("SELECT count(*) FROM flyway_ai_schema_history WHERE success"))
          .isEqualTo(applied);
      Response again =
          app.http.put(
              "/v1/projects/demo/model-policies/m1", app.token("admin"), "{\"maxTotalTokens\":10}");
      assertThat(again.json().get("revision").asLong()).isEqualTo(1);
    }
  }
}
