package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.artifacts.ArtifactPublisher;
import dev.qinglong.app.artifacts.UnreferencedArtifacts;
import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.gateway.artifacts.FileArtifactStore;
import java.io.ByteArrayInputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;

/**
 * The artifact routes and the publication worker over HTTP, run against each store: upload
 * (verified, capped, idempotent), publication by the worker, download with ETag, Range and HEAD,
 * authorization without an existence oracle, and the role restrictions.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ArtifactApiContract {
  static final int MAX_BYTES = 200_000;
  static final HttpClient CLIENT = HttpClient.newHttpClient();

  protected TestApp app;
  protected Http http;
  private final Random random = new Random(42);

  /** The download mode of the main app: standalone on SQLite, shared on PostgreSQL. */
  protected abstract String expectedMode();

  /** Starts an app of role {@code all} on the store under test. */
  protected abstract TestApp startApp(Map<String, String> properties);

  /**
   * Starts a second app on the same database and data directory with the given role; on SQLite (one
   * process per file) the main app is stopped first and started again after the test.
   */
  protected abstract TestApp startSibling(String role);

  @BeforeAll
  void start() {
    app = startApp(Map.of("qinglong.artifacts.max-bytes", Integer.toString(MAX_BYTES)));
    http = app.http;
  }

  @AfterAll
  void stop() {
    if (app != null) {
      app.close();
    }
  }

  // ---- helpers --------------------------------------------------------------------------------

  byte[] bytes(int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  static String path(String project, Sha256Digest d) {
    return "/v1/projects/" + project + "/artifacts/" + d.value();
  }

  static Response put(Http http, String path, String token, byte[] body) {
    return http.send(
        http.builder(path, token)
            .header("Content-Type", "application/octet-stream")
            .PUT(HttpRequest.BodyPublishers.ofByteArray(body)));
  }

  static HttpResponse<byte[]> getBytes(Http http, String path, String token, String... headers)
      throws Exception {
    HttpRequest.Builder b = http.builder(path, token).GET();
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  /** Uploads, proposes, approves and waits until the worker published it. */
  Sha256Digest publish(TestApp writer, TestApp worker, String ref, byte[] content)
      throws Exception {
    return publish(writer, ref, content);
  }

  /** Uploads, proposes, approves and waits until the app's own worker published it. */
  static Sha256Digest publish(TestApp writer, String ref, byte[] content) throws Exception {
    Sha256Digest d = Sha256Digest.of(content);
    Response up = put(writer.http, path("demo", d), writer.token("alice"), content);
    assertThat(up.status()).as(up.body()).isEqualTo(201);
    String proposalId = approve(writer, ref, d);
    awaitState(writer, proposalId, "published");
    return d;
  }

  static String approve(TestApp writer, String ref, Sha256Digest d) {
    Response p =
        writer.http.post(
            ApiContract.proposals("demo"),
            writer.token("alice"),
            "{\"actionRef\":\""
                + ref
                + "\",\"action\":{\"type\":\"install\",\"package\":\"pkg-"
                + ref
                + "\",\"version\":\"1.0.0\",\"artifactDigest\":\""
                + d.value()
                + "\"}}");
    assertThat(p.status()).as(p.body()).isEqualTo(201);
    Response decided =
        writer.http.post(
            ApiContract.decisions("demo", p.json().get("approvalId").asString()),
            writer.token("bob"),
            ApiContract.decisionJson(
                "dec-" + ref, "approve", p.json().get("actionDigest").asString()));
    assertThat(decided.status()).as(decided.body()).isEqualTo(200);
    return p.json().get("proposalId").asString();
  }

  static String state(TestApp app, String proposalId, String inspectionId) {
    Response r =
        app.http.post(
            ApiContract.inspections("demo", proposalId),
            app.token("alice"),
            "{\"inspectionId\":\"" + inspectionId + "\"}");
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    return r.json().get("proposal").get("state").asString();
  }

  static void awaitState(TestApp app, String proposalId, String expected) throws Exception {
    long deadline = System.nanoTime() + 20_000_000_000L;
    int i = 0;
    String state = null;
    while (System.nanoTime() < deadline) {
      state = state(app, proposalId, "wait-" + proposalId + "-" + i++);
      if (expected.equals(state)) {
        return;
      }
      Thread.sleep(250);
    }
    assertThat(state).isEqualTo(expected);
  }

  void grant(String project, String user, String... permissions) {
    app.grant(project, user, permissions);
  }

  // ---- upload ---------------------------------------------------------------------------------

  @Test
  void uploadIsVerifiedCappedAndIdempotent() {
    // Larger than the 64 KiB JSON cap of the shield, below the artifact cap.
    byte[] content = bytes(150_000);
    Sha256Digest d = Sha256Digest.of(content);
    Response first = put(http, path("demo", d), app.token("alice"), content);
    assertThat(first.status()).as(first.body()).isEqualTo(201);
    assertThat(first.json().get("digest").asString()).isEqualTo(d.value());
    assertThat(first.json().get("sizeBytes").asLong()).isEqualTo(150_000);
    assertThat(first.header("ETag")).contains("\"" + d.value() + "\"");
    assertThat(first.header("Location")).contains(path("demo", d) + "/upload");
    assertThat(first.header("RateLimit-Policy"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("\"artifact.upload\";q="));
    // A re-upload of stored content is verified again and answers the same 201.
    Response again = put(http, path("demo", d), app.token("alice"), content);
    assertThat(again.status()).isEqualTo(201);
    assertThat(again.comparableBody()).isEqualTo(first.comparableBody());
    assertThat(app.bean(FileArtifactStore.class).isPresent(d)).isTrue();

    // Bytes that do not hash to the path's digest: 400, nothing stored.
    byte[] other = bytes(1000);
    Sha256Digest wrong = Sha256Digest.of(bytes(10));
    ApiContract.assertProblem(
        put(http, path("demo", wrong), app.token("alice"), other), 400, "invalid_request");
    assertThat(app.bean(FileArtifactStore.class).isPresent(wrong)).isFalse();

    // Past the cap: 413 from Content-Length, and while streaming without one.
    byte[] big = bytes(MAX_BYTES + 1);
    Sha256Digest bigDigest = Sha256Digest.of(big);
    ApiContract.assertProblem(
        put(http, path("demo", bigDigest), app.token("alice"), big), 413, "payload_too_large");
    Response streamed =
        http.send(
            http.builder(path("demo", bigDigest), app.token("alice"))
                .header("Content-Type", "application/octet-stream")
                .PUT(
                    HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big))));
    ApiContract.assertProblem(streamed, 413, "payload_too_large");
    assertThat(app.bean(FileArtifactStore.class).isPresent(bigDigest)).isFalse();

    // Bad digest in the path.
    ApiContract.assertProblem(
        put(http, "/v1/projects/demo/artifacts/sha256:XYZ", app.token("alice"), other),
        400,
        "invalid_request");
  }

  @Test
  void uploadNeedsPackageManage() {
    byte[] content = bytes(100);
    Sha256Digest d = Sha256Digest.of(content);
    ApiContract.assertProblem(
        put(http, path("demo", d), app.token("bob"), content), 403, "forbidden");
    ApiContract.assertProblem(
        put(http, path("demo", d), app.token("carol"), content), 403, "forbidden");
    ApiContract.assertProblem(put(http, path("demo", d), null, content), 401, "unauthenticated");
    ApiContract.assertProblem(
        put(http, path("nowhere", d), app.token("alice"), content), 403, "forbidden");
    assertThat(app.bean(FileArtifactStore.class).isPresent(d)).isFalse();
  }

  @Test
  void uploadsConsumeTheQuotaOncePerDigestAndAFullWindowStoresNothing() {
    // Its own Project: the bucket is per (Project, user, artifact.upload); default limit 20.
    String project = "upload-quota";
    grant(project, "alice", "package.manage");
    grant(project, "bob", "package.manage");
    int limit = 20;
    byte[] first = null;
    for (int i = 0; i < limit; i++) {
      byte[] content = bytes(64);
      first = first == null ? content : first;
      Response r = put(http, path(project, Sha256Digest.of(content)), app.token("alice"), content);
      assertThat(r.status()).as(i + ": " + r.body()).isEqualTo(201);
    }
    // The same digest again (a retry after a lost answer) is not counted twice.
    assertThat(put(http, path(project, Sha256Digest.of(first)), app.token("alice"), first).status())
        .isEqualTo(201);

    byte[] extra = bytes(150_000);
    Sha256Digest extraDigest = Sha256Digest.of(extra);
    Response refused = put(http, path(project, extraDigest), app.token("alice"), extra);
    ApiContract.assertProblem(refused, 429, "quota_exceeded");
    assertThat(Long.parseLong(refused.header("Retry-After").orElseThrow())).isBetween(1L, 60L);
    assertThat(app.bean(FileArtifactStore.class).isPresent(extraDigest)).isFalse();

    // Another user's budget is their own.
    assertThat(put(http, path(project, extraDigest), app.token("bob"), extra).status())
        .isEqualTo(201);
  }

  @Test
  void cleanUpDeletesOnlyUnreferencedArtifactsPastTheGrace() throws Exception {
    FileArtifactStore store = app.bean(FileArtifactStore.class);
    byte[] orphan = bytes(300);
    byte[] named = bytes(301);
    Sha256Digest orphanDigest = Sha256Digest.of(orphan);
    Sha256Digest namedDigest = Sha256Digest.of(named);
    assertThat(put(http, path("demo", orphanDigest), app.token("alice"), orphan).status())
        .isEqualTo(201);
    assertThat(put(http, path("demo", namedDigest), app.token("alice"), named).status())
        .isEqualTo(201);
    // A pending proposal is enough to keep its artifact.
    Response p =
        http.post(
            ApiContract.proposals("demo"),
            app.token("alice"),
            "{\"actionRef\":\"cleanup-1\",\"action\":{\"type\":\"install\",\"package\":"
                + "\"pkg-cleanup\",\"version\":\"1.0.0\",\"artifactDigest\":\""
                + namedDigest.value()
                + "\"}}");
    assertThat(p.status()).as(p.body()).isEqualTo(201);
    FileTime twoDaysAgo = FileTime.from(Instant.now().minus(Duration.ofDays(2)));
    Files.setLastModifiedTime(store.pathOf(orphanDigest), twoDaysAgo);
    Files.setLastModifiedTime(store.pathOf(namedDigest), twoDaysAgo);

    // Default grace 24h: only the old orphan goes.
    assertThat(app.bean(UnreferencedArtifacts.class).sweep()).isEqualTo(1);
    assertThat(store.isPresent(orphanDigest)).isFalse();
    assertThat(store.isPresent(namedDigest)).isTrue();
  }

  // ---- worker and download ---------------------------------------------------------------------

  @Test
  void workerPublishesAndDownloadsServeOnlyPublishedArtifacts() throws Exception {
    byte[] content = bytes(100_000);
    Sha256Digest d = Sha256Digest.of(content);
    assertThat(put(http, path("demo", d), app.token("alice"), content).status()).isEqualTo(201);
    // Uploaded but not yet published: the same 409 as an unknown artifact.
    Response unpublished = http.get(path("demo", d), app.token("alice"));
    ApiContract.assertProblem(unpublished, 409, "conflict");

    String proposalId = approve(app, "dl-1", d);
    awaitState(app, proposalId, "published");

    HttpResponse<byte[]> full = getBytes(http, path("demo", d), app.token("alice"));
    assertThat(full.statusCode()).isEqualTo(200);
    assertThat(full.body()).isEqualTo(content);
    String etag = "\"" + d.value() + "\"";
    assertThat(full.headers().firstValue("ETag")).contains(etag);
    assertThat(full.headers().firstValue("Content-Length")).contains("100000");
    assertThat(full.headers().firstValue("Accept-Ranges")).contains("bytes");

    Response head =
        http.send(
            http.builder(path("demo", d), app.token("bob"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()));
    assertThat(head.status()).isEqualTo(200);
    assertThat(head.header("Content-Length")).contains("100000");
    assertThat(head.header("ETag")).contains(etag);
    assertThat(head.body()).isEmpty();

    HttpResponse<byte[]> part =
        getBytes(http, path("demo", d), app.token("alice"), "Range", "bytes=10-19");
    assertThat(part.statusCode()).isEqualTo(206);
    assertThat(part.body()).isEqualTo(java.util.Arrays.copyOfRange(content, 10, 20));
    assertThat(part.headers().firstValue("Content-Range")).contains("bytes 10-19/100000");
    assertThat(part.headers().firstValue("Content-Length")).contains("10");

    HttpResponse<byte[]> suffix =
        getBytes(http, path("demo", d), app.token("alice"), "Range", "bytes=-5");
    assertThat(suffix.statusCode()).isEqualTo(206);
    assertThat(suffix.body()).isEqualTo(java.util.Arrays.copyOfRange(content, 99_995, 100_000));

    HttpResponse<byte[]> open =
        getBytes(http, path("demo", d), app.token("alice"), "Range", "bytes=99990-");
    assertThat(open.statusCode()).isEqualTo(206);
    assertThat(open.body()).hasSize(10);

    // Several ranges or a malformed header: the whole artifact (documented choice).
    HttpResponse<byte[]> multi =
        getBytes(http, path("demo", d), app.token("alice"), "Range", "bytes=0-1,5-6");
    assertThat(multi.statusCode()).isEqualTo(200);
    assertThat(multi.body()).isEqualTo(content);
    HttpResponse<byte[]> junk =
        getBytes(http, path("demo", d), app.token("alice"), "Range", "bytes=x-y");
    assertThat(junk.statusCode()).isEqualTo(200);

    // One range outside the artifact: 416 with the length.
    HttpResponse<byte[]> outside =
        getBytes(http, path("demo", d), app.token("alice"), "Range", "bytes=100000-");
    assertThat(outside.statusCode()).isEqualTo(416);
    assertThat(outside.headers().firstValue("Content-Range")).contains("bytes */100000");

    // Conditional: a matching If-None-Match gives 304 without a body.
    HttpResponse<byte[]> notModified =
        getBytes(http, path("demo", d), app.token("alice"), "If-None-Match", etag);
    assertThat(notModified.statusCode()).isEqualTo(304);
    assertThat(notModified.body()).isEmpty();
    // If-Range with another validator: the whole artifact.
    HttpResponse<byte[]> ifRange =
        getBytes(
            http, path("demo", d), app.token("alice"), "Range", "bytes=0-9", "If-Range", "\"x\"");
    assertThat(ifRange.statusCode()).isEqualTo(200);

    // Bytes served are counted.
    Response metrics = app.management.get("/actuator/prometheus", null);
    assertThat(metrics.body()).contains("qinglong_downloads_bytes_total");
    assertThat(metrics.body()).contains("qinglong_worker_state{");
  }

  @Test
  void downloadsGiveNoExistenceOracle() throws Exception {
    byte[] content = bytes(3000);
    Sha256Digest d = publish(app, app, "oracle-1", content);
    // carol is a member of demo without permissions; nobody is a member of unknown-prj.
    ApiContract.assertProblem(http.get(path("demo", d), app.token("carol")), 403, "forbidden");
    ApiContract.assertProblem(
        http.get(path("unknown-prj", d), app.token("alice")), 403, "forbidden");
    ApiContract.assertProblem(http.get(path("demo", d), null), 401, "unauthenticated");

    // bob reads in demo and in oracle-other, where the artifact was never published.
    grant("oracle-other", "bob", "package.read");
    Response foreign = http.get(path("oracle-other", d), app.token("bob"));
    Response unknown = http.get(path("oracle-other", Sha256Digest.of(bytes(5))), app.token("bob"));
    Response unpublished = http.get(path("demo", Sha256Digest.of(bytes(6))), app.token("bob"));
    ApiContract.assertProblem(foreign, 409, "conflict");
    ApiContract.assertProblem(unknown, 409, "conflict");
    ApiContract.assertProblem(unpublished, 409, "conflict");
    assertThat(foreign.comparableBody())
        .isEqualTo(unknown.comparableBody())
        .isEqualTo(unpublished.comparableBody());
    // HEAD answers alike.
    Response headForeign =
        http.send(
            http.builder(path("oracle-other", d), app.token("bob"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()));
    assertThat(headForeign.status()).isEqualTo(409);
    // Only package.read opens downloads: package.manage alone is not enough.
    grant("manage-only", "alice", "package.manage");
    ApiContract.assertProblem(
        http.get(path("manage-only", d), app.token("alice")), 403, "forbidden");
  }

  @Test
  void workerLeavesMissingArtifactsApprovedAndIsIdempotent() throws Exception {
    Sha256Digest missing = Sha256Digest.of(bytes(77));
    String waiting = approve(app, "missing-1", missing);
    // Worker passes are observed through their effect, not waited for with a sleep: a pass that
    // publishes a proposal approved after "missing-1" has seen "missing-1" approved too. Two such
    // publications, one after the other, mean passes that examined it and left it approved.
    byte[] content = bytes(500);
    Sha256Digest d = publish(app, app, "idem-1", content);
    assertThat(d).isNotNull();
    assertThat(publish(app, app, "idem-2", bytes(501))).isNotNull();
    assertThat(state(app, waiting, "idem-w-1")).isEqualTo("approved");

    // A repeated pass publishes nothing again and leaves the published proposal as it was.
    ArtifactPublisher again =
        new ArtifactPublisher(
            app.bean(OpenedStore.Worker.class).publisher(),
            app.bean(FileArtifactStore.class),
            Clock.systemUTC());
    assertThat(again.publishOnce()).isZero();
    assertThat(again.publishOnce()).isZero();

    // Once the artifact arrives, the waiting proposal is published.
    // (The upload must carry the bytes whose digest was proposed.)
    byte[] late = bytes(77);
    Sha256Digest lateDigest = Sha256Digest.of(late);
    String lateProposal = approve(app, "late-1", lateDigest);
    assertThat(state(app, lateProposal, "late-w-0")).isEqualTo("approved");
    assertThat(put(http, path("demo", lateDigest), app.token("alice"), late).status())
        .isEqualTo(201);
    awaitState(app, lateProposal, "published");
  }

  @Test
  void readinessShowsRoleAndDownloads() {
    Response ready = app.management.get("/actuator/health/readiness", null);
    assertThat(ready.status()).isEqualTo(200);
    JsonNode gateway = ready.json().get("components").get("gateway");
    assertThat(gateway.get("status").asString()).isEqualTo("UP");
    assertThat(gateway.get("details").get("role").asString()).isEqualTo("all");
    JsonNode shared = gateway.get("details").get("sharedDownloads");
    assertThat(shared.get("mode").asString()).isEqualTo(expectedMode());
    assertThat(shared.get("serves").asBoolean()).isTrue();
    assertThat(gateway.get("details").get("worker").asString()).isIn("active", "standby");
  }

  // ---- roles ------------------------------------------------------------------------------------

  @Test
  void readerServesOnlyGetAndHeadAndWorkerServesNoApi() throws Exception {
    byte[] content = bytes(2048);
    Sha256Digest d = publish(app, app, "role-1", content);
    try (TestApp reader = startSibling("reader")) {
      for (String method : new String[] {"POST", "PUT", "DELETE", "PATCH", "OPTIONS"}) {
        Response r =
            reader.http.method(
                method,
                ApiContract.proposals("demo"),
                reader.token("alice"),
                "application/json",
                "{}");
        ApiContract.assertProblem(r, 405, "method_not_allowed");
        assertThat(r.header("Allow")).contains("GET, HEAD");
      }
      Response upload = put(reader.http, path("demo", d), reader.token("alice"), content);
      ApiContract.assertProblem(upload, 405, "method_not_allowed");
      // Even without a token: the method is refused before authentication.
      ApiContract.assertProblem(
          put(reader.http, path("demo", d), null, content), 405, "method_not_allowed");
      HttpResponse<byte[]> got = getBytes(reader.http, path("demo", d), reader.token("bob"));
      assertThat(got.statusCode()).isEqualTo(200);
      assertThat(got.body()).isEqualTo(content);
      Response members = reader.http.get("/v1/projects/demo/members", reader.token("alice"));
      assertThat(members.status()).isEqualTo(200);
      Response ready = reader.management.get("/actuator/health/readiness", null);
      assertThat(ready.status()).isEqualTo(200);
      JsonNode details = ready.json().get("components").get("gateway").get("details");
      assertThat(details.get("role").asString()).isEqualTo("reader");
      assertThat(details.get("worker").asString()).isEqualTo("stopped");
    }
    try (TestApp worker = startSibling("worker")) {
      ApiContract.assertProblem(
          worker.http.get(path("demo", d), worker.token("alice")), 404, "not_found");
      ApiContract.assertProblem(
          worker.http.post(ApiContract.proposals("demo"), worker.token("alice"), "{}"),
          404,
          "not_found");
      Response ready = worker.management.get("/actuator/health/readiness", null);
      assertThat(ready.status()).isEqualTo(200);
      assertThat(
              ready.json().get("components").get("gateway").get("details").get("role").asString())
          .isEqualTo("worker");
    }
    try (TestApp writer = startSibling("writer")) {
      Response get = writer.http.get(path("demo", d), writer.token("alice"));
      ApiContract.assertProblem(get, 405, "method_not_allowed");
      assertThat(get.header("Allow")).contains("PUT");
      assertThat(put(writer.http, path("demo", d), writer.token("alice"), content).status())
          .isEqualTo(201);
    }
  }

  static Map<String, String> role(Map<String, String> base, String role) {
    Map<String, String> all = new HashMap<>(base);
    all.put("qinglong.role", role);
    return all;
  }
}
