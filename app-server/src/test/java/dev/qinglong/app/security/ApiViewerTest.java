package dev.qinglong.app.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.http.ApiViewerConfiguration;
import dev.qinglong.app.http.PageHeaders;
import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.TestApp;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API viewer ({@code /swagger-ui/}) is under the console's Content-Security-Policy, serves none
 * of the webjar's demo files (petstore initializer, OAuth2 redirect page, demo index), and its page
 * still loads the app's own OpenAPI document.
 */
class ApiViewerTest {
  @TempDir static Path dataDir;
  static TestApp app;

  @BeforeAll
  static void start() {
    app = TestApp.start(dataDir);
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  @Test
  void everyViewerResponseCarriesTheConsolesPolicy() {
    String console =
        app.http.get("/console/", null).header("Content-Security-Policy").orElseThrow();
    assertThat(console).isEqualTo(PageHeaders.CONTENT_SECURITY_POLICY);
    for (String path :
        List.of(
            "/swagger-ui",
            "/swagger-ui/",
            "/swagger-ui/index.html",
            "/swagger-ui/qinglong-init.js",
            "/swagger-ui/swagger-ui-bundle.js",
            "/swagger-ui/swagger-ui.css",
            "/swagger-ui/oauth2-redirect.html",
            "/swagger-ui/no-such-file.js")) {
      Response r = app.http.get(path, null);
      assertThat(r.header("Content-Security-Policy")).as(path).contains(console);
      assertThat(r.header("X-Content-Type-Options")).as(path).contains("nosniff");
      assertThat(r.header("X-Frame-Options")).as(path).contains("DENY");
      assertThat(r.header("Referrer-Policy")).as(path).contains("no-referrer");
    }
  }

  @Test
  void theWebjarsDemoFilesAreNotServed() {
    String version = ApiViewerConfiguration.webjarVersion();
    String webjar = "/webjars/swagger-ui/" + version + "/";
    for (String path :
        List.of(
            "/swagger-ui/swagger-initializer.js",
            "/swagger-ui/oauth2-redirect.html",
            "/swagger-ui/oauth2-redirect.js",
            "/swagger-ui/index.css",
            "/swagger-ui/swagger-ui.js",
            "/swagger-ui/swagger-ui-standalone-preset.js",
            "/swagger-ui/swagger-ui-es-bundle.js",
            "/swagger-ui/%73wagger-initializer.js",
            "/swagger-ui/%6Fauth2-redirect.html",
            webjar + "index.html",
            webjar + "swagger-initializer.js",
            webjar + "oauth2-redirect.html",
            webjar + "swagger-ui-bundle.js",
            "/META-INF/resources" + webjar + "swagger-initializer.js",
            "/swagger-initializer.js",
            "/oauth2-redirect.html")) {
      Response r = app.http.get(path, null);
      assertThat(r.status()).as(path).isEqualTo(404);
      assertThat(r.contentType()).as(path).startsWith("application/problem+json");
      assertThat(r.body()).as(path).doesNotContainIgnoringCase("petstore").doesNotContain(path);
    }
  }

  @Test
  void theViewerPageLoadsTheAppsOwnDocument() {
    Response redirect = app.http.get("/swagger-ui/", null);
    assertThat(redirect.status()).isEqualTo(302);
    assertThat(redirect.header("Location"))
        .hasValueSatisfying(l -> assertThat(l).endsWith("/swagger-ui/index.html"));
    Response index = app.http.get("/swagger-ui/index.html", null);
    assertThat(index.status()).isEqualTo(200);
    assertThat(index.contentType()).startsWith("text/html");
    assertThat(index.body())
        .contains("swagger-ui-bundle.js", "swagger-ui.css", "qinglong-init.js")
        .doesNotContain("swagger-initializer.js");
    // Under the policy: no inline script or style, no event-handler attribute.
    assertThat(index.body()).doesNotContainPattern("<script(?![^>]*\\bsrc=)[^>]*>");
    assertThat(index.body()).doesNotContainPattern("\\son[a-z]+=");
    assertThat(index.body()).doesNotContainPattern("\\sstyle=");
    assertThat(index.body()).doesNotContain("<style");
    Response init = app.http.get("/swagger-ui/qinglong-init.js", null);
    assertThat(init.status()).isEqualTo(200);
    assertThat(init.body())
        .contains("url: \"/v3/api-docs\"", "queryConfigEnabled: false")
        .doesNotContainIgnoringCase("petstore");
    assertThat(app.http.get("/swagger-ui/swagger-ui-bundle.js", null).status()).isEqualTo(200);
    Response css = app.http.get("/swagger-ui/swagger-ui.css", null);
    assertThat(css.status()).isEqualTo(200);
    assertThat(css.contentType()).startsWith("text/css");
    assertThat(app.http.get("/v3/api-docs", null).status()).isEqualTo(200);
  }
}
