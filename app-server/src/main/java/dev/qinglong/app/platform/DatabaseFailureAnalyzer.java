package dev.qinglong.app.platform;

import dev.qinglong.backend.SchemaProbe.SchemaCheckException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.env.Environment;

/**
 * A PostgreSQL store that cannot be opened at start: the database does not answer, refuses a login,
 * does not exist, or (in a process that does not migrate) has a schema older than this build needs.
 * The report names the property to change and never prints a password (the URL is shown without its
 * query, where a password may be).
 */
public final class DatabaseFailureAnalyzer implements FailureAnalyzer {
  private static final Pattern USER = Pattern.compile("(?:user|role) \"([^\"]+)\"");

  private final Environment environment;

  public DatabaseFailureAnalyzer(Environment environment) {
    this.environment = environment;
  }

  @Override
  public FailureAnalysis analyze(Throwable failure) {
    // The driver's own error is the deepest one (a pool's timeout wraps it and copies its state).
    List<SQLException> errors = new ArrayList<>();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        errors.add(0, sql);
      }
    }
    for (SQLException sql : errors) {
      FailureAnalysis analysis = connection(sql, failure);
      if (analysis != null) {
        return analysis;
      }
    }
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SchemaCheckException schema) {
        return schema(schema, failure);
      }
    }
    return null;
  }

  private FailureAnalysis connection(SQLException e, Throwable failure) {
    String state = e.getSQLState();
    String reason = firstLine(e.getMessage());
    if (state.startsWith("08")) {
      return new FailureAnalysis(
          "The PostgreSQL database "
              + url()
              + " (qinglong.postgres.url) cannot be reached: "
              + reason,
          "Start PostgreSQL or make it reachable from this host, and check the host, port and"
              + " database in qinglong.postgres.url; then start this process again.",
          failure);
    }
    if (state.startsWith("28")) {
      String user = user(reason);
      Login login = login(user);
      String action =
          reason.contains("does not exist")
              ? "Create the login "
                  + user
                  + " (docs/operations.md), start once with"
                  + " qinglong.postgres.bootstrap-roles=true as a schema owner with CREATEROLE, or"
                  + " set "
                  + login.usernameProperty
                  + " to an existing login."
              : "Set the password of "
                  + user
                  + " in "
                  + login.passwordProperty
                  + " (or its environment variable), or correct "
                  + login.usernameProperty
                  + ".";
      return new FailureAnalysis(
          "PostgreSQL "
              + url()
              + " refused the login "
              + user
              + " ("
              + login.usernameProperty
              + "): "
              + reason,
          action,
          failure);
    }
    if ("3D000".equals(state)) {
      return new FailureAnalysis(
          "The PostgreSQL database named in qinglong.postgres.url does not exist: " + reason,
          "Create the database, or correct the database name in qinglong.postgres.url.",
          failure);
    }
    return null;
  }

  private static FailureAnalysis schema(SchemaCheckException e, Throwable failure) {
    var r = e.result();
    String found = r.schemaVersion() == null ? "none" : r.schemaVersion();
    return new FailureAnalysis(
        "The PostgreSQL schema is not ready for this build and this process does not migrate"
            + " (qinglong.postgres.migrate=false): "
            + r.problem()
            + " for "
            + r.name()
            + ", found version "
            + found
            + ", this build needs "
            + r.requiredVersion(),
        "Run the migrate step first (java -jar app.jar migrate, with the schema owner's"
            + " qinglong.postgres.username and qinglong.postgres.password), or let this process"
            + " migrate (qinglong.postgres.migrate=true, the default, with the owner's login).",
        failure);
  }

  /** The URL without its query, where a password may be given. */
  private String url() {
    String url = environment.getProperty("qinglong.postgres.url", "");
    int query = url.indexOf('?');
    return query < 0 ? url : url.substring(0, query);
  }

  private static String user(String reason) {
    Matcher m = USER.matcher(reason);
    return m.find() ? m.group(1) : "(unknown)";
  }

  private record Login(String usernameProperty, String passwordProperty) {}

  /** The properties that set {@code user}'s name and password. */
  private Login login(String user) {
    PostgresProperties pg =
        Binder.get(environment).bind("qinglong.postgres", PostgresProperties.class).orElse(null);
    if (pg != null && user.equals(pg.username())) {
      return new Login("qinglong.postgres.username", "qinglong.postgres.password");
    }
    if (pg != null) {
      for (String role : BackendConfiguration.COMPONENT_ROLES) {
        if (user.equals(pg.login(role).username())) {
          String prefix = "qinglong.postgres.roles." + role;
          return new Login(prefix + ".username", prefix + ".password");
        }
      }
    }
    return new Login(
        "qinglong.postgres.username or qinglong.postgres.roles.<role>.username",
        "qinglong.postgres.password or qinglong.postgres.roles.<role>.password");
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    int nl = message.indexOf('\n');
    return (nl < 0 ? message : message.substring(0, nl)).trim();
  }
}
