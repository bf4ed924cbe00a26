package dev.qinglong.app.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.core.kernel.Sha256Digest;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 10 item 3, downloads: they have their own concurrency budget (a held download takes none of
 * the API's slots) and a minimum transfer rate, so slow readers are cut off.
 */
class DownloadBudgetTest {
  @TempDir Path dir;

  static Sha256Digest publish(TestApp app, String ref, byte[] content) throws Exception {
    Sha256Digest d = Sha256Digest.of(content);
    Response up =
        app.http.send(
            app.http
                .builder(path(d), app.token("alice"))
                .header("Content-Type", "application/octet-stream")
                .PUT(HttpRequest.BodyPublishers.ofByteArray(content)));
    assertThat(up.status()).as(up.body()).isEqualTo(201);
    Response p =
        app.http.post(
            "/v1/projects/demo/plugin-packages/proposals",
            app.token("alice"),
            "{\"actionRef\":\""
                + ref
                + "\",\"action\":{\"type\":\"install\",\"package\":\"pkg-"
                + ref
                + "\",\"version\":\"1.0.0\",\"artifactDigest\":\""
                + d.value()
                + "\"}}");
    assertThat(p.status()).as(p.body()).isEqualTo(201);
    Response decided =
        app.http.post(
            "/v1/projects/demo/plugin-packages/approvals/"
                + p.json().get("approvalId").asString()
                + "/decisions",
            app.token("bob"),
            "{\"decisionId\":\"d-"
                + ref
                + "\",\"decision\":\"approve\",\"actionDigest\":\""
                + p.json().get("actionDigest").asString()
                + "\"}");
    assertThat(decided.status()).as(decided.body()).isEqualTo(200);
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < deadline) {
      if (app.http
              .send(
                  app.http
                      .builder(path(d), app.token("bob"))
                      .method("HEAD", HttpRequest.BodyPublishers.noBody()))
              .status()
          == 200) {
        return d;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("artifact " + d.value() + " not published");
  }

  static String path(Sha256Digest d) {
    return "/v1/projects/demo/artifacts/" + d.value();
  }

  static byte[] bytes(int n) {
    byte[] b = new byte[n];
    new Random(n).nextBytes(b);
    return b;
  }

  static Socket download(TestApp app, Sha256Digest d, String user, int receiveBuffer)
      throws IOException {
    return RawClient.open(
        "127.0.0.1",
        app.http.port(),
        "GET "
            + path(d)
            + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer "
            + app.token(user)
            + "\r\n\r\n",
        receiveBuffer);
  }

  @Test
  void aHeldDownloadTakesNoApiSlotAndDownloadsHaveTheirOwnBound() throws Exception {
    try (TestApp app =
        TestApp.start(
            dir,
            Map.of(
                "qinglong.shield.max-concurrent-requests", "1",
                "qinglong.downloads.max-concurrent", "1",
                // Paced: a 1 MiB download takes half a minute.
                "qinglong.downloads.per-principal-bytes-per-second", "32768"))) {
      Sha256Digest d = publish(app, "budget-1", bytes(1024 * 1024));
      try (Socket held = download(app, d, "alice", 0)) {
        held.setSoTimeout(10_000);
        InputStream in = held.getInputStream();
        String head = new String(in.readNBytes(12), StandardCharsets.US_ASCII);
        assertThat(head).isEqualTo("HTTP/1.1 200");
        // The API still answers: the download does not hold its only slot.
        Response members = app.http.get("/v1/projects/demo/members", app.token("admin"));
        assertThat(members.status()).as(members.body()).isEqualTo(200);
        // A second download waits for the download budget.
        Response second = app.http.send(app.http.builder(path(d), app.token("bob")).GET());
        assertThat(second.status()).as(second.body()).isEqualTo(503);
        assertThat(second.code()).isEqualTo("unavailable");
        assertThat(second.header("Retry-After")).contains("1");
      }
      // The permit comes back with the closed download.
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      int status = 0;
      while (status != 200 && System.nanoTime() < deadline) {
        status =
            app.http
                .send(
                    app.http
                        .builder(path(d), app.token("bob"))
                        .method("HEAD", HttpRequest.BodyPublishers.noBody()))
                .status();
        Thread.sleep(100);
      }
      assertThat(status).isEqualTo(200);
    }
  }

  @Test
  void aReaderBelowTheMinimumRateIsCutOff() throws Exception {
    // Larger than what the kernel buffers on loopback (tcp_wmem max 4 MiB), so writes must wait.
    int size = 16 * 1024 * 1024;
    try (TestApp app =
        TestApp.start(
            dir,
            Map.of(
                "qinglong.downloads.max-concurrent", "1",
                "qinglong.downloads.min-bytes-per-second", "65536",
                "qinglong.downloads.min-rate-window", "1s"))) {
      Sha256Digest d = publish(app, "slow-1", bytes(size));
      try (Socket slow = download(app, d, "bob", 4096)) {
        slow.setSoTimeout(200);
        InputStream in = slow.getInputStream();
        byte[] buffer = new byte[1024];
        long started = System.nanoTime();
        boolean cut = false;
        // About 5 KiB/s, far below the 64 KiB/s minimum; a whole transfer would take an hour.
        // The server cuts it off at the minimum-rate check or, once megabytes sit in the kernel's
        // buffers and a write cannot finish at all, at the write timeout (20 s). What the kernel
        // buffered still trickles in afterwards, so the cut shows on the server: the metric, and
        // the download budget's only slot is free again.
        while (!cut && System.nanoTime() - started < Duration.ofSeconds(40).toNanos()) {
          try {
            if (in.read(buffer) < 0) {
              break;
            }
          } catch (SocketTimeoutException e) {
            // nothing this round
          } catch (IOException e) {
            break; // reset by the server
          }
          Thread.sleep(200);
          cut =
              app.management
                  .get("/actuator/prometheus", null)
                  .body()
                  .matches("(?s).*qinglong_downloads_slow_readers_total\\{[^}]*\\} [1-9].*");
        }
        assertThat(cut).as("the server cut the slow reader off").isTrue();
        // The slow reader's socket is still open, yet its download no longer holds the budget.
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        int status = 0;
        while (status != 200 && System.nanoTime() < deadline) {
          status =
              app.http
                  .send(
                      app.http
                          .builder(path(d), app.token("alice"))
                          .method("HEAD", HttpRequest.BodyPublishers.noBody()))
                  .status();
          Thread.sleep(100);
        }
        assertThat(status).isEqualTo(200);
      }
    }
  }
}
