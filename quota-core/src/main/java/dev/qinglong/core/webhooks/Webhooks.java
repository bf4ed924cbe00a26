package dev.qinglong.core.webhooks;

import dev.qinglong.core.kernel.ConflictException;
import dev.qinglong.core.kernel.ForbiddenException;
import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectPolicy;
import java.math.BigDecimal;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * A Project's webhook endpoints, administered by its {@code project.admin}s (global administrators
 * hold it everywhere). Input is checked before anything is read or written: a refused request
 * stores nothing. An endpoint that does not exist in the Project is a conflict, like any object of
 * another Project (no existence oracle).
 */
public final class Webhooks {
  /** The most model-quota thresholds per endpoint. */
  public static final int MAX_THRESHOLDS = 10;

  /** The thresholds an endpoint subscribed to {@code model-quota.threshold} gets by default. */
  public static final List<BigDecimal> DEFAULT_THRESHOLDS =
      List.of(new BigDecimal("0.8"), BigDecimal.ONE);

  /** The largest page of the delivery log. */
  public static final int MAX_PAGE = 200;

  /** The page of the delivery log when the caller gives no size. */
  public static final int DEFAULT_PAGE = 50;

  private static final String MISSING = "no such webhook in this project";

  private final ProjectPolicy policy;
  private final WebhookStore store;
  private final WebhookTargets targets;

  public Webhooks(ProjectPolicy policy, WebhookStore store, WebhookTargets targets) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.store = Objects.requireNonNull(store, "store");
    this.targets = Objects.requireNonNull(targets, "targets");
  }

  /**
   * Creates or replaces an endpoint. A created endpoint gets a new signing secret, returned this
   * once; a replaced one keeps its secret.
   *
   * @param events wire names, at least one
   * @param thresholds fractions in (0, 1]; null or empty gives {@link #DEFAULT_THRESHOLDS} when
   *     {@code model-quota.threshold} is subscribed, else none
   * @throws ValidationException for a bad id, URL (not https, not public, unresolvable), unknown
   *     event, threshold outside (0, 1], or an 11th endpoint; nothing stored
   * @throws ForbiddenException without {@code project.admin}; nothing stored
   */
  public WebhookRegistration put(
      Principal caller,
      String projectId,
      String webhookId,
      String url,
      List<String> events,
      List<BigDecimal> thresholds) {
    Identifiers.require("projectId", projectId);
    Identifiers.require("webhookId", webhookId);
    ValidationException.required("url", url);
    Set<WebhookEventType> types = events(events);
    List<BigDecimal> fractions = thresholds(thresholds, types);
    requireAdmin(caller, projectId);
    URI target = targets.requireAllowed(url);
    byte[] secret = WebhookSecrets.generate();
    try {
      PutResult result = store.put(projectId, webhookId, target, types, fractions, secret);
      return new WebhookRegistration(
          result.endpoint(),
          result.created(),
          result.created() ? WebhookSecrets.text(secret) : null);
    } finally {
      Arrays.fill(secret, (byte) 0);
    }
  }

  /** The Project's endpoints (never their secrets). */
  public List<WebhookEndpoint> list(Principal caller, String projectId) {
    Identifiers.require("projectId", projectId);
    requireAdmin(caller, projectId);
    return store.list(projectId);
  }

  /**
   * The endpoint.
   *
   * @throws ConflictException if the Project has no such endpoint
   */
  public WebhookEndpoint get(Principal caller, String projectId, String webhookId) {
    ids(projectId, webhookId);
    requireAdmin(caller, projectId);
    return store.find(projectId, webhookId).orElseThrow(() -> new ConflictException(MISSING));
  }

  /**
   * Removes the endpoint and its pending deliveries.
   *
   * @throws ConflictException if the Project has no such endpoint
   */
  public void delete(Principal caller, String projectId, String webhookId) {
    ids(projectId, webhookId);
    requireAdmin(caller, projectId);
    if (!store.delete(projectId, webhookId)) {
      throw new ConflictException(MISSING);
    }
  }

  /**
   * Gives the endpoint a new signing secret, returned this once; the old one stays valid for 24 h.
   *
   * @throws ConflictException if the Project has no such endpoint
   */
  public WebhookRegistration rotateSecret(Principal caller, String projectId, String webhookId) {
    ids(projectId, webhookId);
    requireAdmin(caller, projectId);
    byte[] secret = WebhookSecrets.generate();
    try {
      if (!store.rotateSecret(projectId, webhookId, secret)) {
        throw new ConflictException(MISSING);
      }
      WebhookEndpoint endpoint =
          store.find(projectId, webhookId).orElseThrow(() -> new ConflictException(MISSING));
      return new WebhookRegistration(endpoint, false, WebhookSecrets.text(secret));
    } finally {
      Arrays.fill(secret, (byte) 0);
    }
  }

  /**
   * Enqueues a {@code webhook.test} event for the endpoint.
   *
   * @return its delivery (event) id
   * @throws ConflictException if the Project has no such endpoint
   */
  public String test(Principal caller, String projectId, String webhookId) {
    ids(projectId, webhookId);
    requireAdmin(caller, projectId);
    return store
        .enqueueTest(projectId, webhookId)
        .orElseThrow(() -> new ConflictException(MISSING));
  }

  /**
   * A page of the endpoint's delivery log, newest first.
   *
   * @param limit 1..{@value #MAX_PAGE}, or null for {@value #DEFAULT_PAGE}
   * @param cursor null for the first page, else a {@code nextCursor} this service issued
   * @throws ConflictException if the Project has no such endpoint
   */
  public DeliveryPage deliveries(
      Principal caller, String projectId, String webhookId, Integer limit, String cursor) {
    ids(projectId, webhookId);
    int size = limit == null ? DEFAULT_PAGE : limit;
    if (size < 1 || size > MAX_PAGE) {
      throw new ValidationException("limit", "must be between 1 and " + MAX_PAGE);
    }
    DeliveryCursor after = DeliveryCursor.decode(cursor);
    requireAdmin(caller, projectId);
    if (store.find(projectId, webhookId).isEmpty()) {
      throw new ConflictException(MISSING);
    }
    List<WebhookDelivery> rows = store.deliveries(projectId, webhookId, after, size + 1);
    String next = null;
    if (rows.size() > size) {
      rows = rows.subList(0, size);
      next = DeliveryCursor.after(rows.get(size - 1)).encode();
    }
    return new DeliveryPage(rows, next);
  }

  private void requireAdmin(Principal caller, String projectId) {
    policy.requireAny(caller, projectId, Permission.PROJECT_ADMIN);
  }

  private static void ids(String projectId, String webhookId) {
    Identifiers.require("projectId", projectId);
    Identifiers.require("webhookId", webhookId);
  }

  /**
   * The event types named, at least one.
   *
   * @throws ValidationException ("events") for none or an unknown name
   */
  static Set<WebhookEventType> events(List<String> names) {
    if (names == null || names.isEmpty()) {
      throw new ValidationException("events", "must name at least one event");
    }
    Set<WebhookEventType> types = EnumSet.noneOf(WebhookEventType.class);
    for (String name : names) {
      types.add(
          WebhookEventType.lookup(name)
              .orElseThrow(() -> new ValidationException("events", "unknown event type")));
    }
    return types;
  }

  /**
   * The thresholds, ascending, without repeats.
   *
   * @throws ValidationException ("modelQuotaThresholds") for a value outside (0, 1] or too many
   */
  static List<BigDecimal> thresholds(List<BigDecimal> values, Set<WebhookEventType> types) {
    if (values == null || values.isEmpty()) {
      return types.contains(WebhookEventType.MODEL_QUOTA_THRESHOLD)
          ? DEFAULT_THRESHOLDS
          : List.of();
    }
    if (values.size() > MAX_THRESHOLDS) {
      throw new ValidationException(
          "modelQuotaThresholds", "must list at most " + MAX_THRESHOLDS + " values");
    }
    TreeSet<BigDecimal> sorted = new TreeSet<>();
    for (BigDecimal v : values) {
      if (v == null || v.signum() <= 0 || v.compareTo(BigDecimal.ONE) > 0) {
        throw new ValidationException("modelQuotaThresholds", "every value must be in (0, 1]");
      }
      v = v.stripTrailingZeros();
      if (v.scale() > 4) {
        throw new ValidationException(
            "modelQuotaThresholds", "values have at most 4 decimal places");
      }
      sorted.add(v);
    }
    return new ArrayList<>(sorted);
  }
}
