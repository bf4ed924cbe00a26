package dev.qinglong.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.core.governance.Approval;
import dev.qinglong.core.governance.GovernanceStore;
import dev.qinglong.core.governance.PluginPackageAction;
import dev.qinglong.core.governance.Proposal;
import dev.qinglong.core.governance.ProposalState;
import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.modelquota.AdmissionOutcome;
import dev.qinglong.core.modelquota.AdmissionRequest;
import dev.qinglong.core.modelquota.ModelQuotaStore;
import dev.qinglong.core.modelquota.QuotaWindow;
import dev.qinglong.core.modelquota.StepRunState;
import dev.qinglong.testkit.InterceptingDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * SQLite transactions ({@code BEGIN IMMEDIATE}) roll back whole: a failure injected at every
 * statement of a model admission and of a governance propose, in turn, leaves every table as it
 * was; with no failure the same call writes everything.
 */
class SqliteRollbackIntegrationTest {
  private static final String DIGEST = "sha256:" + "1".repeat(64);
  private static final List<String> TABLES =
      List.of(
          "plugin_package_proposals",
          "plugin_package_approvals",
          "plugin_package_management_quota_buckets",
          "model_step_runs",
          "model_invocation_reservations",
          "model_invocation_starts",
          "model_invocation_completions",
          "model_usage_ledger",
          "model_invocation_settlements");

  private SqliteFixture fixture;
  private DataSource pool;

  @BeforeEach
  void setUp() {
    fixture = new SqliteFixture(true);
    pool = fixture.newDataSource();
  }

  @AfterEach
  void tearDown() {
    fixture.close();
  }

  @Test
  void modelAdmissionFailingAtAnyStatementWritesNothing() {
    ModelQuotaStore good = fixture.modelQuotaStore(pool);
    good.putModelPolicy("prj", "m1", 100, 1L);
    good.putProjectQuota("prj", QuotaWindow.ONE_HOUR, 10, 100_000, 1_000L);
    good.createStepRun("prj", "s1", "r1", "m1");
    AdmissionRequest request = new AdmissionRequest("prj", "inv1", "s1");

    int failures =
        sweep(
            failing -> fixture.modelQuotaStore(failing).admit(request),
            () ->
                assertThat(good.stepRun("prj", "s1").orElseThrow().state())
                    .isEqualTo(StepRunState.READY));
    assertThat(failures).as("statements of one admission").isGreaterThanOrEqualTo(3);
    assertThat(good.stepRun("prj", "s1").orElseThrow().state()).isEqualTo(StepRunState.RUNNING);
    assertThat(good.admit(request)).isInstanceOf(AdmissionOutcome.Existing.class);
  }

  @Test
  void governanceProposeFailingAtAnyStatementWritesNothing() {
    PluginPackageAction action = PluginPackageAction.of("install", "acme-lint", "1.0.0", DIGEST);
    Proposal p =
        new Proposal(
            "prp-1",
            "apr-1",
            "prj",
            "ref-1",
            action,
            action.digest(),
            "alice",
            ProposalState.PENDING,
            1_700_000_000_123L,
            1_700_000_000_123L);
    Approval a =
        new Approval(
            "apr-1",
            "prp-1",
            "prj",
            p.actionDigest(),
            "alice",
            ProposalState.PENDING,
            null,
            null,
            null,
            null,
            p.createdAtMs(),
            1,
            java.util.List.of());
    GovernanceStore good = fixture.governanceStore(pool);

    int failures =
        sweep(
            failing -> fixture.governanceStore(failing).createIfAbsent(p, a),
            () -> assertThat(good.findProposal("prj", "prp-1")).isEmpty());
    assertThat(failures).as("statements of one propose").isGreaterThanOrEqualTo(2);
    assertThat(good.findProposal("prj", "prp-1")).isPresent();
    assertThat(good.findApproval("prj", "apr-1")).isPresent();
  }

  /**
   * Runs {@code call} with a failure injected at statement 1, 2, … until a run completes without
   * reaching the injection point; after each failed run every table must be as before.
   *
   * @return how many runs failed
   */
  private int sweep(java.util.function.Consumer<DataSource> call, Runnable stillUntouched) {
    List<Long> before = counts();
    for (int failAt = 1; failAt < 100; failAt++) {
      FailingDataSource failing = new FailingDataSource(pool, failAt);
      try {
        call.accept(failing);
      } catch (StoreUnavailableException e) {
        assertThat(failing.fired()).as("failed only by injection at %d", failAt).isTrue();
        assertThat(counts()).as("rows after a failure at statement %d", failAt).isEqualTo(before);
        stillUntouched.run();
        continue;
      }
      assertThat(failing.fired()).as("completed although statement %d failed", failAt).isFalse();
      assertThat(counts()).as("rows after the complete run").isNotEqualTo(before);
      return failAt - 1;
    }
    throw new AssertionError("never completed");
  }

  private List<Long> counts() {
    List<Long> out = new ArrayList<>();
    try (Connection c = pool.getConnection();
        Statement st = c.createStatement()) {
      for (String table : TABLES) {
        try (ResultSet rs = st.executeQuery("SELECT count(*) FROM " + table)) {
          rs.next();
          out.add(rs.getLong(1));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  /** Fails the {@code failAt}-th statement execution (counted over every connection it gives). */
  private static final class FailingDataSource extends InterceptingDataSource {
    private final int failAt;
    private final AtomicInteger executions = new AtomicInteger();

    FailingDataSource(DataSource delegate, int failAt) {
      super(delegate);
      this.failAt = failAt;
    }

    boolean fired() {
      return executions.get() >= failAt;
    }

    @Override
    protected Object aroundExecute(Statement statement, String sql, Call call) throws Throwable {
      if (executions.incrementAndGet() == failAt) {
        throw new SQLException("injected failure at statement " + failAt, "08006");
      }
      return call.proceed();
    }
  }
}
