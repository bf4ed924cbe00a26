package dev.qinglong.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.benchmarks.ManagementQuotaWorkloads.Shape;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The harness runs end to end on SQLite (no PostgreSQL, no app process): workloads set up, run both
 * phases from their client threads, classify every call, and the report and targets are written.
 * Asserts counts and outcomes only, never a timing.
 */
class HarnessSmokeTest {

  @Test
  void sqliteWorkloadsRunAndReportEveryCall(@TempDir Path out) throws Exception {
    Result raw =
        Runner.run(new ManagementQuotaWorkloads.RawSqlite(Shape.DISTINCT), Workload.Mode.QUICK);
    Result store =
        Runner.run(new ManagementQuotaWorkloads.StoreSqlite(Shape.DISTINCT), Workload.Mode.QUICK);
    Result hot =
        Runner.run(new ManagementQuotaWorkloads.StoreSqlite(Shape.HOT), Workload.Mode.QUICK);

    for (Result r : List.of(raw, store, hot)) {
      assertThat(r.error()).isNull();
      assertThat(r.calls()).isPositive();
      assertThat(r.outcomes().values().stream().mapToLong(Long::longValue).sum())
          .isEqualTo(r.calls());
      assertThat(r.commitsPerCall()).isNull(); // no PostgreSQL database behind SQLite
      // In the harness itself: no app process, so no app CPU and no app log to measure.
      assertThat(r.appCpuMsPerCall()).isNull();
      assertThat(r.appLogBytes()).isNull();
      // The whole machine's CPU is read around every timed phase (8 busy client threads).
      assertThat(r.machineCpuMsPerCall()).isNotNull().isPositive();
    }
    // Distinct users: 10,000 users at 600 per window, so every call in a few seconds admits.
    assertThat(raw.outcomes()).containsOnlyKeys("allowed");
    assertThat(store.outcomes()).containsOnlyKeys("allowed");
    // The hot bucket was filled in the set-up: every timed call is a rejection.
    assertThat(hot.outcomes()).containsOnlyKeys("rejected");

    List<Targets.Target> targets = Targets.evaluate(List.of(raw, store, hot));
    assertThat(targets)
        .filteredOn(t -> t.name().startsWith("SQLite: store / raw"))
        .singleElement()
        .satisfies(t -> assertThat(t.measured()).isTrue());
    assertThat(targets)
        .filteredOn(t -> t.name().startsWith("distinct users: store / raw"))
        .singleElement()
        .satisfies(t -> assertThat(t.measured()).isFalse());
    // The HTTP targets (refusals, model lifecycles) are listed, not measured without an app.
    assertThat(targets)
        .filteredOn(
            t ->
                t.name().equals("exhausted hot bucket: refusals over HTTP")
                    || t.name().startsWith("model lifecycles, HTTP, ")
                    || t.name().equals("… machine CPU per lifecycle"))
        .hasSize(5)
        .allSatisfy(t -> assertThat(t.measured()).isFalse());

    Report.write(
        out,
        Workload.Mode.QUICK,
        Instant.now(),
        Map.of("processors", 2),
        List.of(raw, store, hot),
        targets);
    JsonNode json = Http.JSON.readTree(Files.readString(out.resolve("results.json")));
    assertThat(json.get("results")).hasSize(3);
    assertThat(json.get("results").get(2).get("outcomes").get("rejected").asLong())
        .isEqualTo(hot.calls());
    assertThat(Files.readString(out.resolve("results.md")))
        .contains("| distinct-users-sqlite | store | 8 |")
        .contains("| machine CPU ms/call | app log bytes |");
    assertThat(json.get("results").get(2).get("machineCpuMsPerCall").asDouble()).isPositive();
  }

  @Test
  void machineCpuCountsTheBusyFieldsOfProcStat() {
    // user nice system idle iowait irq softirq steal guest guest_nice: idle and iowait are not busy
    assertThat(MachineCpu.busyTicks("cpu  10 20 30 4000 500 6 7 8 0 0")).isEqualTo(81);
  }
}
