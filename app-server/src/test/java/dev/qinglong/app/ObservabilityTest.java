package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.core.kernel.Sha256Digest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;

/**
 * The observability pack on a running app (SQLite, AI on, JSON logs, propose limit 1): pool,
 * quota-timer and shield metrics on the management port, the shield's 413 in {@code
 * http.server.requests}, build info, the request id in the response, in every log line of the
 * request and in a problem's {@code instance}, structured audit events, and that every metric the
 * Grafana dashboard and the alert rules under {@code deploy/observability/} use exists.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(OutputCaptureExtension.class)
class ObservabilityTest {
  static final Path PACK = Path.of("..", "deploy", "observability");
  static final Pattern KNOWN_METRIC =
      Pattern.compile("\\b((?:qinglong|hikaricp|http_server|jvm|process)_[a-zA-Z0-9_]+)");

  @TempDir static Path dir;
  private TestApp app;

  @BeforeAll
  void start() {
    app =
        TestApp.start(
            dir.resolve("data"),
            Map.of(
                "qinglong.ai.enabled", "true",
                "qinglong.log-format", "json",
                "qinglong.management-quota.limits.propose", "2",
                // Long windows: a test's few requests always fall in one window of their bucket.
                "qinglong.management-quota.window", "5m"));
  }

  @AfterAll
  void stop() {
    if (app != null) {
      app.close();
    }
    // Spring Boot keeps the structured format in a system property that the next app of this JVM
    // would inherit: later test classes expect text logs.
    System.clearProperty("CONSOLE_LOG_STRUCTURED_FORMAT");
  }

  @Test
  void everyRequestHasAnIdInItsResponseItsProblemAndEveryLogLine(CapturedOutput output) {
    Http.Response bad =
        app.http.post(ApiContract.proposals("demo"), app.token("alice"), "{\"actionRef\":\"x\"}");
    assertThat(bad.status()).isEqualTo(400);
    String id = bad.header("X-Request-Id").orElseThrow();
    assertThat(id).matches("[0-9a-f-]{36}");
    assertThat(bad.json().get("instance").asString()).isEqualTo("urn:uuid:" + id);

    Http.Response other =
        app.http.post(ApiContract.proposals("demo"), app.token("alice"), "{\"actionRef\":\"x\"}");
    assertThat(other.header("X-Request-Id").orElseThrow()).isNotEqualTo(id);

    // A successful request: its audit line carries the same id as its response.
    Http.Response proposed = propose("rid-1", "left-pad", "1.0.0");
    String proposedId = proposed.header("X-Request-Id").orElseThrow();
    JsonNode audit = awaitLogLine(output, n -> "governance.proposed".equals(text(n, "auditEvent")));
    assertThat(text(audit, "requestId")).isEqualTo(proposedId);
  }

  @Test
  void auditEventsForProposeDecideMembersPublishAndQuotaRejections(CapturedOutput output)
      throws Exception {
    byte[] content = "observability artifact".getBytes(StandardCharsets.UTF_8);
    Sha256Digest digest = Sha256Digest.of(content);
    HttpResponse<String> upload =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create(
                            "http://127.0.0.1:"
                                + app.http.port()
                                + "/v1/projects/demo/artifacts/"
                                + digest.value()))
                    .header("Authorization", "Bearer " + app.token("alice"))
                    .header("Content-Type", "application/octet-stream")
                    .PUT(HttpRequest.BodyPublishers.ofByteArray(content))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(upload.statusCode()).as(upload.body()).isEqualTo(201);
    Http.Response proposed =
        app.http.post(
            ApiContract.proposals("demo"),
            "not-a-token",
            "{}"); // 401: no audit event for a request that did nothing
    assertThat(proposed.status()).isEqualTo(401);
    // admin makes carol a package manager; she proposes (alice's propose quota is for the
    // refusal below).
    Http.Response member =
        app.http.put(
            "/v1/projects/demo/members/carol",
            app.token("admin"),
            "{\"permissions\":[\"package.manage\",\"package.read\"]}");
    assertThat(member.status()).as(member.body()).isEqualTo(200);
    JsonNode memberLine =
        awaitLogLine(
            output,
            n ->
                "member.changed".equals(text(n, "auditEvent"))
                    && "carol".equals(text(n, "member")));
    assertThat(text(memberLine, "userId")).isEqualTo("admin");
    assertThat(text(memberLine, "permissions")).isEqualTo("package.manage,package.read");

    Http.Response p =
        app.http.post(
            ApiContract.proposals("demo"),
            app.token("carol"),
            "{\"actionRef\":\"audit-1\",\"action\":{\"type\":\"install\",\"package\":\"audited\","
                + "\"version\":\"2.0.0\",\"artifactDigest\":\""
                + digest.value()
                + "\"}}");
    assertThat(p.status()).as(p.body()).isEqualTo(201);
    String proposalId = p.json().get("proposalId").asString();
    JsonNode proposedLine =
        awaitLogLine(
            output,
            n ->
                "governance.proposed".equals(text(n, "auditEvent"))
                    && proposalId.equals(text(n, "proposalId")));
    assertThat(text(proposedLine, "userId")).isEqualTo("carol");
    assertThat(text(proposedLine, "projectId")).isEqualTo("demo");
    assertThat(text(proposedLine, "actionDigest"))
        .isEqualTo(p.json().get("actionDigest").asString());

    Http.Response decided =
        app.http.post(
            ApiContract.decisions("demo", p.json().get("approvalId").asString()),
            app.token("bob"),
            ApiContract.decisionJson(
                "audit-d1", "approve", p.json().get("actionDigest").asString()));
    assertThat(decided.status()).as(decided.body()).isEqualTo(200);
    JsonNode decidedLine =
        awaitLogLine(
            output,
            n ->
                "governance.decided".equals(text(n, "auditEvent"))
                    && proposalId.equals(text(n, "proposalId")));
    assertThat(text(decidedLine, "userId")).isEqualTo("bob");
    assertThat(text(decidedLine, "decision")).isEqualTo("approve");
    assertThat(text(decidedLine, "requestId"))
        .isEqualTo(decided.header("X-Request-Id").orElseThrow());

    // The publication worker publishes it: an audit event without a request.
    JsonNode published =
        awaitLogLine(
            output,
            n ->
                "governance.published".equals(text(n, "auditEvent"))
                    && proposalId.equals(text(n, "proposalId")));
    assertThat(text(published, "artifactDigest")).isEqualTo(digest.value());

    // alice's propose limit is 2 per window (other tests of this class spend some): push past it.
    Http.Response refused = null;
    for (int i = 0; i < 3; i++) {
      Http.Response r = propose("over-" + i, "left-pad", "9." + i);
      if (r.status() == 429) {
        refused = r;
        break;
      }
    }
    assertThat(refused).as("a 429 within three proposals past a limit of 2").isNotNull();
    String refusedId = refused.header("X-Request-Id").orElseThrow();
    JsonNode rejected =
        awaitLogLine(
            output,
            n ->
                "quota.rejected".equals(text(n, "auditEvent"))
                    && refusedId.equals(text(n, "requestId")));
    assertThat(text(rejected, "quota")).isEqualTo("management");
    assertThat(text(rejected, "userId")).isEqualTo("alice");
    assertThat(text(rejected, "projectId")).isEqualTo("demo");
    assertThat(text(rejected, "route"))
        .isEqualTo("/v1/projects/{projectId}/plugin-packages/proposals");
    assertThat(Long.parseLong(text(rejected, "retryAfterSeconds")))
        .isEqualTo(Long.parseLong(refused.header("Retry-After").orElseThrow()));
  }

  @Test
  void aBucketsRefusalsInOneWindowAreOneAuditLineAndTheRestAreCounted(CapturedOutput output) {
    String p = "obs-refusals";
    makeCarolPackageManagerOf(p);
    double before = value(scrape(), "qinglong_quota_refusals_audit_suppressed_total");
    List<String> refusedIds = new ArrayList<>();
    // Limit 2 per window: 2 admitted, then 5 refused.
    for (int i = 0; i < 7; i++) {
      Http.Response r =
          app.http.post(
              ApiContract.proposals(p),
              app.token("carol"),
              "{\"actionRef\":\"flood-"
                  + i
                  + "\",\"action\":{\"type\":\"remove\",\"package\":\"flood\","
                  + "\"version\":\"1\"}}");
      assertThat(r.status()).as(r.body()).isEqualTo(i < 2 ? 201 : 429);
      if (i >= 2) {
        refusedIds.add(r.header("X-Request-Id").orElseThrow());
      }
    }
    // The line is written before the answer is sent: all of them are in the output by now.
    List<JsonNode> lines =
        jsonLines(output).stream()
            .filter(n -> "quota.rejected".equals(text(n, "auditEvent")))
            .filter(n -> p.equals(text(n, "projectId")))
            .toList();
    assertThat(lines)
        .singleElement()
        .satisfies(
            n -> {
              assertThat(text(n, "requestId")).isEqualTo(refusedIds.get(0));
              assertThat(text(n, "userId")).isEqualTo("carol");
              assertThat(text(n, "route"))
                  .isEqualTo("/v1/projects/{projectId}/plugin-packages/proposals");
            });
    assertThat(value(scrape(), "qinglong_quota_refusals_audit_suppressed_total") - before)
        .isEqualTo(4);
  }

  @Test
  void limitsSetAndShadowRefusalsAreAuditedAndCounted(CapturedOutput output) {
    String p = "obs-shadow";
    makeCarolPackageManagerOf(p);
    String[] series = {"operation=\"plugin-package.propose\"", "outcome=\"shadow_rejected\""};
    // Registered up front like every outcome: the series exists before its first decision.
    double before = value(scrape(), "qinglong_quota_decisions_total", series);

    Http.Response set =
        app.http.put(
            "/v1/projects/" + p + "/management-quota/policy",
            app.token("admin"),
            "{\"shadowLimits\":{\"plugin-package.propose\":1}}");
    assertThat(set.status()).as(set.body()).isEqualTo(200);
    // The audit line is written before the answer is sent: no waiting for it.
    JsonNode limitsSet =
        loggedLine(
            output,
            n ->
                "quota.limits_set".equals(text(n, "auditEvent")) && p.equals(text(n, "projectId")));
    assertThat(text(limitsSet, "userId")).isEqualTo("-"); // the Project's own policy
    assertThat(text(limitsSet, "revision")).isEqualTo("1");
    assertThat(text(limitsSet, "setBy")).isEqualTo("admin");
    assertThat(text(limitsSet, "shadowLimits")).isEqualTo("plugin-package.propose:1");
    assertThat(text(limitsSet, "limits")).isEqualTo("-");
    assertThat(text(limitsSet, "requestId")).isEqualTo(set.header("X-Request-Id").orElseThrow());

    Http.Response user =
        app.http.put(
            "/v1/projects/" + p + "/management-quota/users/carol",
            app.token("admin"),
            "{\"limits\":{\"plugin-package.propose\":2,\"artifact.upload\":3}}");
    assertThat(user.status()).as(user.body()).isEqualTo(200);
    JsonNode userSet =
        loggedLine(
            output,
            n ->
                "quota.limits_set".equals(text(n, "auditEvent"))
                    && "carol".equals(text(n, "userId")));
    assertThat(text(userSet, "projectId")).isEqualTo(p);
    assertThat(text(userSet, "limits")).isEqualTo("plugin-package.propose:2,artifact.upload:3");

    // carol's limit is 2 (her own), the Project's shadow limit 1: her second proposal is admitted
    // and is the one the shadow limit would have refused.
    for (int i = 1; i <= 2; i++) {
      Http.Response r =
          app.http.post(
              ApiContract.proposals(p),
              app.token("carol"),
              "{\"actionRef\":\"shadow-"
                  + i
                  + "\",\"action\":{\"type\":\"remove\",\"package\":\"shadowed\","
                  + "\"version\":\"1\"}}");
      assertThat(r.status()).as(r.body()).isEqualTo(201);
      if (i == 1) {
        assertThat(output.getOut()).doesNotContain("quota.shadow_rejected");
        continue;
      }
      JsonNode shadow =
          loggedLine(output, n -> "quota.shadow_rejected".equals(text(n, "auditEvent")));
      assertThat(text(shadow, "requestId")).isEqualTo(r.header("X-Request-Id").orElseThrow());
      assertThat(text(shadow, "projectId")).isEqualTo(p);
      assertThat(text(shadow, "userId")).isEqualTo("carol");
      assertThat(text(shadow, "operation")).isEqualTo("plugin-package.propose");
      assertThat(text(shadow, "used")).isEqualTo("2");
      assertThat(text(shadow, "shadowLimit")).isEqualTo("1");
      assertThat(text(shadow, "limit")).isEqualTo("2");
      assertThat(text(shadow, "limitSource")).isEqualTo("user");
    }
    assertThat(value(scrape(), "qinglong_quota_decisions_total", series) - before).isEqualTo(1);
    // Still no tenant in any quota series.
    assertThat(scrape().lines().filter(l -> l.startsWith("qinglong_quota")))
        .noneMatch(l -> l.contains(p) || l.contains("carol"));
  }

  @Test
  void metricsForPoolsQuotaDecisionsAndTheShield() throws IOException {
    propose("metrics-1", "metered", "1.0.0");
    // The shield refuses a declared body over the JSON cap before anything else reads it.
    assertThat(rawStatus("POST", ApiContract.proposals("demo"), 1_000_000)).isEqualTo(413);

    String metrics = scrape();
    assertThat(metrics)
        .containsPattern("hikaricp_connections_active\\{[^}]*pool=\"sqlite-qinglong.db\"")
        .containsPattern("hikaricp_connections_pending\\{[^}]*pool=\"sqlite-qinglong.db\"")
        .containsPattern("hikaricp_connections_timeout_total\\{[^}]*pool=\"sqlite-qinglong.db\"");
    assertThat(
            value(
                metrics,
                "qinglong_quota_decision_duration_seconds_count",
                "operation=\"plugin-package.propose\"",
                "outcome=\"allowed\""))
        .isGreaterThanOrEqualTo(1);
    assertThat(value(metrics, "qinglong_shield_rejections_total", "reason=\"body_too_large\""))
        .isEqualTo(1);
    // The shield's own answer is in http.server.requests like every other answer.
    assertThat(value(metrics, "http_server_requests_seconds_count", "status=\"413\""))
        .isGreaterThanOrEqualTo(1);
    // No Spring Security observations: they nest one observation per security filter on every
    // request and cost more CPU than the quota decision (docs/benchmarks.md, "HTTP path profile").
    assertThat(metrics).doesNotContain("spring_security_");
    // No long-task timer per request either (docs/benchmarks.md, "HTTP path"): nothing reads
    // http_server_requests_active_seconds, and it cost every request a start and a stop.
    assertThat(metrics).doesNotContain("http_server_requests_active");
    // No quota series is per tenant.
    for (String line : metrics.lines().toList()) {
      if (line.startsWith("qinglong_quota")) {
        assertThat(line)
            .doesNotContain("projectId")
            .doesNotContain("userId")
            .doesNotContain("demo");
      }
    }
    // One prefix for the app's own meters.
    Set<String> own = new TreeSet<>();
    for (String name : names(metrics)) {
      if (name.contains("qinglong") || name.startsWith("quota") || name.startsWith("download")) {
        own.add(name);
      }
    }
    assertThat(own).allMatch(n -> n.startsWith("qinglong_"));
    assertThat(own).noneMatch(n -> n.startsWith("qinglong_download_"));
  }

  @Test
  void infoShowsTheBuildOnTheManagementPortOnly() {
    Http.Response info = app.management.get("/actuator/info", null);
    assertThat(info.status()).isEqualTo(200);
    assertThat(info.json().get("build").get("artifact").asString()).isEqualTo("app-server");
    assertThat(info.json().get("build").get("group").asString()).isEqualTo("dev.qinglong");
    assertThat(info.json().get("build").get("version").asString()).isNotBlank();
    assertThat(app.http.get("/actuator/info", null).status()).isEqualTo(404);
  }

  @Test
  void everyMetricOfTheDashboardAndTheAlertRulesExists() throws IOException {
    propose("pack-1", "dash", "1.0.0"); // so http.server.requests has series
    Set<String> exposed = names(scrape());

    List<String> expressions = new ArrayList<>();
    JsonNode dashboard =
        Http.JSON.readTree(Files.readString(PACK.resolve("grafana-dashboard.json")));
    for (JsonNode panel : dashboard.get("panels")) {
      for (JsonNode target : panel.get("targets")) {
        expressions.add(target.get("expr").asString());
      }
    }
    int dashboardExpressions = expressions.size();
    Map<String, Object> alerts =
        new Yaml().load(Files.readString(PACK.resolve("prometheus-alerts.yaml")));
    for (Object group : (List<?>) alerts.get("groups")) {
      for (Object rule : (List<?>) ((Map<?, ?>) group).get("rules")) {
        expressions.add((String) ((Map<?, ?>) rule).get("expr"));
      }
    }
    assertThat(dashboardExpressions).isGreaterThanOrEqualTo(10);
    assertThat(expressions.size() - dashboardExpressions).isGreaterThanOrEqualTo(5);

    Set<String> used = new TreeSet<>();
    for (String expr : expressions) {
      Matcher m = KNOWN_METRIC.matcher(expr);
      boolean any = false;
      while (m.find()) {
        used.add(m.group(1));
        any = true;
      }
      assertThat(any).as("an expression with no known metric: " + expr).isTrue();
    }
    assertThat(used)
        .contains(
            "http_server_requests_seconds_count",
            "qinglong_downloads_lease_losses_total",
            "qinglong_worker_state",
            "hikaricp_connections_pending",
            "qinglong_quota_decision_duration_seconds_bucket",
            "qinglong_shield_rejections_total",
            "qinglong_model_quota_events_total",
            "qinglong_webhook_deliveries_total",
            "qinglong_webhook_queue_age_seconds",
            "qinglong_webhook_delivery_seconds_bucket");
    assertThat(exposed).containsAll(used);
  }

  @Test
  void theClusterManifestsLogJsonAndExposeInfoOnTheManagementPort() throws IOException {
    Map<String, Object> configMap =
        new Yaml().load(Files.readString(Path.of("..", "deploy", "base", "configmap.yaml")));
    Map<?, ?> data = (Map<?, ?>) configMap.get("data");
    // The same value qinglong.log-format=json sets, which the JSON log tests above run with.
    assertThat(data.get("LOGGING_STRUCTURED_FORMAT_CONSOLE")).isEqualTo("ecs");
    assertThat(data.get("MANAGEMENT_SERVER_PORT")).isEqualTo("8081");
    assertThat(List.of(((String) data.get("MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE")).split(",")))
        .contains("health", "prometheus", "info");
  }

  // ---- helpers --------------------------------------------------------------------------------

  private Http.Response propose(String ref, String pkg, String version) {
    return app.http.post(
        ApiContract.proposals("demo"),
        app.token("alice"),
        "{\"actionRef\":\""
            + ref
            + "\",\"action\":{\"type\":\"remove\",\"package\":\""
            + pkg
            + "\",\"version\":\""
            + version
            + "\"}}");
  }

  private void makeCarolPackageManagerOf(String project) {
    Http.Response member =
        app.http.put(
            "/v1/projects/" + project + "/members/carol",
            app.token("admin"),
            "{\"permissions\":[\"package.manage\"]}");
    assertThat(member.status()).as(member.body()).isEqualTo(200);
  }

  private String scrape() {
    Http.Response r = app.management.get("/actuator/prometheus", null);
    assertThat(r.status()).isEqualTo(200);
    return r.body();
  }

  /** Metric names of the exposition text (the sample lines, not the comments). */
  static Set<String> names(String exposition) {
    Set<String> names = new TreeSet<>();
    Pattern sample = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]");
    for (String line : exposition.lines().toList()) {
      Matcher m = sample.matcher(line);
      if (!line.startsWith("#") && m.find()) {
        names.add(m.group(1));
      }
    }
    return names;
  }

  /** The sum of the samples of {@code name} whose labels contain every one of {@code labels}. */
  static double value(String exposition, String name, String... labels) {
    double sum = 0;
    boolean found = false;
    for (String line : exposition.lines().toList()) {
      if (!line.startsWith(name + "{")) {
        continue;
      }
      String labelPart = line.substring(name.length(), line.lastIndexOf('}') + 1);
      boolean all = true;
      for (String l : labels) {
        all &= labelPart.contains(l);
      }
      if (all) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        found = true;
      }
    }
    assertThat(found).as(name + " with " + String.join(",", labels)).isTrue();
    return sum;
  }

  private static String text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v == null || v.isNull() ? null : v.asString();
  }

  /** Every JSON log line written so far. */
  private static List<JsonNode> jsonLines(CapturedOutput output) {
    List<JsonNode> nodes = new ArrayList<>();
    for (String line : output.getOut().lines().toList()) {
      if (line.startsWith("{")) {
        try {
          nodes.add(Http.JSON.readTree(line));
        } catch (RuntimeException e) {
          // not a JSON line
        }
      }
    }
    return nodes;
  }

  /** The JSON log line matching {@code match} that is already written; fails if there is none. */
  private static JsonNode loggedLine(CapturedOutput output, Predicate<JsonNode> match) {
    return jsonLines(output).stream()
        .filter(match)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no such log line in:\n" + output.getOut()));
  }

  /** Waits (≤ 20 s) for a JSON log line matching {@code match}; returns it. */
  private static JsonNode awaitLogLine(CapturedOutput output, Predicate<JsonNode> match) {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (true) {
      for (String line : output.getOut().lines().toList()) {
        if (!line.startsWith("{")) {
          continue;
        }
        JsonNode node;
        try {
          node = Http.JSON.readTree(line);
        } catch (RuntimeException e) {
          continue;
        }
        if (match.test(node)) {
          return node;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no such log line in:\n" + output.getOut());
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  /** A request whose head declares {@code contentLength} bytes and sends none; its status. */
  private int rawStatus(String method, String path, long contentLength) throws IOException {
    String head =
        method
            + " "
            + path
            + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            + app.token("alice")
            + "\r\nContent-Type: application/json\r\nContent-Length: "
            + contentLength
            + "\r\nConnection: close\r\n\r\n";
    try (Socket socket = new Socket("127.0.0.1", app.http.port())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(head.getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      int b;
      while ((b = in.read()) != -1 && b != '\n') {
        line.write(b);
      }
      return Integer.parseInt(line.toString(StandardCharsets.ISO_8859_1).split(" ")[1]);
    }
  }
}
