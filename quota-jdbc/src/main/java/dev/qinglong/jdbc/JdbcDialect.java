package dev.qinglong.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * What one database does differently from the standard SQL that the JDBC stores of this module
 * write once ({@link JdbcManagementQuotaStore}, {@link JdbcGovernanceStore}, {@link
 * JdbcPolicyStore}, {@link JdbcModelQuotaStore}). In the manner of db-scheduler's {@code
 * JdbcCustomization} and ShedLock's {@code SqlStatementsSource}: only what differs is a method, and
 * each store takes the dialect in its constructor. Implementations are stateless and thread-safe.
 */
public interface JdbcDialect {

  /**
   * The database's name in {@link dev.qinglong.core.kernel.StoreUnavailableException} messages
   * ({@code "postgres store unavailable during …"}).
   */
  String name();

  /**
   * An SQL expression of type integer: the database clock in epoch milliseconds. The wall clock of
   * the database server, not the transaction start (quota windows run on it:
   * docs/design.md#fixed-windows-on-the-database-clock).
   */
  String nowMs();

  /**
   * An SQL expression of type text: a new webhook event id, {@code msg_} followed by 32 random
   * lower-case hex digits, evaluated once per row, so that one statement enqueues an event for
   * every subscribed endpoint ({@link WebhookOutbox}).
   */
  String newDeliveryId();

  /**
   * The management quota decision in one statement on {@link #nowMs}, every outcome decided and
   * classified by it: inserts the bucket, restarts its window or counts the receipt, or changes
   * none of the decision columns (the receipt id is already in the window, with this request digest
   * or another, or the window is full). The bucket stays locked from the moment the statement reads
   * it until it commits, so what it returns is the bucket as it stands. Parameters: 1 project id, 2
   * subject type, 3 subject id, 4 operation, 5 receipt id, 6 request digest (64 hex digits; all
   * text), 7 window length in ms (bigint), 8 the default limit (integer).
   *
   * <p>The limit it decides under is resolved by the statement itself, from the limit revisions
   * (docs/stores.md#limits-as-data): the user's latest value for the operation ({@code
   * management_quota_limits}, user id = subject id), else the Project's (user id {@code ''}), else
   * parameter 8; the shadow limit the same way, with no default. No cache and no other statement,
   * so a revision committed before the statement started is in force for it.
   *
   * <p>Receipts are stored as JSON objects {@code {"id": receipt id, "d": request digest}} in the
   * {@code receipt_ids} array (the schema allows no other shape). The statement counts only a
   * receipt whose id is not in the array, and never counts into a corrupt bucket (count outside
   * 1..1000, or not the receipt array's length) unless its window has ended. The operation must be
   * a row of {@code management_quota_operations}: the bucket's foreign key fails the statement for
   * any other.
   *
   * <p>Returns one row {@code (outcome, window_started_at_ms, consumed_count, receipt_count,
   * now_ms, full_receipt_ids, max_count, shadow_count, limit_source)}: {@code outcome} a {@link
   * dev.qinglong.core.quota.BucketReading.Outcome} wire name ({@code allowed}, {@code replayed},
   * {@code key_reused}, {@code rejected}, {@code corrupt}); the bucket's window start, count and
   * receipt array length after the statement; {@code now_ms} the clock it decided on; and, only
   * when the bucket is full after the statement (count at or above the limit, not corrupt), the ids
   * of every receipt in it separated by single spaces (receipt ids have no spaces), for {@link
   * HotBuckets}; then the limit it decided under, the shadow limit (NULL: none) and where the limit
   * came from ({@code user}, {@code project} or {@code default}). The outcome is SQL NULL, or there
   * is no row at all, only when the statement could not decide: PostgreSQL, when another
   * transaction created the bucket after this statement's snapshot (decide again: the bucket now
   * exists and is never deleted); SQLite, when the bucket is corrupt.
   */
  String decideStatement();

  /**
   * The {@link #decideStatement} decision for several buckets in one statement (and so one commit
   * in auto-commit), or null if the dialect has none (then every decision runs alone). Coalescing
   * (docs/stores.md#coalescing-postgresql): concurrent decisions of one process share a statement
   * and the commit's flush ({@link JdbcManagementQuotaStore} groups them).
   *
   * <p>Parameters are eight arrays of equal length n, bound with {@link Connection#createArrayOf}
   * under the type names {@code text}, {@code bigint} and {@code integer}; element i of each is
   * request i: 1 project ids, 2 subject types, 3 subject ids, 4 operations, 5 receipt ids, 6
   * request digests (all {@code text}), 7 window lengths in ms ({@code bigint}), 8 default limits
   * ({@code integer}), each request's limit resolved as {@link #decideStatement} resolves it.
   * Window and limit may differ between requests. The buckets (project, subject type, subject id,
   * operation) must be distinct: one statement cannot decide a bucket twice, so the caller puts a
   * bucket's further requests into later statements. The statement locks the buckets in one order
   * (sorted by bucket), so that two processes' statements cannot deadlock on each other.
   *
   * <p>Returns n rows, ordered by the first column: {@code (ordinal, outcome, window_started_at_ms,
   * consumed_count, receipt_count, now_ms, full_receipt_ids, max_count, shadow_count,
   * limit_source)}, {@code ordinal} the request's 1-based position in the arrays and the rest
   * exactly as {@link #decideStatement} returns for that request alone (one {@code now_ms} for the
   * whole statement). A NULL outcome means that request could not be decided (a bucket created
   * concurrently after the statement's snapshot): decide it again.
   */
  default String decideBatchStatement() {
    return null;
  }

  /**
   * Binds a member's permissions as the {@code project_members.permissions} column stores them.
   *
   * @param wireNames permission wire names, sorted, without duplicates
   */
  void setPermissions(PreparedStatement statement, int index, List<String> wireNames)
      throws SQLException;

  /** Reads a {@code project_members.permissions} column back as wire names. */
  List<String> getPermissions(ResultSet row, int column) throws SQLException;

  /**
   * How this database admits and completes model invocations ({@link JdbcModelQuotaStore}): each
   * one read of an {@link dev.qinglong.core.modelquota.AdmissionSnapshot} or {@link
   * dev.qinglong.core.modelquota.CompletionSnapshot}, one decision by {@link
   * dev.qinglong.core.modelquota.ModelQuotaRules} and one atomic write of its receipts.
   */
  ModelLifecycle modelLifecycle(JdbcTransactions jdbc);
}
