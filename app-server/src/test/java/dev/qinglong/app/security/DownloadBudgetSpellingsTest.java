package dev.qinglong.app.security;

import static dev.qinglong.app.security.DownloadBudgetTest.bytes;
import static dev.qinglong.app.security.DownloadBudgetTest.path;
import static dev.qinglong.app.security.DownloadBudgetTest.publish;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.core.kernel.Sha256Digest;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shield counts a download against the download budget whatever the spelling of its path.
 * {@code /v%31/…} and {@code …/%61rtifacts/…} reach the download route like {@code
 * /v1/…/artifacts/…} (MVC decodes), so they are refused the same way when the budget is spent, and
 * a download held through them takes none of the API's slots.
 */
class DownloadBudgetSpellingsTest {
  @TempDir Path dir;

  /** Spellings of the artifact's path that MVC serves, raw on the request line. */
  private static List<String> encoded(Sha256Digest d) {
    String real = path(d);
    return List.of(
        real.replace("/v1/", "/v%31/"),
        real.replace("/artifacts/", "/%61rtifacts/"),
        real.replace("/v1/", "/%76%31/").replace("/artifacts/", "/%61rtifacts/"));
  }

  /** A GET the server answers with a paced body the client does not read: it stays in flight. */
  private static Socket holdDownload(TestApp app, String rawPath, String user) throws IOException {
    Socket held =
        RawClient.open(
            "127.0.0.1",
            app.http.port(),
            "GET "
                + rawPath
                + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer "
                + app.token(user)
                + "\r\n\r\n",
            0);
    held.setSoTimeout(60_000);
    String head = new String(held.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
    assertThat(head).as("GET " + rawPath).isEqualTo("HTTP/1.1 200");
    return held;
  }

  private static String head(TestApp app, String rawPath, String user) throws IOException {
    try (Socket s =
        RawClient.open(
            "127.0.0.1",
            app.http.port(),
            "HEAD "
                + rawPath
                + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer "
                + app.token(user)
                + "\r\n\r\n",
            0)) {
      s.setSoTimeout(10_000);
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void encodedSpellingsOfADownloadCountAgainstTheDownloadBudget() throws Exception {
    try (TestApp app =
        TestApp.start(
            dir,
            Map.of(
                "qinglong.shield.max-concurrent-requests", "1",
                "qinglong.downloads.max-concurrent", "1",
                // Paced: a 2 MiB download takes two minutes, far longer than this test holds it.
                "qinglong.downloads.per-principal-bytes-per-second", "16384"))) {
      Sha256Digest d = publish(app, "spelling-1", bytes(2 * 1024 * 1024));

      // The download budget is spent by a download of the real spelling: every spelling is
      // refused like the real one, and none of them is served from the API's free slot.
      try (Socket held = holdDownload(app, path(d), "alice")) {
        String real = head(app, path(d), "bob");
        assertThat(RawClient.status(real)).as(real).isEqualTo(503);
        for (String spelling : encoded(d)) {
          String answer = head(app, spelling, "bob");
          assertThat(RawClient.status(answer))
              .as("HEAD " + spelling + "\n" + answer)
              .isEqualTo(503);
          assertThat(answer)
              .contains("application/problem+json")
              .containsIgnoringCase("Retry-After");
          String get =
              RawClient.get("127.0.0.1", app.http.port(), spelling, app.token("bob"), null);
          assertThat(RawClient.status(get)).as("GET " + spelling + "\n" + get).isEqualTo(503);
        }
        Response members = app.http.get("/v1/projects/demo/members", app.token("admin"));
        assertThat(members.status()).as(members.body()).isEqualTo(200);
      }
      // The permit comes back once the server sees the held download closed.
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> RawClient.status(head(app, path(d), "bob")) == 200);

      // A download held through an encoded spelling takes the download budget's slot, not the
      // API's only one: the API still answers, and the real spelling now waits for the budget.
      try (Socket held = holdDownload(app, encoded(d).get(0), "alice")) {
        Response members = app.http.get("/v1/projects/demo/members", app.token("admin"));
        assertThat(members.status()).as(members.body()).isEqualTo(200);
        String real = head(app, path(d), "bob");
        assertThat(RawClient.status(real)).as(real).isEqualTo(503);
      }
    }
  }
}
