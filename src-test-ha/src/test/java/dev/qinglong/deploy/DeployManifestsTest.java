package dev.qinglong.deploy;

import static dev.qinglong.deploy.Manifests.at;
import static dev.qinglong.deploy.Manifests.list;
import static dev.qinglong.deploy.Manifests.map;
import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.postgres.PostgresLogins;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Checks what {@code deploy/base} and {@code deploy/overlays/cnpg} render to (docs/deploy.md). Each
 * check runs twice: on {@code kubectl kustomize} output (skipped, visibly, without kubectl; a
 * failure instead when {@code CI=true}) and on the structural rendering of the YAML files, so it
 * holds on machines without kubectl too.
 */
@Tag("deploy")
class DeployManifestsTest {
  private static final Path DEPLOY =
      Path.of(System.getProperty("qinglong.deploy.dir", "../deploy")).toAbsolutePath().normalize();
  private static final Path REPO = DEPLOY.getParent();
  private static final String IMAGE = "ghcr.io/qinglong/qinglong-control-plane:0.1.0";
  private static final Map<String, String> FROZEN_QUOTA =
      Map.of(
          "QINGLONG_MANAGEMENTQUOTA_ENABLED", "true",
          "QINGLONG_MANAGEMENTQUOTA_WINDOW", "60s",
          "QINGLONG_MANAGEMENTQUOTA_LIMITS_PROPOSE", "30",
          "QINGLONG_MANAGEMENTQUOTA_LIMITS_DECIDE", "60",
          "QINGLONG_MANAGEMENTQUOTA_LIMITS_INSPECT", "600",
          "QINGLONG_MANAGEMENTQUOTA_LIMITS_MODELUSAGEREAD", "600",
          "QINGLONG_MANAGEMENTQUOTA_LIMITS_ARTIFACTUPLOAD", "20",
          "QINGLONG_AI_ENABLED", "false");

  /**
   * The qinglong.* properties of QingLongProperties (docs/operations.md#configuration) a manifest
   * may set, except the {@code roles.<role>} map, in their dashed form; {@link #envName} gives the
   * environment form.
   */
  private static final Set<String> PROPERTIES =
      Set.of(
          "qinglong.data-dir",
          "qinglong.store",
          "qinglong.role",
          "qinglong.log-format",
          "qinglong.webhooks.secret-key",
          "qinglong.auth.mode",
          "qinglong.auth.dev-tokens-on-network",
          "qinglong.auth.global-admins",
          "qinglong.auth.jwt.issuer-uri",
          "qinglong.auth.jwt.jwk-set-uri",
          "qinglong.auth.jwt.audience",
          "qinglong.auth.jwt.clock-skew",
          "qinglong.auth.jwt.token-types",
          "qinglong.management-quota.enabled",
          "qinglong.management-quota.window",
          "qinglong.management-quota.limits.propose",
          "qinglong.management-quota.limits.decide",
          "qinglong.management-quota.limits.inspect",
          "qinglong.management-quota.limits.model-usage-read",
          "qinglong.management-quota.limits.artifact-upload",
          "qinglong.shield.max-body-bytes",
          "qinglong.shield.max-concurrent-requests",
          "qinglong.shield.max-concurrent-requests-per-client",
          "qinglong.shield.max-concurrent-requests-per-principal",
          "qinglong.shield.trusted-proxies",
          "qinglong.readiness.refresh-interval",
          "qinglong.postgres.url",
          "qinglong.postgres.username",
          "qinglong.postgres.password",
          "qinglong.postgres.bootstrap-roles",
          "qinglong.postgres.migrate",
          "qinglong.postgres.manager-pool-size",
          "qinglong.postgres.admin-pool-size",
          "qinglong.ai.enabled",
          "qinglong.ai.runtime-pool-size",
          "qinglong.artifacts.max-bytes",
          "qinglong.artifacts.unreferenced-grace",
          "qinglong.artifacts.cleanup-interval",
          "qinglong.downloads.mode",
          "qinglong.downloads.rate-bytes-per-second",
          "qinglong.downloads.per-principal-bytes-per-second",
          "qinglong.downloads.slots",
          "qinglong.downloads.slot",
          "qinglong.downloads.max-concurrent",
          "qinglong.downloads.min-bytes-per-second",
          "qinglong.downloads.min-rate-window",
          "qinglong.downloads.socket-write-buffer-bytes");

  /** Role keys of qinglong.postgres.roles.<role> (QingLongProperties.Postgres#login callers). */
  private static final Set<String> ROLE_KEYS =
      Set.of("package-manager", "admin", "runtime", "package-executor", "reader");

  /** The long-running workloads; the migration Job is checked on its own. */
  private static final List<String> COMPONENTS = List.of("writer", "reader", "worker");

  private static final String MIGRATE_JOB = "qinglong-migrate";

  private static final String POD_INDEX = "metadata.labels['apps.kubernetes.io/pod-index']";
  private static final String ARTIFACTS_CLAIM = "qinglong-artifacts";
  private static final int MANAGEMENT_PORT = 8081;

  /**
   * The PostgreSQL major the tests and the HA gate run against (the server binaries of the CI
   * machine); the cluster's pinned image must be the same major.
   */
  private static final int TESTED_POSTGRES_MAJOR = 15;

  private static final String BARMAN_PLUGIN = "barman-cloud.cloudnative-pg.io";

  /**
   * The secret with the key that seals webhook signing secrets (created by the operator's admin).
   */
  private static final String WEBHOOK_KEY_SECRET = "qinglong-webhooks-key";

  /** qinglong.webhooks.secret-key in its canonical environment form. */
  private static final String WEBHOOK_KEY_ENV = "QINGLONG_WEBHOOKS_SECRETKEY";

  /** CloudNativePG's CA secret of the cluster qinglong-db (created by the operator). */
  private static final String DB_CA_SECRET = "qinglong-db-ca";

  private static final Set<String> MANAGED_LOGINS =
      Set.of(
          "ql3_admin", "ql3_package_manager", "ql3_package_executor", "ql3_runtime", "ql3_reader");

  /** A managed role that is no login: the first migration grants to it, nobody connects as it. */
  private static final String GRANT_ONLY_ROLE = "ql3_worker_ingress";

  private static Manifests render(String dir, Manifests.Renderer renderer) {
    if (renderer == Manifests.Renderer.KUBECTL && Manifests.kubectl().isEmpty()) {
      // In CI the kubectl rendering is required: a missing kubectl fails the build instead of
      // skipping the check silently. Elsewhere (a developer machine) it is a visible skip.
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        throw new AssertionError(
            "kubectl is not on PATH but CI=true: the kubectl kustomize rendering of the deploy"
                + " manifests must run in CI (install kubectl, e.g. /usr/bin/kubectl)");
      }
      Assumptions.assumeTrue(false, "kubectl is not on PATH (not CI: skipped)");
    }
    return Manifests.render(DEPLOY.resolve(dir), renderer);
  }

  @ParameterizedTest
  @EnumSource(Manifests.Renderer.class)
  void baseRendersTheWorkloadsWithProbesAndLockedDownPods(Manifests.Renderer renderer) {
    checkBase(render("base", renderer));
  }

  @ParameterizedTest
  @EnumSource(Manifests.Renderer.class)
  void cnpgOverlayKeepsTheBaseAndAddsTheClusterAndTheWiring(Manifests.Renderer renderer) {
    Manifests m = render("overlays/cnpg", renderer);
    checkBase(m);

    Map<String, Object> cluster = m.get("Cluster", "qinglong-db");
    assertThat(cluster.get("apiVersion")).isEqualTo("postgresql.cnpg.io/v1");
    assertThat(at(cluster, "spec", "instances")).isEqualTo(3);
    assertThat(at(cluster, "spec", "postgresql", "parameters", "synchronous_commit"))
        .isEqualTo("remote_apply");
    assertThat(at(cluster, "spec", "postgresql", "synchronous", "method")).isEqualTo("any");
    assertThat(at(cluster, "spec", "postgresql", "synchronous", "number")).isEqualTo(1);
    assertThat(at(cluster, "spec", "bootstrap", "initdb", "database")).isEqualTo("qinglong");

    Map<String, String> secretOfRole = new HashMap<>();
    Set<String> grantOnly = new HashSet<>();
    for (Object role : list(cluster, "spec", "managed", "roles")) {
      String name = (String) map(role).get("name");
      if (name.equals(GRANT_ONLY_ROLE)) {
        assertThat(map(role).get("login")).as(name).isEqualTo(false);
        assertThat(map(role).get("passwordSecret")).as(name + " passwordSecret").isNull();
        grantOnly.add(name);
        continue;
      }
      assertThat(map(role).get("login")).as(name).isEqualTo(true);
      for (String attribute : List.of("superuser", "createrole", "createdb", "replication")) {
        assertThat(map(role).get(attribute)).as(name + " " + attribute).isNotEqualTo(true);
      }
      String secret = (String) at(role, "passwordSecret", "name");
      assertThat(secret).as(name + " passwordSecret").isNotBlank();
      secretOfRole.put(name, secret);
    }
    assertThat(grantOnly).containsExactly(GRANT_ONLY_ROLE);
    assertThat(secretOfRole.keySet()).isEqualTo(MANAGED_LOGINS);
    assertThat(secretOfRole.keySet()).containsExactlyInAnyOrderElementsOf(PostgresLogins.LOGINS);
    assertThat(new HashSet<>(secretOfRole.values())).as("one secret per login").hasSize(5);

    Map<String, Object> config = map(m.get("ConfigMap", "qinglong-config"), "data");
    assertThat(config.get("QINGLONG_STORE")).isEqualTo("postgres");
    assertThat((String) config.get("QINGLONG_POSTGRES_URL"))
        .startsWith("jdbc:postgresql://qinglong-db-rw:5432/qinglong");
    assertThat(config.get("QINGLONG_POSTGRES_BOOTSTRAPROLES")).isEqualTo("false");

    checkLogins(m, cluster, secretOfRole);
    checkEnvNames("configmap", config.keySet());

    Map<String, Object> policy = m.get("NetworkPolicy", "qinglong");
    boolean databaseNarrowed =
        list(policy, "spec", "egress").stream()
            .anyMatch(
                rule ->
                    ports(rule).equals(Set.of(5432))
                        && "qinglong-db"
                            .equals(
                                at(
                                    rule,
                                    "to",
                                    0,
                                    "podSelector",
                                    "matchLabels",
                                    "cnpg.io/cluster")));
    assertThat(databaseNarrowed).as("egress to PostgreSQL only to the CNPG pods").isTrue();

    checkClusterOperations(m, cluster);
    checkDatabaseNetworkPolicy(m);
  }

  /**
   * What the runbooks rely on in the Cluster: a pinned PostgreSQL image of the major the tests run
   * on (ImageCatalog entry with minor and digest, no floating imageName), updates that move the
   * primary by switchover, and continuous backup through the barman-cloud plugin (ObjectStore with
   * a retention policy, a ScheduledBackup with method plugin), not the deprecated in-tree
   * barmanObjectStore.
   */
  private static void checkClusterOperations(Manifests m, Map<String, Object> cluster) {
    assertThat(at(cluster, "spec", "imageName")).as("no floating image name").isNull();
    Map<String, Object> ref = map(cluster, "spec", "imageCatalogRef");
    assertThat(ref)
        .containsEntry("apiGroup", "postgresql.cnpg.io")
        .containsEntry("kind", "ImageCatalog")
        .containsEntry("major", TESTED_POSTGRES_MAJOR);
    Map<String, Object> catalog = m.get("ImageCatalog", (String) ref.get("name"));
    assertThat(catalog.get("apiVersion")).isEqualTo("postgresql.cnpg.io/v1");
    List<Object> images =
        list(catalog, "spec", "images").stream()
            .filter(i -> Integer.valueOf(TESTED_POSTGRES_MAJOR).equals(map(i).get("major")))
            .toList();
    assertThat(images).as("one catalog entry for PostgreSQL " + TESTED_POSTGRES_MAJOR).hasSize(1);
    assertThat((String) map(images.get(0)).get("image"))
        .as("pinned: major.minor tag and digest")
        .matches(
            "ghcr\\.io/cloudnative-pg/postgresql:"
                + TESTED_POSTGRES_MAJOR
                + "\\.\\d+[-\\w]*@sha256:[0-9a-f]{64}");

    assertThat(at(cluster, "spec", "primaryUpdateMethod")).isEqualTo("switchover");
    assertThat(at(cluster, "spec", "primaryUpdateStrategy")).isEqualTo("unsupervised");

    assertThat(map(cluster, "spec", "backup"))
        .as("no in-tree barmanObjectStore (deprecated)")
        .doesNotContainKey("barmanObjectStore");
    List<Object> plugins =
        list(cluster, "spec", "plugins").stream()
            .filter(p -> BARMAN_PLUGIN.equals(map(p).get("name")))
            .toList();
    assertThat(plugins).as("the barman-cloud plugin").hasSize(1);
    assertThat(map(plugins.get(0)).get("isWALArchiver")).as("WAL archiver").isEqualTo(true);
    String storeName = (String) at(plugins.get(0), "parameters", "barmanObjectName");
    Map<String, Object> store = m.get("ObjectStore", storeName);
    assertThat(store.get("apiVersion")).isEqualTo("barmancloud.cnpg.io/v1");
    assertThat((String) at(store, "spec", "configuration", "destinationPath")).startsWith("s3://");
    assertThat((String) at(store, "spec", "retentionPolicy")).matches("\\d+[dwm]");
    assertThat(at(store, "spec", "configuration", "serverName"))
        .as("serverName belongs to the plugin parameters, never the ObjectStore")
        .isNull();

    List<Map<String, Object>> schedules = m.ofKind("ScheduledBackup");
    assertThat(schedules).hasSize(1);
    Map<String, Object> schedule = schedules.get(0);
    assertThat(at(schedule, "spec", "cluster", "name")).isEqualTo(at(cluster, "metadata", "name"));
    assertThat(at(schedule, "spec", "method")).isEqualTo("plugin");
    assertThat(at(schedule, "spec", "pluginConfiguration", "name")).isEqualTo(BARMAN_PLUGIN);
    assertThat(((String) at(schedule, "spec", "schedule")).trim().split("\\s+"))
        .as("the operator's cron format has a seconds field")
        .hasSize(6);
  }

  /**
   * The database pods admit PostgreSQL only from the QingLong pods, each other (replication) and
   * the operator (also its status port); metrics only from monitoring; nothing from everywhere.
   */
  private static void checkDatabaseNetworkPolicy(Manifests m) {
    Map<String, Object> policy = m.get("NetworkPolicy", "qinglong-db");
    assertThat(map(policy, "spec", "podSelector", "matchLabels"))
        .isEqualTo(Map.of("cnpg.io/cluster", "qinglong-db"));
    assertThat(list(policy, "spec", "policyTypes")).contains("Ingress");
    Map<String, Object> appPods =
        map(m.get("NetworkPolicy", "qinglong"), "spec", "podSelector", "matchLabels");
    Set<String> peersOn5432 = new TreeSet<>();
    for (Object rule : list(policy, "spec", "ingress")) {
      assertThat(list(rule, "from")).as("every ingress rule names its sources").isNotEmpty();
      assertThat(ports(rule)).as("every ingress rule names its ports").isNotEmpty();
      for (Object from : list(rule, "from")) {
        assertThat(map(from)).as("no ipBlock peers").doesNotContainKey("ipBlock");
        Map<String, Object> pods = map(from, "podSelector", "matchLabels");
        if (ports(rule).contains(5432)) {
          if (pods.equals(appPods) && !map(from).containsKey("namespaceSelector")) {
            peersOn5432.add("app");
          } else if (pods.equals(Map.of("cnpg.io/cluster", "qinglong-db"))) {
            peersOn5432.add("instances");
          } else if ("cloudnative-pg".equals(pods.get("app.kubernetes.io/name"))) {
            assertThat(ports(rule)).contains(8000);
            peersOn5432.add("operator");
          } else {
            throw new AssertionError("unexpected PostgreSQL client " + from);
          }
        } else {
          assertThat(ports(rule)).as("metrics only").isEqualTo(Set.of(9187));
          assertThat(at(from, "namespaceSelector", "matchLabels", "kubernetes.io/metadata.name"))
              .isEqualTo("monitoring");
        }
      }
    }
    assertThat(peersOn5432).containsExactlyInAnyOrder("app", "instances", "operator");
  }

  /**
   * PodMonitors scrape every long-running workload on its management port at the actuator's
   * Prometheus path — the worker too, which has no Service — and the CNPG instances on their
   * metrics port.
   */
  @ParameterizedTest
  @EnumSource(Manifests.Renderer.class)
  void podMonitorsScrapeEveryWorkloadAndTheDatabase(Manifests.Renderer renderer) {
    Manifests app = render("overlays/cnpg", renderer);
    Manifests monitoring = render("monitoring", renderer);
    assertThat(app.ofKind("Service"))
        .as("the worker has no Service: only a PodMonitor finds it")
        .noneMatch(s -> "worker".equals(at(s, "spec", "selector", "app.kubernetes.io/component")));
    for (String component : COMPONENTS) {
      Map<String, Object> d = workload(app, component);
      Map<String, Object> monitor = monitoring.get("PodMonitor", "qinglong-" + component);
      assertThat(monitor.get("apiVersion")).isEqualTo("monitoring.coreos.com/v1");
      Map<String, Object> selector = map(monitor, "spec", "selector", "matchLabels");
      assertThat(map(d, "spec", "template", "metadata", "labels"))
          .as(component + " pods match the PodMonitor")
          .containsAllEntriesOf(selector);
      assertThat(selector)
          .as(component + " PodMonitor selects only this workload")
          .containsEntry("app.kubernetes.io/component", component);
      List<Object> endpoints = list(monitor, "spec", "podMetricsEndpoints");
      assertThat(endpoints).hasSize(1);
      assertThat(map(endpoints.get(0)))
          .containsEntry("port", "management")
          .containsEntry("path", "/actuator/prometheus");
      assertThat(at(d, "spec", "template", "spec", "containers", 0, "ports", 1, "name"))
          .isEqualTo("management");
    }
    Map<String, Object> db = monitoring.get("PodMonitor", "qinglong-db");
    assertThat(map(db, "spec", "selector", "matchLabels"))
        .containsEntry(
            "cnpg.io/cluster", at(app.get("Cluster", "qinglong-db"), "metadata", "name"));
    assertThat(at(db, "spec", "podMetricsEndpoints", 0, "port")).isEqualTo("metrics");
  }

  /**
   * The optional patch-writer-ai.yaml (not listed in the overlay) is what enabling AI takes: with
   * it and QINGLONG_AI_ENABLED=true the writer, and only the writer, gains the ql3_runtime login.
   */
  @ParameterizedTest
  @EnumSource(Manifests.Renderer.class)
  void enablingAiAddsTheRuntimeLoginToTheWriterOnly(Manifests.Renderer renderer) {
    Manifests m = render("overlays/cnpg", renderer);
    Path aiPatch = DEPLOY.resolve("overlays/cnpg/patch-writer-ai.yaml");
    assertThat(list(loadKustomization("overlays/cnpg"), "patches"))
        .as("AI stays off in the shipped overlay")
        .noneMatch(p -> aiPatch.getFileName().toString().equals(map(p).get("path")));
    m.patchedWith(aiPatch);
    map(m.get("ConfigMap", "qinglong-config"), "data").put("QINGLONG_AI_ENABLED", "true");
    Map<String, Object> cluster = m.get("Cluster", "qinglong-db");
    Map<String, String> secretOfRole = new HashMap<>();
    for (Object role : list(cluster, "spec", "managed", "roles")) {
      secretOfRole.put((String) map(role).get("name"), (String) at(role, "passwordSecret", "name"));
    }
    checkLogins(m, cluster, secretOfRole);
    assertThat(secretsOf(workload(m, "writer"))).contains(secretOfRole.get("ql3_runtime"));
  }

  /** The pattern of the app's artifact route (ArtifactRoutes), in the samples it must split. */
  private static final List<String> ARTIFACT_PATHS =
      List.of(
          "/v1/projects/demo/artifacts/sha256:" + "ab".repeat(32), "/v1/projects/p-1/artifacts/x");

  private static final List<String> OTHER_PATHS =
      List.of(
          "/v1/projects/demo/artifacts",
          "/v1/projects/demo/artifacts/",
          "/v1/projects/demo/plugin-packages/proposals",
          "/v1/projects/demo/members/alice",
          "/v1/projects/a/b/artifacts/x",
          "/v1/projects/demo/artifacts/x/y",
          "/console/");

  /**
   * The app's graceful shutdown phase when a workload does not set its own
   * (application.properties).
   */
  private static final int APP_SHUTDOWN_PHASE_SECONDS = 20;

  /**
   * The example HTTPRoute sends GET and HEAD of an artifact, and nothing else, to the readers, and
   * everything else to the writers, through Services and ports that deploy/base defines.
   */
  @ParameterizedTest
  @EnumSource(Manifests.Renderer.class)
  void httpRouteSendsArtifactReadsToReadersAndEverythingElseToWriters(Manifests.Renderer renderer) {
    Manifests base = render("base", renderer);
    Map<String, Object> route =
        render("routing/gateway-api", renderer).get("HTTPRoute", "qinglong");
    assertThat(route.get("apiVersion")).isEqualTo("gateway.networking.k8s.io/v1");
    assertThat(list(route, "spec", "parentRefs")).isNotEmpty();
    Set<String> readerMethods = new TreeSet<>();
    boolean writerCatchAll = false;
    for (Object rule : list(route, "spec", "rules")) {
      List<Object> backends = list(rule, "backendRefs");
      assertThat(backends).as("one backend per rule").hasSize(1);
      String service = (String) map(backends.get(0)).get("name");
      checkServicePort(base, service, map(backends.get(0)).get("port"));
      assertThat(at(rule, "timeouts", "request"))
          .as(service + ": a request timeout longer than the 15 s some proxies default to")
          .isNotNull();
      for (Object match : list(rule, "matches")) {
        String type = (String) at(match, "path", "type");
        String value = (String) at(match, "path", "value");
        Object method = map(match).get("method");
        if (service.equals("qinglong-reader")) {
          assertThat(method).as("readers get only GET and HEAD").isIn("GET", "HEAD");
          assertThat(type).isEqualTo("RegularExpression");
          java.util.regex.Pattern pattern = java.util.regex.Pattern.compile(value);
          assertThat(ARTIFACT_PATHS).allMatch(p -> pattern.matcher(p).matches());
          assertThat(OTHER_PATHS).noneMatch(p -> pattern.matcher(p).matches());
          readerMethods.add((String) method);
        } else {
          assertThat(service).isEqualTo("qinglong-writer");
          if (method == null && "PathPrefix".equals(type) && "/".equals(value)) {
            writerCatchAll = true;
          }
        }
      }
    }
    assertThat(readerMethods).containsExactly("GET", "HEAD");
    assertThat(writerCatchAll).as("everything else goes to the writers").isTrue();
  }

  /**
   * The Ingress alternative (no method matching): the API host goes to the writers, a downloads
   * host to the readers, through Services and ports that deploy/base defines.
   */
  @ParameterizedTest
  @EnumSource(Manifests.Renderer.class)
  void ingressSendsTheApiHostToWritersAndTheDownloadsHostToReaders(Manifests.Renderer renderer) {
    Manifests base = render("base", renderer);
    Map<String, Object> ingress = render("routing/ingress", renderer).get("Ingress", "qinglong");
    Map<String, String> serviceOfHost = new HashMap<>();
    for (Object rule : list(ingress, "spec", "rules")) {
      List<Object> paths = list(rule, "http", "paths");
      assertThat(paths).hasSize(1);
      Object backend = at(paths.get(0), "backend", "service");
      String service = (String) map(backend).get("name");
      checkServicePort(base, service, at(backend, "port", "name"));
      serviceOfHost.put((String) map(rule).get("host"), service);
    }
    assertThat(serviceOfHost)
        .containsOnlyKeys("qinglong.example.com", "downloads.qinglong.example.com")
        .containsEntry("qinglong.example.com", "qinglong-writer")
        .containsEntry("downloads.qinglong.example.com", "qinglong-reader");
  }

  private static void checkServicePort(Manifests base, String service, Object port) {
    Map<String, Object> s = base.get("Service", service);
    assertThat(list(s, "spec", "ports"))
        .as("Service " + service + " has port " + port)
        .anyMatch(p -> port.equals(map(p).get("port")) || port.equals(map(p).get("name")));
  }

  /**
   * Writers and readers (behind Services) wait before SIGTERM so that endpoint removal reaches the
   * proxies first, then shut down gracefully; the grace period covers the delay and the app's
   * shutdown phase (readers: longer, running downloads finish).
   */
  @ParameterizedTest
  @EnumSource(Manifests.Renderer.class)
  void servedWorkloadsDelayTheirStopAndShutDownGracefully(Manifests.Renderer renderer) {
    Manifests m = render("overlays/cnpg", renderer);
    assertThat(map(m.get("ConfigMap", "qinglong-config"), "data").get("SERVER_SHUTDOWN"))
        .isEqualTo("graceful");
    for (String component : List.of("writer", "reader")) {
      Map<String, Object> d = workload(m, component);
      Map<String, Object> c = map(d, "spec", "template", "spec", "containers", 0);
      List<Object> command = list(c, "lifecycle", "preStop", "exec", "command");
      assertThat(command).as(component + " preStop").hasSize(2).startsWith("sleep");
      int delay = Integer.parseInt((String) command.get(1));
      assertThat(delay).as(component + " preStop delay").isBetween(5, 30);
      String phase = effectiveEnv(m, d).get("SPRING_LIFECYCLE_TIMEOUTPERSHUTDOWNPHASE");
      int phaseSeconds =
          phase == null
              ? APP_SHUTDOWN_PHASE_SECONDS
              : Integer.parseInt(phase.substring(0, phase.length() - 1));
      assertThat(phase == null || phase.endsWith("s")).as(phase).isTrue();
      assertThat((Integer) at(d, "spec", "template", "spec", "terminationGracePeriodSeconds"))
          .as(component + ": grace period covers preStop + the shutdown phase")
          .isGreaterThanOrEqualTo(delay + phaseSeconds + 5);
    }
    assertThat(
            effectiveEnv(m, workload(m, "reader")).get("SPRING_LIFECYCLE_TIMEOUTPERSHUTDOWNPHASE"))
        .as("readers let running downloads finish longer than the default")
        .isNotNull();
  }

  @Test
  void environmentNamesFollowSpringBootsCanonicalForm() {
    // Checked against Spring Boot 4.0 binding: the dashed-to-underscore form also binds JavaBean
    // properties but never a map key (roles.package-manager), and a half-converted name such as
    // QINGLONG_MANAGEMENT_QUOTA_LIMITS_MODELUSAGEREAD binds nothing.
    assertThat(envName("qinglong.downloads.rate-bytes-per-second"))
        .isEqualTo("QINGLONG_DOWNLOADS_RATEBYTESPERSECOND");
    assertThat(envName("qinglong.management-quota.limits.model-usage-read"))
        .isEqualTo("QINGLONG_MANAGEMENTQUOTA_LIMITS_MODELUSAGEREAD");
    assertThat(envName("qinglong.postgres.roles.package-manager.password"))
        .isEqualTo("QINGLONG_POSTGRES_ROLES_PACKAGEMANAGER_PASSWORD");
  }

  @Test
  void dockerfileBuildsTheLayeredJarAndRunsAsNonRoot() throws IOException {
    String dockerfile = Files.readString(REPO.resolve("Dockerfile"), StandardCharsets.UTF_8);
    assertThat(dockerfile)
        .contains("-Djarmode=tools")
        .contains("extract --layers --launcher")
        .contains("org.springframework.boot.loader.launch.JarLauncher")
        .contains("-pl app-server")
        .contains("ghcr.io/qinglong/qinglong-control-plane");
    List<String> users =
        dockerfile.lines().filter(l -> l.startsWith("USER ")).map(String::trim).toList();
    assertThat(users).isNotEmpty();
    assertThat(users.get(users.size() - 1)).isEqualTo("USER 10001:10001");
  }

  /**
   * Reproducible, cache-friendly image: every base image pinned by digest (directly or through an
   * ARG default), the poms copied and the dependencies fetched into a BuildKit cache mount before
   * the sources are copied, and the server bound to all interfaces inside the container.
   */
  @Test
  void dockerfilePinsBaseImagesCachesDependenciesAndListensOnAllInterfaces() throws IOException {
    List<String> lines =
        Files.readString(REPO.resolve("Dockerfile"), StandardCharsets.UTF_8).lines().toList();
    Map<String, String> args = new HashMap<>();
    for (String line : lines) {
      java.util.regex.Matcher arg =
          java.util.regex.Pattern.compile("^ARG (\\w+)=(\\S+)$").matcher(line);
      if (arg.matches()) {
        args.put(arg.group(1), arg.group(2));
      }
    }
    List<String> froms = lines.stream().filter(l -> l.startsWith("FROM ")).toList();
    assertThat(froms).hasSizeGreaterThanOrEqualTo(2);
    for (String from : froms) {
      String image = from.split("\\s+")[1];
      java.util.regex.Matcher ref =
          java.util.regex.Pattern.compile("^\\$\\{(\\w+)}$").matcher(image);
      if (ref.matches()) {
        image = args.get(ref.group(1));
      }
      assertThat(image).as(from + ": pinned by digest").matches(".+@sha256:[0-9a-f]{64}");
    }

    int copySources = lines.indexOf("COPY . .");
    assertThat(copySources).as("COPY . . (the sources)").isPositive();
    List<String> beforeSources = lines.subList(0, copySources);
    for (String module : defaultModules()) {
      assertThat(beforeSources)
          .as("the pom of " + module + " is copied before the sources")
          .contains("COPY " + module + "/pom.xml " + module + "/");
    }
    int prefetch = -1;
    for (int i = 0; i < copySources; i++) {
      if (lines.get(i).contains("--mount=type=cache,target=/root/.m2")) {
        prefetch = i;
      }
    }
    assertThat(prefetch).as("a dependency download into the cache before the sources").isPositive();
    assertThat(String.join("\n", lines.subList(prefetch, copySources))).contains("./mvnw");
    int build = -1;
    for (int i = copySources; i < lines.size(); i++) {
      if (lines.get(i).contains("--mount=type=cache,target=/root/.m2")) {
        build = i;
      }
    }
    assertThat(build).as("the package step uses the same cache").isGreaterThan(copySources);

    int lastFrom = lines.indexOf(froms.get(froms.size() - 1));
    assertThat(lines.subList(lastFrom, lines.size()))
        .as("the final stage listens on all interfaces (the app's default is 127.0.0.1)")
        .contains("ENV SERVER_ADDRESS=0.0.0.0");
  }

  /** The modules of the root pom's default build (not those of a profile). */
  private static List<String> defaultModules() throws IOException {
    String pom = Files.readString(REPO.resolve("pom.xml"), StandardCharsets.UTF_8);
    String modules = pom.substring(pom.indexOf("<modules>"), pom.indexOf("</modules>"));
    List<String> out = new java.util.ArrayList<>();
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("<module>([^<]+)</module>").matcher(modules);
    while (m.find()) {
      out.add(m.group(1));
    }
    assertThat(out).contains("app-server");
    return out;
  }

  /**
   * Every container's JVM is sized from its own CPU limit: the downward API hands the limit (whole
   * CPUs) to a variable defined before JAVA_TOOL_OPTIONS, which passes it as ActiveProcessorCount.
   */
  @ParameterizedTest
  @EnumSource(Manifests.Renderer.class)
  void jvmFlagsFollowTheContainersCpuLimit(Manifests.Renderer renderer) {
    Manifests m = render("overlays/cnpg", renderer);
    List<Map<String, Object>> workloads = new java.util.ArrayList<>();
    for (String component : COMPONENTS) {
      workloads.add(workload(m, component));
    }
    workloads.add(m.get("Job", MIGRATE_JOB));
    assertThat(map(m.get("ConfigMap", "qinglong-config"), "data"))
        .as("no JVM flags shared through the ConfigMap")
        .doesNotContainKey("JAVA_TOOL_OPTIONS");
    for (Map<String, Object> w : workloads) {
      String where = (String) at(w, "metadata", "name");
      Map<String, Object> c = map(w, "spec", "template", "spec", "containers", 0);
      assertThat(at(c, "resources", "limits", "cpu")).as(where + " CPU limit").isNotNull();
      List<String> names = envNames(w);
      int cpus = names.indexOf("JVM_ACTIVE_PROCESSORS");
      int options = names.indexOf("JAVA_TOOL_OPTIONS");
      assertThat(cpus).as(where + " JVM_ACTIVE_PROCESSORS").isNotNegative();
      assertThat(options)
          .as(where + ": defined after the variable it refers to")
          .isGreaterThan(cpus);
      Object field = at(list(c, "env").get(cpus), "valueFrom", "resourceFieldRef");
      assertThat(map(field))
          .containsEntry("resource", "limits.cpu")
          .containsEntry("containerName", c.get("name"));
      assertThat(String.valueOf(map(field).get("divisor"))).isEqualTo("1");
      assertThat((String) map(list(c, "env").get(options)).get("value"))
          .contains("-XX:ActiveProcessorCount=$(JVM_ACTIVE_PROCESSORS)")
          .contains("-XX:MaxRAMPercentage=");
    }
  }

  // ---------------------------------------------------------------- shared checks

  /**
   * Least privilege (docs/design.md#least-privilege-logins): the migration Job alone logs in as the
   * schema owner; each long-running workload holds exactly the logins its role opens: writer
   * ql3_package_manager and ql3_admin (+ ql3_runtime when AI is on), reader ql3_reader, worker
   * ql3_package_executor.
   */
  private static void checkLogins(
      Manifests m, Map<String, Object> cluster, Map<String, String> secretOfRole) {
    String owner = (String) at(cluster, "spec", "bootstrap", "initdb", "secret", "name");
    assertThat(owner).as("owner secret of the CNPG bootstrap").isNotBlank();
    Map<String, Object> config = map(m.get("ConfigMap", "qinglong-config"), "data");
    assertThat(config)
        .as("no credentials in the ConfigMap")
        .doesNotContainKeys("QINGLONG_POSTGRES_USERNAME", "QINGLONG_POSTGRES_PASSWORD");
    boolean ai = "true".equals(String.valueOf(config.get("QINGLONG_AI_ENABLED")));

    Set<String> writerRoles = new TreeSet<>(Set.of("PACKAGEMANAGER", "ADMIN"));
    if (ai) {
      writerRoles.add("RUNTIME");
    }
    Map<String, Set<String>> ownRoles =
        Map.of(
            "writer", writerRoles,
            "reader", Set.of("READER"),
            "worker", Set.of("PACKAGEEXECUTOR"));
    for (String component : COMPONENTS) {
      Map<String, Object> d = workload(m, component);
      Set<String> expected = ownRoles.get(component);
      Map<String, String> env = secretEnv(d);
      Set<String> wired = new TreeSet<>();
      // Writers and workers also read the key that seals webhook secrets, from one secret.
      boolean sealsWebhooks = !component.equals("reader");
      assertThat(env.get(WEBHOOK_KEY_ENV))
          .as(component + ": " + WEBHOOK_KEY_ENV)
          .isEqualTo(sealsWebhooks ? WEBHOOK_KEY_SECRET : null);
      for (Map.Entry<String, String> e : env.entrySet()) {
        String name = e.getKey();
        if (name.equals(WEBHOOK_KEY_ENV)) {
          continue;
        }
        assertThat(name)
            .as(component + ": every secret variable is a role login")
            .startsWith("QINGLONG_POSTGRES_ROLES_");
        String role = name.substring(24, name.lastIndexOf('_'));
        wired.add(role);
        String expectedSecret = secretOfRole.get("ql3_" + snake(role));
        assertThat(e.getValue()).as(component + " " + name).isEqualTo(expectedSecret);
      }
      assertThat(wired).as(component + " roles").isEqualTo(expected);
      Set<String> expectedSecrets = new TreeSet<>();
      for (String role : expected) {
        assertThat(env)
            .as(component)
            .containsKeys(
                "QINGLONG_POSTGRES_ROLES_" + role + "_USERNAME",
                "QINGLONG_POSTGRES_ROLES_" + role + "_PASSWORD");
        expectedSecrets.add(secretOfRole.get("ql3_" + snake(role)));
      }
      // Besides its logins, every workload reads the database CA (only ca.crt, see checkDbCa).
      expectedSecrets.add(DB_CA_SECRET);
      if (sealsWebhooks) {
        expectedSecrets.add(WEBHOOK_KEY_SECRET);
      }
      assertThat(secretsOf(d))
          .as(component + ": the only secrets its pods can read")
          .isEqualTo(expectedSecrets);
      checkDatabaseUrl(component, effectiveEnv(m, d).get("QINGLONG_POSTGRES_URL"), d);
      assertThat(envNames(d))
          .as(component + " has no schema-owner login")
          .doesNotContain("QINGLONG_POSTGRES_USERNAME", "QINGLONG_POSTGRES_PASSWORD");
      checkEnvNames(component, envNames(d));
    }

    Map<String, Object> job = m.get("Job", MIGRATE_JOB);
    Map<String, String> jobEnv = secretEnv(job);
    assertThat(jobEnv)
        .as("the migration Job logs in as the owner, and as nobody else")
        .isEqualTo(
            Map.of("QINGLONG_POSTGRES_USERNAME", owner, "QINGLONG_POSTGRES_PASSWORD", owner));
    assertThat(secretsOf(job)).as("migration Job secrets").isEqualTo(Set.of(owner, DB_CA_SECRET));
    checkEnvNames("migration Job", envNames(job));
    Map<String, String> jobConfig = effectiveEnv(m, job);
    assertThat(jobConfig.get("QINGLONG_STORE")).as("migration Job store").isEqualTo("postgres");
    Properties jobUrl =
        checkDatabaseUrl("migration Job", jobConfig.get("QINGLONG_POSTGRES_URL"), job);
    Properties appUrl = parseUrl((String) config.get("QINGLONG_POSTGRES_URL"));
    for (String key : List.of("PGHOST", "PGPORT", "PGDBNAME", "sslmode", "sslrootcert")) {
      assertThat(jobUrl.getProperty(key))
          .as("migration Job database: " + key + " as the workloads'")
          .isEqualTo(appUrl.getProperty(key));
    }
    assertThat(serverSetting(jobUrl, "lock_timeout"))
        .as("a migration waits only briefly for a table lock, never queueing the running release")
        .isNotNull()
        .isBetween(1L, 30_000L);
    assertThat(jobConfig.get("QINGLONG_POSTGRES_BOOTSTRAPROLES"))
        .as("CNPG manages the roles; the Job creates none")
        .isEqualTo("false");

    // Anywhere in anything rendered: only the CNPG bootstrap and the Job name the owner secret.
    Set<String> ownerReferences = new TreeSet<>();
    for (Map<String, Object> o : m.all()) {
      if (mentions(o, owner)) {
        ownerReferences.add(o.get("kind") + "/" + at(o, "metadata", "name"));
      }
    }
    assertThat(ownerReferences)
        .as("objects referencing the owner secret " + owner)
        .containsExactlyInAnyOrder("Cluster/qinglong-db", "Job/" + MIGRATE_JOB);
  }

  /**
   * The migration Job: the app image with the argument {@code migrate} (the image's entrypoint
   * kept), bounded retries and run time, cleaned up after it finished, locked down like the
   * long-running workloads, on the database network policy, and selected by no Service or PDB.
   */
  private static void checkMigrationJob(Manifests m) {
    assertThat(m.ofKind("Job")).hasSize(1);
    Map<String, Object> job = m.get("Job", MIGRATE_JOB);
    assertThat(job.get("apiVersion")).isEqualTo("batch/v1");
    Map<String, Object> pod = map(job, "spec", "template");
    Map<String, Object> c = map(pod, "spec", "containers", 0);
    assertThat(list(pod, "spec", "containers")).hasSize(1);
    assertThat(list(pod, "spec", "initContainers")).isEmpty();
    assertThat(list(c, "args")).containsExactly("migrate");
    assertThat(c).as("the image's entrypoint runs the jar").doesNotContainKey("command");
    assertThat(at(pod, "spec", "restartPolicy")).isIn("Never", "OnFailure");
    assertThat((Integer) at(job, "spec", "backoffLimit")).isBetween(0, 5);
    assertThat((Integer) at(job, "spec", "activeDeadlineSeconds")).isPositive();
    assertThat((Integer) at(job, "spec", "ttlSecondsAfterFinished")).isPositive();
    assertThat(at(job, "spec", "parallelism")).isIn(null, 1);
    assertThat(at(job, "spec", "completions")).isIn(null, 1);
    checkLockedDown("migration Job", pod);
    Map<String, Object> writerPod = map(workload(m, "writer"), "spec", "template");
    assertThat(map(pod, "spec", "securityContext"))
        .as("migration Job pod security context = the writer's")
        .isEqualTo(map(writerPod, "spec", "securityContext"));
    assertThat(map(c, "securityContext"))
        .as("migration Job container security context = the writer's")
        .isEqualTo(map(writerPod, "spec", "containers", 0, "securityContext"));
    assertThat(effectiveEnv(m, job).get("QINGLONG_POSTGRES_MIGRATE"))
        .as("the migration Job migrates")
        .isNotEqualTo("false");
    assertThat(envNames(job))
        .as("migration Job has no role or download settings")
        .noneMatch(k -> k.startsWith("QINGLONG_DOWNLOADS_") || k.equals("QINGLONG_ROLE"));
    for (Object volume : list(pod, "spec", "volumes")) {
      assertThat(at(volume, "persistentVolumeClaim", "claimName"))
          .as("migrations need no artifacts: no shared claim in the Job")
          .isNull();
    }

    Map<String, Object> labels = map(pod, "metadata", "labels");
    Map<String, Object> policy = m.get("NetworkPolicy", "qinglong");
    assertThat(labels)
        .as("the NetworkPolicy (egress to PostgreSQL and DNS) covers the Job's pod")
        .containsAllEntriesOf(map(policy, "spec", "podSelector", "matchLabels"));
    for (Map<String, Object> s : m.ofKind("Service")) {
      assertThat(labels.entrySet().containsAll(map(s, "spec", "selector").entrySet()))
          .as("Service " + at(s, "metadata", "name") + " must not select the Job's pod")
          .isFalse();
    }
    for (Map<String, Object> pdb : m.ofKind("PodDisruptionBudget")) {
      assertThat(
              labels.entrySet().containsAll(map(pdb, "spec", "selector", "matchLabels").entrySet()))
          .as("PDB " + at(pdb, "metadata", "name") + " must not select the Job's pod")
          .isFalse();
    }
  }

  /** Non-root, read-only root, no escalation, no capabilities, bounded resources, no SA token. */
  private static void checkLockedDown(String where, Map<String, Object> pod) {
    assertThat(at(pod, "spec", "automountServiceAccountToken")).as(where).isEqualTo(false);
    assertThat(at(pod, "spec", "securityContext", "runAsNonRoot")).as(where).isEqualTo(true);
    assertThat(at(pod, "spec", "securityContext", "runAsUser")).as(where).isEqualTo(10001);
    assertThat(at(pod, "spec", "securityContext", "seccompProfile", "type"))
        .as(where)
        .isEqualTo("RuntimeDefault");
    Map<String, Object> c = map(pod, "spec", "containers", 0);
    assertThat(c.get("image")).as(where).isEqualTo(IMAGE);
    assertThat(at(c, "securityContext", "readOnlyRootFilesystem")).as(where).isEqualTo(true);
    assertThat(at(c, "securityContext", "allowPrivilegeEscalation")).as(where).isEqualTo(false);
    assertThat(list(c, "securityContext", "capabilities", "drop")).as(where).contains("ALL");
    for (String kind : List.of("requests", "limits")) {
      assertThat(map(c, "resources", kind)).as(where + " " + kind).containsKeys("cpu", "memory");
    }
    assertThat(at(c, "envFrom", 0, "configMapRef", "name")).as(where).isEqualTo("qinglong-config");
    // A read-only root needs writable scratch space: /tmp on an emptyDir.
    String tmpVolume = null;
    for (Object mount : list(c, "volumeMounts")) {
      if ("/tmp".equals(map(mount).get("mountPath"))) {
        tmpVolume = (String) map(mount).get("name");
      }
    }
    assertThat(tmpVolume).as(where + " /tmp mount").isNotNull();
    boolean tmpOnEmptyDir = false;
    for (Object volume : list(pod, "spec", "volumes")) {
      if (tmpVolume.equals(map(volume).get("name"))) {
        tmpOnEmptyDir = map(volume).containsKey("emptyDir");
      }
    }
    assertThat(tmpOnEmptyDir).as(where + " /tmp on an emptyDir").isTrue();
  }

  /** Writers and workers are Deployments; readers a StatefulSet (slot = pod index). */
  private static Map<String, Object> workload(Manifests m, String component) {
    return m.get(
        component.equals("reader") ? "StatefulSet" : "Deployment", "qinglong-" + component);
  }

  private static void checkBase(Manifests m) {
    Map<String, Object> config = map(m.get("ConfigMap", "qinglong-config"), "data");
    assertThat(config).containsAllEntriesOf(FROZEN_QUOTA);
    checkEnvNames("configmap", config.keySet());
    assertThat(config.keySet())
        .as("download settings are per workload: writers and workers serve no downloads")
        .noneMatch(k -> k.startsWith("QINGLONG_DOWNLOADS_"));
    checkClientIdentityAndManagementPort(config);
    assertThat(m.ofKind("Deployment")).hasSize(2);
    assertThat(m.ofKind("StatefulSet")).hasSize(1);
    checkMigrationJob(m);

    assertThat(at(workload(m, "writer"), "spec", "replicas")).isEqualTo(2);
    assertThat(at(workload(m, "reader"), "spec", "replicas")).isEqualTo(2);
    // One active worker through the advisory lock, one in standby.
    assertThat(at(workload(m, "worker"), "spec", "replicas")).isEqualTo(2);

    String dataDir = config.get("QINGLONG_DATADIR").toString();
    for (String component : COMPONENTS) {
      Map<String, Object> d = workload(m, component);
      Map<String, Object> pod = map(d, "spec", "template");
      assertThat(map(d, "spec", "selector", "matchLabels"))
          .isEqualTo(
              map(pod, "metadata", "labels").entrySet().stream()
                  .filter(e -> map(d, "spec", "selector", "matchLabels").containsKey(e.getKey()))
                  .collect(
                      java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
      checkLockedDown(component, pod);
      assertThat(list(pod, "spec", "containers")).hasSize(1);
      Map<String, Object> c = map(pod, "spec", "containers", 0);
      assertThat(at(c, "livenessProbe", "httpGet", "path")).isEqualTo("/actuator/health/liveness");
      assertThat(at(c, "readinessProbe", "httpGet", "path"))
          .isEqualTo("/actuator/health/readiness");
      // Probes on the management port: actuator is not served on the API port.
      for (String probe : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
        assertThat(at(c, probe, "httpGet", "port"))
            .as(component + " " + probe)
            .isEqualTo("management");
      }
      assertThat(at(c, "ports", 0, "name")).isEqualTo("http");
      assertThat(at(c, "ports", 0, "containerPort")).isEqualTo(8080);
      assertThat(at(c, "ports", 1, "name")).isEqualTo("management");
      assertThat(at(c, "ports", 1, "containerPort")).isEqualTo(MANAGEMENT_PORT);
      assertThat(plainEnv(c).get("QINGLONG_ROLE")).isEqualTo(component);
      assertThat(effectiveEnv(m, d).get("QINGLONG_POSTGRES_MIGRATE"))
          .as(component + " leaves the migrations to the Job and needs no owner login")
          .isEqualTo("false");
      checkEnvNames(component, envNames(d));
      if (!component.equals("reader")) {
        assertThat(envNames(d))
            .as(component + " serves no downloads")
            .noneMatch(k -> k.startsWith("QINGLONG_DOWNLOADS_"));
      }
      // /tmp on an emptyDir (checkLockedDown). The data dir is the shared storage root: the one
      // ReadWriteMany claim, in every workload.
      Map<String, String> mounts = new HashMap<>();
      for (Object mount : list(c, "volumeMounts")) {
        mounts.put((String) map(mount).get("mountPath"), (String) map(mount).get("name"));
      }
      assertThat(mounts).as(component).containsKeys("/tmp", dataDir);
      Map<String, Map<String, Object>> volumes = new HashMap<>();
      for (Object volume : list(pod, "spec", "volumes")) {
        volumes.put((String) map(volume).get("name"), map(volume));
      }
      assertThat(volumes.get(mounts.get("/tmp"))).as(component + " /tmp").containsKey("emptyDir");
      assertThat(at(volumes.get(mounts.get(dataDir)), "persistentVolumeClaim", "claimName"))
          .as(component + " data dir on the shared claim")
          .isEqualTo(ARTIFACTS_CLAIM);
      assertThat(volumes.get(mounts.get(dataDir))).doesNotContainKey("emptyDir");

      Map<String, Object> pdb = m.get("PodDisruptionBudget", "qinglong-" + component);
      assertThat(map(pdb, "spec", "selector", "matchLabels"))
          .isEqualTo(map(d, "spec", "selector", "matchLabels"));
      assertThat(at(pdb, "spec", "minAvailable")).isEqualTo(1);
    }
    for (String component : List.of("writer", "reader")) {
      Map<String, Object> s = m.get("Service", "qinglong-" + component);
      assertThat(map(s, "spec", "selector"))
          .isEqualTo(map(workload(m, component), "spec", "selector", "matchLabels"));
      assertThat(at(s, "spec", "ports", 0, "targetPort")).isEqualTo("http");
      assertThat(at(s, "spec", "clusterIP")).isNull();
    }
    for (Map<String, Object> s : m.ofKind("Service")) {
      for (Object port : list(s, "spec", "ports")) {
        assertThat(map(port).get("targetPort"))
            .as("no Service exposes the management port")
            .isNotIn("management", MANAGEMENT_PORT);
      }
    }
    checkArtifactsClaim(m);
    checkReaders(m);

    Map<String, Object> policy = m.get("NetworkPolicy", "qinglong");
    assertThat(list(policy, "spec", "policyTypes")).containsExactlyInAnyOrder("Ingress", "Egress");
    assertThat(list(policy, "spec", "ingress")).hasSize(2);
    assertThat(ports(list(policy, "spec", "ingress").get(0))).isEqualTo(Set.of(8080));
    Object management = list(policy, "spec", "ingress").get(1);
    assertThat(ports(management)).isEqualTo(Set.of(MANAGEMENT_PORT));
    assertThat(list(management, "from"))
        .as("the management port is open only to named sources (monitoring)")
        .isNotEmpty()
        .allSatisfy(from -> assertThat(map(from)).containsKey("namespaceSelector"));
    Set<Integer> egressPorts = new TreeSet<>();
    for (Object rule : list(policy, "spec", "egress")) {
      Set<Integer> p = ports(rule);
      assertThat(p).as("every egress rule names its ports").isNotEmpty();
      egressPorts.addAll(p);
    }
    assertThat(egressPorts)
        .as("egress only to PostgreSQL, the identity provider (HTTPS) and DNS")
        .isEqualTo(Set.of(53, 443, 5432));
    checkIdentityProviderEgress(policy);
  }

  /**
   * JWT validation fetches the issuer's discovery document and JWK Set: without an egress rule for
   * the IdP every request is 401. The shipped rule is HTTPS to addresses outside the private,
   * shared, link-local and loopback ranges (a public IdP), so it opens no path into the cluster
   * network; an operator narrows the block to the IdP's.
   */
  private static void checkIdentityProviderEgress(Map<String, Object> policy) {
    List<Object> https =
        list(policy, "spec", "egress").stream().filter(r -> ports(r).equals(Set.of(443))).toList();
    assertThat(https).as("one egress rule for the identity provider (443)").hasSize(1);
    List<Object> to = list(https.get(0), "to");
    assertThat(to).as("the IdP rule names its destination").isNotEmpty();
    for (Object peer : to) {
      assertThat(map(peer).keySet()).as("IdP peer " + peer).containsExactly("ipBlock");
      if ("0.0.0.0/0".equals(at(peer, "ipBlock", "cidr"))) {
        assertThat(list(peer, "ipBlock", "except"))
            .as("HTTPS anywhere but into the cluster network and the node's metadata addresses")
            .contains(
                "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "169.254.0.0/16");
      }
    }
  }

  /**
   * Client addresses from X-Forwarded-For only of the configured proxies (Spring Boot's own
   * strategy off, also on Kubernetes; docs/deploy.md#client-addresses-behind-the-ingress), actuator
   * on its own port.
   */
  private static void checkClientIdentityAndManagementPort(Map<String, Object> config) {
    assertThat(config.get("SERVER_FORWARDHEADERSSTRATEGY")).isEqualTo("none");
    String trusted = String.valueOf(config.get("QINGLONG_SHIELD_TRUSTEDPROXIES"));
    assertThat(trusted).as("trusted proxies for the ingress").isNotBlank().isNotEqualTo("null");
    for (String block : trusted.split(",")) {
      String[] parts = block.trim().split("/");
      assertThat(parts).as(block).hasSize(2);
      assertThat(parts[0]).as(block).matches("\\d{1,3}(\\.\\d{1,3}){3}");
      assertThat(Integer.parseInt(parts[1]))
          .as(block + ": trusting a block as wide as the pod network trusts every pod")
          .isBetween(16, 32);
      // Documentation ranges (RFC 5737) are a placeholder no proxy ever has: they trust nobody.
      assertThat(parts[0])
          .as(block + " is an address pool a proxy can have, not a documentation placeholder")
          .doesNotStartWith("192.0.2.")
          .doesNotStartWith("198.51.100.")
          .doesNotStartWith("203.0.113.");
    }
    assertThat(config.get("MANAGEMENT_SERVER_PORT")).isEqualTo(Integer.toString(MANAGEMENT_PORT));
    assertThat(config.get("MANAGEMENT_SERVER_PORT")).isNotEqualTo(config.get("SERVER_PORT"));
    // The application binds the management port to loopback unless told: the probes (httpGet on
    // the pod address) and Prometheus need it on the pod's address.
    assertThat(config.get("MANAGEMENT_SERVER_ADDRESS")).isEqualTo("0.0.0.0");
  }

  private static void checkArtifactsClaim(Manifests m) {
    Map<String, Object> pvc = m.get("PersistentVolumeClaim", ARTIFACTS_CLAIM);
    assertThat(list(pvc, "spec", "accessModes")).containsExactly("ReadWriteMany");
    assertThat((String) at(pvc, "spec", "storageClassName"))
        .as("storage class (placeholder, set per cluster)")
        .isNotBlank();
    assertThat(at(pvc, "spec", "resources", "requests", "storage")).isNotNull();
  }

  /**
   * Readers: a StatefulSet in shared download mode, slot = pod index, slots = replicas, one budget
   * for all (one pod template), slot 0 first; a headless governing Service.
   */
  private static void checkReaders(Manifests m) {
    Map<String, Object> sts = workload(m, "reader");
    assertThat(at(sts, "spec", "podManagementPolicy")).isEqualTo("OrderedReady");
    assertThat(list(sts, "spec", "volumeClaimTemplates"))
        .as("readers share the writers' storage, no per-pod volume")
        .isEmpty();
    Map<String, Object> headless = m.get("Service", (String) at(sts, "spec", "serviceName"));
    assertThat(at(headless, "spec", "clusterIP")).isEqualTo("None");
    assertThat(map(headless, "spec", "selector"))
        .isEqualTo(map(sts, "spec", "selector", "matchLabels"));

    Map<String, Object> c = map(sts, "spec", "template", "spec", "containers", 0);
    Map<String, String> env = plainEnv(c);
    assertThat(env.get("QINGLONG_DOWNLOADS_MODE")).isEqualTo("shared");
    int replicas = (Integer) at(sts, "spec", "replicas");
    assertThat(env.get("QINGLONG_DOWNLOADS_SLOTS"))
        .as("slots == replicas")
        .isEqualTo(Integer.toString(replicas));
    Object slot =
        list(c, "env").stream()
            .filter(e -> "QINGLONG_DOWNLOADS_SLOT".equals(map(e).get("name")))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no QINGLONG_DOWNLOADS_SLOT"));
    assertThat(map(slot)).doesNotContainKey("value");
    assertThat(at(slot, "valueFrom", "fieldRef", "fieldPath")).isEqualTo(POD_INDEX);
    for (String rate :
        List.of(
            "QINGLONG_DOWNLOADS_RATEBYTESPERSECOND",
            "QINGLONG_DOWNLOADS_PERPRINCIPALBYTESPERSECOND")) {
      long value = Long.parseLong(env.get(rate));
      assertThat(value == 0 || value >= replicas)
          .as(rate + " is 0 (no limit) or leaves every slot a share above 0")
          .isTrue();
    }
  }

  /**
   * A database URL as pgjdbc reads it: the server is verified ({@code sslmode=verify-full}) against
   * a CA file that the pod mounts from the cluster's CA secret (only {@code ca.crt}, read-only);
   * connect and socket timeouts, TCP keep-alive, and a server-side statement timeout above the
   * socket timeout (the client gives up first: a COMMIT waiting for the synchronous standby is
   * never cancelled into a reported success).
   */
  private static Properties checkDatabaseUrl(
      String where, String url, Map<String, Object> workload) {
    assertThat(url).as(where + " QINGLONG_POSTGRES_URL").isNotNull();
    Properties p = parseUrl(url);
    assertThat(p.getProperty("PGHOST")).as(where + " host").isEqualTo("qinglong-db-rw");
    assertThat(p.getProperty("sslmode")).as(where + " sslmode").isEqualTo("verify-full");
    String rootCert = p.getProperty("sslrootcert");
    assertThat(rootCert).as(where + " sslrootcert").isNotBlank();
    checkDbCa(where, workload, Path.of(rootCert));
    long connect = Long.parseLong(p.getProperty("connectTimeout", "0"));
    long socket = Long.parseLong(p.getProperty("socketTimeout", "0"));
    assertThat(connect).as(where + " connectTimeout (s)").isBetween(1L, 30L);
    assertThat(socket).as(where + " socketTimeout (s)").isPositive();
    assertThat(p.getProperty("tcpKeepAlive")).as(where + " tcpKeepAlive").isEqualTo("true");
    Long statement = serverSetting(p, "statement_timeout");
    assertThat(statement).as(where + " statement_timeout in options").isNotNull();
    assertThat(statement)
        .as(where + ": statement_timeout (ms) above socketTimeout")
        .isGreaterThan(socket * 1000);
    return p;
  }

  /**
   * The pod mounts {@code caFile}'s directory from the CA secret, read-only, projecting only {@code
   * ca.crt} as the file name the URL uses (the operator's secret also holds the CA's private key).
   */
  private static void checkDbCa(String where, Map<String, Object> workload, Path caFile) {
    Map<String, Object> pod = map(workload, "spec", "template");
    Map<String, Object> c = map(pod, "spec", "containers", 0);
    Object mount =
        list(c, "volumeMounts").stream()
            .filter(v -> caFile.getParent().toString().equals(map(v).get("mountPath")))
            .findFirst()
            .orElseThrow(() -> new AssertionError(where + ": nothing mounted at " + caFile));
    assertThat(map(mount).get("readOnly")).as(where + " CA mount read-only").isEqualTo(true);
    Object volume =
        list(pod, "spec", "volumes").stream()
            .filter(v -> map(mount).get("name").equals(map(v).get("name")))
            .findFirst()
            .orElseThrow(() -> new AssertionError(where + ": no volume " + mount));
    assertThat(at(volume, "secret", "secretName")).as(where + " CA secret").isEqualTo(DB_CA_SECRET);
    assertThat(list(volume, "secret", "items"))
        .as(where + ": only the certificate of the CA secret")
        .containsExactly(Map.of("key", "ca.crt", "path", caFile.getFileName().toString()));
  }

  static Properties parseUrl(String url) {
    Properties p = org.postgresql.Driver.parseURL(url, new Properties());
    assertThat(p).as("pgjdbc cannot parse " + url).isNotNull();
    return p;
  }

  /**
   * A setting the URL's {@code options} hands the server ({@code -c name=value}), in milliseconds
   * (PostgreSQL's units ms, s, min; no unit is ms), or null when not set.
   */
  static Long serverSetting(Properties url, String name) {
    String options = url.getProperty("options");
    if (options == null) {
      return null;
    }
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("-c\\s*" + name + "=(\\d+)(ms|s|min)?(\\s|$)")
            .matcher(options);
    if (!m.find()) {
      return null;
    }
    long value = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "ms" : m.group(2);
    return switch (unit) {
      case "s" -> value * 1000;
      case "min" -> value * 60_000;
      default -> value;
    };
  }

  /** Spring Boot's canonical environment form: no dashes, dots to underscores, uppercase. */
  static String envName(String property) {
    return property.replace("-", "").replace('.', '_').toUpperCase(java.util.Locale.ROOT);
  }

  /** Every QINGLONG_* name binds a property (a half-converted name would bind nothing). */
  private static void checkEnvNames(String where, java.util.Collection<String> names) {
    Set<String> known = new HashSet<>();
    for (String p : PROPERTIES) {
      known.add(envName(p));
    }
    for (String role : ROLE_KEYS) {
      for (String field : List.of("username", "password")) {
        known.add(envName("qinglong.postgres.roles." + role + "." + field));
      }
    }
    assertThat(names.stream().filter(n -> n.startsWith("QINGLONG_")))
        .as(where + ": environment names of qinglong.* properties")
        .allMatch(known::contains);
  }

  private static List<String> envNames(Map<String, Object> workload) {
    return list(workload, "spec", "template", "spec", "containers", 0, "env").stream()
        .map(e -> (String) map(e).get("name"))
        .toList();
  }

  private static Set<Integer> ports(Object rule) {
    Set<Integer> ports = new TreeSet<>();
    for (Object port : list(rule, "ports")) {
      ports.add((Integer) map(port).get("port"));
    }
    return ports;
  }

  private static Map<String, String> plainEnv(Map<String, Object> container) {
    Map<String, String> env = new HashMap<>();
    for (Object e : list(container, "env")) {
      if (map(e).containsKey("value")) {
        env.put((String) map(e).get("name"), String.valueOf(map(e).get("value")));
      }
    }
    return env;
  }

  /**
   * What the container sees as plain values: the ConfigMap it takes with envFrom, overridden by its
   * own {@code env} values (Kubernetes gives {@code env} precedence).
   */
  private static Map<String, String> effectiveEnv(Manifests m, Map<String, Object> workload) {
    Map<String, Object> c = map(workload, "spec", "template", "spec", "containers", 0);
    Map<String, String> env = new HashMap<>();
    for (Object from : list(c, "envFrom")) {
      Object configMap = at(from, "configMapRef", "name");
      if (configMap != null) {
        map(m.get("ConfigMap", (String) configMap), "data")
            .forEach((k, v) -> env.put(k, String.valueOf(v)));
      }
    }
    env.putAll(plainEnv(c));
    return env;
  }

  /**
   * Every secret a pod template can read, however it is referenced: {@code secretKeyRef}, {@code
   * envFrom.secretRef}, secret volumes and projected secret sources, in any container.
   */
  private static Set<String> secretsOf(Map<String, Object> workload) {
    Set<String> secrets = new TreeSet<>();
    collectSecrets(map(workload, "spec", "template"), secrets);
    return secrets;
  }

  private static void collectSecrets(Object node, Set<String> secrets) {
    if (node instanceof Map<?, ?> m) {
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (("secretKeyRef".equals(e.getKey()) || "secretRef".equals(e.getKey()))
            && e.getValue() instanceof Map<?, ?> ref) {
          secrets.add((String) ref.get("name"));
        } else if ("secret".equals(e.getKey()) && e.getValue() instanceof Map<?, ?> ref) {
          secrets.add(
              (String) (ref.containsKey("secretName") ? ref.get("secretName") : ref.get("name")));
        }
        collectSecrets(e.getValue(), secrets);
      }
    } else if (node instanceof List<?> l) {
      for (Object item : l) {
        collectSecrets(item, secrets);
      }
    }
  }

  /** Whether {@code value} occurs as a string anywhere in {@code node}. */
  private static boolean mentions(Object node, String value) {
    if (node instanceof Map<?, ?> m) {
      return m.values().stream().anyMatch(v -> mentions(v, value));
    }
    if (node instanceof List<?> l) {
      return l.stream().anyMatch(v -> mentions(v, value));
    }
    return value.equals(node);
  }

  private static Map<String, Object> loadKustomization(String dir) {
    try {
      Object doc =
          new Yaml(new SafeConstructor(new LoaderOptions()))
              .load(
                  Files.readString(
                      DEPLOY.resolve(dir).resolve("kustomization.yaml"), StandardCharsets.UTF_8));
      return map(doc);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Env name → secret name, for every variable taken from a secret. */
  private static Map<String, String> secretEnv(Map<String, Object> deployment) {
    Map<String, String> env = new HashMap<>();
    for (Object e : list(deployment, "spec", "template", "spec", "containers", 0, "env")) {
      Object secret = at(e, "valueFrom", "secretKeyRef", "name");
      if (secret != null) {
        env.put((String) map(e).get("name"), (String) secret);
      }
    }
    return env;
  }

  /** PACKAGEMANAGER → package_manager, the ql3_* role behind an env-var role key. */
  private static String snake(String envRole) {
    return switch (envRole) {
      case "PACKAGEMANAGER" -> "package_manager";
      case "PACKAGEEXECUTOR" -> "package_executor";
      case "WORKERINGRESS" -> "worker_ingress";
      default -> envRole.toLowerCase(java.util.Locale.ROOT);
    };
  }
}
