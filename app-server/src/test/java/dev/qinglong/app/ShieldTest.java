package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.qinglong.app.support.StoreInspector;
import dev.qinglong.app.support.TestApp;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pre-authentication shield: body cap, concurrency in total and per client address. */
class ShieldTest {
  @TempDir static Path dataDir;
  static TestApp app;
  static int port;

  @BeforeAll
  static void start() {
    app =
        TestApp.start(
            dataDir,
            Map.of(
                "qinglong.shield.max-concurrent-requests", "2",
                "qinglong.shield.max-concurrent-requests-per-client", "1",
                "qinglong.shield.max-body-bytes", "1024"));
    port = URI.create(app.http.builder("/", null).build().uri().toString()).getPort();
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  /**
   * Opens a request from {@code source} that declares a body and never sends it: it stays in
   * flight.
   */
  static Socket hold(String source, String token) throws IOException {
    Socket s = new Socket();
    s.bind(new InetSocketAddress(InetAddress.getByName(source), 0));
    s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
    String head =
        "POST /v1/projects/demo/plugin-packages/proposals HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Authorization: Bearer "
            + token
            + "\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{";
    s.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    return s;
  }

  /** Sends a small complete GET from {@code source}; returns the raw response head and body. */
  static String request(String source, String path) throws IOException {
    try (Socket s = new Socket()) {
      s.setSoTimeout(10_000);
      s.bind(new InetSocketAddress(InetAddress.getByName(source), 0));
      s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
      OutputStream out = s.getOutputStream();
      out.write(
          ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** Repeats the GET until it answers {@code status} (60 s at most); returns that answer. */
  static String awaitStatus(String source, String path, String status) {
    String[] last = {""};
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(50))
        .ignoreExceptions()
        .until(
            () -> {
              last[0] = request(source, path);
              return last[0].startsWith("HTTP/1.1 " + status);
            });
    return last[0];
  }

  /**
   * Holds a request from {@code source} and proves it is in flight, then sends one probe (from the
   * same address for the per-client bound, another one for the total) and returns its answer. The
   * probe goes out only once the shield counts the held request (its in-flight count reaches {@code
   * alreadyHeld + 1}), so it can never race the held request for the last slot.
   */
  static HeldRequest holdInFlight(
      String source, String token, String probeSource, String probePath, int alreadyHeld)
      throws Exception {
    // Nothing but the requests this test holds may be in flight (an earlier close is seen late).
    await().atMost(Duration.ofSeconds(60)).until(() -> app.shieldInFlight() == alreadyHeld);
    Socket held = hold(source, token);
    await().atMost(Duration.ofSeconds(60)).until(() -> app.shieldInFlight() == alreadyHeld + 1);
    String probe = request(probeSource, probePath);
    assertThat(unanswered(held)).as("the held request is still in flight").isTrue();
    return new HeldRequest(held, probe);
  }

  record HeldRequest(Socket socket, String probe) implements AutoCloseable {
    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  static boolean unanswered(Socket socket) throws IOException {
    socket.setSoTimeout(200);
    try {
      socket.getInputStream().read();
      return false; // answered (or closed) already
    } catch (java.net.SocketTimeoutException e) {
      return true;
    }
  }

  @Test
  void concurrentRequestsAreBoundedPerClientAndInTotal() throws Exception {
    String token = app.token("alice");
    String members = "/v1/projects/demo/members";
    try (HeldRequest a = holdInFlight("127.0.0.1", token, "127.0.0.1", members, 0)) {
      String perClient = a.probe();
      assertThat(perClient).startsWith("HTTP/1.1 429");
      // The shield's own 429 is told apart from the durable quota's by its code.
      assertThat(perClient)
          .contains("application/problem+json", "\"code\":\"too_many_requests\"")
          .doesNotContain("quota_exceeded");
      assertThat(perClient).containsIgnoringCase("Retry-After: 1");
      try (HeldRequest b = holdInFlight("127.0.0.2", token, "127.0.0.3", members, 1)) {
        String total = b.probe();
        assertThat(total).startsWith("HTTP/1.1 503");
        assertThat(total).contains("\"code\":\"unavailable\"");
        // Probes are not shielded: they answer on the management port.
        assertThat(app.management.get("/actuator/health/liveness", null).status()).isEqualTo(200);
      }
    }
    // Once the held requests are gone the permits return.
    String after = awaitStatus("127.0.0.1", "/v1/projects/demo/members", "401");
    assertThat(after).startsWith("HTTP/1.1 401");
  }

  @Test
  void declaredOversizedBodyIs413BeforeAuthentication() {
    String before = StoreInspector.sqlite(dataDir).snapshot();
    var r = app.http.post("/v1/projects/demo/plugin-packages/proposals", null, "x".repeat(2000));
    assertThat(r.status()).isEqualTo(413);
    assertThat(r.code()).isEqualTo("payload_too_large");
    assertThat(StoreInspector.sqlite(dataDir).snapshot()).isEqualTo(before);
  }

  @Test
  void streamedBodyPastTheCapIs413() throws Exception {
    String before = StoreInspector.sqlite(dataDir).snapshot();
    String body = "{\"actionRef\":\"" + "r".repeat(3000) + "\"}";
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      String head =
          "POST /v1/projects/demo/plugin-packages/proposals HTTP/1.1\r\nHost: 127.0.0.1\r\n"
              + "Authorization: Bearer "
              + app.token("alice")
              + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
              + "Connection: close\r\n\r\n";
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      byte[] bytes = body.getBytes(StandardCharsets.US_ASCII);
      for (int off = 0; off < bytes.length; off += 500) {
        int n = Math.min(500, bytes.length - off);
        out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(bytes, off, n);
        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
      }
      out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(response).startsWith("HTTP/1.1 413");
      assertThat(response).contains("\"code\":\"payload_too_large\"");
    }
    assertThat(StoreInspector.sqlite(dataDir).snapshot()).isEqualTo(before);
  }
}
