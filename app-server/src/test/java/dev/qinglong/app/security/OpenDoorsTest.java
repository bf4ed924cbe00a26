package dev.qinglong.app.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.app.support.TestApp;
import dev.qinglong.testkit.RawHttp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The open doors that an HTTP client on the API port (or the data directory) can see, each as the
 * attacker would try it: a receipt id reused for another request, actuator on the API port, files
 * under the data dir readable by others and a loose tokens file accepted, unknown {@code /v1}
 * routes and {@code /error}. Duplicate keys, two Authorization headers, reflected member names,
 * upload content types and container error pages are covered by {@link HostileInputTest} and {@link
 * PathSpellingsTest}; grants and JWT need PostgreSQL and an IdP and are tested where those are
 * fixed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OpenDoorsTest {
  @TempDir static Path dir;
  SecurityWorld world;

  @BeforeAll
  void start() {
    world = SecurityWorld.start(dir.resolve("app"), Map.of()).seed();
  }

  @AfterAll
  void stop() {
    if (world != null) {
      world.close();
    }
  }

  @Test
  void item2_aReceiptIdNamesOneRequest() {
    SecurityWorld.Objects own = world.objects.get(SecurityWorld.OWN);
    String token = world.token("m-package-manage");
    String base = "/v1/projects/" + SecurityWorld.OWN + "/plugin-packages/proposals/";
    String body = "{\"inspectionId\":\"reused-inspection\"}";
    RawHttp.Response first =
        world.raw.request("POST", base + own.proposalId() + "/inspections", token, body);
    assertThat(first.status()).as(first.body()).isEqualTo(200);
    // The same receipt id on another proposal is another request: never an allow for free.
    RawHttp.Response fresh =
        world.raw.request(
            "POST",
            base.substring(0, base.length() - 1),
            token,
            "{\"actionRef\":\"door2\",\"action\":{\"type\":\"remove\",\"package\":\"p\","
                + "\"version\":\"1\"}}");
    assertThat(fresh.status()).as(fresh.body()).isEqualTo(201);
    String second = SecurityWorld.json(fresh).get("proposalId").asString();
    RawHttp.Response reused =
        world.raw.request("POST", base + second + "/inspections", token, body);
    assertThat(reused.status()).as(reused.body()).isEqualTo(409);
    assertThat(Answers.code(reused)).isEqualTo("idempotency_key_reused");
  }

  @Test
  void item4_actuatorIsNotServedOnTheApiPort() {
    for (String path :
        List.of("/actuator/prometheus", "/actuator/health/readiness", "/actuator/health")) {
      RawHttp.Response r = world.raw.request("GET", path, null, null);
      assertThat(r.status()).as("GET " + path + " on the API port: " + r.body()).isEqualTo(404);
    }
  }

  @Test
  void item7_filesUnderTheDataDirAreOwnerOnly() throws IOException {
    Path data = dir.resolve("app");
    List<String> loose = new ArrayList<>();
    try (Stream<Path> files = Files.walk(data)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(f);
        if (mode.stream()
            .anyMatch(p -> p.name().startsWith("GROUP") || p.name().startsWith("OTHERS"))) {
          loose.add(data.relativize(f) + " " + PosixFilePermissions.toString(mode));
        }
      }
    }
    assertThat(loose).as("files readable by group or others").isEmpty();
  }

  @Test
  void item7_aTokensFileReadableByOthersIsRefused() throws IOException {
    Path loose = dir.resolve("loose");
    SecurityWorld.writeTokens(loose);
    Files.setPosixFilePermissions(
        loose.resolve("dev-tokens.properties"), PosixFilePermissions.fromString("rw-r--r--"));
    assertThatThrownBy(
            () -> {
              try (TestApp app = TestApp.start(loose, Map.of())) {
                // started: the loose file was accepted
              }
            })
        .as("an app that accepts a dev-tokens file of mode 0644")
        // The start fails for this reason, not for any other (a port, a database, a typo).
        .rootCause()
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("dev-tokens file " + loose.resolve("dev-tokens.properties"))
        .hasMessageContaining("has mode rw-r--r--")
        .hasMessageContaining("it must be readable and writable by its owner only");
  }

  @Test
  void item9_unknownV1RoutesAre404ForEveryMethodAndErrorIsNoRoute() {
    String token = world.token(SecurityWorld.ADMIN);
    List<String> wrong = new ArrayList<>();
    for (String method : List.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")) {
      for (String path : List.of("/v1/nothing", "/v1/projects/p-own/nothing", "/v1/")) {
        RawHttp.Response r =
            world.raw.request(method, path, token, method.equals("POST") ? "{}" : null);
        if (r.status() != 404) {
          wrong.add(method + " " + path + " → " + r.status());
        }
      }
    }
    for (String method : List.of("GET", "POST", "PUT", "DELETE")) {
      RawHttp.Response r = world.raw.request(method, "/error", token, null);
      if (r.status() != 404) {
        wrong.add(method + " /error → " + r.status() + " " + r.body());
      }
    }
    assertThat(wrong).isEmpty();
  }
}
