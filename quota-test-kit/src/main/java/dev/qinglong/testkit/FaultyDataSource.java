package dev.qinglong.testkit;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import javax.sql.DataSource;

/**
 * A data source whose faults a test switches on, over the delegate's connections:
 *
 * <ul>
 *   <li>it counts what a store asks of the database: {@link #connections()} taken and {@link
 *       #statements()} executed (every {@code execute…} call on a statement of those connections);
 *   <li>{@link #cut()} until {@link #restore()}: every connection attempt fails as an unreachable
 *       database or an exhausted pool would (SQLState 08001); {@link #unreachable()} is a database
 *       that is never anything else;
 *   <li>{@link #loseNextResponse()}: a response lost after commit. The next statement (or, with a
 *       predicate, the next prepared statement whose SQL matches) is executed to completion (its
 *       rows drained, so an autocommit statement commits), then the caller sees a connection
 *       failure (08006) instead of the result;
 *   <li>{@link #loseNextCommit()}: the response of the next commit is lost — the next {@link
 *       Connection#commit()}, or the next writing statement ({@code INSERT}, {@code UPDATE}, {@code
 *       DELETE}, {@code CALL}) executed in auto-commit, which commits as it completes. The
 *       transaction is committed, then the caller sees a connection failure.
 * </ul>
 *
 * Each loss is armed once; later statements behave normally. A test with a fault of its own shape
 * extends {@link InterceptingDataSource} instead.
 */
public final class FaultyDataSource extends InterceptingDataSource {
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger statements = new AtomicInteger();
  private final AtomicInteger lost = new AtomicInteger();
  private final AtomicReference<Loss> armed = new AtomicReference<>();
  private volatile boolean down;

  /** An armed loss: of a statement's answer (when {@code sql} matches), or of a commit's. */
  private record Loss(Predicate<String> sql, boolean atCommit) {}

  public FaultyDataSource(DataSource delegate) {
    super(delegate);
  }

  /** A database that cannot be reached: every connection attempt fails (08001). */
  public static FaultyDataSource unreachable() {
    FaultyDataSource none = new FaultyDataSource(nowhere());
    none.cut();
    return none;
  }

  /** {@code delegate}, with the next statement's response lost ({@link #loseNextResponse()}). */
  public static FaultyDataSource losingNextResponse(DataSource delegate) {
    FaultyDataSource losing = new FaultyDataSource(delegate);
    losing.loseNextResponse();
    return losing;
  }

  /** {@code delegate}, with the next commit's response lost ({@link #loseNextCommit()}). */
  public static FaultyDataSource losingNextCommit(DataSource delegate) {
    FaultyDataSource losing = new FaultyDataSource(delegate);
    losing.loseNextCommit();
    return losing;
  }

  /** The failure every connection attempt meets while cut (SQLState 08001). */
  public static SQLException failure() {
    return new SQLTransientConnectionException("simulated: database unreachable", "08001");
  }

  /** Connections asked for so far. */
  public int connections() {
    return connections.get();
  }

  /** Statements executed so far. */
  public int statements() {
    return statements.get();
  }

  /** Responses swallowed so far. */
  public int lostResponses() {
    return lost.get();
  }

  public void cut() {
    down = true;
  }

  public void restore() {
    down = false;
  }

  /** Loses the response of the next statement, whatever it is. */
  public void loseNextResponse() {
    armed.set(new Loss(sql -> true, false));
  }

  /** Loses the response of the next prepared statement whose SQL satisfies {@code sql}. */
  public void loseNextResponse(Predicate<String> sql) {
    armed.set(new Loss(text -> text != null && sql.test(text), false));
  }

  /** Loses the response of the next commit (the commit itself happens). */
  public void loseNextCommit() {
    armed.set(new Loss(null, true));
  }

  @Override
  protected void beforeConnection() throws SQLException {
    connections.incrementAndGet();
    if (down) {
      throw failure();
    }
  }

  @Override
  protected Object aroundConnectionCall(Connection connection, Method method, Call call)
      throws Throwable {
    Object result = call.proceed();
    Loss loss = armed.get();
    if (loss != null
        && loss.atCommit()
        && method.getName().equals("commit")
        && armed.compareAndSet(loss, null)) {
      lost.incrementAndGet();
      throw new SQLException("simulated: connection lost after COMMIT", "08006");
    }
    return result;
  }

  @Override
  protected Object aroundExecute(Statement statement, String sql, Call call) throws Throwable {
    statements.incrementAndGet();
    Loss loss = armed.get();
    boolean lose =
        loss != null
            && (loss.atCommit()
                ? sql != null && writes(sql) && statement.getConnection().getAutoCommit()
                : loss.sql().test(sql));
    Object result = call.proceed();
    if (lose && armed.compareAndSet(loss, null)) {
      runToCompletion(statement, result);
      lost.incrementAndGet();
      throw new SQLException(
          loss.atCommit()
              ? "simulated: connection lost after an auto-commit write"
              : "simulated: connection lost before the response",
          "08006");
    }
    return result;
  }

  /** Whether {@code sql} begins with a writing command. */
  private static boolean writes(String sql) {
    String head = sql.stripLeading().toUpperCase(Locale.ROOT);
    return head.startsWith("INSERT")
        || head.startsWith("UPDATE")
        || head.startsWith("DELETE")
        || head.startsWith("CALL");
  }

  /** A data source with no database behind it: only reached if a cut is lifted, and then fails. */
  private static DataSource nowhere() {
    return (DataSource)
        Proxy.newProxyInstance(
            FaultyDataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              Class<?> type = method.getReturnType();
              if (method.getName().equals("getConnection") || method.getName().equals("unwrap")) {
                throw failure();
              }
              return type == boolean.class ? Boolean.FALSE : type == int.class ? 0 : null;
            });
  }
}
