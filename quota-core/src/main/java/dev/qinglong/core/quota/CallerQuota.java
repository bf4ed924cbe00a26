package dev.qinglong.core.quota;

import dev.qinglong.core.kernel.ForbiddenException;
import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.policy.ProjectPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Reads the caller's own management quota ({@code GET …/management-quota}). Reading it consumes
 * none of it: a client that polls its budget must not change what it reads. The read is one
 * statement per request after the Project Policy check, like every other route.
 */
public record CallerQuota(
    ProjectPolicy policy, ManagementQuotaStore store, ManagementQuotaPolicy quotaPolicy) {

  public CallerQuota {
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(quotaPolicy, "quotaPolicy");
  }

  /**
   * The caller's quota per operation. Needs some permission in the Project (an unknown Project and
   * a foreign one are the same 403).
   *
   * @throws ValidationException if {@code projectId} breaks the grammar
   * @throws ForbiddenException if the caller holds nothing in the Project
   * @throws StoreUnavailableException if the store cannot answer, or a bucket is corrupt
   */
  public QuotaUsage read(Principal caller, String projectId) {
    Identifiers.require("projectId", projectId);
    if (policy.permissions(caller, projectId).isEmpty()) {
      throw new ForbiddenException("no permission in project");
    }
    long windowMs = quotaPolicy.window().toMillis();
    if (!quotaPolicy.enabled()) {
      return new QuotaUsage(false, windowMs, null, List.of());
    }
    BucketsSnapshot snapshot = store.buckets(projectId, SubjectType.USER, caller.userId());
    if (snapshot == null) {
      throw new StoreUnavailableException("quota store returned no buckets");
    }
    return usage(snapshot, quotaPolicy);
  }

  /** The usage {@code snapshot} shows under {@code quotaPolicy}; pure. */
  static QuotaUsage usage(BucketsSnapshot snapshot, ManagementQuotaPolicy quotaPolicy) {
    long windowMs = quotaPolicy.window().toMillis();
    long now = snapshot.databaseNowMs();
    List<OperationUsage> out = new ArrayList<>();
    for (QuotaOperation op : QuotaOperation.values()) {
      EffectiveLimit effective = snapshot.effective(op, quotaPolicy.limit(op));
      int limit = effective.limit();
      BucketsSnapshot.Bucket bucket = snapshot.buckets().get(op);
      if (bucket != null
          && (bucket.consumedCount() < 1 || bucket.consumedCount() > BucketReading.MAX_COUNT)) {
        throw new StoreUnavailableException("corrupt quota bucket: count out of range");
      }
      long endsAt = bucket == null ? 0 : bucket.windowStartedAtMs() + windowMs;
      if (bucket == null || endsAt <= now) {
        out.add(
            new OperationUsage(
                op,
                limit,
                effective.source(),
                effective.shadowLimit(),
                0,
                limit,
                null,
                null,
                null));
        continue;
      }
      // A limit lowered below a window's count shows that window as full, never as negative.
      int used = Math.min(bucket.consumedCount(), limit);
      long resetSeconds = Math.max(1, (Math.min(endsAt - now, windowMs) + 999) / 1000);
      out.add(
          new OperationUsage(
              op,
              limit,
              effective.source(),
              effective.shadowLimit(),
              used,
              limit - used,
              bucket.windowStartedAtMs(),
              endsAt,
              resetSeconds));
    }
    return new QuotaUsage(true, windowMs, now, out);
  }
}
