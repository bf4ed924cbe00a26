package dev.qinglong.app.security;

import static dev.qinglong.app.security.RawClient.get;
import static dev.qinglong.app.security.RawClient.holdPost;
import static dev.qinglong.app.security.RawClient.status;
import static dev.qinglong.app.security.RawClient.unanswered;
import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.TestApp;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client identity: {@code X-Forwarded-For} counts only from a configured trusted proxy (also when
 * Spring Boot detects Kubernetes, where it would otherwise trust any private address), and
 * in-flight requests are capped per authenticated principal as well as per address.
 */
class ClientIdentityTest {
  static final String PROPOSALS = "/v1/projects/demo/plugin-packages/proposals";
  static final String MEMBERS = "/v1/projects/demo/members";

  @TempDir static Path dataDir;
  static TestApp app;
  static int port;

  @BeforeAll
  static void start() {
    app =
        TestApp.start(
            dataDir,
            Map.of(
                // What Spring Boot detects from KUBERNETES_SERVICE_HOST/PORT in a pod.
                "spring.main.cloud-platform", "kubernetes",
                "qinglong.shield.trusted-proxies", "127.0.0.2/32",
                "qinglong.shield.max-concurrent-requests", "16",
                "qinglong.shield.max-concurrent-requests-per-client", "1",
                "qinglong.shield.max-concurrent-requests-per-principal", "1"));
    port = app.http.port();
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  /** Repeats the GET until it answers {@code expected} (60 s at most); returns that answer. */
  static String await(String source, String token, String forwardedFor, int expected) {
    String[] last = {""};
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(50))
        .ignoreExceptions()
        .until(
            () -> {
              last[0] = get(source, port, MEMBERS, token, forwardedFor);
              return status(last[0]) == expected;
            });
    return last[0];
  }

  /**
   * Holds a POST (it stays in flight past authentication) and proves it is in flight: once the
   * shield counts it (and nothing else), a probe from {@code probeSource} without a token is
   * refused with 429. The probe goes out only after the held request is counted, so it cannot race
   * it for the client's slot.
   */
  static Socket holdInFlight(String source, String token, String forwardedFor, String probeSource)
      throws Exception {
    // An earlier test's closed request may still be finishing on the server.
    Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> app.shieldInFlight() == 0);
    Socket held = holdPost(source, port, PROPOSALS, token, forwardedFor);
    Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> app.shieldInFlight() == 1);
    String probe = get(probeSource, port, MEMBERS, null, forwardedFor);
    assertThat(status(probe)).as(probe).isEqualTo(429);
    assertThat(unanswered(held, Duration.ofMillis(200))).isTrue();
    return held;
  }

  /**
   * Holds one request of {@code token}'s user in flight from {@code source}: waits until no earlier
   * request of any user is counted (an earlier test's close is seen by the server a little later on
   * a loaded machine), opens it, and returns once the per-principal bound counts it and the same
   * user from {@code probeSource} is refused with 429.
   */
  private Socket holdPrincipal(String source, String token, String probeSource) throws Exception {
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> app.principalInFlight() == 0 && app.shieldInFlight() == 0);
    Socket held = holdPost(source, port, PROPOSALS, token, null);
    Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> app.principalInFlight() == 1);
    String probe = get(probeSource, port, MEMBERS, token, null);
    assertThat(status(probe)).as(probe).isEqualTo(429);
    assertThat(unanswered(held, Duration.ofMillis(200))).isTrue();
    return held;
  }

  @Test
  void forwardedForFromAnUntrustedPeerIsIgnoredEvenOnKubernetes() throws Exception {
    try (Socket held = holdInFlight("127.0.0.1", app.token("alice"), "10.1.0.1", "127.0.0.1")) {
      // Another X-Forwarded-For from the same peer is the same client: its bound holds.
      String probe = await("127.0.0.1", null, "10.1.0.2", 429);
      assertThat(status(probe)).as(probe).isEqualTo(429);
      assertThat(probe).contains("application/problem+json");
      assertThat(unanswered(held, Duration.ofMillis(200))).isTrue();
    }
  }

  @Test
  void forwardedForFromATrustedProxyNamesTheClient() throws Exception {
    try (Socket held = holdInFlight("127.0.0.2", app.token("bob"), "203.0.113.9", "127.0.0.2")) {
      // The client is the right-most address the trusted proxy did not add itself; what the
      // client wrote further left is not believed.
      String sameClient = await("127.0.0.2", null, "198.51.100.1, 203.0.113.9", 429);
      assertThat(status(sameClient)).as(sameClient).isEqualTo(429);
      assertThat(unanswered(held, Duration.ofMillis(200))).isTrue();
      // Other clients behind the same proxy have their own bound.
      assertThat(status(get("127.0.0.2", port, MEMBERS, null, "198.51.100.7"))).isEqualTo(401);
      assertThat(status(get("127.0.0.2", port, MEMBERS, null, null))).isEqualTo(401);
      // An untrusted peer cannot claim to be that client.
      assertThat(status(get("127.0.0.1", port, MEMBERS, null, "203.0.113.9"))).isEqualTo(401);
    }
  }

  @Test
  void inFlightRequestsAreCappedPerPrincipalAcrossAddresses() throws Exception {
    try (Socket held = holdPrincipal("127.0.0.1", app.token("carol"), "127.0.0.3")) {
      // carol from another address: the per-address bound does not apply, the principal's does.
      String probe = await("127.0.0.3", app.token("carol"), null, 429);
      assertThat(status(probe)).as(probe).isEqualTo(429);
      assertThat(probe).contains("application/problem+json").containsIgnoringCase("Retry-After");
      assertThat(unanswered(held, Duration.ofMillis(200))).isTrue();
      // Other principals from that address are served.
      assertThat(status(get("127.0.0.3", port, MEMBERS, app.token("admin"), null))).isEqualTo(200);
    }
    // The permit returns with the request.
    assertThat(status(await("127.0.0.3", app.token("carol"), null, 403))).isEqualTo(403);
  }
}
