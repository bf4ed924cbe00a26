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
          "QINGLONG_MANAGEMENT_QUOTA_ENABLED", "true",
          "QINGLONG_MANAGEMENT_QUOTA_WINDOW", "60s",
          "QINGLONG_MANAGEMENT_QUOTA_LIMITS_PROPOSE", "30",
          "QINGLONG_MANAGEMENT_QUOTA_LIMITS_DECIDE", "60",
          "QINGLONG_MANAGEMENT_QUOTA_LIMITS_INSPECT", "600",
          "QINGLONG_MANAGEMENT_QUOTA_LIMITS_MODELUSAGEREAD", "600",
          "QINGLONG_AI_ENABLED", "false");
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
    assertThat(config.get("QINGLONG_POSTGRES_BOOTSTRAP_ROLES")).isEqualTo("false");

    String owner = (String) at(cluster, "spec", "bootstrap", "initdb", "secret", "name");
    Map<String, Set<String>> rolesOf =
        Map.of(
            "qinglong-writer", Set.of("ADMIN", "PACKAGEMANAGER", "RUNTIME"),
            "qinglong-reader", Set.of("READER"),
            "qinglong-worker", Set.of("PACKAGEEXECUTOR", "WORKERINGRESS"));
    for (Map.Entry<String, Set<String>> d : rolesOf.entrySet()) {
      Map<String, String> env = secretEnv(m.get("Deployment", d.getKey()));
      Set<String> wired = new TreeSet<>();
      for (Map.Entry<String, String> e : env.entrySet()) {
        String name = e.getKey();
        if (name.startsWith("QINGLONG_POSTGRES_ROLES_")) {
          String role = name.substring(24, name.lastIndexOf('_'));
          wired.add(role);
          String expectedSecret = secretOfRole.get("ql3_" + snake(role));
          assertThat(e.getValue()).as(d.getKey() + " " + name).isEqualTo(expectedSecret);
        }
      }
      assertThat(wired).as(d.getKey() + " roles").isEqualTo(new TreeSet<>(d.getValue()));
      for (String role : d.getValue()) {
        assertThat(env)
            .containsKeys(
                "QINGLONG_POSTGRES_ROLES_" + role + "_USERNAME",
                "QINGLONG_POSTGRES_ROLES_" + role + "_PASSWORD");
      }
      boolean migrates = d.getKey().equals("qinglong-writer");
      assertThat(env.get("QINGLONG_POSTGRES_USERNAME"))
          .as(d.getKey() + " owner credentials")
          .isEqualTo(migrates ? owner : null);
    }

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

  private static void checkBase(Manifests m) {
    Map<String, Object> config = map(m.get("ConfigMap", "qinglong-config"), "data");
    assertThat(config).containsAllEntriesOf(FROZEN_QUOTA);

    assertThat(at(m.get("Deployment", "qinglong-writer"), "spec", "replicas")).isEqualTo(2);
    assertThat((Integer) at(m.get("Deployment", "qinglong-reader"), "spec", "replicas"))
        .isGreaterThanOrEqualTo(1);
    // One active worker through the advisory lock, one in standby.
    assertThat(at(m.get("Deployment", "qinglong-worker"), "spec", "replicas")).isEqualTo(2);

    for (String component : List.of("writer", "reader", "worker")) {
      Map<String, Object> d = m.get("Deployment", "qinglong-" + component);
      Map<String, Object> pod = map(d, "spec", "template");
      assertThat(map(d, "spec", "selector", "matchLabels"))
          .isEqualTo(
              map(pod, "metadata", "labels").entrySet().stream()
                  .filter(e -> map(d, "spec", "selector", "matchLabels").containsKey(e.getKey()))
                  .collect(
                      java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
      assertThat(at(pod, "spec", "securityContext", "runAsNonRoot")).isEqualTo(true);
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
      // A read-only root needs writable scratch space: /tmp and the data dir on emptyDirs.
      Map<String, String> mounts = new HashMap<>();
      for (Object mount : list(c, "volumeMounts")) {
        mounts.put((String) map(mount).get("mountPath"), (String) map(mount).get("name"));
      }
      assertThat(mounts).containsKeys("/tmp", config.get("QINGLONG_DATA_DIR").toString());
      for (Object volume : list(pod, "spec", "volumes")) {
        if (mounts.get("/tmp").equals(map(volume).get("name"))) {
          assertThat(map(volume)).containsKey("emptyDir");
        }
      }

      Map<String, Object> pdb = m.get("PodDisruptionBudget", "qinglong-" + component);
      assertThat(map(pdb, "spec", "selector", "matchLabels"))
          .isEqualTo(map(d, "spec", "selector", "matchLabels"));
      assertThat(at(pdb, "spec", "minAvailable")).isEqualTo(1);
    }
    for (String component : List.of("writer", "reader")) {
      Map<String, Object> s = m.get("Service", "qinglong-" + component);
      assertThat(map(s, "spec", "selector"))
          .isEqualTo(
              map(m.get("Deployment", "qinglong-" + component), "spec", "selector", "matchLabels"));
      assertThat(at(s, "spec", "ports", 0, "targetPort")).isEqualTo("http");
    }

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
