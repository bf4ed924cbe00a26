package dev.qinglong.testkit.postgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The PostgreSQL server that database tests run against: one per JVM, found or started on first
 * use, in this order (docs/testing.md#where-postgresql-comes-from-in-tests; tests never skip):
 *
 * <ol>
 *   <li>{@value #URL_ENV}, if set: a JDBC URL such as {@code
 *       jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres}. The user comes from the URL's
 *       {@code user} parameter or {@value #USER_ENV} (which wins; default {@code postgres}), the
 *       password likewise from {@value #PASSWORD_ENV} (default empty). The user must be allowed to
 *       create databases and roles. If the variable is set but unusable, provisioning fails rather
 *       than falling through to another source.
 *   <li>Testcontainers, if it finds a Docker engine: one {@value #CONTAINER_IMAGE} container.
 *   <li>A throw-away cluster started from the local server binaries ({@code initdb}, {@code
 *       pg_ctl}); see {@link LocalPostgresCluster}.
 * </ol>
 *
 * If none works, {@link #get()} throws an {@link IllegalStateException} that says how to provide
 * PostgreSQL and why each source failed.
 */
public final class PostgresTestServer {

  /** JDBC URL of an existing server to use instead of starting one. */
  public static final String URL_ENV = "QINGLONG_TEST_PG_URL";

  /** User for {@value #URL_ENV}; overrides the URL's {@code user} parameter. */
  public static final String USER_ENV = "QINGLONG_TEST_PG_USER";

  /** Password for {@value #URL_ENV}; overrides the URL's {@code password} parameter. */
  public static final String PASSWORD_ENV = "QINGLONG_TEST_PG_PASSWORD";

  /**
   * Session time zone of test databases. Non-UTC and not a whole hour away from UTC, so code that
   * confuses local and UTC time, or rounds offsets to hours, fails visibly.
   */
  public static final String TEST_TIME_ZONE = "Asia/Kolkata";

  private static final String CONTAINER_IMAGE = "postgres:15-alpine";
  private static final int MAX_IDENTIFIER_LENGTH = 63;
  private static final int SUFFIX_LENGTH = 10;
  private static final String SUFFIX_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

  private static final Logger log = LoggerFactory.getLogger(PostgresTestServer.class);

  private static final Object LOCK = new Object();
  private static PostgresTestServer instance; // guarded by LOCK
  private static IllegalStateException failure; // guarded by LOCK
  private static LocalPostgresCluster localCluster; // guarded by LOCK

  private final String source;
  private final String adminJdbcUrl;
  private final String username;
  private final String password;

  private PostgresTestServer(String source, String adminJdbcUrl, String username, String password) {
    this.source = source;
    this.adminJdbcUrl = adminJdbcUrl;
    this.username = username;
    this.password = password;
  }

  /**
   * Returns the JVM's test server, provisioning it on the first call. Thread-safe: concurrent first
   * calls wait for one provisioning.
   *
   * @throws IllegalStateException if no PostgreSQL could be provided; later calls throw the same
   *     failure again instead of retrying a slow, doomed provisioning for every test class
   */
  public static PostgresTestServer get() {
    synchronized (LOCK) {
      if (instance == null && failure == null) {
        try {
          instance = provision();
        } catch (IllegalStateException e) {
          failure = e;
        } catch (RuntimeException e) {
          failure = new IllegalStateException("Provisioning PostgreSQL for tests failed: " + e, e);
        }
      }
      if (failure != null) {
        throw new IllegalStateException(failure.getMessage(), failure);
      }
      return instance;
    }
  }

  /**
   * Stops a cluster this JVM started from local binaries, now rather than in a shutdown hook. For
   * runners whose class loader is gone by the time hooks run (e.g. {@code exec:java}), where the
   * hook cannot load its classes and the server would outlive the JVM. Later {@link #get()} calls
   * provision a new server.
   */
  public static void shutdown() {
    synchronized (LOCK) {
      if (localCluster != null) {
        localCluster.stop();
        localCluster = null;
      }
      instance = null;
    }
  }

  /**
   * Where this server came from.
   *
   * @return {@code "url"}, {@code "testcontainers"} or {@code "local-binaries"}
   */
  public String source() {
    return source;
  }

  /**
   * Creates a fresh, empty database owned by the server's administrative user, with {@code
   * timezone} set to {@link #TEST_TIME_ZONE} as the database default.
   *
   * @param prefix readable part of the name; lower-cased, every character outside {@code [a-z0-9_]}
   *     replaced by {@code _}, shortened so the whole name fits PostgreSQL's 63 characters, and
   *     prefixed with {@code db_} if empty or starting with a digit (so the name is also a valid
   *     unquoted identifier)
   * @return the database, named {@code <sanitised prefix>_<random suffix>}
   * @throws IllegalStateException if the server refuses to create the database
   */
  public TestDatabase createDatabase(String prefix) {
    String name = uniqueName(prefix);
    try (Connection connection = DriverManager.getConnection(adminJdbcUrl, username, password);
        Statement statement = connection.createStatement()) {
      // The name is [a-z0-9_] by construction, so quoting cannot be subverted.
      statement.execute("CREATE DATABASE \"" + name + "\"");
      statement.execute("ALTER DATABASE \"" + name + "\" SET timezone TO '" + TEST_TIME_ZONE + "'");
    } catch (SQLException e) {
      throw new IllegalStateException(
          "Could not create test database " + name + " on the " + source + " server: " + e, e);
    }
    return new TestDatabase(name, PgJdbcUrl.withDatabase(adminJdbcUrl, name), username, password);
  }

  @Override
  public String toString() {
    return "PostgresTestServer[source="
        + source
        + ", url="
        + adminJdbcUrl
        + ", user="
        + username
        + "]";
  }

  static String uniqueName(String prefix) {
    String sanitised =
        (prefix == null ? "" : prefix).toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    if (sanitised.isEmpty() || Character.isDigit(sanitised.charAt(0))) {
      sanitised = "db_" + sanitised;
    }
    int maxPrefix = MAX_IDENTIFIER_LENGTH - 1 - SUFFIX_LENGTH;
    if (sanitised.length() > maxPrefix) {
      sanitised = sanitised.substring(0, maxPrefix);
    }
    StringBuilder name = new StringBuilder(sanitised).append('_');
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int i = 0; i < SUFFIX_LENGTH; i++) {
      name.append(SUFFIX_ALPHABET.charAt(random.nextInt(SUFFIX_ALPHABET.length())));
    }
    return name.toString();
  }

  private static PostgresTestServer provision() {
    long startNanos = System.nanoTime();
    PostgresTestServer server;
    String url = System.getenv(URL_ENV);
    if (url != null && !url.isBlank()) {
      server = fromUrl(url.trim());
    } else {
      List<Exception> failures = new ArrayList<>();
      server = fromTestcontainers(failures);
      if (server == null) {
        server = fromLocalBinaries(failures);
      }
      if (server == null) {
        throw noServer(failures);
      }
    }
    log.info(
        "PostgreSQL for tests: source={}, url={}, user={} (ready in {} ms)",
        server.source,
        server.adminJdbcUrl,
        server.username,
        (System.nanoTime() - startNanos) / 1_000_000);
    return server;
  }

  private static PostgresTestServer fromUrl(String rawUrl) {
    PgJdbcUrl parsed;
    try {
      parsed = PgJdbcUrl.parse(rawUrl);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(URL_ENV + " is set but unusable: " + e.getMessage(), e);
    }
    String user = firstNonBlank(System.getenv(USER_ENV), parsed.param("user"), "postgres");
    String password = firstNonEmpty(System.getenv(PASSWORD_ENV), parsed.param("password"), "");
    // Credentials travel separately so they never end up in logs or TestDatabase URLs.
    String adminUrl = parsed.without("user", "password").toString();
    String problem = checkPrivileges(adminUrl, user, password);
    if (problem != null) {
      throw new IllegalStateException(
          URL_ENV
              + " is set ("
              + adminUrl
              + ", user "
              + user
              + ") but unusable: "
              + problem
              + ". Fix it or unset it to let the tests start PostgreSQL themselves.");
    }
    return new PostgresTestServer("url", adminUrl, user, password);
  }

  /** Returns why the user cannot serve as test administrator, or {@code null} if it can. */
  private static String checkPrivileges(String url, String user, String password) {
    try (Connection connection = DriverManager.getConnection(url, user, password);
        Statement statement = connection.createStatement();
        ResultSet row =
            statement.executeQuery(
                "SELECT rolsuper, rolcreatedb, rolcreaterole FROM pg_roles"
                    + " WHERE rolname = current_user")) {
      if (!row.next()) {
        return "the current user is missing from pg_roles";
      }
      boolean superuser = row.getBoolean(1);
      if (!superuser && !(row.getBoolean(2) && row.getBoolean(3))) {
        return "the user needs CREATEDB and CREATEROLE (or superuser)";
      }
      return null;
    } catch (SQLException e) {
      // The driver's messages often end in a full stop; the caller appends its own sentence.
      return "cannot connect: " + String.valueOf(e.getMessage()).replaceAll("\\.+$", "");
    }
  }

  private static PostgresTestServer fromTestcontainers(List<Exception> failures) {
    boolean dockerAvailable;
    try {
      dockerAvailable = DockerClientFactory.instance().isDockerAvailable();
    } catch (Exception | LinkageError e) {
      // Any trouble while merely looking for Docker means "no Docker", not a broken build.
      failures.add(new IllegalStateException("Testcontainers: looking for Docker failed: " + e, e));
      return null;
    }
    if (!dockerAvailable) {
      failures.add(new IllegalStateException("Testcontainers: no Docker engine found"));
      return null;
    }
    try {
      PostgreSQLContainer container =
          new PostgreSQLContainer(DockerImageName.parse(CONTAINER_IMAGE))
              .withCommand("postgres", "-c", "fsync=off", "-c", "max_connections=300");
      container.start();
      // Ryuk removes the container when the JVM exits; stopping it ourselves also covers
      // setups that disable Ryuk.
      Runtime.getRuntime()
          .addShutdownHook(new Thread(container::stop, "qinglong-test-postgres-container-stop"));
      return new PostgresTestServer(
          "testcontainers",
          PgJdbcUrl.parse(container.getJdbcUrl()).without("user", "password").toString(),
          container.getUsername(),
          container.getPassword());
    } catch (RuntimeException e) {
      log.warn("Docker is available but the {} container did not start", CONTAINER_IMAGE, e);
      failures.add(
          new IllegalStateException(
              "Testcontainers: starting " + CONTAINER_IMAGE + " failed: " + e, e));
      return null;
    }
  }

  private static PostgresTestServer fromLocalBinaries(List<Exception> failures) {
    try {
      LocalPostgresCluster cluster = LocalPostgresCluster.start();
      localCluster = cluster;
      return new PostgresTestServer(
          "local-binaries", cluster.jdbcUrl("postgres"), LocalPostgresCluster.SUPERUSER, "");
    } catch (RuntimeException e) {
      failures.add(new IllegalStateException("Local binaries: " + e.getMessage(), e));
      return null;
    }
  }

  private static IllegalStateException noServer(List<Exception> failures) {
    StringBuilder message =
        new StringBuilder(
            "No PostgreSQL for the database tests. Provide one of:\n"
                + "  1. "
                + URL_ENV
                + "=jdbc:postgresql://host:5432/postgres (user from "
                + USER_ENV
                + " or ?user=, default postgres; password from "
                + PASSWORD_ENV
                + "), a user allowed to CREATE DATABASE and CREATE ROLE;\n"
                + "  2. a running Docker engine that Testcontainers can reach;\n"
                + "  3. the PostgreSQL server binaries initdb and pg_ctl on PATH or under"
                + " /usr/lib/postgresql/<version>/bin (or "
                + LocalPostgresCluster.BIN_ENV
                + "=<their directory>).\n"
                + "Attempts:\n"
                + "  - "
                + URL_ENV
                + " is not set");
    for (Exception failure : failures) {
      message.append("\n  - ").append(failure.getMessage());
    }
    IllegalStateException exception = new IllegalStateException(message.toString());
    failures.forEach(exception::addSuppressed);
    return exception;
  }

  private static String firstNonBlank(String... candidates) {
    for (String candidate : candidates) {
      if (candidate != null && !candidate.isBlank()) {
        return candidate;
      }
    }
    throw new IllegalStateException("No candidate left. Indicates a bug.");
  }

  private static String firstNonEmpty(String... candidates) {
    for (String candidate : candidates) {
      if (candidate != null && !candidate.isEmpty()) {
        return candidate;
      }
    }
    return "";
  }
}
