package dev.qinglong.app;

import static dev.qinglong.app.ApiContract.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.AiInspector;
import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.StoreInspector;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.core.modelquota.QuotaWindow;
import dev.qinglong.testkit.QuotaWindows;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.HashMap;
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
 * The HTTP contract of the model-invocation quota routes (docs/api.md), run against each store with
 * {@code qinglong.ai.enabled=true}: status codes and shapes, exact replay, settlement rules, the
 * 429 with Retry-After, fail-closed configuration and receipts, the authorization matrix, the
 * bad-input table, the management quota of the usage reads and a database cut.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ModelQuotaApiContract {
  static final int USAGE_READ_LIMIT = 40;

  protected TestApp app;
  protected StoreInspector store;
  protected AiInspector ai;
  protected Http http;
  private int projects;

  /** Starts the app on the store under test with {@code properties} added. */
  protected abstract TestApp startApp(Map<String, String> properties);

  protected abstract StoreInspector inspector(TestApp app);

  protected abstract AiInspector aiInspector(TestApp app);

  @BeforeAll
  void startApp() {
    app =
        startApp(
            Map.of(
                "qinglong.ai.enabled",
                "true",
                "qinglong.management-quota.limits.model-usage-read",
                Integer.toString(USAGE_READ_LIMIT)));
    store = inspector(app);
    ai = aiInspector(app);
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

  /** A fresh Project where alice may invoke models and bob may read usage. */
  String project() {
    String p = "mq-" + (++projects);
    grant(p, "alice", "model.invoke");
    grant(p, "bob", "model.usage.read");
    return p;
  }

  void grant(String project, String user, String... permissions) {
    app.grant(project, user, permissions);
  }

  static String base(String project) {
    return "/v1/projects/" + project;
  }

  static String modelPolicy(String project, String model) {
    return base(project) + "/model-policies/" + model;
  }

  static String modelQuota(String project) {
    return base(project) + "/model-quota";
  }

  static String stepRuns(String project) {
    return base(project) + "/step-runs";
  }

  static String invocations(String project) {
    return base(project) + "/model-invocations";
  }

  static String completion(String project, String invocationId) {
    return invocations(project) + "/" + invocationId + "/completion";
  }

  static String window(String project) {
    return base(project) + "/model-usage/window";
  }

  static String ledger(String project) {
    return base(project) + "/model-usage/ledger";
  }

  static String policyJson(long maxTotalTokens, Long maxCostMicros) {
    return "{\"maxTotalTokens\":" + maxTotalTokens + ",\"maxCostMicros\":" + maxCostMicros + "}";
  }

  static String quotaJson(String window, long invocations, long tokens, Long cost) {
    return "{\"window\":\""
        + window
        + "\",\"maxInvocations\":"
        + invocations
        + ",\"maxTokens\":"
        + tokens
        + ",\"maxCostMicros\":"
        + cost
        + "}";
  }

  static String stepJson(String stepRunId, String runId, String modelId) {
    return "{\"stepRunId\":\""
        + stepRunId
        + "\",\"runId\":\""
        + runId
        + "\",\"modelId\":\""
        + modelId
        + "\"}";
  }

  static String admitJson(String invocationId, String stepRunId) {
    return "{\"invocationId\":\"" + invocationId + "\",\"stepRunId\":\"" + stepRunId + "\"}";
  }

  static String completionJson(String outcome, String usage, Long cost) {
    return "{\"outcome\":\"" + outcome + "\",\"usage\":" + usage + ",\"costMicros\":" + cost + "}";
  }

  static String usage(long in, long out, long total) {
    return "{\"inputTokens\":"
        + in
        + ",\"outputTokens\":"
        + out
        + ",\"totalTokens\":"
        + total
        + "}";
  }

  void setUp(String project, String model, long maxTotalTokens, Long cost, String quota) {
    Response p =
        http.put(modelPolicy(project, model), token("admin"), policyJson(maxTotalTokens, cost));
    assertThat(p.status()).as(p.body()).isEqualTo(200);
    if (quota == null) {
      // Without a quota, usage still counts in a day (UTC) window: exact totals must stay in one.
      QuotaWindows.awaitRoom(QuotaWindow.UNFENCED, System::currentTimeMillis);
    } else {
      awaitRoomForCounts(quota);
      Response q = http.put(modelQuota(project), token("admin"), quota);
      assertThat(q.status()).as(q.body()).isEqualTo(200);
    }
  }

  private static final java.util.regex.Pattern WINDOW =
      java.util.regex.Pattern.compile("\"window\":\"([0-9a-z]+)\"");

  /**
   * A test's exact counts must fall in one window of the quota it sets (windows are aligned to the
   * epoch): with less than 20 s left of the current one, this waits for the next.
   */
  static void awaitRoomForCounts(String quotaJson) {
    java.util.regex.Matcher m = WINDOW.matcher(quotaJson);
    if (!m.find()) {
      throw new IllegalArgumentException("no window in " + quotaJson);
    }
    // The app's clock is the database's here (SQLite in the process, PostgreSQL on this machine).
    QuotaWindows.awaitRoom(QuotaWindow.fromWire(m.group(1)), System::currentTimeMillis);
  }

  JsonNode step(String project, String stepRunId, String model) {
    Response r = http.post(stepRuns(project), token("alice"), stepJson(stepRunId, "run-1", model));
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    assertThat(r.header("Location")).contains(stepRuns(project) + "/" + stepRunId);
    return r.json();
  }

  Response admit(String project, String invocationId, String stepRunId) {
    return http.post(invocations(project), token("alice"), admitJson(invocationId, stepRunId));
  }

  JsonNode admitted(String project, String invocationId, String stepRunId) {
    Response r = admit(project, invocationId, stepRunId);
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    return r.json();
  }

  Response complete(String project, String invocationId, String body) {
    return http.post(completion(project, invocationId), token("alice"), body);
  }

  JsonNode windowUsage(String project) {
    Response r = http.get(window(project), token("bob"));
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    return r.json();
  }

  String stepState(String project, String stepRunId) {
    return ai.queryOne(
        "SELECT state FROM model_step_runs WHERE project_id = ? AND step_run_id = ?",
        project,
        stepRunId);
  }

  // ---- policies and step runs -----------------------------------------------------------------

  @Test
  void policiesAreImmutableRevisionsAndStepRunsReplay() {
    String p = project();
    Response first = http.put(modelPolicy(p, "m1"), token("admin"), policyJson(4096, null));
    assertThat(first.status()).as(first.body()).isEqualTo(200);
    assertThat(first.contentType()).startsWith("application/json");
    assertThat(first.json().get("revision").asLong()).isEqualTo(1);
    assertThat(first.json().get("maxTotalTokens").asLong()).isEqualTo(4096);
    assertThat(first.json().get("maxCostMicros").isNull()).isTrue();
    assertThat(first.json().get("modelId").asString()).isEqualTo("m1");
    Response same = http.put(modelPolicy(p, "m1"), token("admin"), policyJson(4096, null));
    assertThat(same.json()).isEqualTo(first.json());
    Response changed = http.put(modelPolicy(p, "m1"), token("admin"), policyJson(2048, 5L));
    assertThat(changed.json().get("revision").asLong()).isEqualTo(2);
    assertThat(changed.json().get("maxCostMicros").asLong()).isEqualTo(5);

    Response quota = http.put(modelQuota(p), token("admin"), quotaJson("1m", 100, 100_000, null));
    assertThat(quota.status()).as(quota.body()).isEqualTo(200);
    assertThat(quota.json().get("window").asString()).isEqualTo("1m");
    assertThat(quota.json().get("maxInvocations").asLong()).isEqualTo(100);
    assertThat(quota.json().get("maxTokens").asLong()).isEqualTo(100_000);
    assertThat(quota.json().get("revision").asLong()).isEqualTo(1);
    assertThat(
            http.put(modelQuota(p), token("admin"), quotaJson("1h", 100, 100_000, null))
                .json()
                .get("revision")
                .asLong())
        .isEqualTo(2);

    Response created = http.post(stepRuns(p), token("alice"), stepJson("s1", "r1", "m1"));
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    assertThat(created.json().get("state").asString()).isEqualTo("ready");
    assertThat(created.json().get("invocationId").isNull()).isTrue();
    assertThat(created.json().get("stepRunId").asString()).isEqualTo("s1");
    assertThat(created.json().get("runId").asString()).isEqualTo("r1");
    Response replay = http.post(stepRuns(p), token("alice"), stepJson("s1", "r1", "m1"));
    assertThat(replay.status()).isEqualTo(200);
    assertThat(replay.json()).isEqualTo(created.json());
    String before = ai.snapshot();
    assertProblem(
        http.post(stepRuns(p), token("alice"), stepJson("s1", "r2", "m1")),
        409,
        "idempotency_key_reused");
    assertThat(ai.snapshot()).isEqualTo(before);
  }

  // ---- admission, replay, settlement ------------------------------------------------------------

  @Test
  void admissionReservesTheWorstCaseAndReplaysIdentically() {
    String p = project();
    setUp(p, "m1", 4096, null, quotaJson("1d", 10, 100_000, null));
    step(p, "s1", "m1");
    Response created = admit(p, "inv1", "s1");
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    JsonNode a = created.json();
    assertThat(a.get("invocationId").asString()).isEqualTo("inv1");
    assertThat(a.get("stepRunId").asString()).isEqualTo("s1");
    assertThat(a.get("projectId").asString()).isEqualTo(p);
    JsonNode r = a.get("reservation");
    assertThat(r.get("type").asString())
        .isEqualTo("qinglong/model-invocation-quota-reservation@v1");
    assertThat(r.get("reservedTokens").asLong()).isEqualTo(4096);
    assertThat(r.get("reservedCostMicros").isNull()).isTrue();
    assertThat(r.get("windowMs").asLong()).isEqualTo(86_400_000L);
    assertThat(r.get("windowStartMs").asLong() % 86_400_000L).isZero();
    assertThat(r.get("digest").asString()).matches("sha256:[0-9a-f]{64}");
    assertThat(r.get("windowBudget").get("maxInvocations").asLong()).isEqualTo(10);
    assertThat(a.get("start").get("reservationDigest").asString())
        .isEqualTo(r.get("digest").asString());
    assertThat(stepState(p, "s1")).isEqualTo("running");

    String before = ai.snapshot();
    Response replay = admit(p, "inv1", "s1");
    assertThat(replay.status()).isEqualTo(200);
    assertThat(replay.json()).isEqualTo(a);
    assertThat(ai.snapshot()).isEqualTo(before);

    // The same invocation id for another StepRun, and a StepRun that is no longer ready: 409.
    step(p, "s2", "m1");
    assertProblem(admit(p, "inv1", "s2"), 409, "idempotency_key_reused");
    assertProblem(admit(p, "inv2", "s1"), 409, "conflict");
    // A StepRun of another Project and one that does not exist: the same 409.
    String other = project();
    setUp(other, "m1", 10, null, null);
    step(other, "foreign", "m1");
    Response foreign = admit(p, "inv3", "foreign");
    Response missing = admit(p, "inv4", "no-such-step");
    assertProblem(foreign, 409, "conflict");
    assertThat(foreign.comparableBody()).isEqualTo(missing.comparableBody()).doesNotContain(other);
    assertThat(stepState(p, "s2")).isEqualTo("ready");
  }

  @Test
  void aModelCostCapWithoutAProjectCostLimitSettlesNoCost() {
    // No cost quota → the settlement's cost stays null (no cost was reserved); the ledger keeps the
    // real cost.
    String p = project();
    setUp(p, "m1", 100, 1_000L, quotaJson("1d", 10, 1_000, null));
    step(p, "s1", "m1");
    JsonNode a = admitted(p, "inv1", "s1");
    assertThat(a.get("reservation").get("reservedCostMicros").isNull()).isTrue();
    Response done = complete(p, "inv1", completionJson("succeeded", usage(3, 7, 12), 250L));
    assertThat(done.status()).as(done.body()).isEqualTo(200);
    assertThat(done.json().get("settlement").get("settledCostMicros").isNull()).isTrue();
    assertThat(done.json().get("settlement").get("releasedCostMicros").asLong()).isZero();
    assertThat(done.json().get("completion").get("costMicros").asLong()).isEqualTo(250);
    assertThat(windowUsage(p).get("costMicros").asLong()).isZero();
  }

  @Test
  void knownUsageReleasesTheRestAndCompletionReplaysIdentically() {
    String p = project();
    setUp(p, "m1", 100, 1_000L, quotaJson("1d", 10, 1_000, 10_000L));
    step(p, "s1", "m1");
    admitted(p, "inv1", "s1");
    JsonNode before = windowUsage(p);
    assertThat(before.get("invocations").asLong()).isEqualTo(1);
    assertThat(before.get("tokens").asLong()).isEqualTo(100);
    assertThat(before.get("costMicros").asLong()).isEqualTo(1_000);
    assertThat(before.get("limits").get("maxTokens").asLong()).isEqualTo(1_000);
    assertThat(before.get("limits").get("maxCostMicros").asLong()).isEqualTo(10_000);

    Response done = complete(p, "inv1", completionJson("succeeded", usage(3, 7, 12), 250L));
    assertThat(done.status()).as(done.body()).isEqualTo(200);
    JsonNode s = done.json().get("settlement");
    assertThat(done.json().get("invocationId").asString()).isEqualTo("inv1");
    assertThat(done.json().get("outcome").asString()).isEqualTo("succeeded");
    assertThat(s.get("type").asString()).isEqualTo("qinglong/model-invocation-quota-settlement@v1");
    assertThat(s.get("settledTokens").asLong()).isEqualTo(12);
    assertThat(s.get("releasedTokens").asLong()).isEqualTo(88);
    assertThat(s.get("settledCostMicros").asLong()).isEqualTo(250);
    assertThat(s.get("releasedCostMicros").asLong()).isEqualTo(750);
    assertThat(s.get("completionDigest").asString())
        .isEqualTo(done.json().get("completion").get("digest").asString());
    assertThat(s.get("digest").asString()).matches("sha256:[0-9a-f]{64}");
    assertThat(stepState(p, "s1")).isEqualTo("succeeded");

    JsonNode after = windowUsage(p);
    assertThat(after.get("invocations").asLong()).isEqualTo(1);
    assertThat(after.get("tokens").asLong()).isEqualTo(12);
    assertThat(after.get("costMicros").asLong()).isEqualTo(250);

    String snapshot = ai.snapshot();
    Response replay = complete(p, "inv1", completionJson("succeeded", usage(3, 7, 12), 250L));
    assertThat(replay.status()).isEqualTo(200);
    assertThat(replay.json()).isEqualTo(done.json());
    assertProblem(
        complete(p, "inv1", completionJson("failed", usage(3, 7, 12), 250L)),
        409,
        "idempotency_key_reused");
    assertProblem(
        complete(p, "no-such-inv", completionJson("failed", null, null)), 409, "conflict");
    assertThat(ai.snapshot()).isEqualTo(snapshot);
  }

  // ---- idempotency ids name one request (409 idempotency_key_reused)
  // -----------------------------

  @Test
  void idsReusedForAnotherRequestAre409KeyReusedNeverAnAllow() {
    String p = project();
    setUp(p, "m1", 100, 1_000L, quotaJson("1d", 10, 1_000, 10_000L));
    setUp(p, "m2", 100, 1_000L, null);
    step(p, "s1", "m1");
    step(p, "s2", "m1");
    admitted(p, "inv1", "s1");
    Response done = complete(p, "inv1", completionJson("succeeded", usage(3, 7, 12), 250L));
    assertThat(done.status()).as(done.body()).isEqualTo(200);
    JsonNode usageBefore = windowUsage(p);
    String before = ai.snapshot();

    // stepRunId with another run or model.
    assertProblem(
        http.post(stepRuns(p), token("alice"), stepJson("s1", "run-1", "m2")),
        409,
        "idempotency_key_reused");
    // invocationId with another StepRun: nothing reserved, s2 stays ready.
    Response reused = admit(p, "inv1", "s2");
    assertProblem(reused, 409, "idempotency_key_reused");
    assertThat(reused.body()).doesNotContain("reservation", "windowStartMs");
    assertThat(stepState(p, "s2")).isEqualTo("ready");
    // Completion replayed with another body: other usage, other cost, other outcome.
    for (String body :
        List.of(
            completionJson("succeeded", usage(3, 7, 11), 250L),
            completionJson("succeeded", usage(3, 7, 12), 249L),
            completionJson("succeeded", null, 250L),
            completionJson("unknown", null, null))) {
      assertProblem(complete(p, "inv1", body), 409, "idempotency_key_reused");
    }
    assertThat(ai.snapshot()).isEqualTo(before);
    JsonNode usageAfter = windowUsage(p);
    assertThat(usageAfter.get("invocations")).isEqualTo(usageBefore.get("invocations"));
    assertThat(usageAfter.get("tokens")).isEqualTo(usageBefore.get("tokens"));

    // The exact requests still replay.
    assertThat(complete(p, "inv1", completionJson("succeeded", usage(3, 7, 12), 250L)).json())
        .isEqualTo(done.json());
    assertThat(admit(p, "inv1", "s1").status()).isEqualTo(200);
  }

  @Test
  void unknownOutcomeKeepsTheReservationAndOverReservationIsRefused() {
    String p = project();
    setUp(p, "m1", 100, null, quotaJson("1d", 10, 1_000, null));
    step(p, "s1", "m1");
    step(p, "s2", "m1");
    admitted(p, "inv1", "s1");
    admitted(p, "inv2", "s2");

    Response unknown = complete(p, "inv1", completionJson("unknown", null, null));
    assertThat(unknown.status()).as(unknown.body()).isEqualTo(200);
    assertThat(unknown.json().get("settlement").get("settledTokens").asLong()).isEqualTo(100);
    assertThat(unknown.json().get("settlement").get("releasedTokens").asLong()).isZero();
    assertThat(unknown.json().get("settlement").get("settledCostMicros").isNull()).isTrue();
    assertThat(stepState(p, "s1")).isEqualTo("unknown");
    assertThat(windowUsage(p).get("tokens").asLong()).isEqualTo(200);

    // Usage above the reservation: contract breach, nothing recorded, the reservation stays.
    String before = ai.snapshot();
    assertProblem(
        complete(p, "inv2", completionJson("succeeded", usage(100, 1, 101), null)),
        409,
        "conflict");
    assertThat(ai.snapshot()).isEqualTo(before);
    assertThat(stepState(p, "s2")).isEqualTo("running");
    assertThat(windowUsage(p).get("tokens").asLong()).isEqualTo(200);
    // It can still complete within bounds.
    Response ok = complete(p, "inv2", completionJson("failed", usage(1, 0, 1), null));
    assertThat(ok.status()).as(ok.body()).isEqualTo(200);
    assertThat(windowUsage(p).get("tokens").asLong()).isEqualTo(101);
  }

  static String recovery(String project, String stepRunId) {
    return stepRuns(project) + "/" + stepRunId + "/recovery";
  }

  Response recover(String project, String stepRunId, String user) {
    return http.method("POST", recovery(project, stepRunId), token(user), null, null);
  }

  @Test
  void adminRecoveryOfARunningStepRunKeepsTheWholeReservationAndIsIdempotent() {
    String p = project();
    setUp(p, "m1", 100, 9L, quotaJson("1d", 10, 1_000, 1_000L));
    step(p, "s1", "m1");
    step(p, "s2", "m1");
    step(p, "s3", "m1");
    admitted(p, "inv1", "s1");
    admitted(p, "inv2", "s2");

    // Only project.admin: alice (model.invoke) is 403 and nothing changes.
    String before = ai.snapshot();
    assertProblem(recover(p, "s1", "alice"), 403, "forbidden");
    assertThat(ai.snapshot()).isEqualTo(before);

    Response r = recover(p, "s1", "admin");
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    assertThat(r.json().get("outcome").asString()).isEqualTo("unknown");
    assertThat(r.json().get("settlement").get("settledTokens").asLong()).isEqualTo(100);
    assertThat(r.json().get("settlement").get("releasedTokens").asLong()).isZero();
    assertThat(r.json().get("settlement").get("settledCostMicros").asLong()).isEqualTo(9);
    assertThat(stepState(p, "s1")).isEqualTo("unknown");
    assertThat(windowUsage(p).get("tokens").asLong()).isEqualTo(200);

    // Idempotent: the same receipts again, nothing written.
    String after = ai.snapshot();
    Response again = recover(p, "s1", "admin");
    assertThat(again.status()).as(again.body()).isEqualTo(200);
    assertThat(again.json().get("settlement").get("digest"))
        .isEqualTo(r.json().get("settlement").get("digest"));
    assertThat(ai.snapshot()).isEqualTo(after);

    // The runtime's late completion: exact (unknown, no usage) replays, anything else is 409.
    assertProblem(
        complete(p, "inv1", completionJson("succeeded", usage(1, 1, 2), 1L)),
        409,
        "idempotency_key_reused");
    Response late = complete(p, "inv1", completionJson("unknown", null, null));
    assertThat(late.status()).as(late.body()).isEqualTo(200);
    assertThat(ai.snapshot()).isEqualTo(after);

    // A StepRun its runtime completed is not recovered; never admitted or unknown: 409.
    complete(p, "inv2", completionJson("succeeded", usage(1, 1, 2), 1L));
    assertProblem(recover(p, "s2", "admin"), 409, "idempotency_key_reused");
    assertProblem(recover(p, "s3", "admin"), 409, "conflict");
    assertProblem(recover(p, "no-such", "admin"), 409, "conflict");
    assertThat(stepState(p, "s2")).isEqualTo("succeeded");
  }

  @Test
  void fullWindowIs429WithRetryAfterToTheWindowEndUntilKnownUsageReleases() {
    String p = project();
    setUp(p, "m1", 60, null, quotaJson("1d", 10, 100, null));
    step(p, "s1", "m1");
    step(p, "s2", "m1");
    JsonNode first = admitted(p, "inv1", "s1");
    String before = ai.snapshot();
    Response refused = admit(p, "inv2", "s2");
    assertProblem(refused, 429, "model_project_quota_exceeded");
    long retryAfter = Long.parseLong(refused.header("Retry-After").orElseThrow());
    JsonNode r = first.get("reservation");
    long windowEnd = r.get("windowStartMs").asLong() + r.get("windowMs").asLong();
    long maxRetry = (windowEnd - r.get("reservedAtMs").asLong() + 999) / 1000;
    assertThat(retryAfter).isBetween(1L, maxRetry);
    assertThat(maxRetry - retryAfter).isLessThan(60);
    assertThat(refused.comparableBody()).doesNotContain(p, "alice", "100", "60");
    assertThat(ai.snapshot()).isEqualTo(before);
    assertThat(stepState(p, "s2")).isEqualTo("ready");

    // An unknown outcome would keep all 60 tokens; known usage releases 50 and makes room.
    Response done = complete(p, "inv1", completionJson("succeeded", usage(5, 5, 10), null));
    assertThat(done.status()).isEqualTo(200);
    Response admittedNow = admit(p, "inv2", "s2");
    assertThat(admittedNow.status()).as(admittedNow.body()).isEqualTo(201);
    JsonNode usage = windowUsage(p);
    assertThat(usage.get("tokens").asLong()).isEqualTo(70);
    assertThat(usage.get("invocations").asLong()).isEqualTo(2);

    String metrics = app.management.get("/actuator/prometheus", null).body();
    assertThat(metrics)
        .containsPattern("qinglong_model_quota_events_total\\{[^}]*event=\"refused\"[^}]*\\} [1-9]")
        .containsPattern(
            "qinglong_model_quota_events_total\\{[^}]*event=\"admitted\"[^}]*\\} [1-9]");
  }

  /** Invocations and effective tokens of the Project's window, counted in SQL. */
  long[] windowInSql(String project, long windowStartMs) {
    String invocations =
        ai.queryOne(
            "SELECT COUNT(*) FROM model_invocation_reservations"
                + " WHERE project_id = ? AND window_start_ms = ?",
            project,
            windowStartMs);
    String tokens =
        ai.queryOne(
            "SELECT COALESCE(SUM(COALESCE(s.settled_tokens, r.reserved_tokens)), 0)"
                + " FROM model_invocation_reservations r LEFT JOIN model_invocation_settlements s"
                + " ON s.project_id = r.project_id AND s.invocation_id = r.invocation_id"
                + " WHERE r.project_id = ? AND r.window_start_ms = ?",
            project,
            windowStartMs);
    return new long[] {Long.parseLong(invocations), Long.parseLong(tokens)};
  }

  @Test
  void admissionAnswersCarryRateLimitFieldsOfTheWindowAsTheDatabaseCountsIt() {
    String p = project();
    setUp(p, "m1", 60, null, quotaJson("1d", 10, 100, null));
    step(p, "s1", "m1");
    step(p, "s2", "m1");
    Response first = admit(p, "inv1", "s1");
    assertThat(first.status()).isEqualTo(201);
    assertThat(first.header("Location")).contains(invocations(p) + "/inv1");
    long start = first.json().get("reservation").get("windowStartMs").asLong();
    assertThat(first.header("RateLimit-Policy"))
        .contains("\"invocations\";q=10;w=86400;qu=\"requests\", \"tokens\";q=100;w=86400");
    long[] sql = windowInSql(p, start);
    assertThat(sql).containsExactly(1, 60);
    String state = first.header("RateLimit").orElseThrow();
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile(
                "\"invocations\";r=([0-9]+);t=([0-9]+), \"tokens\";r=([0-9]+);t=([0-9]+)")
            .matcher(state);
    assertThat(m.matches()).as(state).isTrue();
    assertThat(Long.parseLong(m.group(1))).isEqualTo(10 - sql[0]);
    assertThat(Long.parseLong(m.group(3))).isEqualTo(100 - sql[1]);
    long t = Long.parseLong(m.group(2));
    assertThat(t).isBetween(1L, 86_400L).isEqualTo(Long.parseLong(m.group(4)));

    Response refused = admit(p, "inv2", "s2");
    assertProblem(refused, 429, "model_project_quota_exceeded");
    assertThat(refused.header("RateLimit").orElseThrow())
        .contains("\"invocations\";r=9;", "\"tokens\";r=40;");
    assertThat(refused.header("RateLimit-Policy")).isEqualTo(first.header("RateLimit-Policy"));

    // Known usage releases tokens: the next answer shows what the database now counts.
    assertThat(complete(p, "inv1", completionJson("succeeded", usage(5, 5, 10), null)).status())
        .isEqualTo(200);
    Response second = admit(p, "inv2", "s2");
    assertThat(second.status()).isEqualTo(201);
    sql = windowInSql(p, start);
    assertThat(sql).containsExactly(2, 70);
    assertThat(second.header("RateLimit").orElseThrow())
        .contains("\"invocations\";r=8;", "\"tokens\";r=30;");
    // A Project without a quota policy has no limits to show.
    String free = project();
    setUp(free, "m1", 60, null, null);
    step(free, "s1", "m1");
    Response unfenced = admit(free, "inv1", "s1");
    assertThat(unfenced.status()).isEqualTo(201);
    assertThat(unfenced.header("RateLimit")).isEmpty();
  }

  @Test
  void costLimitWithoutACostCapFailsClosedWith409() {
    String p = project();
    setUp(p, "m1", 100, null, quotaJson("1h", 10, 1_000, 5_000L));
    step(p, "s1", "m1");
    String before = ai.snapshot();
    Response r = admit(p, "inv1", "s1");
    assertProblem(r, 409, "conflict");
    assertThat(ai.snapshot()).isEqualTo(before);
    assertThat(stepState(p, "s1")).isEqualTo("ready");
    // Capping the model's cost fixes the configuration.
    setUp(p, "m1", 100, 500L, null);
    assertThat(admit(p, "inv1", "s1").status()).isEqualTo(201);
  }

  @Test
  void admissionBeforeAModelPolicyIs409SayingWhichPolicyToSetAndNamingNoId() {
    String expected =
        "No model policy is set for this StepRun's model in this Project; a project.admin sets one"
            + " with PUT /v1/projects/{projectId}/model-policies/{modelId}. Nothing was reserved.";
    // With a Project quota, and a policy for another model only: the StepRun's model has none.
    String p = project();
    Response quota = http.put(modelQuota(p), token("admin"), quotaJson("1h", 10, 1_000, null));
    assertThat(quota.status()).as(quota.body()).isEqualTo(200);
    setUp(p, "other-model", 100, null, null);
    step(p, "step-unset", "model-unset");
    String before = ai.snapshot();
    Response r = admit(p, "inv-unset", "step-unset");
    assertProblem(r, 409, "conflict");
    assertThat(r.json().get("detail").asString()).isEqualTo(expected);
    assertThat(r.body()).doesNotContain(p, "step-unset", "model-unset", "inv-unset", "other-model");
    assertThat(ai.snapshot()).isEqualTo(before);
    assertThat(stepState(p, "step-unset")).isEqualTo("ready");

    // Without a Project quota either: the same answer, and the quota is not what is missing.
    String bare = project();
    step(bare, "step-unset", "model-unset");
    Response noQuota = admit(bare, "inv-unset", "step-unset");
    assertProblem(noQuota, 409, "conflict");
    assertThat(noQuota.json().get("detail").asString()).isEqualTo(expected);
    setUp(bare, "model-unset", 100, null, null);
    assertThat(admit(bare, "inv-unset", "step-unset").status()).isEqualTo(201);

    // Setting the policy is what admits the StepRun.
    setUp(p, "model-unset", 100, null, null);
    assertThat(admit(p, "inv-unset", "step-unset").status()).isEqualTo(201);
  }

  @Test
  void tamperedReceiptsMakeReplayAndAdmissionAConflict() {
    String p = project();
    setUp(p, "m1", 100, null, quotaJson("1h", 10, 1_000, null));
    step(p, "s1", "m1");
    step(p, "s2", "m1");
    admitted(p, "inv1", "s1");
    Response done = complete(p, "inv1", completionJson("succeeded", usage(1, 1, 2), null));
    assertThat(done.status()).isEqualTo(200);
    assertThat(
            ai.ownerUpdate(
                "UPDATE model_invocation_settlements SET released_tokens = released_tokens - 1"
                    + " WHERE project_id = ? AND invocation_id = ?",
                p,
                "inv1"))
        .isEqualTo(1);
    assertProblem(
        complete(p, "inv1", completionJson("succeeded", usage(1, 1, 2), null)), 409, "conflict");
    assertThat(
            ai.ownerUpdate(
                "UPDATE model_invocation_reservations SET reserved_tokens = 99"
                    + " WHERE project_id = ? AND invocation_id = ?",
                p,
                "inv1"))
        .isEqualTo(1);
    assertProblem(admit(p, "inv1", "s1"), 409, "conflict");
  }

  // ---- usage reads ----------------------------------------------------------------------------

  @Test
  void ledgerPagesWithAnOpaqueCursor() {
    String p = project();
    setUp(p, "m1", 100, null, null);
    for (int i = 1; i <= 5; i++) {
      step(p, "s" + i, "m1");
      admitted(p, "inv" + i, "s" + i);
      assertThat(
              complete(p, "inv" + i, completionJson("succeeded", usage(i, i, 2 * i), null))
                  .status())
          .isEqualTo(200);
    }
    JsonNode w = windowUsage(p);
    assertThat(w.get("limits").get("maxInvocations").isNull()).isTrue();
    assertThat(w.get("invocations").asLong()).isEqualTo(5);
    assertThat(w.get("tokens").asLong()).isEqualTo(30);

    List<String> seen = new ArrayList<>();
    String cursor = null;
    int pages = 0;
    do {
      String path = ledger(p) + "?limit=2" + (cursor == null ? "" : "&cursor=" + cursor);
      Response page = http.get(path, token("bob"));
      assertThat(page.status()).as(page.body()).isEqualTo(200);
      assertThat(page.json().get("items").size()).isBetween(1, 2);
      for (JsonNode item : page.json().get("items")) {
        seen.add(item.get("invocationId").asString());
        assertThat(item.get("digest").asString()).matches("sha256:[0-9a-f]{64}");
      }
      JsonNode next = page.json().get("nextCursor");
      cursor = next.isNull() ? null : next.asString();
      if (cursor != null) {
        assertThat(cursor).doesNotContain(p).doesNotContain("inv");
      }
      pages++;
    } while (cursor != null && pages < 10);
    assertThat(seen).containsExactly("inv1", "inv2", "inv3", "inv4", "inv5");
    assertThat(pages).isEqualTo(3);

    Response all = http.get(ledger(p), token("bob"));
    assertThat(all.json().get("items").size()).isEqualTo(5);
    assertThat(all.json().get("nextCursor").isNull()).isTrue();
    assertThat(http.get(ledger(p) + "?limit=500", token("bob")).status()).isEqualTo(200);
    assertThat(store.consumed(p, "bob", "model-usage.read")).isEqualTo(pages + 3);
  }

  @Test
  void usageReadsConsumeTheManagementQuotaAndBadReadsConsumeNothing() {
    String p = project();
    int before = store.consumed(p, "bob", "model-usage.read");
    for (String bad :
        List.of(
            "?limit=0",
            "?limit=501",
            "?limit=-1",
            "?limit=abc",
            "?limit=1.5",
            "?limit=",
            "?cursor=not-a-cursor",
            "?cursor=",
            "?cursor=bGVkZ2VyOnYxOi0x",
            "?limit=2&cursor=%25%25")) {
      Response r = http.get(ledger(p) + bad, token("bob"));
      assertProblem(r, 400, "invalid_request");
    }
    assertThat(store.consumed(p, "bob", "model-usage.read")).isEqualTo(before);
    for (int i = 0; i < USAGE_READ_LIMIT; i++) {
      Response r =
          i % 2 == 0 ? http.get(window(p), token("bob")) : http.get(ledger(p), token("bob"));
      assertThat(r.status()).as(r.body()).isEqualTo(200);
    }
    assertThat(store.consumed(p, "bob", "model-usage.read")).isEqualTo(USAGE_READ_LIMIT);
    Response limited = http.get(window(p), token("bob"));
    assertProblem(limited, 429, "quota_exceeded");
    assertThat(Long.parseLong(limited.header("Retry-After").orElseThrow())).isBetween(1L, 60L);
    assertProblem(http.get(ledger(p), token("bob")), 429, "quota_exceeded");
  }

  // ---- failures ---------------------------------------------------------------------------------

  @Test
  void databaseCutGives503NeverAnAdmission() {
    String p = project();
    setUp(p, "m1", 100, null, quotaJson("1h", 10, 1_000, null));
    step(p, "s1", "m1");
    step(p, "s2", "m1");
    admitted(p, "inv2", "s2");
    String before = ai.snapshot();
    app.cutDatabase();
    try {
      assertProblem(admit(p, "inv1", "s1"), 503, "unavailable");
      assertProblem(
          complete(p, "inv2", completionJson("succeeded", usage(1, 1, 2), null)),
          503,
          "unavailable");
      assertProblem(http.get(window(p), token("bob")), 503, "unavailable");
      assertProblem(http.get(ledger(p), token("bob")), 503, "unavailable");
      assertProblem(
          http.post(stepRuns(p), token("alice"), stepJson("s3", "r", "m1")), 503, "unavailable");
    } finally {
      app.restoreDatabase();
    }
    assertThat(ai.snapshot()).isEqualTo(before);
    assertThat(admit(p, "inv1", "s1").status()).isEqualTo(201);
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

  @ParameterizedTest(name = "carol holding only {0}")
  @MethodSource("permissions")
  void authorizationMatrix(String permission) {
    String p = "mqx-" + permission.replace('.', '-');
    grant(p, "alice", "model.invoke");
    if (permission.equals("none")) {
      grant(p, "carol");
    } else {
      grant(p, "carol", permission);
    }
    setUp(p, "m1", 100, null, quotaJson("1h", 10, 1_000, null));
    step(p, "target", "m1");
    step(p, "target-2", "m1");
    admitted(p, "inv-target", "target-2");
    boolean admin = permission.equals("project.admin");
    boolean invoke = permission.equals("model.invoke");
    boolean read = permission.equals("model.usage.read");
    String carol = token("carol");
    String before = ai.snapshot();

    Map<String, Response> responses = new HashMap<>();
    responses.put("policy", http.put(modelPolicy(p, "m2"), carol, policyJson(10, null)));
    responses.put("quota", http.put(modelQuota(p), carol, quotaJson("1h", 11, 1_000, null)));
    responses.put("step", http.post(stepRuns(p), carol, stepJson("mx-s", "r", "m1")));
    responses.put("admit", http.post(invocations(p), carol, admitJson("mx-inv", "target")));
    responses.put(
        "complete",
        http.post(
            completion(p, "inv-target"), carol, completionJson("succeeded", usage(1, 1, 2), null)));
    responses.put("window", http.get(window(p), carol));
    responses.put("ledger", http.get(ledger(p), carol));

    ApiContract.expect(responses.get("policy"), admin, 200);
    ApiContract.expect(responses.get("quota"), admin, 200);
    ApiContract.expect(responses.get("step"), invoke, 201);
    ApiContract.expect(responses.get("admit"), invoke, 201);
    ApiContract.expect(responses.get("complete"), invoke, 200);
    ApiContract.expect(responses.get("window"), read, 200);
    ApiContract.expect(responses.get("ledger"), read, 200);
    if (!admin && !invoke) {
      assertThat(ai.snapshot()).isEqualTo(before);
    }
    // Unauthorised reads create and consume no bucket.
    assertThat(store.consumed(p, "carol", "model-usage.read")).isEqualTo(read ? 2 : 0);

    // A Project the caller cannot access and one that does not exist: identical 403 bodies.
    Response existing = http.get(window(p), token("bob"));
    Response missing = http.get(window("no-such-project-" + permission.hashCode()), token("bob"));
    assertProblem(existing, 403, "forbidden");
    assertThat(existing.comparableBody()).isEqualTo(missing.comparableBody());
    assertProblem(http.post(invocations(p), null, admitJson("x", "y")), 401, "unauthenticated");
  }

  // ---- bad input table --------------------------------------------------------------------------

  static Stream<Arguments> badInputs() {
    String p = "mq-bad";
    String pol = modelPolicy(p, "m1");
    String q = modelQuota(p);
    String s = stepRuns(p);
    String i = invocations(p);
    String c = completion(p, "inv-bad");
    String long129 = "a".repeat(129);
    String json = "application/json";
    return Stream.of(
        bad("policy: malformed JSON", "admin", "PUT", pol, json, "{\"maxTotalTokens\":"),
        bad("policy: empty body", "admin", "PUT", pol, json, ""),
        bad("policy: array body", "admin", "PUT", pol, json, "[]"),
        bad("policy: missing maxTotalTokens", "admin", "PUT", pol, json, "{}"),
        bad("policy: maxTotalTokens zero", "admin", "PUT", pol, json, policyJson(0, null)),
        bad("policy: maxTotalTokens negative", "admin", "PUT", pol, json, policyJson(-5, null)),
        bad(
            "policy: maxTotalTokens too large",
            "admin",
            "PUT",
            pol,
            json,
            policyJson(1_000_000_001L, null)),
        bad(
            "policy: maxTotalTokens a string",
            "admin",
            "PUT",
            pol,
            json,
            "{\"maxTotalTokens\":\"4096\"}"),
        bad(
            "policy: maxTotalTokens fractional",
            "admin",
            "PUT",
            pol,
            json,
            "{\"maxTotalTokens\":40.5}"),
        bad(
            "policy: maxTotalTokens overflows long",
            "admin",
            "PUT",
            pol,
            json,
            "{\"maxTotalTokens\":99999999999999999999999}"),
        bad("policy: negative cost", "admin", "PUT", pol, json, policyJson(10, -1L)),
        bad(
            "policy: unknown member",
            "admin",
            "PUT",
            pol,
            json,
            "{\"maxTotalTokens\":10,\"extra\":1}"),
        bad(
            "policy: ill-formed modelId",
            "admin",
            "PUT",
            modelPolicy(p, "a%20b"),
            json,
            policyJson(10, null)),
        bad(
            "policy: over-long modelId",
            "admin",
            "PUT",
            modelPolicy(p, long129),
            json,
            policyJson(10, null)),
        bad(
            "policy: over-long projectId",
            "admin",
            "PUT",
            modelPolicy(long129, "m1"),
            json,
            policyJson(10, null)),
        bad("policy: text content type", "admin", "PUT", pol, "text/plain", policyJson(10, null)),
        bad("quota: unknown window", "admin", "PUT", q, json, quotaJson("2m", 1, 1, null)),
        bad(
            "quota: window a number",
            "admin",
            "PUT",
            q,
            json,
            "{\"window\":60,\"maxInvocations\":1,\"maxTokens\":1}"),
        bad(
            "quota: missing window",
            "admin",
            "PUT",
            q,
            json,
            "{\"maxInvocations\":1,\"maxTokens\":1}"),
        bad("quota: zero invocations", "admin", "PUT", q, json, quotaJson("1m", 0, 1, null)),
        bad("quota: zero tokens", "admin", "PUT", q, json, quotaJson("1m", 1, 0, null)),
        bad(
            "quota: missing maxTokens",
            "admin",
            "PUT",
            q,
            json,
            "{\"window\":\"1m\",\"maxInvocations\":1}"),
        bad("quota: negative cost", "admin", "PUT", q, json, quotaJson("1m", 1, 1, -1L)),
        bad(
            "quota: boolean limit",
            "admin",
            "PUT",
            q,
            json,
            "{\"window\":\"1m\",\"maxInvocations\":true,\"maxTokens\":1}"),
        bad(
            "step: missing runId",
            "alice",
            "POST",
            s,
            json,
            "{\"stepRunId\":\"s\",\"modelId\":\"m1\"}"),
        bad("step: ill-formed stepRunId", "alice", "POST", s, json, stepJson("a b", "r", "m1")),
        bad("step: over-long runId", "alice", "POST", s, json, stepJson("s", long129, "m1")),
        bad("step: non-ASCII modelId", "alice", "POST", s, json, stepJson("s", "r", "m\u00e9")),
        bad(
            "step: unknown member",
            "alice",
            "POST",
            s,
            json,
            "{\"stepRunId\":\"s\",\"runId\":\"r\",\"modelId\":\"m\",\"x\":1}"),
        bad("step: body is null", "alice", "POST", s, json, "null"),
        bad("admit: missing stepRunId", "alice", "POST", i, json, "{\"invocationId\":\"inv\"}"),
        bad(
            "admit: invocationId a number",
            "alice",
            "POST",
            i,
            json,
            "{\"invocationId\":1,\"stepRunId\":\"s\"}"),
        bad("admit: ill-formed invocationId", "alice", "POST", i, json, admitJson("in;v", "s")),
        bad("admit: over-long stepRunId", "alice", "POST", i, json, admitJson("inv", long129)),
        bad("admit: no content type", "alice", "POST", i, null, admitJson("inv", "s")),
        bad(
            "complete: unknown outcome",
            "alice",
            "POST",
            c,
            json,
            completionJson("maybe", null, null)),
        bad("complete: missing outcome", "alice", "POST", c, json, "{\"usage\":null}"),
        bad(
            "complete: usage a string",
            "alice",
            "POST",
            c,
            json,
            "{\"outcome\":\"succeeded\",\"usage\":\"3\"}"),
        bad(
            "complete: usage missing totalTokens",
            "alice",
            "POST",
            c,
            json,
            completionJson("succeeded", "{\"inputTokens\":1,\"outputTokens\":2}", null)),
        bad(
            "complete: usage unknown member",
            "alice",
            "POST",
            c,
            json,
            completionJson(
                "succeeded",
                "{\"inputTokens\":1,\"outputTokens\":2,\"totalTokens\":3,\"x\":0}",
                null)),
        bad(
            "complete: total below input + output",
            "alice",
            "POST",
            c,
            json,
            completionJson("succeeded", usage(5, 5, 9), null)),
        bad(
            "complete: negative tokens",
            "alice",
            "POST",
            c,
            json,
            completionJson("succeeded", usage(-1, 0, 0), null)),
        bad(
            "complete: negative cost",
            "alice",
            "POST",
            c,
            json,
            completionJson("succeeded", null, -3L)),
        bad(
            "complete: fractional cost",
            "alice",
            "POST",
            c,
            json,
            "{\"outcome\":\"failed\",\"costMicros\":1.5}"),
        bad(
            "complete: ill-formed invocationId",
            "alice",
            "POST",
            completion(p, "a%2Cb"),
            json,
            completionJson("failed", null, null)));
  }

  static Arguments bad(
      String name, String user, String method, String path, String contentType, String body) {
    return Arguments.of(name, user, method, path, contentType, body);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badInputs")
  void badInputIs400AndChangesNothing(
      String name, String user, String method, String path, String contentType, String body) {
    grant("mq-bad", "alice", "model.invoke");
    String before = ai.snapshot();
    String governance = store.snapshot();
    HttpRequest.Builder request = http.builder(path, token(user));
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    Response r = http.send(request.method(method, HttpRequest.BodyPublishers.ofString(body)));
    assertProblem(r, 400, "invalid_request");
    assertThat(ai.snapshot()).as("AI store after " + name).isEqualTo(before);
    assertThat(store.snapshot()).as("store after " + name).isEqualTo(governance);
  }
}
