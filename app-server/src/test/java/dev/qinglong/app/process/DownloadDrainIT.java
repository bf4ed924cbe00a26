package dev.qinglong.app.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.testkit.AppProcess;
import dev.qinglong.testkit.RawHttp;
import java.io.Reader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What docs/deploy.md "Drain and resumable downloads" promises, on a real process stopped with
 * SIGTERM (what Kubernetes sends after the preStop delay): a throttled download in progress keeps
 * streaming through the graceful shutdown phase and completes; one that outlasts the phase is cut,
 * and the client resumes it from another server with {@code Range} + {@code If-Range} and gets
 * exactly the missing bytes (206). One process of role {@code all} on SQLite serves downloads in
 * standalone mode with a total budget, so a download takes seconds.
 */
class DownloadDrainIT {
  private static final Duration START = Duration.ofSeconds(120);
  private static final long RATE = 400_000; // bytes/s, the whole budget
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  @TempDir Path dataDir;
  private final Path logDir = Path.of("target", "process-logs", "download-drain");
  private final List<AppProcess> processes = new ArrayList<>();
  private final Random random = new Random(14);
  private int starts;

  @AfterEach
  void stop() throws InterruptedException {
    for (AppProcess p : processes) {
      p.close();
    }
  }

  @Test
  void aDownloadInProgressFinishesDuringTheGracefulShutdownPhase() throws Exception {
    AppProcess app = start("20s");
    byte[] content = publish(app, 2_400_000); // about 6 s at the budget
    RawHttp.Download download = new RawHttp.Download(app.port, path(content), token("alice"));
    Thread t = download.startThread();
    awaitBytes(download, 200_000);

    app.process.destroy(); // SIGTERM
    t.join(30_000);
    assertThat(download.status).isEqualTo(200);
    assertThat(download.failure).as("cut during the drain").isNull();
    assertThat(download.complete).as("all %s bytes", content.length).isTrue();
    assertThat(download.received.get()).isEqualTo(content.length);
    // The JVM ends with 143 (128 + SIGTERM) after its shutdown hooks, as in a container.
    assertThat(app.awaitExit(Duration.ofSeconds(30))).as(app.tail()).isEqualTo(143);
    assertThat(app.output()).contains("Graceful shutdown complete");
  }

  @Test
  void aDownloadThatOutlastsThePhaseIsCutAndResumesWithRangeOnAnotherServer() throws Exception {
    AppProcess first = start("1s");
    byte[] content = publish(first, 2_400_000); // about 6 s at the budget
    RawHttp.Download download = new RawHttp.Download(first.port, path(content), token("alice"));
    Thread t = download.startThread();
    awaitBytes(download, 200_000);

    first.process.destroy(); // SIGTERM; the phase (1 s) ends long before the download would
    t.join(30_000);
    first.awaitExit(Duration.ofSeconds(30));
    long received = download.received.get();
    assertThat(download.status).isEqualTo(200);
    assertThat(download.complete).as("cut mid-stream").isFalse();
    assertThat(received).isBetween(200_000L, (long) content.length - 1);

    // Another server on the same storage and database (here: the same data dir, restarted).
    AppProcess second = start("20s");
    String etag = "\"" + Sha256Digest.of(content).value() + "\"";
    HttpResponse<byte[]> rest =
        CLIENT.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + second.port + path(content)))
                .timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + token("alice"))
                .header("Range", "bytes=" + received + "-")
                .header("If-Range", etag)
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertThat(rest.statusCode()).isEqualTo(206);
    assertThat(rest.headers().firstValue("Content-Range"))
        .contains("bytes " + received + "-" + (content.length - 1) + "/" + content.length);
    byte[] expected = new byte[content.length - (int) received];
    System.arraycopy(content, (int) received, expected, 0, expected.length);
    assertThat(rest.body()).isEqualTo(expected);

    // A changed artifact (another ETag) would not be spliced: If-Range that does not match is 200.
    HttpResponse<byte[]> stale =
        CLIENT.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + second.port + path(content)))
                .timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + token("alice"))
                .header("Range", "bytes=" + received + "-")
                .header("If-Range", "\"sha256:" + "0".repeat(64) + "\"")
                .method("HEAD", HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertThat(stale.statusCode()).isEqualTo(200);
  }

  // ---------------------------------------------------------------- helpers

  /** Role all on SQLite, standalone downloads with a total budget, the given shutdown phase. */
  private AppProcess start(String shutdownPhase) throws Exception {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("QINGLONG_DATADIR", dataDir.toString());
    env.put("QINGLONG_DOWNLOADS_RATEBYTESPERSECOND", Long.toString(RATE));
    env.put("SERVER_ADDRESS", "127.0.0.1");
    env.put("SERVER_PORT", Integer.toString(AppProcess.freePort()));
    env.put("MANAGEMENT_SERVER_ADDRESS", "127.0.0.1");
    env.put("MANAGEMENT_SERVER_PORT", Integer.toString(AppProcess.freePort()));
    env.put("QINGLONG_READINESS_REFRESHINTERVAL", "250ms");
    env.put("SPRING_LIFECYCLE_TIMEOUTPERSHUTDOWNPHASE", shutdownPhase);
    List<String> cmd =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m",
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-jar",
            AppProcess.jar().toString());
    AppProcess p = AppProcess.fromEnvironment("app-" + (++starts), logDir, env, cmd);
    processes.add(p);
    return p.awaitReady(START);
  }

  private static String path(byte[] content) {
    return "/v1/projects/demo/artifacts/" + Sha256Digest.of(content).value();
  }

  private String token(String user) throws Exception {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(dataDir.resolve("dev-tokens.properties"))) {
      p.load(r);
    }
    return p.getProperty(user);
  }

  private HttpResponse<String> api(
      AppProcess app, String method, String path, String user, String type, byte[] body)
      throws Exception {
    return CLIENT.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port + path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + token(user))
            .header("Content-Type", type)
            .method(method, HttpRequest.BodyPublishers.ofByteArray(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Uploads n random bytes, proposes, approves, and waits until the worker published them. */
  private byte[] publish(AppProcess app, int n) throws Exception {
    byte[] content = new byte[n];
    random.nextBytes(content);
    String digest = Sha256Digest.of(content).value();
    HttpResponse<String> up =
        api(app, "PUT", path(content), "alice", "application/octet-stream", content);
    assertThat(up.statusCode()).as(up.body()).isEqualTo(201);
    String ref = "drain-" + digest.substring(7, 15);
    HttpResponse<String> proposed =
        api(
            app,
            "POST",
            "/v1/projects/demo/plugin-packages/proposals",
            "alice",
            "application/json",
            ("{\"actionRef\":\""
                    + ref
                    + "\",\"action\":{\"type\":\"install\",\"package\":\"p-"
                    + ref
                    + "\",\"version\":\"1.0.0\",\"artifactDigest\":\""
                    + digest
                    + "\"}}")
                .getBytes());
    assertThat(proposed.statusCode()).as(proposed.body()).isEqualTo(201);
    JsonNode p = JSON.readTree(proposed.body());
    HttpResponse<String> decided =
        api(
            app,
            "POST",
            "/v1/projects/demo/plugin-packages/approvals/"
                + p.get("approvalId").asString()
                + "/decisions",
            "bob",
            "application/json",
            ("{\"decisionId\":\"d-"
                    + ref
                    + "\",\"decision\":\"approve\",\"actionDigest\":\""
                    + p.get("actionDigest").asString()
                    + "\"}")
                .getBytes());
    assertThat(decided.statusCode()).as(decided.body()).isEqualTo(200);
    HttpRequest head =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port + path(content)))
            .timeout(Duration.ofSeconds(10))
            .header("Authorization", "Bearer " + token("alice"))
            .method("HEAD", HttpRequest.BodyPublishers.noBody())
            .build();
    try {
      await()
          .atMost(Duration.ofSeconds(40))
          .pollInterval(Duration.ofMillis(300))
          .until(
              () -> CLIENT.send(head, HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("not published within 40 s:\n" + app.tail(), e);
    }
    return content;
  }

  private static void awaitBytes(RawHttp.Download d, long bytes) {
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> d.received.get() >= bytes || d.failure != null);
    assertThat(d.received.get())
        .as("bytes before the stop (%s)", d.failure)
        .isGreaterThanOrEqualTo(bytes);
  }
}
