package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.ConflictException;
import dev.qinglong.core.kernel.ForbiddenException;
import dev.qinglong.core.kernel.IdempotencyKeyReusedException;
import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectPolicy;
import dev.qinglong.core.quota.ManagementQuota;
import dev.qinglong.core.quota.QuotaExceededException;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.core.quota.ReceiptId;
import dev.qinglong.core.quota.RequestDigest;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * Model-invocation quota (docs/design.md#model-invocation-quota): policies, StepRuns, atomic
 * admission and settlement, and the usage reads.
 *
 * <p>Every operation runs in the same order: validate → Project Policy → (reads only) durable
 * management quota {@code model-usage.read} under the request's id → store. A malformed or
 * unauthorised request therefore touches nothing.
 *
 * <p>Exceptions, with the HTTP mapping the routes use: {@link ValidationException} 400, {@link
 * ForbiddenException} 403, {@link IdempotencyKeyReusedException} 409 {@code idempotency_key_reused}
 * (a stepRunId, invocationId or completion reused for a different request), {@link
 * ConflictException} 409 (unknown or foreign object, state, drifted/missing/unexpected receipt,
 * usage above the reservation), {@link ModelQuotaConfigurationException} 409 (cost limit without a
 * cost cap), {@link ModelPolicyMissingException} 409 (admission before the model has a policy),
 * {@link ModelProjectQuotaExceededException} 429 {@code model_project_quota_exceeded}, {@link
 * QuotaExceededException} 429 {@code quota_exceeded} (reads), {@link StoreUnavailableException}
 * 503.
 */
public record ModelQuota(
    ProjectPolicy policy,
    ManagementQuota managementQuota,
    ModelQuotaStore store,
    ModelQuotaListener listener) {
  /** The longest ledger cursor accepted (an issued one is far shorter). */
  public static final int MAX_CURSOR_LENGTH = 64;

  /** The largest ledger page. */
  public static final int MAX_LEDGER_PAGE = 500;

  /** The page size when the caller gives none. */
  public static final int DEFAULT_LEDGER_PAGE = 100;

  /** The largest page of stale StepRuns one recovery step reads. */
  public static final int MAX_RECOVERY_PAGE = 500;

  public ModelQuota(ProjectPolicy policy, ManagementQuota managementQuota, ModelQuotaStore store) {
    this(policy, managementQuota, store, ModelQuotaListener.NONE);
  }

  public ModelQuota {
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(managementQuota, "managementQuota");
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(listener, "listener");
  }

  /**
   * Sets the model's invocation policy (new immutable revision unless unchanged). Needs {@code
   * project.admin}.
   */
  public ModelInvocationPolicy putModelPolicy(
      Principal caller, String projectId, String modelId, long maxTotalTokens, Long maxCostMicros) {
    Identifiers.require("projectId", projectId);
    Identifiers.require("modelId", modelId);
    Limits.require("maxTotalTokens", maxTotalTokens, 1, Limits.MAX_INVOCATION_TOKENS);
    Limits.requireNullable("maxCostMicros", maxCostMicros, 0, Limits.MAX_AMOUNT);
    policy.requireAny(caller, projectId, Permission.PROJECT_ADMIN);
    return store.putModelPolicy(projectId, modelId, maxTotalTokens, maxCostMicros);
  }

  /**
   * Sets the Project's quota policy (new immutable revision unless unchanged). Needs {@code
   * project.admin}.
   *
   * @param window {@code 1m}, {@code 1h} or {@code 1d}
   */
  public ProjectQuotaPolicy putProjectQuota(
      Principal caller,
      String projectId,
      String window,
      long maxInvocations,
      long maxTokens,
      Long maxCostMicros) {
    Identifiers.require("projectId", projectId);
    QuotaWindow w = QuotaWindow.fromWire(ValidationException.required("window", window));
    Limits.require("maxInvocations", maxInvocations, 1, Limits.MAX_INVOCATIONS);
    Limits.require("maxTokens", maxTokens, 1, Limits.MAX_AMOUNT);
    Limits.requireNullable("maxCostMicros", maxCostMicros, 0, Limits.MAX_AMOUNT);
    policy.requireAny(caller, projectId, Permission.PROJECT_ADMIN);
    return store.putProjectQuota(projectId, w, maxInvocations, maxTokens, maxCostMicros);
  }

  /**
   * Creates a {@code ready} StepRun. Needs {@code model.invoke}.
   *
   * @return the StepRun and {@code created=true}, or the existing one on an exact replay
   * @throws IdempotencyKeyReusedException if the id already names a StepRun of another run or model
   */
  public StepRunCreation createStepRun(
      Principal caller, String projectId, String stepRunId, String runId, String modelId) {
    Identifiers.require("projectId", projectId);
    Identifiers.require("stepRunId", stepRunId);
    Identifiers.require("runId", runId);
    Identifiers.require("modelId", modelId);
    policy.requireAny(caller, projectId, Permission.MODEL_INVOKE);
    StepRunCreation result = store.createStepRun(projectId, stepRunId, runId, modelId);
    StepRun s = result.stepRun();
    if (!result.created() && (!s.runId().equals(runId) || !s.modelId().equals(modelId))) {
      throw new IdempotencyKeyReusedException("stepRunId already used for another run or model");
    }
    return result;
  }

  /**
   * One StepRun, as stored (the {@code Location} of its creation). Needs {@code model.invoke}, as
   * its creation; reads no quota, as its creation consumes none.
   *
   * @throws ConflictException if the StepRun does not exist in the Project (absent and foreign
   *     alike)
   */
  public StepRun stepRun(Principal caller, String projectId, String stepRunId) {
    StepRun found = read(caller, projectId, "stepRunId", stepRunId, store::stepRun);
    if (!found.projectId().equals(projectId) || !found.stepRunId().equals(stepRunId)) {
      throw new StoreUnavailableException("step run read returned a row it was not asked for");
    }
    return found;
  }

  /**
   * One admitted invocation, its reservation and start receipts as stored (the {@code Location} of
   * its admission), verified against their digests. Needs {@code model.invoke}, as its admission.
   *
   * @throws ConflictException if the invocation does not exist in the Project (absent and foreign
   *     alike), or a receipt is missing or drifted
   */
  public Admission invocation(Principal caller, String projectId, String invocationId) {
    Admission found = read(caller, projectId, "invocationId", invocationId, store::invocation);
    Reservation r = found.reservation();
    InvocationStart s = found.start();
    if (r == null || s == null) {
      throw new ConflictException("admission receipt missing");
    }
    if (!r.projectId().equals(projectId) || !r.invocationId().equals(invocationId)) {
      throw new StoreUnavailableException("invocation read returned a row it was not asked for");
    }
    if (!r.digestMatches()
        || !s.digestMatches()
        || !s.reservationDigest().equals(r.digest())
        || !s.invocationId().equals(r.invocationId())) {
      throw new ConflictException("admission receipt drifted from its digest");
    }
    return new Admission(r, s, false);
  }

  /**
   * Admits one invocation of a ready StepRun: reserves the model policy's worst case against the
   * Project's current window and moves the StepRun to {@code running}, atomically. Needs {@code
   * model.invoke}.
   *
   * @return the receipts; {@code created=false} on an exact replay (same invocationId and
   *     stepRunId), with the stored receipts verified against their digests; and the window as the
   *     decision left it (the rate-limit answer; on a refusal the exception carries it)
   * @throws ModelProjectQuotaExceededException if the window has no room (nothing reserved)
   * @throws ModelQuotaConfigurationException if the Project limits cost and the model has no cap
   * @throws ModelPolicyMissingException if the StepRun's model has no policy in the Project
   * @throws IdempotencyKeyReusedException if the invocationId is used for another StepRun
   * @throws ConflictException if the StepRun does not exist in the Project or is not ready, or a
   *     receipt is missing, unexpected or drifted
   */
  public Admission admit(
      Principal caller, String projectId, String invocationId, String stepRunId) {
    AdmissionRequest request = new AdmissionRequest(projectId, invocationId, stepRunId);
    policy.requireAny(caller, projectId, Permission.MODEL_INVOKE);
    AdmissionOutcome outcome = observe(() -> store.admit(request));
    if (outcome instanceof AdmissionOutcome.Admitted admitted) {
      listener.observed(ModelQuotaListener.Event.ADMITTED);
      return new Admission(admitted.reservation(), admitted.start(), true, admitted.window());
    }
    if (outcome instanceof AdmissionOutcome.Existing existing) {
      return conflictObserved(() -> replayAdmission(request, existing));
    }
    if (outcome instanceof AdmissionOutcome.Refused refused) {
      listener.observed(ModelQuotaListener.Event.REFUSED);
      throw new ModelProjectQuotaExceededException(refused.retryAfterSeconds(), refused.window());
    }
    if (outcome instanceof AdmissionOutcome.Rejected rejected) {
      listener.observed(ModelQuotaListener.Event.CONFLICT);
      if (rejected.reason() == AdmissionOutcome.Reason.COST_CAP_MISSING) {
        throw new ModelQuotaConfigurationException(
            "the project limits cost but the model policy has no cost cap");
      }
      if (rejected.reason() == AdmissionOutcome.Reason.NO_MODEL_POLICY) {
        throw new ModelPolicyMissingException("the step run's model has no policy in the project");
      }
      throw new ConflictException("invocation cannot be admitted: " + rejected.reason());
    }
    throw new StoreUnavailableException("model quota store returned no admission outcome");
  }

  private Admission replayAdmission(AdmissionRequest request, AdmissionOutcome.Existing existing) {
    Reservation r = existing.reservation();
    InvocationStart s = existing.start();
    if (r == null || s == null) {
      throw new ConflictException("admission receipt missing");
    }
    if (!r.digestMatches() || !s.digestMatches() || !s.reservationDigest().equals(r.digest())) {
      throw new ConflictException("admission receipt drifted from its digest");
    }
    if (!r.stepRunId().equals(request.stepRunId())
        || !s.stepRunId().equals(request.stepRunId())
        || !s.invocationId().equals(r.invocationId())) {
      throw new IdempotencyKeyReusedException("invocationId already used for another step run");
    }
    Optional<StepRun> step = store.stepRun(request.projectId(), request.stepRunId());
    if (step.isEmpty()
        || step.get().state() == StepRunState.READY
        || !request.invocationId().equals(step.get().invocationId())) {
      throw new ConflictException("step run does not bind the admitted invocation");
    }
    listener.observed(ModelQuotaListener.Event.ADMISSION_REPLAYED);
    return new Admission(r, s, false, existing.window());
  }

  /**
   * Completes an admitted invocation: records the completion and UsageLedger entry, settles the
   * reservation and ends the StepRun, atomically. Needs {@code model.invoke}.
   *
   * @param usage {@code null} when unknown: every reserved token stays reserved
   * @param costMicros {@code null} when unknown: a cost reservation stays whole
   * @return the receipts; {@code created=false} on an exact replay, verified against their digests
   * @throws IdempotencyKeyReusedException if the invocation was completed with another outcome,
   *     usage or cost
   * @throws ConflictException if the invocation does not exist in the Project, its StepRun is not
   *     running, usage exceeds the reservation (contract breach: nothing recorded, the reservation
   *     stays), or a receipt is missing, unexpected or drifted
   */
  public Settled complete(
      Principal caller,
      String projectId,
      String invocationId,
      String outcome,
      TokenUsage usage,
      Long costMicros) {
    Identifiers.require("projectId", projectId);
    Identifiers.require("invocationId", invocationId);
    InvocationOutcome reported =
        InvocationOutcome.fromWire(ValidationException.required("outcome", outcome));
    CompletionRequest request =
        new CompletionRequest(projectId, invocationId, reported, usage, costMicros);
    policy.requireAny(caller, projectId, Permission.MODEL_INVOKE);
    return complete(request);
  }

  /**
   * Recovery of a StepRun left {@code running} (its runtime crashed or lost the provider's answer):
   * completes it through the same quota-aware path with outcome {@code unknown}, so its whole
   * reservation stays in the window. Needs {@code model.invoke}. An already completed StepRun
   * returns its stored receipts only if it was completed as unknown; otherwise 409.
   *
   * @throws ConflictException if the StepRun does not exist in the Project or was never admitted
   */
  public Settled recoverUnknown(Principal caller, String projectId, String stepRunId) {
    Identifiers.require("projectId", projectId);
    Identifiers.require("stepRunId", stepRunId);
    policy.requireAny(caller, projectId, Permission.MODEL_INVOKE);
    return recover(projectId, stepRunId);
  }

  /**
   * The administrator's recovery of one StepRun left {@code running}: the same quota-aware
   * completion with outcome {@code unknown} as {@link #recoverUnknown}, whole reservation kept.
   * Needs {@code project.admin}. Idempotent: a StepRun already completed as {@code unknown} (by
   * this route, the sweep or its runtime) returns its stored receipts ({@code created=false}).
   *
   * @throws IdempotencyKeyReusedException if the StepRun was completed with another outcome (a
   *     completion that won the race): nothing written
   * @throws ConflictException if the StepRun does not exist in the Project or was never admitted
   */
  public Settled recoverStepRun(Principal caller, String projectId, String stepRunId) {
    Identifiers.require("projectId", projectId);
    Identifiers.require("stepRunId", stepRunId);
    policy.requireAny(caller, projectId, Permission.PROJECT_ADMIN);
    return recover(projectId, stepRunId);
  }

  private Settled recover(String projectId, String stepRunId) {
    StepRun step =
        store
            .stepRun(projectId, stepRunId)
            .orElseThrow(() -> new ConflictException("no such step run in this project"));
    if (step.invocationId() == null) {
      throw new ConflictException("step run was never admitted");
    }
    return complete(
        new CompletionRequest(
            projectId, step.invocationId(), InvocationOutcome.UNKNOWN, null, null));
  }

  /**
   * The service's own recovery sweep (no caller: run by the process, not on anyone's behalf): every
   * StepRun {@code running} for at least {@code olderThan} by the database clock is completed as
   * {@code unknown} through the same single-transaction completion, so its whole reservation stays.
   * Reads at most {@code maxPages} pages of {@code pageSize}, oldest first.
   *
   * <p>Race-free with a late completion and with other sweeps: each completion is one transaction
   * serialised on the reservation's window, so exactly one completion of an invocation commits; the
   * loser writes nothing and is counted as {@code alreadyCompleted}.
   *
   * @throws StoreUnavailableException if the store cannot answer (the sweep stops; next time)
   */
  public RecoverySweep recoverStale(java.time.Duration olderThan, int pageSize, int maxPages) {
    if (olderThan.isNegative() || pageSize < 1 || pageSize > MAX_RECOVERY_PAGE || maxPages < 1) {
      throw new IllegalArgumentException("recovery bound, page or pages out of range");
    }
    long ageMs = olderThan.toMillis();
    int examined = 0;
    int recovered = 0;
    int already = 0;
    int conflicts = 0;
    StepRun last = null;
    for (int p = 0; p < maxPages; p++) {
      List<StepRun> page =
          store.staleRunning(
              ageMs,
              last == null ? 0 : last.updatedAtMs(),
              last == null ? null : last.projectId(),
              last == null ? null : last.stepRunId(),
              pageSize);
      for (StepRun step : page) {
        examined++;
        try {
          Settled settled = recover(step.projectId(), step.stepRunId());
          if (settled.created()) {
            recovered++;
          } else {
            already++;
          }
        } catch (IdempotencyKeyReusedException e) {
          already++;
        } catch (ConflictException e) {
          conflicts++;
        }
      }
      if (page.size() < pageSize) {
        break;
      }
      last = page.get(page.size() - 1);
    }
    return new RecoverySweep(examined, recovered, already, conflicts);
  }

  private Settled complete(CompletionRequest request) {
    CompletionOutcome outcome = observe(() -> store.complete(request));
    if (outcome instanceof CompletionOutcome.Completed done) {
      listener.observed(ModelQuotaListener.Event.SETTLED);
      return new Settled(
          done.reservation(), done.completion(), done.ledgerEntry(), done.settlement(), true);
    }
    if (outcome instanceof CompletionOutcome.Existing existing) {
      return conflictObserved(() -> replayCompletion(request, existing));
    }
    if (outcome instanceof CompletionOutcome.Rejected rejected) {
      listener.observed(ModelQuotaListener.Event.CONFLICT);
      if (rejected.reason() == CompletionOutcome.Reason.USAGE_ABOVE_RESERVATION) {
        throw new ConflictException("usage above the reservation: contract breach");
      }
      throw new ConflictException("invocation cannot be completed: " + rejected.reason());
    }
    throw new StoreUnavailableException("model quota store returned no completion outcome");
  }

  private Settled replayCompletion(CompletionRequest request, CompletionOutcome.Existing e) {
    Reservation r = e.reservation();
    InvocationStart start = e.start();
    Completion c = e.completion();
    UsageLedgerEntry l = e.ledgerEntry();
    Settlement s = e.settlement();
    if (r == null || start == null || c == null || l == null || s == null) {
      throw new ConflictException("completion receipt missing");
    }
    if (!r.digestMatches()
        || !start.digestMatches()
        || !c.digestMatches()
        || !l.digestMatches()
        || !s.digestMatches()) {
      throw new ConflictException("completion receipt drifted from its digest");
    }
    if (!start.reservationDigest().equals(r.digest())
        || !start.invocationId().equals(r.invocationId())
        || !start.stepRunId().equals(r.stepRunId())
        || !l.completionDigest().equals(c.digest())
        || !s.completionDigest().equals(c.digest())
        || !s.reservationDigest().equals(r.digest())
        || !c.invocationId().equals(r.invocationId())) {
      throw new ConflictException("completion receipts do not bind each other");
    }
    if (!c.reports(request.outcome(), request.usage(), request.costMicros())) {
      throw new IdempotencyKeyReusedException("invocation already completed differently");
    }
    Optional<StepRun> step = store.stepRun(r.projectId(), r.stepRunId());
    if (step.isEmpty()
        || step.get().state() != c.outcome().terminalState()
        || !r.invocationId().equals(step.get().invocationId())) {
      throw new ConflictException("step run does not bind the completed invocation");
    }
    listener.observed(ModelQuotaListener.Event.SETTLEMENT_REPLAYED);
    return new Settled(r, c, l, s, false);
  }

  /**
   * The Project's current window usage and limits. Needs {@code model.usage.read} (or a global
   * administrator); consumes one {@code model-usage.read} management quota unit under {@code
   * requestId}.
   */
  public WindowUsageReading windowUsage(Principal caller, String projectId, String requestId) {
    Identifiers.require("projectId", projectId);
    ReceiptId receipt = new ReceiptId(requestId);
    policy.requireRead(caller, projectId, Permission.MODEL_USAGE_READ);
    usageRead(caller, projectId, receipt, "window");
    return store.currentWindowUsage(projectId);
  }

  /** One {@code model-usage.read} unit for the caller, spent on the read {@code target} names. */
  private void usageRead(Principal caller, String projectId, ReceiptId receipt, String... target) {
    managementQuota.consume(
        projectId,
        caller.userId(),
        QuotaOperation.MODEL_USAGE_READ,
        receipt,
        RequestDigest.of(QuotaOperation.MODEL_USAGE_READ, target));
  }

  /**
   * One page of the Project's UsageLedger. Needs {@code model.usage.read} (or a global
   * administrator); consumes one {@code model-usage.read} management quota unit under {@code
   * requestId}.
   *
   * @param limit 1..{@value #MAX_LEDGER_PAGE}, or {@code null} for {@value #DEFAULT_LEDGER_PAGE}
   * @param cursor {@code null} for the first page, else a {@code nextCursor} this service issued
   */
  public LedgerPage ledger(
      Principal caller, String projectId, Integer limit, String cursor, String requestId) {
    Identifiers.require("projectId", projectId);
    int size = limit == null ? DEFAULT_LEDGER_PAGE : limit;
    if (size < 1 || size > MAX_LEDGER_PAGE) {
      throw new ValidationException("limit", "must be between 1 and " + MAX_LEDGER_PAGE);
    }
    long after = LedgerCursor.decode(cursor);
    ReceiptId receipt = new ReceiptId(requestId);
    policy.requireRead(caller, projectId, Permission.MODEL_USAGE_READ);
    usageRead(caller, projectId, receipt, "ledger", Integer.toString(size), cursor);
    List<UsageLedgerEntry> rows = store.ledger(projectId, after, size + 1);
    for (UsageLedgerEntry entry : rows) {
      if (!entry.digestMatches() || !entry.projectId().equals(projectId)) {
        throw new ConflictException("ledger entry drifted from its digest");
      }
    }
    if (rows.size() <= size) {
      return new LedgerPage(rows, null);
    }
    List<UsageLedgerEntry> page = rows.subList(0, size);
    return new LedgerPage(page, LedgerCursor.encode(page.get(size - 1).ledgerSeq()));
  }

  /**
   * One object of the Project by its id, for a caller with {@code model.invoke}.
   *
   * @throws ConflictException if it does not exist in the Project (absent and foreign alike)
   */
  private <T> T read(
      Principal caller,
      String projectId,
      String idField,
      String id,
      BiFunction<String, String, Optional<T>> find) {
    Identifiers.require("projectId", projectId);
    Identifiers.require(idField, id);
    policy.requireAny(caller, projectId, Permission.MODEL_INVOKE);
    return observe(() -> find.apply(projectId, id))
        .orElseThrow(() -> new ConflictException("no such object in this project"));
  }

  private <T> T observe(java.util.function.Supplier<T> call) {
    try {
      T result = call.get();
      if (result == null) {
        throw new StoreUnavailableException("model quota store returned nothing");
      }
      return result;
    } catch (StoreUnavailableException e) {
      listener.observed(ModelQuotaListener.Event.UNAVAILABLE);
      throw e;
    } catch (ConflictException e) {
      listener.observed(ModelQuotaListener.Event.CONFLICT);
      throw e;
    }
  }

  private <T> T conflictObserved(java.util.function.Supplier<T> call) {
    try {
      return call.get();
    } catch (ConflictException e) {
      listener.observed(ModelQuotaListener.Event.CONFLICT);
      throw e;
    }
  }
}
