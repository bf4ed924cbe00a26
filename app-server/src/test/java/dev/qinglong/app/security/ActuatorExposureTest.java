package dev.qinglong.app.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.TestApp;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Actuator on its own port ({@code management.server.port}) with readiness details only there;
 * sharing the API port shows no details and no metrics; readiness is served from a cached,
 * background-refreshed probe, never from a database query per call.
 */
class ActuatorExposureTest {
  @TempDir Path dir;

  @Test
  void onItsOwnPortActuatorShowsDetailsThereAndNothingOnTheApiPort() {
    try (TestApp app = TestApp.start(dir.resolve("own"), Map.of())) {
      assertThat(app.management.port()).isNotEqualTo(app.http.port());
      Response ready = app.management.get("/actuator/health/readiness", null);
      assertThat(ready.status()).isEqualTo(200);
      assertThat(ready.json().at("/components/database/details/store").asString())
          .isEqualTo("sqlite");
      assertThat(ready.json().at("/components/gateway/details/role").asString()).isEqualTo("all");
      assertThat(app.management.get("/actuator/prometheus", null).status()).isEqualTo(200);
      for (String path :
          new String[] {
            "/actuator/health", "/actuator/health/readiness", "/actuator/prometheus", "/actuator"
          }) {
        assertThat(app.http.get(path, null).status()).as(path).isEqualTo(404);
      }
    }
  }

  @Test
  void sharingTheApiPortShowsOnlyStatusesAndNoMetrics() {
    // management.server.port unset: actuator on the API port (the local default).
    try (TestApp app =
        TestApp.start(
            dir.resolve("shared"),
            Map.of(
                "management.server.port", "",
                "management.server.address", "",
                // Even when asked for: details never go out on the API port.
                "management.endpoint.health.group.readiness.show-details", "always",
                "management.endpoint.health.show-details", "always",
                "management.endpoints.web.exposure.include", "health,prometheus,env"))) {
      assertThat(app.management.port()).isEqualTo(app.http.port());
      Response ready = app.http.get("/actuator/health/readiness", null);
      assertThat(ready.status()).isEqualTo(200);
      assertThat(ready.json().get("status").asString()).isEqualTo("UP");
      assertThat(ready.body()).doesNotContain("components", "sqlite", "schemaVersion", "role");
      Response health = app.http.get("/actuator/health", null);
      assertThat(health.body()).doesNotContain("components", "sqlite", "schemaVersion");
      assertThat(app.http.get("/actuator/health/liveness", null).status()).isEqualTo(200);
      assertThat(app.http.get("/actuator/prometheus", null).status()).isEqualTo(404);
      assertThat(app.http.get("/actuator/env", null).status()).isEqualTo(404);
    }
  }

  @Test
  void readinessIsServedFromTheCachedProbeNotFromTheDatabase() {
    try (TestApp app =
        TestApp.start(dir.resolve("cached"), Map.of("qinglong.readiness.refresh-interval", "1m"))) {
      assertThat(app.management.get("/actuator/health/readiness", null).status()).isEqualTo(200);
      app.cutDatabase();
      try {
        // The database is gone, but no readiness call asks it: the last probe (UP) stands until
        // the next background refresh.
        for (int i = 0; i < 20; i++) {
          Response ready = app.management.get("/actuator/health/readiness", null);
          assertThat(ready.status()).as(ready.body()).isEqualTo(200);
        }
      } finally {
        app.restoreDatabase();
      }
    }
  }

  @Test
  void aBackgroundRefreshTurnsReadinessDownAndUpAgain() {
    try (TestApp app = TestApp.start(dir.resolve("refresh"), Map.of())) {
      assertThat(app.awaitReadiness(200).status()).isEqualTo(200);
      app.cutDatabase();
      try {
        Response down = app.awaitReadiness(503);
        assertThat(down.status()).isEqualTo(503);
        assertThat(down.json().at("/components/database/status").asString()).isEqualTo("DOWN");
      } finally {
        app.restoreDatabase();
      }
      assertThat(app.awaitReadiness(200).status()).isEqualTo(200);
    }
  }
}
