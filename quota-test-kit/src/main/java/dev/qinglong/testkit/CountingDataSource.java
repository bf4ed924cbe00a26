package dev.qinglong.testkit;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Counts what a store asks of the database: connections taken and statements executed (every {@code
 * execute…} call on a statement of those connections). Everything else passes through.
 */
public final class CountingDataSource implements DataSource {
  private final DataSource delegate;
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger statements = new AtomicInteger();

  public CountingDataSource(DataSource delegate) {
    this.delegate = delegate;
  }

  /** Connections taken so far. */
  public int connections() {
    return connections.get();
  }

  /** Statements executed so far. */
  public int statements() {
    return statements.get();
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
    connections.incrementAndGet();
    return proxy(
        Connection.class,
        connection,
        (target, method, args) -> {
          Object result = invoke(target, method, args);
          if (result instanceof PreparedStatement ps) {
            return counting(PreparedStatement.class, ps);
          }
          if (result instanceof Statement st) {
            return counting(Statement.class, st);
          }
          return result;
        });
  }

  private <T extends Statement> T counting(Class<T> type, T statement) {
    return proxy(
        type,
        statement,
        (target, method, args) -> {
          if (method.getName().startsWith("execute")) {
            statements.incrementAndGet();
          }
          return invoke(target, method, args);
        });
  }

  private interface Handler {
    Object handle(Object target, Method method, Object[] args) throws Throwable;
  }

  @SuppressWarnings("unchecked")
  private static <T> T proxy(Class<T> type, T target, Handler handler) {
    InvocationHandler ih = (p, method, args) -> handler.handle(target, method, args);
    return (T)
        Proxy.newProxyInstance(
            CountingDataSource.class.getClassLoader(), new Class<?>[] {type}, ih);
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
