package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.TestApp;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import tools.jackson.databind.JsonNode;

/**
 * The OpenAPI document: the app serves exactly the checked-in docs/openapi.json, and that document
 * describes exactly the /v1 routes the app has (method and path). Fails when either drifts.
 *
 * <p>The document describes every route, including those of optional features (operations marked
 * {@code x-qinglong-feature}, e.g. {@code ai}). So the app under test runs with every feature on,
 * and a second app with the defaults (features off) must have exactly the unmarked routes.
 */
class OpenApiDriftTest {
  static final Path CHECKED_IN = Path.of("..", "docs", "openapi.json");

  @TempDir static Path dataDir;
  static TestApp app;

  @BeforeAll
  static void start() {
    app = TestApp.start(dataDir, Map.of("qinglong.ai.enabled", "true"));
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  @Test
  void servedDocumentIsTheCheckedInFile() throws Exception {
    var served = app.http.get("/v3/api-docs", null);
    assertThat(served.status()).isEqualTo(200);
    assertThat(served.contentType()).startsWith("application/json");
    assertThat(served.body())
        .isEqualTo(new String(Files.readAllBytes(CHECKED_IN), StandardCharsets.UTF_8));
    assertThat(served.json().get("openapi").asString()).isEqualTo("3.1.0");
  }

  static TreeSet<String> v1Routes(TestApp app) {
    TreeSet<String> actual = new TreeSet<>();
    RequestMappingHandlerMapping mapping =
        app.bean("requestMappingHandlerMapping", RequestMappingHandlerMapping.class);
    for (RequestMappingInfo info : mapping.getHandlerMethods().keySet()) {
      for (String pattern : info.getPatternValues()) {
        if (pattern.startsWith("/v1/")) {
          for (RequestMethod m : info.getMethodsCondition().getMethods()) {
            actual.add(m.name() + " " + pattern);
          }
        }
      }
    }
    return actual;
  }

  @Test
  void documentDescribesExactlyTheV1RoutesOfTheApp() throws Exception {
    TreeSet<String> actual = v1Routes(app);
    TreeSet<String> documented = new TreeSet<>();
    JsonNode doc = Http.JSON.readTree(Files.readString(CHECKED_IN));
    for (Map.Entry<String, JsonNode> path : doc.get("paths").properties()) {
      for (String method : path.getValue().propertyNames()) {
        documented.add(method.toUpperCase(java.util.Locale.ROOT) + " " + path.getKey());
        JsonNode op = path.getValue().get(method);
        assertThat(op.get("responses").propertyNames())
            .as("responses of %s %s", method, path.getKey())
            .contains("400", "401", "403", "503");
      }
    }
    assertThat(actual).isNotEmpty();
    assertThat(documented).isEqualTo(actual);
  }

  @Test
  void withOptionalFeaturesOffTheAppHasExactlyTheUnmarkedRoutes(@TempDir Path offDir)
      throws Exception {
    TreeSet<String> always = new TreeSet<>();
    TreeSet<String> ai = new TreeSet<>();
    JsonNode doc = Http.JSON.readTree(Files.readString(CHECKED_IN));
    for (Map.Entry<String, JsonNode> path : doc.get("paths").properties()) {
      for (String method : path.getValue().propertyNames()) {
        String route = method.toUpperCase(java.util.Locale.ROOT) + " " + path.getKey();
        JsonNode op = path.getValue().get(method);
        JsonNode feature = op.get("x-qinglong-feature");
        if (feature == null) {
          always.add(route);
        } else {
          assertThat(feature.asString()).as(route).isEqualTo("ai");
          assertThat(op.get("responses").propertyNames()).as(route).contains("404");
          ai.add(route);
        }
      }
    }
    assertThat(ai).hasSize(10);
    try (TestApp off = TestApp.start(offDir, Map.of())) {
      assertThat(v1Routes(off)).isEqualTo(always);
    }
  }
}
