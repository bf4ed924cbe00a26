package dev.qinglong.app.webhooks;

import static dev.qinglong.app.http.OpenApiDocument.DELIVERY_STATUS;
import static dev.qinglong.app.http.OpenApiDocument.EVENT_TYPE;
import static dev.qinglong.app.http.OpenApiDocument.IDENTIFIER;
import static io.swagger.v3.oas.annotations.media.Schema.AdditionalPropertiesValue.FALSE;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.qinglong.core.webhooks.DeliveryPage;
import dev.qinglong.core.webhooks.WebhookDelivery;
import dev.qinglong.core.webhooks.WebhookEndpoint;
import dev.qinglong.core.webhooks.WebhookEventType;
import dev.qinglong.core.webhooks.WebhookRegistration;
import dev.qinglong.core.webhooks.WebhookStore;
import dev.qinglong.core.webhooks.WebhookTargets;
import dev.qinglong.core.webhooks.Webhooks;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Schema;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;

/**
 * The wire shapes of the webhook routes: request bodies bound by Jackson (unknown members,
 * duplicate members and wrong JSON types refused by the mapper's configuration), answers written by
 * it. Values are checked once, by the core ({@link Webhooks}). An endpoint's answer never carries
 * its secret; the secret appears once, in the answer that created or rotated it.
 */
public final class WebhooksJson {
  private WebhooksJson() {}

  /** The event types' wire names, for the document. */
  static final String EVENT_TYPES =
      "approval.pending, approval.decided, proposal.published, model-quota.threshold,"
          + " management-quota.rejected, webhook.test";

  /** {@code PUT …/webhooks/{webhookId}}. */
  @Schema(additionalProperties = FALSE)
  public record WebhookRequest(
      @JsonProperty(required = true)
          @Schema(
              maxLength = WebhookTargets.MAX_URL_LENGTH,
              description =
                  "Where events are POSTed: an https URL whose host resolves to public addresses"
                      + " only (no user information, no fragment).")
          String url,
      @JsonProperty(required = true) @ArraySchema(minItems = 1, schema = @Schema(ref = EVENT_TYPE))
          List<String> events,
      @ArraySchema(
              maxItems = Webhooks.MAX_THRESHOLDS,
              schema =
                  @Schema(
                      minimum = "0.0001",
                      maximum = "1",
                      description = "A fraction of a model-quota window's limit."),
              arraySchema =
                  @Schema(
                      description =
                          "When model-quota.threshold fires: fractions in (0, 1] of a window's"
                              + " limit, at most 4 decimal places. Absent or empty: 0.8 and 1"
                              + " when model-quota.threshold is subscribed."))
          List<BigDecimal> modelQuotaThresholds) {}

  @Schema(name = "Webhook")
  public record WebhookView(
      String projectId,
      @Schema(ref = IDENTIFIER) String webhookId,
      String url,
      List<String> events,
      List<BigDecimal> modelQuotaThresholds,
      long createdAtMs,
      long updatedAtMs,
      @Schema(format = "date-time") String createdAt,
      @Schema(format = "date-time") String updatedAt) {
    static WebhookView of(WebhookEndpoint e) {
      return new WebhookView(
          e.projectId(),
          e.webhookId(),
          e.url().toString(),
          e.events().stream().sorted().map(WebhookEventType::wireName).toList(),
          e.modelQuotaThresholds(),
          e.createdAtMs(),
          e.updatedAtMs(),
          time(e.createdAtMs()),
          time(e.updatedAtMs()));
    }
  }

  /** The answer of a put or rotation: the endpoint and, when created or rotated, its secret. */
  @Schema(name = "WebhookRegistration")
  public record WebhookRegistrationView(
      WebhookView webhook,
      @Schema(
              types = {"string", "null"},
              description =
                  "The signing secret (whsec_ + base64), shown only in this answer: at creation"
                      + " and on rotate-secret; null when an existing endpoint was replaced (its"
                      + " secret is unchanged). Verify webhook-signature with it (Standard"
                      + " Webhooks).")
          String secret) {
    static WebhookRegistrationView of(WebhookRegistration r) {
      return new WebhookRegistrationView(WebhookView.of(r.endpoint()), r.secret());
    }
  }

  @Schema(name = "WebhookList")
  public record WebhookListView(
      String projectId,
      @ArraySchema(maxItems = WebhookStore.MAX_ENDPOINTS_PER_PROJECT) List<WebhookView> webhooks) {
    static WebhookListView of(String projectId, List<WebhookEndpoint> endpoints) {
      return new WebhookListView(projectId, endpoints.stream().map(WebhookView::of).toList());
    }
  }

  @Schema(name = "WebhookTest")
  public record WebhookTestView(
      @Schema(
              description =
                  "The event id of the enqueued webhook.test event (its webhook-id header).")
          String deliveryId) {}

  @Schema(name = "WebhookDelivery")
  public record DeliveryView(
      @Schema(description = "The event id, sent as webhook-id on every attempt.") String deliveryId,
      @Schema(ref = EVENT_TYPE) String type,
      @Schema(ref = DELIVERY_STATUS) String status,
      int attempts,
      @Schema(types = {"integer", "null"}) Integer lastStatusCode,
      @Schema(
              types = {"string", "null"},
              description = "Why the last attempt failed, in short; never the response body.")
          String lastError,
      long createdAtMs,
      @Schema(format = "date-time") String createdAt,
      @Schema(types = {"integer", "null"}) Long nextAttemptAtMs,
      @Schema(
              types = {"string", "null"},
              format = "date-time")
          String nextAttemptAt,
      @Schema(types = {"integer", "null"}) Long deliveredAtMs,
      @Schema(
              types = {"string", "null"},
              format = "date-time")
          String deliveredAt) {
    static DeliveryView of(WebhookDelivery d) {
      return new DeliveryView(
          d.deliveryId(),
          d.type().wireName(),
          d.status().wireName(),
          d.attempts(),
          d.lastStatusCode(),
          d.lastError(),
          d.createdAtMs(),
          time(d.createdAtMs()),
          d.nextAttemptAtMs(),
          time(d.nextAttemptAtMs()),
          d.deliveredAtMs(),
          time(d.deliveredAtMs()));
    }
  }

  @Schema(name = "WebhookDeliveryList")
  public record DeliveryListView(
      String projectId,
      @Schema(ref = IDENTIFIER) String webhookId,
      @ArraySchema(maxItems = Webhooks.MAX_PAGE) List<DeliveryView> deliveries,
      @Schema(
              types = {"string", "null"},
              description = "Opaque; pass as cursor for the next page. null on the last page.")
          String nextCursor) {
    static DeliveryListView of(String projectId, String webhookId, DeliveryPage page) {
      return new DeliveryListView(
          projectId,
          webhookId,
          page.items().stream().map(DeliveryView::of).toList(),
          page.nextCursor());
    }
  }

  private static String time(Long ms) {
    return ms == null ? null : Instant.ofEpochMilli(ms).toString();
  }
}
