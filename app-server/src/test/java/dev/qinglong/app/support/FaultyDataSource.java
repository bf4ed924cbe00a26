package dev.qinglong.app.support;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source a test can cut off (every connection attempt fails, as an unreachable database or
 * an exhausted pool would) and that can lose the response of the next statement whose SQL matches a
 * predicate after executing it to completion (a response lost after commit).
 */
public final class FaultyDataSource implements DataSource {
  private final DataSource delegate;
  private volatile boolean down;
  private final AtomicReference<Predicate<String>> loseNext = new AtomicReference<>();
  private final AtomicInteger lost = new AtomicInteger();

  public FaultyDataSource(DataSource delegate) {
    this.delegate = delegate;
  }

  public void cut() {
    down = true;
  }

  public void restore() {
    down = false;
  }

  /** Loses the response of the next statement whose SQL satisfies {@code sql}. */
  public void loseNextResponse(Predicate<String> sql) {
    loseNext.set(sql);
  }

  public int lostResponses() {
    return lost.get();
  }

  @Override
  public Connection getConnection() throws SQLException {
    if (down) {
      throw new SQLTransientConnectionException("simulated: database unreachable", "08001");
    }
    return wrap(delegate.getConnection());
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    return getConnection();
  }

  private Connection wrap(Connection connection) {
    return (Connection)
        Proxy.newProxyInstance(
            getClass().getClassLoader(),
            new Class<?>[] {Connection.class},
            (p, method, args) -> {
              Object result = invoke(connection, method, args);
              if (result instanceof PreparedStatement ps
                  && method.getName().equals("prepareStatement")
                  && args != null
                  && args[0] instanceof String sql) {
                Predicate<String> predicate = loseNext.get();
                if (predicate != null && predicate.test(sql)) {
                  return losing(ps, predicate);
                }
              }
              return result;
            });
  }

  private PreparedStatement losing(PreparedStatement statement, Predicate<String> predicate) {
    return (PreparedStatement)
        Proxy.newProxyInstance(
            getClass().getClassLoader(),
            new Class<?>[] {PreparedStatement.class},
            (p, method, args) -> {
              Object result = invoke(statement, method, args);
              if (method.getName().startsWith("execute")
                  && loseNext.compareAndSet(predicate, null)) {
                if (result instanceof ResultSet rs) {
                  while (rs.next()) {
                    // Drain: the statement runs to completion and commits.
                  }
                  rs.close();
                }
                statement.close();
                lost.incrementAndGet();
                throw new SQLException("simulated: connection lost before the response", "08006");
              }
              return result;
            });
  }

  private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args)
      throws Throwable {
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
