package dev.qinglong.jdbc;

import dev.qinglong.core.modelquota.Completion;
import dev.qinglong.core.modelquota.Settlement;
import dev.qinglong.core.modelquota.UsageLedgerEntry;
import dev.qinglong.core.modelquota.WindowRef;
import java.sql.Connection;
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

  public static Completion completionOfInvocation(
      Connection c, String projectId, String invocationId) throws SQLException {
    return COMPLETIONS.first(c, AdmissionRows.BY_INVOCATION, projectId, invocationId);
  }

  public static UsageLedgerEntry ledgerEntryOfInvocation(
      Connection c, String projectId, String invocationId) throws SQLException {
    return LEDGER.first(c, AdmissionRows.BY_INVOCATION, projectId, invocationId);
  }

  public static Settlement settlementOfInvocation(
      Connection c, String projectId, String invocationId) throws SQLException {
    return SETTLEMENTS.first(c, AdmissionRows.BY_INVOCATION, projectId, invocationId);
  }

  /** Up to {@code limit} entries with a sequence number above {@code afterSeq}, ascending. */
  public static List<UsageLedgerEntry> ledgerPage(
      Connection c, String projectId, long afterSeq, int limit) throws SQLException {
    return LEDGER.all(
        c,
        "WHERE project_id = ? AND ledger_seq > ? ORDER BY ledger_seq LIMIT ?",
        projectId,
        afterSeq,
        limit);
  }

  /** The Project's highest ledger sequence number, 0 while its ledger is empty. */
  public static long lastLedgerSeq(Connection c, String projectId) throws SQLException {
    Long last =
        JdbcRows.one(
            c,
            "SELECT ledger_seq FROM model_usage_ledger WHERE project_id = ?"
                + " ORDER BY ledger_seq DESC LIMIT 1",
            "ledger",
            rs -> rs.getLong(1),
            projectId);
    return last == null ? 0 : last;
  }

  /** The window's latest settlement: one seek down the (project, window, seq) unique index. */
  public static Settlement windowHead(Connection c, WindowRef w) throws SQLException {
    return AdmissionRows.head(SETTLEMENTS, "window_settle_seq", c, w);
  }
}
