package dev.qinglong.app;

import static dev.qinglong.app.ApiContract.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.artifacts.ArtifactPublisher;
import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.StoreInspector;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.gateway.artifacts.FileArtifactStore;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;

/**
 * Bound ids and per-Project artifacts over HTTP, run against each store: idempotency ids are bound
 * to their caller (another user's actionRef is 409 {@code idempotency_key_reused}, never that
 * user's proposal), artifacts are per Project (an upload into Q publishes and serves nothing in P),
 * and every {@code Location} of a 201 resolves (step run, model invocation, artifact upload).
 *
 * <p>Publication runs one worker pass in-process ({@link ArtifactPublisher#publishOnce}), so
 * nothing here waits on the background worker or a clock.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class BoundIdsAndProjectArtifactsApiContract {
  protected TestApp app;
  protected StoreInspector store;
  protected Http http;

  protected abstract TestApp startApp(Map<String, String> properties);

  protected abstract StoreInspector inspector(TestApp app);

  @BeforeAll
  void startApp() {
    app = startApp(Map.of("qinglong.ai.enabled", "true"));
    store = inspector(app);
    http = app.http;
  }

  @AfterAll
  void stopApp() {
    if (app != null) {
      app.close();
    }
  }

  private static String fresh(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  private String token(String user) {
    return app.token(user);
  }

  private void grant(String project, String user, String... permissions) {
    app.grant(project, user, permissions);
  }

  /** The same problem document but for its per-response {@code instance}. */
  private static void assertSameProblem(Response a, Response b) {
    assertThat(a.status()).isEqualTo(b.status());
    JsonNode left = a.json().deepCopy();
    JsonNode right = b.json().deepCopy();
    ((tools.jackson.databind.node.ObjectNode) left).remove("instance");
    ((tools.jackson.databind.node.ObjectNode) right).remove("instance");
    assertThat(left).isEqualTo(right);
  }

  private static String installJson(String ref, Sha256Digest d) {
    return "{\"actionRef\":\""
        + ref
        + "\",\"action\":{\"type\":\"install\",\"package\":\"pkg\",\"version\":\"1.0.0\","
        + "\"artifactDigest\":\""
        + d.value()
        + "\"}}";
  }

  private Response upload(String project, String user, byte[] content) {
    return ArtifactApiContract.put(
        http, ArtifactApiContract.path(project, Sha256Digest.of(content)), token(user), content);
  }

  /** Proposes (alice) and approves (bob) an install of {@code d} in the Project. */
  private JsonNode approvedInstall(String project, Sha256Digest d) {
    Response p =
        http.post(ApiContract.proposals(project), token("alice"), installJson(fresh("ref"), d));
    assertThat(p.status()).as(p.body()).isEqualTo(201);
    Response decided =
        http.post(
            ApiContract.decisions(project, p.json().get("approvalId").asString()),
            token("bob"),
            ApiContract.decisionJson(
                fresh("dec"), "approve", p.json().get("actionDigest").asString()));
    assertThat(decided.status()).as(decided.body()).isEqualTo(200);
    return p.json();
  }

  private void publishOnce() {
    new ArtifactPublisher(
            app.bean(OpenedStore.Worker.class).publisher(),
            app.bean(FileArtifactStore.class),
            Clock.systemUTC())
        .publishOnce();
  }

  private String proposalState(String project, String proposalId) {
    Response r = http.get(ApiContract.proposals(project) + "/" + proposalId, token("alice"));
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    return r.json().get("state").asString();
  }

  // ---- idempotency ids are bound to their caller ----------------------------------------------

  @Test
  void anotherUsersActionRefIsAReusedKeyAndNeverTheirProposal() {
    String project = fresh("prj");
    grant(project, "alice", "package.manage");
    grant(project, "bob", "package.manage");
    String ref = fresh("ref");
    String body = installJson(ref, Sha256Digest.of(ref.getBytes(StandardCharsets.UTF_8)));
    Response mine = http.post(ApiContract.proposals(project), token("alice"), body);
    assertThat(mine.status()).as(mine.body()).isEqualTo(201);
    String proposalId = mine.json().get("proposalId").asString();
    String approvalId = mine.json().get("approvalId").asString();

    Response theirs = http.post(ApiContract.proposals(project), token("bob"), body);

    assertProblem(theirs, 409, "idempotency_key_reused");
    assertThat(theirs.body()).doesNotContain(proposalId, approvalId, "alice");
    // Alice's proposal is unchanged, and her own replay still replays it.
    Response replay = http.post(ApiContract.proposals(project), token("alice"), body);
    assertThat(replay.status()).as(replay.body()).isEqualTo(200);
    assertThat(replay.json()).isEqualTo(mine.json());
    Response read = http.get(ApiContract.proposals(project) + "/" + proposalId, token("alice"));
    assertThat(read.json().get("proposedBy").asString()).isEqualTo("alice");
    assertThat(read.json().get("state").asString()).isEqualTo("pending");
  }

  // ---- artifacts per Project ------------------------------------------------------------------

  @Test
  void anArtifactUploadedInAnotherProjectIsNeitherPublishedNorServed() throws Exception {
    String p = fresh("prj");
    String q = fresh("prj");
    for (String project : new String[] {p, q}) {
      grant(project, "alice", "package.manage", "package.read");
      grant(project, "bob", "approval.decide");
    }
    byte[] content = ("uploaded only in " + q).getBytes(StandardCharsets.UTF_8);
    Sha256Digest d = Sha256Digest.of(content);
    Response up = upload(q, "alice", content);
    assertThat(up.status()).as(up.body()).isEqualTo(201);

    // P approves an install of the digest it never uploaded; Q approves its own upload.
    String inP = approvedInstall(p, d).get("proposalId").asString();
    String inQ = approvedInstall(q, d).get("proposalId").asString();
    publishOnce();

    assertThat(proposalState(q, inQ)).isEqualTo("published");
    assertThat(ArtifactApiContract.getBytes(http, ArtifactApiContract.path(q, d), token("alice")))
        .satisfies(r -> assertThat(r.body()).isEqualTo(content));
    assertThat(proposalState(p, inP)).isEqualTo("approved");
    Response inPDownload = http.get(ArtifactApiContract.path(p, d), token("alice"));
    Sha256Digest unknown = Sha256Digest.of(fresh("never").getBytes(StandardCharsets.UTF_8));
    Response unknownDownload = http.get(ArtifactApiContract.path(p, unknown), token("alice"));
    assertProblem(inPDownload, 409, "conflict");
    assertProblem(unknownDownload, 409, "conflict");
    assertSameProblem(inPDownload, unknownDownload);
    // The upload's state in P: the same answer as for a digest nobody uploaded.
    Response stateInP = http.get(ArtifactApiContract.path(p, d) + "/upload", token("alice"));
    Response stateUnknown =
        http.get(ArtifactApiContract.path(p, unknown) + "/upload", token("alice"));
    assertProblem(stateInP, 409, "conflict");
    assertProblem(stateUnknown, 409, "conflict");
    assertSameProblem(stateInP, stateUnknown);

    // Once P uploads the bytes too, its approved proposal is published and P serves them.
    assertThat(upload(p, "alice", content).status()).isEqualTo(201);
    publishOnce();
    assertThat(proposalState(p, inP)).isEqualTo("published");
    assertThat(
            ArtifactApiContract.getBytes(http, ArtifactApiContract.path(p, d), token("alice"))
                .statusCode())
        .isEqualTo(200);
  }

  @Test
  void anUploadsLocationAnswersWithItsStateBeforeAndAfterPublication() {
    String project = fresh("prj");
    grant(project, "alice", "package.manage", "package.read");
    grant(project, "bob", "approval.decide");
    byte[] content = ("located " + project).getBytes(StandardCharsets.UTF_8);
    Sha256Digest d = Sha256Digest.of(content);
    Response up = upload(project, "alice", content);
    assertThat(up.status()).as(up.body()).isEqualTo(201);
    String location = up.header("Location").orElseThrow();
    assertThat(location).isEqualTo(ArtifactApiContract.path(project, d) + "/upload");

    Response before = http.get(location, token("alice"));
    assertThat(before.status()).as(before.body()).isEqualTo(200);
    assertThat(before.json().get("projectId").asString()).isEqualTo(project);
    assertThat(before.json().get("digest").asString()).isEqualTo(d.value());
    assertThat(before.json().get("sizeBytes").asLong()).isEqualTo(content.length);
    assertThat(before.json().get("published").asBoolean()).isFalse();

    approvedInstall(project, d);
    publishOnce();
    Response after = http.get(location, token("alice"));
    assertThat(after.status()).as(after.body()).isEqualTo(200);
    assertThat(after.json().get("published").asBoolean()).isTrue();
    // Same permission as the upload: a reader of the Project may not see it.
    assertProblem(http.get(location, token("bob")), 403, "forbidden");
  }

  // ---- step run and invocation Locations --------------------------------------------------------

  @Test
  void theLocationsOfAStepRunAndAnInvocationResolveToTheirCreationViews() {
    String project = fresh("prj");
    String other = fresh("prj");
    grant(project, "alice", "model.invoke");
    grant(other, "alice", "model.invoke");
    Response policy =
        http.put(
            "/v1/projects/" + project + "/model-policies/m1",
            token("admin"),
            "{\"maxTotalTokens\":100,\"maxCostMicros\":null}");
    assertThat(policy.status()).as(policy.body()).isEqualTo(200);
    String step = fresh("s");
    Response created =
        http.post(
            "/v1/projects/" + project + "/step-runs",
            token("alice"),
            "{\"stepRunId\":\"" + step + "\",\"runId\":\"r1\",\"modelId\":\"m1\"}");
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    String stepLocation = created.header("Location").orElseThrow();
    Response stepRead = http.get(stepLocation, token("alice"));
    assertThat(stepRead.status()).as(stepRead.body()).isEqualTo(200);
    assertThat(stepRead.json()).isEqualTo(created.json());

    String inv = fresh("inv");
    Response admitted =
        http.post(
            "/v1/projects/" + project + "/model-invocations",
            token("alice"),
            "{\"invocationId\":\"" + inv + "\",\"stepRunId\":\"" + step + "\"}");
    assertThat(admitted.status()).as(admitted.body()).isEqualTo(201);
    String invLocation = admitted.header("Location").orElseThrow();
    Response invRead = http.get(invLocation, token("alice"));
    assertThat(invRead.status()).as(invRead.body()).isEqualTo(200);
    assertThat(invRead.json()).isEqualTo(admitted.json());
    assertThat(http.get(stepLocation, token("alice")).json().get("state").asString())
        .isEqualTo("running");

    // Another Project's objects and unknown ones: the same 409, same body.
    Response foreignStep = http.get("/v1/projects/" + other + "/step-runs/" + step, token("alice"));
    Response unknownStep =
        http.get("/v1/projects/" + other + "/step-runs/" + fresh("s"), token("alice"));
    Response foreignInv =
        http.get("/v1/projects/" + other + "/model-invocations/" + inv, token("alice"));
    Response unknownInv =
        http.get("/v1/projects/" + other + "/model-invocations/" + fresh("inv"), token("alice"));
    for (Response r : new Response[] {foreignStep, unknownStep, foreignInv, unknownInv}) {
      assertProblem(r, 409, "conflict");
    }
    assertSameProblem(foreignStep, unknownStep);
    assertSameProblem(foreignInv, unknownInv);
    // Same permission as their creation.
    assertProblem(http.get(stepLocation, token("bob")), 403, "forbidden");
    assertProblem(http.get(invLocation, token("bob")), 403, "forbidden");
  }
}
