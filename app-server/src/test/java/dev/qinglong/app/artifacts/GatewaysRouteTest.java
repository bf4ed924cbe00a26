package dev.qinglong.app.artifacts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.TestApp;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET /v1/downloads/gateways} on SQLite: standalone, no slots, this process's state. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GatewaysRouteTest {
  static final String PATH = "/v1/downloads/gateways";
  @TempDir static Path dir;
  TestApp app;

  @BeforeAll
  void start() {
    app = TestApp.start(dir);
  }

  @AfterAll
  void stop() {
    if (app != null) {
      app.close();
    }
  }

  @Test
  void theGlobalAdminSeesStandaloneWithoutSlotsAndThisProcess() {
    Http.Response r = app.http.get(PATH, app.token("admin"));
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.json().get("mode").asString()).isEqualTo("standalone");
    assertThat(r.json().get("store").asString()).isEqualTo("sqlite");
    assertThat(r.json().get("policy").isNull()).isTrue();
    assertThat(r.json().get("databaseNow").isNull()).isTrue();
    assertThat(r.json().get("slots").size()).isZero();
    var process = r.json().get("process");
    assertThat(process.get("role").asString()).isEqualTo("all");
    assertThat(process.get("downloads").asBoolean()).isTrue();
    assertThat(process.get("mode").asString()).isEqualTo("standalone");
    assertThat(process.get("serves").asBoolean()).isTrue();
    assertThat(process.get("slot").isNull()).isTrue();
    assertThat(process.get("bytesServed").asLong())
        .isEqualTo((long) app.bean(DownloadMetrics.class).bytesServed());
    assertThat(r.json().get("worker").get("runsHere").asBoolean()).isTrue();
    assertThat(r.json().get("worker").get("state").asString())
        .isEqualTo(
            app.bean(PublicationWorker.class).state().name().toLowerCase(java.util.Locale.ROOT));
  }

  @Test
  void everyoneElseGetsTheSame403AndAnonymousA401() {
    Http.Response alice = app.http.get(PATH, app.token("alice"));
    Http.Response bob = app.http.get(PATH, app.token("bob"));
    assertThat(alice.status()).isEqualTo(403);
    assertThat(alice.code()).isEqualTo("forbidden");
    assertThat(alice.raw().headers().firstValue("Content-Type").orElse(""))
        .startsWith("application/problem+json");
    assertThat(alice.json().get("detail").asString())
        .isEqualTo(bob.json().get("detail").asString())
        .contains("global administrator");
    assertThat(app.http.get(PATH, null).status()).isEqualTo(401);
  }

  @Test
  void globalAdminsComeFromTheSetting(@TempDir Path other) {
    try (TestApp app2 = TestApp.start(other, Map.of("qinglong.auth.global-admins", "carol"))) {
      assertThat(app2.http.get(PATH, app2.token("carol")).status()).isEqualTo(200);
      assertThat(app2.http.get(PATH, app2.token("admin")).status()).isEqualTo(403);
    }
  }
}
