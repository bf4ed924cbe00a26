package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.AiInspector;
import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.core.modelquota.QuotaWindow;
import dev.qinglong.testkit.QuotaWindows;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The process's own recovery sweep ({@code qinglong.ai.recover-unknown-after}): a StepRun left
 * running past the bound ends {@code unknown} without anyone calling, keeping its whole
 * reservation, counted in {@code qinglong_model_step_runs_recovered_total}; the sweep's query has
 * its partial index. Run on each store by a subclass.
 */
abstract class StepRunRecoverySweepContract {
  @TempDir Path dataDir;

  /** Starts the app on the store under test with these extra properties. */
  abstract TestApp start(Path dataDir, Map<String, String> properties);

  /** Reads the AI tables of the app's store. */
  abstract AiInspector inspector(TestApp app);

  /** The definition of index {@code model_step_runs_running_sweep}, or null if it is missing. */
  abstract String sweepIndexDefinition(AiInspector ai);

  @Test
  void aStepRunLeftRunningIsRecoveredAsUnknownByTheSweep() throws Exception {
    try (TestApp app =
        start(
            dataDir,
            Map.of(
                "qinglong.ai.enabled", "true",
                "qinglong.ai.recover-unknown-after", "1s",
                "qinglong.ai.recover-unknown-interval", "200ms"))) {
      String base = "/v1/projects/sweep";
      // The usage asserted below counts in a day (UTC) window (no quota), and the sweep may take
      // up to its 15 s wait: the test needs a minute of that day.
      QuotaWindows.awaitRoom(
          QuotaWindow.UNFENCED.millis(), Duration.ofMinutes(1), System::currentTimeMillis);
      ok(
          app.http.put(
              base + "/members/alice",
              app.token("admin"),
              "{\"permissions\":[\"model.invoke\",\"model.usage.read\"]}"));
      ok(
          app.http.put(
              base + "/model-policies/m1",
              app.token("admin"),
              "{\"maxTotalTokens\":100,\"maxCostMicros\":null}"));
      ok(
          app.http.post(
              base + "/step-runs",
              app.token("alice"),
              "{\"stepRunId\":\"s1\",\"runId\":\"r1\",\"modelId\":\"m1\"}"));
      ok(
          app.http.post(
              base + "/model-invocations",
              app.token("alice"),
              "{\"invocationId\":\"inv1\",\"stepRunId\":\"s1\"}"));
      assertThat(
              app.bean(MeterRegistry.class).counter("qinglong.model.step.runs.recovered").count())
          .isZero();
      AiInspector ai = inspector(app);
      assertThat(sweepIndexDefinition(ai)).contains("running");
      String state = "running";
      long deadline = System.nanoTime() + 15_000_000_000L;
      while (!state.equals("unknown") && System.nanoTime() < deadline) {
        Thread.sleep(100);
        state =
            ai.queryOne(
                "SELECT state FROM model_step_runs WHERE project_id = ? AND step_run_id = ?",
                "sweep",
                "s1");
      }
      assertThat(state).isEqualTo("unknown");
      assertThat(
              app.bean(MeterRegistry.class).counter("qinglong.model.step.runs.recovered").count())
          .isEqualTo(1.0);
      Response window = app.http.get(base + "/model-usage/window", app.token("alice"));
      ok(window);
      assertThat(window.json().get("tokens").asLong()).isEqualTo(100);
      // The runtime's late completion: only the identical report replays.
      Response late =
          app.http.post(
              base + "/model-invocations/inv1/completion",
              app.token("alice"),
              "{\"outcome\":\"succeeded\",\"usage\":null,\"costMicros\":null}");
      assertThat(late.status()).as(late.body()).isEqualTo(409);
      Response same =
          app.http.post(
              base + "/model-invocations/inv1/completion",
              app.token("alice"),
              "{\"outcome\":\"unknown\",\"usage\":null,\"costMicros\":null}");
      ok(same);
      assertThat(same.json().get("settlement").get("releasedTokens").asLong()).isZero();
    }
  }

  private static void ok(Response r) {
    assertThat(r.status()).as(r.body()).isBetween(200, 201);
  }
}
