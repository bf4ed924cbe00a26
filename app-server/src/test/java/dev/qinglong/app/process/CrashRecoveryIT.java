package dev.qinglong.app.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.app.process.Fleet.Slot;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILL in the middle of concurrent work (docs/reliability.md): three app processes on one
 * PostgreSQL database and one storage root — {@code all} (API, downloads, a worker), a {@code
 * writer} and a {@code worker} — take uploads, proposals, decisions, inspections, StepRuns, model
 * admissions and completions from six clients while the test kills them with SIGKILL: first {@code
 * all} and the worker together (no process may publish until they are back; the writer goes on
 * taking writes), then all three at once. Clients replay every request whose answer they did not
 * get, with the same id. Afterwards every invariant is checked in SQL ({@link Invariants}) and the
 * run's figures are written to {@code target/reliability/crash-recovery.{json,md}}.
 */
class CrashRecoveryIT {
  static final Duration START = Duration.ofSeconds(120);
  static final Map<String, Integer> LIMITS =
      Map.of(
          "plugin-package.propose", 1000,
          "plugin-package.decide", 1000,
          "plugin-package.inspect", 80,
          "artifact.upload", 1000);

  @TempDir Path dataDir;

  @Test
  void sigkillMidWriteLosesNothingAndCountsEveryAnsweredIdExactlyOnce() throws Exception {
    TestDatabase db = PostgresTestServer.get().createDatabase("crash_recovery");
    Path logDir = Path.of("target", "process-logs", "crash");
    try (Fleet fleet = new Fleet(logDir);
        HikariDataSource owner = db.newDataSource(2)) {
      Slot all = fleet.add("all", props(db, "all", true), true, true);
      Slot writer = fleet.add("writer", props(db, "writer", true), true, false);
      Slot worker = fleet.add("worker", props(db, "worker", false), false, false);
      fleet.startAll(START);

      MixedTraffic traffic =
          new MixedTraffic(fleet, dataDir, Duration.ofSeconds(90), 11, 48 * 1024);
      traffic.setUp("1m", 25, 2000, 100);

      Map<String, Object> faults = new LinkedHashMap<>();
      List<Integer> inFlightAtKill = new ArrayList<>();
      long started = System.nanoTime();
      Thread clients =
          new Thread(
              () -> {
                try {
                  traffic.run(6, () -> running);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      running = true;
      clients.start();

      Thread.sleep(3000);
      inFlightAtKill.add(killWhenBusy(fleet, traffic, List.of(all, worker)));
      Thread.sleep(1500); // writes go on through the writer; nothing can publish
      fleet.restartAll(List.of(all, worker), START);

      Thread.sleep(2000);
      inFlightAtKill.add(killWhenBusy(fleet, traffic, List.of(all, writer, worker)));
      fleet.restartAll(List.of(all, writer, worker), START);

      // At least 3 s more, and until the traffic did what the assertions below count on (an
      // admission refused and admitted, a completion, an upload): waited on, not assumed.
      await()
          .pollDelay(Duration.ofSeconds(3))
          .atMost(Duration.ofMinutes(3))
          .until(() -> traffic.seen("admit 429", "admit 201", "complete 200", "upload 201"));
      running = false;
      clients.join();
      long seconds = (System.nanoTime() - started) / 1_000_000_000L;
      faults.put("sigkill", fleet.kills.get());
      faults.put("requestsInFlightAtEachKill", inFlightAtKill);

      Invariants inv =
          new Invariants(Invariants.Dialect.POSTGRES, LIMITS, Duration.ofMinutes(5).toMillis());
      try (Connection c = owner.getConnection()) {
        awaitPublication(c, dataDir, inv, "qinglong.plugin_package_proposals");
        inv.checkStore(c, List.copyOf(traffic.sent));
        inv.checkPublishedDownloads(c, dataDir, d -> verify(traffic, d));
      }
      long temps = inv.checkArtifactFiles(dataDir);
      Map<String, Object> summary =
          RunSummary.of("crash-recovery", seconds, traffic, fleet, faults, inv, temps);
      RunSummary.write(Path.of("target", "reliability"), "crash-recovery", summary);

      assertThat(inv.violationCount()).as(inv.report()).isZero();
      assertThat(traffic.violations).as("client-side violations").isEmpty();
      // The run did what it claims: five processes killed while requests were in flight, the
      // clients had to replay, and the quotas said no at some point.
      assertThat(fleet.kills.get()).isEqualTo(5);
      assertThat(inFlightAtKill).allSatisfy(n -> assertThat(n).isPositive());
      assertThat(traffic.replays.get()).isPositive();
      Map<String, Long> outcomes = traffic.outcomeCounts();
      assertThat(outcomes.getOrDefault("admit 429", 0L)).as(outcomes.toString()).isPositive();
      assertThat(outcomes.getOrDefault("admit 201", 0L)).as(outcomes.toString()).isPositive();
      assertThat(outcomes.getOrDefault("complete 200", 0L)).as(outcomes.toString()).isPositive();
      assertThat(outcomes.getOrDefault("upload 201", 0L)).as(outcomes.toString()).isPositive();
      assertThat(traffic.downloadsVerified.get()).isPositive();
    }
  }

  private volatile boolean running;

  /**
   * Kills the slots once at least one HTTP request per client-facing slot is in flight on the
   * processes being killed (waited on, for at most a minute); returns how many were.
   */
  static int killWhenBusy(Fleet fleet, MixedTraffic traffic, List<Slot> slots) throws Exception {
    long served = Math.max(1, slots.stream().filter(s -> s.api || s.downloads).count());
    await()
        .pollInterval(Duration.ofMillis(2))
        .atMost(Duration.ofMinutes(1))
        .until(() -> onVictims(traffic, slots) >= served);
    int inFlight = onVictims(traffic, slots);
    for (Slot s : slots) {
      fleet.kill(s);
    }
    return inFlight;
  }

  private static int onVictims(MixedTraffic traffic, List<Slot> slots) {
    int n = 0;
    for (Slot s : slots) {
      n += traffic.inFlightOn(s.current);
    }
    return n;
  }

  static boolean verify(MixedTraffic traffic, String digest) {
    try {
      return traffic.verifyDownload(digest, "final-download");
    } catch (Exception e) {
      return false;
    }
  }

  /**
   * Publication needs a live worker: every approved proposal whose artifact is stored whole must be
   * published once the killed processes are back (the worker retries within seconds).
   */
  static void awaitPublication(Connection c, Path dataDir, Invariants inv, String proposals)
      throws Exception {
    String sql =
        "SELECT p.artifact_digest FROM "
            + proposals
            + " p"
            + " WHERE p.state = 'approved' AND p.artifact_digest IS NOT NULL";
    long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
    List<String> pending = pendingStored(c, dataDir, sql);
    while (!pending.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(500);
      pending = pendingStored(c, dataDir, sql);
    }
    inv.add(
        "publication: every approved, stored artifact is published after restart",
        Invariants.count(
            c,
            "SELECT count(*) FROM "
                + proposals
                + " WHERE artifact_digest IS NOT NULL AND state IN ('approved', 'published')"),
        pending.stream().map(d -> "still approved: " + d).toList());
  }

  static List<String> pendingStored(Connection c, Path dataDir, String sql) throws Exception {
    List<String> out = new ArrayList<>();
    for (String d : Invariants.strings(c, sql)) {
      Path f =
          dataDir
              .resolve("artifacts")
              .resolve("sha256")
              .resolve(d.substring(7, 9))
              .resolve(d.substring(7));
      if (java.nio.file.Files.isRegularFile(f)) {
        out.add(d);
      }
    }
    return out;
  }

  Map<String, String> props(TestDatabase db, String role, boolean ai) {
    Map<String, String> p = new HashMap<>();
    p.put("qinglong.store", "postgres");
    p.put("qinglong.postgres.url", db.jdbcUrl());
    p.put("qinglong.postgres.username", db.username());
    p.put("qinglong.postgres.password", db.password() == null ? "" : db.password());
    p.put("qinglong.postgres.bootstrap-roles", "true");
    p.put("qinglong.data-dir", dataDir.toString());
    p.put("qinglong.role", role);
    p.put("qinglong.ai.enabled", Boolean.toString(ai));
    p.put("qinglong.management-quota.window", "5m");
    p.put("qinglong.management-quota.limits.propose", "1000");
    p.put("qinglong.management-quota.limits.decide", "1000");
    p.put("qinglong.management-quota.limits.inspect", "80");
    p.put("qinglong.management-quota.limits.artifact-upload", "1000");
    return p;
  }
}
