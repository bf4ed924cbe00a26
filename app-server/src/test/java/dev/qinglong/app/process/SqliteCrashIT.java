package dev.qinglong.app.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.qinglong.app.process.Fleet.Slot;
import dev.qinglong.testkit.AppProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
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
 * The embedded store under SIGKILL (docs/reliability.md): the app on an SQLite file is killed in
 * the middle of concurrent writes, and the file it leaves opens and passes {@code PRAGMA
 * integrity_check}; after restarts and client replays every invariant that applies to one process
 * holds (checked in SQL on the file). A second process on the same file is refused at start with a
 * clear message (the one-process rule, {@code SqliteProcessLock}); a process killed with SIGKILL
 * never blocks its own restart.
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
    // At least 2 s more, and until the traffic did what the assertions below count on.
    await()
        .pollDelay(Duration.ofSeconds(2))
        .atMost(Duration.ofMinutes(3))
        .until(() -> traffic.seen("admit 201", "complete 200", "upload 201"));
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
    sent = List.copyOf(traffic.sent);
    try (Connection c = open(file)) {
      inv.checkStore(c, sent);
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
  private List<MixedTraffic.Sent> sent;

  /**
   * The checks are not vacuous: on a copy of the file the previous test left, each tampering below
   * (past the schema's CHECKs and triggers) is reported by the invariant it breaks.
   */
  @Test
  @Order(3)
  void theInvariantChecksReportATamperedCopy() throws Exception {
    assertThat(sent).as("the crash test ran first").isNotNull();
    Path copy = Files.createTempDirectory("tampered");
    Path file = copy.resolve("qinglong.db");
    Files.copy(dataDir.resolve("qinglong.db"), file);
    try (Connection c = open(file);
        Statement s = c.createStatement()) {
      s.execute("PRAGMA ignore_check_constraints = ON");
      s.execute("DROP TRIGGER model_step_runs_transition");
      s.execute("DROP TRIGGER model_step_runs_end_needs_settlement");
      // The approval's deciding columns must name a recorded approve (V8): a forger drops it too.
      s.execute("DROP TRIGGER plugin_package_approvals_approved_by_enough");
      s.executeUpdate(
          "UPDATE plugin_package_management_quota_buckets SET consumed_count = consumed_count + 1"
              + " WHERE rowid = (SELECT min(rowid) FROM plugin_package_management_quota_buckets)");
      s.executeUpdate(
          "DELETE FROM model_invocation_settlements"
              + " WHERE rowid = (SELECT min(rowid) FROM model_invocation_settlements)");
      s.executeUpdate(
          "UPDATE model_step_runs SET state = 'running', invocation_id = 'forged'"
              + " WHERE rowid = (SELECT min(rowid) FROM model_step_runs WHERE state = 'ready')");
      s.executeUpdate(
          "UPDATE plugin_package_approvals SET decided_by = proposed_by WHERE approval_id ="
              + " (SELECT min(approval_id) FROM plugin_package_proposals WHERE state = 'published')");
      s.execute("DROP TRIGGER plugin_package_approval_decisions_no_delete");
      s.executeUpdate(
          "DELETE FROM plugin_package_approval_decisions WHERE approval_id ="
              + " (SELECT min(approval_id) FROM plugin_package_proposals WHERE state = 'published')");
    }
    List<MixedTraffic.Sent> forged = new ArrayList<>(sent);
    forged.add(new MixedTraffic.Sent("admit", "v-forged", "alice", 0, 1, 201, ""));
    forged.add(
        new MixedTraffic.Sent(
            "inspect", "i-forged", "bob", System.currentTimeMillis(), 1, 200, ""));
    Invariants inv =
        new Invariants(Invariants.Dialect.SQLITE, LIMITS, Duration.ofMinutes(5).toMillis());
    try (Connection c = open(file)) {
      inv.checkStore(c, forged);
    }
    Path torn = copy.resolve("artifacts").resolve("sha256").resolve("00");
    Files.createDirectories(torn);
    Files.write(torn.resolve("00".repeat(32)), new byte[] {1, 2, 3});
    inv.checkArtifactFiles(copy);

    Map<String, Integer> violations = new LinkedHashMap<>();
    inv.checks().forEach(ch -> violations.put(ch.name(), ch.violations().size()));
    assertThat(violations)
        .as(inv.report())
        .hasEntrySatisfying(
            "management-quota: bucket count = number of receipts", n -> assertThat(n).isOne())
        .hasEntrySatisfying(
            "management-quota: every id answered 2xx counted exactly once",
            n -> assertThat(n).isOne())
        .hasEntrySatisfying(
            "model-quota: each running StepRun has exactly one reservation",
            n -> assertThat(n).isOne())
        .hasEntrySatisfying(
            "model-quota: no settlement without completion (and the reverse)",
            n -> assertThat(n).isGreaterThanOrEqualTo(2))
        .hasEntrySatisfying(
            "model-quota: ledger and settlements equal the window aggregates, within budget",
            n -> assertThat(n).isPositive())
        .hasEntrySatisfying(
            "model-quota: every admission/completion answered 2xx stored exactly once",
            n -> assertThat(n).isOne())
        .hasEntrySatisfying(
            "governance: published only after a four-eyes approve", n -> assertThat(n).isOne())
        .hasEntrySatisfying(
            "governance: an approved approval has its required distinct approves, never the"
                + " proposer's",
            n -> assertThat(n).isOne())
        .hasEntrySatisfying(
            "artifacts: every stored file is whole (hashes to its name)",
            n -> assertThat(n).isOne());
  }

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
