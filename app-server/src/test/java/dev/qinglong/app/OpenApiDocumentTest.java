package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.TestApp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
import tools.jackson.databind.SerializationFeature;

/**
 * docs/openapi.json is the document springdoc generates from the code: an app of role {@code all}
 * with every optional feature on serves it at {@code /v3/api-docs}, and this test fails when the
 * served document and the checked-in file differ (compared as parsed JSON). Regenerate the file
 * with {@value #REGENERATE}. The document describes exactly the /v1 routes the app has, and a
 * second app with the defaults (features off) has exactly the operations not marked {@code
 * x-qinglong-feature}.
 */
class OpenApiDocumentTest {
  static final Path CHECKED_IN = Path.of("..", "docs", "openapi.json");
  static final String WRITE = "qinglong.openapi.write";
  static final String REGENERATE =
      "./mvnw -B -pl app-server -am verify -DskipITs -Dsurefire.failIfNoSpecifiedTests=false"
          + " -Dtest=OpenApiDocumentTest -Dqinglong.openapi.write=true";

  @TempDir static Path dataDir;
  static TestApp app;
  static JsonNode served;

  @BeforeAll
  static void start() {
    app = TestApp.start(dataDir, Map.of("qinglong.ai.enabled", "true"));
    var response = app.http.get("/v3/api-docs", null);
    assertThat(response.status()).isEqualTo(200);
    assertThat(response.contentType()).startsWith("application/json");
    served = response.json();
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  @Test
  void servedDocumentIsTheCheckedInFile() throws Exception {
    assertThat(served.get("openapi").asString()).isEqualTo("3.1.0");
    if (Boolean.getBoolean(WRITE)) {
      String pretty =
          Http.JSON.writer().with(SerializationFeature.INDENT_OUTPUT).writeValueAsString(served);
      Files.writeString(CHECKED_IN, pretty + "\n");
    }
    JsonNode checkedIn = Http.JSON.readTree(Files.readString(CHECKED_IN));
    List<String> differences = new ArrayList<>();
    differences("", checkedIn, served, differences);
    assertThat(differences)
        .as(
            "where the document the app serves differs from docs/openapi.json (checked in ->"
                + " served); regenerate the file with %s",
            REGENERATE)
        .isEmpty();
  }

  /** The JSON pointers at which {@code a} and {@code b} differ, the first few with both values. */
  static void differences(String at, JsonNode a, JsonNode b, List<String> out) {
    if (out.size() >= 20 || a.equals(b)) {
      return;
    }
    if (a.isObject() && b.isObject()) {
      TreeSet<String> names = new TreeSet<>(a.propertyNames());
      names.addAll(b.propertyNames());
      for (String name : names) {
        differences(
            at + "/" + name.replace("~", "~0").replace("/", "~1"), a.path(name), b.path(name), out);
      }
    } else {
      out.add(at + ": " + abbreviated(a) + " -> " + abbreviated(b));
    }
  }

  static String abbreviated(JsonNode node) {
    String text = node.isMissingNode() ? "(absent)" : node.toString();
    return text.length() > 120 ? text.substring(0, 120) + "…" : text;
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

  static TreeSet<String> documented(JsonNode doc) {
    TreeSet<String> documented = new TreeSet<>();
    for (Map.Entry<String, JsonNode> path : doc.get("paths").properties()) {
      for (String method : path.getValue().propertyNames()) {
        documented.add(method.toUpperCase(Locale.ROOT) + " " + path.getKey());
      }
    }
    return documented;
  }

  /** Every {@code $ref} of the document names a component it defines (no dangling reference). */
  @Test
  void everyReferenceNamesADefinedComponent() {
    List<String> dangling = new ArrayList<>();
    collectRefs(served, dangling);
    assertThat(dangling).isNotEmpty(); // the document does use references
    dangling.removeIf(
        ref -> {
          String[] parts = ref.split("/"); // #/components/<kind>/<name>
          return parts.length == 4
              && parts[0].equals("#")
              && parts[1].equals("components")
              && served.path("components").path(parts[2]).has(parts[3]);
        });
    assertThat(dangling).isEmpty();
  }

  private static void collectRefs(JsonNode node, List<String> out) {
    if (node.isObject()) {
      for (Map.Entry<String, JsonNode> member : node.properties()) {
        if (member.getKey().equals("$ref") && member.getValue().isString()) {
          out.add(member.getValue().asString());
        } else {
          collectRefs(member.getValue(), out);
        }
      }
    } else if (node.isArray()) {
      node.forEach(item -> collectRefs(item, out));
    }
  }

  @Test
  void documentDescribesExactlyTheV1RoutesOfTheApp() {
    for (Map.Entry<String, JsonNode> path : served.get("paths").properties()) {
      for (Map.Entry<String, JsonNode> op : path.getValue().properties()) {
        assertThat(op.getValue().get("responses").propertyNames())
            .as("responses of %s %s", op.getKey(), path.getKey())
            .contains("400", "401", "405", "413", "503");
        // 403 wherever a permission is checked: every route but the caller's own view.
        boolean anyCaller = path.getKey().equals("/v1/projects/{projectId}/me");
        assertThat(op.getValue().get("responses").has("403"))
            .as("403 documented for %s %s", op.getKey(), path.getKey())
            .isEqualTo(!anyCaller);
      }
    }
    assertThat(v1Routes(app)).isNotEmpty().isEqualTo(documented(served));
  }

  @Test
  void withOptionalFeaturesOffTheAppHasExactlyTheUnmarkedRoutes(@TempDir Path offDir) {
    TreeSet<String> always = new TreeSet<>();
    TreeSet<String> ai = new TreeSet<>();
    for (Map.Entry<String, JsonNode> path : served.get("paths").properties()) {
      for (Map.Entry<String, JsonNode> op : path.getValue().properties()) {
        String route = op.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey();
        JsonNode feature = op.getValue().get("x-qinglong-feature");
        if (feature == null) {
          always.add(route);
        } else {
          assertThat(feature.asString()).as(route).isEqualTo("ai");
          assertThat(op.getValue().get("responses").propertyNames()).as(route).contains("404");
          ai.add(route);
        }
      }
    }
    assertThat(ai).hasSize(10);
    try (TestApp off = TestApp.start(offDir, Map.of())) {
      assertThat(v1Routes(off)).isEqualTo(always);
      assertThat(documented(off.http.get("/v3/api-docs", null).json())).isEqualTo(always);
    }
  }
}
