package dev.qinglong.ha;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;

/**
 * One PostgreSQL server process of the gate: its data directory, unix socket directory and log
 * under the gate's temporary directory, a free TCP port on 127.0.0.1, and a {@code cluster_name}
 * unique to this run (it names the walreceiver for {@code synchronous_standby_names} and shows in
 * every server process title, which is how the residue check finds strays).
 */
final class PgNode {
  static final String DATABASE = "qinglong";
  static final String SUPERUSER = "postgres";

  private final String name;
  private final PgBinaries bin;
  private final Shell shell;
  private final Path dataDir;
  private final Path socketDir;
  private final Path logFile;
  private final int port;
  private volatile boolean running;

  PgNode(String name, PgBinaries bin, Shell shell, Path baseDir) {
    this.name = name;
    this.bin = bin;
    this.shell = shell;
    this.dataDir = baseDir.resolve(name + "-data");
    this.socketDir = baseDir.resolve(name + "-sock");
    this.logFile = baseDir.resolve(name + ".log");
    this.port = freePort();
  }

  String name() {
    return name;
  }

  int port() {
    return port;
  }

  Path dataDir() {
    return dataDir;
  }

  boolean running() {
    return running;
  }

  /** initdb with data checksums (pg_rewind needs them or wal_log_hints) and replication config. */
  void initPrimary() throws IOException {
    prepareDirs();
    shell.check(
        List.of(
            bin.tool("initdb").toString(),
            "-D",
            dataDir.toString(),
            "-U",
            SUPERUSER,
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--data-checksums",
            "--no-instructions"));
    // Shared by every node: pg_basebackup and pg_rewind copy this file.
    String conf =
        String.join(
            "\n",
            "",
            "# qinglong HA gate",
            "listen_addresses = '127.0.0.1'",
            "wal_level = replica",
            "max_wal_senders = 10",
            "max_replication_slots = 10",
            "wal_keep_size = '256MB'",
            "wal_log_hints = on",
            "hot_standby = on",
            "synchronous_commit = remote_apply",
            "max_connections = 100",
            // Throw-away data on one machine: skip fsync so the gate stays fast. Replication,
            // promotion and rewind do not depend on it.
            "fsync = off",
            "log_line_prefix = '%m [%p] %q%u@%d '",
            "");
    append(dataDir.resolve("postgresql.conf"), conf);
  }

  /** A physical streaming standby of {@code primary}: {@code pg_basebackup -R}. */
  void initStandbyOf(PgNode primary) throws IOException {
    prepareDirs();
    shell.check(
        List.of(
            bin.tool("pg_basebackup").toString(),
            "-h",
            "127.0.0.1",
            "-p",
            Integer.toString(primary.port()),
            "-U",
            SUPERUSER,
            "-D",
            dataDir.toString(),
            "-R",
            "-X",
            "stream",
            "-c",
            "fast"));
  }

  void start() {
    shell.check(
        List.of(
            bin.tool("pg_ctl").toString(),
            "-D",
            dataDir.toString(),
            "-l",
            logFile.toString(),
            "-w",
            "-t",
            "60",
            "-o",
            "-p " + port + " -k " + Shell.quote(socketDir.toString()) + " -c cluster_name=" + name,
            "start"));
    running = true;
  }

  /** A clean, fast shutdown: the server writes a shutdown checkpoint. */
  void stopFast() {
    shell.check(
        List.of(
            bin.tool("pg_ctl").toString(), "-D", dataDir.toString(), "-m", "fast", "-w", "stop"));
    running = false;
  }

  /** Best effort for cleanup: immediate stop if a postmaster.pid is present. */
  void stopImmediately() {
    if (Files.exists(dataDir.resolve("postmaster.pid"))) {
      shell.run(
          List.of(
              bin.tool("pg_ctl").toString(),
              "-D",
              dataDir.toString(),
              "-m",
              "immediate",
              "-w",
              "stop"),
          true);
    }
    running = false;
  }

  /** The postmaster's pid from postmaster.pid, if the file exists. */
  OptionalLong postmasterPid() {
    Path pidFile = dataDir.resolve("postmaster.pid");
    try {
      if (Files.exists(pidFile)) {
        String first = Files.readAllLines(pidFile, StandardCharsets.UTF_8).get(0).trim();
        return OptionalLong.of(Long.parseLong(first));
      }
    } catch (IOException | RuntimeException e) {
      // Racing with a shutdown that removes the file.
    }
    return OptionalLong.empty();
  }

  String promote() {
    String out =
        shell.check(
            List.of(
                bin.tool("pg_ctl").toString(),
                "-D",
                dataDir.toString(),
                "-w",
                "-t",
                "60",
                "promote"));
    return out.trim();
  }

  /** pg_rewind this (stopped) node onto {@code source}, writing standby config (-R). */
  String rewindFrom(PgNode source) {
    return shell
        .check(
            List.of(
                bin.tool("pg_rewind").toString(),
                "-D",
                dataDir.toString(),
                "--source-server=host=127.0.0.1 port="
                    + source.port()
                    + " user="
                    + SUPERUSER
                    + " dbname=postgres",
                "-R"))
        .trim();
  }

  String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:"
        + port
        + "/"
        + database
        + "?sslmode=disable&gssEncMode=disable&connectTimeout=5&socketTimeout=60";
  }

  /** A direct superuser connection (never through an app proxy). */
  Connection connect(String database) throws SQLException {
    return DriverManager.getConnection(jdbcUrl(database), SUPERUSER, "");
  }

  Connection connect() throws SQLException {
    return connect(DATABASE);
  }

  String logTail() {
    try {
      return Files.exists(logFile)
          ? Shell.tail(Files.readString(logFile, StandardCharsets.UTF_8))
          : "";
    } catch (IOException e) {
      return "(cannot read " + logFile + ")";
    }
  }

  private void prepareDirs() throws IOException {
    Files.createDirectories(socketDir);
    if (shell.asRoot()) {
      shell.run(List.of("chown", Shell.SERVER_USER, socketDir.toString()), false);
    }
  }

  private static void append(Path file, String text) throws IOException {
    // Appending keeps the file's owner and mode (the server user's), also when the JVM is root.
    Files.writeString(
        file,
        text,
        StandardCharsets.UTF_8,
        java.nio.file.StandardOpenOption.APPEND,
        java.nio.file.StandardOpenOption.CREATE);
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public String toString() {
    return name + "@" + port;
  }
}
