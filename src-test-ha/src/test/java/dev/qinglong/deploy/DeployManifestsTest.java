package dev.qinglong.deploy;

import static dev.qinglong.deploy.Manifests.at;
import static dev.qinglong.deploy.Manifests.list;
import static dev.qinglong.deploy.Manifests.map;
import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.postgres.PostgresRoles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Checks what {@code deploy/base} and {@code deploy/overlays/cnpg} render to (DESIGN §8). Each
 * check runs twice: on {@code kubectl kustomize} output (skipped, visibly, without kubectl) and on
 * the structural rendering of the YAML files, so it holds on machines without kubectl too.
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
          "QINGLONG_AI_ENABLED", "false");

  /**
   * The qinglong.* properties of QingLongProperties (DESIGN §10) a manifest may set, except the
   * {@code roles.<role>} map, in their dashed form; {@link #envName} gives the environment form.
   */
  private static final Set<String> PROPERTIES =
      Set.of(
          "qinglong.data-dir",
          "qinglong.store",
          "qinglong.role",
          "qinglong.log-format",
          "qinglong.auth.mode",
          "qinglong.auth.dev-tokens-on-network",
          "qinglong.auth.global-admins",
          "qinglong.auth.jwt.issuer-uri",
          "qinglong.auth.jwt.jwk-set-uri",
          "qinglong.auth.jwt.audience",
          "qinglong.auth.jwt.clock-skew",
          "qinglong.management-quota.enabled",
          "qinglong.management-quota.window",
          "qinglong.management-quota.limits.propose",
          "qinglong.management-quota.limits.decide",
          "qinglong.management-quota.limits.inspect",
          "qinglong.management-quota.limits.model-usage-read",
          "qinglong.shield.max-body-bytes",
          "qinglong.shield.max-concurrent-requests",
          "qinglong.shield.max-concurrent-requests-per-client",
          "qinglong.postgres.url",
          "qinglong.postgres.username",
          "qinglong.postgres.password",
          "qinglong.postgres.bootstrap-roles",
          "qinglong.postgres.manager-pool-size",
          "qinglong.postgres.admin-pool-size",
          "qinglong.ai.enabled",
          "qinglong.ai.runtime-pool-size",
          "qinglong.artifacts.max-bytes",
          "qinglong.downloads.mode",
          "qinglong.downloads.rate-bytes-per-second",
          "qinglong.downloads.per-principal-bytes-per-second",
          "qinglong.downloads.slots",
          "qinglong.downloads.slot");

  /** Role keys of qinglong.postgres.roles.<role> (QingLongProperties.Postgres#login callers). */
  private static final Set<String> ROLE_KEYS =
      Set.of("package-manager", "admin", "runtime", "package-executor", "reader");

  private static final String POD_INDEX = "metadata.labels['apps.kubernetes.io/pod-index']";
  private static final String ARTIFACTS_CLAIM = "qinglong-artifacts";

  private static final Set<String> MANAGED_ROLES =
      Set.of(
          "ql3_admin",
          "ql3_package_manager",
          "ql3_package_executor",
          "ql3_runtime",
          "ql3_worker_ingress",
          "ql3_reader");

  private static Manifests render(String dir, Manifests.Renderer renderer) {
    if (renderer == Manifests.Renderer.KUBECTL) {
      Assumptions.assumeTrue(Manifests.kubectl().isPresent(), "kubectl is not on PATH");
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
    for (Object role : list(cluster, "spec", "managed", "roles")) {
      String name = (String) map(role).get("name");
      assertThat(map(role).get("login")).as(name).isEqualTo(true);
      for (String attribute : List.of("superuser", "createrole", "createdb", "replication")) {
        assertThat(map(role).get(attribute)).as(name + " " + attribute).isNotEqualTo(true);
      }
      String secret = (String) at(role, "passwordSecret", "name");
      assertThat(secret).as(name + " passwordSecret").isNotBlank();
      secretOfRole.put(name, secret);
    }
    assertThat(secretOfRole.keySet()).isEqualTo(MANAGED_ROLES);
    assertThat(secretOfRole.keySet()).containsAll(PostgresRoles.ALL);
    assertThat(new HashSet<>(secretOfRole.values())).as("one secret per role").hasSize(6);

    Map<String, Object> config = map(m.get("ConfigMap", "qinglong-config"), "data");
    assertThat(config.get("QINGLONG_STORE")).isEqualTo("postgres");
    assertThat((String) config.get("QINGLONG_POSTGRES_URL"))
        .startsWith("jdbc:postgresql://qinglong-db-rw:5432/qinglong");
    assertThat(config.get("QINGLONG_POSTGRES_BOOTSTRAPROLES")).isEqualTo("false");

    // As app-server is implemented, every role migrates at start-up as the schema owner and opens
    // the package-manager and admin pools (readiness checks both); then each adds its own login.
    String owner = (String) at(cluster, "spec", "bootstrap", "initdb", "secret", "name");
    Set<String> everyRole = Set.of("PACKAGEMANAGER", "ADMIN");
    Map<String, Set<String>> ownRoles =
        Map.of(
            "writer", Set.of("RUNTIME"),
            "reader", Set.of("READER"),
            "worker", Set.of("PACKAGEEXECUTOR"));
    for (Map.Entry<String, Set<String>> d : ownRoles.entrySet()) {
      String component = d.getKey();
      Set<String> expected = new TreeSet<>(everyRole);
      expected.addAll(d.getValue());
      Map<String, String> env = secretEnv(workload(m, component));
      Set<String> wired = new TreeSet<>();
      for (Map.Entry<String, String> e : env.entrySet()) {
        String name = e.getKey();
        if (name.startsWith("QINGLONG_POSTGRES_ROLES_")) {
          String role = name.substring(24, name.lastIndexOf('_'));
          wired.add(role);
          String expectedSecret = secretOfRole.get("ql3_" + snake(role));
          assertThat(e.getValue()).as(component + " " + name).isEqualTo(expectedSecret);
        }
      }
      assertThat(wired).as(component + " roles").isEqualTo(expected);
      for (String role : expected) {
        assertThat(env)
            .as(component)
            .containsKeys(
                "QINGLONG_POSTGRES_ROLES_" + role + "_USERNAME",
                "QINGLONG_POSTGRES_ROLES_" + role + "_PASSWORD");
      }
      assertThat(env.get("QINGLONG_POSTGRES_USERNAME")).as(component + " owner").isEqualTo(owner);
      assertThat(env.get("QINGLONG_POSTGRES_PASSWORD")).as(component + " owner").isEqualTo(owner);
      checkEnvNames(component, envNames(workload(m, component)));
    }
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

  // ---------------------------------------------------------------- shared checks

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
    assertThat(m.ofKind("Deployment")).hasSize(2);
    assertThat(m.ofKind("StatefulSet")).hasSize(1);

    assertThat(at(workload(m, "writer"), "spec", "replicas")).isEqualTo(2);
    assertThat(at(workload(m, "reader"), "spec", "replicas")).isEqualTo(2);
    // One active worker through the advisory lock, one in standby.
    assertThat(at(workload(m, "worker"), "spec", "replicas")).isEqualTo(2);

    String dataDir = config.get("QINGLONG_DATADIR").toString();
    for (String component : List.of("writer", "reader", "worker")) {
      Map<String, Object> d = workload(m, component);
      Map<String, Object> pod = map(d, "spec", "template");
      assertThat(map(d, "spec", "selector", "matchLabels"))
          .isEqualTo(
              map(pod, "metadata", "labels").entrySet().stream()
                  .filter(e -> map(d, "spec", "selector", "matchLabels").containsKey(e.getKey()))
                  .collect(
                      java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
      assertThat(at(pod, "spec", "securityContext", "runAsNonRoot")).isEqualTo(true);
      assertThat(at(pod, "spec", "securityContext", "runAsUser")).isEqualTo(10001);
      assertThat(list(pod, "spec", "containers")).hasSize(1);
      Map<String, Object> c = map(pod, "spec", "containers", 0);
      assertThat(c.get("image")).isEqualTo(IMAGE);
      assertThat(at(c, "livenessProbe", "httpGet", "path")).isEqualTo("/actuator/health/liveness");
      assertThat(at(c, "readinessProbe", "httpGet", "path"))
          .isEqualTo("/actuator/health/readiness");
      assertThat(at(c, "ports", 0, "containerPort")).isEqualTo(8080);
      assertThat(at(c, "securityContext", "readOnlyRootFilesystem")).isEqualTo(true);
      assertThat(at(c, "securityContext", "allowPrivilegeEscalation")).isEqualTo(false);
      assertThat(list(c, "securityContext", "capabilities", "drop")).contains("ALL");
      for (String kind : List.of("requests", "limits")) {
        assertThat(map(c, "resources", kind))
            .as(component + " " + kind)
            .containsKeys("cpu", "memory");
      }
      assertThat(at(c, "envFrom", 0, "configMapRef", "name")).isEqualTo("qinglong-config");
      assertThat(plainEnv(c).get("QINGLONG_ROLE")).isEqualTo(component);
      checkEnvNames(component, envNames(d));
      if (!component.equals("reader")) {
        assertThat(envNames(d))
            .as(component + " serves no downloads")
            .noneMatch(k -> k.startsWith("QINGLONG_DOWNLOADS_"));
      }
      // A read-only root needs writable scratch space: /tmp on an emptyDir. The data dir is the
      // shared storage root: the one ReadWriteMany claim, in every workload.
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
    checkArtifactsClaim(m);
    checkReaders(m);

    Map<String, Object> policy = m.get("NetworkPolicy", "qinglong");
    assertThat(list(policy, "spec", "policyTypes")).containsExactlyInAnyOrder("Ingress", "Egress");
    assertThat(list(policy, "spec", "ingress")).hasSize(1);
    assertThat(ports(list(policy, "spec", "ingress").get(0))).isEqualTo(Set.of(8080));
    Set<Integer> egressPorts = new TreeSet<>();
    for (Object rule : list(policy, "spec", "egress")) {
      Set<Integer> p = ports(rule);
      assertThat(p).as("every egress rule names its ports").isNotEmpty();
      egressPorts.addAll(p);
    }
    assertThat(egressPorts).as("egress only to PostgreSQL and DNS").isEqualTo(Set.of(53, 5432));
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
