package dev.qinglong.app.webhooks;

import static dev.qinglong.app.http.OpenApiDocument.Answer.CONFLICT;
import static dev.qinglong.app.http.OpenApiDocument.Answer.CREATED;

import dev.qinglong.app.http.AuditLog;
import dev.qinglong.app.http.JsonAnswers;
import dev.qinglong.app.http.OpenApiDocument.Answers;
import dev.qinglong.app.http.OpenApiDocument.Paged;
import dev.qinglong.app.http.QueryParameters;
import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import dev.qinglong.app.webhooks.WebhooksJson.DeliveryListView;
import dev.qinglong.app.webhooks.WebhooksJson.WebhookListView;
import dev.qinglong.app.webhooks.WebhooksJson.WebhookRegistrationView;
import dev.qinglong.app.webhooks.WebhooksJson.WebhookRequest;
import dev.qinglong.app.webhooks.WebhooksJson.WebhookTestView;
import dev.qinglong.app.webhooks.WebhooksJson.WebhookView;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.policy.ProjectPolicy;
import dev.qinglong.core.webhooks.DeliveryCursor;
import dev.qinglong.core.webhooks.WebhookRegistration;
import dev.qinglong.core.webhooks.WebhookTargets;
import dev.qinglong.core.webhooks.Webhooks;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.Optional;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Project's webhook endpoints, their secrets and delivery log ({@link Webhooks}), for its {@code
 * project.admin}s. Served with the management API ({@code all}, {@code writer}). Without a sealing
 * key (PostgreSQL without {@code qinglong.webhooks.secret-key}) every route answers 503. Not
 * counted by the management quota: the endpoints are few (at most 10 per Project) and
 * administrative.
 */
@RestController
@ConditionalOnRole({Role.ALL, Role.WRITER})
@Tag(name = "webhooks")
public class WebhooksController {
  static final String BASE = "/v1/projects/{projectId}/webhooks";
  static final String ONE = BASE + "/{webhookId}";

  private final Optional<Webhooks> webhooks;

  public WebhooksController(OpenedStore store, ProjectPolicy policy, WebhookTargets targets) {
    this.webhooks = store.webhooks().map(s -> new Webhooks(policy, s, targets));
  }

  private Webhooks webhooks() {
    return webhooks.orElseThrow(
        () ->
            new StoreUnavailableException(
                "webhooks are off: qinglong.webhooks.secret-key is not set"));
  }

  @Operation(
      operationId = "putWebhook",
      summary = "Create or replace a webhook endpoint (needs project.admin).",
      description =
          "201 with the signing secret (shown only here) when created; 200 when an existing"
              + " endpoint is replaced (URL, events and thresholds; its secret stays). The URL must"
              + " be https and resolve to public addresses only. A Project has at most 10"
              + " endpoints. Events: "
              + WebhooksJson.EVENT_TYPES
              + ". Deliveries are POSTs signed as Standard Webhooks (webhook-id, webhook-timestamp,"
              + " webhook-signature).")
  @Answers({CREATED})
  @PutMapping(path = ONE, consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<WebhookRegistrationView> put(
      @PathVariable String projectId,
      @PathVariable String webhookId,
      @RequestBody WebhookRequest body,
      Principal caller) {
    WebhookRegistration r =
        webhooks()
            .put(
                caller,
                projectId,
                webhookId,
                body.url(),
                body.events(),
                body.modelQuotaThresholds());
    AuditLog.event(r.created() ? "webhook.created" : "webhook.replaced")
        .with("projectId", projectId)
        .with("webhookId", webhookId)
        .with("userId", caller.userId())
        .with("host", r.endpoint().url().getHost())
        .log();
    return JsonAnswers.answer(
        r.created(),
        "/v1/projects/" + projectId + "/webhooks/" + webhookId,
        WebhookRegistrationView.of(r),
        HttpHeaders.EMPTY);
  }

  @Operation(
      operationId = "listWebhooks",
      summary = "The Project's webhook endpoints, never their secrets (needs project.admin).")
  @GetMapping(BASE)
  ResponseEntity<WebhookListView> list(@PathVariable String projectId, Principal caller) {
    return JsonAnswers.ok(WebhookListView.of(projectId, webhooks().list(caller, projectId)));
  }

  @Operation(
      operationId = "getWebhook",
      summary = "One webhook endpoint, without its secret (needs project.admin); 409 if none.")
  @Answers({CONFLICT})
  @GetMapping(ONE)
  ResponseEntity<WebhookView> get(
      @PathVariable String projectId, @PathVariable String webhookId, Principal caller) {
    return JsonAnswers.ok(WebhookView.of(webhooks().get(caller, projectId, webhookId)));
  }

  @Operation(
      operationId = "deleteWebhook",
      summary =
          "Remove a webhook endpoint and its delivery log; nothing more is sent to it (needs"
              + " project.admin); 409 if none.")
  @ApiResponse(
      responseCode = "204",
      description = "Removed, with its delivery log; no body.",
      content = @Content)
  @Answers({CONFLICT})
  @DeleteMapping(ONE)
  ResponseEntity<Void> delete(
      @PathVariable String projectId, @PathVariable String webhookId, Principal caller) {
    webhooks().delete(caller, projectId, webhookId);
    AuditLog.event("webhook.deleted")
        .with("projectId", projectId)
        .with("webhookId", webhookId)
        .with("userId", caller.userId())
        .log();
    return ResponseEntity.noContent().header(HttpHeaders.CACHE_CONTROL, "no-store").build();
  }

  @Operation(
      operationId = "rotateWebhookSecret",
      summary = "Give the endpoint a new signing secret (needs project.admin); 409 if none.",
      description =
          "The new secret is shown only in this answer. The previous one stays valid for 24"
              + " hours: deliveries meanwhile carry a signature with each.")
  @Answers({CONFLICT})
  @PostMapping(ONE + "/rotate-secret")
  ResponseEntity<WebhookRegistrationView> rotate(
      @PathVariable String projectId, @PathVariable String webhookId, Principal caller) {
    WebhookRegistration r = webhooks().rotateSecret(caller, projectId, webhookId);
    AuditLog.event("webhook.secret_rotated")
        .with("projectId", projectId)
        .with("webhookId", webhookId)
        .with("userId", caller.userId())
        .log();
    return JsonAnswers.ok(WebhookRegistrationView.of(r));
  }

  @Operation(
      operationId = "testWebhook",
      summary =
          "Enqueue a webhook.test event for this endpoint (needs project.admin); 409 if none.",
      description = "The answer names the event; its delivery shows in the endpoint's log.")
  @Answers({CONFLICT})
  @PostMapping(ONE + "/test")
  ResponseEntity<WebhookTestView> test(
      @PathVariable String projectId, @PathVariable String webhookId, Principal caller) {
    return JsonAnswers.ok(new WebhookTestView(webhooks().test(caller, projectId, webhookId)));
  }

  @Operation(
      operationId = "listWebhookDeliveries",
      summary =
          "The endpoint's delivery log, newest first (needs project.admin); 409 if no such"
              + " endpoint.",
      description =
          "One row per event: its id (the webhook-id header), type, status (pending, delivered,"
              + " failed), attempts, last HTTP status and error, and the next attempt.")
  @Answers({CONFLICT})
  @Paged(
      max = Webhooks.MAX_PAGE,
      byDefault = Webhooks.DEFAULT_PAGE,
      cursorLength = DeliveryCursor.MAX_LENGTH)
  @GetMapping(ONE + "/deliveries")
  ResponseEntity<DeliveryListView> deliveries(
      @PathVariable String projectId,
      @PathVariable String webhookId,
      @RequestParam(name = "limit", required = false) String limit,
      @RequestParam(name = "cursor", required = false) String cursor,
      Principal caller) {
    return JsonAnswers.ok(
        DeliveryListView.of(
            projectId,
            webhookId,
            webhooks()
                .deliveries(
                    caller,
                    projectId,
                    webhookId,
                    QueryParameters.wholeNumber(limit, "limit"),
                    cursor)));
  }
}
