package dev.qinglong.core.quota;

import dev.qinglong.core.kernel.StoreUnavailableException;
import java.time.Duration;

/**
 * Durable fixed-window quota buckets (docs/design.md#fixed-windows-on-the-database-clock). One
 * bucket per {@link QuotaKey} holds the window start, the consumed count and the receipts (id +
 * request digest) of the current window, all decided on the database's clock; the application clock
 * never chooses a window.
 */
public interface ManagementQuotaStore {

  /**
   * Decides one request in a single atomic statement on the database clock. A receipt names one
   * request: the bucket keeps, with each receipt id, the {@link RequestDigest} it was spent on.
   *
   * <ol>
   *   <li>No bucket, or its window ({@code window} long) has ended: the bucket restarts at count 1
   *       holding only {@code receipt} → {@link QuotaDecision.Allowed}.
   *   <li>{@code receipt} is already in the current window with the same {@code request} digest →
   *       {@link QuotaDecision.Replayed}, count unchanged.
   *   <li>{@code receipt} is already in the current window with another digest → {@link
   *       QuotaDecision.KeyReused}, nothing changed, whether or not the window is full.
   *   <li>count &lt; {@code limit}: count + 1, receipt appended → {@link QuotaDecision.Allowed}.
   *   <li>Otherwise nothing changes → {@link QuotaDecision.Rejected} with the whole seconds left in
   *       the window on the database clock (at least 1).
   * </ol>
   *
   * A replay after a lost response therefore hits case 2 and is never counted twice; a reused id is
   * never counted and never allowed.
   *
   * @param limit 1..1000
   * @param window 1 s .. 5 min
   * @throws StoreUnavailableException if the database is unreachable, the statement fails, the
   *     bucket row is corrupt, or the outcome cannot be determined. Never means "allowed".
   */
  QuotaDecision consume(
      QuotaKey key, ReceiptId receipt, RequestDigest request, int limit, Duration window);

  /**
   * The subject's buckets in the Project, whatever their operation, and the database clock, read in
   * one statement. Read-only: nothing is counted, reset or created.
   *
   * @return the stored buckets by operation (none if the subject has none) and the database's now
   * @throws StoreUnavailableException if the database cannot answer or a row names an operation
   *     this code does not know
   */
  BucketsSnapshot buckets(String projectId, SubjectType subjectType, String subjectId);
}
