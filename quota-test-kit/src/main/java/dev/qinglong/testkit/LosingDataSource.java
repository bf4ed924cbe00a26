package dev.qinglong.testkit;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;
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
public final class LosingDataSource implements DataSource {
  private final DataSource delegate;
  private final boolean atCommit;
  private final AtomicBoolean armed = new AtomicBoolean(true);

  public LosingDataSource(DataSource delegate) {
    this(delegate, false);
  }

  private LosingDataSource(DataSource delegate, boolean atCommit) {
    this.delegate = delegate;
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
  public Connection getConnection() throws SQLException {
    return wrap(delegate.getConnection());
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    return wrap(delegate.getConnection(username, password));
  }

  private Connection wrap(Connection connection) {
    return proxy(
        Connection.class,
        connection,
        (target, method, args) -> {
          Object result = invoke(target, method, args);
          if (atCommit && method.getName().equals("commit") && armed.compareAndSet(true, false)) {
            throw new SQLException("simulated: connection lost after COMMIT", "08006");
          }
          if (atCommit) {
            if (result instanceof PreparedStatement ps
                && method.getName().equals("prepareStatement")
                && writes((String) args[0])) {
              return wrapAutoCommitWrite(ps, (Connection) target);
            }
            return result;
          }
          if (result instanceof PreparedStatement ps) {
            return wrapStatement(PreparedStatement.class, ps);
          }
          if (result instanceof Statement st) {
            return wrapStatement(Statement.class, st);
          }
          return result;
        });
  }

  private <T extends Statement> T wrapStatement(Class<T> type, T statement) {
    return proxy(
        type,
        statement,
        (target, method, args) -> {
          String name = method.getName();
          boolean executes = name.startsWith("execute");
          Object result = invoke(target, method, args);
          if (executes && armed.compareAndSet(true, false)) {
            if (result instanceof ResultSet rs) {
              while (rs.next()) {
                // Drain: SQLite applies and commits an autocommit statement as it is stepped.
              }
              rs.close();
            }
            ((Statement) target).close();
            throw new SQLException("simulated: connection lost before the response", "08006");
          }
          return result;
        });
  }

  /** Whether {@code sql} begins with a writing command. */
  private static boolean writes(String sql) {
    String head = sql.stripLeading().toUpperCase(Locale.ROOT);
    return head.startsWith("INSERT")
        || head.startsWith("UPDATE")
        || head.startsWith("DELETE")
        || head.startsWith("CALL");
  }

  /** Loses the response of the statement's next execution if it runs in auto-commit. */
  private PreparedStatement wrapAutoCommitWrite(
      PreparedStatement statement, Connection connection) {
    return proxy(
        PreparedStatement.class,
        statement,
        (target, method, args) -> {
          boolean commits = method.getName().startsWith("execute") && connection.getAutoCommit();
          Object result = invoke(target, method, args);
          if (commits && armed.compareAndSet(true, false)) {
            if (result instanceof ResultSet rs) {
              while (rs.next()) {
                // Drain: the statement has run to its end and committed.
              }
              rs.close();
            }
            statement.close();
            throw new SQLException(
                "simulated: connection lost after an auto-commit write", "08006");
          }
          return result;
        });
  }

  private interface Handler {
    Object handle(Object target, Method method, Object[] args) throws Throwable;
  }

  @SuppressWarnings("unchecked")
  private static <T> T proxy(Class<T> type, T target, Handler handler) {
    InvocationHandler ih = (p, method, args) -> handler.handle(target, method, args);
    return (T)
        Proxy.newProxyInstance(LosingDataSource.class.getClassLoader(), new Class<?>[] {type}, ih);
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return delegate.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    delegate.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    delegate.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return delegate.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() {
    return Logger.getGlobal();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    return delegate.unwrap(iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) throws SQLException {
    return delegate.isWrapperFor(iface);
  }
}
