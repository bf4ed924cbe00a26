package dev.qinglong.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.TestApp;
import dev.qinglong.gateway.artifacts.FileArtifactStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The one INFO line a started process that serves the console logs: the console's and the API
 * viewer's addresses on the bound port (both answer there), and the dev tokens file in dev-tokens
 * mode; a reader, which serves neither, logs none.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartedLineTest {
  private static final Pattern LINE =
      Pattern.compile(
          "QingLong started: console (\\S+), API viewer (\\S+)(?:, dev tokens in (\\S+))?$",
          Pattern.MULTILINE);

  @Test
  void allLogsTheConsoleTheApiViewerAndTheDevTokensFile(CapturedOutput output, @TempDir Path dir)
      throws Exception {
    int before = output.getAll().length();
    try (TestApp app = TestApp.start(dir)) {
      String out = output.getAll().substring(before);
      assertThat(LINE.matcher(out).results().count()).as(out).isOne();
      Matcher m = LINE.matcher(out);
      assertThat(m.find()).isTrue();
      // Plain ASCII around the addresses: a terminal in the POSIX locale shows it as written.
      assertThat(m.group().replace(dir.toString(), "")).matches("\\p{ASCII}*");
      String base = "http://127.0.0.1:" + app.http.port();
      assertThat(m.group(1)).isEqualTo(base + "/console/");
      assertThat(m.group(2)).isEqualTo(base + "/swagger-ui/");
      assertThat(m.group(3)).isEqualTo(dir.resolve("dev-tokens.properties").toString());
      assertThat(status(m.group(1))).isEqualTo(200);
      assertThat(status(m.group(2))).isEqualTo(200);
    }
  }

  @Test
  void jwtModeLeavesOutTheDevTokens(CapturedOutput output, @TempDir Path dir) {
    int before = output.getAll().length();
    try (TestApp app =
        TestApp.start(
            dir,
            Map.of(
                "qinglong.role", "writer",
                "qinglong.auth.mode", "jwt",
                "qinglong.auth.jwt.issuer-uri", "https://issuer.example",
                "qinglong.auth.jwt.jwk-set-uri", "http://127.0.0.1:9/jwks",
                "qinglong.auth.jwt.audience", "qinglong"))) {
      String out = output.getAll().substring(before);
      Matcher m = LINE.matcher(out);
      assertThat(m.find()).as(out).isTrue();
      assertThat(m.group(1)).isEqualTo("http://127.0.0.1:" + app.http.port() + "/console/");
      assertThat(m.group(3)).isNull();
    }
  }

  @Test
  void aReaderLogsNoStartedLine(CapturedOutput output, @TempDir Path dir) throws Exception {
    FileArtifactStore.forWriter(dir, 1024); // the storage identity a reader verifies
    int before = output.getAll().length();
    try (TestApp reader = TestApp.start(dir, Map.of("qinglong.role", "reader"))) {
      assertThat(reader.http.port()).isPositive();
      assertThat(output.getAll().substring(before)).doesNotContain("QingLong started");
    }
  }

  /** The status a browser ends on (the viewer's address redirects to its page). */
  private static int status(String url) throws Exception {
    return HttpClient.newBuilder()
        .followRedirects(HttpClient.Redirect.NORMAL)
        .build()
        .send(
            HttpRequest.newBuilder(URI.create(url)).GET().build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }
}
