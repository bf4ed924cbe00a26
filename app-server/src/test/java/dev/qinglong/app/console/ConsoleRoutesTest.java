package dev.qinglong.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.gateway.artifacts.FileArtifactStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console is served by the roles that serve the management API ({@code all}, {@code writer})
 * and is a plain 404 on readers and workers ({@code /} redirects to it where it is served); its
 * page is CSP-locked to its own origin and holds no inline script or style.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleRoutesTest {
  @TempDir static Path dir;
  private TestApp all;
  private TestApp writer;
  private TestApp reader;
  private TestApp worker;

  @BeforeAll
  void start() throws IOException {
    all = TestApp.start(dir.resolve("all"), Map.of("qinglong.role", "all"));
    writer = TestApp.start(dir.resolve("writer"), Map.of("qinglong.role", "writer"));
    Path readerDir = dir.resolve("reader");
    FileArtifactStore.forWriter(readerDir, 1024); // the storage identity a reader verifies
    reader = TestApp.start(readerDir, Map.of("qinglong.role", "reader"));
    worker = TestApp.start(dir.resolve("worker"), Map.of("qinglong.role", "worker"));
  }

  @AfterAll
  void stop() {
    for (TestApp app : new TestApp[] {all, writer, reader, worker}) {
      if (app != null) {
        app.close();
      }
    }
  }

  @Test
  void aWriterServesTheConsoleWithItsSecurityHeaders() {
    Http.Response page = writer.http.get("/console/", null);
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.contentType()).startsWith("text/html");
    assertThat(page.body()).contains("<script type=\"module\" src=\"app.js\"></script>");
    assertThat(page.header("Content-Security-Policy").orElseThrow())
        .contains("script-src 'self'")
        .contains("connect-src 'self'")
        .contains("frame-ancestors 'none'")
        .doesNotContain("unsafe-inline")
        .doesNotContain("unsafe-eval");
    assertThat(page.header("X-Content-Type-Options")).contains("nosniff");
    assertThat(page.header("Referrer-Policy")).contains("no-referrer");
    // CSP-friendly: no inline script, no event-handler attribute, no style attribute.
    assertThat(page.body()).doesNotContainPattern("<script(?![^>]*\\bsrc=)[^>]*>");
    assertThat(page.body()).doesNotContainPattern("\\son[a-z]+=");
    assertThat(page.body()).doesNotContainPattern("\\sstyle=");

    for (String file : new String[] {"app.js", "api.js", "dom.js", "usage-chart.js"}) {
      Http.Response script = writer.http.get("/console/" + file, null);
      assertThat(script.status()).as(file).isEqualTo(200);
      assertThat(script.contentType()).as(file).contains("javascript");
      // Everything the console loads comes from this server (the SVG namespace name is an
      // identifier, never fetched).
      assertThat(script.body().replace("'http://www.w3.org/2000/svg'", ""))
          .as(file)
          .doesNotContain("http://")
          .doesNotContain("https://");
    }
    assertThat(writer.http.get("/console/console.css", null).contentType()).startsWith("text/css");
    // The favicon is the console's own SVG, linked from the page.
    assertThat(page.body())
        .contains("<link rel=\"icon\" type=\"image/svg+xml\" href=\"favicon.svg\">");
    Http.Response icon = writer.http.get("/console/favicon.svg", null);
    assertThat(icon.status()).isEqualTo(200);
    assertThat(icon.contentType()).startsWith("image/svg+xml");
    assertThat(icon.body()).startsWith("<svg ");
    Http.Response redirect = writer.http.get("/console", null);
    assertThat(redirect.status()).isEqualTo(302);
    assertThat(redirect.header("Location")).contains("/console/");
  }

  @Test
  void theRootRedirectsToTheConsoleWhereTheConsoleIsServed() {
    for (TestApp app : new TestApp[] {all, writer}) {
      Http.Response root = app.http.get("/", null);
      assertThat(root.status()).isEqualTo(302);
      assertThat(root.header("Location")).contains("/console/");
      assertThat(app.http.get(root.header("Location").orElseThrow(), null).status()).isEqualTo(200);
    }
  }

  @Test
  void readersAndWorkersHaveNoConsole() {
    for (TestApp app : new TestApp[] {reader, worker}) {
      for (String path :
          new String[] {"/", "/console/", "/console", "/console/app.js", "/console/index.html"}) {
        Http.Response r = app.http.get(path, null);
        assertThat(r.status()).as(path).isEqualTo(404);
        assertThat(r.code()).as(path).isEqualTo("not_found");
      }
      assertThat(app.beanCount(ConsoleController.class)).isZero();
      assertThat(app.beanCount(ConsoleConfiguration.class)).isZero();
    }
  }
}
