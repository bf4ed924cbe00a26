package dev.qinglong.app.security;

import static dev.qinglong.app.security.RawClient.get;
import static dev.qinglong.app.security.RawClient.holdPost;
import static dev.qinglong.app.security.RawClient.status;
import static dev.qinglong.app.security.RawClient.unanswered;
import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.TestApp;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code qinglong.shield.principal-overrides}: one user's own in-flight bound instead of {@code
 * max-concurrent-requests-per-principal}, and what the per-user 429 tells the caller.
 */
class PrincipalOverridesTest {
  @TempDir static Path dataDir;
  static TestApp app;
  static int port;

  @BeforeAll
  static void start() {
    app =
        TestApp.start(
            dataDir,
            Map.of(
                "qinglong.shield.max-concurrent-requests", "32",
                "qinglong.shield.max-concurrent-requests-per-client", "32",
                "qinglong.shield.max-concurrent-requests-per-principal", "1",
                "qinglong.shield.principal-overrides.runtime", "3"));
    port = app.http.port();
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  /**
   * Holds {@code n} requests of {@code user} in flight, one after the other, each proven counted
   * (the per-user count reaches {@code alreadyHeld + i + 1}) before the next goes out.
   */
  static List<Socket> hold(String user, int n, int alreadyHeld) throws IOException {
    List<Socket> held = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      held.add(holdPost("127.0.0.1", port, ClientIdentityTest.PROPOSALS, app.token(user), null));
      int expected = alreadyHeld + i + 1;
      Awaitility.await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> app.principalInFlight() == expected);
    }
    return held;
  }

  static void close(List<Socket> sockets) throws IOException {
    for (Socket s : sockets) {
      s.close();
    }
  }

  @Test
  void theOverrideLiftsTheBoundForThatUserOnlyAndThe429SaysWhichBoundAndProperty()
      throws Exception {
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> app.principalInFlight() == 0 && app.shieldInFlight() == 0);
    List<Socket> runtime = hold("runtime", 3, 0);
    List<Socket> alice = hold("alice", 1, 3);
    try {
      // runtime's fourth request and alice's second: each at its own bound.
      String fourth =
          get("127.0.0.1", port, ClientIdentityTest.MEMBERS, app.token("runtime"), null);
      String second = get("127.0.0.1", port, ClientIdentityTest.MEMBERS, app.token("alice"), null);
      assertThat(status(fourth)).as(fourth).isEqualTo(429);
      assertThat(status(second)).as(second).isEqualTo(429);
      assertThat(app.principalInFlight()).isEqualTo(4);
      for (Socket s : runtime) {
        assertThat(unanswered(s, Duration.ofMillis(200))).isTrue();
      }
      assertThat(unanswered(alice.get(0), Duration.ofMillis(200))).isTrue();

      JsonNode problem = Http.JSON.readTree(fourth.substring(fourth.indexOf("\r\n\r\n") + 4));
      assertThat(problem.get("error").get("code").asString()).isEqualTo("too_many_requests");
      String detail = problem.get("detail").asString();
      assertThat(detail)
          .contains("per-user in-flight bound")
          .contains("qinglong.shield.max-concurrent-requests-per-principal")
          .contains("qinglong.shield.principal-overrides")
          .doesNotContain("runtime");
      assertThat(second).contains(detail).doesNotContain("alice");
      // bob (no override, bound 1) is served while the others are at their bounds.
      assertThat(status(get("127.0.0.1", port, ClientIdentityTest.MEMBERS, app.token("bob"), null)))
          .isEqualTo(200);
    } finally {
      close(runtime);
      close(alice);
    }
    // The permits return with the requests.
    Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> app.principalInFlight() == 0);
    assertThat(
            status(get("127.0.0.1", port, ClientIdentityTest.MEMBERS, app.token("runtime"), null)))
        .isEqualTo(200);
  }
}
