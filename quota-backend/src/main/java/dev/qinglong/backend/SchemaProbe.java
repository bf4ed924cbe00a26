package dev.qinglong.backend;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;
import org.flywaydb.core.api.MigrationVersion;

/**
 * Checks that a database answers through one component's pool and that a Flyway history is at least
 * the version this build needs. Used by readiness and by the start-up check of a process that does
 * not migrate; never throws, a failure is a {@link Result} that is not up.
 */
public final class SchemaProbe {
  private final String name;
  private final DataSource dataSource;
  private final String historyTable;
  private final MigrationVersion required;

  public SchemaProbe(String name, DataSource dataSource, String historyTable, int required) {
    this(name, dataSource, historyTable, MigrationVersion.fromVersion(Integer.toString(required)));
  }

  public SchemaProbe(
      String name, DataSource dataSource, String historyTable, MigrationVersion required) {
    this.name = Objects.requireNonNull(name);
    this.dataSource = Objects.requireNonNull(dataSource);
    this.historyTable = Objects.requireNonNull(historyTable);
    this.required = Objects.requireNonNull(required);
  }

  /** What one probe found. {@code problem} is a short, low-sensitivity reason or null. */
  public record Result(
      String name, boolean up, String schemaVersion, String requiredVersion, String problem) {}

  /**
   * Checks now; call it before the process serves when it did not migrate itself.
   *
   * @throws SchemaCheckException with an operator-readable message when the schema is behind or the
   *     history cannot be read (its cause: the database's error, if there was one)
   */
  public void require(Duration timeout) {
    Exception[] error = new Exception[1];
    Result r = check(timeout, e -> error[0] = e);
    if (!r.up()) {
      throw new SchemaCheckException(
          r,
          error[0],
          "schema check failed for "
              + name
              + " ("
              + historyTable
              + "): "
              + r.problem()
              + "; found version "
              + (r.schemaVersion() == null ? "none" : r.schemaVersion())
              + ", this build needs "
              + r.requiredVersion()
              + ". Run the migrate step first (java -jar app.jar migrate as the schema owner,"
              + " or qinglong.postgres.migrate=true)");
    }
  }

  /** A start-up schema check that failed: what it found, and the database's error if any. */
  public static final class SchemaCheckException extends IllegalStateException {
    private final transient Result result;

    SchemaCheckException(Result result, Exception cause, String message) {
      super(message, cause);
      this.result = result;
    }

    public Result result() {
      return result;
    }
  }

  /** A result that is not up, for a check that did not finish ({@code problem}: why). */
  public Result failed(String problem) {
    return new Result(name, false, null, required.getVersion(), problem);
  }

  public Result check(Duration timeout) {
    return check(timeout, e -> {});
  }

  private Result check(Duration timeout, java.util.function.Consumer<Exception> error) {
    try (Connection c = dataSource.getConnection()) {
      int seconds = (int) Math.max(1, timeout.toSeconds());
      MigrationVersion current = null;
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT version FROM " + historyTable + " WHERE success AND version IS NOT NULL")) {
        ps.setQueryTimeout(seconds);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            MigrationVersion v = MigrationVersion.fromVersion(rs.getString(1));
            if (current == null || v.compareTo(current) > 0) {
              current = v;
            }
          }
        }
      }
      if (current == null) {
        return failed("schema behind");
      }
      if (current.compareTo(required) < 0) {
        return new Result(
            name, false, current.getVersion(), required.getVersion(), "schema behind");
      }
      return new Result(name, true, current.getVersion(), required.getVersion(), null);
    } catch (SQLException e) {
      // 42P01 undefined table, 3F000 undefined schema, 42501 no privilege: nothing migrated yet
      // (or not granted to this login), as opposed to a database that does not answer.
      String state = e.getSQLState();
      boolean missing =
          "42P01".equals(state)
              || "3F000".equals(state)
              || "42501".equals(state)
              || (e.getMessage() != null && e.getMessage().contains("no such table"));
      if (missing) {
        return failed("schema not migrated");
      }
      error.accept(e);
      return failed("database unreachable");
    } catch (RuntimeException e) {
      error.accept(e);
      return failed("database unreachable");
    }
  }
}
