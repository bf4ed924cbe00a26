package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.ConflictException;
import dev.qinglong.core.kernel.StoreUnavailableException;
import java.util.Optional;

/**
 * Durable model-invocation quota (docs/design.md#atomic-admission-and-completion): policy
 * revisions, StepRuns and the append-only receipts (reservation, start, completion, ledger entry,
 * settlement).
 *
 * <p>Windows are always chosen by the database clock. Admission and completion each read one
 * consistent {@link AdmissionSnapshot} / {@link CompletionSnapshot}, decide once through {@link
 * ModelQuotaRules} and write what it returned atomically, serialised per Project window (SQLite:
 * one {@code BEGIN IMMEDIATE} transaction; PostgreSQL: one procedure call that takes the window's
 * advisory lock and writes only if the heads read still stand), so both stores apply the same
 * rules. Receipts are never updated or deleted; only a StepRun's state changes.
 *
 * <p>Every method throws {@link StoreUnavailableException} when the store cannot give a definite
 * answer (unreachable, statement failed, corrupt row, outcome unknown). Callers must fail closed:
 * it never means "admitted" nor "settled".
 */
public interface ModelQuotaStore {

  /**
   * Appends a new revision of the model's invocation policy in the Project (revision = latest + 1,
   * 1 for the first) unless the latest revision already has exactly these limits.
   *
   * @return the latest revision after the call: the new one, or the unchanged latest
   */
  ModelInvocationPolicy putModelPolicy(
      String projectId, String modelId, long maxTotalTokens, Long maxCostMicros);

  /** The latest revision of the model's policy in the Project, or empty. */
  Optional<ModelInvocationPolicy> modelPolicy(String projectId, String modelId);

  /**
   * Appends a new revision of the Project's quota policy unless the latest one already has exactly
   * these limits.
   *
   * @return the latest revision after the call
   */
  ProjectQuotaPolicy putProjectQuota(
      String projectId,
      QuotaWindow window,
      long maxInvocations,
      long maxTokens,
      Long maxCostMicros);

  /** The latest revision of the Project's quota policy, or empty (unfenced). */
  Optional<ProjectQuotaPolicy> projectQuota(String projectId);

  /**
   * Inserts a {@code ready} StepRun unless the Project already has one with that id.
   *
   * @return the stored StepRun and {@code created=true} if this call inserted it; otherwise the
   *     existing one and {@code created=false} (the caller compares run and model)
   */
  StepRunCreation createStepRun(String projectId, String stepRunId, String runId, String modelId);

  /** The StepRun with that id in the Project, or empty. */
  Optional<StepRun> stepRun(String projectId, String stepRunId);

  /**
   * The admitted invocation with that id in the Project: its reservation and start receipts as
   * stored ({@code created=false}), read consistently; empty if the Project has no reservation for
   * that id. A start may be {@code null} if the receipts are incomplete (the caller treats it as a
   * conflict).
   */
  Optional<Admission> invocation(String projectId, String invocationId);

  /**
   * Admits one invocation in ONE transaction: window from the database clock, the window's usage
   * from its latest reservation and settlement (two index seeks), the quota fence, StepRun {@code
   * ready → running}, the start receipt and the reservation receipt.
   *
   * <ul>
   *   <li>{@link AdmissionOutcome.Admitted}: all of it committed.
   *   <li>{@link AdmissionOutcome.Existing}: the invocation id already has a reservation or a start
   *       (replay or reuse); nothing written; missing members are {@code null}.
   *   <li>{@link AdmissionOutcome.Refused}: a window limit would be exceeded; nothing written.
   *   <li>{@link AdmissionOutcome.Rejected}: no such ready StepRun, no model policy, a cost limit
   *       without a cost cap, or an unexpected receipt; nothing written.
   * </ul>
   *
   * @throws ConflictException if the window's latest stored receipt drifted from its digest
   *     (nothing written)
   */
  AdmissionOutcome admit(AdmissionRequest request);

  /**
   * Completes one invocation in ONE transaction serialised with its reservation's window:
   * completion receipt, UsageLedger entry, settlement receipt and StepRun {@code running →
   * terminal}.
   *
   * <ul>
   *   <li>{@link CompletionOutcome.Completed}: all of it committed.
   *   <li>{@link CompletionOutcome.Existing}: the invocation already has a completion, ledger entry
   *       or settlement; nothing written; it carries the invocation's reservation, start,
   *       completion, ledger entry and settlement as stored, missing members {@code null}.
   *   <li>{@link CompletionOutcome.Rejected}: no reservation, a missing start or StepRun, a StepRun
   *       not running under it, or usage above the reservation; nothing written, the reservation
   *       stays.
   * </ul>
   *
   * @throws ConflictException if the reservation or the window's latest settlement drifted from its
   *     digest (nothing written)
   */
  CompletionOutcome complete(CompletionRequest request);

  /**
   * The Project's current window (chosen by the database clock under its latest quota policy, or
   * the unfenced day window) with its usage, read consistently.
   *
   * @throws ConflictException if the window's latest receipt drifted from its digest
   */
  WindowUsageReading currentWindowUsage(String projectId);

  /**
   * Up to {@code limit} ledger entries of the Project with a sequence number above {@code
   * afterSeq}, in sequence order.
   *
   * @param limit 1..{@link ModelQuota#MAX_LEDGER_PAGE} + 1 (the service asks for one more to know
   *     whether another page follows)
   */
  java.util.List<UsageLedgerEntry> ledger(String projectId, long afterSeq, int limit);

  /**
   * Up to {@code limit} StepRuns that are {@code running} and have not changed for at least {@code
   * olderThanMs} by the database clock (their admission is older than the bound), across all
   * Projects, oldest first, after the key {@code (afterUpdatedAtMs, afterProjectId,
   * afterStepRunId)} (keyset paging; {@code afterProjectId == null} for the first page). The
   * recovery sweep reads them and completes each as {@code unknown} through {@link #complete}.
   *
   * @param limit 1..{@link ModelQuota#MAX_RECOVERY_PAGE}
   */
  java.util.List<StepRun> staleRunning(
      long olderThanMs,
      long afterUpdatedAtMs,
      String afterProjectId,
      String afterStepRunId,
      int limit);
}
