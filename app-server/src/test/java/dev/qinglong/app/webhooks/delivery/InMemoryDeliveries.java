package dev.qinglong.app.webhooks.delivery;

import dev.qinglong.core.webhooks.AttemptResult;
import dev.qinglong.core.webhooks.ClaimedDelivery;
import dev.qinglong.core.webhooks.DeliveryCursor;
import dev.qinglong.core.webhooks.PutResult;
import dev.qinglong.core.webhooks.WebhookDelivery;
import dev.qinglong.core.webhooks.WebhookEndpoint;
import dev.qinglong.core.webhooks.WebhookEventType;
import dev.qinglong.core.webhooks.WebhookStore;
import java.math.BigDecimal;
import java.net.URI;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The delivery half of a {@link WebhookStore} in memory, with the claim semantics of the contract
 * (lease, claim token, fencing), on a clock the test moves. Registration is not supported.
 */
final class InMemoryDeliveries implements WebhookStore {
  /** Starts at real time: the verifier checks a signature's timestamp against it (5 min). */
  final AtomicLong now = new AtomicLong(System.currentTimeMillis());

  static final class Row {
    final String id;
    final String project;
    final String webhook;
    final URI url;
    final List<byte[]> keys;
    final long createdAt;
    String status = "pending";
    int attempts;
    long nextAt;
    long token;
    Integer lastStatus;
    String lastError;

    Row(String id, String project, String webhook, URI url, List<byte[]> keys, long createdAt) {
      this.id = id;
      this.project = project;
      this.webhook = webhook;
      this.url = url;
      this.keys = keys;
      this.createdAt = createdAt;
      this.nextAt = createdAt;
    }
  }

  final Map<String, Row> rows = new LinkedHashMap<>();
  int claims;

  synchronized Row add(String id, String project, String webhook, URI url, List<byte[]> keys) {
    Row r = new Row(id, project, webhook, url, keys, now.get());
    rows.put(id, r);
    return r;
  }

  synchronized Row row(String id) {
    return rows.get(id);
  }

  @Override
  public synchronized List<ClaimedDelivery> claimDue(long leaseMs, int max) {
    claims++;
    long t = now.get();
    List<ClaimedDelivery> out = new ArrayList<>();
    rows.values().stream()
        .filter(r -> r.status.equals("pending") && r.nextAt <= t)
        .sorted(Comparator.comparingLong(r -> r.nextAt))
        .limit(max)
        .forEach(
            r -> {
              r.nextAt = t + leaseMs;
              r.token++;
              out.add(
                  new ClaimedDelivery(
                      r.id,
                      r.project,
                      r.webhook,
                      WebhookEventType.WEBHOOK_TEST,
                      "{\"type\":\"webhook.test\",\"data\":{\"projectId\":\"" + r.project + "\"}}",
                      r.createdAt,
                      r.attempts,
                      r.url,
                      r.keys,
                      r.token));
            });
    return out;
  }

  @Override
  public synchronized boolean recordAttempt(
      String deliveryId, long claimToken, AttemptResult result) {
    Row r = rows.get(deliveryId);
    if (r == null || r.token != claimToken || !r.status.equals("pending")) {
      return false;
    }
    r.attempts++;
    r.lastStatus = result.statusCode();
    r.lastError = result.error();
    if (result.delivered()) {
      r.status = "delivered";
    } else if (result.nextAttemptAtMs() != null) {
      r.nextAt = result.nextAttemptAtMs();
    } else {
      r.status = "failed";
    }
    return true;
  }

  @Override
  public synchronized OptionalLong oldestDueCreatedAtMs() {
    long t = now.get();
    return rows.values().stream()
        .filter(r -> r.status.equals("pending") && r.nextAt <= t)
        .mapToLong(r -> r.createdAt)
        .min();
  }

  @Override
  public PutResult put(
      String projectId,
      String webhookId,
      URI url,
      Set<WebhookEventType> events,
      List<BigDecimal> thresholds,
      byte[] newSecretIfCreated) {
    throw new UnsupportedOperationException();
  }

  @Override
  public List<WebhookEndpoint> list(String projectId) {
    throw new UnsupportedOperationException();
  }

  @Override
  public Optional<WebhookEndpoint> find(String projectId, String webhookId) {
    throw new UnsupportedOperationException();
  }

  @Override
  public boolean delete(String projectId, String webhookId) {
    throw new UnsupportedOperationException();
  }

  @Override
  public boolean rotateSecret(String projectId, String webhookId, byte[] newSecret) {
    throw new UnsupportedOperationException();
  }

  @Override
  public Optional<String> enqueueTest(String projectId, String webhookId) {
    throw new UnsupportedOperationException();
  }

  @Override
  public List<WebhookDelivery> deliveries(
      String projectId, String webhookId, DeliveryCursor after, int limit) {
    throw new UnsupportedOperationException();
  }
}
