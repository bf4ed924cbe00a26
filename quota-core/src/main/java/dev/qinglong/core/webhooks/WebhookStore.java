package dev.qinglong.core.webhooks;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.kernel.ValidationException;
import java.math.BigDecimal;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Durable webhook endpoints and their delivery rows (the outbox). Registration methods are scoped
 * by Project: an endpoint of another Project is simply not found. Secrets cross this port in plain
 * form; an adapter stores them only sealed (see {@link SecretSealer}). Every method throws {@link
 * StoreUnavailableException} when the store cannot give a definite answer.
 *
 * <p>Delivery rows are also written by the changes they report (a proposal created, an approval
 * decided, a proposal published), in the same transaction, by the adapter of that change.
 */
public interface WebhookStore {
  /** The most endpoints one Project may register. */
  int MAX_ENDPOINTS_PER_PROJECT = 10;

  /**
   * Creates the endpoint with {@code newSecretIfCreated} as its signing secret, or replaces an
   * existing endpoint's URL, events and thresholds (keeping its secret and creation time).
   *
   * @throws ValidationException ("webhookId") if creating it would give the Project more than
   *     {@value #MAX_ENDPOINTS_PER_PROJECT} endpoints; nothing is written then
   */
  PutResult put(
      String projectId,
      String webhookId,
      URI url,
      Set<WebhookEventType> events,
      List<BigDecimal> thresholds,
      byte[] newSecretIfCreated);

  /**
   * The Project's endpoints in {@code webhookId} order (at most {@value
   * #MAX_ENDPOINTS_PER_PROJECT}).
   */
  List<WebhookEndpoint> list(String projectId);

  /** The endpoint, or empty. */
  Optional<WebhookEndpoint> find(String projectId, String webhookId);

  /**
   * Removes the endpoint and its delivery rows (none is attempted again).
   *
   * @return false if the Project has no such endpoint
   */
  boolean delete(String projectId, String webhookId);

  /**
   * Makes {@code newSecret} the endpoint's signing secret; the one it replaces stays valid for 24 h
   * (both are handed to the worker until then). A previous secret older than that is dropped.
   *
   * @return false if the Project has no such endpoint
   */
  boolean rotateSecret(String projectId, String webhookId, byte[] newSecret);

  /**
   * Enqueues a {@code webhook.test} event for the endpoint alone, due now.
   *
   * @return its delivery id, or empty if the Project has no such endpoint
   */
  Optional<String> enqueueTest(String projectId, String webhookId);

  /**
   * A page of the endpoint's delivery log, newest first, strictly after {@code after} (null: from
   * the newest); empty for an unknown endpoint.
   *
   * @param limit at most this many, {@code >= 1}
   */
  List<WebhookDelivery> deliveries(
      String projectId, String webhookId, DeliveryCursor after, int limit);

  /**
   * Claims up to {@code max} due deliveries (pending, next attempt at or before the database's
   * now), oldest first, for the active delivery worker: each gets a lease (its next attempt moves
   * to now + {@code leaseMs}) and a new claim token. A claim whose worker died is due again when
   * its lease ends.
   */
  List<ClaimedDelivery> claimDue(long leaseMs, int max);

  /**
   * Records an attempt's outcome, only if the row still holds {@code claimToken} (and is pending):
   * attempts + 1, the status code and error; delivered, pending again at the result's next attempt,
   * or failed when it gives none.
   *
   * @return false if the claim was lost (another claim took the row, or it was deleted)
   */
  boolean recordAttempt(String deliveryId, long claimToken, AttemptResult result);

  /** Creation time of the oldest due delivery (for the queue-age gauge); empty when none is due. */
  OptionalLong oldestDueCreatedAtMs();
}
