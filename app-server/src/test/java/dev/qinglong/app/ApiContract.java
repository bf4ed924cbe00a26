package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.StoreInspector;
import dev.qinglong.app.support.TestApp;
import java.net.http.HttpRequest;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

/**
 * The HTTP contract of the management API (docs/api.md), run against each store: every status code,
 * replays, four eyes, no existence oracle, the authorization matrix and the bad-input table.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ApiContract {
  static final String DIGEST = "sha256:" + "ab".repeat(32);
  static final String OTHER_DIGEST = "sha256:" + "cd".repeat(32);

  protected TestApp app;
  protected StoreInspector store;
  protected Http http;

  /** Starts the app on the store under test with {@code properties} added. */
  protected abstract TestApp startApp(Map<String, String> properties);

  protected abstract StoreInspector inspector(TestApp app);

  @BeforeAll
  void startApp() {
    app =
        startApp(
            Map.of(
                "qinglong.management-quota.limits.propose", "20",
                "qinglong.management-quota.limits.decide", "20",
                "qinglong.management-quota.limits.inspect", "20"));
    store = inspector(app);
    http = app.http;
  }

  @AfterAll
  void stopApp() {
    if (app != null) {
      app.close();
    }
  }

  // ---- helpers --------------------------------------------------------------------------------

  static String installJson(String ref, String pkg) {
    return "{\"actionRef\":\""
        + ref
        + "\",\"action\":{\"type\":\"install\",\"package\":\""
        + pkg
        + "\",\"version\":\"1.2.3\",\"artifactDigest\":\""
        + DIGEST
        + "\"}}";
  }

  static String proposals(String project) {
    return "/v1/projects/" + project + "/plugin-packages/proposals";
  }

  static String decisions(String project, String approvalId) {
    return "/v1/projects/" + project + "/plugin-packages/approvals/" + approvalId + "/decisions";
  }

  static String inspections(String project, String proposalId) {
    return "/v1/projects/" + project + "/plugin-packages/proposals/" + proposalId + "/inspections";
  }

  static String decisionJson(String id, String decision, String digest) {
    return "{\"decisionId\":\""
        + id
        + "\",\"decision\":\""
        + decision
        + "\",\"actionDigest\":\""
        + digest
        + "\"}";
  }

  String token(String user) {
    return app.token(user);
  }

  void grant(String project, String user, String... permissions) {
    app.grant(project, user, permissions);
  }

  JsonNode propose(String user, String project, String ref) {
    Response r = http.post(proposals(project), token(user), installJson(ref, "pkg-" + ref));
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    return r.json();
  }

  static void assertProblem(Response r, int status, String code) {
    assertThat(r.status()).as(r.body()).isEqualTo(status);
    assertThat(r.contentType()).startsWith("application/problem+json");
    assertThat(r.json().get("status").asInt()).isEqualTo(status);
    assertThat(r.json().get("type").asString()).isNotBlank();
    assertThat(r.json().get("title").asString()).isNotBlank();
    assertThat(r.json().get("detail").asString()).isNotBlank();
    assertThat(r.code()).isEqualTo(code);
    assertThat(r.body()).doesNotContain("Exception", "SQL", "at dev.", "at org.", "select ");
  }

  // ---- propose / decide / inspect ---------------------------------------------------------------

  @Test
  void proposeCreatesThenExactReplayReturns200AndAnotherActionIs409() {
    Response created = http.post(proposals("demo"), token("alice"), installJson("c-1", "left-pad"));
    assertThat(created.status()).isEqualTo(201);
    assertThat(created.contentType()).startsWith("application/json");
    JsonNode p = created.json();
    assertThat(p.get("projectId").asString()).isEqualTo("demo");
    assertThat(p.get("actionRef").asString()).isEqualTo("c-1");
    assertThat(p.get("proposedBy").asString()).isEqualTo("alice");
    assertThat(p.get("state").asString()).isEqualTo("pending");
    assertThat(p.get("actionDigest").asString()).matches("sha256:[0-9a-f]{64}");
    assertThat(p.get("action").get("type").asString()).isEqualTo("install");
    assertThat(p.get("action").get("package").asString()).isEqualTo("left-pad");
    assertThat(p.get("action").get("version").asString()).isEqualTo("1.2.3");
    assertThat(p.get("action").get("artifactDigest").asString()).isEqualTo(DIGEST);
    assertThat(p.get("proposalId").asString()).isNotBlank();
    assertThat(p.get("approvalId").asString()).isNotBlank();
    assertThat(p.get("createdAtMs").asLong()).isPositive();
    assertThat(p.get("updatedAtMs").asLong()).isPositive();

    Response replay = http.post(proposals("demo"), token("alice"), installJson("c-1", "left-pad"));
    assertThat(replay.status()).isEqualTo(200);
    assertThat(replay.json()).isEqualTo(p);

    String before = store.snapshot();
    Response other = http.post(proposals("demo"), token("alice"), installJson("c-1", "right-pad"));
    assertProblem(other, 409, "idempotency_key_reused");
    assertThat(other.comparableBody()).doesNotContain("left-pad", p.get("proposalId").asString());
    assertThat(store.snapshot()).isEqualTo(before);
  }

  // ---- idempotency ids name one request (409 idempotency_key_reused)
  // -----------------------------

  @Test
  void inspectionIdSpentOnOneProposalCannotReadAnotherAndIsNotCounted() {
    grant("idem-i", "alice", "package.manage");
    grant("idem-i", "bob", "approval.decide");
    String a = propose("alice", "idem-i", "ia-1").get("proposalId").asString();
    String b = propose("alice", "idem-i", "ib-1").get("proposalId").asString();
    Response first = http.post(inspections("idem-i", a), token("bob"), "{\"inspectionId\":\"x\"}");
    assertThat(first.status()).as(first.body()).isEqualTo(200);
    assertThat(store.consumed("idem-i", "bob", "plugin-package.inspect")).isEqualTo(1);

    String before = store.snapshot();
    Response reused = http.post(inspections("idem-i", b), token("bob"), "{\"inspectionId\":\"x\"}");
    assertProblem(reused, 409, "idempotency_key_reused");
    assertThat(reused.comparableBody()).doesNotContain(b, "ib-1", "pkg-ib-1");
    assertThat(store.snapshot()).isEqualTo(before);
    assertThat(store.consumed("idem-i", "bob", "plugin-package.inspect")).isEqualTo(1);

    // The same read replays; a new id reads B and is counted.
    Response replay = http.post(inspections("idem-i", a), token("bob"), "{\"inspectionId\":\"x\"}");
    assertThat(replay.status()).isEqualTo(200);
    assertThat(replay.json()).isEqualTo(first.json());
    Response fresh = http.post(inspections("idem-i", b), token("bob"), "{\"inspectionId\":\"y\"}");
    assertThat(fresh.status()).isEqualTo(200);
    assertThat(store.consumed("idem-i", "bob", "plugin-package.inspect")).isEqualTo(2);

    assertThat(app.management.get("/actuator/prometheus", null).body())
        .containsPattern(
            "qinglong_quota_decisions_total\\{[^}]*operation=\"plugin-package.inspect\",outcome=\"key_reused\"\\} [1-9]");
  }

  @Test
  void decisionIdReusedOnAnotherApprovalOrForAnotherDecisionIs409KeyReused() {
    grant("idem-d", "alice", "package.manage");
    grant("idem-d", "bob", "approval.decide");
    JsonNode a = propose("alice", "idem-d", "da-1");
    JsonNode b = propose("alice", "idem-d", "db-1");
    String digestA = a.get("actionDigest").asString();
    String digestB = b.get("actionDigest").asString();
    Response approved =
        http.post(
            decisions("idem-d", a.get("approvalId").asString()),
            token("bob"),
            decisionJson("dx", "approve", digestA));
    assertThat(approved.status()).as(approved.body()).isEqualTo(200);

    String before = store.snapshot();
    assertProblem(
        http.post(
            decisions("idem-d", b.get("approvalId").asString()),
            token("bob"),
            decisionJson("dx", "approve", digestB)),
        409,
        "idempotency_key_reused");
    assertProblem(
        http.post(
            decisions("idem-d", a.get("approvalId").asString()),
            token("bob"),
            decisionJson("dx", "reject", digestA)),
        409,
        "idempotency_key_reused");
    assertThat(store.snapshot()).isEqualTo(before);
    assertThat(store.consumed("idem-d", "bob", "plugin-package.decide")).isEqualTo(1);

    // The exact replay still answers 200 with the stored approval.
    Response replay =
        http.post(
            decisions("idem-d", a.get("approvalId").asString()),
            token("bob"),
            decisionJson("dx", "approve", digestA));
    assertThat(replay.status()).isEqualTo(200);
    assertThat(replay.json()).isEqualTo(approved.json());
    Response inspectB =
        http.post(
            inspections("idem-d", b.get("proposalId").asString()),
            token("bob"),
            "{\"inspectionId\":\"ins-db-1\"}");
    assertThat(inspectB.json().get("approval").get("state").asString()).isEqualTo("pending");
  }

  @Test
  void approveReplayThenSecondDecisionIs409AndInspectShowsBoth() {
    JsonNode p = propose("alice", "demo", "d-1");
    String approvalId = p.get("approvalId").asString();
    String digest = p.get("actionDigest").asString();

    Response approve =
        http.post(
            decisions("demo", approvalId), token("bob"), decisionJson("dec-1", "approve", digest));
    assertThat(approve.status()).as(approve.body()).isEqualTo(200);
    assertThat(approve.json().get("state").asString()).isEqualTo("approved");
    assertThat(approve.json().get("decision").asString()).isEqualTo("approve");
    assertThat(approve.json().get("decidedBy").asString()).isEqualTo("bob");
    assertThat(approve.json().get("approvalId").asString()).isEqualTo(approvalId);

    Response replay =
        http.post(
            decisions("demo", approvalId), token("bob"), decisionJson("dec-1", "approve", digest));
    assertThat(replay.status()).isEqualTo(200);
    assertThat(replay.json()).isEqualTo(approve.json());

    String before = store.snapshot();
    Response second =
        http.post(
            decisions("demo", approvalId), token("bob"), decisionJson("dec-2", "reject", digest));
    assertProblem(second, 409, "conflict");
    String afterSecond = store.snapshot();
    // Only the decide bucket may have counted the new decisionId; governance rows are unchanged.
    assertThat(governanceRows(afterSecond)).isEqualTo(governanceRows(before));

    Response inspect =
        http.post(
            inspections("demo", p.get("proposalId").asString()),
            token("alice"),
            "{\"inspectionId\":\"ins-d-1\"}");
    assertThat(inspect.status()).isEqualTo(200);
    assertThat(inspect.json().get("proposal").get("state").asString()).isEqualTo("approved");
    assertThat(inspect.json().get("approval").get("decisionId").asString()).isEqualTo("dec-1");
    assertThat(inspect.json().get("proposal").get("proposalId").asString())
        .isEqualTo(p.get("proposalId").asString());
  }

  static String approvalPolicy(String project) {
    return "/v1/projects/" + project + "/plugin-packages/approval-policy";
  }

  JsonNode decide(String user, JsonNode proposal, String decisionId, String decision) {
    Response r =
        http.post(
            decisions(proposal.get("projectId").asString(), proposal.get("approvalId").asString()),
            token(user),
            decisionJson(decisionId, decision, proposal.get("actionDigest").asString()));
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    return r.json();
  }

  @Test
  void twoOfThreeApprovalsBindTheNumberInForceWhenProposed() {
    grant("n-of-m", "alice", "package.manage");
    grant("n-of-m", "bob", "approval.decide");
    grant("n-of-m", "carol", "approval.decide");
    Response defaults = http.get(approvalPolicy("n-of-m"), token("bob"));
    assertThat(defaults.status()).as(defaults.body()).isEqualTo(200);
    assertThat(defaults.json().get("requiredApprovals").asInt()).isEqualTo(1);
    assertThat(defaults.json().get("revision").asLong()).isZero();

    Response set = http.put(approvalPolicy("n-of-m"), token("admin"), "{\"requiredApprovals\":2}");
    assertThat(set.status()).as(set.body()).isEqualTo(200);
    assertThat(set.json().get("requiredApprovals").asInt()).isEqualTo(2);
    assertThat(set.json().get("revision").asLong()).isEqualTo(1);
    assertThat(set.json().get("setBy").asString()).isEqualTo("admin");
    JsonNode p = propose("alice", "n-of-m", "nm-1");

    JsonNode first = decide("bob", p, "nm-dec-b", "approve");
    assertThat(first.get("state").asString()).isEqualTo("pending");
    assertThat(first.get("requiredApprovals").asInt()).isEqualTo(2);
    assertThat(first.get("decisions")).hasSize(1);
    assertThat(first.get("decisions").get(0).get("decidedBy").asString()).isEqualTo("bob");
    assertThat(first.get("decisionId").isNull()).isTrue();
    // An exact replay answers the approval as it is; a second decision of the same approver is 409.
    assertThat(decide("bob", p, "nm-dec-b", "approve")).isEqualTo(first);
    Response again =
        http.post(
            decisions("n-of-m", p.get("approvalId").asString()),
            token("bob"),
            decisionJson("nm-dec-b2", "approve", p.get("actionDigest").asString()));
    assertProblem(again, 409, "conflict");
    Response proposer =
        http.post(
            decisions("n-of-m", p.get("approvalId").asString()),
            token("alice"),
            decisionJson("nm-dec-a", "approve", p.get("actionDigest").asString()));
    assertProblem(proposer, 403, "forbidden");

    // Lowering the policy does not lower what the pending proposal needs.
    http.put(approvalPolicy("n-of-m"), token("admin"), "{\"requiredApprovals\":1}");
    Response pending =
        http.get(
            "/v1/projects/n-of-m/plugin-packages/approvals/" + p.get("approvalId").asString(),
            token("bob"));
    assertThat(pending.json().get("state").asString()).isEqualTo("pending");
    assertThat(pending.json().get("requiredApprovals").asInt()).isEqualTo(2);

    JsonNode second = decide("carol", p, "nm-dec-c", "approve");
    assertThat(second.get("state").asString()).isEqualTo("approved");
    assertThat(second.get("decisionId").asString()).isEqualTo("nm-dec-c");
    assertThat(second.get("decidedBy").asString()).isEqualTo("carol");
    assertThat(second.get("decisions")).hasSize(2);
    Response late =
        http.post(
            decisions("n-of-m", p.get("approvalId").asString()),
            token("bob"),
            decisionJson("nm-dec-b3", "reject", p.get("actionDigest").asString()));
    assertProblem(late, 409, "conflict");
    Response proposal =
        http.get(
            "/v1/projects/n-of-m/plugin-packages/proposals/" + p.get("proposalId").asString(),
            token("bob"));
    assertThat(proposal.json().get("state").asString()).isEqualTo("approved");
  }

  @Test
  void oneRejectEndsAnApprovalThatNeedsThree() {
    grant("n-of-m-r", "alice", "package.manage");
    grant("n-of-m-r", "bob", "approval.decide");
    grant("n-of-m-r", "carol", "approval.decide");
    Response set =
        http.put(approvalPolicy("n-of-m-r"), token("admin"), "{\"requiredApprovals\":3}");
    assertThat(set.status()).as(set.body()).isEqualTo(200);
    JsonNode p = propose("alice", "n-of-m-r", "nmr-1");
    assertThat(decide("bob", p, "nmr-dec-b", "approve").get("state").asString())
        .isEqualTo("pending");
    JsonNode rejected = decide("carol", p, "nmr-dec-c", "reject");
    assertThat(rejected.get("state").asString()).isEqualTo("rejected");
    assertThat(rejected.get("decision").asString()).isEqualTo("reject");
    assertThat(rejected.get("decisions")).hasSize(2);
  }

  @Test
  void approvalPolicyBadInputIs400AndOnlyAProjectAdminSetsIt() {
    grant("n-of-m-bad", "bob", "approval.decide");
    String before = store.snapshot();
    for (String body :
        new String[] {
          "{\"requiredApprovals\":0}",
          "{\"requiredApprovals\":6}",
          "{\"requiredApprovals\":1.5}",
          "{\"requiredApprovals\":\"2\"}",
          "{\"requiredApprovals\":null}",
          "{}",
          "{\"requiredApprovals\":2,\"extra\":1}",
          "[2]"
        }) {
      assertProblem(
          http.put(approvalPolicy("n-of-m-bad"), token("admin"), body), 400, "invalid_request");
    }
    assertProblem(
        http.put(approvalPolicy("n-of-m-bad"), token("bob"), "{\"requiredApprovals\":2}"),
        403,
        "forbidden");
    assertProblem(http.get(approvalPolicy("n-of-m-bad"), token("carol")), 403, "forbidden");
    assertThat(store.snapshot()).isEqualTo(before);
  }

  // ---- management-quota limits as data --------------------------------------------------------

  static String quotaPolicy(String project) {
    return "/v1/projects/" + project + "/management-quota/policy";
  }

  static String quotaUser(String project, String user) {
    return "/v1/projects/" + project + "/management-quota/users/" + user;
  }

  /** A PUT of limits as the global admin; it answers once the revision is in force everywhere. */
  JsonNode putLimits(String path, String body) {
    Response r = http.put(path, token("admin"), body);
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    assertThat(r.contentType()).startsWith("application/json");
    return r.json();
  }

  /**
   * {@code user}'s quota of {@code operation} in {@code project}, as GET …/management-quota has it.
   */
  JsonNode quotaOf(String user, String project, String operation) {
    Response r = http.get("/v1/projects/" + project + "/management-quota", token(user));
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    for (JsonNode op : r.json().get("operations")) {
      if (op.get("operation").asString().equals(operation)) {
        return op;
      }
    }
    throw new AssertionError("no " + operation + " in " + r.body());
  }

  static void assertQuota(JsonNode op, int limit, String source, Integer shadowLimit) {
    assertThat(op.get("limit").asInt()).as(op.toString()).isEqualTo(limit);
    assertThat(op.get("limitSource").asString()).as(op.toString()).isEqualTo(source);
    if (shadowLimit == null) {
      assertThat(op.get("shadowLimit").isNull()).as(op.toString()).isTrue();
    } else {
      assertThat(op.get("shadowLimit").asInt()).as(op.toString()).isEqualTo(shadowLimit);
    }
  }

  /** The answer's propose rate-limit fields: quota {@code q}, what is left {@code r}. */
  static void assertProposeRateLimit(Response r, int q, int left) {
    assertThat(r.header("RateLimit-Policy").orElseThrow(() -> new AssertionError(r.body())))
        .isEqualTo("\"plugin-package.propose\";q=" + q + ";w=60;qu=\"requests\"");
    assertThat(r.header("RateLimit").orElseThrow())
        .startsWith("\"plugin-package.propose\";r=" + left + ";t=");
  }

  Response proposeAs(String user, String project, String ref) {
    return http.post(proposals(project), token(user), installJson(ref, "pkg-" + ref));
  }

  @Test
  void userOverrideThenProjectPolicyThenDefaultDecideTheLimitPerOperation() {
    String p = "limits-precedence";
    grant(p, "alice", "package.manage");
    grant(p, "bob", "package.manage");
    assertQuota(quotaOf("alice", p, "plugin-package.propose"), 20, "default", null);

    JsonNode project = putLimits(quotaPolicy(p), "{\"limits\":{\"plugin-package.propose\":3}}");
    assertThat(project.get("projectId").asString()).isEqualTo(p);
    assertThat(project.get("userId").isNull()).isTrue();
    assertThat(project.get("revision").asLong()).isEqualTo(1);
    assertThat(project.get("limits").toString()).isEqualTo("{\"plugin-package.propose\":3}");
    assertThat(project.get("shadowLimits").toString()).isEqualTo("{}");
    assertThat(project.get("setBy").asString()).isEqualTo("admin");
    assertThat(project.get("setAtMs").asLong()).isPositive();
    assertThat(project.get("setAt").asString()).isNotBlank();
    JsonNode alice =
        putLimits(quotaUser(p, "alice"), "{\"limits\":{\"plugin-package.propose\":2}}");
    assertThat(alice.get("userId").asString()).isEqualTo("alice");
    assertThat(alice.get("revision").asLong()).isEqualTo(1);
    assertThat(alice.get("limits").toString()).isEqualTo("{\"plugin-package.propose\":2}");

    // Per operation: alice's own propose limit, bob's the Project's, decide the default.
    assertQuota(quotaOf("alice", p, "plugin-package.propose"), 2, "user", null);
    assertQuota(quotaOf("bob", p, "plugin-package.propose"), 3, "project", null);
    assertQuota(quotaOf("alice", p, "plugin-package.decide"), 20, "default", null);

    // The 429 comes exactly at each caller's effective limit; the fields say which limit.
    assertProposeRateLimit(proposeAs("alice", p, "pa-1"), 2, 1);
    Response second = proposeAs("alice", p, "pa-2");
    assertThat(second.status()).as(second.body()).isEqualTo(201);
    assertProposeRateLimit(second, 2, 0);
    String before = store.snapshot();
    Response refused = proposeAs("alice", p, "pa-3");
    assertProblem(refused, 429, "quota_exceeded");
    assertProposeRateLimit(refused, 2, 0);
    assertThat(store.snapshot()).isEqualTo(before);
    for (int i = 1; i <= 3; i++) {
      Response ok = proposeAs("bob", p, "pb-" + i);
      assertThat(ok.status()).as(ok.body()).isEqualTo(201);
      assertProposeRateLimit(ok, 3, 3 - i);
    }
    assertProblem(proposeAs("bob", p, "pb-4"), 429, "quota_exceeded");

    // {} removes alice's override: the Project's 3 applies from the PUT's answer on, also to the
    // window alice filled under her own 2 (no instance refuses her from memory any more).
    JsonNode removed = putLimits(quotaUser(p, "alice"), "{}");
    assertThat(removed.get("revision").asLong()).isEqualTo(2);
    assertThat(removed.get("limits").toString()).isEqualTo("{}");
    assertThat(removed.get("shadowLimits").toString()).isEqualTo("{}");
    JsonNode now = quotaOf("alice", p, "plugin-package.propose");
    assertQuota(now, 3, "project", null);
    assertThat(now.get("used").asInt()).isEqualTo(2);
    assertThat(now.get("remaining").asInt()).isEqualTo(1);
    Response third = proposeAs("alice", p, "pa-3");
    assertThat(third.status()).as(third.body()).isEqualTo(201);
    assertProposeRateLimit(third, 3, 0);
    assertProblem(proposeAs("alice", p, "pa-4"), 429, "quota_exceeded");
    assertThat(store.consumed(p, "alice", "plugin-package.propose")).isEqualTo(3);

    // The same body again writes nothing: the revision in force is answered.
    assertThat(putLimits(quotaUser(p, "alice"), "{}").get("revision").asLong()).isEqualTo(2);
    Response policy = http.get(quotaPolicy(p), token("admin"));
    assertThat(policy.status()).as(policy.body()).isEqualTo(200);
    JsonNode page = policy.json();
    assertThat(page.get("projectId").asString()).isEqualTo(p);
    assertThat(page.get("windowMs").asLong()).isEqualTo(60_000);
    assertThat(page.get("defaults").toString())
        .isEqualTo(
            "{\"plugin-package.propose\":20,\"plugin-package.decide\":20,"
                + "\"plugin-package.inspect\":20,\"model-usage.read\":600,\"artifact.upload\":20}");
    assertThat(page.get("project")).isEqualTo(project);
    assertThat(page.get("users")).isEmpty(); // alice's latest revision sets nothing
    assertThat(page.get("nextCursor").isNull()).isTrue();
    assertThat(page.get("shadowRefusals")).isEmpty();
  }

  @Test
  void aShadowLimitAdmitsCountsAndListsWhatItWouldHaveRefused() {
    String p = "limits-shadow";
    grant(p, "alice", "package.manage");
    String metric = "qinglong_quota_decisions_total";
    String[] series = {"operation=\"plugin-package.propose\"", "outcome=\"shadow_rejected\""};
    double shadowBefore = ObservabilityTest.value(scrape(), metric, series);

    JsonNode set = putLimits(quotaPolicy(p), "{\"shadowLimits\":{\"plugin-package.propose\":1}}");
    assertThat(set.get("limits").toString()).isEqualTo("{}");
    assertThat(set.get("shadowLimits").toString()).isEqualTo("{\"plugin-package.propose\":1}");
    assertQuota(quotaOf("alice", p, "plugin-package.propose"), 20, "default", 1);

    for (int i = 1; i <= 3; i++) {
      Response r = proposeAs("alice", p, "ps-" + i);
      assertThat(r.status()).as(r.body()).isEqualTo(201);
      assertProposeRateLimit(r, 20, 20 - i); // the enforced limit, not the shadow one
    }
    // A replay is not a new decision over the shadow limit.
    assertThat(proposeAs("alice", p, "ps-1").status()).isEqualTo(200);
    assertThat(ObservabilityTest.value(scrape(), metric, series) - shadowBefore).isEqualTo(2);

    JsonNode refusals = http.get(quotaPolicy(p), token("admin")).json().get("shadowRefusals");
    assertThat(refusals).hasSize(1);
    JsonNode alice = refusals.get(0);
    assertThat(alice.get("userId").asString()).isEqualTo("alice");
    assertThat(alice.get("operation").asString()).isEqualTo("plugin-package.propose");
    assertThat(alice.get("used").asInt()).isEqualTo(3);
    assertThat(alice.get("shadowLimit").asInt()).isEqualTo(1);
    assertThat(alice.get("wouldHaveRefused").asInt()).isEqualTo(2);
    assertThat(alice.get("windowStartMs").asLong())
        .isEqualTo(store.windowStartedAtMs(p, "alice", "plugin-package.propose"));
    assertThat(alice.get("windowStart").asString()).isNotBlank();
  }

  String scrape() {
    Response r = app.management.get("/actuator/prometheus", null);
    assertThat(r.status()).isEqualTo(200);
    return r.body();
  }

  @Test
  void onlyAGlobalAdminSetsLimitsAndOnlyProjectAdminsReadThem() {
    String p = "limits-who";
    grant(p, "carol", "project.admin");
    grant(p, "alice", "package.manage", "package.read", "approval.decide");
    String body = "{\"limits\":{\"plugin-package.propose\":1}}";
    String before = store.snapshot();
    assertProblem(http.put(quotaPolicy(p), token("carol"), body), 403, "forbidden");
    assertProblem(http.put(quotaUser(p, "alice"), token("carol"), body), 403, "forbidden");
    assertProblem(http.put(quotaUser(p, "carol"), token("alice"), body), 403, "forbidden");
    Response member = http.get(quotaPolicy(p), token("alice"));
    assertProblem(member, 403, "forbidden");
    Response outsider = http.get(quotaPolicy(p), token("bob"));
    assertProblem(outsider, 403, "forbidden");
    // No existence oracle: a Project nobody set up looks the same to bob.
    assertThat(outsider.comparableBody())
        .isEqualTo(http.get(quotaPolicy("limits-nowhere"), token("bob")).comparableBody());
    assertThat(store.snapshot()).isEqualTo(before);

    Response read = http.get(quotaPolicy(p), token("carol"));
    assertThat(read.status()).as(read.body()).isEqualTo(200);
    assertThat(read.json().get("project").isNull()).isTrue();
    assertThat(read.json().get("users")).isEmpty();
    assertQuota(quotaOf("alice", p, "plugin-package.propose"), 20, "default", null);
    assertThat(read.header("RateLimit")).isEmpty();
  }

  static Stream<Arguments> badLimits() {
    return Stream.of(
        Arguments.of("a fraction", "{\"limits\":{\"plugin-package.propose\":1.5}}"),
        Arguments.of("a string", "{\"limits\":{\"plugin-package.propose\":\"5\"}}"),
        Arguments.of("a boolean", "{\"limits\":{\"plugin-package.propose\":true}}"),
        Arguments.of("null", "{\"limits\":{\"plugin-package.propose\":null}}"),
        Arguments.of("an object", "{\"limits\":{\"plugin-package.propose\":{}}}"),
        Arguments.of("an exponent", "{\"limits\":{\"plugin-package.propose\":1e2}}"),
        Arguments.of("an overflow", "{\"limits\":{\"plugin-package.propose\":4294967297}}"),
        Arguments.of("0", "{\"limits\":{\"plugin-package.propose\":0}}"),
        Arguments.of("1001", "{\"limits\":{\"plugin-package.propose\":1001}}"),
        Arguments.of("negative", "{\"shadowLimits\":{\"plugin-package.decide\":-1}}"),
        Arguments.of("shadow 0", "{\"shadowLimits\":{\"artifact.upload\":0}}"),
        Arguments.of("unknown operation", "{\"limits\":{\"qlx-no-such-op\":5}}"),
        Arguments.of("unknown shadow operation", "{\"shadowLimits\":{\"qlx-no-such-op\":5}}"),
        Arguments.of("operation in upper case", "{\"limits\":{\"PLUGIN-PACKAGE.PROPOSE\":5}}"),
        Arguments.of("one good one bad", "{\"limits\":{\"plugin-package.propose\":5,\"qlx-x\":5}}"),
        Arguments.of(
            "operation twice",
            "{\"limits\":{\"plugin-package.propose\":5,\"plugin-package.propose\":6}}"),
        Arguments.of("unknown top-level member", "{\"limits\":{},\"qlx-extra\":1}"),
        Arguments.of("limits not an object", "{\"limits\":[5]}"),
        Arguments.of("limits a number", "{\"limits\":5}"),
        Arguments.of("limits a string", "{\"limits\":\"qlx-5\"}"),
        Arguments.of("body an array", "[{}]"),
        Arguments.of("body null", "null"),
        Arguments.of("body a string", "\"qlx-body\""),
        Arguments.of("empty body", ""),
        Arguments.of("malformed", "{\"limits\":{"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badLimits")
  void aBadLimitsBodyIs400WithoutItsInputAndStoresNothing(String name, String body) {
    String p = "limits-bad";
    String before = store.snapshot();
    for (String path : List.of(quotaPolicy(p), quotaUser(p, "alice"))) {
      Response r = http.put(path, token("admin"), body);
      assertProblem(r, 400, "invalid_request");
      assertThat(r.comparableBody())
          .as(name)
          .doesNotContain("qlx", "1.5", "1001", "4294967297", "1e2", "PLUGIN-PACKAGE", "-1");
    }
    assertThat(store.snapshot()).as("store after " + name).isEqualTo(before);
    Response read = http.get(quotaPolicy(p), token("admin"));
    assertThat(read.json().get("project").isNull()).isTrue();
    assertThat(read.json().get("users")).isEmpty();
  }

  @Test
  void badIdsAndPageParametersAre400AndStoreNothing() {
    String before = store.snapshot();
    String body = "{\"limits\":{\"plugin-package.propose\":5}}";
    String long129 = "a".repeat(129);
    assertProblem(http.put(quotaPolicy(long129), token("admin"), body), 400, "invalid_request");
    assertProblem(http.put(quotaPolicy("a%20b"), token("admin"), body), 400, "invalid_request");
    assertProblem(
        http.put(quotaUser("limits-ids", long129), token("admin"), body), 400, "invalid_request");
    assertProblem(
        http.put(quotaUser("limits-ids", "a%2Cb"), token("admin"), body), 400, "invalid_request");
    assertProblem(
        http.method("PUT", quotaPolicy("limits-ids"), token("admin"), "text/plain", body),
        400,
        "invalid_request");
    for (String query :
        List.of(
            "limit=0", "limit=501", "limit=-1", "limit=1.5", "limit=", "cursor=qlx", "cursor=")) {
      Response r = http.get(quotaPolicy("limits-ids") + "?" + query, token("admin"));
      assertProblem(r, 400, "invalid_request");
      assertThat(r.comparableBody()).doesNotContain("qlx");
    }
    assertThat(store.snapshot()).isEqualTo(before);
  }

  @Test
  void userOverridesPageInUserIdOrderByCursor() {
    String p = "limits-pages";
    for (String user : List.of("u-d", "u-b", "u-e", "u-a", "u-c")) {
      putLimits(
          quotaUser(p, user),
          user.equals("u-e") ? "{}" : "{\"shadowLimits\":{\"plugin-package.inspect\":7}}");
    }
    Response first = http.get(quotaPolicy(p) + "?limit=2", token("admin"));
    assertThat(first.status()).as(first.body()).isEqualTo(200);
    assertThat(users(first.json())).containsExactly("u-a", "u-b");
    assertThat(first.json().get("users").get(0).get("shadowLimits").toString())
        .isEqualTo("{\"plugin-package.inspect\":7}");
    String cursor = first.json().get("nextCursor").asString();
    assertThat(cursor).matches("[A-Za-z0-9_-]+");
    Response second = http.get(quotaPolicy(p) + "?limit=2&cursor=" + cursor, token("admin"));
    assertThat(second.status()).as(second.body()).isEqualTo(200);
    // u-e's only revision sets nothing: it has no override to list.
    assertThat(users(second.json())).containsExactly("u-c", "u-d");
    assertThat(second.json().get("nextCursor").isNull()).isTrue();
    Response all = http.get(quotaPolicy(p), token("admin"));
    assertThat(users(all.json())).containsExactly("u-a", "u-b", "u-c", "u-d");
    assertThat(all.json().get("nextCursor").isNull()).isTrue();
  }

  static List<String> users(JsonNode page) {
    List<String> out = new java.util.ArrayList<>();
    page.get("users").forEach(u -> out.add(u.get("userId").asString()));
    return out;
  }

  @Test
  void aDatabaseFaultWhileReadingThePolicyIs503NeverTheDefaults() {
    String p = "limits-fault";
    putLimits(quotaPolicy(p), "{\"limits\":{\"plugin-package.inspect\":9}}");
    int lostBefore = app.faults().stream().mapToInt(f -> f.lostResponses()).sum();
    // The next read of the limit revisions is executed and its answer lost (08006).
    app.faults()
        .forEach(f -> f.loseNextResponse(sql -> sql.contains("management_quota_limit_revisions")));
    try {
      Response r = http.get(quotaPolicy(p), token("admin"));
      assertProblem(r, 503, "unavailable");
      assertThat(r.header("Retry-After")).isPresent();
      assertThat(r.body()).doesNotContain("\"defaults\"");
      assertThat(app.faults().stream().mapToInt(f -> f.lostResponses()).sum())
          .isEqualTo(lostBefore + 1);
    } finally {
      // Disarm what is still armed (one data source per login on PostgreSQL).
      app.faults().forEach(f -> f.loseNextResponse(sql -> false));
    }
    Response again = http.get(quotaPolicy(p), token("admin"));
    assertThat(again.status()).as(again.body()).isEqualTo(200);
    assertThat(again.json().get("project").get("limits").toString())
        .isEqualTo("{\"plugin-package.inspect\":9}");
  }

  static String governanceRows(String snapshot) {
    return snapshot.substring(0, snapshot.indexOf("## plugin_package_management_quota_buckets"));
  }

  @Test
  void decisionWithWrongDigestIs409AndLeavesApprovalPending() {
    JsonNode p = propose("alice", "demo", "w-1");
    Response r =
        http.post(
            decisions("demo", p.get("approvalId").asString()),
            token("bob"),
            decisionJson("dec-w-1", "approve", OTHER_DIGEST));
    assertProblem(r, 409, "conflict");
    Response inspect =
        http.post(
            inspections("demo", p.get("proposalId").asString()),
            token("bob"),
            "{\"inspectionId\":\"ins-w-1\"}");
    assertThat(inspect.json().get("approval").get("state").asString()).isEqualTo("pending");
  }

  @Test
  void fourEyesTheProposerCannotDecide() {
    grant("four-eyes", "admin", "package.manage", "approval.decide");
    JsonNode p = propose("admin", "four-eyes", "fe-1");
    String before = store.snapshot();
    Response r =
        http.post(
            decisions("four-eyes", p.get("approvalId").asString()),
            token("admin"),
            decisionJson("dec-fe-1", "approve", p.get("actionDigest").asString()));
    assertProblem(r, 403, "forbidden");
    assertThat(store.snapshot()).isEqualTo(before);
  }

  @Test
  void noExistenceOracleAcrossProjects() {
    grant("secret", "admin", "package.manage");
    JsonNode foreign = propose("admin", "secret", "s-1");

    // A proposal of another Project and an unknown proposal: identical 409 bodies.
    Response viaDemo =
        http.post(
            inspections("demo", foreign.get("proposalId").asString()),
            token("alice"),
            "{\"inspectionId\":\"ins-o-1\"}");
    Response unknown =
        http.post(
            inspections("demo", "prp-unknown"), token("alice"), "{\"inspectionId\":\"ins-o-2\"}");
    assertProblem(viaDemo, 409, "conflict");
    assertProblem(unknown, 409, "conflict");
    assertThat(viaDemo.comparableBody()).isEqualTo(unknown.comparableBody());
    assertThat(viaDemo.body())
        .doesNotContain("secret", "admin", foreign.get("proposalId").asString());

    Response decideForeign =
        http.post(
            decisions("demo", foreign.get("approvalId").asString()),
            token("bob"),
            decisionJson("dec-o-1", "approve", foreign.get("actionDigest").asString()));
    Response decideUnknown =
        http.post(
            decisions("demo", "apr-unknown"),
            token("bob"),
            decisionJson("dec-o-2", "approve", foreign.get("actionDigest").asString()));
    assertThat(decideForeign.comparableBody()).isEqualTo(decideUnknown.comparableBody());
    assertProblem(decideForeign, 409, "conflict");

    // A Project the caller cannot access and one that does not exist: identical 403 bodies.
    Response existing =
        http.post(
            inspections("secret", foreign.get("proposalId").asString()),
            token("alice"),
            "{\"inspectionId\":\"ins-o-3\"}");
    Response missing =
        http.post(
            inspections("no-such-project", "prp-x"),
            token("alice"),
            "{\"inspectionId\":\"ins-o-4\"}");
    assertProblem(existing, 403, "forbidden");
    assertThat(existing.comparableBody()).isEqualTo(missing.comparableBody());
    assertThat(store.buckets("secret")).isEqualTo(1); // only admin's own propose
    assertThat(store.buckets("no-such-project")).isZero();
  }

  @Test
  void membersCanBeReplacedByAdminsAndListedByMembers() {
    Response put =
        http.put(
            "/v1/projects/team/members/alice",
            token("admin"),
            "{\"permissions\":[\"package.read\",\"package.manage\"]}");
    assertThat(put.status()).isEqualTo(200);
    assertThat(put.json().get("userId").asString()).isEqualTo("alice");
    assertThat(put.json().get("permissions").toString()).contains("package.manage", "package.read");

    Response list = http.get("/v1/projects/team/members", token("alice"));
    assertThat(list.status()).isEqualTo(200);
    assertThat(list.json().get("members").size()).isEqualTo(1);
    Response one = http.get("/v1/projects/team/members/alice", token("alice"));
    assertThat(one.status()).isEqualTo(200);
    assertThat(one.json().get("permissions").size()).isEqualTo(2);
    assertProblem(http.get("/v1/projects/team/members/bob", token("alice")), 409, "conflict");
    assertProblem(http.get("/v1/projects/team/members", token("bob")), 403, "forbidden");
    assertProblem(
        http.put("/v1/projects/team/members/bob", token("alice"), "{\"permissions\":[]}"),
        403,
        "forbidden");

    Response demo = http.get("/v1/projects/demo/members", token("carol"));
    // carol is a member of demo without any permission: she may not list it.
    assertProblem(demo, 403, "forbidden");
    Response demoAlice = http.get("/v1/projects/demo/members", token("alice"));
    assertThat(demoAlice.json().get("members").toString()).contains("\"carol\"", "\"bob\"");
  }

  // ---- the remaining status codes -------------------------------------------------------------

  @Test
  void unauthenticatedRequestsAre401Problems() {
    String before = store.snapshot();
    assertProblem(
        http.post(proposals("demo"), null, installJson("u-1", "x")), 401, "unauthenticated");
    assertProblem(
        http.post(proposals("demo"), "not-a-token", installJson("u-1", "x")),
        401,
        "unauthenticated");
    assertProblem(
        http.send(
            http.builder(proposals("demo"), null).header("Authorization", "Basic YTpi").GET()),
        401,
        "unauthenticated");
    assertProblem(http.get("/v1/no-such-route", null), 401, "unauthenticated");
    assertThat(store.snapshot()).isEqualTo(before);
  }

  @Test
  void unknownRouteIs404AndWrongMethodIs405WithAllow() {
    assertProblem(http.get("/v1/no-such-route", token("alice")), 404, "not_found");
    assertProblem(http.get("/no-such-route", null), 404, "not_found");
    Response r = http.method("DELETE", proposals("demo"), token("alice"), null, null);
    assertProblem(r, 405, "method_not_allowed");
    assertThat(r.header("Allow")).contains("GET, HEAD, POST");
    Response get = http.get(decisions("demo", "apr-x"), token("alice"));
    assertProblem(get, 405, "method_not_allowed");
    assertThat(get.header("Allow")).contains("POST");
  }

  @Test
  void oversizedBodyIs413() {
    String huge =
        installJson("big-1", "x")
            .replace("\"1.2.3\"", "\"1.2.3\",\"pad\":\"" + "x".repeat(70_000) + "\"");
    String before = store.snapshot();
    assertProblem(http.post(proposals("demo"), token("alice"), huge), 413, "payload_too_large");
    assertThat(store.snapshot()).isEqualTo(before);
  }

  @Test
  void quotaExhaustionIs429WithRetryAfterAndRevealsNothing() {
    grant("quota-project-77", "alice", "package.manage");
    for (int i = 1; i <= 20; i++) {
      propose("alice", "quota-project-77", "q-" + i);
    }
    String before = store.snapshot();
    Response r = http.post(proposals("quota-project-77"), token("alice"), installJson("q-21", "x"));
    assertProblem(r, 429, "quota_exceeded");
    long retryAfter = Long.parseLong(r.header("Retry-After").orElseThrow());
    assertThat(retryAfter).isBetween(1L, 60L);
    assertThat(r.comparableBody()).doesNotContain("quota-project-77", "alice", "20", "21");
    assertThat(store.snapshot()).isEqualTo(before);
    // An admitted id replays within the window.
    Response replay =
        http.post(proposals("quota-project-77"), token("alice"), installJson("q-3", "pkg-q-3"));
    assertThat(replay.status()).isEqualTo(200);
    assertThat(store.consumed("quota-project-77", "alice", "plugin-package.propose")).isEqualTo(20);

    String metrics = app.management.get("/actuator/prometheus", null).body();
    assertThat(metrics)
        .containsPattern(
            "qinglong_quota_decisions_total\\{[^}]*operation=\"plugin-package.propose\",outcome=\"rejected\"\\} [1-9]");
    assertThat(metrics)
        .containsPattern(
            "qinglong_quota_decisions_total\\{[^}]*operation=\"plugin-package.propose\",outcome=\"replayed\"\\} [1-9]");
  }

  @Test
  void responseLostAfterCommitIsReplayedAndNotCountedAgain() {
    grant("lost", "alice", "package.manage");
    int lostBefore = app.faults().stream().mapToInt(f -> f.lostResponses()).sum();
    app.faults().forEach(f -> f.loseNextResponse(ApiContract::isQuotaUpsert));
    Response lost = http.post(proposals("lost"), token("alice"), installJson("l-1", "x"));
    assertProblem(lost, 503, "unavailable");
    assertThat(app.faults().stream().mapToInt(f -> f.lostResponses()).sum())
        .isEqualTo(lostBefore + 1);
    assertThat(store.consumed("lost", "alice", "plugin-package.propose")).isEqualTo(1);

    Response replay = http.post(proposals("lost"), token("alice"), installJson("l-1", "x"));
    assertThat(replay.status()).as(replay.body()).isEqualTo(201);
    assertThat(store.consumed("lost", "alice", "plugin-package.propose")).isEqualTo(1);
    Response again = http.post(proposals("lost"), token("alice"), installJson("l-1", "x"));
    assertThat(again.status()).isEqualTo(200);
    assertThat(store.consumed("lost", "alice", "plugin-package.propose")).isEqualTo(1);

    String proposalId = replay.json().get("proposalId").asString();
    app.faults().forEach(f -> f.loseNextResponse(ApiContract::isQuotaUpsert));
    assertProblem(
        http.post(inspections("lost", proposalId), token("alice"), "{\"inspectionId\":\"li-1\"}"),
        503,
        "unavailable");
    Response inspect =
        http.post(inspections("lost", proposalId), token("alice"), "{\"inspectionId\":\"li-1\"}");
    assertThat(inspect.status()).isEqualTo(200);
    assertThat(store.consumed("lost", "alice", "plugin-package.inspect")).isEqualTo(1);
  }

  static boolean isQuotaUpsert(String sql) {
    String s = sql.toLowerCase(java.util.Locale.ROOT);
    return s.contains("plugin_package_management_quota_buckets") && s.contains("insert");
  }

  @Test
  void databaseCutOffGives503AndReadinessDownThenRecoversWithoutRestart() throws Exception {
    assertThat(app.management.get("/actuator/health/readiness", null).status()).isEqualTo(200);
    app.cutDatabase();
    try {
      Response propose = http.post(proposals("demo"), token("alice"), installJson("cut-1", "x"));
      assertProblem(propose, 503, "unavailable");
      // A short Retry-After (1..3 s, jittered): the client retries with the same id soon.
      assertThat(propose.header("Retry-After"))
          .hasValueSatisfying(v -> assertThat(Integer.parseInt(v)).isBetween(1, 3));
      Response inspect =
          http.post(inspections("demo", "prp-any"), token("bob"), "{\"inspectionId\":\"cut-i\"}");
      assertProblem(inspect, 503, "unavailable");
      assertThat(inspect.header("Retry-After"))
          .hasValueSatisfying(v -> assertThat(Integer.parseInt(v)).isBetween(1, 3));
      // Readiness is a cached probe refreshed in the background: DOWN within an interval.
      Response ready = app.awaitReadiness(503);
      assertThat(ready.status()).isEqualTo(503);
      assertThat(ready.body()).contains("DOWN").doesNotContain("Exception");
      assertThat(app.management.get("/actuator/health/liveness", null).status()).isEqualTo(200);
    } finally {
      app.restoreDatabase();
    }
    assertThat(app.awaitReadiness(200).status()).isEqualTo(200);
    Response ok = http.post(proposals("demo"), token("alice"), installJson("cut-1", "x"));
    assertThat(ok.status()).isEqualTo(201);
  }

  // ---- authorization matrix ---------------------------------------------------------------------

  static Stream<Arguments> permissions() {
    return Stream.of(
        Arguments.of("none"),
        Arguments.of("package.manage"),
        Arguments.of("approval.decide"),
        Arguments.of("package.read"),
        Arguments.of("model.invoke"),
        Arguments.of("model.usage.read"),
        Arguments.of("project.admin"));
  }

  @ParameterizedTest(name = "alice holding only {0}")
  @MethodSource("permissions")
  void authorizationMatrix(String permission) {
    String project = "mx-" + permission.replace('.', '-');
    grant(project, "admin", "package.manage");
    JsonNode target = propose("admin", project, "mx-target");
    if (permission.equals("none")) {
      grant(project, "alice");
    } else {
      grant(project, "alice", permission);
    }
    boolean manage = permission.equals("package.manage");
    boolean decide = permission.equals("approval.decide");
    boolean admin = permission.equals("project.admin");
    boolean any = !permission.equals("none");
    String alice = token("alice");

    Response propose = http.post(proposals(project), alice, installJson("mx-1", "x"));
    expect(propose, manage, 201);
    Response inspect =
        http.post(
            inspections(project, target.get("proposalId").asString()),
            alice,
            "{\"inspectionId\":\"mx-i\"}");
    expect(inspect, manage || decide, 200);
    Response decision =
        http.post(
            decisions(project, target.get("approvalId").asString()),
            alice,
            decisionJson("mx-d", "approve", target.get("actionDigest").asString()));
    expect(decision, decide, 200);
    Response put =
        http.put("/v1/projects/" + project + "/members/carol", alice, "{\"permissions\":[]}");
    expect(put, admin, 200);
    Response list = http.get("/v1/projects/" + project + "/members", alice);
    expect(list, any, 200);
    if (!manage && !decide) {
      // Unauthorised requests create and consume no bucket.
      assertThat(store.consumed(project, "alice", "plugin-package.propose")).isZero();
      assertThat(store.consumed(project, "alice", "plugin-package.inspect")).isZero();
      assertThat(store.consumed(project, "alice", "plugin-package.decide")).isZero();
    }
  }

  static void expect(Response r, boolean allowed, int status) {
    if (allowed) {
      assertThat(r.status()).as(r.body()).isEqualTo(status);
    } else {
      assertProblem(r, 403, "forbidden");
    }
  }

  // ---- bad input table --------------------------------------------------------------------------

  static Stream<Arguments> badInputs() {
    String p = proposals("demo");
    String d = decisions("demo", "apr-x");
    String i = inspections("demo", "prp-x");
    String m = "/v1/projects/demo/members/dave";
    String long129 = "a".repeat(129);
    return Stream.of(
        bad("malformed JSON", "alice", "POST", p, "application/json", "{\"actionRef\":", 400),
        bad("empty body", "alice", "POST", p, "application/json", "", 400),
        bad("body is an array", "alice", "POST", p, "application/json", "[]", 400),
        bad("body is null", "alice", "POST", p, "application/json", "null", 400),
        bad(
            "actionRef is a number",
            "alice",
            "POST",
            p,
            "application/json",
            installJson("r", "x").replace("\"r\"", "5"),
            400),
        bad(
            "action is a string",
            "alice",
            "POST",
            p,
            "application/json",
            "{\"actionRef\":\"r\",\"action\":\"install\"}",
            400),
        bad(
            "missing actionRef",
            "alice",
            "POST",
            p,
            "application/json",
            "{\"action\":{\"type\":\"remove\",\"package\":\"x\",\"version\":\"1\"}}",
            400),
        bad("missing action", "alice", "POST", p, "application/json", "{\"actionRef\":\"r\"}", 400),
        bad(
            "missing action.version",
            "alice",
            "POST",
            p,
            "application/json",
            "{\"actionRef\":\"r\",\"action\":{\"type\":\"remove\",\"package\":\"x\"}}",
            400),
        bad(
            "unknown action type",
            "alice",
            "POST",
            p,
            "application/json",
            installJson("r", "x").replace("install", "explode"),
            400),
        bad(
            "unknown member",
            "alice",
            "POST",
            p,
            "application/json",
            installJson("r", "x").replace("{\"actionRef\"", "{\"extra\":1,\"actionRef\""),
            400),
        bad(
            "over-long actionRef",
            "alice",
            "POST",
            p,
            "application/json",
            installJson(long129, "x"),
            400),
        bad(
            "ill-formed actionRef",
            "alice",
            "POST",
            p,
            "application/json",
            installJson("a b", "x"),
            400),
        bad(
            "non-ASCII actionRef",
            "alice",
            "POST",
            p,
            "application/json",
            installJson("r\u00e9f", "x"),
            400),
        bad(
            "over-long projectId",
            "alice",
            "POST",
            proposals(long129),
            "application/json",
            installJson("r", "x"),
            400),
        bad(
            "ill-formed projectId",
            "alice",
            "POST",
            proposals("a%20b"),
            "application/json",
            installJson("r", "x"),
            400),
        bad(
            "uppercase digest",
            "alice",
            "POST",
            p,
            "application/json",
            installJson("r", "x").replace(DIGEST, DIGEST.toUpperCase().replace("SHA256", "sha256")),
            400),
        bad(
            "short digest",
            "alice",
            "POST",
            p,
            "application/json",
            installJson("r", "x").replace(DIGEST, "sha256:abc"),
            400),
        bad(
            "md5 digest",
            "alice",
            "POST",
            p,
            "application/json",
            installJson("r", "x").replace(DIGEST, "md5:" + "ab".repeat(16)),
            400),
        bad(
            "remove with digest",
            "alice",
            "POST",
            p,
            "application/json",
            installJson("r", "x").replace("install", "remove"),
            400),
        bad(
            "install without digest",
            "alice",
            "POST",
            p,
            "application/json",
            "{\"actionRef\":\"r\",\"action\":{\"type\":\"install\",\"package\":\"x\",\"version\":\"1\"}}",
            400),
        bad(
            "bad package name",
            "alice",
            "POST",
            p,
            "application/json",
            installJson("r", "X Y"),
            400),
        bad("wrong content type", "alice", "POST", p, "text/plain", installJson("r", "x"), 400),
        bad(
            "form content type",
            "alice",
            "POST",
            p,
            "application/x-www-form-urlencoded",
            "a=b",
            400),
        bad("no content type", "alice", "POST", p, null, installJson("r", "x"), 400),
        bad(
            "oversized body",
            "alice",
            "POST",
            p,
            "application/json",
            "{\"actionRef\":\"" + "r".repeat(70_000) + "\"}",
            413),
        bad(
            "unknown decision",
            "bob",
            "POST",
            d,
            "application/json",
            decisionJson("dd", "maybe", DIGEST),
            400),
        bad(
            "bad actionDigest",
            "bob",
            "POST",
            d,
            "application/json",
            decisionJson("dd", "approve", "sha256:xyz"),
            400),
        bad(
            "missing decisionId",
            "bob",
            "POST",
            d,
            "application/json",
            "{\"decision\":\"approve\",\"actionDigest\":\"" + DIGEST + "\"}",
            400),
        bad(
            "over-long decisionId",
            "bob",
            "POST",
            d,
            "application/json",
            decisionJson(long129, "approve", DIGEST),
            400),
        bad(
            "over-long approvalId",
            "bob",
            "POST",
            decisions("demo", long129),
            "application/json",
            decisionJson("dd", "approve", DIGEST),
            400),
        bad(
            "inspectionId is a number",
            "bob",
            "POST",
            i,
            "application/json",
            "{\"inspectionId\":7}",
            400),
        bad(
            "over-long inspectionId",
            "bob",
            "POST",
            i,
            "application/json",
            "{\"inspectionId\":\"" + long129 + "\"}",
            400),
        bad("missing inspectionId", "bob", "POST", i, "application/json", "{}", 400),
        bad(
            "ill-formed proposalId",
            "bob",
            "POST",
            inspections("demo", "p%3Bx"),
            "application/json",
            "{\"inspectionId\":\"ii\"}",
            400),
        bad(
            "unknown permission",
            "admin",
            "PUT",
            m,
            "application/json",
            "{\"permissions\":[\"root\"]}",
            400),
        bad(
            "permissions not a list",
            "admin",
            "PUT",
            m,
            "application/json",
            "{\"permissions\":\"package.read\"}",
            400),
        bad(
            "permission not a string",
            "admin",
            "PUT",
            m,
            "application/json",
            "{\"permissions\":[1]}",
            400),
        bad(
            "ill-formed userId",
            "admin",
            "PUT",
            "/v1/projects/demo/members/a%2Cb",
            "application/json",
            "{\"permissions\":[]}",
            400));
  }

  static Arguments bad(
      String name,
      String user,
      String method,
      String path,
      String contentType,
      String body,
      int status) {
    return Arguments.of(name, user, method, path, contentType, body, status);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badInputs")
  void badInputGetsItsProblemAndChangesNothing(
      String name,
      String user,
      String method,
      String path,
      String contentType,
      String body,
      int status) {
    String before = store.snapshot();
    HttpRequest.Builder request = http.builder(path, token(user));
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    Response r = http.send(request.method(method, HttpRequest.BodyPublishers.ofString(body)));
    assertProblem(r, status, status == 413 ? "payload_too_large" : "invalid_request");
    assertThat(store.snapshot()).as("store after " + name).isEqualTo(before);
  }
}
