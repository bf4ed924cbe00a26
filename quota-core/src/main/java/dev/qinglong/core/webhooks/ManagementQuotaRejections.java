package dev.qinglong.core.webhooks;

import dev.qinglong.core.quota.QuotaDecision;
import dev.qinglong.core.quota.QuotaKey;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * The {@code management-quota.rejected} event of one refusal: at most one per bucket (Project,
 * subject, operation) and window, whatever the number of refusals or processes. The deduplication
 * key names the bucket and the window start the deciding statement returned, which every process
 * and replica reads alike; the body carries ids and numbers only.
 */
public final class ManagementQuotaRejections {
  static final DateTimeFormatter ISO =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private ManagementQuotaRejections() {}

  /** What identifies the event: the bucket and its window start. */
  public static String dedupKey(QuotaKey key, long windowStartedAtMs) {
    return "mqr:"
        + key.subjectType().wireName()
        + ":"
        + key.subjectId()
        + ":"
        + key.operation().wireName()
        + ":"
        + windowStartedAtMs;
  }

  /** The event body, written at {@code atMs}. */
  public static String payload(QuotaKey key, QuotaDecision.Rejected rejected, long atMs) {
    return WebhookEvents.payload(
        WebhookEventType.MANAGEMENT_QUOTA_REJECTED,
        atMs,
        WebhookEvents.data()
            .put("projectId", key.projectId())
            .put("subjectType", key.subjectType().wireName())
            .put("userId", key.subjectId())
            .put("operation", key.operation().wireName())
            .put("limit", rejected.limit().limit())
            .put("limitSource", rejected.limit().source().wireName())
            .put(
                "windowStartedAt", ISO.format(Instant.ofEpochMilli(rejected.windowStartedAtMs()))));
  }
}
