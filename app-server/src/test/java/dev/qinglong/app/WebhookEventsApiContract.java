package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.StoreInspector;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.app.webhooks.delivery.WebhookReceiver;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;

/**
 * The {@code management-quota.rejected} event end to end, on each store: refused inspections write
 * one delivery per subscribed endpoint and window (written after the refusal, off its path), none
 * for an endpoint that does not subscribe; the log shows it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class WebhookEventsApiContract {
  static final String REJECTED = "management-quota.rejected";

  protected TestApp app;
  protected StoreInspector store;
  protected Http http;
  protected WebhookReceiver receiver;
  private final Map<String, String> secrets = new java.util.HashMap<>();

  protected abstract TestApp startApp(Map<String, String> properties);

  protected abstract StoreInspector inspector(TestApp app);

  @BeforeAll
  void start() throws Exception {
    receiver = new WebhookReceiver();
    app =
        startApp(
            Map.of(
                "qinglong.webhooks.secret-key",
                WebhookApiContract.SECRET_KEY,
                "qinglong.webhooks.allow-insecure-targets",
                "true",
                "qinglong.management-quota.limits.inspect",
                "2"));
    store = inspector(app);
    http = app.http;
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

  private void register(String project, String id, String events) {
    Response r =
        http.put(
            "/v1/projects/" + project + "/webhooks/" + id,
            app.token("carol"),
            "{\"url\":\"" + receiver.url("/" + id) + "\",\"events\":[" + events + "]}");
    assertThat(r.status()).as(r.body()).isIn(200, 201);
    secrets.put(id, WebhookDeliveryApiContract.text(r.json(), t -> t.startsWith("whsec_")));
  }

  private Response inspect(String project, String proposalId, String inspectionId) {
    return http.post(
        "/v1/projects/" + project + "/plugin-packages/proposals/" + proposalId + "/inspections",
        app.token("bob"),
        "{\"inspectionId\":\"" + inspectionId + "\"}");
  }

  @Test
  void refusedInspectionsWriteOneRejectedEventPerSubscribedEndpointAndWindow() throws Exception {
    String project = "wh-rejected";
    app.grant(project, "carol", "project.admin");
    app.grant(project, "alice", "package.manage");
    app.grant(project, "bob", "approval.decide");
    register(project, "quota", "\"" + REJECTED + "\"");
    register(project, "approvals", "\"approval.pending\"");
    Response proposed =
        http.post(
            ApiContract.proposals(project),
            app.token("alice"),
            ApiContract.installJson("rj-1", "left-pad"));
    assertThat(proposed.status()).as(proposed.body()).isEqualTo(201);
    String proposalId = proposed.json().get("proposalId").asString();

    assertThat(inspect(project, proposalId, "i-1").status()).isEqualTo(200);
    assertThat(inspect(project, proposalId, "i-2").status()).isEqualTo(200);
    for (int i = 3; i <= 12; i++) {
      assertThat(inspect(project, proposalId, "i-" + i).status()).isEqualTo(429);
    }

    // Written after the refusal, by the background writer: one row, however many refusals.
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> store.webhookDeliveries(project, REJECTED) == 1);
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(5))
        .until(() -> store.webhookDeliveries(project, REJECTED) == 1);

    Response log =
        http.get("/v1/projects/" + project + "/webhooks/quota/deliveries", app.token("carol"));
    assertThat(log.status()).as(log.body()).isEqualTo(200);
    JsonNode deliveries = log.json().get("deliveries");
    assertThat(deliveries).hasSize(1);
    assertThat(deliveries.get(0).get("type").asString()).isEqualTo(REJECTED);
    Response other =
        http.get("/v1/projects/" + project + "/webhooks/approvals/deliveries", app.token("carol"));
    assertThat(other.json().get("deliveries").toString()).doesNotContain(REJECTED);

    // Delivered once, signed with the endpoint's secret (checked by the Standard Webhooks
    // library), carrying the bucket's ids and no token.
    String eventId = deliveries.get(0).get("deliveryId").asString();
    await().atMost(Duration.ofSeconds(30)).until(() -> !atPath("/quota").isEmpty());
    List<WebhookReceiver.Received> got = atPath("/quota");
    assertThat(got).hasSize(1);
    WebhookReceiver.Received r = got.get(0);
    WebhookDeliveryApiContract.verify(r, secrets.get("quota"));
    assertThat(r.header("webhook-id")).isEqualTo(eventId);
    JsonNode body = WebhookDeliveryApiContract.body(r);
    assertThat(body.get("type").asString()).isEqualTo(REJECTED);
    assertThat(body.get("data").get("projectId").asString()).isEqualTo(project);
    assertThat(body.get("data").get("userId").asString()).isEqualTo("bob");
    assertThat(r.body()).doesNotContain(app.token("bob"));
    assertThat(atPath("/approvals").stream().map(x -> x.body()).toList())
        .noneMatch(b -> b.contains(REJECTED));
  }

  private List<WebhookReceiver.Received> atPath(String path) {
    return receiver.received().stream().filter(x -> x.path().equals(path)).toList();
  }
}
