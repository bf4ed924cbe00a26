package dev.qinglong.jdbc;

import dev.qinglong.core.webhooks.WebhookEventOutbox;
import dev.qinglong.core.webhooks.WebhookEventType;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * {@link WebhookEventOutbox} on either database: one {@code INSERT … SELECT … ON CONFLICT DO
 * NOTHING} per event, in auto-commit. The unique index on (project, webhook, dedup key) of {@code
 * webhook_deliveries} makes the second writer of a key, in this process or another, write nothing,
 * without a read before the write. Both databases accept {@code ON CONFLICT DO NOTHING} without a
 * conflict target (any unique violation, the partial index included); SQLite's parser needs the
 * SELECT to have a WHERE clause before it, which these do.
 */
public final class JdbcWebhookEventOutbox implements WebhookEventOutbox {
  private static final String ENQUEUE =
      """
      INSERT INTO webhook_deliveries
        (delivery_id, project_id, webhook_id, event_type, payload, created_at_ms, status, attempts,
         next_attempt_at_ms, claim_token, dedup_key)
      SELECT %1$s, s.project_id, s.webhook_id, s.event_type, ?, k.now_ms, 'pending', 0,
             k.now_ms, 0, ?
      FROM webhook_endpoint_events s, (SELECT %2$s AS now_ms) k
      WHERE s.project_id = ? AND s.event_type = ?%3$s
      ON CONFLICT DO NOTHING
      """;

  private static final String SUBSCRIPTIONS =
      """
      SELECT e.project_id, e.webhook_id, e.model_quota_thresholds
      FROM webhook_endpoint_events s
      JOIN webhook_endpoints e ON e.project_id = s.project_id AND e.webhook_id = s.webhook_id
      WHERE s.event_type = ? AND e.model_quota_thresholds <> ''
      ORDER BY e.project_id, e.webhook_id
      """;

  private final JdbcTransactions jdbc;
  private final String enqueueAll;
  private final String enqueueOne;

  public JdbcWebhookEventOutbox(DataSource dataSource, JdbcDialect dialect) {
    this.jdbc = new JdbcTransactions(dataSource, dialect);
    this.enqueueAll = ENQUEUE.formatted(dialect.newDeliveryId(), dialect.nowMs(), "");
    this.enqueueOne =
        ENQUEUE.formatted(dialect.newDeliveryId(), dialect.nowMs(), " AND s.webhook_id = ?");
  }

  @Override
  public int enqueueOnce(String projectId, WebhookEventType type, String dedupKey, String payload) {
    return jdbc.update(
        "webhook event enqueue",
        enqueueAll,
        Objects.requireNonNull(payload, "payload"),
        Objects.requireNonNull(dedupKey, "dedupKey"),
        Objects.requireNonNull(projectId, "projectId"),
        type.wireName());
  }

  @Override
  public boolean enqueueOnce(
      String projectId, String webhookId, WebhookEventType type, String dedupKey, String payload) {
    return jdbc.update(
            "webhook event enqueue",
            enqueueOne,
            Objects.requireNonNull(payload, "payload"),
            Objects.requireNonNull(dedupKey, "dedupKey"),
            Objects.requireNonNull(projectId, "projectId"),
            type.wireName(),
            Objects.requireNonNull(webhookId, "webhookId"))
        == 1;
  }

  @Override
  public List<ThresholdSubscription> thresholdSubscriptions() {
    return jdbc.list(
        "webhook threshold subscriptions",
        SUBSCRIPTIONS,
        "threshold subscription",
        rs ->
            new ThresholdSubscription(
                rs.getString(1), rs.getString(2), thresholds(rs.getString(3))),
        WebhookEventType.MODEL_QUOTA_THRESHOLD.wireName());
  }

  /** The stored form: fractions separated by one space (as registration writes them). */
  private static List<BigDecimal> thresholds(String text) {
    List<BigDecimal> out = new ArrayList<>();
    if (text == null || text.isBlank()) {
      return out;
    }
    for (String t : text.trim().split(" +")) {
      out.add(new BigDecimal(t));
    }
    return out;
  }
}
