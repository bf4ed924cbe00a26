package dev.qinglong.jdbc;

import static dev.qinglong.jdbc.JdbcRows.nullableLong;
import static dev.qinglong.jdbc.JdbcRows.setNullableLong;

import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.core.modelquota.Completion;
import dev.qinglong.core.modelquota.InvocationOutcome;
import dev.qinglong.core.modelquota.Settlement;
import dev.qinglong.core.modelquota.TokenUsage;
import dev.qinglong.core.modelquota.UsageLedgerEntry;
import dev.qinglong.core.modelquota.WindowRef;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * The completion receipts of {@link JdbcModelQuotaStore} ({@code model_invocation_completions},
 * {@code model_usage_ledger}, {@code model_invocation_settlements}): insert-only. Each statement
 * next to the code that binds and maps it; a missing row is null.
 */
public final class CompletionRows {
  private CompletionRows() {}

  /**
   * The columns of {@code model_invocation_completions} in the order this class maps and binds
   * them.
   */
  public static final List<String> COMPLETION_COLUMNS =
      JdbcRows.columns(
          """
          project_id, invocation_id, step_run_id, outcome, input_tokens, output_tokens,
          total_tokens, cost_micros, completed_at_ms, digest
          """);

  /** The columns of {@code model_usage_ledger} in the order this class maps and binds them. */
  public static final List<String> LEDGER_COLUMNS =
      JdbcRows.columns(
          """
          project_id, ledger_seq, invocation_id, step_run_id, run_id, model_id, outcome,
          input_tokens, output_tokens, total_tokens, cost_micros, completion_digest,
          recorded_at_ms, digest
          """);

  /**
   * The columns of {@code model_invocation_settlements} in the order this class maps and binds
   * them.
   */
  public static final List<String> SETTLEMENT_COLUMNS =
      JdbcRows.columns(
          """
          project_id, invocation_id, window_start_ms, window_ms, reservation_digest,
          completion_digest, settled_tokens, settled_cost_micros, released_tokens,
          released_cost_micros, window_settle_seq, window_released_tokens,
          window_released_cost_micros, settled_at_ms, digest
          """);

  private static final String COMPLETION_BY_INVOCATION =
      """
      SELECT %s FROM model_invocation_completions WHERE project_id = ? AND invocation_id = ?
      """
          .formatted(String.join(", ", COMPLETION_COLUMNS));

  public static Completion completionOfInvocation(
      Connection c, String projectId, String invocationId) throws SQLException {
    return JdbcRows.byKey(
        c,
        COMPLETION_BY_INVOCATION,
        projectId,
        invocationId,
        "completion",
        rs -> completion(rs, 1));
  }

  private static final String INSERT_COMPLETION =
      """
      INSERT INTO model_invocation_completions (%s) VALUES (%s)
      """
          .formatted(
              String.join(", ", COMPLETION_COLUMNS),
              JdbcRows.parameters(COMPLETION_COLUMNS.size()));

  public static void insert(Connection c, Completion x) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT_COMPLETION)) {
      ps.setString(1, x.projectId());
      ps.setString(2, x.invocationId());
      ps.setString(3, x.stepRunId());
      ps.setString(4, x.outcome().wireName());
      bindUsage(ps, 5, x.usage());
      setNullableLong(ps, 8, x.costMicros());
      ps.setLong(9, x.completedAtMs());
      ps.setString(10, x.digest().value());
      ps.executeUpdate();
    }
  }

  /** The ledger columns {@link #ledgerEntry(ResultSet)} maps, without a WHERE clause. */
  private static final String LEDGER =
      """
      SELECT %s FROM model_usage_ledger
      """
          .formatted(String.join(", ", LEDGER_COLUMNS));

  /** The entry in the columns from {@code at} on, in {@link #LEDGER} order. */
  public static UsageLedgerEntry ledgerEntry(ResultSet rs, int at) throws SQLException {
    return new UsageLedgerEntry(
        rs.getString(at),
        rs.getLong(at + 1),
        rs.getString(at + 2),
        rs.getString(at + 3),
        rs.getString(at + 4),
        rs.getString(at + 5),
        InvocationOutcome.fromWire(rs.getString(at + 6)),
        usage(rs, at + 7),
        nullableLong(rs, at + 10),
        new Sha256Digest(rs.getString(at + 11)),
        rs.getLong(at + 12),
        new Sha256Digest(rs.getString(at + 13)));
  }

  private static final String LEDGER_BY_INVOCATION =
      LEDGER + "WHERE project_id = ? AND invocation_id = ?";

  public static UsageLedgerEntry ledgerEntryOfInvocation(
      Connection c, String projectId, String invocationId) throws SQLException {
    return JdbcRows.byKey(
        c, LEDGER_BY_INVOCATION, projectId, invocationId, "ledger entry", rs -> ledgerEntry(rs, 1));
  }

  private static final String LEDGER_PAGE =
      LEDGER + "WHERE project_id = ? AND ledger_seq > ? ORDER BY ledger_seq LIMIT ?";

  /** Up to {@code limit} entries with a sequence number above {@code afterSeq}, ascending. */
  public static List<UsageLedgerEntry> ledgerPage(
      Connection c, String projectId, long afterSeq, int limit) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(LEDGER_PAGE)) {
      ps.setString(1, projectId);
      ps.setLong(2, afterSeq);
      ps.setInt(3, limit);
      return JdbcRows.all(ps, "ledger entry", rs -> ledgerEntry(rs, 1));
    }
  }

  private static final String LAST_LEDGER_SEQ =
      """
      SELECT ledger_seq FROM model_usage_ledger WHERE project_id = ?
      ORDER BY ledger_seq DESC LIMIT 1
      """;

  /** The Project's highest ledger sequence number, 0 while its ledger is empty. */
  public static long lastLedgerSeq(Connection c, String projectId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(LAST_LEDGER_SEQ)) {
      ps.setString(1, projectId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    }
  }

  private static final String INSERT_LEDGER =
      """
      INSERT INTO model_usage_ledger (%s) VALUES (%s)
      """
          .formatted(String.join(", ", LEDGER_COLUMNS), JdbcRows.parameters(LEDGER_COLUMNS.size()));

  public static void insert(Connection c, UsageLedgerEntry e) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT_LEDGER)) {
      ps.setString(1, e.projectId());
      ps.setLong(2, e.ledgerSeq());
      ps.setString(3, e.invocationId());
      ps.setString(4, e.stepRunId());
      ps.setString(5, e.runId());
      ps.setString(6, e.modelId());
      ps.setString(7, e.outcome().wireName());
      bindUsage(ps, 8, e.usage());
      setNullableLong(ps, 11, e.costMicros());
      ps.setString(12, e.completionDigest().value());
      ps.setLong(13, e.recordedAtMs());
      ps.setString(14, e.digest().value());
      ps.executeUpdate();
    }
  }

  /** The settlement columns {@link #settlement(ResultSet)} maps, without a WHERE clause. */
  private static final String SETTLEMENTS =
      """
      SELECT %s FROM model_invocation_settlements
      """
          .formatted(String.join(", ", SETTLEMENT_COLUMNS));

  /** The settlement in the columns from {@code at} on, in {@link #SETTLEMENTS} order. */
  public static Settlement settlement(ResultSet rs, int at) throws SQLException {
    return new Settlement(
        rs.getString(at),
        rs.getString(at + 1),
        rs.getLong(at + 2),
        rs.getLong(at + 3),
        new Sha256Digest(rs.getString(at + 4)),
        new Sha256Digest(rs.getString(at + 5)),
        rs.getLong(at + 6),
        nullableLong(rs, at + 7),
        rs.getLong(at + 8),
        rs.getLong(at + 9),
        rs.getLong(at + 10),
        rs.getLong(at + 11),
        rs.getLong(at + 12),
        rs.getLong(at + 13),
        new Sha256Digest(rs.getString(at + 14)));
  }

  private static final String SETTLEMENT_BY_INVOCATION =
      SETTLEMENTS + "WHERE project_id = ? AND invocation_id = ?";

  public static Settlement settlementOfInvocation(
      Connection c, String projectId, String invocationId) throws SQLException {
    return JdbcRows.byKey(
        c,
        SETTLEMENT_BY_INVOCATION,
        projectId,
        invocationId,
        "settlement",
        rs -> settlement(rs, 1));
  }

  /** The window's latest settlement: one seek down the (project, window, seq) unique index. */
  private static final String WINDOW_HEAD_SETTLEMENT =
      SETTLEMENTS
          + """
          WHERE project_id = ? AND window_start_ms = ? AND window_ms = ?
          ORDER BY window_settle_seq DESC LIMIT 1
          """;

  public static Settlement windowHead(Connection c, WindowRef w) throws SQLException {
    return JdbcRows.byWindow(c, WINDOW_HEAD_SETTLEMENT, w, "settlement", rs -> settlement(rs, 1));
  }

  private static final String INSERT_SETTLEMENT =
      """
      INSERT INTO model_invocation_settlements (%s) VALUES (%s)
      """
          .formatted(
              String.join(", ", SETTLEMENT_COLUMNS),
              JdbcRows.parameters(SETTLEMENT_COLUMNS.size()));

  public static void insert(Connection c, Settlement s) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT_SETTLEMENT)) {
      ps.setString(1, s.projectId());
      ps.setString(2, s.invocationId());
      ps.setLong(3, s.windowStartMs());
      ps.setLong(4, s.windowMs());
      ps.setString(5, s.reservationDigest().value());
      ps.setString(6, s.completionDigest().value());
      ps.setLong(7, s.settledTokens());
      setNullableLong(ps, 8, s.settledCostMicros());
      ps.setLong(9, s.releasedTokens());
      ps.setLong(10, s.releasedCostMicros());
      ps.setLong(11, s.windowSettleSeq());
      ps.setLong(12, s.windowReleasedTokens());
      ps.setLong(13, s.windowReleasedCostMicros());
      ps.setLong(14, s.settledAtMs());
      ps.setString(15, s.digest().value());
      ps.executeUpdate();
    }
  }

  /** Input, output and total tokens from {@code first} on: all null (unknown) or all set. */
  private static void bindUsage(PreparedStatement ps, int first, TokenUsage u) throws SQLException {
    setNullableLong(ps, first, u == null ? null : u.inputTokens());
    setNullableLong(ps, first + 1, u == null ? null : u.outputTokens());
    setNullableLong(ps, first + 2, u == null ? null : u.totalTokens());
  }

  private static TokenUsage usage(ResultSet rs, int first) throws SQLException {
    Long input = nullableLong(rs, first);
    Long output = nullableLong(rs, first + 1);
    Long total = nullableLong(rs, first + 2);
    if (input == null && output == null && total == null) {
      return null;
    }
    if (input == null || output == null || total == null) {
      throw new IllegalStateException("partial token usage");
    }
    return new TokenUsage(input, output, total);
  }

  /**
   * The completion in the columns from {@code at} on, in {@link #COMPLETION_BY_INVOCATION} order.
   */
  public static Completion completion(ResultSet rs, int at) throws SQLException {
    return new Completion(
        rs.getString(at),
        rs.getString(at + 1),
        rs.getString(at + 2),
        InvocationOutcome.fromWire(rs.getString(at + 3)),
        usage(rs, at + 4),
        nullableLong(rs, at + 7),
        rs.getLong(at + 8),
        new Sha256Digest(rs.getString(at + 9)));
  }
}
