package dev.qinglong.testkit;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

/**
 * Simulates a response lost after commit: the next statement is executed to completion (its rows
 * drained, so an autocommit statement commits), then the caller sees a connection failure instead
 * of the result. Later statements behave normally.
 *
 * <p>{@link #atCommit} instead loses the response of the next commit: the next {@link
 * Connection#commit()}, or the next writing statement ({@code INSERT}, {@code UPDATE}, {@code
 * DELETE}, {@code CALL}) executed in auto-commit, which commits as it completes. The transaction is
 * committed, then the caller sees a connection failure (a COMMIT, or an auto-commit write, that
 * reached the database but whose answer did not come back).
 */
public final class LosingDataSource extends InterceptingDataSource {
  private final boolean atCommit;
  private final AtomicBoolean armed = new AtomicBoolean(true);

  public LosingDataSource(DataSource delegate) {
    this(delegate, false);
  }

  private LosingDataSource(DataSource delegate, boolean atCommit) {
    super(delegate);
    this.atCommit = atCommit;
  }

  /** Loses the response of the next commit (the commit itself happens). */
  public static LosingDataSource atCommit(DataSource delegate) {
    return new LosingDataSource(delegate, true);
  }

  /** True once a response has been swallowed. */
  public boolean lostOne() {
    return !armed.get();
  }

  @Override
  protected Object aroundConnectionCall(Connection connection, Method method, Call call)
      throws Throwable {
    Object result = call.proceed();
    if (atCommit && method.getName().equals("commit") && armed.compareAndSet(true, false)) {
      throw new SQLException("simulated: connection lost after COMMIT", "08006");
    }
    return result;
  }

  @Override
  protected Object aroundExecute(Statement statement, String sql, Call call) throws Throwable {
    boolean autoCommitWrite =
        atCommit && sql != null && writes(sql) && statement.getConnection().getAutoCommit();
    Object result = call.proceed();
    if ((!atCommit || autoCommitWrite) && armed.compareAndSet(true, false)) {
      runToCompletion(statement, result);
      throw new SQLException(
          atCommit
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
}
