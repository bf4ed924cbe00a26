package dev.qinglong.app.modelquota;

import dev.qinglong.app.http.JsonBodies;
import dev.qinglong.app.http.JsonResponses;
import dev.qinglong.app.http.RateLimitHeaders;
import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import dev.qinglong.core.ai.Admission;
import dev.qinglong.core.ai.LedgerPage;
import dev.qinglong.core.ai.ModelInvocationPolicy;
import dev.qinglong.core.ai.ModelInvocationQuota;
import dev.qinglong.core.ai.ModelProjectQuotaExceededException;
import dev.qinglong.core.ai.ProjectQuotaPolicy;
import dev.qinglong.core.ai.Settled;
import dev.qinglong.core.ai.StepRunCreation;
import dev.qinglong.core.ai.TokenUsage;
import dev.qinglong.core.ai.WindowUsageReading;
import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.ValidationException;
import java.util.Set;
import java.util.UUID;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.Authentication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Model-invocation quota routes (DESIGN §5), present only when {@code qinglong.ai.enabled=true}.
 * Every route validates its input strictly, then the core checks the Project Policy before it
 * touches the store; errors are problem documents like the governance routes'.
 */
@RestController
@ConditionalOnProperty(prefix = "qinglong.ai", name = "enabled", havingValue = "true")
@ConditionalOnRole({Role.ALL, Role.WRITER})
public class ModelQuotaController {
  static final String BASE = "/v1/projects/{projectId}";

  private final ModelInvocationQuota quota;
  private final AiViews views;

  public ModelQuotaController(ModelInvocationQuota quota, ObjectMapper mapper) {
    this.quota = quota;
    this.views = new AiViews(mapper);
  }

  @PutMapping(
      path = BASE + "/model-policies/{modelId}",
      consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<String> putModelPolicy(
      @PathVariable String projectId,
      @PathVariable String modelId,
      @RequestBody(required = false) JsonNode body,
      Authentication authentication) {
    JsonNode request = JsonBodies.object(body, "body", Set.of("maxTotalTokens", "maxCostMicros"));
    ModelInvocationPolicy policy =
        quota.putModelPolicy(
            JsonResponses.caller(authentication),
            projectId,
            modelId,
            JsonBodies.requiredLong(request, "maxTotalTokens", "maxTotalTokens"),
            JsonBodies.optionalLong(request, "maxCostMicros", "maxCostMicros"));
    return json(200, views.modelPolicy(policy));
  }

  @PutMapping(path = BASE + "/model-quota", consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<String> putProjectQuota(
      @PathVariable String projectId,
      @RequestBody(required = false) JsonNode body,
      Authentication authentication) {
    JsonNode request =
        JsonBodies.object(
            body, "body", Set.of("window", "maxInvocations", "maxTokens", "maxCostMicros"));
    ProjectQuotaPolicy policy =
        quota.putProjectQuota(
            JsonResponses.caller(authentication),
            projectId,
            JsonBodies.string(request, "window", "window"),
            JsonBodies.requiredLong(request, "maxInvocations", "maxInvocations"),
            JsonBodies.requiredLong(request, "maxTokens", "maxTokens"),
            JsonBodies.optionalLong(request, "maxCostMicros", "maxCostMicros"));
    return json(200, views.projectQuota(policy));
  }

  @PostMapping(path = BASE + "/step-runs", consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<String> createStepRun(
      @PathVariable String projectId,
      @RequestBody(required = false) JsonNode body,
      Authentication authentication) {
    JsonNode request = JsonBodies.object(body, "body", Set.of("stepRunId", "runId", "modelId"));
    StepRunCreation result =
        quota.createStepRun(
            JsonResponses.caller(authentication),
            projectId,
            JsonBodies.string(request, "stepRunId", "stepRunId"),
            JsonBodies.string(request, "runId", "runId"),
            JsonBodies.string(request, "modelId", "modelId"));
    if (result.created()) {
      return JsonResponses.created(
          "/v1/projects/" + projectId + "/step-runs/" + result.stepRun().stepRunId(),
          views.write(views.stepRun(result.stepRun())));
    }
    return json(200, views.stepRun(result.stepRun()));
  }

  /** What the {@code Location} of a created StepRun names; the same view as the creation's. */
  @GetMapping(BASE + "/step-runs/{stepRunId}")
  ResponseEntity<String> stepRun(
      @PathVariable String projectId,
      @PathVariable String stepRunId,
      Authentication authentication) {
    return json(
        200,
        views.stepRun(quota.stepRun(JsonResponses.caller(authentication), projectId, stepRunId)));
  }

  /** What the {@code Location} of an admission names; the same view as the admission's. */
  @GetMapping(BASE + "/model-invocations/{invocationId}")
  ResponseEntity<String> invocation(
      @PathVariable String projectId,
      @PathVariable String invocationId,
      Authentication authentication) {
    return json(
        200,
        views.admission(
            quota.invocation(JsonResponses.caller(authentication), projectId, invocationId)));
  }

  @PostMapping(path = BASE + "/model-invocations", consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<String> admit(
      @PathVariable String projectId,
      @RequestBody(required = false) JsonNode body,
      Authentication authentication) {
    JsonNode request = JsonBodies.object(body, "body", Set.of("invocationId", "stepRunId"));
    String invocationId = JsonBodies.string(request, "invocationId", "invocationId");
    String stepRunId = JsonBodies.string(request, "stepRunId", "stepRunId");
    Identifiers.require("projectId", projectId);
    Identifiers.require("invocationId", invocationId);
    Identifiers.require("stepRunId", stepRunId);
    Admission admission;
    try {
      admission =
          quota.admit(JsonResponses.caller(authentication), projectId, invocationId, stepRunId);
    } catch (ModelProjectQuotaExceededException e) {
      RateLimitHeaders.addToCurrentResponse(ModelRateLimits.of(e.window()));
      throw e;
    }
    RateLimitHeaders.addToCurrentResponse(ModelRateLimits.of(admission.window()));
    if (admission.created()) {
      return JsonResponses.created(
          "/v1/projects/" + projectId + "/model-invocations/" + invocationId,
          views.write(views.admission(admission)));
    }
    return json(200, views.admission(admission));
  }

  @PostMapping(
      path = BASE + "/model-invocations/{invocationId}/completion",
      consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<String> complete(
      @PathVariable String projectId,
      @PathVariable String invocationId,
      @RequestBody(required = false) JsonNode body,
      Authentication authentication) {
    JsonNode request = JsonBodies.object(body, "body", Set.of("outcome", "usage", "costMicros"));
    String outcome = JsonBodies.string(request, "outcome", "outcome");
    TokenUsage usage = null;
    JsonNode usageNode = request.get("usage");
    if (usageNode != null && !usageNode.isNull()) {
      JsonNode u =
          JsonBodies.object(
              usageNode, "usage", Set.of("inputTokens", "outputTokens", "totalTokens"));
      usage =
          new TokenUsage(
              JsonBodies.requiredLong(u, "inputTokens", "usage.inputTokens"),
              JsonBodies.requiredLong(u, "outputTokens", "usage.outputTokens"),
              JsonBodies.requiredLong(u, "totalTokens", "usage.totalTokens"));
    }
    Long costMicros = JsonBodies.optionalLong(request, "costMicros", "costMicros");
    Settled settled =
        quota.complete(
            JsonResponses.caller(authentication),
            projectId,
            invocationId,
            outcome,
            usage,
            costMicros);
    return json(200, views.settled(settled));
  }

  @PostMapping(BASE + "/step-runs/{stepRunId}/recovery")
  ResponseEntity<String> recover(
      @PathVariable String projectId,
      @PathVariable String stepRunId,
      Authentication authentication) {
    Settled settled =
        quota.recoverStepRun(JsonResponses.caller(authentication), projectId, stepRunId);
    return json(200, views.settled(settled));
  }

  @GetMapping(BASE + "/model-usage/window")
  ResponseEntity<String> window(@PathVariable String projectId, Authentication authentication) {
    WindowUsageReading reading =
        quota.windowUsage(JsonResponses.caller(authentication), projectId, requestId());
    return json(200, views.windowUsage(reading));
  }

  @GetMapping(BASE + "/model-usage/ledger")
  ResponseEntity<String> ledger(
      @PathVariable String projectId,
      @RequestParam(name = "limit", required = false) String limit,
      @RequestParam(name = "cursor", required = false) String cursor,
      Authentication authentication) {
    Integer size = JsonBodies.optionalIntParameter(limit, "limit");
    if (cursor != null && cursor.isEmpty()) {
      throw new ValidationException("cursor", "is not a cursor this server issued");
    }
    LedgerPage page =
        quota.ledger(JsonResponses.caller(authentication), projectId, size, cursor, requestId());
    return json(200, views.ledgerPage(page));
  }

  /** A fresh id per read: the receipt of its management quota unit. */
  private static String requestId() {
    return "req-" + UUID.randomUUID();
  }

  private ResponseEntity<String> json(int status, Object node) {
    return JsonResponses.json(status, views.write(node));
  }
}
