package dev.qinglong.testkit;

import static org.awaitility.Awaitility.await;

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The packaged app ({@code app-server-*.jar}) running as a separate JVM process on 127.0.0.1, its
 * output in {@code <logDir>/<name>.log}: started, probed, frozen, killed or stopped the way an
 * operator or an orchestrator would. The process tests and the benchmark harness both start it
 * through here.
 */
public final class AppProcess implements AutoCloseable {
  /** JVM options for a test: a small heap and a quick start, not peak speed. */
  public static final List<String> TEST_JVM_OPTIONS =
      List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto");

  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  public final String name;
  public final int port;

  /** Actuator's own port ({@code management.server.port}): probes and metrics. */
  public final int managementPort;

  public final Process process;
  public final Path log;

  private AppProcess(String name, int port, int managementPort, Process process, Path log) {
    this.name = name;
    this.port = port;
    this.managementPort = managementPort;
    this.process = process;
    this.log = log;
  }

  /**
   * The app's jar: the system property {@code qinglong.app.jar} if set, else {@code
   * target/app-server-*.jar} (run from the app-server module, after its package phase).
   */
  public static Path jar() throws IOException {
    String configured = System.getProperty("qinglong.app.jar");
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured).toAbsolutePath();
    }
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

  public static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /**
   * Starts {@link #jar()} for a test: {@link #TEST_JVM_OPTIONS}, readiness refreshed every 250 ms
   * (so a test sees a change quickly), a 2 s graceful-shutdown phase, and {@code --key=value} for
   * every property.
   */
  public static AppProcess start(String name, Path logDir, Map<String, String> properties)
      throws IOException {
    Map<String, String> all = new LinkedHashMap<>();
    // Readiness is a cached background probe: refresh it often so tests see changes quickly.
    all.put("qinglong.readiness.refresh-interval", "250ms");
    all.put("spring.lifecycle.timeout-per-shutdown-phase", "2s");
    all.putAll(properties);
    return start(jar(), name, logDir, TEST_JVM_OPTIONS, all);
  }

  /**
   * Starts {@code jar} with {@code jvmOptions} and {@code --key=value} for every property, on free
   * ports (HTTP and management) bound to 127.0.0.1.
   */
  public static AppProcess start(
      Path jar, String name, Path logDir, List<String> jvmOptions, Map<String, String> properties)
      throws IOException {
    int port = freePort();
    int managementPort = freePort();
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmOptions);
    cmd.add("-jar");
    cmd.add(jar.toString());
    cmd.add("--server.port=" + port);
    cmd.add("--server.address=127.0.0.1");
    cmd.add("--management.server.port=" + managementPort);
    cmd.add("--management.server.address=127.0.0.1");
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
  public static AppProcess fromEnvironment(
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
  public static void onlyThis(Map<String, String> processEnvironment, Map<String, String> env) {
    String path = processEnvironment.get("PATH");
    processEnvironment.clear();
    if (path != null) {
      processEnvironment.put("PATH", path);
    }
    processEnvironment.putAll(env);
  }

  /** {@code http://127.0.0.1:<port>}, the API's base. */
  public String base() {
    return "http://127.0.0.1:" + port;
  }

  public String output() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "<no log: " + e + ">";
    }
  }

  public String tail() {
    String out = output();
    return out.length() > 6000 ? out.substring(out.length() - 6000) : out;
  }

  /** Status of GET path (no token) on the management port, or -1 if it does not answer. */
  public int status(String path) {
    try {
      return CLIENT.send(management(path), HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** Body of GET path (no token) on the management port. */
  public String body(String path) throws Exception {
    return CLIENT.send(management(path), HttpResponse.BodyHandlers.ofString()).body();
  }

  private HttpRequest management(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + path))
        .timeout(Duration.ofSeconds(10))
        .GET()
        .build();
  }

  /** Waits until readiness is 200; fails with the log if the process exits or time runs out. */
  public AppProcess awaitReady(Duration timeout) {
    try {
      await()
          .atMost(timeout)
          .pollInterval(Duration.ofMillis(250))
          .until(
              () -> {
                if (!process.isAlive()) {
                  throw new AssertionError(
                      name + " exited with " + process.exitValue() + ":\n" + tail());
                }
                return status("/actuator/health/readiness") == 200;
              });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(name + " not ready within " + timeout + ":\n" + tail(), e);
    }
    return this;
  }

  /** Waits for the process to exit; returns its exit code, or fails if it keeps running. */
  public int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError(name + " still running after " + timeout + ":\n" + tail());
    }
    return process.exitValue();
  }

  /** CPU time the process has used so far (all its threads), or -1 where the OS tells none. */
  public long cpuNanos() {
    return process.info().totalCpuDuration().map(Duration::toNanos).orElse(-1L);
  }

  /** SIGSTOP: the whole JVM freezes (a hung gateway); its sockets stay open. */
  public void suspend() throws IOException, InterruptedException {
    signal("STOP");
  }

  /** SIGCONT after {@link #suspend()}. */
  public void resume() throws IOException, InterruptedException {
    signal("CONT");
  }

  private void signal(String signal) throws IOException, InterruptedException {
    if (!process.isAlive()) {
      return;
    }
    Process kill =
        new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
            .redirectErrorStream(true)
            .start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
    }
  }

  /** SIGKILL: no shutdown hook, sockets closed by the OS. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  /** SIGTERM: graceful shutdown; SIGKILL if it has not exited within {@code grace}. */
  public void stop(Duration grace) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
      kill();
    }
  }

  /** SIGTERM, SIGKILL after 15 s. */
  public void stop() throws InterruptedException {
    stop(Duration.ofSeconds(15));
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
