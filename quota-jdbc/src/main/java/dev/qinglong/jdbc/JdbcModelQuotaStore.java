package dev.qinglong.jdbc;

import dev.qinglong.core.ai.Admission;
import dev.qinglong.core.ai.AdmissionOutcome;
import dev.qinglong.core.ai.AdmissionRequest;
import dev.qinglong.core.ai.AdvisoryLockKeys;
import dev.qinglong.core.ai.Completion;
import dev.qinglong.core.ai.CompletionOutcome;
import dev.qinglong.core.ai.CompletionRequest;
import dev.qinglong.core.ai.InvocationStart;
import dev.qinglong.core.ai.ModelInvocationPolicy;
import dev.qinglong.core.ai.ModelQuotaRules;
import dev.qinglong.core.ai.ModelQuotaStore;
import dev.qinglong.core.ai.ProjectQuotaPolicy;
import dev.qinglong.core.ai.QuotaWindow;
import dev.qinglong.core.ai.Reservation;
import dev.qinglong.core.ai.Settlement;
import dev.qinglong.core.ai.StepRun;
import dev.qinglong.core.ai.StepRunCreation;
import dev.qinglong.core.ai.UsageLedgerEntry;
import dev.qinglong.core.ai.WindowRef;
import dev.qinglong.core.ai.WindowUsageReading;
import dev.qinglong.core.kernel.StoreUnavailableException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * {@link ModelQuotaStore} over JDBC. Every admission and completion is one transaction that reads
 * what the decision depends on, lets {@link ModelQuotaRules} decide and writes the receipts (the
 * rows and their statements are in {@link ModelPolicyRows}, {@link StepRunRows}, {@link
 * AdmissionRows} and {@link CompletionRows}). The clock is the database's own ({@link
 * JdbcDialect#nowMs}), read once per transaction. The dialect says how those transactions are
 * serialised:
 *
 * <ul>
 *   <li>{@link JdbcDialect#lockUntilCommit} on {@link AdvisoryLockKeys#window} before anything the
 *       admission or completion decision depends on is read (completion finds its window only in
 *       the reservation, so it re-reads under the lock), then, in completion only, on {@link
 *       AdvisoryLockKeys#ledger} for the Project's ledger sequence. Always in that order, so two
 *       transactions cannot deadlock on them. PostgreSQL takes {@code pg_advisory_xact_lock} in
 *       READ COMMITTED, so every statement after the lock sees everything the previous holder
 *       committed (REPEATABLE READ would pin a snapshot older than the lock). SQLite takes none:
 *       each transaction holds the only writer lock from {@code BEGIN IMMEDIATE} on.
 *   <li>{@link JdbcDialect#snapshotIsolation} for the window usage, read from two window heads
 *       without a lock (REPEATABLE READ on PostgreSQL).
 * </ul>
 *
 * <p>Where {@link JdbcDialect#modelLifecycleFunctions} (PostgreSQL), admission and completion
 * instead read in one statement without a lock, decide, and write with one {@code CALL} in
 * auto-commit that takes the locks and writes only if the window heads read still stand ({@link
 * ModelLifecycleStatements}); the transactions above are then the fallback after repeated stale
 * rounds. No transaction, and so no lock, spans a client round trip on that path.
 *
 * <p>Writes that race outside a shared lock (a StepRun admitted in two windows at a boundary, two
 * policy writers) meet a unique constraint (SQLState {@code 23505}); the transaction is then
 * retried and sees the winner. Where a dialect serialises whole transactions no such race exists
 * and the retry never fires.
 */
public final class JdbcModelQuotaStore implements ModelQuotaStore {
  /** A transaction that met a unique constraint is retried this often. */
  private static final int ATTEMPTS = 3;

  /**
   * Rounds of read, decide and conditional write ({@link JdbcDialect#modelLifecycleFunctions})
   * before an admission or completion falls back to deciding under the lock: a round fails only
   * when another admission or completion of the same window wrote in between, so under heavy
   * contention on one window the lock then orders the rest.
   */
  private static final int OPTIMISTIC_ATTEMPTS = 8;

  /** SQLState of a unique violation: a concurrent writer won. */
  private static final String UNIQUE_VIOLATION = "23505";

  private static final int PROJECT_QUEUES = 256;

  /**
   * Admissions and completions of one Project in this process queue on one of these (by Project)
   * before they take a connection, so that they do not read the same window heads and then find
   * each other's writes ({@code stale}): only another process can make a round fail. Correctness
   * does not depend on them (the procedures check under the database lock); they only keep one busy
   * window from spending rounds, connections and CPU on reads that are about to be stale.
   */
  private final ReentrantLock[] projectQueues = new ReentrantLock[PROJECT_QUEUES];

  private final JdbcDialect dialect;
  private final JdbcTransactions jdbc;
  private final String now;
  private final ModelLifecycleStatements.Reads reads;

  public JdbcModelQuotaStore(DataSource dataSource, JdbcDialect dialect) {
    for (int i = 0; i < PROJECT_QUEUES; i++) {
      projectQueues[i] = new ReentrantLock();
    }
    this.dialect = Objects.requireNonNull(dialect, "dialect");
    this.jdbc = new JdbcTransactions(dataSource, dialect);
    this.now = "SELECT " + dialect.nowMs();
    this.reads = ModelLifecycleStatements.Reads.of(dialect);
  }

  /**
   * Runs {@code work} in one transaction, retried when a unique constraint shows that a concurrent
   * writer won. Paths that decide "no" have written nothing, so committing them is the same as
   * rolling back.
   */
  private <T> T transaction(String operation, JdbcTransactions.Work<T> work) {
    return jdbc.retryingTransaction(operation, ATTEMPTS, Connection.TRANSACTION_NONE, work);
  }

  @Override
  public ModelInvocationPolicy putModelPolicy(
      String projectId, String modelId, long maxTotalTokens, Long maxCostMicros) {
    return transaction(
        "model policy write",
        c -> {
          Optional<ModelInvocationPolicy> latest =
              ModelPolicyRows.latestModelPolicy(c, projectId, modelId);
          if (latest.isPresent() && latest.get().sameLimits(maxTotalTokens, maxCostMicros)) {
            return latest.get();
          }
          ModelInvocationPolicy next =
              new ModelInvocationPolicy(
                  projectId,
                  modelId,
                  latest.map(p -> p.revision() + 1).orElse(1L),
                  maxTotalTokens,
                  maxCostMicros,
                  now(c));
          ModelPolicyRows.insert(c, next);
          return next;
        });
  }

  @Override
  public Optional<ModelInvocationPolicy> modelPolicy(String projectId, String modelId) {
    return transaction(
        "model policy read", c -> ModelPolicyRows.latestModelPolicy(c, projectId, modelId));
  }

  @Override
  public ProjectQuotaPolicy putProjectQuota(
      String projectId,
      QuotaWindow window,
      long maxInvocations,
      long maxTokens,
      Long maxCostMicros) {
    return transaction(
        "project quota write",
        c -> {
          Optional<ProjectQuotaPolicy> latest = ModelPolicyRows.latestQuotaPolicy(c, projectId);
          if (latest.isPresent()
              && latest.get().sameLimits(window, maxInvocations, maxTokens, maxCostMicros)) {
            return latest.get();
          }
          ProjectQuotaPolicy next =
              new ProjectQuotaPolicy(
                  projectId,
                  latest.map(p -> p.revision() + 1).orElse(1L),
                  window,
                  maxInvocations,
                  maxTokens,
                  maxCostMicros,
                  now(c));
          ModelPolicyRows.insert(c, next);
          return next;
        });
  }

  @Override
  public Optional<ProjectQuotaPolicy> projectQuota(String projectId) {
    return transaction("project quota read", c -> ModelPolicyRows.latestQuotaPolicy(c, projectId));
  }

  @Override
  public StepRunCreation createStepRun(
      String projectId, String stepRunId, String runId, String modelId) {
    if (dialect.modelLifecycleFunctions()) {
      // One statement in auto-commit; the stored row is read back only if it existed already.
      return jdbc.autoCommit(
          "step run create",
          c -> {
            StepRun inserted =
                ModelLifecycleStatements.insertReady(
                    c, dialect, projectId, stepRunId, runId, modelId);
            if (inserted != null) {
              return new StepRunCreation(inserted, true);
            }
            StepRun stored =
                StepRunRows.stepRun(c, projectId, stepRunId)
                    .orElseThrow(() -> new StoreUnavailableException("step run vanished"));
            return new StepRunCreation(stored, false);
          });
    }
    return transaction(
        "step run create",
        c -> {
          boolean inserted =
              StepRunRows.insertReady(c, projectId, stepRunId, runId, modelId, now(c));
          StepRun stored =
              StepRunRows.stepRun(c, projectId, stepRunId)
                  .orElseThrow(() -> new StoreUnavailableException("step run vanished"));
          return new StepRunCreation(stored, inserted);
        });
  }

  @Override
  public Optional<StepRun> stepRun(String projectId, String stepRunId) {
    return transaction("step run read", c -> StepRunRows.stepRun(c, projectId, stepRunId));
  }

  @Override
  public Optional<Admission> invocation(String projectId, String invocationId) {
    return transaction(
        "invocation read",
        c -> {
          Reservation r = AdmissionRows.reservationOfInvocation(c, projectId, invocationId);
          if (r == null) {
            return Optional.empty();
          }
          InvocationStart s = AdmissionRows.startOfInvocation(c, projectId, invocationId);
          return Optional.of(new Admission(r, s, false));
        });
  }

  @Override
  public AdmissionOutcome admit(AdmissionRequest request) {
    if (dialect.modelLifecycleFunctions()) {
      AdmissionOutcome outcome =
          queued(
              request.projectId(),
              () -> jdbc.autoCommit("model admission", c -> admitByProcedure(c, request)));
      if (outcome != null) {
        return outcome;
      }
    }
    return admitLocked(request);
  }

  /**
   * Up to {@value #OPTIMISTIC_ATTEMPTS} rounds of: read in one statement, decide, write with one
   * procedure call that takes the window lock and writes only if the window heads read are still
   * the heads. Null if every round found them changed (or the receipts are of a shape the procedure
   * does not write): the caller then decides under the lock ({@link #admitLocked}).
   */
  private AdmissionOutcome admitByProcedure(Connection c, AdmissionRequest request)
      throws SQLException {
    String project = request.projectId();
    for (int attempt = 0; attempt < OPTIMISTIC_ATTEMPTS; attempt++) {
      ModelLifecycleStatements.AdmissionView v =
          ModelLifecycleStatements.readAdmission(
              c, reads, project, request.invocationId(), request.stepRunId());
      WindowRef window = WindowRef.containing(project, v.quota(), v.nowMs());
      if (window.windowStartMs() != v.windowStartMs() || window.windowMs() != v.windowMs()) {
        return null;
      }
      if (v.existing() != null || v.existingStart() != null) {
        return new AdmissionOutcome.Existing(v.existing(), v.existingStart());
      }
      AdmissionOutcome outcome =
          ModelQuotaRules.admit(
              request,
              v.nowMs(),
              window,
              v.stepRun(),
              v.policy(),
              v.quota(),
              v.ofStepRun(),
              v.windowHead(),
              v.settledHead());
      if (!(outcome instanceof AdmissionOutcome.Admitted admitted)) {
        return outcome;
      }
      if (!ModelLifecycleStatements.fits(admitted.reservation(), admitted.start())) {
        return null;
      }
      try {
        if (ModelLifecycleStatements.admit(
            c,
            AdvisoryLockKeys.window(window),
            v.windowHead() == null ? 0 : v.windowHead().windowSeq(),
            v.settledHead() == null ? 0 : v.settledHead().windowSettleSeq(),
            admitted.reservation(),
            admitted.start())) {
          return outcome;
        }
      } catch (SQLException e) {
        if (!UNIQUE_VIOLATION.equals(e.getSQLState())) {
          throw e;
        }
        // A concurrent admission of this invocation or StepRun won: the next read shows it.
      }
    }
    return null;
  }

  /** Runs {@code work} holding the process-local queue of {@code projectId}. */
  private <T> T queued(String projectId, Supplier<T> work) {
    ReentrantLock queue = projectQueues[Math.floorMod(projectId.hashCode(), PROJECT_QUEUES)];
    queue.lock();
    try {
      return work.get();
    } finally {
      queue.unlock();
    }
  }

  /** One transaction that takes the window lock before it reads what the decision depends on. */
  private AdmissionOutcome admitLocked(AdmissionRequest request) {
    return transaction(
        "model admission",
        c -> {
          String project = request.projectId();
          String invocation = request.invocationId();
          long now = now(c);
          ProjectQuotaPolicy quota = ModelPolicyRows.latestQuotaPolicy(c, project).orElse(null);
          WindowRef window = WindowRef.containing(project, quota, now);
          dialect.lockUntilCommit(c, AdvisoryLockKeys.window(window));
          Reservation existing = AdmissionRows.reservationOfInvocation(c, project, invocation);
          InvocationStart existingStart = AdmissionRows.startOfInvocation(c, project, invocation);
          if (existing != null || existingStart != null) {
            return new AdmissionOutcome.Existing(existing, existingStart);
          }
          StepRun step = StepRunRows.stepRun(c, project, request.stepRunId()).orElse(null);
          ModelInvocationPolicy policy =
              step == null
                  ? null
                  : ModelPolicyRows.latestModelPolicy(c, project, step.modelId()).orElse(null);
          AdmissionOutcome outcome =
              ModelQuotaRules.admit(
                  request,
                  now,
                  window,
                  step,
                  policy,
                  quota,
                  AdmissionRows.reservationOfStepRun(c, project, request.stepRunId()),
                  AdmissionRows.windowHead(c, window),
                  CompletionRows.windowHead(c, window));
          if (outcome instanceof AdmissionOutcome.Admitted admitted) {
            if (!StepRunRows.start(c, request, now)) {
              return new AdmissionOutcome.Rejected(AdmissionOutcome.Reason.STEP_RUN_NOT_READY);
            }
            AdmissionRows.insert(c, admitted.reservation());
            AdmissionRows.insert(c, admitted.start());
          }
          return outcome;
        });
  }

  @Override
  public CompletionOutcome complete(CompletionRequest request) {
    if (dialect.modelLifecycleFunctions()) {
      CompletionOutcome outcome =
          queued(
              request.projectId(),
              () -> jdbc.autoCommit("model completion", c -> completeByProcedure(c, request)));
      if (outcome != null) {
        return outcome;
      }
    }
    return completeLocked(request);
  }

  /**
   * As {@link #admitByProcedure}, for a completion: the procedure takes the window lock, then the
   * ledger lock, and writes the three receipts and ends the StepRun only if the window's settlement
   * head and the Project's ledger head are still those read, and the invocation has no completion.
   */
  private CompletionOutcome completeByProcedure(Connection c, CompletionRequest request)
      throws SQLException {
    String project = request.projectId();
    for (int attempt = 0; attempt < OPTIMISTIC_ATTEMPTS; attempt++) {
      ModelLifecycleStatements.CompletionView v =
          ModelLifecycleStatements.readCompletion(c, reads, project, request.invocationId());
      Reservation reservation = v.reservation();
      if (v.completion() != null || v.ledgerEntry() != null || v.settlement() != null) {
        // One snapshot: the receipts of one earlier transaction, all or none of them.
        return new CompletionOutcome.Existing(
            reservation, v.start(), v.completion(), v.ledgerEntry(), v.settlement());
      }
      if (reservation == null) {
        return new CompletionOutcome.Rejected(CompletionOutcome.Reason.NO_RESERVATION);
      }
      CompletionOutcome outcome =
          ModelQuotaRules.complete(
              request,
              v.nowMs(),
              reservation,
              v.start(),
              v.stepRun(),
              v.settledHead(),
              v.lastLedgerSeq() + 1);
      if (!(outcome instanceof CompletionOutcome.Completed done)) {
        return outcome;
      }
      if (!ModelLifecycleStatements.fits(
          done.completion(), done.ledgerEntry(), done.settlement())) {
        return null;
      }
      try {
        if (ModelLifecycleStatements.complete(
            c,
            AdvisoryLockKeys.window(reservation.window()),
            AdvisoryLockKeys.ledger(project),
            v.settledHead() == null ? 0 : v.settledHead().windowSettleSeq(),
            v.lastLedgerSeq(),
            request.outcome().terminalState().wireName(),
            done.completion(),
            done.ledgerEntry(),
            done.settlement())) {
          return outcome;
        }
      } catch (SQLException e) {
        if (!UNIQUE_VIOLATION.equals(e.getSQLState())) {
          throw e;
        }
        // A concurrent completion of this invocation won: the next read shows it.
      }
    }
    return null;
  }

  /** One transaction that takes the window lock before it decides. */
  private CompletionOutcome completeLocked(CompletionRequest request) {
    return transaction(
        "model completion",
        c -> {
          String project = request.projectId();
          String invocation = request.invocationId();
          long now = now(c);
          Reservation reservation = AdmissionRows.reservationOfInvocation(c, project, invocation);
          CompletionOutcome.Existing existing = existingCompletion(c, reservation, request);
          if (reservation == null) {
            return existing != null
                ? existing
                : new CompletionOutcome.Rejected(CompletionOutcome.Reason.NO_RESERVATION);
          }
          if (existing != null && whole(existing)) {
            return existing;
          }
          if (dialect.lockUntilCommit(c, AdvisoryLockKeys.window(reservation.window()))) {
            // Re-read under the lock: a concurrent completion of this invocation may have won, and
            // the reads above, one statement each, may have straddled its commit (a part of its
            // receipts seen, the rest not yet): only what is read under the lock is decisive.
            CompletionOutcome.Existing settled = existingCompletion(c, reservation, request);
            if (settled != null) {
              return settled;
            }
          } else if (existing != null) {
            return existing;
          }
          dialect.lockUntilCommit(c, AdvisoryLockKeys.ledger(project));
          CompletionOutcome outcome =
              ModelQuotaRules.complete(
                  request,
                  now,
                  reservation,
                  AdmissionRows.startOfInvocation(c, project, invocation),
                  StepRunRows.stepRun(c, project, reservation.stepRunId()).orElse(null),
                  CompletionRows.windowHead(c, reservation.window()),
                  CompletionRows.lastLedgerSeq(c, project) + 1);
          if (outcome instanceof CompletionOutcome.Completed done) {
            CompletionRows.insert(c, done.completion());
            CompletionRows.insert(c, done.ledgerEntry());
            // The settlement goes before the StepRun ends: the database refuses the reverse.
            CompletionRows.insert(c, done.settlement());
            StepRunRows.end(c, reservation, request.outcome(), now);
          }
          return outcome;
        });
  }

  /** Whether an earlier completion's three receipts were all seen. */
  private static boolean whole(CompletionOutcome.Existing e) {
    return e.completion() != null && e.ledgerEntry() != null && e.settlement() != null;
  }

  /** The receipts of an earlier completion of this invocation, or null if it has none. */
  private static CompletionOutcome.Existing existingCompletion(
      Connection c, Reservation reservation, CompletionRequest request) throws SQLException {
    String project = request.projectId();
    String invocation = request.invocationId();
    Completion completion = CompletionRows.completionOfInvocation(c, project, invocation);
    UsageLedgerEntry entry = CompletionRows.ledgerEntryOfInvocation(c, project, invocation);
    Settlement settlement = CompletionRows.settlementOfInvocation(c, project, invocation);
    if (completion == null && entry == null && settlement == null) {
      return null;
    }
    return new CompletionOutcome.Existing(
        reservation,
        AdmissionRows.startOfInvocation(c, project, invocation),
        completion,
        entry,
        settlement);
  }

  @Override
  public WindowUsageReading currentWindowUsage(String projectId) {
    if (dialect.modelLifecycleFunctions()) {
      // One statement is one snapshot: no transaction at another isolation level needed.
      WindowUsageReading reading =
          jdbc.autoCommit(
              "window usage read",
              c -> {
                ModelLifecycleStatements.WindowView v =
                    ModelLifecycleStatements.readWindow(c, reads, projectId);
                WindowRef window = WindowRef.containing(projectId, v.quota(), v.nowMs());
                if (window.windowStartMs() != v.windowStartMs()
                    || window.windowMs() != v.windowMs()) {
                  return null;
                }
                return new WindowUsageReading(
                    ModelQuotaRules.usage(window, v.windowHead(), v.settledHead()),
                    v.quota(),
                    v.nowMs());
              });
      if (reading != null) {
        return reading;
      }
    }
    return jdbc.retryingTransaction(
        "window usage read",
        ATTEMPTS,
        dialect.snapshotIsolation(),
        c -> {
          long now = now(c);
          ProjectQuotaPolicy quota = ModelPolicyRows.latestQuotaPolicy(c, projectId).orElse(null);
          WindowRef window = WindowRef.containing(projectId, quota, now);
          return new WindowUsageReading(
              ModelQuotaRules.usage(
                  window,
                  AdmissionRows.windowHead(c, window),
                  CompletionRows.windowHead(c, window)),
              quota,
              now);
        });
  }

  @Override
  public List<UsageLedgerEntry> ledger(String projectId, long afterSeq, int limit) {
    if (limit < 1 || limit > 501) {
      throw new IllegalArgumentException("limit must be 1..501. Indicates a bug.");
    }
    return transaction(
        "ledger read", c -> CompletionRows.ledgerPage(c, projectId, afterSeq, limit));
  }

  @Override
  public List<StepRun> staleRunning(
      long olderThanMs,
      long afterUpdatedAtMs,
      String afterProjectId,
      String afterStepRunId,
      int limit) {
    if (limit < 1 || limit > 500 || olderThanMs < 0) {
      throw new IllegalArgumentException("limit must be 1..500, age >= 0. Indicates a bug.");
    }
    return transaction(
        "stale step run read",
        c ->
            StepRunRows.staleRunning(
                c, now(c) - olderThanMs, afterUpdatedAtMs, afterProjectId, afterStepRunId, limit));
  }

  /** The database clock, in epoch milliseconds. */
  private long now(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(now);
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        throw new StoreUnavailableException("database clock unreadable");
      }
      return rs.getLong(1);
    }
  }
}
