package dev.qinglong.testkit;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source that hands out the delegate's connections behind JDK proxies, so that a test can
 * count, fail or lose what a store asks of the database. Subclasses override the hooks they need
 * ({@link #beforeConnection}, {@link #afterConnection}, {@link #aroundConnectionCall}, {@link
 * #aroundExecute}); every other call passes through unchanged. Statements of every kind a
 * connection creates are wrapped, and a prepared statement's hook sees its SQL text. The usual
 * faults (counting, unreachable, a lost response or commit) are ready-made in {@link
 * FaultyDataSource}; a test extends this class only for a fault of its own shape.
 *
 * <p>Hand-written on purpose: the fault a test injects is one precise JDBC moment (after the
 * statement ran, before its answer; after COMMIT), which proxy libraries such as datasource-proxy
 * report but do not let a test replace with a failure.
 */
public abstract class InterceptingDataSource implements DataSource {
  private final DataSource delegate;

  protected InterceptingDataSource(DataSource delegate) {
    this.delegate = delegate;
  }

  /** The call being intercepted: {@link #proceed()} runs it on the real object. */
  @FunctionalInterface
  protected interface Call {
    Object proceed() throws Throwable;
  }

  /** Before a connection is taken from the delegate; throw to refuse it. */
  protected void beforeConnection() throws SQLException {}

  /**
   * The delegate's connection, just taken, before it is wrapped: the object {@link
   * #aroundConnectionCall} will be given for it.
   */
  protected void afterConnection(Connection connection) throws SQLException {}

  /**
   * Around every method of a connection (statements it returns are wrapped afterwards, whatever
   * this returns for them).
   */
  protected Object aroundConnectionCall(Connection connection, Method method, Call call)
      throws Throwable {
    return call.proceed();
  }

  /**
   * Around every {@code execute…} method of a statement.
   *
   * @param sql the SQL the statement was prepared with, or null for a plain {@link Statement}
   */
  protected Object aroundExecute(Statement statement, String sql, Call call) throws Throwable {
    return call.proceed();
  }

  /**
   * Runs the statement to completion, as a lost answer would leave it: its rows drained (SQLite
   * applies and commits an autocommit statement as it is stepped), then the statement closed.
   */
  protected static void runToCompletion(Statement statement, Object result) throws SQLException {
    if (result instanceof ResultSet rs) {
      while (rs.next()) {
        // Drain.
      }
      rs.close();
    }
    statement.close();
  }

  @Override
  public final Connection getConnection() throws SQLException {
    beforeConnection();
    return wrap(delegate.getConnection());
  }

  @Override
  public final Connection getConnection(String username, String password) throws SQLException {
    beforeConnection();
    return wrap(delegate.getConnection(username, password));
  }

  private Connection wrap(Connection connection) throws SQLException {
    afterConnection(connection);
    return proxy(
        Connection.class,
        (p, method, args) -> {
          Object result =
              aroundConnectionCall(connection, method, () -> invoke(connection, method, args));
          String sql =
              method.getName().startsWith("prepare") && args != null && args[0] instanceof String s
                  ? s
                  : null;
          if (result instanceof CallableStatement cs) {
            return wrapStatement(CallableStatement.class, cs, sql);
          }
          if (result instanceof PreparedStatement ps) {
            return wrapStatement(PreparedStatement.class, ps, sql);
          }
          if (result instanceof Statement st) {
            return wrapStatement(Statement.class, st, null);
          }
          return result;
        });
  }

  private <T extends Statement> T wrapStatement(Class<T> type, T statement, String sql) {
    return proxy(
        type,
        (p, method, args) ->
            method.getName().startsWith("execute")
                ? aroundExecute(statement, sql, () -> invoke(statement, method, args))
                : invoke(statement, method, args));
  }

  @SuppressWarnings("unchecked")
  private static <T> T proxy(Class<T> type, InvocationHandler handler) {
    return (T)
        Proxy.newProxyInstance(
            InterceptingDataSource.class.getClassLoader(), new Class<?>[] {type}, handler);
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
