package dev.qinglong.benchmarks;

import dev.qinglong.testkit.AppProcess;
import dev.qinglong.testkit.TempDirectories;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The real app for a workload, started through the test kit's {@link AppProcess} from the
 * app-server jar (system property {@code bench.app.jar}, built in the reactor), with its JVM
 * options from {@code bench.app.jvm-args} only (a benchmark measures the JIT's peak, not a test's
 * quick start), and dev-token authentication: the harness writes {@code dev-tokens.properties}
 * (mode 0600) for the users the workload needs before the start, exactly the file the app would
 * otherwise create. Its data directory is a fresh temporary one, with {@code app.log}.
 */
final class BenchApp implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

  private final Path dataDir;
  private final AppProcess process;
  private final Map<String, String> tokens;

  private BenchApp(Path dataDir, AppProcess process, Map<String, String> tokens) {
    this.dataDir = dataDir;
    this.process = process;
    this.tokens = tokens;
  }

  /**
   * Starts the app with {@code users} (plus the dev defaults admin, alice, bob, carol) and {@code
   * args} ({@code --name=value}), and waits until readiness answers 200.
   */
  static BenchApp start(List<String> users, List<String> args) throws Exception {
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
    List<String> jvmOptions = new ArrayList<>();
    for (String option : System.getProperty("bench.app.jvm-args", "").trim().split("\\s+")) {
      if (!option.isEmpty()) {
        jvmOptions.add(option);
      }
    }
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("qinglong.data-dir", dataDir.toString());
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (!arg.startsWith("--") || eq < 0) {
        throw new IllegalArgumentException("not --name=value: " + arg);
      }
      properties.put(arg.substring(2, eq), arg.substring(eq + 1));
    }
    AppProcess process =
        AppProcess.start(jar.toAbsolutePath(), "app", dataDir, jvmOptions, properties);
    try {
      process.awaitReady(START_TIMEOUT);
    } catch (AssertionError e) {
      process.stop(Duration.ofSeconds(30)); // the data directory stays, with app.log
      throw new IllegalStateException("the app did not become ready; see " + process.log, e);
    }
    return new BenchApp(dataDir, process, tokens);
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

  String base() {
    return process.base();
  }

  /** The app's HTTP port on 127.0.0.1. */
  int port() {
    return process.port;
  }

  String token(String user) {
    String token = tokens.get(user);
    if (token == null) {
      throw new IllegalArgumentException("no token for " + user);
    }
    return token;
  }

  /** CPU time the app process has used so far (all its threads), or -1 where the OS tells none. */
  long cpuNanos() {
    return process.cpuNanos();
  }

  /** The app's process id. */
  long pid() {
    return process.process.pid();
  }

  /** Size of the app's output file ({@code app.log}: its whole log) now, in bytes. */
  long logBytes() {
    try {
      return Files.size(process.log);
    } catch (IOException e) {
      return -1;
    }
  }

  /** Stops the app and deletes its data directory. */
  @Override
  public void close() throws Exception {
    process.stop(Duration.ofSeconds(30));
    TempDirectories.delete(dataDir);
  }
}
