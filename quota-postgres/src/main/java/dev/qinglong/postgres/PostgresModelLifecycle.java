package dev.qinglong.postgres;

import static dev.qinglong.jdbc.AdmissionRows.RESERVATIONS;
import static dev.qinglong.jdbc.AdmissionRows.STARTS;
import static dev.qinglong.jdbc.CompletionRows.COMPLETIONS;
import static dev.qinglong.jdbc.CompletionRows.LEDGER;
import static dev.qinglong.jdbc.CompletionRows.SETTLEMENTS;
import static dev.qinglong.jdbc.JdbcRows.setNullableLong;
import static dev.qinglong.jdbc.ModelPolicyRows.MODEL_POLICIES;
import static dev.qinglong.jdbc.ModelPolicyRows.QUOTA_POLICIES;
import static dev.qinglong.jdbc.StepRunRows.STEP_RUNS;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.modelquota.AdmissionOutcome;
import dev.qinglong.core.modelquota.AdmissionRequest;
import dev.qinglong.core.modelquota.AdmissionSnapshot;
import dev.qinglong.core.modelquota.Completion;
import dev.qinglong.core.modelquota.CompletionOutcome;
import dev.qinglong.core.modelquota.CompletionRequest;
import dev.qinglong.core.modelquota.CompletionSnapshot;
import dev.qinglong.core.modelquota.InvocationStart;
import dev.qinglong.core.modelquota.ModelInvocationPolicy;
import dev.qinglong.core.modelquota.ModelQuotaRules;
import dev.qinglong.core.modelquota.ProjectQuotaPolicy;
import dev.qinglong.core.modelquota.QuotaWindow;
import dev.qinglong.core.modelquota.Reservation;
import dev.qinglong.core.modelquota.Settlement;
import dev.qinglong.core.modelquota.StepRun;
import dev.qinglong.core.modelquota.UsageLedgerEntry;
import dev.qinglong.core.modelquota.WindowRef;
import dev.qinglong.core.modelquota.WindowUsageReading;
import dev.qinglong.jdbc.Coalescer;
import dev.qinglong.jdbc.JdbcDialect;
import dev.qinglong.jdbc.JdbcRows;
import dev.qinglong.jdbc.JdbcTransactions;
import dev.qinglong.jdbc.ModelLifecycle;
import dev.qinglong.jdbc.RecordTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * PostgreSQL's model lifecycle (migration {@code db/postgres-ai/V4}): one statement reads
 * everything an admission or a completion depends on (one snapshot, no lock), {@link
 * ModelQuotaRules} decides once, and one {@code CALL} of the procedure {@code
 * model_lifecycle_admit} / {@code model_lifecycle_complete}, in auto-commit, takes the window lock
 * (and for a completion the ledger lock), checks that the window heads read are still the heads and
 * writes the receipts, or answers {@code stale} and writes nothing; a stale round reads and decides
 * again. Alone, the lock is held for that one statement and its commit; concurrent callers of one
 * Project are served in batches (see {@link #projectQueues}), whose transaction holds it for the
 * batch's statements and its one commit. The procedures take the start's StepRun, run and model
 * from the reservation and the ledger entry's from the completion, as {@link ModelQuotaRules}
 * builds them.
 */
final class PostgresModelLifecycle extends ModelLifecycle {
  /**
   * Rounds of read, decide and conditional write before an admission or completion gives up with
   * {@link StoreUnavailableException}. A round is stale only when another admission or completion
   * of the same window committed in between (every stale round is another's progress), and within
   * this process the Project queue below orders them, so only other processes can make a round
   * stale: the bound is a fail-closed guard, not a path.
   */
  private static final int ROUNDS = 1000;

  /** SQLState of a unique violation: a concurrent writer won. */
  private static final String UNIQUE_VIOLATION = "23505";

  /**
   * SQLState of a detected deadlock: the statement was rolled back. Two batches can wait for each
   * other only across a window's end (one holds the new window's lock and wants the old one's for a
   * completion, the other the reverse), and the server ends it by failing one side's statement.
   */
  private static final String DEADLOCK_DETECTED = "40P01";

  private static final int PROJECT_QUEUES = 256;

  /** Admissions and completions of one Project in one transaction at the most. */
  static final int MAX_BATCH = 32;

  /** How long a queued admission or completion waits for its batch at the most. */
  private static final Duration MAX_WAIT = Duration.ofSeconds(30);

  /**
   * Admissions and completions of one Project in this process queue on one of these (by Project)
   * before they take a connection, one batch at a time per queue (docs/model-quota.md#batches). A
   * caller that finds its queue idle runs alone and at once, in auto-commit, as one read and one
   * {@code CALL}. Callers that arrive while a batch runs wait, and the next batch takes them all:
   * one transaction per Project in it, their reads and {@code CALL}s in arrival order, so that the
   * window lock is taken once and the batch's commit (one WAL flush) answers all of them. Each sees
   * the ones before it (its read is in the same transaction), so none of them is stale for another.
   * Correctness does not depend on the queues (the procedures check under the database lock); they
   * keep one busy window from spending rounds, connections and CPU on reads that are about to be
   * stale, and they turn a hot Project's lifecycles into few commits.
   */
  @SuppressWarnings("unchecked")
  private final Coalescer<Op, Object>[] projectQueues = new Coalescer[PROJECT_QUEUES];

  private final JdbcTransactions jdbc;
  private final String admissionRead;
  private final String completionRead;
  private final String windowRead;

  /** Operations committed in a batch of more than one, and batches that fell back (for tests). */
  private final LongAdder batched = new LongAdder();

  private final LongAdder fellBack = new LongAdder();

  PostgresModelLifecycle(JdbcTransactions jdbc, JdbcDialect dialect) {
    this.jdbc = Objects.requireNonNull(jdbc, "jdbc");
    for (int i = 0; i < PROJECT_QUEUES; i++) {
      projectQueues[i] =
          new Coalescer<>("model quota write", this::runBatch, 1, MAX_BATCH, MAX_WAIT);
    }
    this.admissionRead = admissionRead(dialect);
    this.completionRead = completionRead(dialect);
    this.windowRead = windowRead(dialect);
  }

  @Override
  public AdmissionOutcome admit(AdmissionRequest request) {
    return (AdmissionOutcome)
        queue(request.projectId())
            .call(new Op("model admission", request.projectId(), c -> admission(c, request)));
  }

  @Override
  public CompletionOutcome complete(CompletionRequest request) {
    return (CompletionOutcome)
        queue(request.projectId())
            .call(new Op("model completion", request.projectId(), c -> completion(c, request)));
  }

  private Coalescer<Op, Object> queue(String projectId) {
    return projectQueues[Math.floorMod(projectId.hashCode(), PROJECT_QUEUES)];
  }

  /** Callers waiting in the queue of {@code projectId} now. */
  int queued(String projectId) {
    return queue(projectId).queued();
  }

  /** Admissions and completions committed together with others so far. */
  long batchedOperations() {
    return batched.sum();
  }

  /** Batches that failed as a whole and whose operations then ran one by one, so far. */
  long fallbacks() {
    return fellBack.sum();
  }

  /** One round of read, decide and conditional write: its outcome, or null if it was stale. */
  private interface Round<T> {
    T run(Connection c) throws SQLException;
  }

  /** An admission or a completion waiting in a Project queue. */
  private record Op(String operation, String projectId, Round<?> round) {}

  /**
   * One batch of a queue: each Project's operations (a queue serves the Projects whose ids hash to
   * it), in arrival order. A Project with one operation runs it alone in auto-commit; one with more
   * runs them in one transaction. If anything of that transaction fails (a statement, a unique
   * violation that a concurrent writer caused, a deadlock, the commit), it is rolled back and every
   * operation of it runs again alone, so that one request's fault fails only that request. A
   * transaction holds the locks of one Project only: two processes' batches never wait for each
   * other's second Project.
   */
  private List<Coalescer.Answer<Object>> runBatch(List<Op> ops) {
    List<Coalescer.Answer<Object>> answers = new ArrayList<>(Collections.nCopies(ops.size(), null));
    Map<String, List<Integer>> byProject = new LinkedHashMap<>();
    for (int i = 0; i < ops.size(); i++) {
      byProject.computeIfAbsent(ops.get(i).projectId(), p -> new ArrayList<>()).add(i);
    }
    for (List<Integer> group : byProject.values()) {
      if (group.size() > 1 && together(ops, group, answers)) {
        batched.add(group.size());
        continue;
      }
      if (group.size() > 1) {
        fellBack.increment();
      }
      for (int i : group) {
        answers.set(i, alone(ops.get(i)));
      }
    }
    return answers;
  }

  /** {@code op} on its own connection in auto-commit: a round and its {@code CALL} per commit. */
  private Coalescer.Answer<Object> alone(Op op) {
    try {
      return Coalescer.Answer.of(jdbc.autoCommit(op.operation(), c -> rounds(op, c, false)));
    } catch (RuntimeException e) {
      return Coalescer.Answer.failed(e);
    }
  }

  /**
   * The operations {@code group} of {@code ops} in one transaction; their answers, or false (and
   * nothing committed, nothing answered) if any of it failed.
   */
  private boolean together(List<Op> ops, List<Integer> group, List<Coalescer.Answer<Object>> out) {
    Object[] outcomes = new Object[group.size()];
    try {
      jdbc.inTransaction(
          "model quota batch",
          c -> {
            for (int k = 0; k < group.size(); k++) {
              outcomes[k] = rounds(ops.get(group.get(k)), c, true);
            }
            return null;
          });
    } catch (RuntimeException e) {
      return false;
    }
    for (int k = 0; k < group.size(); k++) {
      out.set(group.get(k), Coalescer.Answer.of(outcomes[k]));
    }
    return true;
  }

  /**
   * Runs {@code op}'s round on {@code c} until it is not stale, at most {@value #ROUNDS} times. In
   * auto-commit a write that meets a unique constraint (a concurrent admission or completion of the
   * same invocation or StepRun won) is stale too: the next read shows the winner; so is a write the
   * server rolled back to end a deadlock. In a transaction either has aborted the transaction, so
   * it is thrown (and the batch runs again one by one).
   */
  private static Object rounds(Op op, Connection c, boolean inTransaction) throws SQLException {
    for (int i = 0; i < ROUNDS; i++) {
      try {
        Object outcome = op.round().run(c);
        if (outcome != null) {
          return outcome;
        }
      } catch (SQLException e) {
        boolean retry =
            UNIQUE_VIOLATION.equals(e.getSQLState()) || DEADLOCK_DETECTED.equals(e.getSQLState());
        if (inTransaction || !retry) {
          throw e;
        }
      }
    }
    throw new StoreUnavailableException(op.operation() + ": window still contended");
  }

  /** One statement is one snapshot: no transaction at another isolation level needed. */
  @Override
  public WindowUsageReading currentWindowUsage(String projectId) {
    return jdbc.autoCommit("window usage read", c -> windowUsage(c, projectId));
  }

  /**
   * A table of a one-row read under its alias, its columns from {@code at} on, joined as {@code
   * LEFT JOIN LATERAL} of its rows {@code where} selects (null: joined by a clause of its own).
   */
  private record Slot<R extends Record>(String alias, RecordTable<R> table, int at, String where) {
    /** The row, or null if the LEFT JOIN found none (its first column, a NOT NULL id, is null). */
    R read(ResultSet rs) throws SQLException {
      return rs.getString(at) == null ? null : table.read(rs, at);
    }
  }

  /** The slots of one read, in select-list order after its first {@code first - 1} columns. */
  private static final class Slots {
    private final List<Slot<?>> slots = new ArrayList<>();
    private int next;

    Slots(int first) {
      next = first;
    }

    <R extends Record> Slot<R> add(String alias, RecordTable<R> table, String where) {
      Slot<R> slot = new Slot<>(alias, table, next, where);
      slots.add(slot);
      next += table.columns().size();
      return slot;
    }

    /** The {@code LEFT JOIN LATERAL} of every slot that has a {@code where}, in order. */
    String joins() {
      return slots.stream()
          .filter(slot -> slot.where() != null)
          .map(
              slot ->
                  "LEFT JOIN LATERAL (SELECT * FROM %s WHERE %s) %s ON true\n"
                      .formatted(slot.table().name(), slot.where(), slot.alias()))
          .collect(Collectors.joining());
    }

    /** {@code , alias.c1, alias.c2, …} for every slot, in order. */
    String columns() {
      return slots.stream()
          .flatMap(slot -> slot.table().columns().stream().map(name -> slot.alias() + "." + name))
          .map(column -> ", " + column)
          .collect(Collectors.joining());
    }

    /** The index of the column after the last slot's. */
    int next() {
      return next;
    }
  }

  /**
   * The latest quota policy {@code q} of project {@code k.project_id} and the window {@code w}
   * containing {@code k.now_ms}: {@code now - now % length} of that policy, the unfenced day
   * without one.
   */
  private static final String WINDOW =
      """

      LEFT JOIN LATERAL (SELECT * FROM model_project_quota_policies
                         WHERE project_id = k.project_id ORDER BY revision DESC LIMIT 1) q
        ON true
      CROSS JOIN LATERAL (SELECT x.wm AS window_ms, k.now_ms - k.now_ms %% x.wm AS window_start_ms
                          FROM (SELECT COALESCE(q.window_ms, %d) AS wm) x) w
      """
          .formatted(QuotaWindow.UNFENCED.millis());

  private static final String OF_INVOCATION =
      "project_id = k.project_id AND invocation_id = k.invocation_id";

  private static final String OF_STEP_RUN =
      "project_id = k.project_id AND step_run_id = k.step_run_id";

  /** The window {@code w}'s latest reservation, its head. */
  private static final String RESERVATION_HEAD =
      "project_id = k.project_id AND window_start_ms = w.window_start_ms"
          + " AND window_ms = w.window_ms ORDER BY window_seq DESC LIMIT 1";

  /** The window {@code w}'s latest settlement, its settled head. */
  private static final String SETTLEMENT_HEAD =
      "project_id = k.project_id AND window_start_ms = w.window_start_ms"
          + " AND window_ms = w.window_ms ORDER BY window_settle_seq DESC LIMIT 1";

  private static final Slots ADMISSION = new Slots(4);
  private static final Slot<ProjectQuotaPolicy> A_QUOTA = ADMISSION.add("q", QUOTA_POLICIES, null);
  private static final Slot<Reservation> A_EXISTING =
      ADMISSION.add("r", RESERVATIONS, OF_INVOCATION);
  private static final Slot<InvocationStart> A_START = ADMISSION.add("s", STARTS, OF_INVOCATION);
  private static final Slot<StepRun> A_STEP = ADMISSION.add("sr", STEP_RUNS, OF_STEP_RUN);
  private static final Slot<ModelInvocationPolicy> A_POLICY =
      ADMISSION.add(
          "mp",
          MODEL_POLICIES,
          "project_id = k.project_id AND model_id = sr.model_id ORDER BY revision DESC LIMIT 1");
  private static final Slot<Reservation> A_OF_STEP = ADMISSION.add("rs", RESERVATIONS, OF_STEP_RUN);
  private static final Slot<Reservation> A_HEAD =
      ADMISSION.add("rh", RESERVATIONS, RESERVATION_HEAD);
  private static final Slot<Settlement> A_SETTLED =
      ADMISSION.add("sh", SETTLEMENTS, SETTLEMENT_HEAD);

  /**
   * Parameters 1 project, 2 invocation, 3 StepRun. The window ({@code now - now % length} of the
   * latest quota policy, the unfenced day without one) is computed here only to find its heads; the
   * store checks it against {@link dev.qinglong.core.modelquota.WindowRef#containing} and does not
   * use the row if they differ.
   */
  private static String admissionRead(JdbcDialect dialect) {
    return windowed(ADMISSION, keys(dialect, "project_id", "invocation_id", "step_run_id"));
  }

  /**
   * The row {@code k} of the text parameters {@code names}, in order, and the database clock {@code
   * now_ms}.
   */
  private static String keys(JdbcDialect dialect, String... names) {
    return Arrays.stream(names)
        .map(name -> "CAST(? AS text) AS " + name + ", ")
        .collect(Collectors.joining("", "\nFROM (SELECT ", dialect.nowMs() + " AS now_ms) k"));
  }

  /** The clock, the window {@code w} and {@code slots} of the key row {@code keys}. */
  private static String windowed(Slots slots, String keys) {
    return "SELECT k.now_ms, w.window_start_ms, w.window_ms"
        + slots.columns()
        + keys
        + WINDOW
        + slots.joins();
  }

  @Override
  protected AdmissionSnapshot readAdmission(Connection c, AdmissionRequest request)
      throws SQLException {
    return snapshot(
        c,
        admissionRead,
        "admission read",
        rs ->
            new AdmissionSnapshot(
                rs.getLong(1),
                new WindowRef(request.projectId(), rs.getLong(2), rs.getLong(3)),
                A_QUOTA.read(rs),
                A_EXISTING.read(rs),
                A_START.read(rs),
                A_STEP.read(rs),
                A_POLICY.read(rs),
                A_OF_STEP.read(rs),
                A_HEAD.read(rs),
                A_SETTLED.read(rs)),
        request.projectId(),
        request.invocationId(),
        request.stepRunId());
  }

  /**
   * The one row of {@code sql} for the text parameters {@code parameters}, mapped.
   *
   * @throws StoreUnavailableException if there is no row, or the domain refuses it (corrupt)
   */
  private static <T> T snapshot(
      Connection c, String sql, String what, JdbcRows.RowMapper<T> mapper, String... parameters)
      throws SQLException {
    T row = JdbcRows.one(c, sql, "model quota", mapper, (Object[]) parameters);
    if (row == null) {
      throw new StoreUnavailableException(what + " returned no row");
    }
    return row;
  }

  private static final Slots WINDOW_READ = new Slots(4);
  private static final Slot<ProjectQuotaPolicy> W_QUOTA =
      WINDOW_READ.add("q", QUOTA_POLICIES, null);
  private static final Slot<Reservation> W_HEAD =
      WINDOW_READ.add("rh", RESERVATIONS, RESERVATION_HEAD);
  private static final Slot<Settlement> W_SETTLED =
      WINDOW_READ.add("sh", SETTLEMENTS, SETTLEMENT_HEAD);

  /** Parameter 1 project; the window as in {@link #admissionRead}. */
  private static String windowRead(JdbcDialect dialect) {
    return windowed(WINDOW_READ, keys(dialect, "project_id"));
  }

  /**
   * The current window's quota policy and heads, in one statement (one snapshot); the window as the
   * statement computes it, which {@link #windowUsage} checks.
   */
  @Override
  protected WindowSnapshot readWindow(Connection c, String projectId) throws SQLException {
    return snapshot(
        c,
        windowRead,
        "window read",
        rs ->
            new WindowSnapshot(
                rs.getLong(1),
                new WindowRef(projectId, rs.getLong(2), rs.getLong(3)),
                W_QUOTA.read(rs),
                W_HEAD.read(rs),
                W_SETTLED.read(rs)),
        projectId);
  }

  private static final Slots COMPLETION = new Slots(2);
  private static final Slot<Reservation> C_RESERVATION =
      COMPLETION.add("r", RESERVATIONS, OF_INVOCATION);
  private static final Slot<Completion> C_COMPLETION =
      COMPLETION.add("c", COMPLETIONS, OF_INVOCATION);
  private static final Slot<UsageLedgerEntry> C_LEDGER = COMPLETION.add("l", LEDGER, OF_INVOCATION);
  private static final Slot<Settlement> C_SETTLEMENT =
      COMPLETION.add("st", SETTLEMENTS, OF_INVOCATION);
  private static final Slot<InvocationStart> C_START = COMPLETION.add("s", STARTS, OF_INVOCATION);
  private static final Slot<StepRun> C_STEP =
      COMPLETION.add("sr", STEP_RUNS, "project_id = k.project_id AND step_run_id = r.step_run_id");

  /** The settled head of the reservation's window. */
  private static final Slot<Settlement> C_SETTLED =
      COMPLETION.add(
          "sh",
          SETTLEMENTS,
          "project_id = k.project_id AND window_start_ms = r.window_start_ms"
              + " AND window_ms = r.window_ms ORDER BY window_settle_seq DESC LIMIT 1");

  private static final int C_LAST_SEQ = COMPLETION.next();

  /** Parameters 1 project, 2 invocation. */
  private static String completionRead(JdbcDialect dialect) {
    return "SELECT k.now_ms"
        + COMPLETION.columns()
        + ", lg.ledger_seq"
        + keys(dialect, "project_id", "invocation_id")
        + "\n"
        + COMPLETION.joins()
        + """
        LEFT JOIN LATERAL (SELECT ledger_seq FROM model_usage_ledger
                           WHERE project_id = k.project_id ORDER BY ledger_seq DESC LIMIT 1) lg
          ON true
        """;
  }

  @Override
  protected CompletionSnapshot readCompletion(Connection c, CompletionRequest request)
      throws SQLException {
    return snapshot(
        c,
        completionRead,
        "completion read",
        rs ->
            new CompletionSnapshot(
                rs.getLong(1),
                C_RESERVATION.read(rs),
                C_COMPLETION.read(rs),
                C_LEDGER.read(rs),
                C_SETTLEMENT.read(rs),
                C_START.read(rs),
                C_STEP.read(rs),
                C_SETTLED.read(rs),
                rs.getLong(C_LAST_SEQ)),
        request.projectId(),
        request.invocationId());
  }

  private static final String ADMIT = "CALL model_lifecycle_admit(" + "?, ".repeat(26) + "NULL)";

  /**
   * Writes an admission's receipts and starts its StepRun, if the window heads are still those of
   * {@code v} and the StepRun is still ready.
   *
   * @return {@code a} if written, null if stale (nothing written)
   */
  @Override
  protected AdmissionOutcome writeAdmission(
      Connection c, AdmissionRequest request, AdmissionSnapshot v, AdmissionOutcome.Admitted a)
      throws SQLException {
    InvocationStart s = a.start();
    try (PreparedStatement ps = c.prepareStatement(ADMIT)) {
      int i = 0;
      ps.setLong(++i, AdvisoryLockKeys.window(v.window()));
      ps.setLong(++i, v.windowHead() == null ? 0 : v.windowHead().windowSeq());
      ps.setLong(++i, settleSeq(v.settledHead()));
      i = RESERVATIONS.bind(ps, i + 1, a.reservation()) - 1;
      ps.setString(++i, s.reservationDigest().value());
      ps.setLong(++i, s.startedAtMs());
      ps.setString(++i, s.digest().value());
      return written(ps) ? a : null;
    }
  }

  private static final String COMPLETE =
      "CALL model_lifecycle_complete(" + "?, ".repeat(32) + "NULL)";

  /**
   * Writes a completion's three receipts and ends its StepRun in the request's terminal state, if
   * the window's settlement head and the Project's ledger head are still those of {@code v}, the
   * invocation has no completion and its StepRun is still running under it.
   *
   * @return {@code d} if written, null if stale (nothing written)
   */
  @Override
  protected CompletionOutcome writeCompletion(
      Connection c, CompletionRequest request, CompletionSnapshot v, CompletionOutcome.Completed d)
      throws SQLException {
    Completion x = d.completion();
    UsageLedgerEntry e = d.ledgerEntry();
    Settlement s = d.settlement();
    try (PreparedStatement ps = c.prepareStatement(COMPLETE)) {
      int i = 0;
      ps.setLong(++i, AdvisoryLockKeys.window(d.reservation().window()));
      ps.setLong(++i, AdvisoryLockKeys.ledger(request.projectId()));
      ps.setLong(++i, settleSeq(v.settledHead()));
      ps.setLong(++i, v.lastLedgerSeq());
      ps.setString(++i, request.outcome().terminalState().wireName());
      ps.setString(++i, x.projectId());
      ps.setString(++i, x.invocationId());
      ps.setString(++i, x.stepRunId());
      ps.setString(++i, e.runId());
      ps.setString(++i, e.modelId());
      ps.setString(++i, x.outcome().wireName());
      setNullableLong(ps, ++i, x.usage() == null ? null : x.usage().inputTokens());
      setNullableLong(ps, ++i, x.usage() == null ? null : x.usage().outputTokens());
      setNullableLong(ps, ++i, x.usage() == null ? null : x.usage().totalTokens());
      setNullableLong(ps, ++i, x.costMicros());
      ps.setLong(++i, x.completedAtMs());
      ps.setString(++i, x.digest().value());
      ps.setLong(++i, e.ledgerSeq());
      ps.setLong(++i, e.recordedAtMs());
      ps.setString(++i, e.digest().value());
      ps.setLong(++i, s.windowStartMs());
      ps.setLong(++i, s.windowMs());
      ps.setString(++i, s.reservationDigest().value());
      ps.setLong(++i, s.settledTokens());
      setNullableLong(ps, ++i, s.settledCostMicros());
      ps.setLong(++i, s.releasedTokens());
      ps.setLong(++i, s.releasedCostMicros());
      ps.setLong(++i, s.windowSettleSeq());
      ps.setLong(++i, s.windowReleasedTokens());
      ps.setLong(++i, s.windowReleasedCostMicros());
      ps.setLong(++i, s.settledAtMs());
      ps.setString(++i, s.digest().value());
      return written(ps) ? d : null;
    }
  }

  /** The window settlement sequence of {@code head}; 0 without one. */
  private static long settleSeq(Settlement head) {
    return head == null ? 0 : head.windowSettleSeq();
  }

  private static boolean written(PreparedStatement ps) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        throw new StoreUnavailableException("lifecycle procedure returned no row");
      }
      String answer = rs.getString(1);
      if ("written".equals(answer)) {
        return true;
      }
      if ("stale".equals(answer)) {
        return false;
      }
      throw new StoreUnavailableException("lifecycle procedure answered " + answer);
    }
  }
}
