package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.ConflictException;

/**
 * The decisions of the model-invocation quota (docs/design.md#model-invocation-quota), as pure
 * functions over what a store read. A store reads one {@link AdmissionSnapshot} or {@link
 * CompletionSnapshot}, calls {@link #admit(AdmissionRequest, AdmissionSnapshot)} or {@link
 * #complete(CompletionRequest, CompletionSnapshot)} once, and writes exactly the receipts the
 * outcome carries (or nothing), so the stores cannot disagree on a rule.
 */
public final class ModelQuotaRules {
  private ModelQuotaRules() {}

  /**
   * The configuration fail-closed rule: a Project cost limit with a model policy that has no cost
   * cap. Unknown cost is never treated as zero, so such an invocation cannot be admitted.
   */
  public static boolean configurationError(ModelInvocationPolicy policy, ProjectQuotaPolicy quota) {
    return quota != null && quota.maxCostMicros() != null && policy.maxCostMicros() == null;
  }

  /**
   * The window's usage from its latest reservation and latest settlement (either may be {@code
   * null} when the window has none): running totals of reservations minus running totals of
   * releases.
   *
   * @throws ConflictException if either receipt has drifted from its digest or belongs to another
   *     window (fail closed: a tampered running total must never decide an admission)
   */
  public static WindowUsage usage(WindowRef window, Reservation head, Settlement settledHead) {
    long invocations = 0;
    long tokens = 0;
    long cost = 0;
    if (head != null) {
      requireIntact(head.digestMatches() && head.window().equals(window), "reservation");
      invocations = head.windowInvocations();
      tokens = head.windowReservedTokens();
      cost = head.windowReservedCostMicros();
    }
    if (settledHead != null) {
      requireIntact(
          head != null && settledHead.digestMatches() && settledHead.window().equals(window),
          "settlement");
      tokens -= settledHead.windowReleasedTokens();
      cost -= settledHead.windowReleasedCostMicros();
    }
    requireIntact(tokens >= 0 && cost >= 0 && invocations >= 0, "window totals");
    return new WindowUsage(window, invocations, tokens, cost);
  }

  /**
   * Decides one admission from what the store read: a replay when the invocation id has receipts,
   * else {@link AdmissionOutcome.Admitted} with the receipts to write, {@link
   * AdmissionOutcome.Refused} or {@link AdmissionOutcome.Rejected}. Every outcome but a rejection
   * carries the window as decided, for the caller's rate-limit answer.
   *
   * @throws ConflictException if a head receipt has drifted (not on a replay: its window is then
   *     {@code null})
   * @throws IllegalStateException if the snapshot's window is not the one containing its clock
   *     under its quota policy (the store read the wrong heads)
   */
  public static AdmissionOutcome admit(AdmissionRequest request, AdmissionSnapshot s) {
    WindowRef window = WindowRef.containing(request.projectId(), s.quota(), s.nowMs());
    if (!window.equals(s.window())) {
      throw new IllegalStateException("snapshot read another window. Indicates a bug.");
    }
    if (s.existing() != null || s.existingStart() != null) {
      WindowUsageReading reading;
      try {
        reading =
            new WindowUsageReading(
                usage(window, s.windowHead(), s.settledHead()), s.quota(), s.nowMs());
      } catch (ConflictException e) {
        reading = null; // the replay is judged on its own receipts; only its headers are lost
      }
      return new AdmissionOutcome.Existing(s.existing(), s.existingStart(), reading);
    }
    return admit(
        request,
        s.nowMs(),
        window,
        s.stepRun(),
        s.policy(),
        s.quota(),
        s.ofStepRun(),
        s.windowHead(),
        s.settledHead());
  }

  /**
   * Decides one completion from what the store read: a replay when the invocation has a completion,
   * ledger entry or settlement (all or none of one earlier completion, as one consistent read saw
   * them), {@link CompletionOutcome.Reason#NO_RESERVATION} without a reservation, else as {@link
   * #complete(CompletionRequest, long, Reservation, InvocationStart, StepRun, Settlement, long)}
   * with the next ledger sequence number.
   */
  public static CompletionOutcome complete(CompletionRequest request, CompletionSnapshot s) {
    if (s.completion() != null || s.ledgerEntry() != null || s.settlement() != null) {
      return new CompletionOutcome.Existing(
          s.reservation(), s.start(), s.completion(), s.ledgerEntry(), s.settlement());
    }
    if (s.reservation() == null) {
      return new CompletionOutcome.Rejected(CompletionOutcome.Reason.NO_RESERVATION);
    }
    return complete(
        request,
        s.nowMs(),
        s.reservation(),
        s.start(),
        s.stepRun(),
        s.settledHead(),
        Math.addExact(s.lastLedgerSeq(), 1));
  }

  /**
   * Decides an admission.
   *
   * @param nowMs the database clock, read in the deciding transaction
   * @param window the window containing {@code nowMs} under {@code quota} (see {@link
   *     WindowRef#containing})
   * @param stepRun the StepRun named by the request, or {@code null}
   * @param policy the latest model policy of the StepRun's model, or {@code null}
   * @param quota the latest Project quota policy, or {@code null} (unfenced)
   * @param stepReservation a reservation already bound to the StepRun, or {@code null}
   * @param head the window's latest reservation, or {@code null}
   * @param settledHead the window's latest settlement, or {@code null}
   * @return {@link AdmissionOutcome.Admitted} with the receipts to write, {@link
   *     AdmissionOutcome.Refused} or {@link AdmissionOutcome.Rejected}
   * @throws ConflictException if a head receipt has drifted
   */
  static AdmissionOutcome admit(
      AdmissionRequest request,
      long nowMs,
      WindowRef window,
      StepRun stepRun,
      ModelInvocationPolicy policy,
      ProjectQuotaPolicy quota,
      Reservation stepReservation,
      Reservation head,
      Settlement settledHead) {
    if (stepRun == null) {
      return new AdmissionOutcome.Rejected(AdmissionOutcome.Reason.NO_STEP_RUN);
    }
    if (stepRun.state() != StepRunState.READY) {
      return new AdmissionOutcome.Rejected(AdmissionOutcome.Reason.STEP_RUN_NOT_READY);
    }
    if (stepReservation != null) {
      return new AdmissionOutcome.Rejected(AdmissionOutcome.Reason.UNEXPECTED_RECEIPT);
    }
    if (policy == null || !policy.modelId().equals(stepRun.modelId())) {
      return new AdmissionOutcome.Rejected(AdmissionOutcome.Reason.NO_MODEL_POLICY);
    }
    if (configurationError(policy, quota)) {
      return new AdmissionOutcome.Rejected(AdmissionOutcome.Reason.COST_CAP_MISSING);
    }
    if (!window.equals(WindowRef.containing(request.projectId(), quota, nowMs))) {
      throw new IllegalArgumentException("window does not contain now. Indicates a bug.");
    }
    WindowUsage usage = usage(window, head, settledHead);
    long tokens = policy.maxTotalTokens();
    // Cost is reserved only under a Project cost limit (docs/design.md#why-reserve-the-worst-case):
    // without a cost quota the settlement's cost stays null and the real cost lives only in the
    // UsageLedger.
    Long cost = quota != null && quota.maxCostMicros() != null ? policy.maxCostMicros() : null;
    long costOrZero = cost == null ? 0 : cost;
    if (quota != null) {
      boolean fits =
          usage.invocations() + 1 <= quota.maxInvocations()
              && usage.tokens() + tokens <= quota.maxTokens()
              && (quota.maxCostMicros() == null
                  || usage.costMicros() + costOrZero <= quota.maxCostMicros());
      if (!fits) {
        return new AdmissionOutcome.Refused(
            new WindowUsageReading(usage, quota, nowMs), window.secondsUntilEnd(nowMs));
      }
    }
    long seq = head == null ? 1 : Math.addExact(head.windowSeq(), 1);
    long previousInvocations = head == null ? 0 : head.windowInvocations();
    long previousTokens = head == null ? 0 : head.windowReservedTokens();
    long previousCost = head == null ? 0 : head.windowReservedCostMicros();
    Reservation reservation =
        Receipt.sealed(
            digest ->
                new Reservation(
                    request.projectId(),
                    request.invocationId(),
                    stepRun.stepRunId(),
                    stepRun.runId(),
                    stepRun.modelId(),
                    policy.revision(),
                    quota == null ? 0 : quota.revision(),
                    window.windowStartMs(),
                    window.windowMs(),
                    WindowBudget.of(quota),
                    tokens,
                    cost,
                    seq,
                    Math.addExact(previousInvocations, 1),
                    Math.addExact(previousTokens, tokens),
                    Math.addExact(previousCost, costOrZero),
                    nowMs,
                    digest));
    WindowUsage after =
        new WindowUsage(
            window,
            reservation.windowInvocations(),
            usage.tokens() + tokens,
            usage.costMicros() + costOrZero);
    return new AdmissionOutcome.Admitted(
        reservation,
        InvocationStart.create(reservation, nowMs),
        new WindowUsageReading(after, quota, nowMs));
  }

  /**
   * Decides a completion of a reserved invocation (docs/design.md#reservation-and-settlement).
   *
   * <ul>
   *   <li>Outcome {@code unknown}, or usage unknown: every reserved token stays.
   *   <li>Known usage: the window keeps {@code totalTokens}, the rest is released.
   *   <li>Cost: only where the reservation reserved cost. Known cost is kept and the rest released;
   *       unknown cost keeps the whole cost reservation. Without a cost reservation the settled
   *       cost is {@code null} and the real cost lives only in the UsageLedger.
   *   <li>Tokens or cost above the reservation: a contract breach → {@link
   *       CompletionOutcome.Reason#USAGE_ABOVE_RESERVATION}, nothing written, the reservation
   *       stays.
   * </ul>
   *
   * @param reservation the invocation's reservation (not {@code null})
   * @param start its start receipt, or {@code null}
   * @param stepRun its StepRun, or {@code null}
   * @param settledHead the latest settlement of the reservation's window, or {@code null}
   * @param ledgerSeq the sequence number the new ledger entry gets
   * @throws ConflictException if a stored receipt has drifted from its digest
   */
  static CompletionOutcome complete(
      CompletionRequest request,
      long nowMs,
      Reservation reservation,
      InvocationStart start,
      StepRun stepRun,
      Settlement settledHead,
      long ledgerSeq) {
    requireIntact(reservation.digestMatches(), "reservation");
    if (start == null
        || stepRun == null
        || !start.digestMatches()
        || !start.reservationDigest().equals(reservation.digest())
        || !stepRun.stepRunId().equals(reservation.stepRunId())) {
      return new CompletionOutcome.Rejected(CompletionOutcome.Reason.MISSING_RECEIPT);
    }
    if (stepRun.state() != StepRunState.RUNNING
        || !reservation.invocationId().equals(stepRun.invocationId())) {
      return new CompletionOutcome.Rejected(CompletionOutcome.Reason.STEP_RUN_NOT_RUNNING);
    }
    boolean keepAll = request.outcome() == InvocationOutcome.UNKNOWN;
    long settledTokens = reservation.reservedTokens();
    if (!keepAll && request.usage() != null) {
      if (request.usage().totalTokens() > reservation.reservedTokens()) {
        return new CompletionOutcome.Rejected(CompletionOutcome.Reason.USAGE_ABOVE_RESERVATION);
      }
      settledTokens = request.usage().totalTokens();
    }
    Long settledCost = null;
    Long reservedCost = reservation.reservedCostMicros();
    if (reservedCost != null) {
      settledCost = reservedCost;
      if (!keepAll && request.costMicros() != null) {
        if (request.costMicros() > reservedCost) {
          return new CompletionOutcome.Rejected(CompletionOutcome.Reason.USAGE_ABOVE_RESERVATION);
        }
        settledCost = request.costMicros();
      }
    }
    if (settledHead != null) {
      requireIntact(
          settledHead.digestMatches() && settledHead.window().equals(reservation.window()),
          "settlement");
    }
    Completion completion =
        Receipt.sealed(
            digest ->
                new Completion(
                    reservation.projectId(),
                    reservation.invocationId(),
                    reservation.stepRunId(),
                    request.outcome(),
                    request.usage(),
                    request.costMicros(),
                    nowMs,
                    digest));
    UsageLedgerEntry entry = UsageLedgerEntry.create(ledgerSeq, reservation, completion, nowMs);
    Settlement settlement =
        Settlement.create(reservation, completion, settledHead, settledTokens, settledCost, nowMs);
    return new CompletionOutcome.Completed(reservation, completion, entry, settlement);
  }

  private static void requireIntact(boolean intact, String what) {
    if (!intact) {
      throw new ConflictException("stored " + what + " receipt drifted from its digest");
    }
  }
}
