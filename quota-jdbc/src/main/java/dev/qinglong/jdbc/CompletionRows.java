package dev.qinglong.jdbc;

import dev.qinglong.core.modelquota.Completion;
import dev.qinglong.core.modelquota.Settlement;
import dev.qinglong.core.modelquota.UsageLedgerEntry;
import dev.qinglong.core.modelquota.WindowRef;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * The completion receipts of {@link JdbcModelQuotaStore} ({@code model_invocation_completions},
 * {@code model_usage_ledger}, {@code model_invocation_settlements}): insert-only; a missing row is
 * null.
 */
public final class CompletionRows {
  private CompletionRows() {}

  public static final RecordTable<Completion> COMPLETIONS =
      RecordTable.of("model_invocation_completions", Completion.class);

  public static final RecordTable<UsageLedgerEntry> LEDGER =
      RecordTable.of("model_usage_ledger", UsageLedgerEntry.class);

  public static final RecordTable<Settlement> SETTLEMENTS =
      RecordTable.of("model_invocation_settlements", Settlement.class);

  private static final String BY_INVOCATION = "WHERE project_id = ? AND invocation_id = ?";

  public static Completion completionOfInvocation(
      Connection c, String projectId, String invocationId) throws SQLException {
    return COMPLETIONS.byKey(c, BY_INVOCATION, projectId, invocationId);
  }

  public static UsageLedgerEntry ledgerEntryOfInvocation(
      Connection c, String projectId, String invocationId) throws SQLException {
    return LEDGER.byKey(c, BY_INVOCATION, projectId, invocationId);
  }

  public static Settlement settlementOfInvocation(
      Connection c, String projectId, String invocationId) throws SQLException {
    return SETTLEMENTS.byKey(c, BY_INVOCATION, projectId, invocationId);
  }

  private static final String LEDGER_PAGE =
      LEDGER.select() + "WHERE project_id = ? AND ledger_seq > ? ORDER BY ledger_seq LIMIT ?";

  /** Up to {@code limit} entries with a sequence number above {@code afterSeq}, ascending. */
  public static List<UsageLedgerEntry> ledgerPage(
      Connection c, String projectId, long afterSeq, int limit) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(LEDGER_PAGE)) {
      ps.setString(1, projectId);
      ps.setLong(2, afterSeq);
      ps.setInt(3, limit);
      return LEDGER.all(ps);
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

  /** The window's latest settlement: one seek down the (project, window, seq) unique index. */
  public static Settlement windowHead(Connection c, WindowRef w) throws SQLException {
    return SETTLEMENTS.byWindow(
        c,
        """
        WHERE project_id = ? AND window_start_ms = ? AND window_ms = ?
        ORDER BY window_settle_seq DESC LIMIT 1
        """,
        w);
  }
}
