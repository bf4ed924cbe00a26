package dev.qinglong.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.modelquota.Admission;
import dev.qinglong.core.modelquota.ModelQuota;
import dev.qinglong.core.modelquota.QuotaWindow;
import dev.qinglong.core.modelquota.WindowRef;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectMember;
import dev.qinglong.core.policy.ProjectPolicy;
import dev.qinglong.core.quota.ManagementQuota;
import dev.qinglong.core.quota.ManagementQuotaPolicy;
import dev.qinglong.core.quota.QuotaDecisionListener;
import dev.qinglong.testkit.QuotaWindows;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Model admission really takes the window's advisory lock on PostgreSQL
 * (docs/design.md#atomic-admission-and-completion): with the lock held from another session, an
 * admission of that window waits (seen in {@code pg_locks}) and goes through once the lock is
 * released.
 */
class PostgresAdvisoryLockIntegrationTest {
  private static final Principal ADMIN = new Principal("admin");
  private static final Principal ALICE = new Principal("alice");
  private static final long HOUR_MS = 3_600_000L;

  private PostgresFixture fixture;
  private DataSource manager;
  private DataSource runtime;

  @BeforeEach
  void setUp() {
    fixture = new PostgresFixture("advisorylock", true);
    manager = fixture.newDataSource();
    runtime = fixture.newRuntimeDataSource();
  }

  @AfterEach
  void tearDown() {
    fixture.close();
  }

  private ModelQuota service() {
    return new ModelQuota(
        new ProjectPolicy(fixture.policyStore(manager), Set.of("admin")),
        new ManagementQuota(
            fixture.quotaStore(manager),
            new ManagementQuotaPolicy(true, Duration.ofSeconds(60), Map.of()),
            QuotaDecisionListener.NONE),
        fixture.modelQuotaStore(runtime));
  }

  @Test
  void admissionWaitsForTheWindowLockHeldElsewhere() throws Exception {
    ModelQuota s = service();
    String project = "prj-advisory";
    fixture
        .policyStore(manager)
        .replaceMember(new ProjectMember(project, "alice", Set.of(Permission.MODEL_INVOKE)));
    s.putModelPolicy(ADMIN, project, "m1", 100, 1L);
    // The lock held below is this hour's window's: the admission must fall in the same hour.
    QuotaWindows.awaitRoom(QuotaWindow.ONE_HOUR, fixture::databaseNowMs);
    s.putProjectQuota(ADMIN, project, "1h", 10, 100_000, 1_000L);
    s.createStepRun(ALICE, project, "s1", "r1", "m1");
    long now = fixture.databaseNowMs();
    WindowRef window = new WindowRef(project, now - now % HOUR_MS, HOUR_MS);
    long key = AdvisoryLockKeys.window(window);

    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Connection holder = fixture.owner().getConnection()) {
      lock(holder, "SELECT pg_advisory_lock(?)", key);
      Future<Admission> admission = pool.submit(() -> s.admit(ALICE, project, "inv1", "s1"));
      // Waited on the admission's session queueing for the lock itself, not on a guessed time.
      await("the admission's session waits on the window lock")
          .atMost(Duration.ofMinutes(1))
          .until(() -> waitingForAdvisoryLock(holder) == 1);
      assertThat(admission).as("admission went through while its window lock was held").isNotDone();
      lock(holder, "SELECT pg_advisory_unlock(?)", key);
      Admission a = admission.get(10, TimeUnit.SECONDS);
      assertThat(a.created()).isTrue();
      assertThat(a.reservation().windowStartMs()).isEqualTo(window.windowStartMs());
    } finally {
      pool.shutdownNow();
    }
  }

  private static void lock(Connection c, String sql, long key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setLong(1, key);
      ps.executeQuery().close();
    }
  }

  private static long waitingForAdvisoryLock(Connection c) throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
                    + " WHERE l.locktype = 'advisory' AND NOT l.granted"
                    + " AND a.datname = current_database() AND a.usename = 'ql3_runtime'");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
