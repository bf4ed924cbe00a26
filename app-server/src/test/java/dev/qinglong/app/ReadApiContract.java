package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.StoreInspector;
import dev.qinglong.app.support.TestApp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;

/**
 * The read routes (proposal lists and reads, the caller's management quota, members pages), {@code
 * Location} on 201, the rate-limit header fields (checked against the bucket rows in SQL) and the
 * 503's {@code Retry-After}, run against each store.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ReadApiContract {
  static final String DIGEST = "sha256:" + "ab".repeat(32);
  static final int INSPECT_LIMIT = 12;
  static final int PROPOSE_LIMIT = 20;
  static final Pattern STATE = Pattern.compile("^\"([a-z0-9.-]+)\";r=([0-9]+);t=([0-9]+)$");
  static final Pattern POLICY =
      Pattern.compile("^\"([a-z0-9.-]+)\";q=([0-9]+);w=([0-9]+);qu=\"requests\"$");

  protected TestApp app;
  protected StoreInspector store;
  protected Http http;

  protected abstract TestApp startApp(Map<String, String> properties);

  protected abstract StoreInspector inspector(TestApp app);

  @BeforeAll
  void startApp() {
    app =
        startApp(
            Map.of(
                "qinglong.management-quota.limits.propose", Integer.toString(PROPOSE_LIMIT),
                "qinglong.management-quota.limits.inspect", Integer.toString(INSPECT_LIMIT)));
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

  String token(String user) {
    return app.token(user);
  }

  void grant(String project, String user, String... permissions) {
    app.grant(project, user, permissions);
  }

  /**
   * A Project where alice proposes, bob decides and carol only reads; admin holds only the implicit
   * {@code project.admin} of a global administrator (and reads every Project).
   */
  String project(String name) {
    grant(name, "alice", "package.manage");
    grant(name, "bob", "approval.decide");
    grant(name, "carol", "package.read");
    return name;
  }

  static String proposals(String project) {
    return "/v1/projects/" + project + "/plugin-packages/proposals";
  }

  static String approvals(String project) {
    return "/v1/projects/" + project + "/plugin-packages/approvals";
  }

  JsonNode propose(String project, String ref) {
    Response r =
        http.post(
            proposals(project),
            token("alice"),
            "{\"actionRef\":\""
                + ref
                + "\",\"action\":{\"type\":\"install\",\"package\":\"pkg-"
                + ref
                + "\",\"version\":\"1.0.0\",\"artifactDigest\":\""
                + DIGEST
                + "\"}}");
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    return r.json();
  }

  static void assertProblem(Response r, int status, String code) {
    assertThat(r.status()).as(r.body()).isEqualTo(status);
    assertThat(r.contentType()).startsWith("application/problem+json");
    assertThat(r.code()).isEqualTo(code);
    assertThat(r.body()).doesNotContain("Exception", "SQL", "select ");
  }

  /**
   * The response's rate-limit fields describe exactly the bucket in the database: quota and window
   * as configured, remaining = limit − consumed_count, reset within the window's end on the
   * database clock.
   */
  void assertRateLimit(Response r, String project, String user, String operation, int limit) {
    String policy = r.header("RateLimit-Policy").orElseThrow(() -> new AssertionError(r.body()));
    String state = r.header("RateLimit").orElseThrow();
    Matcher p = POLICY.matcher(policy);
    assertThat(p.matches()).as(policy).isTrue();
    assertThat(p.group(1)).isEqualTo(operation);
    assertThat(Integer.parseInt(p.group(2))).isEqualTo(limit);
    assertThat(Integer.parseInt(p.group(3))).isEqualTo(60);
    Matcher s = STATE.matcher(state);
    assertThat(s.matches()).as(state).isTrue();
    assertThat(s.group(1)).isEqualTo(operation);
    int consumed = store.consumed(project, user, operation);
    assertThat(Integer.parseInt(s.group(2))).isEqualTo(limit - consumed);
    long windowEnd = store.windowStartedAtMs(project, user, operation) + 60_000;
    long upper = (windowEnd - store.databaseNowMs() + 999) / 1000 + 1;
    assertThat(Long.parseLong(s.group(3))).isBetween(1L, Math.max(1, upper));
  }

  // ---- proposal reads --------------------------------------------------------------------------

  @Test
  void pendingProposalsPageByOpaqueCursorInStableOrderAndEachReadCountsAnInspection() {
    String p = project("reads-list");
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ids.add(propose(p, "l-" + i).get("proposalId").asString());
    }
    JsonNode first = propose(p, "l-approved");
    Response decided =
        http.post(
            approvals(p) + "/" + first.get("approvalId").asString() + "/decisions",
            token("bob"),
            "{\"decisionId\":\"d1\",\"decision\":\"approve\",\"actionDigest\":\""
                + first.get("actionDigest").asString()
                + "\"}");
    assertThat(decided.status()).isEqualTo(200);

    List<String> seen = new ArrayList<>();
    String cursor = null;
    int reads = 0;
    do {
      Response page =
          http.get(
              proposals(p) + "?state=pending&limit=2" + (cursor == null ? "" : "&cursor=" + cursor),
              token("carol"));
      reads++;
      assertThat(page.status()).as(page.body()).isEqualTo(200);
      assertThat(page.header("Cache-Control")).contains("no-store");
      assertRateLimit(page, p, "carol", "plugin-package.inspect", INSPECT_LIMIT);
      for (JsonNode item : page.json().get("items")) {
        assertThat(item.get("state").asString()).isEqualTo("pending");
        seen.add(item.get("proposalId").asString());
      }
      JsonNode next = page.json().get("nextCursor");
      cursor = next.isNull() ? null : next.asString();
      if (cursor != null) {
        assertThat(cursor).matches("[A-Za-z0-9_-]+").doesNotContain(p);
      }
    } while (cursor != null);
    // Oldest first, each once: the order of creation.
    assertThat(seen).containsExactlyElementsOf(ids);
    assertThat(reads).isEqualTo(3);
    assertThat(store.consumed(p, "carol", "plugin-package.inspect")).isEqualTo(reads);

    Response all = http.get(proposals(p), token("bob"));
    assertThat(all.json().get("items").size()).isEqualTo(6);
    assertThat(all.json().get("nextCursor").isNull()).isTrue();
    Response approved = http.get(proposals(p) + "?state=approved", token("alice"));
    assertThat(approved.json().get("items").get(0).get("proposalId").asString())
        .isEqualTo(first.get("proposalId").asString());
  }

  @Test
  void proposalAndApprovalReadsMatchWhatTheWritesReturnedAndLocationNamesTheProposal() {
    String p = project("reads-one");
    Response created =
        http.post(
            proposals(p),
            token("alice"),
            "{\"actionRef\":\"one\",\"action\":{\"type\":\"remove\",\"package\":\"x\","
                + "\"version\":\"1\"}}");
    assertThat(created.status()).isEqualTo(201);
    String proposalId = created.json().get("proposalId").asString();
    assertThat(created.header("Location"))
        .contains("/v1/projects/" + p + "/plugin-packages/proposals/" + proposalId);

    Response read = http.get(created.header("Location").orElseThrow(), token("carol"));
    assertThat(read.status()).isEqualTo(200);
    assertThat(read.json()).isEqualTo(created.json());
    assertRateLimit(read, p, "carol", "plugin-package.inspect", INSPECT_LIMIT);

    Response approval =
        http.get(approvals(p) + "/" + created.json().get("approvalId").asString(), token("bob"));
    assertThat(approval.status()).isEqualTo(200);
    assertThat(approval.json().get("proposalId").asString()).isEqualTo(proposalId);
    assertThat(approval.json().get("state").asString()).isEqualTo("pending");
    assertThat(approval.json().get("decisionId").isNull()).isTrue();
    assertThat(approval.json().get("actionDigest").asString())
        .isEqualTo(created.json().get("actionDigest").asString());
  }

  @Test
  void noExistenceOracleAndNoQuotaForCallersWithoutPermission() {
    String p = "reads-oracle";
    grant(p, "alice", "package.manage");
    grant(p, "carol"); // a member holding nothing
    JsonNode proposal = propose(p, "o-1");
    String other = project("reads-oracle-2");
    String before = store.snapshot();
    for (String path :
        List.of(
            proposals(p),
            proposals(p) + "/" + proposal.get("proposalId").asString(),
            approvals(p) + "/" + proposal.get("approvalId").asString())) {
      assertProblem(http.get(path, token("carol")), 403, "forbidden");
      assertProblem(http.get(path, token("bob")), 403, "forbidden");
    }
    assertThat(store.snapshot()).isEqualTo(before);
    // In a Project where carol may read, another Project's ids and absent ids answer alike.
    Response foreign =
        http.get(proposals(other) + "/" + proposal.get("proposalId").asString(), token("carol"));
    Response absent = http.get(proposals(other) + "/prp-does-not-exist", token("carol"));
    assertProblem(foreign, 409, "conflict");
    assertProblem(absent, 409, "conflict");
    assertThat(foreign.comparableBody()).isEqualTo(absent.comparableBody());
    assertThat(foreign.comparableBody())
        .doesNotContain(p, "o-1", proposal.get("proposalId").asString());
    Response foreignApproval =
        http.get(approvals(other) + "/" + proposal.get("approvalId").asString(), token("carol"));
    assertThat(foreignApproval.comparableBody()).isEqualTo(absent.comparableBody());
  }

  @Test
  void aGlobalAdministratorReadsTheProposalsAndApprovalsOfAProjectItIsNoMemberOf() {
    String p = project("reads-admin");
    JsonNode proposal = propose(p, "a-1");
    Response list = http.get(proposals(p) + "?state=pending", token("admin"));
    assertThat(list.status()).as(list.body()).isEqualTo(200);
    assertThat(list.json().get("items").get(0)).isEqualTo(proposal);
    assertRateLimit(list, p, "admin", "plugin-package.inspect", INSPECT_LIMIT);
    Response one =
        http.get(proposals(p) + "/" + proposal.get("proposalId").asString(), token("admin"));
    assertThat(one.status()).as(one.body()).isEqualTo(200);
    assertThat(one.json()).isEqualTo(proposal);
    Response approval =
        http.get(approvals(p) + "/" + proposal.get("approvalId").asString(), token("admin"));
    assertThat(approval.status()).as(approval.body()).isEqualTo(200);
    assertThat(approval.json().get("state").asString()).isEqualTo("pending");
    // Reading is all: it neither inspects nor decides there.
    assertProblem(
        http.post(
            proposals(p) + "/" + proposal.get("proposalId").asString() + "/inspections",
            token("admin"),
            "{\"inspectionId\":\"i-admin\"}"),
        403,
        "forbidden");
    assertProblem(
        http.post(
            approvals(p) + "/" + proposal.get("approvalId").asString() + "/decisions",
            token("admin"),
            "{\"decisionId\":\"d-admin\",\"decision\":\"approve\",\"actionDigest\":\""
                + proposal.get("actionDigest").asString()
                + "\"}"),
        403,
        "forbidden");
  }

  // ---- the caller ------------------------------------------------------------------------------

  static String me(String project) {
    return "/v1/projects/" + project + "/me";
  }

  @Test
  void theCallerSeesItsOwnPermissionsInTheProjectInAFixedOrderAndSpendsNothing() {
    String p = "reads-me";
    grant(p, "alice", "package.read", "package.manage");
    grant(p, "carol");
    String before = store.snapshot();
    Response alice = http.get(me(p), token("alice"));
    assertThat(alice.status()).as(alice.body()).isEqualTo(200);
    assertThat(alice.json())
        .isEqualTo(
            Http.JSON.readTree(
                "{\"userId\":\"alice\",\"globalAdmin\":false,"
                    + "\"permissions\":[\"package.manage\",\"package.read\"]}"));
    assertThat(alice.header("Cache-Control")).contains("no-store");
    assertThat(alice.header("RateLimit")).isEmpty();
    assertThat(http.get(me(p), token("admin")).json())
        .isEqualTo(
            Http.JSON.readTree(
                "{\"userId\":\"admin\",\"globalAdmin\":true,"
                    + "\"permissions\":[\"project.admin\"]}"));
    // A member holding nothing, a Project the caller is no member of, and one that does not
    // exist: the same answer.
    Response member = http.get(me(p), token("carol"));
    assertThat(member.status()).isEqualTo(200);
    assertThat(member.json())
        .isEqualTo(
            Http.JSON.readTree("{\"userId\":\"carol\",\"globalAdmin\":false,\"permissions\":[]}"));
    assertThat(http.get(me(p), token("bob")).json().get("permissions").size()).isZero();
    Response unknown = http.get(me("reads-me-nowhere"), token("carol"));
    assertThat(unknown.status()).isEqualTo(200);
    assertThat(unknown.comparableBody()).isEqualTo(member.comparableBody());
    assertThat(store.snapshot()).isEqualTo(before);

    assertProblem(http.get(me("bad!project"), token("alice")), 400, "invalid_request");
    assertProblem(http.get(me(p), null), 401, "unauthenticated");
  }

  @Test
  void badListInputIs400AndConsumesNothing() {
    String p = project("reads-bad");
    propose(p, "b-1");
    String before = store.snapshot();
    for (String query :
        List.of(
            "?limit=0",
            "?limit=201",
            "?limit=abc",
            "?limit=-1",
            "?state=open",
            "?state=",
            "?cursor=",
            "?cursor=bm90LW91cnM",
            "?cursor=%25%25")) {
      Response r = http.get(proposals(p) + query, token("carol"));
      assertProblem(r, 400, "invalid_request");
      assertThat(r.header("RateLimit")).isEmpty();
    }
    assertProblem(http.get(proposals(p) + "/bad%20id", token("carol")), 400, "invalid_request");
    assertProblem(
        http.get("/v1/projects/" + p + "/members?limit=501", token("carol")),
        400,
        "invalid_request");
    assertProblem(
        http.get("/v1/projects/" + p + "/members?cursor=xyz", token("carol")),
        400,
        "invalid_request");
    assertThat(store.snapshot()).isEqualTo(before);
  }

  // ---- the caller's management quota -----------------------------------------------------------

  @Test
  void managementQuotaShowsTheCallersBucketsOnTheDatabaseClockAndSpendsNothing() {
    String p = project("reads-quota");
    propose(p, "m-1");
    propose(p, "m-2");
    Response r = http.get("/v1/projects/" + p + "/management-quota", token("alice"));
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    JsonNode body = r.json();
    assertThat(body.get("userId").asString()).isEqualTo("alice");
    assertThat(body.get("enabled").asBoolean()).isTrue();
    assertThat(body.get("windowMs").asLong()).isEqualTo(60_000);
    long now = body.get("databaseNowMs").asLong();
    assertThat(now).isLessThanOrEqualTo(store.databaseNowMs());
    JsonNode propose = operation(body, "plugin-package.propose");
    long start = store.windowStartedAtMs(p, "alice", "plugin-package.propose");
    assertThat(propose.get("limit").asInt()).isEqualTo(PROPOSE_LIMIT);
    assertThat(propose.get("used").asInt())
        .isEqualTo(store.consumed(p, "alice", "plugin-package.propose"))
        .isEqualTo(2);
    assertThat(propose.get("remaining").asInt()).isEqualTo(PROPOSE_LIMIT - 2);
    assertThat(propose.get("windowStartMs").asLong()).isEqualTo(start);
    assertThat(propose.get("resetAtMs").asLong()).isEqualTo(start + 60_000);
    assertThat(propose.get("resetSeconds").asLong())
        .isEqualTo(Math.max(1, (start + 60_000 - now + 999) / 1000));
    JsonNode inspect = operation(body, "plugin-package.inspect");
    assertThat(inspect.get("used").asInt()).isZero();
    assertThat(inspect.get("remaining").asInt()).isEqualTo(INSPECT_LIMIT);
    assertThat(inspect.get("windowStartMs").isNull()).isTrue();
    assertThat(body.get("operations").size()).isEqualTo(5);
    // Reading the quota consumed none of it, and no bucket was created for the read.
    assertThat(store.buckets(p)).isEqualTo(1);
    assertThat(store.consumed(p, "alice", "plugin-package.propose")).isEqualTo(2);

    // Any permission reads its own; none is 403, an unknown Project the same.
    Response reader = http.get("/v1/projects/" + p + "/management-quota", token("carol"));
    assertThat(operation(reader.json(), "plugin-package.propose").get("used").asInt()).isZero();
    grant("reads-quota-other", "alice", "package.manage");
    Response outsider = http.get("/v1/projects/reads-quota-other/management-quota", token("carol"));
    Response nowhere = http.get("/v1/projects/no-such-project/management-quota", token("carol"));
    assertProblem(outsider, 403, "forbidden");
    assertThat(nowhere.comparableBody()).isEqualTo(outsider.comparableBody());
  }

  static JsonNode operation(JsonNode body, String name) {
    for (JsonNode op : body.get("operations")) {
      if (op.get("operation").asString().equals(name)) {
        return op;
      }
    }
    throw new AssertionError("no operation " + name + " in " + body);
  }

  // ---- rate-limit headers ----------------------------------------------------------------------

  @Test
  void everyQuotaGatedAnswerCarriesRateLimitFieldsAndThe429CarriesZeroLeftAndRetryAfter() {
    String p = project("reads-ratelimit");
    Response created =
        http.post(
            proposals(p),
            token("alice"),
            "{\"actionRef\":\"rl-1\",\"action\":{\"type\":\"remove\",\"package\":\"x\","
                + "\"version\":\"1\"}}");
    assertRateLimit(created, p, "alice", "plugin-package.propose", PROPOSE_LIMIT);
    // An exact replay is quota-gated too: same count, same fields.
    Response replay =
        http.post(
            proposals(p),
            token("alice"),
            "{\"actionRef\":\"rl-1\",\"action\":{\"type\":\"remove\",\"package\":\"x\","
                + "\"version\":\"1\"}}");
    assertThat(replay.status()).isEqualTo(200);
    assertRateLimit(replay, p, "alice", "plugin-package.propose", PROPOSE_LIMIT);
    String proposalId = created.json().get("proposalId").asString();
    Response inspected =
        http.post(
            proposals(p) + "/" + proposalId + "/inspections",
            token("bob"),
            "{\"inspectionId\":\"i-1\"}");
    assertRateLimit(inspected, p, "bob", "plugin-package.inspect", INSPECT_LIMIT);

    for (int i = 1; i < INSPECT_LIMIT; i++) {
      assertThat(http.get(proposals(p), token("bob")).status()).isEqualTo(200);
    }
    Response refused = http.get(proposals(p), token("bob"));
    assertProblem(refused, 429, "quota_exceeded");
    assertRateLimit(refused, p, "bob", "plugin-package.inspect", INSPECT_LIMIT);
    assertThat(refused.header("RateLimit").orElseThrow())
        .endsWith(";r=0;t=" + refused.header("Retry-After").orElseThrow());
    // Routes with no quota carry none.
    Response members = http.get("/v1/projects/" + p + "/members", token("bob"));
    assertThat(members.header("RateLimit")).isEmpty();
    assertThat(members.header("RateLimit-Policy")).isEmpty();
  }

  // ---- members pages ---------------------------------------------------------------------------

  @Test
  void membersListPagesInUserIdOrder() {
    String p = project("reads-members");
    grant(p, "admin", "model.invoke");
    List<String> seen = new ArrayList<>();
    String cursor = null;
    int pages = 0;
    do {
      Response page =
          http.get(
              "/v1/projects/"
                  + p
                  + "/members?limit=3"
                  + (cursor == null ? "" : "&cursor=" + cursor),
              token("carol"));
      assertThat(page.status()).as(page.body()).isEqualTo(200);
      pages++;
      page.json().get("members").forEach(m -> seen.add(m.get("userId").asString()));
      JsonNode next = page.json().get("nextCursor");
      cursor = next.isNull() ? null : next.asString();
    } while (cursor != null);
    assertThat(seen).containsExactly("admin", "alice", "bob", "carol");
    assertThat(pages).isEqualTo(2);
  }

  // ---- a failing database -----------------------------------------------------------------------

  @Test
  void aDatabaseFaultIs503WithAShortRetryAfter() {
    String p = project("reads-cut");
    app.cutDatabase();
    try {
      for (Response r :
          List.of(
              http.get(proposals(p), token("carol")),
              http.get("/v1/projects/" + p + "/management-quota", token("carol")))) {
        assertProblem(r, 503, "unavailable");
        assertThat(Integer.parseInt(r.header("Retry-After").orElseThrow())).isBetween(1, 3);
        assertThat(r.header("RateLimit")).isEmpty();
      }
    } finally {
      app.restoreDatabase();
    }
    app.awaitReadiness(200);
  }
}
