package dev.qinglong.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.kernel.ConflictException;
import dev.qinglong.core.kernel.ForbiddenException;
import dev.qinglong.core.kernel.IdempotencyKeyReusedException;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.modelquota.Admission;
import dev.qinglong.core.modelquota.LedgerPage;
import dev.qinglong.core.modelquota.ModelProjectQuotaExceededException;
import dev.qinglong.core.modelquota.ModelQuota;
import dev.qinglong.core.modelquota.ModelQuotaConfigurationException;
import dev.qinglong.core.modelquota.ModelQuotaStore;
import dev.qinglong.core.modelquota.QuotaWindow;
import dev.qinglong.core.modelquota.RecoverySweep;
import dev.qinglong.core.modelquota.Reservation;
import dev.qinglong.core.modelquota.Settled;
import dev.qinglong.core.modelquota.StepRunState;
import dev.qinglong.core.modelquota.TokenUsage;
import dev.qinglong.core.modelquota.UsageLedgerEntry;
import dev.qinglong.core.modelquota.WindowUsage;
import dev.qinglong.core.modelquota.WindowUsageReading;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectPolicy;
import dev.qinglong.core.quota.ManagementQuota;
import dev.qinglong.core.quota.ManagementQuotaPolicy;
import dev.qinglong.core.quota.QuotaDecisionListener;
import dev.qinglong.core.quota.QuotaExceededException;
import dev.qinglong.core.quota.QuotaOperation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Contract of {@link ModelQuotaStore} (docs/model-quota.md), exercised through {@link ModelQuota}
 * over the adapter's real stores: fences per dimension, the configuration rule, settlement rules,
 * exact replay, tamper detection, database-clock windows, the two-instance race and ledger paging.
 */
public abstract class ModelQuotaStoreContract extends StoreContractSupport {
  private static final Principal ADMIN = new Principal("admin");
  private static final Principal ALICE = new Principal("alice");
  private static final Principal CAROL = new Principal("carol");
  // Hour windows: a test crossing a window boundary mid-way would be a flake; hours make it rare.
  private static final long HOUR_MS = 3_600_000L;

  /** Rounds and threads of the race; each round is a fresh Project. */
  protected static final int RACE_ROUNDS = 20;

  protected static final int RACE_THREADS = 8;

  /** The runtime pool of the class, as one instance of the app connects. */
  private DataSource runtime;

  /** The model quota of that one instance; the races and the lost responses add others. */
  private ModelQuota s;

  @Override
  protected abstract ModelQuotaFixture createFixture();

  private ModelQuotaFixture ai() {
    return (ModelQuotaFixture) fixture;
  }

  @BeforeAll
  final void openService() {
    runtime = ai().newRuntimeDataSource();
    s = service(runtime, 600);
  }

  private ModelQuota service(DataSource runtimePool, int usageReadLimit) {
    return new ModelQuota(
        new ProjectPolicy(fixture.policyStore(dataSource), Set.of("admin")),
        new ManagementQuota(
            fixture.quotaStore(dataSource),
            new ManagementQuotaPolicy(
                true,
                Duration.ofSeconds(60),
                Map.of(QuotaOperation.MODEL_USAGE_READ, usageReadLimit)),
            QuotaDecisionListener.NONE),
        ai().modelQuotaStore(runtimePool));
  }

  /** Another instance of the app, with its own runtime pool. */
  private ModelQuota otherInstance() {
    return service(ai().newRuntimeDataSource(), 600);
  }

  /** A Project where alice may invoke and read usage, carol is a member without permissions. */
  private String project() {
    String project = unique("prj");
    addMember(project, "alice", Permission.MODEL_INVOKE, Permission.MODEL_USAGE_READ);
    addMember(project, "carol");
    return project;
  }

  /** A fresh {@link #project()} whose model "m1" reserves these worst cases per invocation. */
  private String project(ModelQuota s, long maxTokens, Long maxCostMicros) {
    String project = project();
    s.putModelPolicy(ADMIN, project, "m1", maxTokens, maxCostMicros);
    // Without a quota, usage still counts in a day (UTC) window: exact totals must stay in one.
    QuotaWindows.awaitRoom(QuotaWindow.UNFENCED, fixture::databaseNowMs);
    return project;
  }

  /** As {@link #project(ModelQuota, long, Long)}, with a Project quota over its window. */
  private String project(
      ModelQuota s,
      long maxTokens,
      Long maxCostMicros,
      String window,
      long windowInvocations,
      long windowTokens,
      Long windowCostMicros) {
    String project = project(s, maxTokens, maxCostMicros);
    // The test's exact counts must fall in one window: windows are aligned to the epoch on the
    // database clock, so with less than 20 s left of the current one, wait for the next.
    QuotaWindows.awaitRoom(QuotaWindow.fromWire(window), fixture::databaseNowMs);
    s.putProjectQuota(ADMIN, project, window, windowInvocations, windowTokens, windowCostMicros);
    return project;
  }

  private static String id(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  private Admission admit(ModelQuota s, String project, String model) {
    String step = id("s");
    s.createStepRun(ALICE, project, step, "run-1", model);
    return s.admit(ALICE, project, id("inv"), step);
  }

  /** Completes the invocation {@code a} admitted, as its caller alice, through the class's s. */
  private Settled complete(Admission a, String outcome, TokenUsage usage, Long costMicros) {
    Reservation r = a.reservation();
    return s.complete(ALICE, r.projectId(), r.invocationId(), outcome, usage, costMicros);
  }

  private WindowUsage usage(String project) {
    return s.windowUsage(ALICE, project, id("read")).usage();
  }

  private void assertUsage(String project, long invocations, long tokens, long costMicros) {
    WindowUsage u = usage(project);
    assertThat(u.invocations()).as("invocations").isEqualTo(invocations);
    assertTokensAndCost(u, tokens, costMicros);
  }

  /** The tokens and cost reserved or settled in {@code project}'s window. */
  private void assertTokensAndCost(String project, long tokens, long costMicros) {
    assertTokensAndCost(usage(project), tokens, costMicros);
  }

  private static void assertTokensAndCost(WindowUsage u, long tokens, long costMicros) {
    assertThat(u.tokens()).as("tokens").isEqualTo(tokens);
    assertThat(u.costMicros()).as("cost").isEqualTo(costMicros);
  }

  /** Changes one stored row of the invocation as the schema owner could, past the code's checks. */
  private void tamper(String update, String project, String invocation) {
    assertThat(
            ai().ownerUpdate(
                    update + " WHERE project_id = ? AND invocation_id = ?", project, invocation))
        .as(update)
        .isEqualTo(1);
  }

  private StepRunState state(String project, String stepRunId) {
    return ai().modelQuotaStore(runtime).stepRun(project, stepRunId).orElseThrow().state();
  }

  @Test
  void admissionWithinLimitsReservesTheWorstCaseOnTheDatabaseClock() {
    String project = project(s, 4096, 70L, "1h", 10, 100_000, 1_000L);
    s.createStepRun(ALICE, project, "s1", "r1", "m1");

    long before = fixture.databaseNowMs();
    Admission a = s.admit(ALICE, project, "inv1", "s1");
    long after = fixture.databaseNowMs();

    Reservation r = a.reservation();
    assertThat(a.created()).isTrue();
    assertThat(r.type()).isEqualTo("qinglong/model-invocation-quota-reservation@v1");
    assertThat(a.start().type()).isEqualTo("qinglong/model-invocation-quota-admission@v1");
    assertThat(r.reservedTokens()).isEqualTo(4096);
    assertThat(r.reservedCostMicros()).isEqualTo(70L);
    assertThat(r.modelPolicyRevision()).isEqualTo(1);
    assertThat(r.quotaPolicyRevision()).isEqualTo(1);
    assertThat(r.windowMs()).isEqualTo(HOUR_MS);
    assertThat(r.windowStartMs()).isIn(before - before % HOUR_MS, after - after % HOUR_MS);
    assertThat(r.reservedAtMs()).isBetween(before, after);
    assertThat(r.digestMatches()).isTrue();
    assertThat(a.start().reservationDigest()).isEqualTo(r.digest());
    assertThat(state(project, "s1")).isEqualTo(StepRunState.RUNNING);

    WindowUsageReading reading = s.windowUsage(ALICE, project, "read-1");
    assertThat(reading.usage().invocations()).isEqualTo(1);
    assertThat(reading.usage().tokens()).isEqualTo(4096);
    assertThat(reading.usage().costMicros()).isEqualTo(70);
    assertThat(reading.quota().maxInvocations()).isEqualTo(10);
  }

  @Test
  void policiesAreImmutableRevisions() {
    String project = project();
    assertThat(s.putModelPolicy(ADMIN, project, "m1", 100, null).revision()).isEqualTo(1);
    assertThat(s.putModelPolicy(ADMIN, project, "m1", 100, null).revision()).isEqualTo(1);
    assertThat(s.putModelPolicy(ADMIN, project, "m1", 200, null).revision()).isEqualTo(2);
    assertThat(s.putProjectQuota(ADMIN, project, "1h", 1, 1, null).revision()).isEqualTo(1);
    assertThat(s.putProjectQuota(ADMIN, project, "1d", 1, 1, null).revision()).isEqualTo(2);
    assertThatThrownBy(() -> s.putModelPolicy(ALICE, project, "m1", 1, null))
        .isInstanceOf(ForbiddenException.class);
    assertThatThrownBy(() -> s.putProjectQuota(ADMIN, project, "2m", 1, 1, null))
        .isInstanceOf(ValidationException.class);
  }

  @Test
  void invocationLimitRefusesUntilTheWindowEndsAndLeavesTheStepReady() {
    String project = project(s, 10, null, "1h", 2, 1_000, null);
    admit(s, project, "m1");
    admit(s, project, "m1");
    s.createStepRun(ALICE, project, "s3", "r1", "m1");
    assertThatThrownBy(() -> s.admit(ALICE, project, "inv3", "s3"))
        .isInstanceOfSatisfying(
            ModelProjectQuotaExceededException.class,
            e -> assertThat(e.retryAfterSeconds()).isBetween(1L, 3600L));
    assertThat(state(project, "s3")).isEqualTo(StepRunState.READY);
    assertThat(usage(project).invocations()).isEqualTo(2);
  }

  @Test
  void tokenLimitFences() {
    String project = project(s, 400, null, "1h", 100, 1_000, null);
    admit(s, project, "m1");
    admit(s, project, "m1");
    assertThatThrownBy(() -> admit(s, project, "m1"))
        .isInstanceOf(ModelProjectQuotaExceededException.class);
    // A smaller model still fits the 200 tokens left.
    s.putModelPolicy(ADMIN, project, "small", 200, null);
    assertThat(admit(s, project, "small").reservation().windowReservedTokens()).isEqualTo(1000);
  }

  @Test
  void costLimitFences() {
    String project = project(s, 10, 600L, "1d", 100, 1_000_000, 1_000L);
    admit(s, project, "m1");
    assertThatThrownBy(() -> admit(s, project, "m1"))
        .isInstanceOf(ModelProjectQuotaExceededException.class);
    assertThat(usage(project).costMicros()).isEqualTo(600);
  }

  @Test
  void projectCostLimitWithoutAnInvocationCostCapFailsClosed() {
    String project = project(s, 10, null, "1h", 100, 1_000, 5_000L);
    s.createStepRun(ALICE, project, "s1", "r1", "m1");
    assertThatThrownBy(() -> s.admit(ALICE, project, "inv1", "s1"))
        .isInstanceOf(ModelQuotaConfigurationException.class);
    assertThat(state(project, "s1")).isEqualTo(StepRunState.READY);
    assertThat(usage(project).invocations()).isZero();
  }

  @Test
  void unknownOutcomeKeepsTokensAndCostReserved() {
    String project = project(s, 1000, 50L, "1h", 10, 10_000, 500L);
    Admission a = admit(s, project, "m1");
    Settled done = complete(a, "unknown", new TokenUsage(1, 1, 2), 1L);
    assertThat(done.settlement().settledTokens()).isEqualTo(1000);
    assertThat(done.settlement().settledCostMicros()).isEqualTo(50L);
    assertThat(done.settlement().releasedTokens()).isZero();
    assertTokensAndCost(project, 1000, 50);
    assertThat(state(project, a.reservation().stepRunId())).isEqualTo(StepRunState.UNKNOWN);

    // Failed with unknown usage keeps everything too.
    Admission b = admit(s, project, "m1");
    complete(b, "failed", null, null);
    assertTokensAndCost(project, 2000, 100);
  }

  @Test
  void knownUsageReleasesTheRestOfTheReservation() {
    String project = project(s, 1000, 50L, "1h", 10, 1_500, 500L);
    Admission a = admit(s, project, "m1");
    assertThatThrownBy(() -> admit(s, project, "m1"))
        .isInstanceOf(ModelProjectQuotaExceededException.class);
    Settled done = complete(a, "succeeded", new TokenUsage(100, 200, 300), 20L);
    assertThat(done.created()).isTrue();
    assertThat(done.settlement().type()).isEqualTo("qinglong/model-invocation-quota-settlement@v1");
    assertThat(done.settlement().reservationDigest()).isEqualTo(a.reservation().digest());
    assertThat(done.settlement().completionDigest()).isEqualTo(done.completion().digest());
    assertThat(done.ledgerEntry().costMicros()).isEqualTo(20L);
    assertUsage(project, 1, 300, 20);
    assertThat(state(project, a.reservation().stepRunId())).isEqualTo(StepRunState.SUCCEEDED);
    // The released 700 tokens make room for the next worst case.
    assertThat(admit(s, project, "m1").reservation().windowReservedTokens()).isEqualTo(2000);
    assertThat(usage(project).tokens()).isEqualTo(1300);
  }

  @Test
  void usageAboveTheReservationIsRefusedAndTheReservationStays() {
    String project = project(s, 100, 10L, "1h", 10, 10_000, 1_000L);
    Admission a = admit(s, project, "m1");
    assertThatThrownBy(() -> complete(a, "succeeded", new TokenUsage(0, 101, 101), 1L))
        .isInstanceOf(ConflictException.class)
        .hasMessageContaining("contract breach");
    assertThatThrownBy(() -> complete(a, "succeeded", new TokenUsage(0, 1, 1), 11L))
        .isInstanceOf(ConflictException.class);
    assertThat(state(project, a.reservation().stepRunId())).isEqualTo(StepRunState.RUNNING);
    assertTokensAndCost(project, 100, 10);
    // It can still be completed within the reservation.
    assertThat(complete(a, "succeeded", new TokenUsage(1, 1, 2), 3L).created()).isTrue();
  }

  @Test
  void exactReplayReturnsTheStoredReceiptsAndAnyOtherReuseConflicts() {
    String project = project(s, 100, 10L, "1h", 10, 10_000, 1_000L);
    s.createStepRun(ALICE, project, "s1", "r1", "m1");
    s.createStepRun(ALICE, project, "s2", "r1", "m1");
    Admission first = s.admit(ALICE, project, "inv1", "s1");
    // A second instance (its own pool) answers the replay identically.
    Admission replay = otherInstance().admit(ALICE, project, "inv1", "s1");
    assertThat(replay.created()).isFalse();
    assertThat(replay.reservation()).isEqualTo(first.reservation());
    assertThat(replay.start()).isEqualTo(first.start());
    assertThat(replay.reservation().digest()).isEqualTo(first.reservation().digest());
    assertThat(usage(project).invocations()).isEqualTo(1);
    assertThatThrownBy(() -> s.admit(ALICE, project, "inv1", "s2"))
        .isInstanceOf(ConflictException.class);
    assertThatThrownBy(() -> s.admit(ALICE, project, "inv2", "s1"))
        .isInstanceOf(ConflictException.class);
    assertThatThrownBy(() -> s.createStepRun(ALICE, project, "s1", "r2", "m1"))
        .isInstanceOf(ConflictException.class);

    TokenUsage used = new TokenUsage(5, 5, 10);
    Settled done = s.complete(ALICE, project, "inv1", "succeeded", used, 4L);
    Settled again = s.complete(ALICE, project, "inv1", "succeeded", used, 4L);
    assertThat(again.created()).isFalse();
    assertThat(again.completion()).isEqualTo(done.completion());
    assertThat(again.ledgerEntry()).isEqualTo(done.ledgerEntry());
    assertThat(again.settlement()).isEqualTo(done.settlement());
    assertThat(again.settlement().digest()).isEqualTo(done.settlement().digest());
    assertThatThrownBy(() -> s.complete(ALICE, project, "inv1", "failed", used, 4L))
        .isInstanceOf(ConflictException.class);
    assertThatThrownBy(() -> s.complete(ALICE, project, "nope", "failed", null, null))
        .isInstanceOf(ConflictException.class);
    assertThat(usage(project).tokens()).isEqualTo(10);
  }

  @Test
  void tamperedOrMissingReceiptsMakeReplayAConflict() {
    String project = project(s, 100, null, "1h", 10, 10_000, null);
    Admission a = admit(s, project, "m1");
    String inv = a.reservation().invocationId();
    String step = a.reservation().stepRunId();
    s.complete(ALICE, project, inv, "succeeded", new TokenUsage(1, 1, 2), null);
    Admission b = admit(s, project, "m1");

    tamper(
        "UPDATE model_invocation_settlements SET released_tokens = released_tokens - 1",
        project,
        inv);
    assertThatThrownBy(
            () -> s.complete(ALICE, project, inv, "succeeded", new TokenUsage(1, 1, 2), null))
        .isInstanceOf(ConflictException.class);

    tamper("UPDATE model_invocation_reservations SET reserved_tokens = 99", project, inv);
    assertThatThrownBy(() -> s.admit(ALICE, project, inv, step))
        .isInstanceOf(ConflictException.class);

    String invB = b.reservation().invocationId();
    tamper("DELETE FROM model_invocation_starts", project, invB);
    assertThatThrownBy(() -> s.admit(ALICE, project, invB, b.reservation().stepRunId()))
        .isInstanceOf(ConflictException.class);

    // A tampered running total on the window's latest reservation blocks the window (fail closed).
    tamper("UPDATE model_invocation_reservations SET window_reserved_tokens = 0", project, invB);
    assertThatThrownBy(() -> admit(s, project, "m1")).isInstanceOf(ConflictException.class);
    assertThatThrownBy(() -> usage(project)).isInstanceOf(ConflictException.class);
  }

  @Test
  void completionReplayReChecksTheStartReceipt() {
    String project = project(s, 100, null, "1h", 10, 10_000, null);
    TokenUsage used = new TokenUsage(1, 1, 2);

    // A drifted start (its content no longer matches its digest): the replay is a conflict.
    String drifted = admit(s, project, "m1").reservation().invocationId();
    s.complete(ALICE, project, drifted, "succeeded", used, null);
    assertThat(s.complete(ALICE, project, drifted, "succeeded", used, null).created()).isFalse();
    tamper(
        "UPDATE model_invocation_starts SET started_at_ms = started_at_ms + 1", project, drifted);
    assertThatThrownBy(() -> s.complete(ALICE, project, drifted, "succeeded", used, null))
        .isInstanceOf(ConflictException.class);

    // A missing start: the replay is a conflict too.
    String missing = admit(s, project, "m1").reservation().invocationId();
    s.complete(ALICE, project, missing, "succeeded", used, null);
    tamper("DELETE FROM model_invocation_starts", project, missing);
    assertThatThrownBy(() -> s.complete(ALICE, project, missing, "succeeded", used, null))
        .isInstanceOf(ConflictException.class);
    assertThat(usage(project).tokens()).isEqualTo(4);
  }

  @Test
  void withoutAProjectCostLimitNoCostIsReservedOrSettled() {
    // The model policy caps cost; the Project quota limits no cost, or there is no quota at all.
    for (boolean quota : new boolean[] {true, false}) {
      String project = project(s, 100, 50L);
      if (quota) {
        s.putProjectQuota(ADMIN, project, "1h", 10, 10_000, null);
      }
      Admission a = admit(s, project, "m1");
      assertThat(a.reservation().reservedCostMicros()).isNull();
      Settled known = complete(a, "succeeded", new TokenUsage(1, 1, 2), 20L);
      assertThat(known.settlement().settledCostMicros()).isNull();
      assertThat(known.settlement().releasedCostMicros()).isZero();
      // The real cost lives in the UsageLedger.
      assertThat(known.ledgerEntry().costMicros()).isEqualTo(20L);

      Admission b = admit(s, project, "m1");
      Settled unknown = complete(b, "unknown", null, null);
      assertThat(unknown.settlement().settledCostMicros()).isNull();
      if (quota) {
        assertThat(usage(project).costMicros()).isZero();
      }
    }
  }

  @Test
  void admissionResponseLostAfterCommitIsReplayedWithoutCountingAgain() {
    String project = project(s, 100, 10L, "1h", 10, 10_000, 1_000L);
    s.createStepRun(ALICE, project, "s1", "r1", "m1");
    FaultyDataSource losing = FaultyDataSource.losingNextCommit(ai().newRuntimeDataSource());
    assertThatThrownBy(() -> service(losing, 600).admit(ALICE, project, "inv1", "s1"))
        .isInstanceOf(StoreUnavailableException.class);
    assertThat(losing.lostResponses()).isEqualTo(1);
    // The commit happened: the StepRun runs and the window holds one reservation.
    assertThat(state(project, "s1")).isEqualTo(StepRunState.RUNNING);
    assertThat(usage(project).invocations()).isEqualTo(1);

    Admission retry = s.admit(ALICE, project, "inv1", "s1");
    assertThat(retry.created()).isFalse();
    assertThat(retry.reservation().digestMatches()).isTrue();
    assertThat(retry.start().reservationDigest()).isEqualTo(retry.reservation().digest());
    assertThat(retry.reservation().windowInvocations()).isEqualTo(1);
    // The same receipts again (the window it carries is read at each call's own clock).
    assertThat(s.admit(ALICE, project, "inv1", "s1"))
        .usingRecursiveComparison()
        .ignoringFields("window")
        .isEqualTo(retry);
    assertUsage(project, 1, 100, 10);
  }

  @Test
  void completionResponseLostAfterCommitIsReplayedWithoutCountingAgain() {
    String project = project(s, 100, 10L, "1h", 10, 10_000, 1_000L);
    Admission a = admit(s, project, "m1");
    String inv = a.reservation().invocationId();
    TokenUsage used = new TokenUsage(3, 4, 7);
    FaultyDataSource losing = FaultyDataSource.losingNextCommit(ai().newRuntimeDataSource());
    assertThatThrownBy(
            () -> service(losing, 600).complete(ALICE, project, inv, "succeeded", used, 2L))
        .isInstanceOf(StoreUnavailableException.class);
    assertThat(losing.lostResponses()).isEqualTo(1);
    assertThat(state(project, a.reservation().stepRunId())).isEqualTo(StepRunState.SUCCEEDED);

    Settled retry = s.complete(ALICE, project, inv, "succeeded", used, 2L);
    assertThat(retry.created()).isFalse();
    assertThat(retry.reservation()).isEqualTo(a.reservation());
    assertThat(retry.settlement().reservationDigest()).isEqualTo(a.reservation().digest());
    assertThat(retry.settlement().completionDigest()).isEqualTo(retry.completion().digest());
    assertThat(retry.settlement().settledTokens()).isEqualTo(7);
    assertThat(retry.settlement().windowSettleSeq()).isEqualTo(1);
    assertThat(retry.ledgerEntry().ledgerSeq()).isEqualTo(1);
    Settled again = s.complete(ALICE, project, inv, "succeeded", used, 2L);
    assertThat(again.created()).isFalse();
    assertThat(again.settlement()).isEqualTo(retry.settlement());
    assertThat(again.ledgerEntry()).isEqualTo(retry.ledgerEntry());
    LedgerPage page = s.ledger(ALICE, project, null, null, id("read"));
    assertThat(page.items()).containsExactly(retry.ledgerEntry());
    assertUsage(project, 1, 7, 2);
  }

  @Test
  void windowFollowsTheDatabaseClock() {
    String project = project(s, 100, null, "1h", 1, 10_000, null);
    Admission a = admit(s, project, "m1");
    assertThatThrownBy(() -> admit(s, project, "m1"))
        .isInstanceOf(ModelProjectQuotaExceededException.class);

    // Move the stored window one window into the past instead of sleeping through it.
    int moved =
        ai().ownerUpdate(
                "UPDATE model_invocation_reservations SET window_start_ms = window_start_ms - ?"
                    + " WHERE project_id = ?",
                HOUR_MS,
                project);
    assertThat(moved).isEqualTo(1);
    long before = fixture.databaseNowMs();
    Admission next = admit(s, project, "m1");
    long after = fixture.databaseNowMs();
    assertThat(next.reservation().windowSeq()).isEqualTo(1);
    assertThat(next.reservation().windowStartMs())
        .isIn(before - before % HOUR_MS, after - after % HOUR_MS)
        .isGreaterThan(a.reservation().windowStartMs() - HOUR_MS);
    assertThat(usage(project).invocations()).isEqualTo(1);
  }

  @Test
  void runningStepRunEndsOnlyThroughTheQuotaAwarePath() {
    String project = project(s, 100, 7L, "1h", 10, 10_000, 100L);
    Admission a = admit(s, project, "m1");
    String step = a.reservation().stepRunId();
    assertThatThrownBy(
            () ->
                ai().ownerUpdate(
                        "UPDATE model_step_runs SET state = 'succeeded'"
                            + " WHERE project_id = ? AND step_run_id = ?",
                        project,
                        step))
        .isInstanceOf(IllegalStateException.class);
    assertThat(state(project, step)).isEqualTo(StepRunState.RUNNING);

    Settled recovered = s.recoverUnknown(ALICE, project, step);
    assertThat(recovered.completion().outcome().wireName()).isEqualTo("unknown");
    assertThat(recovered.settlement().releasedTokens()).isZero();
    assertThat(state(project, step)).isEqualTo(StepRunState.UNKNOWN);
    assertTokensAndCost(project, 100, 7);
    assertThat(s.recoverUnknown(ALICE, project, step).created()).isFalse();
  }

  /** Sweeps until nothing older than the bound is left running (other tests may leave some). */
  private static RecoverySweep sweep(ModelQuota s, Duration olderThan) {
    return s.recoverStale(olderThan, 2, 10_000);
  }

  @Test
  void sweepRecoversStaleRunningStepRunsAsUnknownKeepingTheWholeReservation() throws Exception {
    String project = project(s, 100, 7L, "1h", 10, 10_000, 1_000L);
    Admission stale = admit(s, project, "m1");
    Admission stale2 = admit(s, project, "m1");
    Admission stale3 = admit(s, project, "m1");
    String staleStep = stale.reservation().stepRunId();
    // The bound is on the database clock, and the guard trigger forbids back-dating a running
    // StepRun, so no sleep can place a row deterministically between "stale" and "fresh" on a busy
    // machine. Instead each side of the bound is checked with a bound no scheduling delay can
    // cross: an hour (nothing here is that old) keeps them; zero (everything committed before the
    // sweep's transaction is at least that old) recovers them.
    RecoverySweep tooYoung = sweep(s, Duration.ofHours(1));
    assertThat(tooYoung.recovered()).isZero();
    for (Admission a : List.of(stale, stale2, stale3)) {
      assertThat(state(project, a.reservation().stepRunId())).isEqualTo(StepRunState.RUNNING);
    }

    // Pages of 2: the three stale StepRuns of this Project span two pages.
    RecoverySweep first = sweep(s, Duration.ZERO);
    assertThat(first.recovered()).isGreaterThanOrEqualTo(3);
    // Other tests leave StepRuns with tampered receipts running: counted as conflicts, skipped
    // (keyset paging moves past them), never blocking the rest.
    for (Admission a : List.of(stale, stale2, stale3)) {
      assertThat(state(project, a.reservation().stepRunId())).isEqualTo(StepRunState.UNKNOWN);
    }
    // Idempotent: the next sweep, even with no bound at all, finds nothing left to recover.
    RecoverySweep again = sweep(s, Duration.ZERO);
    assertThat(again.recovered()).isZero();

    // A StepRun younger than the bound stays running.
    Admission fresh = admit(s, project, "m1");
    String freshStep = fresh.reservation().stepRunId();
    RecoverySweep afterFresh = sweep(s, Duration.ofHours(1));
    assertThat(afterFresh.recovered()).isZero();
    assertThat(state(project, freshStep)).isEqualTo(StepRunState.RUNNING);
    // Unknown outcome keeps the whole reservation: 4 x 100 tokens, 4 x 7 micros.
    assertUsage(project, 4, 400, 28);
    LedgerPage ledger = s.ledger(ALICE, project, 10, null, id("read"));
    assertThat(ledger.items()).hasSize(3);
    assertThat(ledger.items()).allSatisfy(e -> assertThat(e.usage()).isNull());

    // The admin route replays the sweep's completion.
    Settled replay = s.recoverStepRun(ADMIN, project, staleStep);
    assertThat(replay.created()).isFalse();
    assertThat(replay.settlement().releasedTokens()).isZero();
    assertThat(replay.completion().outcome().wireName()).isEqualTo("unknown");

    // A late completion afterwards: identical (unknown, no usage) is an exact replay, anything
    // else is 409 idempotency_key_reused and writes nothing.
    String inv = stale.reservation().invocationId();
    assertThatThrownBy(
            () -> s.complete(ALICE, project, inv, "succeeded", new TokenUsage(1, 2, 3), null))
        .isInstanceOf(IdempotencyKeyReusedException.class);
    assertThat(s.complete(ALICE, project, inv, "unknown", null, null).created()).isFalse();
    assertThat(usage(project).tokens()).isEqualTo(400);
    assertThat(s.ledger(ALICE, project, 10, null, id("read")).items()).hasSize(3);
  }

  @Test
  void adminRecoveryNeedsProjectAdminAndIsIdempotent() {
    String project = project(s, 100, null);
    Admission a = admit(s, project, "m1");
    String step = a.reservation().stepRunId();
    assertThatThrownBy(() -> s.recoverStepRun(ALICE, project, step))
        .isInstanceOf(ForbiddenException.class);
    assertThatThrownBy(() -> s.recoverStepRun(CAROL, project, step))
        .isInstanceOf(ForbiddenException.class);
    assertThat(state(project, step)).isEqualTo(StepRunState.RUNNING);
    Settled recovered = s.recoverStepRun(ADMIN, project, step);
    assertThat(recovered.created()).isTrue();
    assertThat(recovered.settlement().releasedTokens()).isZero();
    assertThat(state(project, step)).isEqualTo(StepRunState.UNKNOWN);
    Settled again = s.recoverStepRun(ADMIN, project, step);
    assertThat(again.created()).isFalse();
    assertThat(again.settlement().digest()).isEqualTo(recovered.settlement().digest());
    // A StepRun completed by its runtime is not recovered: 409, nothing written.
    Admission b = admit(s, project, "m1");
    complete(b, "succeeded", null, null);
    assertThatThrownBy(() -> s.recoverStepRun(ADMIN, project, b.reservation().stepRunId()))
        .isInstanceOf(IdempotencyKeyReusedException.class);
    s.createStepRun(ALICE, project, "never", "r1", "m1");
    assertThatThrownBy(() -> s.recoverStepRun(ADMIN, project, "never"))
        .isInstanceOf(ConflictException.class);
    assertThatThrownBy(() -> s.recoverStepRun(ADMIN, project, "nope"))
        .isInstanceOf(ConflictException.class);
  }

  /** Whether the call settled first; false if it found the invocation settled already. */
  private static boolean settledFirst(Supplier<Settled> call) {
    try {
      return call.get().created();
    } catch (IdempotencyKeyReusedException e) {
      return false;
    }
  }

  @Test
  void recoveryRacingALateCompletionEndsWithExactlyOneCompletion() throws Exception {
    ModelQuota instanceA = otherInstance();
    ModelQuota instanceB = otherInstance();
    int perRound = RACE_THREADS / 2;
    for (int round = 0; round < RACE_ROUNDS; round++) {
      String project = project(instanceA, 100, null);
      List<Admission> admitted = new ArrayList<>();
      // For each StepRun, the late completion on one instance, the recovery on the other (the
      // admin route for even StepRuns, the sweep with a zero bound for odd ones).
      List<Callable<Boolean>> calls = new ArrayList<>();
      for (int i = 0; i < perRound; i++) {
        Admission a = admit(instanceA, project, "m1");
        admitted.add(a);
        ModelQuota completer = i % 2 == 0 ? instanceA : instanceB;
        ModelQuota recoverer = i % 2 == 0 ? instanceB : instanceA;
        String invocation = a.reservation().invocationId();
        String step = a.reservation().stepRunId();
        TokenUsage used = new TokenUsage(10, 10, 20);
        calls.add(
            () ->
                settledFirst(
                    () -> completer.complete(ALICE, project, invocation, "succeeded", used, null)));
        if (i % 2 == 0) {
          calls.add(() -> settledFirst(() -> recoverer.recoverStepRun(ADMIN, project, step)));
        } else {
          calls.add(
              () -> {
                recoverer.recoverStale(Duration.ZERO, 50, 100);
                return false;
              });
        }
      }
      List<Boolean> won = race(calls);
      long expectedTokens = 0;
      for (int i = 0; i < perRound; i++) {
        boolean completed = won.get(2 * i);
        boolean recovered = won.get(2 * i + 1);
        assertThat(completed && recovered).as("round %d: both won", round).isFalse();
        StepRunState st = state(project, admitted.get(i).reservation().stepRunId());
        assertThat(st).isIn(StepRunState.SUCCEEDED, StepRunState.UNKNOWN);
        if (completed) {
          assertThat(st).isEqualTo(StepRunState.SUCCEEDED);
        }
        if (recovered) {
          assertThat(st).isEqualTo(StepRunState.UNKNOWN);
        }
        expectedTokens += st == StepRunState.SUCCEEDED ? 20 : 100;
      }
      // Exactly one completion, ledger entry and settlement per invocation.
      List<UsageLedgerEntry> entries =
          instanceA.ledger(ALICE, project, 500, null, id("read")).items();
      assertThat(entries).as("round %d ledger", round).hasSize(perRound);
      assertThat(entries.stream().map(UsageLedgerEntry::invocationId).distinct()).hasSize(perRound);
      assertThat(usage(project).tokens()).as("round %d tokens", round).isEqualTo(expectedTokens);
    }
  }

  @Test
  void callersWithoutPermissionTouchNothing() {
    String project = project(s, 100, null);
    assertThatThrownBy(() -> s.createStepRun(CAROL, project, "s1", "r1", "m1"))
        .isInstanceOf(ForbiddenException.class);
    assertThat(ai().modelQuotaStore(runtime).stepRun(project, "s1")).isEmpty();
    s.createStepRun(ALICE, project, "s1", "r1", "m1");
    assertThatThrownBy(() -> s.admit(CAROL, project, "inv1", "s1"))
        .isInstanceOf(ForbiddenException.class);
    assertThatThrownBy(() -> s.windowUsage(CAROL, project, "read-1"))
        .isInstanceOf(ForbiddenException.class);
    assertThat(state(project, "s1")).isEqualTo(StepRunState.READY);
    // The step run of another Project is indistinguishable from a missing one.
    String other = project();
    assertThatThrownBy(() -> s.admit(ALICE, other, "inv1", "s1"))
        .isInstanceOf(ConflictException.class);
  }

  @Test
  void ledgerPagesAreBoundedOrderedAndQuotaLimited() {
    // An instance of its own with 5 model-usage reads a window (this s hides the class's).
    ModelQuota s = service(runtime, 5);
    String project = project(s, 100, null);
    List<String> invocations = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      Admission a = admit(s, project, "m1");
      invocations.add(a.reservation().invocationId());
      s.complete(
          ALICE,
          project,
          a.reservation().invocationId(),
          "succeeded",
          new TokenUsage(i, 0, i),
          i * 1L);
    }
    List<UsageLedgerEntry> all = new ArrayList<>();
    String cursor = null;
    List<Integer> sizes = new ArrayList<>();
    do {
      LedgerPage page = s.ledger(ALICE, project, 3, cursor, id("read"));
      sizes.add(page.items().size());
      all.addAll(page.items());
      cursor = page.nextCursor();
    } while (cursor != null);
    assertThat(sizes).containsExactly(3, 3, 1);
    assertThat(all)
        .extracting(UsageLedgerEntry::invocationId)
        .containsExactlyElementsOf(invocations);
    assertThat(all)
        .extracting(UsageLedgerEntry::ledgerSeq)
        .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
    assertThat(all).allMatch(UsageLedgerEntry::digestMatches);

    assertThatThrownBy(() -> s.ledger(ALICE, project, 501, null, "read-x"))
        .isInstanceOf(ValidationException.class);
    assertThatThrownBy(() -> s.ledger(ALICE, project, 10, "bogus", "read-y"))
        .isInstanceOf(ValidationException.class);
    // Three pages and two more reads spend the 5 model-usage.read units of the window.
    s.ledger(ALICE, project, 500, null, "read-a");
    s.windowUsage(ALICE, project, "read-b");
    assertThatThrownBy(() -> s.ledger(ALICE, project, 500, null, "read-c"))
        .isInstanceOf(QuotaExceededException.class);
    // Another Project's ledger is empty for its own readers.
    String other = project();
    assertThat(s.ledger(ALICE, other, 10, null, "read-d").items()).isEmpty();
  }

  @Test
  void twoInstancesRacingOnOneInvocationAdmitExactlyOneEveryRound() throws Exception {
    ModelQuota instanceA = otherInstance();
    ModelQuota instanceB = otherInstance();
    for (int round = 0; round < RACE_ROUNDS; round++) {
      String project = project(instanceA, 100, 5L, "1h", 1, 1_000_000, 1_000_000L);
      List<String> steps = new ArrayList<>();
      List<Callable<Boolean>> admissions = new ArrayList<>();
      for (int t = 0; t < RACE_THREADS; t++) {
        String step = "s" + t;
        instanceA.createStepRun(ALICE, project, step, "r1", "m1");
        steps.add(step);
        ModelQuota instance = t % 2 == 0 ? instanceA : instanceB;
        String inv = "inv" + t;
        admissions.add(
            () -> {
              try {
                return instance.admit(ALICE, project, inv, step).created();
              } catch (ModelProjectQuotaExceededException e) {
                return false;
              }
            });
      }
      assertThat(race(admissions).stream().filter(created -> created))
          .as("round %d admissions", round)
          .hasSize(1);
      assertThat(usage(project).invocations()).as("round %d stored", round).isEqualTo(1);
      Set<StepRunState> states = new HashSet<>();
      int running = 0;
      for (String step : steps) {
        StepRunState st = state(project, step);
        states.add(st);
        running += st == StepRunState.RUNNING ? 1 : 0;
      }
      assertThat(running).isEqualTo(1);
      assertThat(states).containsExactlyInAnyOrder(StepRunState.RUNNING, StepRunState.READY);
    }
  }

  @Test
  void unreachableDatabaseIsUnavailable() {
    ModelQuotaStore broken = ai().modelQuotaStore(FaultyDataSource.unreachable());
    assertThatThrownBy(
            () -> broken.admit(new dev.qinglong.core.modelquota.AdmissionRequest("p", "i", "s")))
        .isInstanceOf(StoreUnavailableException.class);
    assertThatThrownBy(() -> broken.currentWindowUsage("p"))
        .isInstanceOf(StoreUnavailableException.class);
  }

  // --- the reads behind the Location of a StepRun and of an admission ---

  @Test
  void aStepRunAndAnAdmittedInvocationAreReadBackOnlyInTheirProject() {
    String project = project(s, 4096, null);
    String step = id("s");
    dev.qinglong.core.modelquota.StepRun created =
        s.createStepRun(ALICE, project, step, "run-1", "m1").stepRun();
    assertThat(s.stepRun(ALICE, project, step)).isEqualTo(created);
    assertThatThrownBy(() -> s.invocation(ALICE, project, "inv-none"))
        .isInstanceOf(ConflictException.class);

    Admission admitted = s.admit(ALICE, project, id("inv"), step);
    String invocation = admitted.reservation().invocationId();
    Admission read = s.invocation(ALICE, project, invocation);
    assertThat(read.created()).isFalse();
    assertThat(read.reservation()).isEqualTo(admitted.reservation());
    assertThat(read.start()).isEqualTo(admitted.start());
    assertThat(s.stepRun(ALICE, project, step).state()).isEqualTo(StepRunState.RUNNING);
    assertThat(s.stepRun(ALICE, project, step).invocationId()).isEqualTo(invocation);

    // Absent and another Project's alike: the same conflict, nothing to tell them apart.
    String other = project();
    for (Runnable unknown :
        List.<Runnable>of(
            () -> s.stepRun(ALICE, other, step),
            () -> s.stepRun(ALICE, project, "s-none"),
            () -> s.invocation(ALICE, other, invocation),
            () -> s.invocation(ALICE, project, "inv-none"))) {
      assertThatThrownBy(unknown::run)
          .isInstanceOf(ConflictException.class)
          .hasMessage("no such object in this project");
    }
    // The store itself scopes the read by Project.
    assertThat(ai().modelQuotaStore(runtime).invocation(other, invocation)).isEmpty();
  }

  @Test
  void readingAStepRunOrAnInvocationNeedsModelInvoke() {
    String project = project(s, 4096, null);
    Admission admitted = admit(s, project, "m1");
    String step = admitted.reservation().stepRunId();
    String invocation = admitted.reservation().invocationId();
    assertThatThrownBy(() -> s.stepRun(CAROL, project, step))
        .isInstanceOf(ForbiddenException.class);
    assertThatThrownBy(() -> s.invocation(CAROL, project, invocation))
        .isInstanceOf(ForbiddenException.class);
  }
}
