package dev.qinglong.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.modelquota.AdmissionOutcome;
import dev.qinglong.core.modelquota.AdmissionRequest;
import dev.qinglong.core.modelquota.CompletionOutcome;
import dev.qinglong.core.modelquota.CompletionRequest;
import dev.qinglong.core.modelquota.InvocationOutcome;
import dev.qinglong.core.modelquota.ModelQuotaStore;
import dev.qinglong.core.modelquota.QuotaWindow;
import dev.qinglong.core.modelquota.TokenUsage;
import dev.qinglong.jdbc.JdbcTransactions;
import dev.qinglong.testkit.QuotaWindows;
import dev.qinglong.testkit.Races;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Batches of the model lifecycle on PostgreSQL (docs/model-quota.md#batches): admissions and
 * completions of one Project that queue behind a running one are served in one transaction, each
 * answered exactly as alone; a fault of one of them fails only that one. Real threads and a real
 * database. The batch is made deterministic: a trigger holds the leader's reservation insert on an
 * advisory lock the test holds, until every other caller waits in the Project's queue.
 */
class PostgresModelLifecycleBatchIntegrationTest {
  private static final long GATE_LOCK = 4242;

  private static PostgresFixture fixture;
  private static ModelQuotaStore setup;
  private static DataSource runtime;

  @BeforeAll
  static void start() {
    fixture = new PostgresFixture("lifecyclebatch", true);
    runtime = fixture.newRuntimeDataSource();
    setup = fixture.modelQuotaStore(runtime);
    // The gate (an invocation id ending in "-gate" waits for the test's lock) and the fault (one
    // ending in "-poison" cannot be reserved), both in the reservation insert of the procedure.
    fixture.ownerUpdate(
        """
        CREATE FUNCTION test_gate_and_poison() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.invocation_id LIKE '%-gate' THEN
            PERFORM pg_advisory_lock(%d);
            PERFORM pg_advisory_unlock(%d);
          ELSIF NEW.invocation_id LIKE '%-poison' THEN
            RAISE EXCEPTION 'test fault';
          END IF;
          RETURN NEW;
        END $$
        """
            .replace("%d", Long.toString(GATE_LOCK)));
    fixture.ownerUpdate(
        "CREATE TRIGGER test_gate_and_poison BEFORE INSERT ON model_invocation_reservations"
            + " FOR EACH ROW EXECUTE FUNCTION test_gate_and_poison()");
  }

  @AfterAll
  static void stop() {
    fixture.close();
  }

  private static PostgresModelLifecycle lifecycle() {
    return new PostgresModelLifecycle(
        new JdbcTransactions(runtime, PostgresDialect.INSTANCE), PostgresDialect.INSTANCE);
  }

  private static void policies(String project) {
    setup.putModelPolicy(project, "m1", 100, null);
    // Each test numbers one window's chain: it must not run across the hour.
    QuotaWindows.awaitRoom(QuotaWindow.ONE_HOUR, fixture::databaseNowMs);
    setup.putProjectQuota(project, QuotaWindow.ONE_HOUR, 1000, 1_000_000, null);
  }

  private static CompletionRequest succeeded(String project, String invocation) {
    return new CompletionRequest(
        project, invocation, InvocationOutcome.SUCCEEDED, new TokenUsage(1, 2, 3), null);
  }

  @Test
  void admissionsAndCompletionsQueuedBehindARunningOneAreCommittedInOneBatch() throws Exception {
    String p = "batch-ok";
    policies(p);
    PostgresModelLifecycle lifecycle = lifecycle();
    List<String> done = List.of("d1", "d2", "d3");
    for (String s : done) {
      setup.createStepRun(p, s, "r1", "m1");
      assertThat(lifecycle.admit(new AdmissionRequest(p, s + "-inv", s)))
          .isInstanceOf(AdmissionOutcome.Admitted.class);
    }
    List<Callable<Object>> batch = new ArrayList<>();
    for (int k = 1; k <= 6; k++) {
      String s = "a" + k;
      setup.createStepRun(p, s, "r1", "m1");
      batch.add(() -> lifecycle.admit(new AdmissionRequest(p, s + "-inv", s)));
    }
    for (String s : done) {
      batch.add(() -> lifecycle.complete(succeeded(p, s + "-inv")));
    }

    List<Object> outcomes = behindAGatedLeader(lifecycle, p, batch);

    assertThat(outcomes.subList(0, 6)).allMatch(o -> o instanceof AdmissionOutcome.Admitted);
    assertThat(outcomes.subList(6, 9)).allMatch(o -> o instanceof CompletionOutcome.Completed);
    assertThat(lifecycle.batchedOperations()).isEqualTo(9);
    assertThat(lifecycle.fallbacks()).isZero();
    // One chain, as if decided one by one: 3 + the leader + 6 reservations, numbered 1..10.
    assertThat(windowSeqs(p)).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
    assertThat(setup.currentWindowUsage(p).usage().invocations()).isEqualTo(10);
    assertThat(count("model_invocation_settlements", p)).isEqualTo(3);
    assertThat(count("model_usage_ledger", p)).isEqualTo(3);
  }

  @Test
  void oneFaultyRequestInABatchFailsOnlyThatRequest() throws Exception {
    String p = "batch-fault";
    policies(p);
    PostgresModelLifecycle lifecycle = lifecycle();
    setup.createStepRun(p, "d1", "r1", "m1");
    assertThat(lifecycle.admit(new AdmissionRequest(p, "d1-inv", "d1")))
        .isInstanceOf(AdmissionOutcome.Admitted.class);
    List<Callable<Object>> batch = new ArrayList<>();
    for (String s : List.of("a1", "a2", "x1", "a3", "a4")) {
      setup.createStepRun(p, s, "r1", "m1");
      String invocation = s.startsWith("x") ? s + "-poison" : s + "-inv";
      batch.add(() -> lifecycle.admit(new AdmissionRequest(p, invocation, s)));
    }
    batch.add(() -> lifecycle.complete(succeeded(p, "d1-inv")));

    List<Object> outcomes = behindAGatedLeader(lifecycle, p, batch);

    assertThat(outcomes.get(2)).isInstanceOf(StoreUnavailableException.class);
    for (int i : new int[] {0, 1, 3, 4}) {
      assertThat(outcomes.get(i)).isInstanceOf(AdmissionOutcome.Admitted.class);
    }
    assertThat(outcomes.get(5)).isInstanceOf(CompletionOutcome.Completed.class);
    assertThat(lifecycle.fallbacks()).isEqualTo(1);
    assertThat(lifecycle.batchedOperations()).isZero();
    // d1, the leader and the four good admissions; nothing of the poisoned one.
    assertThat(windowSeqs(p)).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
    assertThat(count("model_invocation_reservations", p, "x1-poison")).isZero();
    assertThat(count("model_invocation_settlements", p)).isEqualTo(1);
  }

  @Test
  void twoInstancesBatchingOneProjectAdmitExactlyItsLimitAndSettleEachOnce() throws Exception {
    String p = "batch-race";
    setup.putModelPolicy(p, "m1", 100, null);
    QuotaWindows.awaitRoom(QuotaWindow.ONE_HOUR, fixture::databaseNowMs);
    setup.putProjectQuota(p, QuotaWindow.ONE_HOUR, 10, 1_000_000, null);
    // Two instances with pools of their own, as two replicas.
    List<PostgresModelLifecycle> instances =
        List.of(
            new PostgresModelLifecycle(
                new JdbcTransactions(fixture.newRuntimeDataSource(), PostgresDialect.INSTANCE),
                PostgresDialect.INSTANCE),
            new PostgresModelLifecycle(
                new JdbcTransactions(fixture.newRuntimeDataSource(), PostgresDialect.INSTANCE),
                PostgresDialect.INSTANCE));
    int calls = 40;
    List<Callable<Object>> admissions = new ArrayList<>();
    for (int k = 0; k < calls; k++) {
      String s = "r" + k;
      setup.createStepRun(p, s, "r1", "m1");
      PostgresModelLifecycle instance = instances.get(k % 2);
      admissions.add(() -> instance.admit(new AdmissionRequest(p, s + "-inv", s)));
    }
    List<Object> admitted = Races.race(admissions);
    List<String> winners = new ArrayList<>();
    for (int k = 0; k < calls; k++) {
      if (admitted.get(k) instanceof AdmissionOutcome.Admitted) {
        winners.add("r" + k + "-inv");
      } else {
        assertThat(admitted.get(k)).isInstanceOf(AdmissionOutcome.Refused.class);
      }
    }
    assertThat(winners).hasSize(10);
    assertThat(windowSeqs(p)).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);

    // Each winner completed twice, once on each instance: one settles, the other finds it.
    List<Callable<Object>> completions = new ArrayList<>();
    for (String invocation : winners) {
      for (PostgresModelLifecycle instance : instances) {
        completions.add(() -> instance.complete(succeeded(p, invocation)));
      }
    }
    List<Object> completed = Races.race(completions);
    assertThat(completed.stream().filter(o -> o instanceof CompletionOutcome.Completed))
        .hasSize(10);
    assertThat(completed.stream().filter(o -> o instanceof CompletionOutcome.Existing)).hasSize(10);
    assertThat(count("model_invocation_settlements", p)).isEqualTo(10);
    assertThat(count("model_usage_ledger", p)).isEqualTo(10);
    assertThat(setup.currentWindowUsage(p).usage().invocations()).isEqualTo(10);
  }

  /**
   * Runs a leader admission (its insert held at the gate) and then {@code batch}, each on a thread
   * of its own and each queued behind the leader before the next starts; opens the gate and returns
   * each call's outcome or what it threw, in order.
   */
  private static List<Object> behindAGatedLeader(
      PostgresModelLifecycle lifecycle, String project, List<Callable<Object>> batch)
      throws Exception {
    setup.createStepRun(project, "leader", "r1", "m1");
    ExecutorService threads = Executors.newCachedThreadPool();
    try (Connection gate = runtime.getConnection()) {
      lock(gate, "SELECT pg_advisory_lock(" + GATE_LOCK + ")");
      Future<Object> leader =
          threads.submit(
              () -> lifecycle.admit(new AdmissionRequest(project, "leader-gate", "leader")));
      await().atMost(Duration.ofSeconds(30)).until(() -> waitingAtGate(gate));
      List<Future<Object>> calls = new ArrayList<>();
      for (Callable<Object> call : batch) {
        int before = lifecycle.queued(project);
        calls.add(threads.submit(call));
        await().atMost(Duration.ofSeconds(30)).until(() -> lifecycle.queued(project) > before);
      }
      lock(gate, "SELECT pg_advisory_unlock(" + GATE_LOCK + ")");
      assertThat(leader.get(1, TimeUnit.MINUTES)).isInstanceOf(AdmissionOutcome.Admitted.class);
      List<Object> outcomes = new ArrayList<>();
      for (Future<Object> f : calls) {
        try {
          outcomes.add(f.get(1, TimeUnit.MINUTES));
        } catch (ExecutionException e) {
          outcomes.add(e.getCause());
        }
      }
      return outcomes;
    } finally {
      threads.shutdownNow();
    }
  }

  private static void lock(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static boolean waitingAtGate(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                    + " AND objid = "
                    + GATE_LOCK)) {
      rs.next();
      return rs.getLong(1) == 1;
    }
  }

  private static List<Long> windowSeqs(String project) throws SQLException {
    List<Long> seqs = new ArrayList<>();
    try (Connection c = runtime.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT window_seq FROM model_invocation_reservations WHERE project_id = ?"
                    + " ORDER BY window_seq")) {
      ps.setString(1, project);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          seqs.add(rs.getLong(1));
        }
      }
    }
    return seqs;
  }

  private static long count(String table, String project) throws SQLException {
    return count(table, project, null);
  }

  private static long count(String table, String project, String invocation) throws SQLException {
    try (Connection c = runtime.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(*) FROM "
                    + table
                    + " WHERE project_id = ? AND (CAST(? AS text) IS NULL OR invocation_id = ?)")) {
      ps.setString(1, project);
      ps.setString(2, invocation);
      ps.setString(3, invocation);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
