package dev.qinglong.core.quota;

import dev.qinglong.core.kernel.StoreUnavailableException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

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
   * <p>The limit is resolved by the same statement: the user's override for the operation, else the
   * Project's policy, else {@code defaultLimit} ({@link EffectiveLimit#resolve}); the shadow limit
   * likewise, with no default. So a {@link #putLimits} is in force for the next decision of every
   * instance, with no cache and no second statement. The decision carries the {@link
   * EffectiveLimit} it was made under. In the cases below, "the limit" is that effective limit.
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
   * @param defaultLimit 1..1000, the limit where neither the user nor the Project set one
   * @param window 1 s .. 5 min
   * @throws StoreUnavailableException if the database is unreachable, the statement fails, the
   *     bucket row or a limit row is corrupt, or the outcome cannot be determined. Never means
   *     "allowed".
   */
  QuotaDecision consume(
      QuotaKey key, ReceiptId receipt, RequestDigest request, int defaultLimit, Duration window);

  /**
   * Appends a revision of the Project's limits ({@code userId} null) or of one user's override in
   * the Project ({@link QuotaLimits#NONE} removes the override), stamped with the database clock.
   * Revisions are never changed. Returns once the revision is in force for every decision of every
   * instance that starts afterwards, including a refusal an instance would give from memory (see
   * the implementation for how long that takes).
   *
   * @return the revision written
   * @throws StoreUnavailableException if the store cannot write it
   */
  QuotaLimitsRevision putLimits(String projectId, String userId, QuotaLimits limits, String setBy);

  /**
   * The latest revision of the Project's limits ({@code userId} null) or of a user's override.
   *
   * @throws StoreUnavailableException if the store cannot answer or a row is corrupt (never the
   *     default in its place)
   */
  Optional<QuotaLimitsRevision> limits(String projectId, String userId);

  /**
   * The users with an override in the Project (their latest revision sets something), in user-id
   * order after {@code afterUserId} (null: from the first), at most {@code size}.
   */
  List<QuotaLimitsRevision> userLimits(String projectId, String afterUserId, int size);

  /**
   * The buckets of the Project whose current window ({@code window} long, on the database clock)
   * went past the shadow limit in force for them, the fullest first, at most {@code size}. Read
   * from the buckets and the limits: a decision writes nothing more for a shadow limit.
   */
  List<ShadowRefusal> shadowRefusals(String projectId, Duration window, int size);

  /**
   * The subject's buckets in the Project, whatever their operation, the limits set for it (the
   * Project's policy and the user's override) and the database clock, read in one statement.
   * Read-only: nothing is counted, reset or created.
   *
   * @return the stored buckets by operation (none if the subject has none) and the database's now
   * @throws StoreUnavailableException if the database cannot answer or a row names an operation
   *     this code does not know
   */
  BucketsSnapshot buckets(String projectId, SubjectType subjectType, String subjectId);
}
