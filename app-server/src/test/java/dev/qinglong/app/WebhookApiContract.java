package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.StoreInspector;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.backend.OpenedStore;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * The HTTP contract of the webhook routes (docs/api.md#webhooks), run against each store with the
 * target rules on (URLs are public IP literals, so no test needs DNS): shapes, the secret shown
 * once, 400 with nothing stored, 403 with nothing created, 409 for a missing endpoint, the log and
 * its pages, and the outbox row of a proposal.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class WebhookApiContract {
  /** A public address: the target rules accept it without resolving anything. */
  static final String TARGET = "https://93.184.215.14/qinglong-hook";

  static final String DIGEST = "sha256:" + "ab".repeat(32);
  static final String SECRET_KEY = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

  protected TestApp app;
  protected StoreInspector store;
  protected Http http;
  private int projects;

  /** Starts the app on the store under test with {@code properties} added. */
  protected abstract TestApp startApp(Map<String, String> properties);

  protected abstract StoreInspector inspector(TestApp app);

  @BeforeAll
  void start() {
    // The endpoints registered here name a public address: never try to reach it.
    app =
        startApp(
            Map.of(
                "qinglong.webhooks.secret-key",
                SECRET_KEY,
                "qinglong.webhooks.delivery.enabled",
                "false"));
    store = inspector(app);
    http = app.http;
  }

  @AfterAll
  void stop() {
    if (app != null) {
      app.close();
    }
  }

  /** A fresh Project whose administrator is carol. */
  private String project() {
    String project = "wh-" + (++projects);
    app.grant(project, "carol", "project.admin");
    return project;
  }

  private static String hooks(String project) {
    return "/v1/projects/" + project + "/webhooks";
  }

  private static String hook(String project, String id) {
    return hooks(project) + "/" + id;
  }

  private static String body(String url, String events) {
    return "{\"url\":\"" + url + "\",\"events\":[" + events + "]}";
  }

  private Response put(String project, String id, String body) {
    return http.put(hook(project, id), app.token("carol"), body);
  }

  private Response register(String project, String id, String events) {
    Response r = put(project, id, body(TARGET, events));
    assertThat(r.status()).as(r.body()).isIn(200, 201);
    return r;
  }

  static void assertProblem(Response r, int status, String code) {
    ApiContract.assertProblem(r, status, code);
  }

  /** The backend opened both webhook stores: registrations and the delivery worker's. */
  @Test
  void theStoreOpenedTheRegistrationAndTheDeliverySide() {
    assertThat(app.bean(OpenedStore.class).webhooks()).isPresent();
    assertThat(app.bean(OpenedStore.Worker.class).webhooks()).isPresent();
  }

  @Test
  void aCreatedEndpointShowsItsSecretOnceAndAReplacementKeepsIt() {
    String project = project();
    Response created =
        put(
            project,
            "ops",
            "{\"url\":\""
                + TARGET
                + "\",\"events\":[\"approval.pending\",\"model-quota.threshold\"],"
                + "\"modelQuotaThresholds\":[0.5,1.0]}");
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    assertThat(created.header("Location")).contains(hook(project, "ops"));
    assertThat(created.header("Cache-Control")).contains("no-store");
    String secret = created.json().get("secret").asString();
    assertThat(secret).matches("whsec_[A-Za-z0-9+/]{32}");
    JsonNode w = created.json().get("webhook");
    assertThat(w.get("projectId").asString()).isEqualTo(project);
    assertThat(w.get("webhookId").asString()).isEqualTo("ops");
    assertThat(w.get("url").asString()).isEqualTo(TARGET);
    assertThat(w.get("events").toString())
        .isEqualTo("[\"approval.pending\",\"model-quota.threshold\"]");
    assertThat(w.get("modelQuotaThresholds").toString()).isEqualTo("[0.5,1]");
    assertThat(w.get("createdAt").asString()).endsWith("Z");

    Response list = http.get(hooks(project), app.token("carol"));
    assertThat(list.status()).isEqualTo(200);
    assertThat(list.json().get("webhooks")).hasSize(1);
    assertThat(list.body()).doesNotContain(secret, "secret");
    Response one = http.get(hook(project, "ops"), app.token("carol"));
    assertThat(one.status()).isEqualTo(200);
    assertThat(one.body()).doesNotContain(secret, "secret");
    // The database holds no form of the secret that signs.
    assertThat(store.webhookSnapshot()).doesNotContain(secret, secret.substring(6));

    Response replaced = put(project, "ops", body(TARGET + "/v2", "\"approval.decided\""));
    assertThat(replaced.status()).as(replaced.body()).isEqualTo(200);
    assertThat(replaced.json().get("secret").isNull()).isTrue();
    assertThat(replaced.json().get("webhook").get("url").asString()).isEqualTo(TARGET + "/v2");
    assertThat(replaced.json().get("webhook").get("createdAtMs").asLong())
        .isEqualTo(w.get("createdAtMs").asLong());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"url\":\"http://93.184.215.14/h\",\"events\":[\"approval.pending\"]}",
        "{\"url\":\"https://127.0.0.1/h\",\"events\":[\"approval.pending\"]}",
        "{\"url\":\"https://10.1.2.3/h\",\"events\":[\"approval.pending\"]}",
        "{\"url\":\"https://192.168.1.1/h\",\"events\":[\"approval.pending\"]}",
        "{\"url\":\"https://169.254.169.254/latest\",\"events\":[\"approval.pending\"]}",
        "{\"url\":\"https://[::1]/h\",\"events\":[\"approval.pending\"]}",
        "{\"url\":\"https://[::ffff:127.0.0.1]/h\",\"events\":[\"approval.pending\"]}",
        "{\"url\":\"https://u:p@93.184.215.14/h\",\"events\":[\"approval.pending\"]}",
        "{\"url\":\"https://93.184.215.14/h#x\",\"events\":[\"approval.pending\"]}",
        "{\"url\":\"ftp://93.184.215.14/h\",\"events\":[\"approval.pending\"]}",
        "{\"url\":\"https://93.184.215.14/h\",\"events\":[\"approval.unknown\"]}",
        "{\"url\":\"https://93.184.215.14/h\",\"events\":[]}",
        "{\"url\":\"https://93.184.215.14/h\"}",
        "{\"events\":[\"approval.pending\"]}",
        "{\"url\":\"https://93.184.215.14/h\",\"events\":[\"approval.pending\"],"
            + "\"modelQuotaThresholds\":[0]}",
        "{\"url\":\"https://93.184.215.14/h\",\"events\":[\"approval.pending\"],"
            + "\"modelQuotaThresholds\":[1.5]}",
        "{\"url\":\"https://93.184.215.14/h\",\"events\":[\"approval.pending\"],"
            + "\"modelQuotaThresholds\":[-0.5]}",
        "{\"url\":\"https://93.184.215.14/h\",\"events\":[\"approval.pending\"],"
            + "\"modelQuotaThresholds\":[\"0.5\"]}",
        "{\"url\":\"https://93.184.215.14/h\",\"events\":[\"approval.pending\"],\"extra\":1}",
        "{\"url\":42,\"events\":[\"approval.pending\"]}",
        "[]",
        "not json"
      })
  void badInputIs400AndStoresNothing(String requestBody) {
    String project = project();
    String before = store.webhookSnapshot();
    Response r = put(project, "bad", requestBody);
    assertProblem(r, 400, "invalid_request");
    assertThat(r.body()).doesNotContain("127.0.0.1", "169.254", "10.1.2.3");
    assertThat(store.webhookSnapshot()).isEqualTo(before);
    assertThat(http.get(hooks(project), app.token("carol")).json().get("webhooks")).isEmpty();
  }

  @Test
  void aBadWebhookIdIs400() {
    String project = project();
    assertProblem(
        put(project, "b%20d", body(TARGET, "\"approval.pending\"")), 400, "invalid_request");
    assertProblem(
        put(project, "x".repeat(129), body(TARGET, "\"approval.pending\"")),
        400,
        "invalid_request");
  }

  @Test
  void theEleventhEndpointIs400AndStoresNothing() {
    String project = project();
    for (int i = 0; i < 10; i++) {
      assertThat(register(project, "h" + i, "\"webhook.test\"").status()).isEqualTo(201);
    }
    String before = store.webhookSnapshot();
    assertProblem(put(project, "h10", body(TARGET, "\"webhook.test\"")), 400, "invalid_request");
    assertThat(store.webhookSnapshot()).isEqualTo(before);
    assertThat(http.get(hooks(project), app.token("carol")).json().get("webhooks")).hasSize(10);
    // Replacing one at the cap is fine.
    assertThat(register(project, "h3", "\"approval.pending\"").status()).isEqualTo(200);
  }

  @Test
  void withoutProjectAdminEveryRouteIs403AndNothingIsCreated() {
    String project = project();
    register(project, "ops", "\"webhook.test\"");
    app.grant(project, "bob", "package.read", "approval.decide");
    String before = store.webhookSnapshot();
    String bob = app.token("bob");
    for (Response r :
        List.of(
            http.put(hook(project, "new"), bob, body(TARGET, "\"approval.pending\"")),
            http.get(hooks(project), bob),
            http.get(hook(project, "ops"), bob),
            http.method("DELETE", hook(project, "ops"), bob, null, null),
            http.post(hook(project, "ops") + "/rotate-secret", bob, ""),
            http.post(hook(project, "ops") + "/test", bob, ""),
            http.get(hook(project, "ops") + "/deliveries", bob),
            // A Project the caller has nothing in: the same answer, existing or not.
            http.put(hook("wh-nowhere", "x"), bob, body(TARGET, "\"approval.pending\"")),
            http.get(hooks("wh-nowhere"), bob))) {
      assertProblem(r, 403, "forbidden");
    }
    assertThat(store.webhookSnapshot()).isEqualTo(before);
    assertProblem(http.get(hooks(project), null), 401, "unauthenticated");
  }

  @Test
  void aMissingEndpointIs409NeverA404() {
    String project = project();
    String carol = app.token("carol");
    for (Response r :
        List.of(
            http.get(hook(project, "none"), carol),
            http.method("DELETE", hook(project, "none"), carol, null, null),
            http.post(hook(project, "none") + "/rotate-secret", carol, ""),
            http.post(hook(project, "none") + "/test", carol, ""),
            http.get(hook(project, "none") + "/deliveries", carol))) {
      assertProblem(r, 409, "conflict");
    }
  }

  @Test
  void rotationShowsANewSecretOnceAndDeleteRemovesTheEndpoint() {
    String project = project();
    String first = register(project, "rot", "\"webhook.test\"").json().get("secret").asString();
    Response rotated = http.post(hook(project, "rot") + "/rotate-secret", app.token("carol"), "");
    assertThat(rotated.status()).as(rotated.body()).isEqualTo(200);
    String second = rotated.json().get("secret").asString();
    assertThat(second).startsWith("whsec_").isNotEqualTo(first);
    assertThat(rotated.json().get("webhook").get("webhookId").asString()).isEqualTo("rot");

    Response deleted = http.method("DELETE", hook(project, "rot"), app.token("carol"), null, null);
    assertThat(deleted.status()).as(deleted.body()).isEqualTo(204);
    assertProblem(http.get(hook(project, "rot"), app.token("carol")), 409, "conflict");
    assertThat(http.get(hooks(project), app.token("carol")).json().get("webhooks")).isEmpty();
  }

  @Test
  void testEventsShowInTheLogNewestFirstOnePageAtATime() {
    String project = project();
    register(project, "log", "\"approval.pending\"");
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Response t = http.post(hook(project, "log") + "/test", app.token("carol"), "");
      assertThat(t.status()).as(t.body()).isEqualTo(200);
      ids.add(t.json().get("deliveryId").asString());
    }
    assertThat(ids).allMatch(id -> id.startsWith("msg_"));
    Set<String> seen = new HashSet<>();
    String cursor = null;
    int pages = 0;
    do {
      Response page =
          http.get(
              hook(project, "log")
                  + "/deliveries?limit=2"
                  + (cursor == null ? "" : "&cursor=" + cursor),
              app.token("carol"));
      assertThat(page.status()).as(page.body()).isEqualTo(200);
      pages++;
      for (JsonNode d : page.json().get("deliveries")) {
        assertThat(d.get("type").asString()).isEqualTo("webhook.test");
        assertThat(d.get("status").asString()).isIn("pending", "delivered", "failed");
        assertThat(d.get("createdAt").asString()).endsWith("Z");
        assertThat(seen.add(d.get("deliveryId").asString())).isTrue();
      }
      cursor =
          page.json().get("nextCursor").isNull() ? null : page.json().get("nextCursor").asString();
    } while (cursor != null);
    assertThat(pages).isEqualTo(2);
    assertThat(seen).containsExactlyInAnyOrderElementsOf(ids);

    assertProblem(
        http.get(hook(project, "log") + "/deliveries?limit=0", app.token("carol")),
        400,
        "invalid_request");
    assertProblem(
        http.get(hook(project, "log") + "/deliveries?cursor=bm9wZQ", app.token("carol")),
        400,
        "invalid_request");
  }

  @Test
  void aProposalEnqueuesApprovalPendingForTheSubscribedEndpointOnly() {
    String project = project();
    register(project, "pending", "\"approval.pending\"");
    register(project, "deaf", "\"approval.decided\"");
    app.grant(project, "alice", "package.manage");
    Response p =
        http.post(
            ApiContract.proposals(project),
            app.token("alice"),
            ApiContract.installJson("wh-ref-1", "left-pad"));
    assertThat(p.status()).as(p.body()).isEqualTo(201);
    assertThat(store.webhookDeliveries(project, "approval.pending")).isEqualTo(1);
    JsonNode log =
        http.get(hook(project, "pending") + "/deliveries", app.token("carol"))
            .json()
            .get("deliveries");
    assertThat(log).hasSize(1);
    assertThat(log.get(0).get("type").asString()).isEqualTo("approval.pending");
    assertThat(
            http.get(hook(project, "deaf") + "/deliveries", app.token("carol"))
                .json()
                .get("deliveries"))
        .isEmpty();
    // A refused proposal (a replay with another action) writes no event.
    Response conflict =
        http.post(
            ApiContract.proposals(project),
            app.token("alice"),
            ApiContract.installJson("wh-ref-1", "other-pkg"));
    assertThat(conflict.status()).isEqualTo(409);
    assertThat(store.webhookDeliveries(project, "approval.pending")).isEqualTo(1);
  }
}
