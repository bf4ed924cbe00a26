package dev.qinglong.app.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.process.Fleet.Slot;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded store under SIGKILL (issue 11): the app on an SQLite file is killed in the middle of
 * concurrent writes, and the file it leaves opens and passes {@code PRAGMA integrity_check}; after
 * restarts and client replays every invariant that applies to one process holds (checked in SQL on
 * the file). A second process on the same file is refused at start with a clear message (the
 * one-process rule, {@code SqliteProcessLock}); a process killed with SIGKILL never blocks its own
 * restart.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SqliteCrashIT {
  static final Duration START = Duration.ofSeconds(120);
  static final Map<String, Integer> LIMITS =
      Map.of(
          "plugin-package.propose", 1000,
          "plugin-package.decide", 1000,
          "plugin-package.inspect", 60,
          "artifact.upload", 1000);

  @TempDir static Path dataDir;

  private Fleet fleet;
  private Slot app;

  @BeforeAll
  void start() throws Exception {
    fleet = new Fleet(Path.of("target", "process-logs", "sqlite-crash"));
    app = fleet.add("sqlite", props(dataDir), true, true);
    fleet.startAll(START);
  }

  @AfterAll
  void stop() throws Exception {
    if (fleet != null) {
      fleet.close();
    }
  }

  @Test
  @Order(1)
  void aSecondProcessOnTheSameFileIsRefusedWithAClearMessage() throws Exception {
    AppProcess intruder =
        AppProcess.start(
            "sqlite-intruder", Path.of("target", "process-logs", "sqlite-crash"), props(dataDir));
    try {
      assertThat(intruder.awaitExit(Duration.ofSeconds(90))).isNotZero();
      // Spring Boot's failure report, not a stack trace: the reason and what to do.
      assertThat(intruder.output())
          .contains("APPLICATION FAILED TO START")
          .contains("is already in use by another QingLong process")
          .contains("qinglong.db.lock")
          .contains("SQLite runs as one process")
          .contains("Stop the other process first")
          .doesNotContain("\tat ");
    } finally {
      intruder.close();
    }
    // The first process still serves, and still is the only worker and download server.
    assertThat(app.current.status("/actuator/health/readiness")).isEqualTo(200);
  }

  /**
   * Two SIGKILLs mid-traffic and a last one at rest; after each the file passes the integrity
   * check, and the restarts (the kernel released the killed process's lock) are never refused.
   */
  @Test
  @Order(2)
  void killedMidWriteTheFileOpensPassesIntegrityCheckAndKeepsEveryInvariant() throws Exception {
    Path file = dataDir.resolve("qinglong.db");
    MixedTraffic traffic = new MixedTraffic(fleet, dataDir, Duration.ofSeconds(90), 23, 32 * 1024);
    traffic.setUp("1m", 25, 2000, 100);

    Invariants inv =
        new Invariants(Invariants.Dialect.SQLITE, LIMITS, Duration.ofMinutes(5).toMillis());
    List<Integer> inFlightAtKill = new ArrayList<>();
    List<String> integrity = new ArrayList<>();
    long started = System.nanoTime();
    running = true;
    Thread clients =
        new Thread(
            () -> {
              try {
                traffic.run(4, () -> running);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    clients.start();
    for (int round = 0; round < 2; round++) {
      Thread.sleep(2500);
      inFlightAtKill.add(CrashRecoveryIT.killWhenBusy(fleet, traffic, List.of(app)));
      // The file as the killed process left it: it opens and is intact.
      integrity.addAll(integrityProblems(file));
      fleet.restart(app, START);
    }
    Thread.sleep(2000);
    running = false;
    clients.join();
    long seconds = (System.nanoTime() - started) / 1_000_000_000L;

    try (Connection c = open(file)) {
      CrashRecoveryIT.awaitPublication(c, dataDir, inv, "plugin_package_proposals");
      inv.checkPublishedDownloads(c, dataDir, d -> CrashRecoveryIT.verify(traffic, d));
    }
    // A last SIGKILL with the application idle; then everything on the file alone.
    fleet.kill(app);
    integrity.addAll(integrityProblems(file));
    inv.add("sqlite: integrity_check ok after every SIGKILL", 3, integrity);
    try (Connection c = open(file)) {
      inv.checkStore(c, List.copyOf(traffic.sent));
    }
    long temps = inv.checkArtifactFiles(dataDir);
    Map<String, Object> faults = new LinkedHashMap<>();
    faults.put("sigkill", fleet.kills.get());
    faults.put("requestsInFlightAtEachKill", inFlightAtKill);
    Map<String, Object> summary =
        RunSummary.of("sqlite-crash", seconds, traffic, fleet, faults, inv, temps);
    RunSummary.write(Path.of("target", "reliability"), "sqlite-crash", summary);

    assertThat(inv.violationCount()).as(inv.report()).isZero();
    assertThat(traffic.violations).as("client-side violations").isEmpty();
    assertThat(inFlightAtKill).allSatisfy(n -> assertThat(n).isPositive());
    assertThat(traffic.replays.get()).isPositive();
    Map<String, Long> outcomes = traffic.outcomeCounts();
    assertThat(outcomes.getOrDefault("admit 201", 0L)).as(outcomes.toString()).isPositive();
    assertThat(outcomes.getOrDefault("complete 200", 0L)).as(outcomes.toString()).isPositive();
    assertThat(outcomes.getOrDefault("upload 201", 0L)).as(outcomes.toString()).isPositive();
  }

  private volatile boolean running;

  /**
   * {@code PRAGMA integrity_check} and {@code foreign_key_check}: empty when the file is intact.
   */
  static List<String> integrityProblems(Path file) throws Exception {
    List<String> problems = new ArrayList<>();
    try (Connection c = open(file)) {
      List<String> integrity = Invariants.strings(c, "PRAGMA integrity_check");
      if (!integrity.equals(List.of("ok"))) {
        problems.add("integrity_check: " + integrity);
      }
      List<String> fks = Invariants.strings(c, "PRAGMA foreign_key_check");
      if (!fks.isEmpty()) {
        problems.add("foreign_key_check: " + fks);
      }
    }
    return problems;
  }

  static Connection open(Path file) throws Exception {
    return DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
  }

  static Map<String, String> props(Path dataDir) {
    Map<String, String> p = new HashMap<>();
    p.put("qinglong.data-dir", dataDir.toString());
    p.put("qinglong.ai.enabled", "true");
    p.put("qinglong.management-quota.window", "5m");
    p.put("qinglong.management-quota.limits.propose", "1000");
    p.put("qinglong.management-quota.limits.decide", "1000");
    p.put("qinglong.management-quota.limits.inspect", "60");
    p.put("qinglong.management-quota.limits.artifact-upload", "1000");
    return p;
  }
}
