package dev.qinglong.postgres.backend;

import dev.qinglong.postgres.leases.DedicatedConnectionFactory;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Everything the PostgreSQL backend needs, as plain values ({@code qinglong.postgres.*}).
 *
 * @param url the JDBC URL
 * @param owner the schema owner; used only when migrating (may be null otherwise)
 * @param logins the login of each component role, keyed by {@link #PACKAGE_MANAGER}, {@link
 *     #ADMIN}, {@link #RUNTIME}, {@link #PACKAGE_EXECUTOR}, {@link #READER}; a missing key logs in
 *     as the role's own name ({@code ql3_<role>}) without a password
 * @param bootstrapRoles create the {@code ql3_*} roles before migrating (dev and tests)
 * @param migrate migrate at start as the owner; {@code false}: only verify the schema versions
 * @param managerPoolSize connections of the {@code ql3_package_manager} pool
 * @param adminPoolSize connections of the {@code ql3_admin} pool
 * @param runtimePoolSize connections of the {@code ql3_runtime} pool
 * @param readerPoolSize connections of the {@code ql3_reader} pool of a download-only process
 * @param timeouts the network and statement bounds of every component pool
 */
public record PostgresSettings(
    String url,
    Login owner,
    Map<String, Login> logins,
    boolean bootstrapRoles,
    boolean migrate,
    int managerPoolSize,
    int adminPoolSize,
    int runtimePoolSize,
    int readerPoolSize,
    Timeouts timeouts) {
  public static final String PACKAGE_MANAGER = "package-manager";
  public static final String ADMIN = "admin";
  public static final String RUNTIME = "runtime";
  public static final String PACKAGE_EXECUTOR = "package-executor";
  public static final String READER = "reader";

  public PostgresSettings {
    if (url == null || url.isBlank()) {
      throw new IllegalArgumentException("qinglong.store=postgres needs qinglong.postgres.url");
    }
    logins = Map.copyOf(Objects.requireNonNull(logins));
    Objects.requireNonNull(timeouts, "timeouts");
  }

  /**
   * Bounds on every wait on the database, so a database that is away, slow or silently dropping
   * packets (a failover) answers 503 within seconds instead of hanging requests for minutes ({@code
   * qinglong.postgres.connect-timeout} / {@code .socket-timeout} / {@code .statement-timeout} /
   * {@code .lock-timeout}).
   *
   * @param connect opening a connection, TCP connect and login each (whole seconds, at least 1 s)
   * @param socket one wait for the server's answer on the network (whole seconds, at least 1 s and
   *     longer than {@code statement}, so the server cancels a slow statement first and the
   *     connection stays usable; the socket bound catches a server or network that went silent)
   * @param statement the server-side {@code statement_timeout} (0: none)
   * @param lock the server-side {@code lock_timeout}: a wait for a row, table or advisory lock (0:
   *     none)
   */
  public record Timeouts(Duration connect, Duration socket, Duration statement, Duration lock) {
    /** The documented defaults: 3 s, 10 s, 5 s, 3 s. */
    public static final Timeouts DEFAULTS =
        new Timeouts(
            Duration.ofSeconds(3),
            Duration.ofSeconds(10),
            Duration.ofSeconds(5),
            Duration.ofSeconds(3));

    public Timeouts {
      atLeastOneSecond(connect, "connect");
      atLeastOneSecond(socket, "socket");
      if (Objects.requireNonNull(statement, "statement").isNegative()
          || Objects.requireNonNull(lock, "lock").isNegative()) {
        throw new IllegalArgumentException(
            "qinglong.postgres.statement-timeout and .lock-timeout must not be negative");
      }
      if (DedicatedConnectionFactory.ceilSeconds(socket) * 1000 <= statement.toMillis()) {
        throw new IllegalArgumentException(
            "qinglong.postgres.socket-timeout must be longer than .statement-timeout");
      }
    }

    /** {@code connect} in whole seconds (rounded up), as the driver takes it. */
    public long connectSeconds() {
      return DedicatedConnectionFactory.ceilSeconds(connect);
    }

    /** {@code socket} in whole seconds (rounded up), as the driver takes it. */
    public long socketSeconds() {
      return DedicatedConnectionFactory.ceilSeconds(socket);
    }

    private static void atLeastOneSecond(Duration timeout, String name) {
      if (Objects.requireNonNull(timeout, name).compareTo(Duration.ofSeconds(1)) < 0) {
        throw new IllegalArgumentException(
            "qinglong.postgres." + name + "-timeout must be at least 1s");
      }
    }
  }

  /** A login: user name and password (null or empty: none). */
  public record Login(String username, String password) {
    public Login {
      Objects.requireNonNull(username, "username");
    }

    @Override
    public String toString() {
      return "Login[" + username + "]"; // never the password
    }
  }

  /** The login of component role {@code role}: configured, else {@code ql3_<role>}. */
  public Login login(String role) {
    Login configured = logins.get(role);
    return configured != null ? configured : new Login("ql3_" + role.replace('-', '_'), null);
  }

  /** The owner login; required to migrate. */
  public Login requireOwner() {
    if (owner == null || owner.username() == null || owner.username().isBlank()) {
      throw new IllegalStateException(
          "migrating needs the schema owner's login (qinglong.postgres.username / .password);"
              + " a process that does not migrate sets qinglong.postgres.migrate=false");
    }
    return owner;
  }
}
