package dev.qinglong.app.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.artifacts.ArtifactPublisher;
import dev.qinglong.app.fuzz.RequestDrawer.Drawn;
import dev.qinglong.app.fuzz.RequestDrawer.Operation;
import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.OpenApiResponses;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.gateway.artifacts.FileArtifactStore;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * A spec-driven fuzz run: requests drawn from the OpenAPI document the app serves at {@code
 * /v3/api-docs} (read at run time, whatever produced it), every operation, each request valid under
 * the document by construction, sent with valid dev tokens of Project members who hold the
 * permissions. Each answer must be one the document lists for the operation (status, media type,
 * body schema, headers; {@link OpenApiResponses}); a 400 is always a finding, for the request was
 * inside the document; so is a 5xx, for the store is up.
 *
 * <p>Deterministic draws: seed {@code -Dqinglong.fuzz.seed} (default 19), {@code
 * -Dqinglong.fuzz.requests} requests (default 1000).
 */
class SpecFuzzTest {
  static final long SEED = Long.getLong("qinglong.fuzz.seed", 19L);
  static final int REQUESTS = Integer.getInteger("qinglong.fuzz.requests", 1000);
  static final List<String> PROJECTS = List.of("fz-a", "fz-b");
  static final String[] ALL_PERMISSIONS =
      Stream.of(Permission.values()).map(Permission::wireName).toArray(String[]::new);
  // Two members with every permission (four-eyes decisions need two), a reader, a global admin.
  static final List<String> CALLERS = List.of("alice", "bob", "alice", "bob", "carol", "admin");

  @TempDir static Path dataDir;
  static TestApp app;

  @BeforeAll
  static void start() {
    // The model-quota routes on; every management quota at its highest limit (per window), above
    // what a run spends on one operation, so no 429 of it hides a deeper answer.
    // The webhooks it registers name a public address: never try to reach it.
    Map<String, String> properties =
        new HashMap<>(
            Map.of("qinglong.ai.enabled", "true", "qinglong.webhooks.delivery.enabled", "false"));
    for (String limit :
        List.of("propose", "decide", "inspect", "model-usage-read", "artifact-upload")) {
      properties.put("qinglong.management-quota.limits." + limit, "1000");
    }
    app = TestApp.start(dataDir, properties);
    for (String project : PROJECTS) {
      app.grant(project, "alice", ALL_PERMISSIONS);
      app.grant(project, "bob", ALL_PERMISSIONS);
      seedProject(project);
    }
    app.grant(PROJECTS.get(0), "carol", "package.read");
    seed(
        "admin",
        "PUT",
        PROJECTS.get(0),
        "/model-quota",
        "{\"window\":\"1d\",\"maxInvocations\":100000,\"maxTokens\":1000000000}");
    new ArtifactPublisher(
            app.bean(OpenedStore.Worker.class).publisher(),
            app.bean(FileArtifactStore.class),
            Clock.systemUTC())
        .publishOnce();
  }

  /**
   * Objects the fuzz can reach in {@code project}: a model policy, ready and admitted StepRuns, and
   * an uploaded artifact whose install alice proposed and bob approved (published by the caller).
   */
  static void seedProject(String project) {
    seed("admin", "PUT", project, "/model-policies/m1", "{\"maxTotalTokens\":100000}");
    for (int i = 0; i < 6; i++) {
      String stepRun = "s-" + project + "-" + i;
      seed(
          "alice",
          "POST",
          project,
          "/step-runs",
          "{\"stepRunId\":\"" + stepRun + "\",\"runId\":\"r1\",\"modelId\":\"m1\"}");
      if (i % 2 == 0) {
        seed(
            "alice",
            "POST",
            project,
            "/model-invocations",
            "{\"invocationId\":\"i-" + stepRun + "\",\"stepRunId\":\"" + stepRun + "\"}");
      }
    }
    byte[] artifact = ("the artifact of " + project).getBytes(StandardCharsets.UTF_8);
    String digest = Sha256Digest.of(artifact).value();
    HttpRequest.Builder upload =
        app.http
            .builder("/v1/projects/" + project + "/artifacts/" + digest, app.token("alice"))
            .header("Content-Type", "application/octet-stream")
            .PUT(HttpRequest.BodyPublishers.ofByteArray(artifact));
    SEEDED.add(expectCreatedOrOk(app.http.send(upload)));
    JsonNode proposal =
        seed(
            "alice",
            "POST",
            project,
            "/plugin-packages/proposals",
            "{\"actionRef\":\"seed\",\"action\":{\"type\":\"install\",\"package\":\"pkg\","
                + "\"version\":\"1.0.0\",\"artifactDigest\":\""
                + digest
                + "\"}}");
    seed(
        "bob",
        "POST",
        project,
        "/plugin-packages/approvals/" + proposal.get("approvalId").asString() + "/decisions",
        "{\"decisionId\":\"seed\",\"decision\":\"approve\",\"actionDigest\":\""
            + proposal.get("actionDigest").asString()
            + "\"}");
  }

  /** What the seeding answered: the fuzz learns its ids. */
  static final List<JsonNode> SEEDED = new ArrayList<>();

  static JsonNode seed(String user, String method, String project, String path, String body) {
    Http.Response r =
        app.http.method(
            method, "/v1/projects/" + project + path, app.token(user), "application/json", body);
    SEEDED.add(expectCreatedOrOk(r));
    return r.json();
  }

  static JsonNode expectCreatedOrOk(Http.Response r) {
    assertThat(r.status()).as("seeding: %s", r.body()).isIn(200, 201);
    return r.json();
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  @Test
  void schemaValidRequestsGetOnlyDocumentedAnswersAndNever400() {
    Http.Response served = app.http.get("/v3/api-docs", null);
    assertThat(served.status()).isEqualTo(200);
    OpenApiResponses answers = OpenApiResponses.of(served.json());
    Random random = new Random(SEED);
    KnownValues known = new KnownValues();
    // The world's Projects (an admin's membership write on a drawn Project id would make another
    // one, where nobody else may act), and the one caller whose membership the run may rewrite:
    // a write on alice or bob would take away the permissions the run needs.
    known.fix("projectId", PROJECTS);
    known.fix("userId", List.of("carol"));
    known.add("modelId", "m1");
    // Webhooks: a target the rules accept without resolving anything (the schema cannot say which
    // hosts are public), and two endpoint ids, so that no Project reaches its cap of 10.
    known.always("url", List.of("https://93.184.215.14/fuzz-hook"));
    known.always("webhookId", List.of("fz-hook-1", "fz-hook-2"));
    SEEDED.forEach(known::learn);
    SchemaSampler sampler = new SchemaSampler(served.json(), random, known);
    RequestDrawer drawer = new RequestDrawer(sampler, random);
    List<Operation> operations = RequestDrawer.operations(served.json());
    assertThat(operations).as("operations of the served document").isNotEmpty();

    Findings findings = new Findings();
    Map<String, Set<Integer>> statuses = new TreeMap<>();
    for (int i = 0; i < REQUESTS; i++) {
      Operation op = operations.get(random.nextInt(operations.size()));
      List<String> failures = new ArrayList<>();
      Drawn request = drawer.draw(op, failures);
      if (request == null) {
        failures.forEach(f -> findings.add(op.key(), "generator: " + f, ""));
        continue;
      }
      String caller = CALLERS.get(random.nextInt(CALLERS.size()));
      Http.Response r = send(request, caller);
      statuses.computeIfAbsent(op.key(), k -> new TreeSet<>()).add(r.status());
      for (String f : answers.check(op.method(), op.path(), r.status(), r::header, r.body())) {
        findings.add(op.key(), "outside the document: " + f, request + " -> " + r.body());
      }
      if (r.status() == 400 || r.status() >= 500) {
        findings.add(
            op.key(),
            r.status()
                + " to a schema-valid request: "
                + (r.json() == null ? r.body() : r.json().path("detail").asString("")),
            request.values().toString());
      }
      if (r.status() / 100 == 2) {
        known.learn(r.json());
        drawer.answered(op, r.json());
      }
    }
    System.out.println("fuzz statuses by operation (seed " + SEED + "): " + statuses);
    assertThat(statuses.keySet())
        .as("operations exercised")
        .containsAll(operations.stream().map(Operation::key).toList());
    assertThat(findings.list()).as(findings.report(SEED)).isEmpty();
  }

  static Http.Response send(Drawn d, String caller) {
    HttpRequest.Builder b = app.http.builder(d.uri(), app.token(caller));
    d.headers().forEach(b::header);
    if (d.contentType() != null) {
      b.header("Content-Type", d.contentType());
    }
    return app.http.send(
        b.method(
            d.operation().method(),
            d.body() == null
                ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofByteArray(d.body())));
  }

  /** Findings by operation and kind, each with how often and its first request. */
  static final class Findings {
    private final Map<String, List<String>> byKind = new TreeMap<>();

    void add(String operation, String what, String example) {
      // One kind for every item of a list: /items/3/… is /items/*/….
      String kind = operation + " | " + what.replaceAll("/[0-9]+(?=[/ ])", "/*");
      byKind.computeIfAbsent(kind, k -> new ArrayList<>()).add(example);
    }

    List<String> list() {
      return List.copyOf(byKind.keySet());
    }

    String report(long seed) {
      StringBuilder out =
          new StringBuilder("findings of the fuzz run (seed " + seed + "; rerun with ")
              .append("-Dqinglong.fuzz.seed=")
              .append(seed)
              .append("):\n");
      byKind.forEach(
          (kind, examples) ->
              out.append("- ")
                  .append(kind)
                  .append(" (×")
                  .append(examples.size())
                  .append(")\n    e.g. ")
                  .append(examples.get(0))
                  .append('\n'));
      return out.toString();
    }
  }
}
