package dev.qinglong.testkit.postgres;

import dev.qinglong.testkit.TempDirectories;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A throw-away PostgreSQL cluster started from the server binaries installed on this machine
 * ({@code initdb}, {@code pg_ctl}), listening on 127.0.0.1 with trust authentication for user
 * {@code postgres}. It lives in a temporary directory that a JVM shutdown hook stops and deletes.
 *
 * <p>Durability is switched off ({@code fsync}, {@code synchronous_commit}, {@code
 * full_page_writes}) because the data is discarded anyway and the cluster must start and run fast —
 * unless the system property {@value #DURABLE_PROPERTY} is {@code true} (the benchmark harness sets
 * it): then the server runs with PostgreSQL's durable defaults, as production does, and preloads
 * {@code pg_stat_statements} when the extension is installed, so that a benchmark measures what a
 * commit really costs and can count statements.
 *
 * <p>Public for tests that must own their server — to stop and restart it under load ({@link
 * #stopServer()}, {@link #startServer()}) — whatever {@link PostgresTestServer} uses. Such a test
 * fails (never skips) when the binaries are missing.
 */
public final class LocalPostgresCluster {

  /** Overrides the directory holding {@code initdb} and {@code pg_ctl}. */
  static final String BIN_ENV = "QINGLONG_TEST_PG_BIN";

  /**
   * System property: {@code true} starts new clusters with durable commits ({@code fsync}, {@code
   * synchronous_commit} and {@code full_page_writes} on) and {@code pg_stat_statements} preloaded.
   */
  public static final String DURABLE_PROPERTY = "qinglong.test.pg.durable";

  /** Superuser created by initdb, and the OS user that runs the server when the JVM is root. */
  public static final String SUPERUSER = "postgres";

  private static final Logger log = LoggerFactory.getLogger(LocalPostgresCluster.class);
  private static final Path DEBIAN_VERSIONS_DIR = Path.of("/usr/lib/postgresql");
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(90);
  private static final int START_ATTEMPTS = 3;
  private static final int LOG_TAIL_LINES = 30;

  private final Path initdb;
  private final Path pgCtl;
  private final Path baseDir;
  private final Path dataDir;
  private final Path logFile;
  private final List<String> runAsPrefix;
  private final boolean durable;
  private final Thread shutdownHook;
  private int port;
  private boolean stopped;

  private LocalPostgresCluster(Path initdb, Path pgCtl, Path baseDir, List<String> runAsPrefix) {
    this.initdb = initdb;
    this.pgCtl = pgCtl;
    this.baseDir = baseDir;
    this.dataDir = baseDir.resolve("data");
    this.logFile = baseDir.resolve("log");
    this.runAsPrefix = runAsPrefix;
    this.durable = Boolean.getBoolean(DURABLE_PROPERTY);
    this.shutdownHook = new Thread(this::stop, "qinglong-test-postgres-stop");
  }

  /**
   * Creates and starts a new cluster.
   *
   * @throws IllegalStateException if the binaries are missing or the cluster does not start; the
   *     message carries the command output and the tail of the server log
   */
  public static LocalPostgresCluster start() {
    Path[] binaries = locateBinaries();
    List<String> runAsPrefix = runningAsRoot() ? runAsPostgresPrefix() : List.of();
    Path baseDir;
    try {
      baseDir = Files.createTempDirectory("qinglong-pg-");
      // The postgres OS user must be able to reach the directory; initdb itself creates the
      // data directory inside with the restrictive mode the server insists on.
      Files.setPosixFilePermissions(baseDir, PosixFilePermissions.fromString("rwxr-xr-x"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory for PostgreSQL", e);
    }

    LocalPostgresCluster cluster =
        new LocalPostgresCluster(binaries[0], binaries[1], baseDir, runAsPrefix);
    Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
    try {
      cluster.initAndStart();
      return cluster;
    } catch (RuntimeException e) {
      cluster.stop();
      cluster.removeShutdownHook();
      throw e;
    }
  }

  public int port() {
    return port;
  }

  /** JDBC URL of {@code database} (superuser {@value #SUPERUSER}, no password). */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  /**
   * Stops the server in fast mode (sessions are terminated, the data is kept); {@link
   * #startServer()} starts it again on the same port.
   */
  public synchronized void stopServer() {
    runChecked(
        "pg_ctl stop",
        List.of(pgCtl.toString(), "-D", dataDir.toString(), "-m", "fast", "-w", "stop"),
        true);
  }

  /** Starts the server stopped by {@link #stopServer()} again, on the same port. */
  public synchronized void startServer() {
    runChecked("pg_ctl start", startCommand(), true);
  }

  /** {@code pg_ctl start} on {@link #port}, waiting up to 60 s for the server to accept. */
  private List<String> startCommand() {
    return List.of(
        pgCtl.toString(),
        "-D",
        dataDir.toString(),
        "-l",
        logFile.toString(),
        "-w",
        "-t",
        "60",
        "-o",
        serverOptions(port),
        "start");
  }

  private void initAndStart() {
    if (!runAsPrefix.isEmpty()) {
      // initdb and pg_ctl refuse to run as root, so the cluster belongs to the postgres user.
      runChecked("chown", List.of("chown", "-R", SUPERUSER, baseDir.toString()), false);
    }
    runChecked(
        "initdb",
        List.of(
            initdb.toString(),
            "-D",
            dataDir.toString(),
            "-U",
            SUPERUSER,
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--no-instructions"),
        true);

    for (int attempt = 1; ; attempt++) {
      port = freePort();
      CommandResult result = run(startCommand(), true);
      if (result.exitCode() == 0) {
        return;
      }
      String logTail = tail(readLog(), LOG_TAIL_LINES);
      // The free port is only free until someone else binds it; retry that race, nothing else.
      boolean portTaken =
          logTail.contains("could not bind") || logTail.contains("Address already in use");
      if (!portTaken || attempt == START_ATTEMPTS) {
        throw new IllegalStateException(
            "pg_ctl start failed (exit "
                + result.exitCode()
                + "): "
                + result.output().trim()
                + "\n--- tail of "
                + logFile
                + " ---\n"
                + logTail);
      }
      log.info("Port {} was taken before PostgreSQL could bind it; retrying", port);
    }
  }

  private String serverOptions(int port) {
    // pg_ctl hands this string to /bin/sh, hence the quoting of the socket directory.
    return "-p "
        + port
        + " -k "
        + shellQuote(baseDir.toString())
        + " -c listen_addresses=127.0.0.1"
        + (durable
            ? statementStatistics()
            : " -c fsync=off -c synchronous_commit=off -c full_page_writes=off")
        + " -c max_connections=300";
  }

  /**
   * {@code pg_stat_statements} preloaded if these binaries' installation has it (Debian ships it
   * with the server package; a build from source may not).
   */
  private String statementStatistics() {
    Path installation;
    try {
      // Debian links /usr/local/bin/initdb to /usr/lib/postgresql/<version>/bin/initdb.
      installation = initdb.toRealPath().getParent().getParent();
    } catch (IOException e) {
      return "";
    }
    boolean installed =
        Stream.of(
                installation.resolve("share/extension/pg_stat_statements.control"),
                Path.of("/usr/share/postgresql")
                    .resolve(installation.getFileName())
                    .resolve("extension/pg_stat_statements.control"))
            .anyMatch(Files::isRegularFile);
    return installed ? " -c shared_preload_libraries=pg_stat_statements" : "";
  }

  /** Stops the server (immediate mode: the data is thrown away) and deletes the directory. */
  public synchronized void stop() {
    if (stopped) {
      return;
    }
    stopped = true;
    if (Files.exists(dataDir.resolve("postmaster.pid"))) {
      try {
        run(List.of(pgCtl.toString(), "-D", dataDir.toString(), "-m", "immediate", "stop"), true);
      } catch (RuntimeException e) {
        log.warn("Could not stop the test PostgreSQL cluster in {}", dataDir, e);
      }
    }
    TempDirectories.deleteQuietly(baseDir);
  }

  private void removeShutdownHook() {
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // The JVM is already shutting down; the hook has nothing left to do.
    }
  }

  private void runChecked(String what, List<String> command, boolean asServerUser) {
    CommandResult result = run(command, asServerUser);
    if (result.exitCode() != 0) {
      throw new IllegalStateException(
          what
              + " failed (exit "
              + result.exitCode()
              + "): "
              + String.join(" ", command)
              + "\n"
              + tail(result.output(), LOG_TAIL_LINES));
    }
  }

  /**
   * Runs a command to completion, as the postgres OS user if {@code asServerUser} and the JVM is
   * root. Output goes to a file rather than a pipe: {@code pg_ctl start} leaves a server running
   * that could otherwise inherit the pipe and keep a reader waiting forever.
   */
  private CommandResult run(List<String> command, boolean asServerUser) {
    List<String> full = asServerUser ? wrapForServerUser(command) : command;
    Path output = null;
    try {
      output = Files.createTempFile("qinglong-pg-cmd-", ".out");
      Process process =
          new ProcessBuilder(full)
              .directory(baseDir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      if (!process.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(
            "timed out after " + COMMAND_TIMEOUT.toSeconds() + " s: " + String.join(" ", full));
      }
      return new CommandResult(
          process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalStateException("could not run " + String.join(" ", full) + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + String.join(" ", full), e);
    } finally {
      if (output != null) {
        try {
          Files.deleteIfExists(output);
        } catch (IOException ignored) {
          // A stray temp file is not worth failing the build for.
        }
      }
    }
  }

  private List<String> wrapForServerUser(List<String> command) {
    if (runAsPrefix.isEmpty()) {
      return command;
    }
    List<String> full = new ArrayList<>(runAsPrefix);
    if (full.get(0).endsWith("runuser")) {
      full.addAll(command);
    } else {
      // su takes one shell command line instead of an argument vector.
      full.add(
          command.stream().map(LocalPostgresCluster::shellQuote).collect(Collectors.joining(" ")));
    }
    return full;
  }

  private static List<String> runAsPostgresPrefix() {
    Optional<Path> runuser =
        findOnPath("runuser")
            .or(() -> executable(Path.of("/usr/sbin/runuser")))
            .or(() -> executable(Path.of("/sbin/runuser")));
    if (runuser.isPresent()) {
      return List.of(runuser.get().toString(), "-u", SUPERUSER, "--");
    }
    return List.of("su", SUPERUSER, "-s", "/bin/sh", "-c");
  }

  static boolean runningAsRoot() {
    if ("root".equals(System.getProperty("user.name"))) {
      return true;
    }
    try {
      Process process = new ProcessBuilder("id", "-u").redirectErrorStream(true).start();
      String uid = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return process.waitFor(10, TimeUnit.SECONDS) && "0".equals(uid.trim());
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Returns {@code [initdb, pg_ctl]}: from {@value #BIN_ENV} if set, else from PATH, else from the
   * highest version under {@code /usr/lib/postgresql/<version>/bin} (where Debian and Ubuntu
   * install the server binaries, off PATH).
   */
  static Path[] locateBinaries() {
    String override = System.getenv(BIN_ENV);
    if (override != null && !override.isBlank()) {
      Path dir = Path.of(override.trim());
      return binariesIn(dir)
          .orElseThrow(
              () ->
                  new IllegalStateException(
                      BIN_ENV + "=" + dir + " does not contain executable initdb and pg_ctl"));
    }
    Optional<Path> initdb = findOnPath("initdb");
    Optional<Path> pgCtl = findOnPath("pg_ctl");
    if (initdb.isPresent() && pgCtl.isPresent()) {
      return new Path[] {initdb.get(), pgCtl.get()};
    }
    List<Path> versionDirs = new ArrayList<>();
    if (Files.isDirectory(DEBIAN_VERSIONS_DIR)) {
      try (DirectoryStream<Path> dirs = Files.newDirectoryStream(DEBIAN_VERSIONS_DIR)) {
        dirs.forEach(versionDirs::add);
      } catch (IOException e) {
        log.debug("Cannot list {}", DEBIAN_VERSIONS_DIR, e);
      }
    }
    versionDirs.sort(
        Comparator.comparing(
                (Path dir) -> versionKey(dir.getFileName().toString()),
                LocalPostgresCluster::compareVersions)
            .reversed());
    for (Path versionDir : versionDirs) {
      Optional<Path[]> found = binariesIn(versionDir.resolve("bin"));
      if (found.isPresent()) {
        return found.get();
      }
    }
    throw new IllegalStateException(
        "initdb and pg_ctl are neither on PATH nor under "
            + DEBIAN_VERSIONS_DIR
            + "/<version>/bin (set "
            + BIN_ENV
            + " to their directory)");
  }

  private static Optional<Path[]> binariesIn(Path dir) {
    Optional<Path> initdb = executable(dir.resolve("initdb"));
    Optional<Path> pgCtl = executable(dir.resolve("pg_ctl"));
    if (initdb.isPresent() && pgCtl.isPresent()) {
      return Optional.of(new Path[] {initdb.get(), pgCtl.get()});
    }
    return Optional.empty();
  }

  private static Optional<Path> findOnPath(String name) {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (!dir.isEmpty()) {
        Optional<Path> found = executable(Path.of(dir, name));
        if (found.isPresent()) {
          return found;
        }
      }
    }
    return Optional.empty();
  }

  private static Optional<Path> executable(Path file) {
    return Files.isRegularFile(file) && Files.isExecutable(file)
        ? Optional.of(file)
        : Optional.empty();
  }

  /** "15" → [15], "9.6" → [9, 6]; names that are not versions sort lowest. */
  private static int[] versionKey(String name) {
    String[] parts = name.split("\\.");
    int[] key = new int[parts.length];
    for (int i = 0; i < parts.length; i++) {
      try {
        key[i] = Integer.parseInt(parts[i]);
      } catch (NumberFormatException e) {
        return new int[] {-1};
      }
    }
    return key;
  }

  private static int compareVersions(int[] a, int[] b) {
    for (int i = 0; i < Math.max(a.length, b.length); i++) {
      int x = i < a.length ? a[i] : 0;
      int y = i < b.length ? b[i] : 0;
      if (x != y) {
        return Integer.compare(x, y);
      }
    }
    return 0;
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find a free TCP port on 127.0.0.1", e);
    }
  }

  private String readLog() {
    try {
      return Files.exists(logFile) ? Files.readString(logFile, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      return "(cannot read " + logFile + ": " + e + ")";
    }
  }

  private static String tail(String text, int lines) {
    List<String> all = text.lines().collect(Collectors.toList());
    return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
  }

  static String shellQuote(String argument) {
    return "'" + argument.replace("'", "'\\''") + "'";
  }

  private record CommandResult(int exitCode, String output) {}
}
