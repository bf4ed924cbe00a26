package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.standardwebhooks.Webhook;
import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.app.webhooks.delivery.WebhookReceiver;
import dev.qinglong.core.kernel.Sha256Digest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;

/**
 * Webhook delivery end to end, run against each store: an endpoint registered through the API on a
 * local receiver (insecure targets allowed, as in development), the events the outbox writes
 * (approval.pending, approval.decided, proposal.published, webhook.test) delivered by the app's own
 * worker, every signature checked by the official Standard Webhooks library, a retry keeping its
 * webhook-id, the delivery log, and a rotation sending two signatures.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class WebhookDeliveryApiContract {
  static final String PROJECT = "hooks";
  static final Duration WAIT = Duration.ofSeconds(20);

  /** A fixed test key (base64 of 32 bytes) for sealing secrets. */
  static final String SECRET_KEY = Base64.getEncoder().encodeToString(new byte[32]);

  protected TestApp app;
  protected WebhookReceiver receiver;
  private final Random random = new Random(21);

  /** Starts an app of role {@code all} on the store under test with these properties. */
  protected abstract TestApp startApp(Map<String, String> properties);

  @BeforeAll
  void start() throws Exception {
    receiver = new WebhookReceiver();
    Map<String, String> p = new HashMap<>();
    p.put("qinglong.webhooks.allow-insecure-targets", "true");
    p.put("qinglong.webhooks.secret-key", SECRET_KEY);
    p.put("qinglong.webhooks.delivery.retry-initial", "200ms");
    p.put("qinglong.webhooks.delivery.retry-max-interval", "200ms");
    app = startApp(p);
    app.grant(PROJECT, "carol", "project.admin");
    app.grant(PROJECT, "alice", "package.manage");
    app.grant(PROJECT, "bob", "approval.decide");
  }

  @AfterAll
  void stop() {
    if (app != null) {
      app.close();
    }
    if (receiver != null) {
      receiver.close();
    }
  }

  // ---- helpers --------------------------------------------------------------------------------

  static String webhooks(String webhookId) {
    return "/v1/projects/" + PROJECT + "/webhooks/" + webhookId;
  }

  /** Registers {@code webhookId} on the receiver at {@code path}; returns its secret. */
  String register(String webhookId, String path) {
    Response r =
        app.http.put(
            webhooks(webhookId),
            app.token("carol"),
            "{\"url\":\""
                + receiver.url(path)
                + "\",\"events\":[\"approval.pending\",\"approval.decided\","
                + "\"proposal.published\",\"webhook.test\"]}");
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    return text(r.json(), s -> s.startsWith("whsec_"));
  }

  /** The first text value anywhere in {@code node} (array elements, object values) that matches. */
  static String text(JsonNode node, Predicate<String> match) {
    if (node.isString() && match.test(node.asString())) {
      return node.asString();
    }
    for (JsonNode child : node) {
      String found = text(child, match);
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  List<WebhookReceiver.Received> at(String path) {
    return receiver.received().stream().filter(r -> r.path().equals(path)).toList();
  }

  List<WebhookReceiver.Received> awaitAt(String path, Predicate<List<WebhookReceiver.Received>> p) {
    try {
      await().atMost(WAIT).until(() -> p.test(at(path)));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError(
          "received at " + path + ": " + at(path).stream().map(r -> r.body()).toList(), e);
    }
    return at(path);
  }

  static JsonNode body(WebhookReceiver.Received r) {
    return Http.JSON.readTree(r.body());
  }

  static void verify(WebhookReceiver.Received r, String secret) throws Exception {
    new Webhook(secret).verify(r.body(), r.webhookHeaders());
  }

  String test(String webhookId) {
    Response r = app.http.post(webhooks(webhookId) + "/test", app.token("carol"), "");
    assertThat(r.status()).as(r.body()).isBetween(200, 202);
    String id = text(r.json(), s -> s.startsWith("msg_"));
    assertThat(id).as(r.body()).isNotNull();
    return id;
  }

  Response deliveries(String webhookId) {
    Response r = app.http.get(webhooks(webhookId) + "/deliveries", app.token("carol"));
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    return r;
  }

  /** The delivery log entry of {@code deliveryId}. */
  JsonNode logEntry(String webhookId, String deliveryId) {
    List<JsonNode> found = new ArrayList<>();
    collect(deliveries(webhookId).json(), deliveryId, found);
    return found.isEmpty() ? null : found.get(0);
  }

  private static void collect(JsonNode node, String deliveryId, List<JsonNode> out) {
    if (node.isObject()) {
      for (var e : node.properties()) {
        if (e.getValue().isString() && e.getValue().asString().equals(deliveryId)) {
          out.add(node);
          return;
        }
      }
      for (var e : node.properties()) {
        collect(e.getValue(), deliveryId, out);
      }
    } else if (node.isArray()) {
      for (JsonNode child : node) {
        collect(child, deliveryId, out);
      }
    }
  }

  // ---- tests ----------------------------------------------------------------------------------

  @Test
  void everyOutboxEventTypeIsDeliveredSignedWithItsOwnIdAndProjectData() throws Exception {
    String secret = register("all-events", "/all");

    // webhook.test
    String testId = test("all-events");
    // approval.pending, approval.decided and proposal.published: upload, propose, approve, publish.
    byte[] content = new byte[64];
    random.nextBytes(content);
    Sha256Digest d = Sha256Digest.of(content);
    Response up =
        ArtifactApiContract.put(
            app.http,
            "/v1/projects/" + PROJECT + "/artifacts/" + d.value(),
            app.token("alice"),
            content);
    assertThat(up.status()).as(up.body()).isEqualTo(201);
    Response p =
        app.http.post(
            ApiContract.proposals(PROJECT),
            app.token("alice"),
            "{\"actionRef\":\"wh-1\",\"action\":{\"type\":\"install\",\"package\":\"pkg-wh\","
                + "\"version\":\"1.0.0\",\"artifactDigest\":\""
                + d.value()
                + "\"}}");
    assertThat(p.status()).as(p.body()).isEqualTo(201);
    String proposalId = p.json().get("proposalId").asString();
    Response decided =
        app.http.post(
            ApiContract.decisions(PROJECT, p.json().get("approvalId").asString()),
            app.token("bob"),
            ApiContract.decisionJson(
                "dec-wh-1", "approve", p.json().get("actionDigest").asString()));
    assertThat(decided.status()).as(decided.body()).isEqualTo(200);

    List<WebhookReceiver.Received> got =
        awaitAt(
            "/all",
            l -> l.stream().map(r -> body(r).get("type").asString()).distinct().count() == 4);

    Map<String, WebhookReceiver.Received> byType = new HashMap<>();
    for (WebhookReceiver.Received r : got) {
      verify(r, secret);
      byType.putIfAbsent(body(r).get("type").asString(), r);
      assertThat(r.header("webhook-id")).startsWith("msg_");
      assertThat(r.body()).doesNotContain("whsec_").doesNotContain(app.token("alice"));
      assertThat(body(r).get("timestamp").asString()).endsWith("Z");
    }
    assertThat(byType)
        .containsOnlyKeys(
            "webhook.test", "approval.pending", "approval.decided", "proposal.published");
    assertThat(byType.get("webhook.test").header("webhook-id")).isEqualTo(testId);
    for (String type : List.of("approval.pending", "approval.decided", "proposal.published")) {
      JsonNode data = body(byType.get(type)).get("data");
      assertThat(data.get("projectId").asString()).as(type).isEqualTo(PROJECT);
      assertThat(data.get("proposalId").asString()).as(type).isEqualTo(proposalId);
    }
    // One event per type: no duplicates once everything was delivered.
    assertThat(got).extracting(r -> r.header("webhook-id")).doesNotHaveDuplicates();
    String publishedId = byType.get("proposal.published").header("webhook-id");
    await().atMost(WAIT).until(() -> logEntry("all-events", publishedId) != null);
    assertThat(logEntry("all-events", publishedId).toString()).contains("delivered");
  }

  @Test
  void aFailedAttemptIsRetriedWithTheSameWebhookIdAndTheLogShowsBoth() throws Exception {
    String secret = register("retried", "/retried");
    receiver.respond("/retried", 500);

    String id = test("retried");

    List<WebhookReceiver.Received> got = awaitAt("/retried", l -> l.size() >= 2);
    assertThat(got).hasSize(2).allSatisfy(r -> assertThat(r.header("webhook-id")).isEqualTo(id));
    for (WebhookReceiver.Received r : got) {
      verify(r, secret);
    }
    await()
        .atMost(WAIT)
        .until(
            () ->
                logEntry("retried", id) != null
                    && logEntry("retried", id).toString().contains("delivered"));
    JsonNode entry = logEntry("retried", id);
    assertThat(entry.get("attempts").asInt()).as(entry.toString()).isEqualTo(2);
  }

  @Test
  void afterARotationBothSecretsSignAndEachVerifies() throws Exception {
    String old = register("rotated", "/rotated");
    Response rotated =
        app.http.post(webhooks("rotated") + "/rotate-secret", app.token("carol"), "");
    assertThat(rotated.status()).as(rotated.body()).isEqualTo(200);
    String current = text(rotated.json(), s -> s.startsWith("whsec_"));
    assertThat(current).isNotEqualTo(old);

    String id = test("rotated");

    WebhookReceiver.Received r = awaitAt("/rotated", l -> !l.isEmpty()).get(0);
    assertThat(r.header("webhook-id")).isEqualTo(id);
    assertThat(r.header("webhook-signature").split(" ")).hasSize(2);
    verify(r, current);
    verify(r, old);
  }
}
