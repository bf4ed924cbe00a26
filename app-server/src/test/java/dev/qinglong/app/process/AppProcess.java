package dev.qinglong.app.process;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The packaged app ({@code target/app-server-*.jar}) running as a separate JVM process. */
final class AppProcess implements AutoCloseable {
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  final String name;
  final int port;

  /** Actuator's own port ({@code management.server.port}): probes and metrics. */
  final int managementPort;

  final Process process;
  final Path log;

  private AppProcess(String name, int port, int managementPort, Process process, Path log) {
    this.name = name;
    this.port = port;
    this.managementPort = managementPort;
    this.process = process;
    this.log = log;
  }

  static Path jar() throws IOException {
    try (DirectoryStream<Path> jars =
        Files.newDirectoryStream(Path.of("target"), "app-server-*.jar")) {
      for (Path p : jars) {
        String n = p.getFileName().toString();
        if (!n.endsWith("-plain.jar") && !n.endsWith("-sources.jar")) {
          return p.toAbsolutePath();
        }
      }
    }
    throw new IllegalStateException("target/app-server-*.jar is missing: run the package phase");
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** Starts the app with {@code --key=value} for every property; its output goes to a log file. */
  static AppProcess start(String name, Path logDir, Map<String, String> properties)
      throws IOException {
    int port = freePort();
    int managementPort = freePort();
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx256m");
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-Xshare:auto");
    cmd.add("-jar");
    cmd.add(jar().toString());
    cmd.add("--server.port=" + port);
    cmd.add("--server.address=127.0.0.1");
    cmd.add("--management.server.port=" + managementPort);
    cmd.add("--management.server.address=127.0.0.1");
    // Readiness is a cached background probe: refresh it often so tests see changes quickly.
    cmd.add("--qinglong.readiness.refresh-interval=250ms");
    cmd.add("--spring.lifecycle.timeout-per-shutdown-phase=2s");
    properties.forEach((k, v) -> cmd.add("--" + k + "=" + v));
    Files.createDirectories(logDir);
    Path log = logDir.resolve(name + ".log");
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()))
            .start();
    return new AppProcess(name, port, managementPort, p, log);
  }

  /**
   * Starts {@code command} (a JVM launching the app) with exactly {@code env} as its environment
   * (plus PATH), the way a container gets it: no {@code --key=value} arguments. The ports are the
   * environment's {@code SERVER_PORT} and {@code MANAGEMENT_SERVER_PORT}.
   */
  static AppProcess fromEnvironment(
      String name, Path logDir, Map<String, String> env, List<String> command) throws IOException {
    Files.createDirectories(logDir);
    Path log = logDir.resolve(name + ".log");
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
    onlyThis(pb.environment(), env);
    return new AppProcess(
        name,
        Integer.parseInt(env.get("SERVER_PORT")),
        Integer.parseInt(env.get("MANAGEMENT_SERVER_PORT")),
        pb.start(),
        log);
  }

  /** Replaces a process environment by {@code env}, keeping only PATH from this JVM's. */
  static void onlyThis(Map<String, String> processEnvironment, Map<String, String> env) {
    String path = processEnvironment.get("PATH");
    processEnvironment.clear();
    if (path != null) {
      processEnvironment.put("PATH", path);
    }
    processEnvironment.putAll(env);
  }

  String output() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "<no log: " + e + ">";
    }
  }

  /** Status of GET path (no token) on the management port, or -1 if it does not answer. */
  int status(String path) {
    try {
      return CLIENT
          .send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + path))
                  .timeout(Duration.ofSeconds(10))
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** Body of GET path (no token) on the management port. */
  String body(String path) throws Exception {
    return CLIENT
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + path))
                .timeout(Duration.ofSeconds(10))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  /** Waits until readiness is 200; fails with the log if the process exits or time runs out. */
  AppProcess awaitReady(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new AssertionError(name + " exited with " + process.exitValue() + ":\n" + tail());
      }
      if (status("/actuator/health/readiness") == 200) {
        return this;
      }
      Thread.sleep(250);
    }
    throw new AssertionError(name + " not ready within " + timeout + ":\n" + tail());
  }

  /** Waits for the process to exit; returns its exit code, or fails if it keeps running. */
  int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError(name + " still running after " + timeout + ":\n" + tail());
    }
    return process.exitValue();
  }

  String tail() {
    String out = output();
    return out.length() > 6000 ? out.substring(out.length() - 6000) : out;
  }

  /** SIGSTOP: the whole JVM freezes (a hung gateway); its sockets stay open. */
  void suspend() throws IOException, InterruptedException {
    signal("STOP");
  }

  /** SIGCONT after {@link #suspend()}. */
  void resume() throws IOException, InterruptedException {
    signal("CONT");
  }

  private void signal(String name) throws IOException, InterruptedException {
    if (!process.isAlive()) {
      return;
    }
    Process kill =
        new ProcessBuilder("kill", "-" + name, Long.toString(process.toHandle().pid()))
            .redirectErrorStream(true)
            .start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
    }
  }

  /** SIGKILL: no shutdown hook, sockets closed by the OS. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  /** SIGTERM: graceful shutdown. */
  void stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(15, TimeUnit.SECONDS)) {
      kill();
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      try {
        resume(); // a stopped process would not die of SIGKILL any later, but be sure
      } catch (IOException | RuntimeException e) {
        // Killed below anyway.
      }
      kill();
    }
  }
}
