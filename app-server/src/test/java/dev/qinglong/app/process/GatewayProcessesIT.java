package dev.qinglong.app.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.gateway.lease.LeaseTimings;
import dev.qinglong.testkit.AppProcess;
import dev.qinglong.testkit.RawHttp;
import dev.qinglong.testkit.TcpProxy;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.io.Reader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionTimeoutException;
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
 * Read gateways and publication workers as real, separate JVM processes of the packaged app on one
 * PostgreSQL database and one storage root (docs/downloads.md): one writer, two workers,
 * shared-mode readers on slots 0..2 of 3 (slot 2 reaches the database through a TCP proxy the test
 * can cut).
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
  private AppProcess slot2; // the current reader on slot 2, through `proxy`
  private int slot2Starts;
  private final List<TcpProxy> gates = new ArrayList<>();
  private HikariDataSource ownerPool;
  private final Random random = new Random(7);
  private byte[] small;
  private byte[] big;
  private byte[] huge;
  private byte[] giant;
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
    giant = bytes(8_000_000);
    ownerPool = db.newDataSource(2);
    for (byte[] content : List.of(small, big, huge, giant)) {
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
    for (TcpProxy gate : gates) {
      gate.close();
    }
    if (ownerPool != null) {
      ownerPool.close();
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
    // A new approval is published by B once it holds the lock (retry every 5 s): the publication
    // itself is the condition waited on, and only B, now active, can have made it.
    publish(bytes(1_000));
    assertThat(workerB.output()).contains("worker.active");
    // Readiness details come from a probe refreshed in the background: wait for the next one.
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> gatewayDetails(workerB).get("worker").asString(), "active"::equals);
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
    RawHttp.Download d0 = new RawHttp.Download(reader0.port, path(big), token("alice"));
    RawHttp.Download d1 = new RawHttp.Download(reader1.port, path(big), token("bob"));
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
            "qinglong_downloads_lease_renewals_total{application=\"qinglong\",outcome=\"renewed\"}");
  }

  @Test
  @Order(4)
  void aDatabaseCutStopsPayloadWithinTheLocalWindowAndTheGatewayStaysDown() throws Exception {
    slot2 = start("reader2", reader(2, proxiedUrl)).awaitReady(START);
    AppProcess reader2 = slot2;
    assertThat(gatewayDetails(reader2).get("sharedDownloads").get("lease").get("state").asString())
        .isEqualTo("active");
    RawHttp.Download d = new RawHttp.Download(reader2.port, path(huge), token("alice"));
    Thread t = d.startThread();
    awaitBytes(d, 300_000, Duration.ofSeconds(60));
    long cut = System.nanoTime();
    long atCut = d.received.get();
    proxy.cut();
    // The transfer ends (the gateway closes the connection once its lease is lost); the bound
    // only guards against a hang.
    t.join(60_000);
    assertThat(t.isAlive()).as("the download's connection was closed").isFalse();
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
    // Counted in bytes, not in when this client thread happened to read them: a reader delayed
    // by a busy machine still sees only what the gateway sent while its window lasted.
    assertThat(bytesAfterCut).as(seen).isLessThanOrEqualTo(8 * SHARE + SHARE + 64 * 1024);

    // Readiness goes DOWN and stays DOWN; even with the database back, no payload flows again.
    awaitStatus(reader2, "/actuator/health/readiness", 503, Duration.ofSeconds(20));
    proxy.heal();
    // Waited on the condition that matters: this process reaches its database again (readiness'
    // database component is UP), and still its lease stays lost and no payload flows.
    awaitDatabaseUp(reader2, Duration.ofSeconds(60));
    assertThat(gatewayDetails(reader2).get("sharedDownloads").get("lease").get("state").asString())
        .isEqualTo("lost");
    assertThat(reader2.status("/actuator/health/readiness")).isEqualTo(503);
    assertThat(reader2.status("/actuator/health/liveness")).isEqualTo(503);
    HttpResponse<byte[]> again = get(reader2, small);
    assertThat(again.statusCode()).isEqualTo(503);
    assertThat(new String(again.body())).contains("unavailable");
    assertThat(reader2.output()).contains("downloads.lease-lost");
  }

  @Test
  @Order(9)
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

  @Test
  @Order(5)
  void aCleanlyStoppedReaderRestartedOnItsSlotWaitsForItsReservationAndServes() throws Exception {
    // The new process is started while the old one still runs, but the proxy holds its lease
    // connection's first statement: so its lease looks at the slot only after the old process has
    // stopped, whatever the JVM start-up takes on this machine (a restart as seen by the lease).
    TcpProxy gate = newProxy();
    gate.holdLeaseStarts();
    AppProcess restarted = start("reader1-restarted", reader(1, viaProxy(gate)));
    // Slot 2 (lost in the database-cut test) gets a fresh reader for the next tests; started here
    // so that its JVM start overlaps this one's.
    AppProcess nextSlot2 = freshSlot2();
    assertThat(gate.awaitHeldLeaseStart(START))
        .as("the restarted reader reached its lease step:\n%s", restarted.tail())
        .isTrue();
    SlotRow live = slotRow(1);

    reader1.process.destroy(); // SIGTERM: graceful shutdown
    awaitLog(reader1, "download lease of slot 1 closed", Duration.ofSeconds(15));
    // No sleep for a renewal that may still have been on the wire when the lease closed: if the
    // server finishes one after this read, the reservation only lasts longer than read here, and
    // every check below bounds the take-over from below by this expiry, so it still holds.
    SlotRow stale = slotRow(1);
    // The clean stop left the reservation in place (it expires on its own): same owner, not yet
    // expired.
    assertThat(stale.owner).isEqualTo(live.owner);
    // The 10 s database lease (two clock_timestamp() calls, each floored to milliseconds).
    assertThat(stale.expiresMillis - stale.renewedMillis).isBetween(10_000L, 10_001L);
    assertThat(stale.expiresMillis)
        .as("the reservation is still live when the restarted lease looks at it")
        .isGreaterThan(stale.dbNowMillis);

    gate.releaseLeaseStarts();
    long readyWall = awaitReadyWall(restarted, START);
    AppProcess stopped = reader1;
    reader1 = restarted;

    SlotRow now = slotRow(1);
    assertThat(restarted.output())
        .contains("slot 1 is reserved by owner " + stale.owner)
        .contains("waiting up to 15 s for a stale reservation");
    assertThat(now.generation).isEqualTo(stale.generation + 1);
    assertThat(now.owner).isNotEqualTo(stale.owner);
    // It took the slot only once the stale reservation had expired (database clock) and was not
    // ready before then (same host: the wall clock is the database's).
    assertThat(now.acquiredMillis).isGreaterThanOrEqualTo(stale.expiresMillis);
    assertThat(readyWall).isGreaterThanOrEqualTo(stale.expiresMillis);
    // The stale wait is bounded by 15 s by the lease itself: a reservation still live after it
    // refuses the start (the process exits, sameSlot above), so becoming ready is that bound. How
    // long start-up takes around it is the machine's, not the behaviour's.
    HttpResponse<byte[]> r = get(restarted, small);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(small);
    stopped.awaitExit(Duration.ofSeconds(15)); // fails if the stopped reader still runs
    nextSlot2.awaitReady(START);
  }

  @Test
  @Order(6)
  void aHungGatewayIsReplacedOnlyAfterItsReservationExpiresAndNeverServesAgain() throws Exception {
    // Ready before the replacement starts, so the replacement's lease is held only briefly.
    AppProcess slot2 = freshSlot2().awaitReady(START);
    AppProcess hung = reader1;
    TcpProxy gate = newProxy();
    gate.holdLeaseStarts();
    AppProcess replacement = start("reader1-replacement", reader(1, viaProxy(gate)));
    assertThat(gate.awaitHeldLeaseStart(START))
        .as("the replacement reached its lease step:\n%s", replacement.tail())
        .isTrue();

    // Every slot downloads at its full share for the whole replacement, sampled every 50 ms.
    RawHttp.Download d0 = new RawHttp.Download(reader0.port, path(giant), token("alice"));
    RawHttp.Download dHung = new RawHttp.Download(hung.port, path(huge), token("bob"));
    dHung.readTimeoutMillis = 60_000; // frozen for a while: keep waiting for its next byte
    RawHttp.Download d2 = new RawHttp.Download(slot2.port, path(giant), token("alice"));
    RawHttp.Download dNew = new RawHttp.Download(replacement.port, path(huge), token("bob"));
    List<RawHttp.Download> all = List.of(d0, dHung, d2, dNew);
    RateSampler sampler =
        new RateSampler(50).add("reader0", 0, d0).add("hung", 1, dHung).add("reader2", 2, d2);
    try {
      sampler.start();
      d0.startThread();
      Thread tHung = dHung.startThread();
      d2.startThread();
      awaitBytes(dHung, 2 * SHARE, Duration.ofSeconds(30));

      hung.suspend(); // SIGSTOP: the gateway hangs, its connections stay open
      // A frozen gateway renews nothing: watched on the database clock, not slept through.
      SlotRow frozen = awaitRenewalsStopped(1);
      assertThat(frozen.expiresMillis - frozen.renewedMillis).isBetween(10_000L, 10_001L);
      assertThat(frozen.expiresMillis)
          .as("the replacement's lease looks at a live reservation")
          .isGreaterThan(frozen.dbNowMillis);

      gate.releaseLeaseStarts();
      long readyWall = awaitReadyWall(replacement, START);
      SlotRow taken = slotRow(1);
      assertThat(replacement.output())
          .contains("slot 1 is reserved by owner " + frozen.owner)
          .contains("waiting up to 15 s for a stale reservation");
      assertThat(taken.generation).isEqualTo(frozen.generation + 1);
      assertThat(taken.acquiredMillis).isGreaterThanOrEqualTo(frozen.expiresMillis);
      assertThat(readyWall)
          .as(
              "ready %d ms after the hung gateway's reservation expired",
              readyWall - frozen.expiresMillis)
          .isGreaterThanOrEqualTo(frozen.expiresMillis);
      // Within the lease's 15 s stale wait, or the start would have been refused (see above).

      sampler.add("replacement", 1, dNew);
      dNew.startThread();
      awaitBytes(dNew, SHARE, Duration.ofSeconds(20));
      assertThat(dNew.status).isEqualTo(200);

      // The hung gateway wakes up: its window has run out on both clocks, its slot has another
      // owner. It must not send another chunk, and it reports itself broken.
      long atResume = dHung.received.get();
      long resumedAt = System.nanoTime();
      hung.resume();
      HttpResponse<byte[]> late = get(hung, small);
      assertThat(late.statusCode()).as(new String(late.body())).isEqualTo(503);
      awaitStatus(hung, "/actuator/health/liveness", 503, Duration.ofSeconds(20));
      // Its download ends (the gateway closes it) instead of going on: waited on the transfer's
      // end, then everything it sent after waking up is counted.
      tHung.join(60_000);
      assertThat(tHung.isAlive()).as("the hung gateway's download ended").isFalse();
      double sinceResume = (System.nanoTime() - resumedAt) / 1e9;
      assertThat(dHung.complete).isFalse();
      assertThat(dHung.received.get() - atResume)
          .as("bytes the hung gateway sent in the %.1f s after it woke up", sinceResume)
          .isLessThanOrEqualTo(64 * 1024);
      assertThat(hung.output())
          .contains("download lease LOST: slot 1")
          .contains("downloads.lease-lost");
      assertThat(replacement.status("/actuator/health/readiness")).isEqualTo(200);
    } finally {
      sampler.close();
      for (RawHttp.Download d : all) {
        d.abort();
      }
      hung.close(); // SIGCONT + SIGKILL if still frozen
    }
    reader1 = replacement;
    // A client that goes away mid-download costs its gateway one WARN line, no ERROR/stack trace.
    for (AppProcess p : List.of(reader0, replacement)) {
      awaitLog(p, "artifact.io-failure", Duration.ofSeconds(10));
      assertThat(p.output()).as(p.name).doesNotContain(" ERROR ");
    }
    // Over every window of at least one second: each slot within its share plus one burst, all
    // gateways within the total plus one burst, including while slot 1 changed hands.
    String summary = sampler.check(RATE, SHARE, 128 * 1024, 1.0, SLOTS);
    assertThat(sampler.sampleCount()).as(summary).isGreaterThan(100);
    System.out.println("hung-gateway replacement: " + summary);
  }

  @Test
  @Order(7)
  void delayedPostgresLetsTheLeaseExpireAndLateAnswersDoNotReviveIt() throws Exception {
    AppProcess slot2 = freshSlot2();
    slot2.awaitReady(START);
    RawHttp.Download d2 = new RawHttp.Download(slot2.port, path(giant), token("alice"));
    RawHttp.Download d0 = new RawHttp.Download(reader0.port, path(huge), token("bob"));
    Thread t2 = d2.startThread();
    Thread t0 = d0.startThread();
    try {
      awaitBytes(d2, 300_000, Duration.ofSeconds(20));
      long atDelay = d2.received.get();
      long delayed = System.nanoTime();
      proxy.setResponseLatency(Duration.ofSeconds(9));

      // Liveness needs no database: it shows the loss as soon as the watchdog sees it.
      // (The bound only guards against a hang; how soon the loss happens is asserted below in
      // bytes the gateway sent, which a busy machine cannot inflate.)
      awaitStatus(slot2, "/actuator/health/liveness", 503, Duration.ofSeconds(60));
      t2.join(60_000);
      assertThat(t2.isAlive()).as("the download's connection was closed").isFalse();
      assertThat(d2.complete).isFalse();
      long afterDelay = d2.received.get() - atDelay;
      double lastByte = (d2.lastByteNanos - delayed) / 1e9;
      String seen =
          String.format("%d bytes after the delay, last %.2f s after it", afterDelay, lastByte);
      // The window is 8 s from the start of the last renewal that succeeded, which began before
      // the delay: at most its share for 8 s plus one share of burst, counted in bytes.
      assertThat(afterDelay).as(seen).isLessThanOrEqualTo(8 * SHARE + SHARE + 64 * 1024);

      // Renewals keep reaching PostgreSQL at once; only their answers are 9 s late. The one in
      // flight when the window ended answers "renewed" after it: counted, ignored, still lost.
      proxy.setResponseLatency(Duration.ZERO); // bytes already delayed keep their delay
      JsonNode lease =
          await()
              .atMost(Duration.ofSeconds(30))
              .pollInterval(Duration.ofMillis(500))
              .until(
                  () -> gatewayDetails(slot2).get("sharedDownloads").get("lease"),
                  l -> l.get("lateAnswers").asLong() >= 1);
      assertThat(lease.get("lateAnswers").asLong()).as(lease.toString()).isGreaterThanOrEqualTo(1);
      assertThat(lease.get("state").asString()).isEqualTo("lost");
      assertThat(lease.get("locallyValid").asBoolean()).isFalse();
      // Nothing comes back once the database answers promptly again (waited on that condition:
      // readiness' database component is UP): a lost lease is never revived.
      awaitDatabaseUp(slot2, Duration.ofSeconds(60));
      assertThat(gatewayDetails(slot2).get("sharedDownloads").get("lease").get("state").asString())
          .isEqualTo("lost");
      assertThat(slot2.status("/actuator/health/readiness")).isEqualTo(503);
      assertThat(slot2.status("/actuator/health/liveness")).isEqualTo(503);
      assertThat(get(slot2, small).statusCode()).isEqualTo(503);

      // The reader on a healthy connection was not affected.
      t0.join(40_000);
      assertThat(d0.complete).as(d0.failure).isTrue();
      assertThat(reader0.status("/actuator/health/readiness")).isEqualTo(200);
    } finally {
      proxy.setResponseLatency(Duration.ZERO);
      d2.abort();
      d0.abort();
    }
  }

  // ---- helpers ----------------------------------------------------------------------------------

  /** A slot's lease row, read as the database owner; times in epoch milliseconds (floor). */
  record SlotRow(
      UUID owner,
      long generation,
      long acquiredMillis,
      long renewedMillis,
      long expiresMillis,
      long dbNowMillis) {}

  private SlotRow slotRow(int slot) throws SQLException {
    try (Connection c = ownerPool.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT owner, generation,"
                    + " floor(extract(epoch FROM acquired_at) * 1000)::bigint,"
                    + " floor(extract(epoch FROM renewed_at) * 1000)::bigint,"
                    + " floor(extract(epoch FROM expires_at) * 1000)::bigint,"
                    + " floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint"
                    + " FROM qinglong.download_slot_leases WHERE slot = ?")) {
      ps.setInt(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("slot %d has a lease row", slot).isTrue();
        return new SlotRow(
            rs.getObject(1, UUID.class),
            rs.getLong(2),
            rs.getLong(3),
            rs.getLong(4),
            rs.getLong(5),
            rs.getLong(6));
      }
    }
  }

  /** A new TCP proxy to the database, closed after the class. */
  private TcpProxy newProxy() throws Exception {
    Matcher m = URL.matcher(db.jdbcUrl());
    assertThat(m.matches()).isTrue();
    TcpProxy p = new TcpProxy(m.group(1), m.group(2) == null ? 5432 : Integer.parseInt(m.group(2)));
    gates.add(p);
    return p;
  }

  private String viaProxy(TcpProxy p) {
    Matcher m = URL.matcher(db.jdbcUrl());
    assertThat(m.matches()).isTrue();
    return "jdbc:postgresql://127.0.0.1:" + p.port() + "/" + m.group(3);
  }

  /**
   * The reader on slot 2 (through {@code proxy}) if it is healthy; otherwise a new one (the old one
   * killed, the proxy healed). Not yet awaited.
   */
  private AppProcess freshSlot2() throws Exception {
    if (slot2 != null
        && slot2.process.isAlive()
        && slot2.status("/actuator/health/readiness") == 200) {
      return slot2;
    }
    if (slot2 != null) {
      slot2.kill();
    }
    proxy.heal();
    proxy.setResponseLatency(Duration.ZERO);
    slot2 = start("reader2-restart" + (++slot2Starts), reader(2, proxiedUrl));
    return slot2;
  }

  /**
   * Waits until readiness is 200 and returns the wall-clock time at which that first successful
   * request was sent: the process was not ready before that moment (its port opens only after every
   * bean, the download lease included, has started).
   */
  private static long awaitReadyWall(AppProcess p, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!p.process.isAlive()) {
        throw new AssertionError(
            p.name + " exited with " + p.process.exitValue() + ":\n" + p.tail());
      }
      long sent = System.currentTimeMillis();
      if (p.status("/actuator/health/readiness") == 200) {
        return sent;
      }
      Thread.sleep(100);
    }
    throw new AssertionError(p.name + " not ready within " + timeout + ":\n" + p.tail());
  }

  /**
   * Waits until {@code p}'s readiness shows its database component UP (its background probe reached
   * the database), whatever the overall status.
   */
  private static void awaitDatabaseUp(AppProcess p, Duration timeout) {
    AtomicReference<String> last = new AtomicReference<>();
    try {
      await("the database component of " + p.name + " UP")
          .atMost(timeout)
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                JsonNode components =
                    JSON.readTree(p.body("/actuator/health/readiness")).path("components");
                last.set(components.path("database").path("status").asString());
                return "UP".equals(last.get());
              });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(p.name + " database component stayed " + last + ":\n" + p.tail());
    }
  }

  /**
   * After a gateway was frozen: watches slot {@code slot}'s row on the database clock until a full
   * heartbeat (the default 2 s, plus 0.5 s) has gone by since its last renewal, and returns the
   * row. A renewal already on the wire at the freeze may still land (PostgreSQL finishes it without
   * the client): at most one change is allowed; a gateway that went on renewing would change it
   * again within that heartbeat.
   */
  private SlotRow awaitRenewalsStopped(int slot) throws Exception {
    long heartbeatMillis = LeaseTimings.DEFAULTS.heartbeat().toMillis();
    AtomicReference<SlotRow> last = new AtomicReference<>(slotRow(slot));
    AtomicInteger changes = new AtomicInteger();
    await("a full heartbeat without renewals of slot " + slot)
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              SlotRow next = slotRow(slot);
              if (next.renewedMillis != last.get().renewedMillis) {
                changes.incrementAndGet();
              }
              assertThat(changes.get())
                  .as(
                      "renewals of slot %d after its gateway froze (one may have been on the wire)",
                      slot)
                  .isLessThanOrEqualTo(1);
              last.set(next);
              return next.dbNowMillis >= next.renewedMillis + heartbeatMillis + 500;
            });
    return last.get();
  }

  private static void awaitBytes(RawHttp.Download d, long bytes, Duration timeout) {
    await()
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(20))
        .until(() -> d.received.get() >= bytes || d.failure != null);
    assertThat(d.received.get()).as("downloaded (%s)", d.failure).isGreaterThanOrEqualTo(bytes);
  }

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
    try {
      await()
          .atMost(timeout)
          .pollInterval(Duration.ofMillis(200))
          .until(() -> p.output().contains(text));
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(p.name + " never logged " + text + ":\n" + p.tail(), e);
    }
  }

  private static void awaitStatus(AppProcess p, String path, int status, Duration timeout)
      throws Exception {
    AtomicInteger last = new AtomicInteger();
    try {
      await()
          .atMost(timeout)
          .pollInterval(Duration.ofMillis(250))
          .until(() -> last.updateAndGet(x -> p.status(path)) == status);
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(p.name + " " + path + " stayed " + last + ":\n" + p.tail(), e);
    }
  }

  private static int count(String haystack, String needle) {
    int n = 0;
    for (int i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + 1)) {
      n++;
    }
    return n;
  }
}
