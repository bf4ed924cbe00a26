package dev.qinglong.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.core.modelquota.AdmissionOutcome;
import dev.qinglong.core.modelquota.AdmissionRequest;
import dev.qinglong.core.modelquota.CompletionOutcome;
import dev.qinglong.core.modelquota.CompletionRequest;
import dev.qinglong.core.modelquota.InvocationOutcome;
import dev.qinglong.core.modelquota.ModelQuotaStore;
import dev.qinglong.core.modelquota.QuotaWindow;
import dev.qinglong.core.modelquota.TokenUsage;
import dev.qinglong.jdbc.JdbcModelQuotaStore;
import dev.qinglong.testkit.QuotaWindows;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The model lifecycle on PostgreSQL in statements: StepRun creation one statement, admission and
 * completion one read and one {@code CALL} each, the window usage one read; every one of them in
 * auto-commit (so no transaction, and no advisory lock, spans a client round trip) and no explicit
 * commit. And the procedures write only while what the decision read still stands: a settlement
 * committed between an admission's read and its {@code CALL} makes the {@code CALL} answer stale,
 * and the store reads and decides again.
 */
class PostgresModelLifecycleRoundTripIntegrationTest {
  private static PostgresFixture fixture;
  private static ModelQuotaStore setup;

  @BeforeAll
  static void start() {
    fixture = new PostgresFixture("lifecycleroundtrips", true);
    setup = fixture.modelQuotaStore(fixture.newRuntimeDataSource());
  }

  @AfterAll
  static void stop() {
    fixture.close();
  }

  /** One executed statement: its SQL and whether the connection was in auto-commit. */
  record Executed(String sql, boolean autoCommit) {}

  /** Records every statement execution and every commit of the connections it hands out. */
  static final class Recording implements DataSource {
    final DataSource delegate;
    final List<Executed> executed = new ArrayList<>();
    int commits;

    /** Runs once, just before the first execution of a statement that starts with this text. */
    final AtomicReference<String> hookOn = new AtomicReference<>();

    Runnable hook = () -> {};

    Recording(DataSource delegate) {
      this.delegate = delegate;
    }

    void reset() {
      executed.clear();
      commits = 0;
    }

    List<String> sqlHeads() {
      return executed.stream()
          .map(e -> e.sql().stripLeading().split("\\s+")[0] + (e.autoCommit() ? "" : " (tx)"))
          .toList();
    }

    @Override
    public Connection getConnection() throws SQLException {
      Connection c = delegate.getConnection();
      return (Connection)
          Proxy.newProxyInstance(
              getClass().getClassLoader(),
              new Class<?>[] {Connection.class},
              (p, m, a) -> {
                if (m.getName().equals("commit")) {
                  commits++;
                }
                Object result = invoke(c, m, a);
                if (m.getName().equals("prepareStatement")
                    && result instanceof PreparedStatement ps) {
                  String sql = (String) a[0];
                  return Proxy.newProxyInstance(
                      getClass().getClassLoader(),
                      new Class<?>[] {PreparedStatement.class},
                      (p2, m2, a2) -> {
                        if (m2.getName().startsWith("execute")) {
                          String on = hookOn.get();
                          if (on != null
                              && sql.stripLeading().startsWith(on)
                              && hookOn.compareAndSet(on, null)) {
                            hook.run();
                          }
                          executed.add(new Executed(sql, c.getAutoCommit()));
                        }
                        return invoke(ps, m2, a2);
                      });
                }
                return result;
              });
    }

    private static Object invoke(Object target, java.lang.reflect.Method m, Object[] a)
        throws Throwable {
      try {
        return m.invoke(target, a);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
      throw new UnsupportedOperationException();
    }

    @Override
    public PrintWriter getLogWriter() {
      return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
      return 0;
    }

    @Override
    public Logger getParentLogger() {
      return Logger.getGlobal();
    }

    @Override
    public <T> T unwrap(Class<T> iface) {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
      return false;
    }
  }

  private static Recording recording() {
    return new Recording(fixture.newRuntimeDataSource());
  }

  private static void policies(String project) {
    setup.putModelPolicy(project, "m1", 100, null);
    QuotaWindows.awaitRoom(QuotaWindow.ONE_HOUR, fixture::databaseNowMs);
    setup.putProjectQuota(project, QuotaWindow.ONE_HOUR, 10, 10_000, null);
  }

  @Test
  void aLifecycleIsSixAutoCommitStatementsAndNoCommit() {
    policies("p1");
    Recording r = recording();
    ModelQuotaStore store = new JdbcModelQuotaStore(r, PostgresDialect.INSTANCE);

    assertThat(store.createStepRun("p1", "s1", "r1", "m1").created()).isTrue();
    assertThat(r.sqlHeads()).containsExactly("INSERT");
    r.reset();

    assertThat(store.admit(new AdmissionRequest("p1", "i1", "s1")))
        .isInstanceOf(AdmissionOutcome.Admitted.class);
    assertThat(r.sqlHeads()).containsExactly("SELECT", "CALL");
    r.reset();

    assertThat(
            store.complete(
                new CompletionRequest(
                    "p1", "i1", InvocationOutcome.SUCCEEDED, new TokenUsage(1, 2, 3), null)))
        .isInstanceOf(CompletionOutcome.Completed.class);
    assertThat(r.sqlHeads()).containsExactly("SELECT", "CALL");
    r.reset();

    assertThat(store.currentWindowUsage("p1").usage().invocations()).isEqualTo(1);
    assertThat(r.sqlHeads()).containsExactly("SELECT");
    assertThat(r.commits).isZero();
  }

  @Test
  void aSettlementBetweenTheReadAndTheCallMakesTheAdmissionDecideAgain() {
    policies("p2");
    setup.createStepRun("p2", "s1", "r1", "m1");
    setup.createStepRun("p2", "s2", "r1", "m1");
    AdmissionOutcome first = setup.admit(new AdmissionRequest("p2", "i1", "s1"));
    assertThat(first).isInstanceOf(AdmissionOutcome.Admitted.class);

    Recording r = recording();
    ModelQuotaStore store = new JdbcModelQuotaStore(r, PostgresDialect.INSTANCE);
    // Between the admission's read and its CALL, another store settles i1: the window's
    // reservation head is unchanged (no unique key would notice), only its settlement head moved.
    r.hook =
        () ->
            assertThat(
                    setup.complete(
                        new CompletionRequest(
                            "p2",
                            "i1",
                            InvocationOutcome.SUCCEEDED,
                            new TokenUsage(1, 2, 3),
                            null)))
                .isInstanceOf(CompletionOutcome.Completed.class);
    r.hookOn.set("CALL model_lifecycle_admit");

    AdmissionOutcome second = store.admit(new AdmissionRequest("p2", "i2", "s2"));

    assertThat(second).isInstanceOf(AdmissionOutcome.Admitted.class);
    assertThat(((AdmissionOutcome.Admitted) second).reservation().windowSeq()).isEqualTo(2);
    assertThat(r.sqlHeads()).containsExactly("SELECT", "CALL", "SELECT", "CALL");
    assertThat(setup.currentWindowUsage("p2").usage().invocations()).isEqualTo(2);
  }

  @Test
  void afterEightStaleRoundsTheNinthReadAndCallAdmitWithoutATransaction() {
    policies("p3");
    setup.createStepRun("p3", "main", "r1", "m1");
    for (int k = 1; k <= 8; k++) {
      setup.createStepRun("p3", "s" + k, "r1", "m1");
    }
    Recording r = recording();
    ModelQuotaStore store = new JdbcModelQuotaStore(r, PostgresDialect.INSTANCE);
    // Before each of the store's CALLs another store admits one more invocation in the window, so
    // every optimistic round finds the reservation head moved.
    int[] others = {0};
    r.hook =
        () -> {
          others[0]++;
          assertThat(setup.admit(new AdmissionRequest("p3", "other" + others[0], "s" + others[0])))
              .isInstanceOf(AdmissionOutcome.Admitted.class);
          if (others[0] < 8) {
            r.hookOn.set("CALL model_lifecycle_admit");
          }
        };
    r.hookOn.set("CALL model_lifecycle_admit");

    AdmissionOutcome outcome = store.admit(new AdmissionRequest("p3", "main-inv", "main"));

    assertThat(outcome).isInstanceOf(AdmissionOutcome.Admitted.class);
    assertThat(((AdmissionOutcome.Admitted) outcome).reservation().windowSeq()).isEqualTo(9);
    // There is no other path: each stale round is read and decided again, and the ninth writes.
    List<String> heads = r.sqlHeads();
    assertThat(heads).hasSize(18);
    for (int round = 0; round < 9; round++) {
      assertThat(heads.subList(2 * round, 2 * round + 2)).containsExactly("SELECT", "CALL");
    }
    assertThat(r.commits).isZero();
    assertThat(setup.currentWindowUsage("p3").usage().invocations()).isEqualTo(9);
  }
}
