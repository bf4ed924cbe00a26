package dev.qinglong.testkit;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/** A database that cannot be reached: every connection attempt fails as a pool time-out would. */
public final class UnreachableDataSource implements DataSource {
  /** The failure every connection attempt meets (SQLState 08001). */
  public static SQLException failure() {
    return new SQLTransientConnectionException("simulated: database unreachable", "08001");
  }

  @Override
  public Connection getConnection() throws SQLException {
    throw failure();
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    throw failure();
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
  public <T> T unwrap(Class<T> iface) throws SQLException {
    throw new SQLException("not a wrapper");
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) {
    return false;
  }
}
