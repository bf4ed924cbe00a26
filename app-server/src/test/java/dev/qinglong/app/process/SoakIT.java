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
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The soak (docs/reliability.md): N app processes (role {@code all}, default 3) on one PostgreSQL
 * database and one storage root take mixed traffic — upload, propose, decide, inspect, StepRun,
 * admit, complete, download — from clients that replay every unanswered request with its id, while
 * a chaos thread SIGKILLs a random process (now and then two at once) every few seconds and
 * restarts it. At the end every invariant is checked in SQL ({@link Invariants}) and the figures
 * are written to {@code target/reliability/soak.{json,md}}; the test fails on any violation.
 *
 * <p>{@code .ci/run} runs it for 60 s. The long soak: {@code ./mvnw -B -pl app-server -am verify
 * -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=SoakIT -Dqinglong.soak.seconds=900}
 * (also {@code -Dqinglong.soak.instances}, {@code -Dqinglong.soak.clients}, {@code
 * -Dqinglong.soak.seed}).
 */
class SoakIT {
  static final Duration START = Duration.ofSeconds(120);
  static final long WINDOW_MS = Duration.ofMinutes(5).toMillis();
  static final Map<String, Integer> LIMITS =
      Map.of(
          "plugin-package.propose", 1000,
          "plugin-package.decide", 1000,
          "plugin-package.inspect", 250,
          "artifact.upload", 1000);

  @TempDir Path dataDir;

  private volatile boolean running;

  @Test
  void mixedTrafficWithRandomSigkillsKeepsEveryInvariant() throws Exception {
    int seconds = Integer.getInteger("qinglong.soak.seconds", 60);
    int instances = Integer.getInteger("qinglong.soak.instances", 3);
    int clients = Integer.getInteger("qinglong.soak.clients", 6);
    long seed = Long.getLong("qinglong.soak.seed", 20261201L);
    TestDatabase db = PostgresTestServer.get().createDatabase("soak");
    try (Fleet fleet = new Fleet(Path.of("target", "process-logs", "soak"));
        HikariDataSource owner = db.newDataSource(2)) {
      List<Slot> slots = new ArrayList<>();
      for (int i = 0; i < instances; i++) {
        slots.add(fleet.add("soak" + i, props(db), true, true));
      }
      fleet.startAll(START);
      MixedTraffic traffic =
          new MixedTraffic(fleet, dataDir, Duration.ofSeconds(120), seed, 64 * 1024);
      traffic.setUp("1m", 40, 3000, 100);

      Random chaos = new Random(seed);
      List<Integer> inFlightAtKill = new ArrayList<>();
      AtomicInteger doubleKills = new AtomicInteger();
      long started = System.nanoTime();
      long end = started + Duration.ofSeconds(seconds).toNanos();
      running = true;
      Thread clientThreads =
          new Thread(
              () -> {
                try {
                  traffic.run(clients, () -> running);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      clientThreads.start();
      while (System.nanoTime() < end) {
        Thread.sleep(4000 + chaos.nextInt(6000));
        if (System.nanoTime() >= end) {
          break;
        }
        List<Slot> victims = new ArrayList<>();
        victims.add(slots.get(chaos.nextInt(slots.size())));
        if (slots.size() > 1 && chaos.nextInt(4) == 0) {
          Slot other = slots.get(chaos.nextInt(slots.size()));
          if (other != victims.get(0)) {
            victims.add(other);
            doubleKills.incrementAndGet();
          }
        }
        inFlightAtKill.add(CrashRecoveryIT.killWhenBusy(fleet, traffic, victims));
        Thread.sleep(500 + chaos.nextInt(1500));
        fleet.restartAll(victims, START);
      }
      // The assertions below need every kind of the mix to have succeeded once: the traffic goes on
      // until it has (waited on, not assumed of the time the run was given).
      await().atMost(Duration.ofMinutes(5)).until(traffic::everyKindSucceeded);
      running = false;
      clientThreads.join();
      long ran = (System.nanoTime() - started) / 1_000_000_000L;

      Invariants inv = new Invariants(Invariants.Dialect.POSTGRES, LIMITS, WINDOW_MS);
      try (Connection c = owner.getConnection()) {
        CrashRecoveryIT.awaitPublication(c, dataDir, inv, "qinglong.plugin_package_proposals");
        inv.checkStore(c, List.copyOf(traffic.sent));
        inv.checkPublishedDownloads(c, dataDir, d -> CrashRecoveryIT.verify(traffic, d));
      }
      long temps = inv.checkArtifactFiles(dataDir);
      Map<String, Object> faults = new LinkedHashMap<>();
      faults.put("instances", instances);
      faults.put("clients", clients);
      faults.put("seed", seed);
      faults.put("sigkill", fleet.kills.get());
      faults.put("killsOfTwoAtOnce", doubleKills.get());
      faults.put("requestsInFlightAtEachKill", inFlightAtKill);
      Map<String, Object> summary = RunSummary.of("soak", ran, traffic, fleet, faults, inv, temps);
      RunSummary.write(Path.of("target", "reliability"), "soak", summary);

      assertThat(inv.violationCount()).as(inv.report()).isZero();
      assertThat(traffic.violations).as("client-side violations").isEmpty();
      assertThat(fleet.kills.get()).as("the soak killed processes").isPositive();
      assertThat(traffic.requests()).isPositive();
      // A kind the mix skips (no proposal, nothing published yet) must not pass unnoticed: every
      // kind of the mix succeeded at least once.
      Map<String, Long> outcomes = traffic.outcomeCounts();
      for (String kind : MixedTraffic.EXPECTED.keySet()) {
        assertThat(outcomes.keySet())
            .as(kind + " never succeeded: " + outcomes)
            .anyMatch(k -> k.startsWith(kind + " 2"));
      }
    }
  }

  private Map<String, String> props(TestDatabase db) {
    Map<String, String> p = new HashMap<>();
    p.put("qinglong.store", "postgres");
    p.put("qinglong.postgres.url", db.jdbcUrl());
    p.put("qinglong.postgres.username", db.username());
    p.put("qinglong.postgres.password", db.password() == null ? "" : db.password());
    p.put("qinglong.postgres.bootstrap-roles", "true");
    p.put("qinglong.data-dir", dataDir.toString());
    p.put("qinglong.ai.enabled", "true");
    p.put("qinglong.management-quota.window", "5m");
    p.put("qinglong.management-quota.limits.propose", "1000");
    p.put("qinglong.management-quota.limits.decide", "1000");
    p.put("qinglong.management-quota.limits.inspect", "250");
    p.put("qinglong.management-quota.limits.artifact-upload", "1000");
    return p;
  }
}
