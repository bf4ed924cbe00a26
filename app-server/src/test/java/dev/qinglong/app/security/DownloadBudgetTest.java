package dev.qinglong.app.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
 * Downloads: they have their own concurrency budget (a held download takes none of the API's slots)
 * and a minimum transfer rate, so slow readers are cut off.
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
    // Publication follows the approval asynchronously: wait until the artifact serves.
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .alias("artifact " + d.value() + " published")
        .until(() -> head(app, d, "bob") == 200);
    return d;
  }

  /** The status of a HEAD of the artifact as {@code user}. */
  static int head(TestApp app, Sha256Digest d, String user) throws Exception {
    return app.http
        .send(
            app.http
                .builder(path(d), app.token(user))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()))
        .status();
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
                // Paced: a 1 MiB download takes two minutes, far longer than this test needs to
                // hold it, however slow the machine.
                "qinglong.downloads.per-principal-bytes-per-second", "8192"))) {
      Sha256Digest d = publish(app, "budget-1", bytes(1024 * 1024));
      try (Socket held = download(app, d, "alice", 0)) {
        held.setSoTimeout(60_000);
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
      // The permit comes back with the closed download (once the server sees the close).
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> head(app, d, "bob") == 200);
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
        boolean[] closed = {false};
        // About 5 KiB/s (1 KiB every 200 ms), far below the 64 KiB/s minimum; a whole transfer
        // would take an hour. The server cuts it off at the minimum-rate check or, once megabytes
        // sit in the kernel's buffers and a write cannot finish at all, at the write timeout
        // (20 s). What the kernel buffered still trickles in afterwards, so the cut shows on the
        // server: the metric, and the download budget's only slot is free again. The wait is on
        // that metric; its bound is only a guard against a hang.
        await()
            .alias("the server cut the slow reader off")
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(200))
            .until(
                () -> {
                  if (!closed[0]) {
                    try {
                      if (in.read(buffer) < 0) {
                        closed[0] = true;
                      }
                    } catch (SocketTimeoutException e) {
                      // nothing this round
                    } catch (IOException e) {
                      closed[0] = true; // reset by the server
                    }
                  }
                  return app.management
                      .get("/actuator/prometheus", null)
                      .body()
                      .matches("(?s).*qinglong_downloads_slow_readers_total\\{[^}]*\\} [1-9].*");
                });
        // The slow reader's socket is still open, yet its download no longer holds the budget.
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(100))
            .until(() -> head(app, d, "alice") == 200);
      }
    }
  }
}
