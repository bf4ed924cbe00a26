package dev.qinglong.jdbc;

import static dev.qinglong.jdbc.JdbcRows.setNullableLong;

import dev.qinglong.core.ai.Completion;
import dev.qinglong.core.ai.InvocationStart;
import dev.qinglong.core.ai.ModelInvocationPolicy;
import dev.qinglong.core.ai.ProjectQuotaPolicy;
import dev.qinglong.core.ai.QuotaWindow;
import dev.qinglong.core.ai.Reservation;
import dev.qinglong.core.ai.Settlement;
import dev.qinglong.core.ai.StepRun;
import dev.qinglong.core.ai.UsageLedgerEntry;
import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.kernel.ValidationException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;

/**
 * The statements of {@link JdbcModelQuotaStore}'s lifecycle path for a dialect with {@link
 * JdbcDialect#modelLifecycleFunctions()} (PostgreSQL, migration {@code db/postgres-ai/V4}): one
 * statement reads everything an admission or a completion depends on (one snapshot, no lock), and
 * one {@code CALL} of the procedure {@code model_lifecycle_admit} / {@code
 * model_lifecycle_complete}, in auto-commit, takes the window lock, checks that the window heads
 * read are still the heads and writes the receipts that {@link
 * dev.qinglong.core.ai.ModelQuotaRules} produced, or answers {@code stale} and writes nothing. The
 * lock is held for that one statement and its commit, never across a client round trip.
 */
final class ModelLifecycleStatements {
  private ModelLifecycleStatements() {}

  private static final String[] QUOTA = {
    "project_id",
    "revision",
    "window_ms",
    "max_invocations",
    "max_tokens",
    "max_cost_micros",
    "created_at_ms"
  };
  private static final String[] RESERVATION = {
    "project_id",
    "invocation_id",
    "step_run_id",
    "run_id",
    "model_id",
    "model_policy_revision",
    "quota_policy_revision",
    "window_start_ms",
    "window_ms",
    "budget_max_invocations",
    "budget_max_tokens",
    "budget_max_cost_micros",
    "reserved_tokens",
    "reserved_cost_micros",
    "window_seq",
    "window_invocations",
    "window_reserved_tokens",
    "window_reserved_cost_micros",
    "reserved_at_ms",
    "digest"
  };
  private static final String[] START = {
    "project_id",
    "invocation_id",
    "step_run_id",
    "run_id",
    "model_id",
    "reservation_digest",
    "started_at_ms",
    "digest"
  };
  private static final String[] STEP_RUN = {
    "project_id",
    "step_run_id",
    "run_id",
    "model_id",
    "state",
    "invocation_id",
    "created_at_ms",
    "updated_at_ms"
  };
  private static final String[] MODEL_POLICY = {
    "project_id", "model_id", "revision", "max_total_tokens", "max_cost_micros", "created_at_ms"
  };
  private static final String[] COMPLETION = {
    "project_id",
    "invocation_id",
    "step_run_id",
    "outcome",
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "cost_micros",
    "completed_at_ms",
    "digest"
  };
  private static final String[] LEDGER = {
    "project_id",
    "ledger_seq",
    "invocation_id",
    "step_run_id",
    "run_id",
    "model_id",
    "outcome",
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "cost_micros",
    "completion_digest",
    "recorded_at_ms",
    "digest"
  };
  private static final String[] SETTLEMENT = {
    "project_id",
    "invocation_id",
    "window_start_ms",
    "window_ms",
    "reservation_digest",
    "completion_digest",
    "settled_tokens",
    "settled_cost_micros",
    "released_tokens",
    "released_cost_micros",
    "window_settle_seq",
    "window_released_tokens",
    "window_released_cost_micros",
    "settled_at_ms",
    "digest"
  };

  /** {@code alias.c1, alias.c2, …} */
  private static String columns(String alias, String[] names) {
    StringBuilder out = new StringBuilder();
    for (String name : names) {
      out.append(", ").append(alias).append('.').append(name);
    }
    return out.toString();
  }

  /** What one admission depends on, read in one snapshot. Absent rows are null. */
  record AdmissionView(
      long nowMs,
      long windowStartMs,
      long windowMs,
      ProjectQuotaPolicy quota,
      Reservation existing,
      InvocationStart existingStart,
      StepRun stepRun,
      ModelInvocationPolicy policy,
      Reservation ofStepRun,
      Reservation windowHead,
      Settlement settledHead) {}

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

  /** The heads of window {@code w}: the last reservation {@code rh} and settlement {@code sh}. */
  private static final String WINDOW_HEADS =
      """
      LEFT JOIN LATERAL (SELECT * FROM model_invocation_reservations
                         WHERE project_id = k.project_id AND window_start_ms = w.window_start_ms
                           AND window_ms = w.window_ms
                         ORDER BY window_seq DESC LIMIT 1) rh
        ON true
      LEFT JOIN LATERAL (SELECT * FROM model_invocation_settlements
                         WHERE project_id = k.project_id AND window_start_ms = w.window_start_ms
                           AND window_ms = w.window_ms
                         ORDER BY window_settle_seq DESC LIMIT 1) sh
        ON true
      """;

  private static final int A_QUOTA = 4;
  private static final int A_EXISTING = A_QUOTA + QUOTA.length;
  private static final int A_START = A_EXISTING + RESERVATION.length;
  private static final int A_STEP = A_START + START.length;
  private static final int A_POLICY = A_STEP + STEP_RUN.length;
  private static final int A_OF_STEP = A_POLICY + MODEL_POLICY.length;
  private static final int A_HEAD = A_OF_STEP + RESERVATION.length;
  private static final int A_SETTLED = A_HEAD + RESERVATION.length;

  /**
   * Parameters 1 project, 2 invocation, 3 StepRun. The window ({@code now - now % length} of the
   * latest quota policy, the unfenced day without one) is computed here only to find its heads; the
   * store checks it against {@link dev.qinglong.core.ai.WindowRef#containing} and does not use the
   * row if they differ.
   */
  private static String admissionRead(JdbcDialect dialect) {
    return "SELECT k.now_ms, w.window_start_ms, w.window_ms"
        + columns("q", QUOTA)
        + columns("r", RESERVATION)
        + columns("s", START)
        + columns("sr", STEP_RUN)
        + columns("mp", MODEL_POLICY)
        + columns("rs", RESERVATION)
        + columns("rh", RESERVATION)
        + columns("sh", SETTLEMENT)
        + "\nFROM (SELECT CAST(? AS text) AS project_id, CAST(? AS text) AS invocation_id,"
        + " CAST(? AS text) AS step_run_id, "
        + dialect.nowMs()
        + " AS now_ms) k"
        + WINDOW
        + """
        LEFT JOIN LATERAL (SELECT * FROM model_invocation_reservations
                           WHERE project_id = k.project_id AND invocation_id = k.invocation_id) r
          ON true
        LEFT JOIN LATERAL (SELECT * FROM model_invocation_starts
                           WHERE project_id = k.project_id AND invocation_id = k.invocation_id) s
          ON true
        LEFT JOIN LATERAL (SELECT * FROM model_step_runs
                           WHERE project_id = k.project_id AND step_run_id = k.step_run_id) sr
          ON true
        LEFT JOIN LATERAL (SELECT * FROM model_invocation_policies
                           WHERE project_id = k.project_id AND model_id = sr.model_id
                           ORDER BY revision DESC LIMIT 1) mp
          ON true
        LEFT JOIN LATERAL (SELECT * FROM model_invocation_reservations
                           WHERE project_id = k.project_id AND step_run_id = k.step_run_id) rs
          ON true
        """
        + WINDOW_HEADS;
  }

  /**
   * The three read statements' texts for one dialect, built once per store (they are long and every
   * admission, completion and window read uses one).
   */
  record Reads(String admission, String completion, String window) {
    static Reads of(JdbcDialect dialect) {
      return new Reads(admissionRead(dialect), completionRead(dialect), windowRead(dialect));
    }
  }

  static AdmissionView readAdmission(
      Connection c, Reads reads, String projectId, String invocationId, String stepRunId)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(reads.admission())) {
      ps.setString(1, projectId);
      ps.setString(2, invocationId);
      ps.setString(3, stepRunId);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new StoreUnavailableException("admission read returned no row");
        }
        try {
          return new AdmissionView(
              rs.getLong(1),
              rs.getLong(2),
              rs.getLong(3),
              present(rs, A_QUOTA) ? ModelPolicyRows.quotaPolicy(rs, A_QUOTA) : null,
              present(rs, A_EXISTING) ? AdmissionRows.reservation(rs, A_EXISTING) : null,
              present(rs, A_START) ? AdmissionRows.start(rs, A_START) : null,
              present(rs, A_STEP) ? StepRunRows.stepRun(rs, A_STEP) : null,
              present(rs, A_POLICY) ? ModelPolicyRows.modelPolicy(rs, A_POLICY) : null,
              present(rs, A_OF_STEP) ? AdmissionRows.reservation(rs, A_OF_STEP) : null,
              present(rs, A_HEAD) ? AdmissionRows.reservation(rs, A_HEAD) : null,
              present(rs, A_SETTLED) ? CompletionRows.settlement(rs, A_SETTLED) : null);
        } catch (ValidationException | IllegalStateException | IllegalArgumentException e) {
          throw new StoreUnavailableException("corrupt model quota row", e);
        }
      }
    }
  }

  /** A window's usage as of one snapshot: the window heads of {@link #readWindow}. */
  record WindowView(
      long nowMs,
      long windowStartMs,
      long windowMs,
      ProjectQuotaPolicy quota,
      Reservation windowHead,
      Settlement settledHead) {}

  private static final int W_QUOTA = 4;
  private static final int W_HEAD = W_QUOTA + QUOTA.length;
  private static final int W_SETTLED = W_HEAD + RESERVATION.length;

  /** Parameter 1 project; the window as in {@link #admissionRead}. */
  private static String windowRead(JdbcDialect dialect) {
    return "SELECT k.now_ms, w.window_start_ms, w.window_ms"
        + columns("q", QUOTA)
        + columns("rh", RESERVATION)
        + columns("sh", SETTLEMENT)
        + "\nFROM (SELECT CAST(? AS text) AS project_id, "
        + dialect.nowMs()
        + " AS now_ms) k"
        + WINDOW
        + WINDOW_HEADS;
  }

  /** The current window's quota policy and heads, in one statement (one snapshot). */
  static WindowView readWindow(Connection c, Reads reads, String projectId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(reads.window())) {
      ps.setString(1, projectId);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new StoreUnavailableException("window read returned no row");
        }
        try {
          return new WindowView(
              rs.getLong(1),
              rs.getLong(2),
              rs.getLong(3),
              present(rs, W_QUOTA) ? ModelPolicyRows.quotaPolicy(rs, W_QUOTA) : null,
              present(rs, W_HEAD) ? AdmissionRows.reservation(rs, W_HEAD) : null,
              present(rs, W_SETTLED) ? CompletionRows.settlement(rs, W_SETTLED) : null);
        } catch (ValidationException | IllegalStateException | IllegalArgumentException e) {
          throw new StoreUnavailableException("corrupt model quota row", e);
        }
      }
    }
  }

  /** What one completion depends on, read in one snapshot. Absent rows are null. */
  record CompletionView(
      long nowMs,
      Reservation reservation,
      Completion completion,
      UsageLedgerEntry ledgerEntry,
      Settlement settlement,
      InvocationStart start,
      StepRun stepRun,
      Settlement settledHead,
      long lastLedgerSeq) {}

  private static final int C_RESERVATION = 2;
  private static final int C_COMPLETION = C_RESERVATION + RESERVATION.length;
  private static final int C_LEDGER = C_COMPLETION + COMPLETION.length;
  private static final int C_SETTLEMENT = C_LEDGER + LEDGER.length;
  private static final int C_START = C_SETTLEMENT + SETTLEMENT.length;
  private static final int C_STEP = C_START + START.length;
  private static final int C_SETTLED = C_STEP + STEP_RUN.length;
  private static final int C_LAST_SEQ = C_SETTLED + SETTLEMENT.length;

  /** Parameters 1 project, 2 invocation. */
  private static String completionRead(JdbcDialect dialect) {
    return "SELECT k.now_ms"
        + columns("r", RESERVATION)
        + columns("c", COMPLETION)
        + columns("l", LEDGER)
        + columns("st", SETTLEMENT)
        + columns("s", START)
        + columns("sr", STEP_RUN)
        + columns("sh", SETTLEMENT)
        + ", lg.ledger_seq"
        + "\nFROM (SELECT CAST(? AS text) AS project_id, CAST(? AS text) AS invocation_id, "
        + dialect.nowMs()
        + " AS now_ms) k"
        + """

        LEFT JOIN LATERAL (SELECT * FROM model_invocation_reservations
                           WHERE project_id = k.project_id AND invocation_id = k.invocation_id) r
          ON true
        LEFT JOIN LATERAL (SELECT * FROM model_invocation_completions
                           WHERE project_id = k.project_id AND invocation_id = k.invocation_id) c
          ON true
        LEFT JOIN LATERAL (SELECT * FROM model_usage_ledger
                           WHERE project_id = k.project_id AND invocation_id = k.invocation_id) l
          ON true
        LEFT JOIN LATERAL (SELECT * FROM model_invocation_settlements
                           WHERE project_id = k.project_id AND invocation_id = k.invocation_id) st
          ON true
        LEFT JOIN LATERAL (SELECT * FROM model_invocation_starts
                           WHERE project_id = k.project_id AND invocation_id = k.invocation_id) s
          ON true
        LEFT JOIN LATERAL (SELECT * FROM model_step_runs
                           WHERE project_id = k.project_id AND step_run_id = r.step_run_id) sr
          ON true
        LEFT JOIN LATERAL (SELECT * FROM model_invocation_settlements
                           WHERE project_id = k.project_id AND window_start_ms = r.window_start_ms
                             AND window_ms = r.window_ms
                           ORDER BY window_settle_seq DESC LIMIT 1) sh
          ON true
        LEFT JOIN LATERAL (SELECT ledger_seq FROM model_usage_ledger
                           WHERE project_id = k.project_id ORDER BY ledger_seq DESC LIMIT 1) lg
          ON true
        """;
  }

  static CompletionView readCompletion(
      Connection c, Reads reads, String projectId, String invocationId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(reads.completion())) {
      ps.setString(1, projectId);
      ps.setString(2, invocationId);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new StoreUnavailableException("completion read returned no row");
        }
        try {
          return new CompletionView(
              rs.getLong(1),
              present(rs, C_RESERVATION) ? AdmissionRows.reservation(rs, C_RESERVATION) : null,
              present(rs, C_COMPLETION) ? CompletionRows.completion(rs, C_COMPLETION) : null,
              present(rs, C_LEDGER) ? CompletionRows.ledgerEntry(rs, C_LEDGER) : null,
              present(rs, C_SETTLEMENT) ? CompletionRows.settlement(rs, C_SETTLEMENT) : null,
              present(rs, C_START) ? AdmissionRows.start(rs, C_START) : null,
              present(rs, C_STEP) ? StepRunRows.stepRun(rs, C_STEP) : null,
              present(rs, C_SETTLED) ? CompletionRows.settlement(rs, C_SETTLED) : null,
              rs.getLong(C_LAST_SEQ));
        } catch (ValidationException | IllegalStateException | IllegalArgumentException e) {
          throw new StoreUnavailableException("corrupt model quota row", e);
        }
      }
    }
  }

  /** A row of a LEFT JOIN is present when its first column (a NOT NULL project id) is set. */
  private static boolean present(ResultSet rs, int first) throws SQLException {
    return rs.getString(first) != null;
  }

  private static final String ADMIT = "CALL model_lifecycle_admit(" + "?, ".repeat(26) + "NULL)";

  /**
   * Writes an admission's receipts and starts its StepRun, if the window heads are still {@code
   * expectedSeq} and {@code expectedSettleSeq} (0: none) and the StepRun is still ready.
   *
   * @return true if written, false if stale (nothing written)
   */
  static boolean admit(
      Connection c,
      long windowKey,
      long expectedSeq,
      long expectedSettleSeq,
      Reservation r,
      InvocationStart s)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(ADMIT)) {
      int i = 0;
      ps.setLong(++i, windowKey);
      ps.setLong(++i, expectedSeq);
      ps.setLong(++i, expectedSettleSeq);
      ps.setString(++i, r.projectId());
      ps.setString(++i, r.invocationId());
      ps.setString(++i, r.stepRunId());
      ps.setString(++i, r.runId());
      ps.setString(++i, r.modelId());
      ps.setLong(++i, r.modelPolicyRevision());
      ps.setLong(++i, r.quotaPolicyRevision());
      ps.setLong(++i, r.windowStartMs());
      ps.setLong(++i, r.windowMs());
      setNullableLong(ps, ++i, r.budget().maxInvocations());
      setNullableLong(ps, ++i, r.budget().maxTokens());
      setNullableLong(ps, ++i, r.budget().maxCostMicros());
      ps.setLong(++i, r.reservedTokens());
      setNullableLong(ps, ++i, r.reservedCostMicros());
      ps.setLong(++i, r.windowSeq());
      ps.setLong(++i, r.windowInvocations());
      ps.setLong(++i, r.windowReservedTokens());
      ps.setLong(++i, r.windowReservedCostMicros());
      ps.setLong(++i, r.reservedAtMs());
      ps.setString(++i, r.digest().value());
      ps.setString(++i, s.reservationDigest().value());
      ps.setLong(++i, s.startedAtMs());
      ps.setString(++i, s.digest().value());
      return written(ps);
    }
  }

  /**
   * Whether the procedure can write {@code s} as given: it takes the StepRun, run and model of the
   * reservation, and starts the StepRun at the reservation's time.
   */
  static boolean fits(Reservation r, InvocationStart s) {
    return s.projectId().equals(r.projectId())
        && s.invocationId().equals(r.invocationId())
        && s.stepRunId().equals(r.stepRunId())
        && s.runId().equals(r.runId())
        && s.modelId().equals(r.modelId());
  }

  private static final String COMPLETE =
      "CALL model_lifecycle_complete(" + "?, ".repeat(32) + "NULL)";

  /**
   * Writes a completion's three receipts and ends its StepRun in {@code terminalState}, if the
   * window's settlement head is still {@code expectedSettleSeq}, the Project's ledger head still
   * {@code expectedLedgerSeq} (0: none), the invocation has no completion and its StepRun is still
   * running under it.
   *
   * @return true if written, false if stale (nothing written)
   */
  static boolean complete(
      Connection c,
      long windowKey,
      long ledgerKey,
      long expectedSettleSeq,
      long expectedLedgerSeq,
      String terminalState,
      Completion x,
      UsageLedgerEntry e,
      Settlement s)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(COMPLETE)) {
      int i = 0;
      ps.setLong(++i, windowKey);
      ps.setLong(++i, ledgerKey);
      ps.setLong(++i, expectedSettleSeq);
      ps.setLong(++i, expectedLedgerSeq);
      ps.setString(++i, terminalState);
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
      return written(ps);
    }
  }

  /**
   * Whether the procedure can write the three receipts as given: the ledger entry repeats the
   * completion (and adds run and model), the settlement names it, and all three are of one
   * invocation.
   */
  static boolean fits(Completion x, UsageLedgerEntry e, Settlement s) {
    return e.projectId().equals(x.projectId())
        && e.invocationId().equals(x.invocationId())
        && e.stepRunId().equals(x.stepRunId())
        && e.outcome() == x.outcome()
        && Objects.equals(e.usage(), x.usage())
        && Objects.equals(e.costMicros(), x.costMicros())
        && e.completionDigest().equals(x.digest())
        && s.projectId().equals(x.projectId())
        && s.invocationId().equals(x.invocationId())
        && s.completionDigest().equals(x.digest());
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

  /**
   * A {@code ready} StepRun, inserted unless it exists, returned as stored; null if it existed
   * (nothing inserted). One statement; run it in auto-commit.
   */
  static StepRun insertReady(
      Connection c,
      JdbcDialect dialect,
      String projectId,
      String stepRunId,
      String runId,
      String modelId)
      throws SQLException {
    String sql =
        """
        INSERT INTO model_step_runs
          (project_id, step_run_id, run_id, model_id, state, invocation_id,
           created_at_ms, updated_at_ms)
        SELECT ?, ?, ?, ?, 'ready', NULL, k.now_ms, k.now_ms FROM (SELECT %s AS now_ms) k
        ON CONFLICT (project_id, step_run_id) DO NOTHING
        RETURNING project_id, step_run_id, run_id, model_id, state, invocation_id,
                  created_at_ms, updated_at_ms
        """
            .formatted(dialect.nowMs());
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, projectId);
      ps.setString(2, stepRunId);
      ps.setString(3, runId);
      ps.setString(4, modelId);
      return JdbcRows.one(ps, "step run", rs -> StepRunRows.stepRun(rs, 1));
    }
  }
}
