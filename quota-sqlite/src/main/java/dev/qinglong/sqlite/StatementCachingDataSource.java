package dev.qinglong.sqlite;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * SQLite's data source, its connections keeping their prepared statements: {@code
 * prepareStatement(sql)} hands out an idle statement of the same text that an earlier caller
 * closed, instead of compiling it again. The SQLite JDBC driver has no statement cache of its own,
 * and compiling a statement is most of what an upsert costs there (sqlite3_prepare: parsing, the
 * table's CHECK constraints and triggers coded into the program) — the stores prepare each
 * statement per call, as JDBC code does.
 *
 * <p>A statement that its caller closes is reset — its result set closed, which resets the SQLite
 * statement and so ends the read (and the auto-commit transaction) it held — its parameters and
 * batch cleared, and kept for the next {@code prepareStatement} of the same text on that
 * connection; after that, the caller's handle is closed to the caller. Each connection keeps at
 * most {@link #MAX_PER_CONNECTION} idle statements (least recently used ones are closed), and
 * closes them when it closes. Only {@code prepareStatement(String)} is cached: other overloads and
 * plain statements are the driver's own. A connection is used by one thread at a time (the pool
 * hands it out so), and so are its idle statements; two open statements of one text on one
 * connection are two statements. SQLite re-prepares a kept statement itself after a schema change
 * ({@code sqlite3_prepare_v2}).
 */
final class StatementCachingDataSource extends SQLiteDataSource {
  /** Idle statements kept per connection. */
  static final int MAX_PER_CONNECTION = 64;

  StatementCachingDataSource(SQLiteConfig config) {
    super(config);
  }

  /** The pool asks for connections without a login, so this is the only entry that caches. */
  @Override
  public Connection getConnection() throws SQLException {
    return CachingConnection.wrap(super.getConnection());
  }

  /**
   * A method of {@link Object} on a proxy: identity equality and hash, and {@code label} as its
   * string.
   */
  private static Object objectMethod(Object proxy, Method method, Object[] args, String label) {
    return switch (method.getName()) {
      case "equals" -> proxy == args[0];
      case "hashCode" -> System.identityHashCode(proxy);
      default -> label;
    };
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /** The connection side: hands out kept statements and takes closed ones back. */
  private static final class CachingConnection implements InvocationHandler {
    private final Connection real;
    private Connection self;

    /** Idle statements by SQL text, least recently used first. */
    private final LinkedHashMap<String, PreparedStatement> idle =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, PreparedStatement> eldest) {
            if (size() > MAX_PER_CONNECTION) {
              closeQuietly(eldest.getValue());
              return true;
            }
            return false;
          }
        };

    private CachingConnection(Connection real) {
      this.real = real;
    }

    static Connection wrap(Connection real) {
      CachingConnection handler = new CachingConnection(real);
      handler.self =
          (Connection)
              Proxy.newProxyInstance(
                  Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, handler);
      return handler.self;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
      String name = method.getName();
      if (method.getDeclaringClass() == Object.class) {
        return objectMethod(proxy, method, args, "StatementCaching(" + real + ")");
      }
      if (name.equals("prepareStatement") && args.length == 1 && args[0] instanceof String sql) {
        return prepare(sql);
      }
      if (name.equals("close") && method.getParameterCount() == 0) {
        closeIdle();
        real.close();
        return null;
      }
      return StatementCachingDataSource.invoke(real, method, args);
    }

    private PreparedStatement prepare(String sql) throws SQLException {
      PreparedStatement statement = idle.remove(sql);
      if (statement == null || statement.isClosed()) {
        statement = real.prepareStatement(sql);
      }
      return CachedStatement.wrap(this, sql, statement);
    }

    /** A statement its caller closed: reset and kept, or closed when it cannot be reset. */
    void giveBack(String sql, PreparedStatement statement) {
      try {
        if (real.isClosed() || statement.isClosed()) {
          return;
        }
        // Closes the current result set, which resets the SQLite statement: its read ends.
        statement.getMoreResults();
        statement.clearParameters();
        statement.clearBatch();
      } catch (SQLException | RuntimeException e) {
        closeQuietly(statement);
        return;
      }
      PreparedStatement previous = idle.put(sql, statement);
      if (previous != null && previous != statement) {
        closeQuietly(previous);
      }
    }

    private void closeIdle() {
      List<PreparedStatement> all = new ArrayList<>(idle.values());
      idle.clear();
      all.forEach(CachingConnection::closeQuietly);
    }

    private static void closeQuietly(Statement statement) {
      try {
        statement.close();
      } catch (SQLException | RuntimeException e) {
        // Closing anyway: nothing else to do with a statement that cannot close.
      }
    }
  }

  /** The caller's handle on a kept statement: closing it gives the statement back. */
  private static final class CachedStatement implements InvocationHandler {
    private final CachingConnection connection;
    private final String sql;
    private final PreparedStatement real;
    private boolean closed;

    private CachedStatement(CachingConnection connection, String sql, PreparedStatement real) {
      this.connection = connection;
      this.sql = sql;
      this.real = real;
    }

    static PreparedStatement wrap(
        CachingConnection connection, String sql, PreparedStatement real) {
      return (PreparedStatement)
          Proxy.newProxyInstance(
              PreparedStatement.class.getClassLoader(),
              new Class<?>[] {PreparedStatement.class},
              new CachedStatement(connection, sql, real));
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
      String name = method.getName();
      int count = method.getParameterCount();
      if (method.getDeclaringClass() == Object.class) {
        return objectMethod(proxy, method, args, "CachedStatement(" + sql + ")");
      }
      if (name.equals("close") && count == 0) {
        if (!closed) {
          closed = true;
          connection.giveBack(sql, real);
        }
        return null;
      }
      if (name.equals("isClosed") && count == 0) {
        return closed || real.isClosed();
      }
      if (closed) {
        throw new SQLException("statement is closed");
      }
      if (name.equals("getConnection") && count == 0) {
        return connection.self;
      }
      return StatementCachingDataSource.invoke(real, method, args);
    }
  }
}
