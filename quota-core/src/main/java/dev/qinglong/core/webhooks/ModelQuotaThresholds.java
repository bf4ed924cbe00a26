package dev.qinglong.core.webhooks;

import dev.qinglong.core.modelquota.ProjectQuotaPolicy;
import dev.qinglong.core.modelquota.WindowUsage;
import dev.qinglong.core.modelquota.WindowUsageReading;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The {@code model-quota.threshold} pass: derives, from durable state only, which subscribed
 * endpoints' fractions a Project's current model-quota window has reached, for tokens, cost and
 * invocations, and writes each (window, dimension, fraction) once per endpoint through {@link
 * WebhookEventOutbox#enqueueOnce(String, String, WebhookEventType, String, String)}. Nothing on the
 * admission or completion path changes: the pass runs on the active worker, reads each subscribed
 * Project's window as the usage route does, and may run any number of times, on any number of
 * processes: the deduplication key writes an event once. A Project without a model quota policy has
 * no limits, so no threshold.
 */
public final class ModelQuotaThresholds {
  /** The dimensions a window is limited in, as the event names them. */
  public enum Dimension {
    TOKENS("tokens"),
    COST("cost"),
    INVOCATIONS("invocations");

    private final String wireName;

    Dimension(String wireName) {
      this.wireName = wireName;
    }

    public String wireName() {
      return wireName;
    }
  }

  private final WebhookEventOutbox outbox;
  private final Function<String, WindowUsageReading> usage;

  /**
   * @param usage the current window of a Project on the database clock (the model quota store's
   *     {@code currentWindowUsage})
   */
  public ModelQuotaThresholds(
      WebhookEventOutbox outbox, Function<String, WindowUsageReading> usage) {
    this.outbox = Objects.requireNonNull(outbox, "outbox");
    this.usage = Objects.requireNonNull(usage, "usage");
  }

  /**
   * One pass over every subscribed Project.
   *
   * @return how many deliveries it wrote
   * @throws RuntimeException the first Project's failure, after every other Project was passed
   */
  public int run() {
    Map<String, List<WebhookEventOutbox.ThresholdSubscription>> byProject = new LinkedHashMap<>();
    for (WebhookEventOutbox.ThresholdSubscription s : outbox.thresholdSubscriptions()) {
      if (!s.thresholds().isEmpty()) {
        byProject.computeIfAbsent(s.projectId(), k -> new ArrayList<>()).add(s);
      }
    }
    int written = 0;
    RuntimeException failed = null;
    for (Map.Entry<String, List<WebhookEventOutbox.ThresholdSubscription>> e :
        byProject.entrySet()) {
      try {
        written += project(e.getKey(), e.getValue());
      } catch (RuntimeException ex) {
        // One Project's window that cannot be read (or written for) does not hold back the
        // others; the pass still fails, so it is counted and tried again.
        if (failed == null) {
          failed = ex;
        } else {
          failed.addSuppressed(ex);
        }
      }
    }
    if (failed != null) {
      throw failed;
    }
    return written;
  }

  private int project(
      String projectId, List<WebhookEventOutbox.ThresholdSubscription> subscriptions) {
    WindowUsageReading reading = usage.apply(projectId);
    if (reading == null || reading.quota() == null) {
      return 0;
    }
    int written = 0;
    for (Crossing c : crossings(reading, subscriptions)) {
      if (outbox.enqueueOnce(
          c.projectId(),
          c.webhookId(),
          WebhookEventType.MODEL_QUOTA_THRESHOLD,
          c.dedupKey(),
          c.payload(reading.databaseNowMs()))) {
        written++;
      }
    }
    return written;
  }

  /** One endpoint's fraction reached in one dimension of a window. */
  public record Crossing(
      String projectId,
      String webhookId,
      long windowStartMs,
      long windowMs,
      Dimension dimension,
      BigDecimal threshold,
      long used,
      long limit) {
    /** The window, dimension and fraction: what makes the event once per window and fraction. */
    public String dedupKey() {
      return "mqt:"
          + windowStartMs
          + ":"
          + windowMs
          + ":"
          + dimension.wireName()
          + ":"
          + threshold.stripTrailingZeros().toPlainString();
    }

    /** The event body (ids and numbers only), written at {@code atMs}. */
    public String payload(long atMs) {
      return WebhookEvents.payload(
          WebhookEventType.MODEL_QUOTA_THRESHOLD,
          atMs,
          WebhookEvents.data()
              .put("projectId", projectId)
              .put("dimension", dimension.wireName())
              .put("threshold", threshold)
              .put("used", used)
              .put("limit", limit)
              .put(
                  "windowStartedAt",
                  ManagementQuotaRejections.ISO.format(Instant.ofEpochMilli(windowStartMs)))
              .put("windowSeconds", windowMs / 1000));
    }
  }

  /** Every fraction of {@code subscriptions} the window of {@code reading} has reached. */
  public static List<Crossing> crossings(
      WindowUsageReading reading, List<WebhookEventOutbox.ThresholdSubscription> subscriptions) {
    ProjectQuotaPolicy quota = reading.quota();
    List<Crossing> out = new ArrayList<>();
    if (quota == null) {
      return out;
    }
    WindowUsage u = reading.usage();
    for (WebhookEventOutbox.ThresholdSubscription s : subscriptions) {
      if (!s.projectId().equals(quota.projectId())) {
        continue;
      }
      for (BigDecimal t : s.thresholds()) {
        reached(out, s, u, Dimension.TOKENS, t, u.tokens(), quota.maxTokens());
        if (quota.maxCostMicros() != null) {
          reached(out, s, u, Dimension.COST, t, u.costMicros(), quota.maxCostMicros());
        }
        reached(out, s, u, Dimension.INVOCATIONS, t, u.invocations(), quota.maxInvocations());
      }
    }
    return out;
  }

  /** Adds the crossing when {@code used >= threshold * limit} (exact decimal arithmetic). */
  private static void reached(
      List<Crossing> out,
      WebhookEventOutbox.ThresholdSubscription s,
      WindowUsage u,
      Dimension dimension,
      BigDecimal threshold,
      long used,
      long limit) {
    if (limit <= 0 || used <= 0) {
      return;
    }
    if (BigDecimal.valueOf(used).compareTo(threshold.multiply(BigDecimal.valueOf(limit))) >= 0) {
      out.add(
          new Crossing(
              s.projectId(),
              s.webhookId(),
              u.window().windowStartMs(),
              u.window().windowMs(),
              dimension,
              threshold,
              used,
              limit));
    }
  }
}
