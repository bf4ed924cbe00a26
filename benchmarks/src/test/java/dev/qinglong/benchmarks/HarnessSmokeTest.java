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
        .contains("| distinct-users-sqlite | store | 8 |");
  }
}
