package dev.qinglong.jdbc;

import dev.qinglong.core.modelquota.AdmissionOutcome;
import dev.qinglong.core.modelquota.AdmissionRequest;
import dev.qinglong.core.modelquota.AdmissionSnapshot;
import dev.qinglong.core.modelquota.CompletionOutcome;
import dev.qinglong.core.modelquota.CompletionRequest;
import dev.qinglong.core.modelquota.CompletionSnapshot;
import dev.qinglong.core.modelquota.ModelQuotaRules;
import dev.qinglong.core.modelquota.ModelQuotaStore;
import dev.qinglong.core.modelquota.ProjectQuotaPolicy;
import dev.qinglong.core.modelquota.Reservation;
import dev.qinglong.core.modelquota.Settlement;
import dev.qinglong.core.modelquota.WindowRef;
import dev.qinglong.core.modelquota.WindowUsageReading;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The part of {@link ModelQuotaStore} whose statements and concurrency control differ between
 * databases ({@link JdbcDialect#modelLifecycle}): each admission and completion reads one snapshot,
 * lets {@link ModelQuotaRules} decide once and writes its receipts in one atomic step; the window
 * read follows the same database's shape. The rows are mapped and bound once, in {@link
 * AdmissionRows}, {@link CompletionRows}, {@link StepRunRows} and {@link ModelPolicyRows}. The
 * contracts are those of the same-named {@link ModelQuotaStore} methods.
 *
 * <p>The read, the decision and the write of what was decided are here ({@link #admission}, {@link
 * #completion}, {@link #windowUsage}), once for both databases; a database supplies the reads and
 * writes and runs each of these on its connections, under its own concurrency control.
 */
public abstract class ModelLifecycle {
  public abstract AdmissionOutcome admit(AdmissionRequest request);

  public abstract CompletionOutcome complete(CompletionRequest request);

  public abstract WindowUsageReading currentWindowUsage(String projectId);

  /**
   * A Project's current window as of one snapshot: the database clock, the latest quota policy
   * (null: none), the window they select and its heads (null: none yet).
   */
  public record WindowSnapshot(
      long nowMs,
      WindowRef window,
      ProjectQuotaPolicy quota,
      Reservation windowHead,
      Settlement settledHead) {}

  /** Everything an admission depends on, as of one snapshot. */
  protected abstract AdmissionSnapshot readAdmission(Connection c, AdmissionRequest request)
      throws SQLException;

  /**
   * Writes the receipts of {@code admitted}, decided on {@code snapshot}, and starts its StepRun.
   *
   * @return the outcome to answer, or null if {@code snapshot} is stale (nothing written: read and
   *     decide again)
   */
  protected abstract AdmissionOutcome writeAdmission(
      Connection c,
      AdmissionRequest request,
      AdmissionSnapshot snapshot,
      AdmissionOutcome.Admitted admitted)
      throws SQLException;

  /** Everything a completion depends on, as of one snapshot. */
  protected abstract CompletionSnapshot readCompletion(Connection c, CompletionRequest request)
      throws SQLException;

  /**
   * Writes the receipts of {@code completed}, decided on {@code snapshot}, and ends its StepRun.
   *
   * @return the outcome to answer, or null if {@code snapshot} is stale (nothing written: read and
   *     decide again)
   */
  protected abstract CompletionOutcome writeCompletion(
      Connection c,
      CompletionRequest request,
      CompletionSnapshot snapshot,
      CompletionOutcome.Completed completed)
      throws SQLException;

  /** The current window of {@code projectId}, as of one snapshot. */
  protected abstract WindowSnapshot readWindow(Connection c, String projectId) throws SQLException;

  /**
   * One admission on {@code c}: read, decide, write if admitted.
   *
   * @return the outcome, or null if the write found the snapshot stale
   */
  protected final AdmissionOutcome admission(Connection c, AdmissionRequest request)
      throws SQLException {
    AdmissionSnapshot snapshot = readAdmission(c, request);
    AdmissionOutcome outcome = ModelQuotaRules.admit(request, snapshot);
    return outcome instanceof AdmissionOutcome.Admitted admitted
        ? writeAdmission(c, request, snapshot, admitted)
        : outcome;
  }

  /**
   * One completion on {@code c}: read, decide, write if completed.
   *
   * @return the outcome, or null if the write found the snapshot stale
   */
  protected final CompletionOutcome completion(Connection c, CompletionRequest request)
      throws SQLException {
    CompletionSnapshot snapshot = readCompletion(c, request);
    CompletionOutcome outcome = ModelQuotaRules.complete(request, snapshot);
    return outcome instanceof CompletionOutcome.Completed completed
        ? writeCompletion(c, request, snapshot, completed)
        : outcome;
  }

  /**
   * The usage of the current window of {@code projectId} on {@code c}.
   *
   * @throws IllegalStateException if the read found another window than the one its clock and
   *     policy select (a bug of a read that computes the window itself)
   */
  protected final WindowUsageReading windowUsage(Connection c, String projectId)
      throws SQLException {
    WindowSnapshot v = readWindow(c, projectId);
    WindowRef window = WindowRef.containing(projectId, v.quota(), v.nowMs());
    if (!window.equals(v.window())) {
      throw new IllegalStateException("window read found another window. Indicates a bug.");
    }
    return new WindowUsageReading(
        ModelQuotaRules.usage(window, v.windowHead(), v.settledHead()), v.quota(), v.nowMs());
  }
}
