package dev.qinglong.core.modelquota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.kernel.ConflictException;
import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.core.kernel.ValidationException;
import org.junit.jupiter.api.Test;

class ModelQuotaRulesTest {
  private static final String P = "prj";
  private static final long NOW = 1_700_000_123_456L;
  private static final ModelInvocationPolicy CAPPED =
      new ModelInvocationPolicy(P, "m1", 1, 1000, 50L, 1);
  private static final ModelInvocationPolicy UNCAPPED =
      new ModelInvocationPolicy(P, "m1", 2, 1000, null, 1);

  private static ProjectQuotaPolicy quota(long invocations, long tokens, Long cost) {
    return new ProjectQuotaPolicy(P, 3, QuotaWindow.ONE_MINUTE, invocations, tokens, cost, 1);
  }

  private static StepRun ready(String id) {
    return new StepRun(P, id, "run", "m1", StepRunState.READY, null, 1, 1);
  }

  private static AdmissionOutcome admit(
      String inv, ModelInvocationPolicy policy, ProjectQuotaPolicy q, Reservation head) {
    return ModelQuotaRules.admit(
        new AdmissionRequest(P, inv, "s-" + inv), snapshot(inv, policy, q, null, head));
  }

  private static AdmissionSnapshot snapshot(
      String inv,
      ModelInvocationPolicy policy,
      ProjectQuotaPolicy q,
      Reservation existing,
      Reservation head) {
    return new AdmissionSnapshot(
        NOW,
        WindowRef.containing(P, q, NOW),
        q,
        existing,
        existing == null ? null : InvocationStart.create(existing, NOW),
        ready("s-" + inv),
        policy,
        null,
        head,
        null);
  }

  @Test
  void anAdmissionCarriesTheWindowWithItsOwnReservationCounted() {
    ProjectQuotaPolicy q = quota(10, 10_000, 500L);
    AdmissionOutcome first = admit("i1", CAPPED, q, null);
    AdmissionOutcome second = admit("i2", CAPPED, q, admitted(first));
    assertThat(second.window().usage())
        .isEqualTo(new WindowUsage(WindowRef.containing(P, q, NOW), 2, 2000, 100));
    assertThat(second.window().quota()).isEqualTo(q);
    assertThat(second.window().databaseNowMs()).isEqualTo(NOW);
  }

  @Test
  void aRefusalCarriesTheWindowAsRead() {
    Reservation head = admitted(admit("i1", CAPPED, quota(10, 10_000, 500L), null));
    ProjectQuotaPolicy full = quota(1, 10_000, 500L);
    AdmissionOutcome refused = admit("i2", CAPPED, full, head);
    assertThat(refused).isInstanceOf(AdmissionOutcome.Refused.class);
    assertThat(refused.window().usage())
        .isEqualTo(new WindowUsage(WindowRef.containing(P, full, NOW), 1, 1000, 50));
    assertThat(refused.window().quota()).isEqualTo(full);
  }

  @Test
  void aReplayReturnsTheStoredReceiptsAndTheWindowAndDecidesNothing() {
    ProjectQuotaPolicy q = quota(10, 10_000, 500L);
    Reservation stored = admitted(admit("i1", CAPPED, q, null));
    AdmissionOutcome replay =
        ModelQuotaRules.admit(
            new AdmissionRequest(P, "i1", "s-i1"), snapshot("i1", CAPPED, q, stored, stored));
    assertThat(replay).isInstanceOf(AdmissionOutcome.Existing.class);
    assertThat(((AdmissionOutcome.Existing) replay).reservation()).isEqualTo(stored);
    assertThat(replay.window().usage().invocations()).isEqualTo(1);
  }

  @Test
  void aSnapshotOfAnotherWindowIsABug() {
    ProjectQuotaPolicy q = quota(10, 10_000, null);
    AdmissionSnapshot s = snapshot("i1", CAPPED, q, null, null);
    AdmissionSnapshot elsewhere =
        new AdmissionSnapshot(
            s.nowMs(),
            new WindowRef(P, s.window().windowStartMs() - 60_000, 60_000),
            s.quota(),
            null,
            null,
            s.stepRun(),
            s.policy(),
            null,
            null,
            null);
    assertThatThrownBy(
            () -> ModelQuotaRules.admit(new AdmissionRequest(P, "i1", "s-i1"), elsewhere))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aCompletionSnapshotWithoutReservationIsRejectedAndWithACompletionIsAReplay() {
    CompletionRequest request =
        new CompletionRequest(P, "i1", InvocationOutcome.UNKNOWN, null, null);
    assertThat(
            ModelQuotaRules.complete(
                request, new CompletionSnapshot(NOW, null, null, null, null, null, null, null, 0)))
        .isEqualTo(new CompletionOutcome.Rejected(CompletionOutcome.Reason.NO_RESERVATION));
    Reservation r = admitted(admit("i1", CAPPED, quota(10, 10_000, null), null));
    Completion earlier =
        Receipt.sealed(
            digest ->
                new Completion(
                    P, "i1", r.stepRunId(), InvocationOutcome.UNKNOWN, null, null, NOW, digest));
    assertThat(
            ModelQuotaRules.complete(
                request, new CompletionSnapshot(NOW, r, earlier, null, null, null, null, null, 0)))
        .isEqualTo(new CompletionOutcome.Existing(r, null, earlier, null, null));
  }

  private static Reservation admitted(AdmissionOutcome o) {
    assertThat(o).isInstanceOf(AdmissionOutcome.Admitted.class);
    return ((AdmissionOutcome.Admitted) o).reservation();
  }

  @Test
  void reservesTheWorstCaseAndCarriesRunningTotals() {
    ProjectQuotaPolicy q = quota(10, 10_000, 500L);
    Reservation first = admitted(admit("i1", CAPPED, q, null));
    assertThat(first.windowStartMs()).isEqualTo(NOW - NOW % 60_000);
    assertThat(first.reservedTokens()).isEqualTo(1000);
    assertThat(first.reservedCostMicros()).isEqualTo(50L);
    assertThat(first.windowSeq()).isEqualTo(1);
    Reservation second = admitted(admit("i2", CAPPED, q, first));
    assertThat(second.windowSeq()).isEqualTo(2);
    assertThat(second.windowInvocations()).isEqualTo(2);
    assertThat(second.windowReservedTokens()).isEqualTo(2000);
    assertThat(second.windowReservedCostMicros()).isEqualTo(100);
    assertThat(second.budget()).isEqualTo(new WindowBudget(10L, 10_000L, 500L));
    assertThat(second.digestMatches()).isTrue();
  }

  @Test
  void eachDimensionFences() {
    Reservation head = admitted(admit("i1", CAPPED, quota(10, 10_000, 500L), null));
    assertThat(admit("i2", CAPPED, quota(1, 10_000, 500L), head))
        .isInstanceOf(AdmissionOutcome.Refused.class);
    assertThat(admit("i2", CAPPED, quota(10, 1999, 500L), head))
        .isInstanceOf(AdmissionOutcome.Refused.class);
    assertThat(admit("i2", CAPPED, quota(10, 2000, 99L), head))
        .isInstanceOf(AdmissionOutcome.Refused.class);
    admitted(admit("i2", CAPPED, quota(2, 2000, 100L), head));
  }

  @Test
  void refusalRetriesAtTheWindowEnd() {
    AdmissionOutcome o = admit("i1", CAPPED, quota(1, 999, null), null);
    long remainingMs = 60_000 - NOW % 60_000;
    assertThat(((AdmissionOutcome.Refused) o).retryAfterSeconds())
        .isEqualTo((remainingMs + 999) / 1000);
  }

  @Test
  void costLimitWithoutCostCapIsAConfigurationError() {
    assertThat(admit("i1", UNCAPPED, quota(10, 10_000, 500L), null))
        .isEqualTo(new AdmissionOutcome.Rejected(AdmissionOutcome.Reason.COST_CAP_MISSING));
    // Without a Project cost limit an uncapped model reserves no cost and is admitted.
    assertThat(admitted(admit("i1", UNCAPPED, quota(10, 10_000, null), null)).reservedCostMicros())
        .isNull();
  }

  @Test
  void noQuotaAdmitsIntoTheUnfencedDayWindow() {
    Reservation r = admitted(admit("i1", CAPPED, null, null));
    assertThat(r.windowMs()).isEqualTo(86_400_000L);
    assertThat(r.quotaPolicyRevision()).isZero();
    assertThat(r.budget()).isEqualTo(WindowBudget.UNFENCED);
  }

  @Test
  void tamperedHeadIsAConflict() {
    Reservation head = admitted(admit("i1", CAPPED, quota(10, 10_000, null), null));
    Reservation tampered =
        new Reservation(
            head.projectId(),
            head.invocationId(),
            head.stepRunId(),
            head.runId(),
            head.modelId(),
            head.modelPolicyRevision(),
            head.quotaPolicyRevision(),
            head.windowStartMs(),
            head.windowMs(),
            head.budget(),
            head.reservedTokens(),
            head.reservedCostMicros(),
            head.windowSeq(),
            head.windowInvocations(),
            0,
            head.windowReservedCostMicros(),
            head.reservedAtMs(),
            head.digest());
    assertThatThrownBy(() -> admit("i2", CAPPED, quota(10, 10_000, null), tampered))
        .isInstanceOf(ConflictException.class);
  }

  private static CompletionOutcome complete(
      Reservation r, InvocationOutcome outcome, TokenUsage usage, Long cost) {
    StepRun running =
        new StepRun(P, r.stepRunId(), "run", "m1", StepRunState.RUNNING, r.invocationId(), 1, 2);
    return ModelQuotaRules.complete(
        new CompletionRequest(P, r.invocationId(), outcome, usage, cost),
        NOW + 5,
        r,
        InvocationStart.create(r, NOW),
        running,
        null,
        1);
  }

  private static Settlement settled(CompletionOutcome o) {
    assertThat(o).isInstanceOf(CompletionOutcome.Completed.class);
    return ((CompletionOutcome.Completed) o).settlement();
  }

  @Test
  void knownUsageSettlesActualsAndReleasesTheRest() {
    Reservation r = admitted(admit("i1", CAPPED, quota(10, 10_000, 500L), null));
    Settlement s =
        settled(complete(r, InvocationOutcome.SUCCEEDED, new TokenUsage(100, 200, 300), 20L));
    assertThat(s.settledTokens()).isEqualTo(300);
    assertThat(s.releasedTokens()).isEqualTo(700);
    assertThat(s.settledCostMicros()).isEqualTo(20L);
    assertThat(s.releasedCostMicros()).isEqualTo(30);
    assertThat(s.windowReleasedTokens()).isEqualTo(700);
    assertThat(s.reservationDigest()).isEqualTo(r.digest());
  }

  @Test
  void unknownOutcomeOrUnknownUsageKeepsEverything() {
    Reservation r = admitted(admit("i1", CAPPED, quota(10, 10_000, 500L), null));
    Settlement unknown =
        settled(complete(r, InvocationOutcome.UNKNOWN, new TokenUsage(1, 1, 2), 1L));
    assertThat(unknown.settledTokens()).isEqualTo(1000);
    assertThat(unknown.settledCostMicros()).isEqualTo(50L);
    assertThat(unknown.releasedTokens()).isZero();
    assertThat(unknown.releasedCostMicros()).isZero();
    Settlement failedUnknownUsage = settled(complete(r, InvocationOutcome.FAILED, null, null));
    assertThat(failedUnknownUsage.releasedTokens()).isZero();
    assertThat(failedUnknownUsage.releasedCostMicros()).isZero();
    // Known tokens but unknown cost: tokens are released, the cost reservation stays whole.
    Settlement costUnknown =
        settled(complete(r, InvocationOutcome.SUCCEEDED, new TokenUsage(1, 1, 2), null));
    assertThat(costUnknown.releasedTokens()).isEqualTo(998);
    assertThat(costUnknown.settledCostMicros()).isEqualTo(50L);
  }

  @Test
  void costIsSettledOnlyWhereReserved() {
    Reservation r = admitted(admit("i1", UNCAPPED, quota(10, 10_000, null), null));
    Settlement s =
        settled(complete(r, InvocationOutcome.SUCCEEDED, new TokenUsage(1, 1, 2), 12_345L));
    assertThat(s.settledCostMicros()).isNull();
    assertThat(s.releasedCostMicros()).isZero();
  }

  @Test
  void aModelCostCapWithoutAProjectCostLimitReservesAndSettlesNoCost() {
    // No cost quota → settlement cost stays null, however the model policy caps cost.
    for (ProjectQuotaPolicy q : new ProjectQuotaPolicy[] {quota(10, 10_000, null), null}) {
      Reservation r = admitted(admit("i1", CAPPED, q, null));
      assertThat(r.reservedCostMicros()).isNull();
      assertThat(r.windowReservedCostMicros()).isZero();
      Settlement known =
          settled(complete(r, InvocationOutcome.SUCCEEDED, new TokenUsage(1, 1, 2), 20L));
      assertThat(known.settledCostMicros()).isNull();
      assertThat(known.releasedCostMicros()).isZero();
      assertThat(settled(complete(r, InvocationOutcome.UNKNOWN, null, null)).settledCostMicros())
          .isNull();
    }
  }

  @Test
  void usageAboveTheReservationIsABreach() {
    Reservation r = admitted(admit("i1", CAPPED, quota(10, 10_000, 500L), null));
    assertThat(complete(r, InvocationOutcome.SUCCEEDED, new TokenUsage(0, 1001, 1001), 1L))
        .isEqualTo(
            new CompletionOutcome.Rejected(CompletionOutcome.Reason.USAGE_ABOVE_RESERVATION));
    assertThat(complete(r, InvocationOutcome.SUCCEEDED, new TokenUsage(0, 1, 1), 51L))
        .isEqualTo(
            new CompletionOutcome.Rejected(CompletionOutcome.Reason.USAGE_ABOVE_RESERVATION));
  }

  @Test
  void usageTotalsMustAddUp() {
    assertThatThrownBy(() -> new TokenUsage(2, 2, 3)).isInstanceOf(ValidationException.class);
    assertThatThrownBy(() -> new TokenUsage(-1, 0, 0)).isInstanceOf(ValidationException.class);
  }

  @Test
  void canonicalEncodingIsSortedAndDigestIsStable() {
    Reservation r =
        Receipt.sealed(
            digest ->
                new Reservation(
                    "p",
                    "i",
                    "s",
                    "r",
                    "m",
                    1,
                    0,
                    0,
                    86_400_000L,
                    WindowBudget.UNFENCED,
                    10,
                    null,
                    1,
                    1,
                    10,
                    0,
                    5,
                    digest));
    assertThat(r.canonicalJson())
        .isEqualTo(
            "{\"invocationId\":\"i\",\"modelId\":\"m\",\"modelPolicyRevision\":1,"
                + "\"projectId\":\"p\",\"quotaPolicyRevision\":0,\"reservedAtMs\":5,"
                + "\"reservedCostMicros\":null,\"reservedTokens\":10,\"runId\":\"r\","
                + "\"stepRunId\":\"s\",\"type\":\"qinglong/model-invocation-quota-reservation@v1\","
                + "\"windowBudget\":{\"maxCostMicros\":null,\"maxInvocations\":null,"
                + "\"maxTokens\":null},\"windowMs\":86400000,\"windowStartMs\":0,"
                + "\"windowTotals\":{\"invocations\":1,\"reservedCostMicros\":0,"
                + "\"reservedTokens\":10,\"seq\":1}}");
    assertThat(r.digest()).isEqualTo(Sha256Digest.ofUtf8(r.canonicalJson()));
  }

  @Test
  void ledgerCursorRoundTripsAndRejectsForgeries() {
    assertThat(LedgerCursor.decode(LedgerCursor.encode(42))).isEqualTo(42);
    assertThat(LedgerCursor.decode(null)).isZero();
    assertThatThrownBy(() -> LedgerCursor.decode("42")).isInstanceOf(ValidationException.class);
    assertThatThrownBy(() -> LedgerCursor.decode("!!")).isInstanceOf(ValidationException.class);
  }

  @Test
  void stepRunStateMachine() {
    assertThat(StepRunState.READY.canBecome(StepRunState.RUNNING)).isTrue();
    assertThat(StepRunState.READY.canBecome(StepRunState.SUCCEEDED)).isFalse();
    assertThat(StepRunState.RUNNING.canBecome(StepRunState.UNKNOWN)).isTrue();
    assertThat(StepRunState.SUCCEEDED.canBecome(StepRunState.RUNNING)).isFalse();
  }
}
