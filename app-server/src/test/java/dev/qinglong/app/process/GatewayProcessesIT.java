package dev.qinglong.app.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.core.model.Sha256Digest;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.io.Reader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Read gateways and completion workers as real, separate JVM processes of the packaged app on one
 * PostgreSQL database and one storage root (ADR 002): one writer, two workers, shared-mode readers
 * on slots 0..2 of 3 (slot 2 reaches the database through a TCP proxy the test can cut).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GatewayProcessesIT {
  static final long RATE = 600_000; // total budget, bytes/s
  static final int SLOTS = 3;
  static final long SHARE = RATE / SLOTS; // 200 000 bytes/s per gateway
  static final Duration START = Duration.ofSeconds(120);
  static final Pattern URL =
      Pattern.compile("jdbc:postgresql://([^/:]+)(?::(\\d+))?/([^?]+)(\\?.*)?");
  static final JsonMapper JSON = JsonMapper.builder().build();
  static final HttpClient CLIENT = HttpClient.newHttpClient();

  @TempDir static Path dataDir;
  // Kept after the run for diagnosis: one log file per process.
  private final Path logDir = Path.of("target", "process-logs", "gateways");

  private TestDatabase db;
  private TcpProxy proxy;
  private String proxiedUrl;
  private final List<AppProcess> processes = new ArrayList<>();
  private AppProcess writer;
  private AppProcess workerA;
  private AppProcess reader0;
  private AppProcess reader1;
  private final Random random = new Random(7);
  private byte[] small;
  private byte[] big;
  private byte[] huge;
  private int refs;

  @BeforeAll
  void startDeployment() throws Exception {
    db = PostgresTestServer.get().createDatabase("gw_processes");
    Matcher m = URL.matcher(db.jdbcUrl());
    assertThat(m.matches()).as(db.jdbcUrl()).isTrue();
    proxy = new TcpProxy(m.group(1), m.group(2) == null ? 5432 : Integer.parseInt(m.group(2)));
    proxiedUrl = "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + m.group(3);

    writer = start("writer", role("writer")).awaitReady(START);
    workerA = start("workerA", role("worker"));
    reader0 = start("reader0", reader(0, db.jdbcUrl()));
    reader1 = start("reader1", reader(1, db.jdbcUrl()));
    for (AppProcess p : List.of(workerA, reader0, reader1)) {
      p.awaitReady(START);
    }
    small = bytes(50_000);
    big = bytes(1_200_000);
    huge = bytes(4_000_000);
    for (byte[] content : List.of(small, big, huge)) {
      publish(content);
    }
  }

  @AfterAll
  void stopAll() throws Exception {
    for (AppProcess p : processes) {
      p.close();
    }
    if (proxy != null) {
      proxy.close();
    }
  }

  // ---- tests ------------------------------------------------------------------------------------

  @Test
  @Order(1)
  void twoWorkersOneActiveAndTheStandbyTakesOverWhenTheFirstIsKilled() throws Exception {
    AppProcess workerB = start("workerB", role("worker")).awaitReady(START);
    awaitLog(workerB, "worker.standby", Duration.ofSeconds(20));
    assertThat(gatewayDetails(workerA).get("worker").asString()).isEqualTo("active");
    assertThat(gatewayDetails(workerB).get("worker").asString()).isEqualTo("standby");

    workerA.kill();
    // A new approval is published by B once it holds the lock (retry every 5 s).
    long before = System.nanoTime();
    publish(bytes(1_000));
    assertThat(Duration.ofNanos(System.nanoTime() - before)).isLessThan(Duration.ofSeconds(30));
    assertThat(gatewayDetails(workerB).get("worker").asString()).isEqualTo("active");
    // Standby was reported once, not every 5 s.
    assertThat(count(workerB.output(), "worker.standby")).isEqualTo(1);
  }

  @Test
  @Order(2)
  void aSecondProcessOnALiveSlotAndAMismatchedPolicyAreRefused() throws Exception {
    AppProcess sameSlot = start("reader1-again", reader(1, db.jdbcUrl()));
    Map<String, String> mismatch = reader(2, db.jdbcUrl());
    mismatch.put("qinglong.downloads.rate-bytes-per-second", Long.toString(RATE * 2));
    AppProcess wrongPolicy = start("reader-mismatch", mismatch);

    assertThat(wrongPolicy.awaitExit(Duration.ofSeconds(90))).isNotZero();
    assertThat(wrongPolicy.output())
        .contains("shared downloads cannot start on slot 2 of 3")
        .containsIgnoringCase("policy");
    assertThat(sameSlot.awaitExit(Duration.ofSeconds(90))).isNotZero();
    assertThat(sameSlot.output()).contains("shared downloads cannot start on slot 1 of 3");
    // The live gateway kept its slot and still serves.
    assertThat(get(reader1, small).statusCode()).isEqualTo(200);
  }

  @Test
  @Order(3)
  void concurrentDownloadsThroughTwoGatewaysStayWithinTheirShares() throws Exception {
    RawDownload d0 = new RawDownload(reader0.port, path(big), token("alice"));
    RawDownload d1 = new RawDownload(reader1.port, path(big), token("bob"));
    long start = System.nanoTime();
    Thread t0 = d0.startThread();
    Thread t1 = d1.startThread();
    long slack = 64 * 1024; // socket buffers and one chunk in flight
    long maxSeen = 0;
    while (t0.isAlive() || t1.isAlive()) {
      Thread.sleep(50);
      double seconds = (System.nanoTime() - start) / 1e9;
      long r0 = d0.received.get();
      long r1 = d1.received.get();
      // Each gateway: its share over the elapsed time plus one share of burst.
      assertThat(r0)
          .as("reader0 after %.2f s", seconds)
          .isLessThanOrEqualTo(bound(SHARE, seconds) + slack);
      assertThat(r1)
          .as("reader1 after %.2f s", seconds)
          .isLessThanOrEqualTo(bound(SHARE, seconds) + slack);
      // Both together never exceed the two shares they hold (plus their bursts).
      assertThat(r0 + r1).isLessThanOrEqualTo(bound(2 * SHARE, seconds) + 2 * slack);
      maxSeen = Math.max(maxSeen, r0 + r1);
      assertThat(seconds).as("downloads finish").isLessThan(40);
    }
    double elapsed = (Math.max(d0.lastByteNanos, d1.lastByteNanos) - start) / 1e9;
    assertThat(d0.complete).as(d0.failure).isTrue();
    assertThat(d1.complete).as(d1.failure).isTrue();
    assertThat(maxSeen).isEqualTo(2L * big.length);
    // The limit really applied: 1.2 MB at 200 kB/s with a 200 kB burst needs about 5 s.
    assertThat(elapsed).isGreaterThan((big.length - SHARE) / (double) SHARE * 0.8);

    String metrics = reader0.body("/actuator/prometheus");
    assertThat(metrics)
        .contains("qinglong_downloads_bytes_total")
        .contains("qinglong_downloads_throttled_seconds_count")
        .contains(
            "qinglong_download_lease_renewals_total{application=\"qinglong\",outcome=\"renewed\"}");
  }

  @Test
  @Order(4)
  void aDatabaseCutStopsPayloadWithinTheLocalWindowAndTheGatewayStaysDown() throws Exception {
    AppProcess reader2 = start("reader2", reader(2, proxiedUrl)).awaitReady(START);
    assertThat(gatewayDetails(reader2).get("sharedDownloads").get("lease").get("state").asString())
        .isEqualTo("active");
    RawDownload d = new RawDownload(reader2.port, path(huge), token("alice"));
    Thread t = d.startThread();
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (d.received.get() < 300_000 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(d.received.get()).isGreaterThanOrEqualTo(300_000);
    long cut = System.nanoTime();
    long atCut = d.received.get();
    proxy.cut();
    t.join(30_000);
    assertThat(t.isAlive()).isFalse();
    assertThat(d.complete).isFalse();
    double afterCut = (d.lastByteNanos - cut) / 1e9;
    long bytesAfterCut = d.received.get() - atCut;
    String seen =
        String.format(
            "received %d bytes at the cut, %d in all, last byte %.2f s after the cut",
            atCut, d.received.get(), afterCut);
    // Local validity is 8 s from the start of the last successful renewal, which began before the
    // cut: the gateway admits payload for at most 8 s after the cut, i.e. at most its share for 8 s
    // plus one share of burst.
    assertThat(bytesAfterCut).as(seen).isLessThanOrEqualTo(8 * SHARE + SHARE + 64 * 1024);
    // And the transfer ends (the connection is closed) soon after; generous for a loaded machine.
    assertThat(afterCut).as(seen).isLessThan(13.0);

    // Readiness goes DOWN and stays DOWN; even with the database back, no payload flows again.
    awaitStatus(reader2, "/actuator/health/readiness", 503, Duration.ofSeconds(20));
    proxy.heal();
    Thread.sleep(3_000);
    assertThat(reader2.status("/actuator/health/readiness")).isEqualTo(503);
    assertThat(reader2.status("/actuator/health/liveness")).isEqualTo(503);
    HttpResponse<byte[]> again = get(reader2, small);
    assertThat(again.statusCode()).isEqualTo(503);
    assertThat(new String(again.body())).contains("unavailable");
    assertThat(reader2.output()).contains("downloads.lease-lost");
  }

  @Test
  @Order(5)
  void aReaderServesWhileTheWriterIsStopped() throws Exception {
    writer.stop();
    assertThat(writer.process.isAlive()).isFalse();
    HttpResponse<byte[]> r = get(reader0, small);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(small);
    HttpResponse<String> post =
        CLIENT.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + reader0.port + path(small)))
                .header("Authorization", "Bearer " + token("alice"))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(small))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).isEqualTo(405);
    assertThat(post.headers().firstValue("Allow")).contains("GET, HEAD");
  }

  // ---- helpers ----------------------------------------------------------------------------------

  static long bound(long rate, double seconds) {
    return (long) (rate * seconds) + rate;
  }

  private AppProcess start(String name, Map<String, String> props) throws Exception {
    AppProcess p = AppProcess.start(name, logDir, props);
    processes.add(p);
    return p;
  }

  private Map<String, String> base(String url) {
    Map<String, String> p = new HashMap<>();
    p.put("qinglong.store", "postgres");
    p.put("qinglong.postgres.url", url);
    p.put("qinglong.postgres.username", db.username());
    p.put("qinglong.postgres.password", db.password() == null ? "" : db.password());
    p.put("qinglong.postgres.bootstrap-roles", "true");
    p.put("qinglong.data-dir", dataDir.toString());
    return p;
  }

  private Map<String, String> role(String role) {
    Map<String, String> p = base(db.jdbcUrl());
    p.put("qinglong.role", role);
    return p;
  }

  private Map<String, String> reader(int slot, String url) {
    Map<String, String> p = base(url);
    p.put("qinglong.role", "reader");
    p.put("qinglong.downloads.mode", "shared");
    p.put("qinglong.downloads.rate-bytes-per-second", Long.toString(RATE));
    p.put("qinglong.downloads.slots", Integer.toString(SLOTS));
    p.put("qinglong.downloads.slot", Integer.toString(slot));
    return p;
  }

  private byte[] bytes(int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  private String token(String user) throws Exception {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(dataDir.resolve("dev-tokens.properties"))) {
      p.load(r);
    }
    return p.getProperty(user);
  }

  static String path(byte[] content) {
    return "/v1/projects/demo/artifacts/" + Sha256Digest.of(content).value();
  }

  private HttpResponse<String> api(
      String method, String path, String user, String type, byte[] body) throws Exception {
    return CLIENT.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + writer.port + path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + token(user))
            .header("Content-Type", type)
            .method(method, HttpRequest.BodyPublishers.ofByteArray(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Upload through the writer, propose, approve, and wait until a worker published it. */
  private void publish(byte[] content) throws Exception {
    String digest = Sha256Digest.of(content).value();
    HttpResponse<String> up =
        api("PUT", path(content), "alice", "application/octet-stream", content);
    assertThat(up.statusCode()).as(up.body()).isEqualTo(201);
    String ref = "proc-" + (++refs);
    HttpResponse<String> proposed =
        api(
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
    String proposalId = p.get("proposalId").asString();
    long deadline = System.nanoTime() + 40_000_000_000L;
    String state = null;
    for (int i = 0; System.nanoTime() < deadline; i++) {
      HttpResponse<String> inspected =
          api(
              "POST",
              "/v1/projects/demo/plugin-packages/proposals/" + proposalId + "/inspections",
              "alice",
              "application/json",
              ("{\"inspectionId\":\"i-" + ref + "-" + i + "\"}").getBytes());
      state = JSON.readTree(inspected.body()).get("proposal").get("state").asString();
      if (state.equals("published")) {
        return;
      }
      Thread.sleep(300);
    }
    assertThat(state).as("proposal " + ref).isEqualTo("published");
  }

  private HttpResponse<byte[]> get(AppProcess p, byte[] content) throws Exception {
    return CLIENT.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + p.port + path(content)))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + token("alice"))
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }

  private JsonNode gatewayDetails(AppProcess p) throws Exception {
    return JSON.readTree(p.body("/actuator/health/readiness"))
        .get("components")
        .get("gateway")
        .get("details");
  }

  private static void awaitLog(AppProcess p, String text, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (p.output().contains(text)) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError(p.name + " never logged " + text + ":\n" + p.tail());
  }

  private static void awaitStatus(AppProcess p, String path, int status, Duration timeout)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    int last = 0;
    while (System.nanoTime() < deadline) {
      last = p.status(path);
      if (last == status) {
        return;
      }
      Thread.sleep(250);
    }
    throw new AssertionError(p.name + " " + path + " stayed " + last + ":\n" + p.tail());
  }

  private static int count(String haystack, String needle) {
    int n = 0;
    for (int i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + 1)) {
      n++;
    }
    return n;
  }
}
