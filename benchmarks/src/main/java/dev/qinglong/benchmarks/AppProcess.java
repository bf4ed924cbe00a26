package dev.qinglong.benchmarks;

import java.io.IOException;
import java.io.Writer;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The real app, started from the app-server jar (system property {@code bench.app.jar}, built in
 * the reactor) as its own process, with dev-token authentication: the harness writes {@code
 * dev-tokens.properties} (mode 0600) for the users the workload needs before the start, exactly the
 * file the app would otherwise create. Output goes to {@code app.log} in its data directory.
 */
final class AppProcess implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

  private final Path dataDir;
  private final Process process;
  private final int port;
  private final Map<String, String> tokens;

  private AppProcess(Path dataDir, Process process, int port, Map<String, String> tokens) {
    this.dataDir = dataDir;
    this.process = process;
    this.port = port;
    this.tokens = tokens;
  }

  /**
   * Starts the app with {@code users} (plus the dev defaults admin, alice, bob, carol) and {@code
   * args} ({@code --name=value}), and waits until readiness answers 200.
   */
  static AppProcess start(List<String> users, List<String> args) throws Exception {
    Path jar = Path.of(System.getProperty("bench.app.jar", "app-server/target/app.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          "app jar " + jar + " not found: run through Maven with -pl benchmarks -am");
    }
    Path dataDir =
        Files.createTempDirectory(
            "qinglong-bench-app",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    Map<String, String> tokens = writeTokens(dataDir, users);
    int port = freePort();
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // Extra JVM options for the app process only (e.g. a JFR recording), space-separated.
    for (String option : System.getProperty("bench.app.jvm-args", "").trim().split("\\s+")) {
      if (!option.isEmpty()) {
        command.add(option);
      }
    }
    command.add("-jar");
    command.add(jar.toAbsolutePath().toString());
    command.add("--server.port=" + port);
    command.add("--qinglong.data-dir=" + dataDir);
    command.addAll(args);
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dataDir.resolve("app.log").toFile())
            .start();
    AppProcess app = new AppProcess(dataDir, process, port, tokens);
    try {
      app.awaitReady();
    } catch (Exception e) {
      app.stop(); // the data directory stays, with app.log
      throw e;
    }
    return app;
  }

  private static Map<String, String> writeTokens(Path dataDir, List<String> users)
      throws IOException {
    Map<String, String> tokens = new HashMap<>();
    SecureRandom random = new SecureRandom();
    Path file = dataDir.resolve("dev-tokens.properties");
    Files.createFile(
        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    List<String> all = new ArrayList<>(List.of("admin", "alice", "bob", "carol"));
    all.addAll(users);
    try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      for (String user : all) {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        String token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        tokens.put(user, token);
        out.write(user + "=" + token + "\n");
      }
    }
    return tokens;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private void awaitReady() throws Exception {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest ready =
        HttpRequest.newBuilder(URI.create(base() + "/actuator/health/readiness"))
            .timeout(Duration.ofSeconds(2))
            .build();
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "the app exited with " + process.exitValue() + "; see " + log());
      }
      try {
        if (client.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException(
        "the app was not ready within " + START_TIMEOUT + "; see " + log());
  }

  String base() {
    return "http://127.0.0.1:" + port;
  }

  /** The app's HTTP port on 127.0.0.1. */
  int port() {
    return port;
  }

  String token(String user) {
    String token = tokens.get(user);
    if (token == null) {
      throw new IllegalArgumentException("no token for " + user);
    }
    return token;
  }

  Path dataDir() {
    return dataDir;
  }

  Path log() {
    return dataDir.resolve("app.log");
  }

  long pid() {
    return process.pid();
  }

  /** CPU time the app process has used so far (all its threads), or -1 where the OS tells none. */
  long cpuNanos() {
    return process.info().totalCpuDuration().map(d -> d.toNanos()).orElse(-1L);
  }

  private void stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** Stops the app and deletes its data directory. */
  @Override
  public void close() throws Exception {
    stop();
    TempDirectories.delete(dataDir);
  }
}
