package dev.qinglong.app.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.security.RouteTable.Request;
import dev.qinglong.app.security.RouteTable.Route;
import dev.qinglong.app.support.OpenApiResponses;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.core.modelquota.QuotaWindow;
import dev.qinglong.testkit.QuotaWindows;
import dev.qinglong.testkit.RawHttp;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real responses of every {@code /v1} route, success and error, validated against the schemas,
 * media types and headers of the checked-in {@code docs/openapi.json} ({@link OpenApiResponses}).
 * Every route is called with a well-formed request of the route table (2xx, and its replay where
 * the document has one), anonymously (401), by a member without permissions (403), with an object
 * that does not exist (409, routes that name one), with a malformed Project id (400), with a method
 * it does not have (405), with an oversized JSON body (413, routes that take JSON), with the
 * database cut (503) and, for the AI routes, on an app without AI (404). Then 429 of both quotas,
 * 206/304/416 of downloads. The last test requires all of it to have been checked.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OpenApiResponsesTest {
  static final int INSPECT_LIMIT = 40;

  @TempDir static Path dir;
  @TempDir static Path offDir;
  SecurityWorld world;
  final OpenApiResponses api = OpenApiResponses.load();
  final List<String> failures = Collections.synchronizedList(new ArrayList<>());

  @BeforeAll
  void start() {
    world =
        SecurityWorld.start(
                dir,
                Map.of("qinglong.management-quota.limits.inspect", Integer.toString(INSPECT_LIMIT)))
            .seed();
  }

  @AfterAll
  void stop() {
    if (world != null) {
      world.close();
    }
  }

  SecurityWorld.Objects own() {
    return world.objects.get(SecurityWorld.OWN);
  }

  RawHttp.Response send(Request r, String token) {
    return world.raw.request(r.method(), r.path(), token, r.contentType(), r.body());
  }

  /** Validates {@code r} as an answer of {@code route}; expects {@code status} (0: any 2xx). */
  RawHttp.Response check(Route route, String what, RawHttp.Response r, int status) {
    boolean ok = status == 0 ? r.status() >= 200 && r.status() < 300 : r.status() == status;
    if (!ok) {
      failures.add(route.key() + " " + what + ": expected " + status + ", got " + r.all());
      return r;
    }
    String template = route.key().substring(route.key().indexOf(' ') + 1);
    failures.addAll(api.check(route.method(), template, r.status(), r::header, r.body()));
    return r;
  }

  static boolean takesJson(Request r) {
    return "application/json".equals(r.contentType());
  }

  @Test
  @Order(1)
  void everyRouteAnswersItsSuccessAndErrorsAsDocumented() {
    for (Route route : RouteTable.ROUTES.values()) {
      String allowed = world.token(route.allowedUser());
      // On fresh objects where the route uses its object up (as the matrix sends it).
      Request ok = route.builder().build(world, route.prepare(world, own()));
      check(route, "well-formed", send(ok, allowed), 0);
      Set<Integer> documented = api.documented().get(route.key());
      if (documented.contains(200) && documented.contains(201)) {
        // The same request again: the documented replay.
        check(route, "replay", send(ok, allowed), 200);
      }
      Request any = route.builder().build(world, own());
      check(route, "anonymous", send(any, null), 401);
      // A route every authenticated caller may use answers a member without permissions too.
      check(
          route,
          "no permission",
          send(any, world.token(SecurityWorld.NONE)),
          route.anyCaller() ? route.okStatus() : 403);
      if (route.namesObject()) {
        Request unknown = route.builder().build(world, world.unknown(SecurityWorld.OWN));
        check(route, "unknown object", send(unknown, allowed), 409);
      }
      if (route.inProject()) {
        Request bad = route.builder().build(world, own().withProject("bad!project"));
        check(route, "malformed project id", send(bad, allowed), 400);
      }
      String bare = any.path().split("\\?")[0];
      check(
          route,
          "unsupported method",
          // PATCH: no route takes it (DELETE is a route of its own on some paths).
          world.raw.request("PATCH", bare, allowed, null, (byte[]) null),
          405);
      if (takesJson(any)) {
        byte[] big = ("{\"x\":\"" + "a".repeat(70_000) + "\"}").getBytes(StandardCharsets.UTF_8);
        check(
            route,
            "oversized body",
            world.raw.request(any.method(), any.path(), allowed, "application/json", big),
            413);
      }
    }
    // A create-or-replace PUT creates (201) under an id the Project does not have yet; the
    // well-formed request above replaces (200), so the Project stays far below its 10 endpoints.
    Route putWebhook = RouteTable.ROUTES.get("PUT " + RouteTable.P + "/webhooks/{webhookId}");
    check(
        putWebhook,
        "created",
        world.raw.request(
            "PUT",
            "/v1/projects/" + SecurityWorld.OWN + "/webhooks/" + world.fresh("wh-new"),
            world.token(putWebhook.allowedUser()),
            SecurityWorld.WEBHOOK_BODY),
        201);
    assertThat(failures).isEmpty();
  }

  @Test
  @Order(2)
  void quotaRefusalsAndDownloadVariantsAreAsDocumented() {
    Route list = RouteTable.ROUTES.get("GET " + RouteTable.P + "/plugin-packages/proposals");
    String reader =
        world.token(SecurityWorld.memberOf(dev.qinglong.core.policy.Permission.PACKAGE_READ));
    Request page = list.builder().build(world, own());
    RawHttp.Response r = send(page, reader);
    for (int i = 0; i <= INSPECT_LIMIT && r.status() == 200; i++) {
      r = send(page, reader);
    }
    check(list, "inspect quota used up", r, 429);

    // The model quota: a Project whose window admits one invocation.
    Route admit = RouteTable.ROUTES.get("POST " + RouteTable.P + "/model-invocations");
    String admin = world.token(SecurityWorld.ADMIN);
    String invoker =
        world.token(SecurityWorld.memberOf(dev.qinglong.core.policy.Permission.MODEL_INVOKE));
    String base = "/v1/projects/p-window";
    expectOk(
        world.raw.request(
            "PUT",
            base
                + "/members/"
                + SecurityWorld.memberOf(dev.qinglong.core.policy.Permission.MODEL_INVOKE),
            admin,
            "{\"permissions\":[\"model.invoke\"]}"));
    expectOk(
        world.raw.request(
            "PUT",
            base + "/model-policies/m1",
            admin,
            "{\"maxTotalTokens\":10,\"maxCostMicros\":null}"));
    // "window full" below needs both admissions in one day (UTC).
    QuotaWindows.awaitRoom(QuotaWindow.ONE_DAY, System::currentTimeMillis);
    expectOk(
        world.raw.request(
            "PUT",
            base + "/model-quota",
            admin,
            "{\"window\":\"1d\",\"maxInvocations\":1,\"maxTokens\":1000,\"maxCostMicros\":null}"));
    for (String s : List.of("w1", "w2")) {
      expectOk(
          world.raw.request(
              "POST",
              base + "/step-runs",
              invoker,
              "{\"stepRunId\":\"" + s + "\",\"runId\":\"r\",\"modelId\":\"m1\"}"));
    }
    check(
        admit,
        "first of the window",
        world.raw.request(
            "POST",
            base + "/model-invocations",
            invoker,
            "{\"invocationId\":\"i1\",\"stepRunId\":\"w1\"}"),
        201);
    check(
        admit,
        "window full",
        world.raw.request(
            "POST",
            base + "/model-invocations",
            invoker,
            "{\"invocationId\":\"i2\",\"stepRunId\":\"w2\"}"),
        429);

    String download = "/v1/projects/p-own/artifacts/" + own().digest().value();
    String packageReader = reader;
    for (String method : List.of("GET", "HEAD")) {
      Route route = RouteTable.ROUTES.get(method + " " + RouteTable.P + "/artifacts/{digest}");
      RawHttp.Response whole =
          check(
              route,
              "whole",
              world.raw.request(method, download, packageReader, null, (byte[]) null),
              200);
      String etag = whole.header("ETag").orElse("");
      check(
          route, "one range", withHeader(method, download, packageReader, "Range: bytes=0-3"), 206);
      check(
          route,
          "not modified",
          withHeader(method, download, packageReader, "If-None-Match: " + etag),
          304);
      check(
          route,
          "range past the end",
          withHeader(method, download, packageReader, "Range: bytes=999999-"),
          416);
    }
    assertThat(failures).isEmpty();
  }

  RawHttp.Response withHeader(String method, String path, String token, String header) {
    return world.raw.send(
        List.of(method + " " + path + " HTTP/1.1", "Authorization: Bearer " + token, header), null);
  }

  static void expectOk(RawHttp.Response r) {
    assertThat(r.status()).as(r.all()).isBetween(200, 201);
  }

  @Test
  @Order(3)
  void withTheAiFeatureOffItsRoutesAreTheDocumented404() {
    try (TestApp off = TestApp.start(offDir, Map.of())) {
      RawHttp raw = new RawHttp(off.http.port());
      String alice = off.token("alice");
      for (Route route : RouteTable.ROUTES.values()) {
        Set<Integer> documented = api.documented().get(route.key());
        if (!documented.contains(404)) {
          continue;
        }
        Request r = route.builder().build(world, own());
        check(
            route,
            "AI off",
            raw.request(r.method(), r.path(), alice, r.contentType(), r.body()),
            404);
      }
    }
    assertThat(failures).isEmpty();
  }

  @Test
  @Order(4)
  void aDatabaseCutIsTheDocumented503OnEveryRoute() {
    world.app.cutDatabase();
    try {
      for (Route route : RouteTable.ROUTES.values()) {
        Request r = route.builder().build(world, own());
        // A global route reads no database on SQLite (no stored leases there): it still answers.
        int expected = route.inProject() ? 503 : 0;
        check(route, "database cut", send(r, world.token(route.allowedUser())), expected);
      }
    } finally {
      world.app.restoreDatabase();
    }
    assertThat(failures).isEmpty();
  }

  @Test
  @Order(5)
  void everyDocumentedOperationWasCheckedForItsSuccessAndErrorResponses() {
    Map<String, Set<Integer>> checked = api.checked();
    Map<String, Set<Integer>> missing = new TreeMap<>();
    for (Map.Entry<String, Set<Integer>> op : api.documented().entrySet()) {
      Route route = RouteTable.ROUTES.get(op.getKey());
      assertThat(route).as(op.getKey()).isNotNull();
      Set<Integer> required = new TreeSet<>();
      for (int status : op.getValue()) {
        boolean success = status < 300 || status == 304;
        boolean everywhere = Set.of(400, 401, 403, 404, 405, 503).contains(status);
        if (route.anyCaller() && status == 403) {
          // Documented for every operation, but no caller is refused here: nothing to check.
          everywhere = false;
        }
        if (!route.inProject() && (status == 400 || status == 503)) {
          // No project id or input to get wrong, and on this SQLite world no database read: the
          // PostgreSQL route test checks the 503 (GatewaysRoutePostgresTest).
          everywhere = false;
        }
        boolean objects = status == 409 && route.namesObject();
        boolean json = status == 413 && takesJson(route.builder().build(world, own()));
        if (success || everywhere || objects || json) {
          required.add(status);
        }
      }
      Set<Integer> left = new TreeSet<>(required);
      left.removeAll(checked.getOrDefault(op.getKey(), Set.of()));
      if (!left.isEmpty()) {
        missing.put(op.getKey(), left);
      }
    }
    // The refusals of both quotas and the range refusal, each on a route of its own.
    assertThat(checked.get("GET " + RouteTable.P + "/plugin-packages/proposals")).contains(429);
    assertThat(checked.get("POST " + RouteTable.P + "/model-invocations")).contains(429);
    assertThat(checked.get("GET " + RouteTable.P + "/artifacts/{digest}")).contains(416);
    assertThat(missing).as("documented statuses never checked against a real response").isEmpty();
  }
}
