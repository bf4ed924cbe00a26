package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.StoreInspector;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.app.webhooks.ModelQuotaThresholdPass;
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
 * The {@code model-quota.threshold} event end to end, on each store: invocations through the API
 * fill a window; the active worker's pass (as the application wires it: on PostgreSQL the
 * executor's login reads the window) writes each reached fraction once per dimension.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class WebhookThresholdApiContract {
  static final String THRESHOLD = "model-quota.threshold";

  protected TestApp app;
  protected StoreInspector store;
  protected Http http;
  protected WebhookReceiver receiver;

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
                "qinglong.ai.enabled",
                "true"));
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

  private void ok(Response r, int status) {
    assertThat(r.status()).as(r.body()).isEqualTo(status);
  }

  @Test
  void theActiveWorkersPassWritesEachReachedFractionOnce() throws Exception {
    String project = "wh-threshold";
    app.grant(project, "carol", "project.admin");
    app.grant(project, "alice", "model.invoke");
    Response hook =
        http.put(
            "/v1/projects/" + project + "/webhooks/budget",
            app.token("carol"),
            "{\"url\":\""
                + receiver.url("/budget")
                + "\",\"events\":[\""
                + THRESHOLD
                + "\"],\"modelQuotaThresholds\":[0.5,1]}");
    ok(hook, 201);
    String secret = WebhookDeliveryApiContract.text(hook.json(), t -> t.startsWith("whsec_"));
    ok(
        http.put(
            ModelQuotaApiContract.modelPolicy(project, "m1"),
            app.token("admin"),
            ModelQuotaApiContract.policyJson(10, null)),
        200);
    String quota = ModelQuotaApiContract.quotaJson("1h", 10, 100, null);
    ModelQuotaApiContract.awaitRoomForCounts(quota);
    ok(http.put(ModelQuotaApiContract.modelQuota(project), app.token("admin"), quota), 200);
    ModelQuotaThresholdPass pass = app.bean(ModelQuotaThresholdPass.class);
    assertThat(pass.runIfActive()).isZero();

    // 5 invocations reserving 10 tokens each: half of 10 invocations and of 100 tokens.
    for (int i = 1; i <= 5; i++) {
      ok(
          http.post(
              ModelQuotaApiContract.stepRuns(project),
              app.token("alice"),
              ModelQuotaApiContract.stepJson("s" + i, "run-1", "m1")),
          201);
      ok(
          http.post(
              ModelQuotaApiContract.invocations(project),
              app.token("alice"),
              ModelQuotaApiContract.admitJson("inv" + i, "s" + i)),
          201);
    }
    // The worker's own pass (every 15 s) may run at any moment too: count rows, not the passes'
    // returns, so the test holds whichever pass writes first.
    pass.runIfActive();
    assertThat(store.webhookDeliveries(project, THRESHOLD)).isEqualTo(2);
    pass.runIfActive();
    assertThat(store.webhookDeliveries(project, THRESHOLD)).isEqualTo(2);
    Response log =
        http.get("/v1/projects/" + project + "/webhooks/budget/deliveries", app.token("carol"));
    ok(log, 200);
    assertThat(log.json().get("deliveries")).hasSize(2);

    // Both delivered, each signed with the endpoint's secret (the Standard Webhooks library
    // checks), with its own id, the Project's ids only and no token.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                receiver.received().stream().filter(r -> r.path().equals("/budget")).count() >= 2);
    List<WebhookReceiver.Received> got =
        receiver.received().stream().filter(r -> r.path().equals("/budget")).toList();
    assertThat(got).hasSize(2);
    assertThat(got).extracting(r -> r.header("webhook-id")).doesNotHaveDuplicates();
    for (WebhookReceiver.Received r : got) {
      WebhookDeliveryApiContract.verify(r, secret);
      JsonNode body = WebhookDeliveryApiContract.body(r);
      assertThat(body.get("type").asString()).isEqualTo(THRESHOLD);
      assertThat(body.get("data").get("projectId").asString()).isEqualTo(project);
      assertThat(r.body()).doesNotContain(app.token("alice"));
    }
  }
}
