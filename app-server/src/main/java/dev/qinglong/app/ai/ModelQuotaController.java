package dev.qinglong.app.ai;

import dev.qinglong.core.ai.Admission;
import dev.qinglong.core.ai.LedgerPage;
import dev.qinglong.core.ai.ModelInvocationPolicy;
import dev.qinglong.core.ai.ModelInvocationQuota;
import dev.qinglong.core.ai.ProjectQuotaPolicy;
import dev.qinglong.core.ai.Settled;
import dev.qinglong.core.ai.StepRunCreation;
import dev.qinglong.core.ai.TokenUsage;
import dev.qinglong.core.ai.WindowUsageReading;
import dev.qinglong.core.model.Identifiers;
import dev.qinglong.core.model.Principal;
import dev.qinglong.core.model.ValidationException;
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
    JsonNode request = AiBodies.object(body, "body", Set.of("maxTotalTokens", "maxCostMicros"));
    ModelInvocationPolicy policy =
        quota.putModelPolicy(
            caller(authentication),
            projectId,
            modelId,
            AiBodies.requiredLong(request, "maxTotalTokens", "maxTotalTokens"),
            AiBodies.optionalLong(request, "maxCostMicros", "maxCostMicros"));
    return json(200, views.modelPolicy(policy));
  }

  @PutMapping(path = BASE + "/model-quota", consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<String> putProjectQuota(
      @PathVariable String projectId,
      @RequestBody(required = false) JsonNode body,
      Authentication authentication) {
    JsonNode request =
        AiBodies.object(
            body, "body", Set.of("window", "maxInvocations", "maxTokens", "maxCostMicros"));
    ProjectQuotaPolicy policy =
        quota.putProjectQuota(
            caller(authentication),
            projectId,
            AiBodies.string(request, "window", "window"),
            AiBodies.requiredLong(request, "maxInvocations", "maxInvocations"),
            AiBodies.requiredLong(request, "maxTokens", "maxTokens"),
            AiBodies.optionalLong(request, "maxCostMicros", "maxCostMicros"));
    return json(200, views.projectQuota(policy));
  }

  @PostMapping(path = BASE + "/step-runs", consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<String> createStepRun(
      @PathVariable String projectId,
      @RequestBody(required = false) JsonNode body,
      Authentication authentication) {
    JsonNode request = AiBodies.object(body, "body", Set.of("stepRunId", "runId", "modelId"));
    StepRunCreation result =
        quota.createStepRun(
            caller(authentication),
            projectId,
            AiBodies.string(request, "stepRunId", "stepRunId"),
            AiBodies.string(request, "runId", "runId"),
            AiBodies.string(request, "modelId", "modelId"));
    return json(result.created() ? 201 : 200, views.stepRun(result.stepRun()));
  }

  @PostMapping(path = BASE + "/model-invocations", consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<String> admit(
      @PathVariable String projectId,
      @RequestBody(required = false) JsonNode body,
      Authentication authentication) {
    JsonNode request = AiBodies.object(body, "body", Set.of("invocationId", "stepRunId"));
    String invocationId = AiBodies.string(request, "invocationId", "invocationId");
    String stepRunId = AiBodies.string(request, "stepRunId", "stepRunId");
    Identifiers.require("projectId", projectId);
    Identifiers.require("invocationId", invocationId);
    Identifiers.require("stepRunId", stepRunId);
    Admission admission = quota.admit(caller(authentication), projectId, invocationId, stepRunId);
    return json(admission.created() ? 201 : 200, views.admission(admission));
  }

  @PostMapping(
      path = BASE + "/model-invocations/{invocationId}/completion",
      consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<String> complete(
      @PathVariable String projectId,
      @PathVariable String invocationId,
      @RequestBody(required = false) JsonNode body,
      Authentication authentication) {
    JsonNode request = AiBodies.object(body, "body", Set.of("outcome", "usage", "costMicros"));
    String outcome = AiBodies.string(request, "outcome", "outcome");
    TokenUsage usage = null;
    JsonNode usageNode = request.get("usage");
    if (usageNode != null && !usageNode.isNull()) {
      JsonNode u =
          AiBodies.object(usageNode, "usage", Set.of("inputTokens", "outputTokens", "totalTokens"));
      usage =
          new TokenUsage(
              AiBodies.requiredLong(u, "inputTokens", "usage.inputTokens"),
              AiBodies.requiredLong(u, "outputTokens", "usage.outputTokens"),
              AiBodies.requiredLong(u, "totalTokens", "usage.totalTokens"));
    }
    Long costMicros = AiBodies.optionalLong(request, "costMicros", "costMicros");
    Settled settled =
        quota.complete(caller(authentication), projectId, invocationId, outcome, usage, costMicros);
    return json(200, views.settled(settled));
  }

  @GetMapping(BASE + "/model-usage/window")
  ResponseEntity<String> window(@PathVariable String projectId, Authentication authentication) {
    WindowUsageReading reading = quota.windowUsage(caller(authentication), projectId, requestId());
    return json(200, views.windowUsage(reading));
  }

  @GetMapping(BASE + "/model-usage/ledger")
  ResponseEntity<String> ledger(
      @PathVariable String projectId,
      @RequestParam(name = "limit", required = false) String limit,
      @RequestParam(name = "cursor", required = false) String cursor,
      Authentication authentication) {
    Integer size = AiBodies.optionalIntParameter(limit, "limit");
    if (cursor != null && cursor.isEmpty()) {
      throw new ValidationException("cursor", "is not a cursor this server issued");
    }
    LedgerPage page = quota.ledger(caller(authentication), projectId, size, cursor, requestId());
    return json(200, views.ledgerPage(page));
  }

  /** A fresh id per read: the receipt of its management quota unit. */
  private static String requestId() {
    return "req-" + UUID.randomUUID();
  }

  private static Principal caller(Authentication authentication) {
    return new Principal(authentication.getName());
  }

  private ResponseEntity<String> json(int status, Object node) {
    return ResponseEntity.status(status)
        .contentType(MediaType.APPLICATION_JSON)
        .header("Cache-Control", "no-store")
        .body(views.write(node));
  }
}
