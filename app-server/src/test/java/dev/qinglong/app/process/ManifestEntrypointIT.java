package dev.qinglong.app.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.postgres.PostgresLogins;
import dev.qinglong.postgres.PostgresMigrations;
import dev.qinglong.testkit.AppProcess;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The container's entry point run as a process with the arguments and environment the manifests of
 * {@code deploy/overlays/cnpg} give it: the image's {@code java
 * org.springframework.boot.loader.launch.JarLauncher} on the packaged jar, the migration Job's
 * {@code migrate} argument, and for each container the ConfigMap ({@code envFrom}) plus its own
 * {@code env} (base and overlay patch merged by name), secrets replaced by this database's logins,
 * the downward API values filled the way Kubernetes fills them and {@code $(VAR)} references
 * expanded.
 *
 * <p>What the test environment changes, and only that: the database host and TLS (the local server
 * has no TLS and no CNPG CA; the URL's timeout and {@code options} parameters are kept), the
 * listening addresses and ports (free loopback ports instead of 0.0.0.0:8080/8081), the data dir (a
 * temporary directory), the JWK Set URI (a closed loopback port, so nothing reaches the example
 * IdP), and a heap cap on the command line (no container memory limit here). The roles are created
 * the way CloudNativePG's managed roles would be, before the Job.
 *
 * <p>Limit: the local server trusts its roles, so a role's password is not checked here, and a role
 * login whose variables bound nothing would fall back to the same default user name. That the
 * variable names bind is DeployManifestsTest's check (Spring Boot's canonical form); the owner's
 * are proven here, since the migrate step refuses to run without them.
 */
class ManifestEntrypointIT {
  private static final Path DEPLOY = Path.of("..", "deploy").toAbsolutePath().normalize();
  private static final Duration START = Duration.ofSeconds(120);
  private static final Pattern VAR = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");
  private static final Pattern URL =
      Pattern.compile("^jdbc:postgresql://qinglong-db-rw:5432/qinglong\\?(.*)$");

  @TempDir Path dataDir;
  private final Path logDir = Path.of("target", "process-logs", "manifest-entrypoint");
  private final List<Process> processes = new ArrayList<>();
  private final List<AppProcess> apps = new ArrayList<>();
  private TestDatabase db;

  @AfterEach
  void stop() throws InterruptedException {
    for (AppProcess app : apps) {
      app.close();
    }
    for (Process p : processes) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void theMigrationJobThenEachWorkloadStartFromTheManifestEnvironment() throws Exception {
    db = PostgresTestServer.get().createDatabase("manifest_entrypoint");
    try (HikariDataSource owner = db.newDataSource(1)) {
      // CloudNativePG's part: the managed ql3_* roles exist before the first migration.
      PostgresLogins.bootstrap(owner);
    }

    Map<String, Object> configMap =
        merged(
            "ConfigMap",
            "qinglong-config",
            "base/configmap.yaml",
            "overlays/cnpg/patch-configmap.yaml");
    Map<String, Object> job =
        merged("Job", "qinglong-migrate", "base/migrate.yaml", "overlays/cnpg/patch-migrate.yaml");
    Map<String, Object> jobContainer = container(job);
    assertThat(list(jobContainer, "args")).containsExactly("migrate");
    Process migrate =
        launch("migrate", environment(configMap, jobContainer), list(jobContainer, "args"));
    assertThat(migrate.waitFor(START.toSeconds(), TimeUnit.SECONDS))
        .as("the migration Job's process exits")
        .isTrue();
    String jobLog = Files.readString(logDir.resolve("migrate.log"), StandardCharsets.UTF_8);
    assertThat(migrate.exitValue()).as(jobLog).isZero();
    assertThat(jobLog)
        .as("the JVM took the manifest's flags, sized from the CPU limit")
        .contains("Picked up JAVA_TOOL_OPTIONS: -XX:ActiveProcessorCount=1 ");
    try (HikariDataSource owner = db.newDataSource(1)) {
      assertThat(PostgresMigrations.appliedVersion(owner))
          .isGreaterThanOrEqualTo(PostgresMigrations.REQUIRED_VERSION);
    }

    // Writer first: it creates the storage identity that readers only verify.
    for (String component : List.of("writer", "reader", "worker")) {
      Map<String, Object> workload =
          merged(
              component.equals("reader") ? "StatefulSet" : "Deployment",
              "qinglong-" + component,
              "base/" + component + ".yaml",
              "overlays/cnpg/patch-" + component + ".yaml");
      Map<String, String> env = environment(configMap, container(workload));
      assertThat(env.get("QINGLONG_ROLE")).isEqualTo(component);
      assertThat(env)
          .doesNotContainKeys("QINGLONG_POSTGRES_USERNAME", "QINGLONG_POSTGRES_PASSWORD");
      AppProcess app = AppProcess.fromEnvironment(component, logDir, env, jarLauncher());
      apps.add(app);
      app.awaitReady(START);
      assertThat(app.body("/actuator/health/readiness"))
          .as(component + " readiness names its role")
          .contains("\"" + component + "\"");
      assertThat(app.output()).contains("Picked up JAVA_TOOL_OPTIONS: -XX:ActiveProcessorCount=1 ");
    }
  }

  // ---------------------------------------------------------------- the manifests' environment

  /**
   * What the container gets: the ConfigMap's data, then its own env (Kubernetes gives env
   * precedence), with the test substitutions of the class comment.
   */
  private Map<String, String> environment(
      Map<String, Object> configMap, Map<String, Object> container) throws IOException {
    Map<String, String> env = new LinkedHashMap<>();
    for (Object from : list(container, "envFrom")) {
      assertThat(map(map(from).get("configMapRef")).get("name")).isEqualTo("qinglong-config");
      map(configMap.get("data")).forEach((k, v) -> env.put(k, String.valueOf(v)));
    }
    for (Object item : list(container, "env")) {
      Map<String, Object> e = map(item);
      String name = (String) e.get("name");
      if (e.containsKey("value")) {
        env.put(name, expand(String.valueOf(e.get("value")), env));
      } else {
        env.put(name, valueFrom(name, map(e.get("valueFrom")), container));
      }
    }
    int port = AppProcess.freePort();
    int managementPort = AppProcess.freePort();
    Path tmp = Files.createDirectories(dataDir.resolve("tmp"));
    env.put("QINGLONG_POSTGRES_URL", localUrl(env.get("QINGLONG_POSTGRES_URL")));
    env.put("QINGLONG_DATADIR", dataDir.toString());
    env.put("SERVER_ADDRESS", "127.0.0.1");
    env.put("SERVER_PORT", Integer.toString(port));
    env.put("MANAGEMENT_SERVER_ADDRESS", "127.0.0.1");
    env.put("MANAGEMENT_SERVER_PORT", Integer.toString(managementPort));
    env.put("QINGLONG_AUTH_JWT_JWKSETURI", "http://127.0.0.1:9/jwks");
    env.put("QINGLONG_READINESS_REFRESHINTERVAL", "250ms");
    // The container's /tmp is an emptyDir; here a directory of its own.
    env.computeIfPresent(
        "JAVA_TOOL_OPTIONS",
        (k, v) -> v.replace("-Djava.io.tmpdir=/tmp", "-Djava.io.tmpdir=" + tmp));
    return env;
  }

  /** What the secret qinglong-webhooks-key holds here: base64 of 32 bytes, as created. */
  private static final String WEBHOOKS_KEY =
      java.util.Base64.getEncoder().encodeToString(new byte[32]);

  private String valueFrom(String name, Map<String, Object> from, Map<String, Object> container) {
    if (from.containsKey("secretKeyRef")) {
      Map<String, Object> ref = map(from.get("secretKeyRef"));
      String secret = (String) ref.get("name");
      boolean username = "username".equals(ref.get("key"));
      if (secret.equals("qinglong-db-owner")) {
        return username ? db.username() : (db.password() == null ? "" : db.password());
      }
      if (secret.equals("qinglong-webhooks-key")) {
        // The sealing key (docs/deploy.md#3-create-the-secrets): the same for every workload.
        assertThat(ref.get("key")).isEqualTo("secret-key");
        return WEBHOOKS_KEY;
      }
      assertThat(secret).startsWith("qinglong-role-ql3-");
      // The role secrets hold the role's name (docs/deploy.md#3-create-the-secrets); the local
      // server trusts the role.
      String role = "ql3_" + secret.substring("qinglong-role-ql3-".length()).replace('-', '_');
      return username ? role : "password-from-" + secret;
    }
    if (from.containsKey("fieldRef")) {
      assertThat(map(from.get("fieldRef")).get("fieldPath"))
          .isEqualTo("metadata.labels['apps.kubernetes.io/pod-index']");
      return "0"; // qinglong-reader-0
    }
    if (from.containsKey("resourceFieldRef")) {
      Map<String, Object> ref = map(from.get("resourceFieldRef"));
      assertThat(ref.get("resource")).as(name).isEqualTo("limits.cpu");
      String limit = String.valueOf(map(map(container.get("resources")).get("limits")).get("cpu"));
      // Kubernetes rounds a CPU quantity up to the divisor (1): "1" -> 1, "500m" -> 1.
      BigDecimal cpus =
          limit.endsWith("m")
              ? new BigDecimal(limit.substring(0, limit.length() - 1)).movePointLeft(3)
              : new BigDecimal(limit);
      return cpus.setScale(0, RoundingMode.CEILING).toPlainString();
    }
    throw new AssertionError("unsupported valueFrom for " + name + ": " + from);
  }

  /** Kubernetes' dependent environment variables: $(NAME) of a variable defined earlier. */
  private static String expand(String value, Map<String, String> defined) {
    Matcher m = VAR.matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String replacement = defined.getOrDefault(m.group(1), m.group());
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** The manifest's URL on the local server: its parameters kept, TLS off (the only change). */
  private String localUrl(String manifestUrl) {
    Matcher m = URL.matcher(manifestUrl);
    assertThat(m.matches()).as(manifestUrl).isTrue();
    List<String> kept = new ArrayList<>();
    for (String parameter : m.group(1).split("&")) {
      if (!parameter.startsWith("sslmode=") && !parameter.startsWith("sslrootcert=")) {
        kept.add(parameter);
      }
    }
    assertThat(kept)
        .anyMatch(p -> p.startsWith("options="))
        .anyMatch(p -> p.startsWith("socketTimeout="));
    kept.add("sslmode=disable");
    String base = db.jdbcUrl();
    return base + (base.contains("?") ? "&" : "?") + String.join("&", kept);
  }

  // ---------------------------------------------------------------- processes

  /** The image's ENTRYPOINT on the packaged jar: java ... JarLauncher, plus the manifest's args. */
  private static List<String> jarLauncher() throws IOException {
    return List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m",
        "-XX:TieredStopAtLevel=1",
        "-cp",
        AppProcess.jar().toString(),
        "org.springframework.boot.loader.launch.JarLauncher");
  }

  private Process launch(String name, Map<String, String> env, List<Object> args)
      throws IOException {
    List<String> cmd = new ArrayList<>(jarLauncher());
    args.forEach(a -> cmd.add(String.valueOf(a)));
    Files.createDirectories(logDir);
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.to(logDir.resolve(name + ".log").toFile()));
    AppProcess.onlyThis(pb.environment(), env);
    Process p = pb.start();
    processes.add(p);
    return p;
  }

  // ---------------------------------------------------------------- the YAML files

  /**
   * The object {@code kind/name} of the base file with the overlay's patch merged the way a
   * strategic merge patch merges these fields: maps deeply, containers, env and volumes by name,
   * volume mounts by path, other lists replaced.
   */
  private static Map<String, Object> merged(String kind, String name, String base, String patch)
      throws IOException {
    Map<String, Object> object = find(load(base), kind, name);
    merge(object, find(load(patch), kind, name));
    return object;
  }

  private static List<Map<String, Object>> load(String file) throws IOException {
    List<Map<String, Object>> docs = new ArrayList<>();
    for (Object doc :
        new Yaml(new SafeConstructor(new LoaderOptions()))
            .loadAll(Files.readString(DEPLOY.resolve(file), StandardCharsets.UTF_8))) {
      if (doc != null) {
        docs.add(map(doc));
      }
    }
    return docs;
  }

  private static Map<String, Object> find(
      List<Map<String, Object>> docs, String kind, String name) {
    return docs.stream()
        .filter(d -> kind.equals(d.get("kind")) && name.equals(map(d.get("metadata")).get("name")))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + kind + " " + name));
  }

  private static final Map<String, String> MERGE_KEYS =
      Map.of("containers", "name", "env", "name", "volumes", "name", "volumeMounts", "mountPath");

  @SuppressWarnings("unchecked")
  private static void merge(Map<String, Object> target, Map<String, Object> patch) {
    for (Map.Entry<String, Object> e : patch.entrySet()) {
      Object existing = target.get(e.getKey());
      Object incoming = e.getValue();
      if (existing instanceof Map<?, ?> em && incoming instanceof Map<?, ?> im) {
        merge((Map<String, Object>) em, (Map<String, Object>) im);
      } else if (existing instanceof List<?> el
          && incoming instanceof List<?> il
          && MERGE_KEYS.containsKey(e.getKey())) {
        String key = MERGE_KEYS.get(e.getKey());
        List<Object> out = new ArrayList<>(el);
        for (Object item : il) {
          Object id = map(item).get(key);
          Object same =
              out.stream().filter(o -> id.equals(map(o).get(key))).findFirst().orElse(null);
          if (same == null) {
            out.add(item);
          } else {
            merge(map(same), map(item));
          }
        }
        target.put(e.getKey(), out);
      } else {
        target.put(e.getKey(), incoming);
      }
    }
  }

  private static Map<String, Object> container(Map<String, Object> workload) {
    Map<String, Object> pod = map(map(map(workload.get("spec")).get("template")).get("spec"));
    List<Object> containers = list(pod, "containers");
    assertThat(containers).hasSize(1);
    return map(containers.get(0));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    return o instanceof Map<?, ?> m ? (Map<String, Object>) m : new LinkedHashMap<>();
  }

  @SuppressWarnings("unchecked")
  private static List<Object> list(Map<String, Object> m, String key) {
    return m.get(key) instanceof List<?> l ? (List<Object>) l : List.of();
  }
}
