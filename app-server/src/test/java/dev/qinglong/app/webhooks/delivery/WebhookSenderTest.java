package dev.qinglong.app.webhooks.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import com.standardwebhooks.Webhook;
import dev.qinglong.core.webhooks.WebhookSecrets;
import dev.qinglong.core.webhooks.WebhookTargets;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.hc.client5.http.ssl.DefaultClientTlsStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class WebhookSenderTest {
  private static final String BODY = "{\"type\":\"webhook.test\",\"data\":{}}";

  private WebhookReceiver receiver;
  private WebhookSender sender;

  @BeforeEach
  void start() throws Exception {
    receiver = new WebhookReceiver();
    // An attempt that must succeed gets time to spare on a busy machine; the time-out test below
    // builds its own short-bounded sender.
    sender =
        new WebhookSender(
            Duration.ofSeconds(2), Duration.ofSeconds(5), DefaultClientTlsStrategy.createDefault());
  }

  @AfterEach
  void stop() {
    sender.close();
    receiver.close();
  }

  /** The receiver's URL under a made-up name that only the fake DNS knows. */
  private TargetGuard.PinnedTarget pinned(String path) throws Exception {
    Map<String, InetAddress[]> dns =
        Map.of("hooks.test", new InetAddress[] {InetAddress.getLoopbackAddress()});
    WebhookTargets.HostResolver resolver =
        host -> {
          InetAddress[] a = dns.get(host);
          if (a == null) {
            throw new UnknownHostException(host);
          }
          return a;
        };
    return new TargetGuard(new WebhookTargets(true, resolver), resolver)
        .check(URI.create("http://hooks.test:" + receiver.port() + path));
  }

  private WebhookSender.Outcome send(String path, byte[] key) throws Exception {
    return send(sender, path, key);
  }

  private WebhookSender.Outcome send(WebhookSender sender, String path, byte[] key)
      throws Exception {
    long ts = System.currentTimeMillis() / 1000;
    byte[] body = BODY.getBytes(StandardCharsets.UTF_8);
    String sig = WebhookSigner.signatureHeader("msg_1", ts, body, List.of(key));
    return sender.send(pinned(path), "msg_1", ts, sig, body);
  }

  @Test
  void failureReasonsNameNoJavaClass() {
    List<Throwable> failures =
        List.of(
            new javax.net.ssl.SSLHandshakeException("peer-said-handshake"),
            new javax.net.ssl.SSLException("peer-said-tls"),
            new java.net.SocketTimeoutException("peer-said-slow"),
            new java.net.ConnectException("peer-said-refused"),
            new UnknownHostException("peer-said-nowhere"),
            new org.apache.hc.core5.http.NoHttpResponseException("peer-said-silent"),
            new java.io.IOException("peer-said-other"),
            new IllegalStateException("peer-said-odd"));
    for (Throwable e : failures) {
      assertThat(WebhookSender.describe(e))
          .as(e.getClass().getName())
          .isNotBlank()
          .doesNotContain("Exception", "exception", e.getMessage());
    }
    assertThat(WebhookSender.describe(new javax.net.ssl.SSLHandshakeException("x")))
        .isEqualTo("TLS handshake failed");
  }

  @Test
  void connectsToThePinnedAddressWithTheStandardHeadersAndAVerifiableSignature() throws Exception {
    byte[] key = WebhookSecrets.generate();

    WebhookSender.Outcome outcome = send("/in", key);

    assertThat(outcome.delivered()).isTrue();
    assertThat(outcome.statusCode()).isEqualTo(204);
    WebhookReceiver.Received r = receiver.received().get(0);
    // The name never resolved through the system: the connection went to the pinned address.
    assertThat(r.header("host")).isEqualTo("hooks.test:" + receiver.port());
    assertThat(r.header("webhook-id")).isEqualTo("msg_1");
    assertThat(r.header("content-type")).startsWith("application/json");
    assertThat(r.body()).isEqualTo(BODY);
    new Webhook(WebhookSecrets.text(key)).verify(r.body(), r.webhookHeaders());
  }

  @Test
  void aRedirectIsNotFollowed() throws Exception {
    WebhookSender.Outcome outcome = send("/redirect", WebhookSecrets.generate());

    assertThat(outcome.delivered()).isFalse();
    assertThat(outcome.statusCode()).isEqualTo(302);
    assertThat(outcome.error()).isEqualTo("HTTP 302");
    assertThat(receiver.received())
        .extracting(WebhookReceiver.Received::path)
        .containsExactly("/redirect");
  }

  @Test
  void anErrorStatusIsAFailedAttempt() throws Exception {
    receiver.respond("/in", 503);

    WebhookSender.Outcome outcome = send("/in", WebhookSecrets.generate());

    assertThat(outcome.delivered()).isFalse();
    assertThat(outcome.statusCode()).isEqualTo(503);
  }

  @Test
  void anEndpointThatDoesNotAnswerInTimeIsCancelled() throws Exception {
    WebhookSender.Outcome outcome;
    try (WebhookSender quick =
        new WebhookSender(
            Duration.ofSeconds(2),
            Duration.ofMillis(500),
            DefaultClientTlsStrategy.createDefault())) {
      outcome = send(quick, "/hold", WebhookSecrets.generate());
    }

    // The receiver got the request and holds it until released (never, here): the attempt ended
    // without an answer because the sender's own bound cut it.
    assertThat(receiver.received()).extracting(WebhookReceiver.Received::path).contains("/hold");
    assertThat(outcome.delivered()).isFalse();
    assertThat(outcome.statusCode()).isNull();
    assertThat(outcome.error()).contains("timed out");
  }

  @Test
  void aClosedPortIsAFailedAttemptNamingNoAddress() throws Exception {
    TargetGuard.PinnedTarget target = pinned("/in");
    receiver.close();

    WebhookSender.Outcome outcome =
        sender.send(target, "msg_1", 1, "v1,x", BODY.getBytes(StandardCharsets.UTF_8));

    assertThat(outcome.delivered()).isFalse();
    assertThat(outcome.error()).doesNotContain("127.0.0.1").doesNotContain("hooks.test");
  }
}
