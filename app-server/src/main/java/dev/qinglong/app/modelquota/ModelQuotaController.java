package dev.qinglong.app.modelquota;

import static dev.qinglong.app.http.OpenApiDocument.Answer.CONFLICT;
import static dev.qinglong.app.http.OpenApiDocument.Answer.CREATED;
import static dev.qinglong.app.http.OpenApiDocument.Answer.MODEL_QUOTA;
import static dev.qinglong.app.http.OpenApiDocument.Answer.QUOTA;

import dev.qinglong.app.http.JsonAnswers;
import dev.qinglong.app.http.OpenApiDocument;
import dev.qinglong.app.http.OpenApiDocument.Answers;
import dev.qinglong.app.http.OpenApiDocument.Paged;
import dev.qinglong.app.http.QueryParameters;
import dev.qinglong.app.http.RateLimitHeaders;
import dev.qinglong.app.modelquota.ModelQuotaJson.AdmissionRequest;
import dev.qinglong.app.modelquota.ModelQuotaJson.AdmissionView;
import dev.qinglong.app.modelquota.ModelQuotaJson.CompletionRequest;
import dev.qinglong.app.modelquota.ModelQuotaJson.LedgerPageView;
import dev.qinglong.app.modelquota.ModelQuotaJson.ModelPolicyRequest;
import dev.qinglong.app.modelquota.ModelQuotaJson.ModelPolicyView;
import dev.qinglong.app.modelquota.ModelQuotaJson.ProjectQuotaRequest;
import dev.qinglong.app.modelquota.ModelQuotaJson.ProjectQuotaView;
import dev.qinglong.app.modelquota.ModelQuotaJson.SettledView;
import dev.qinglong.app.modelquota.ModelQuotaJson.StepRunRequest;
import dev.qinglong.app.modelquota.ModelQuotaJson.StepRunView;
import dev.qinglong.app.modelquota.ModelQuotaJson.WindowUsageView;
import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.modelquota.Admission;
import dev.qinglong.core.modelquota.LedgerPage;
import dev.qinglong.core.modelquota.ModelInvocationPolicy;
import dev.qinglong.core.modelquota.ModelQuota;
import dev.qinglong.core.modelquota.ProjectQuotaPolicy;
import dev.qinglong.core.modelquota.Settled;
import dev.qinglong.core.modelquota.StepRunCreation;
import dev.qinglong.core.modelquota.WindowUsageReading;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.UUID;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Model-invocation quota routes (docs/model-quota.md), present only when {@code
 * qinglong.ai.enabled=true}. Every route validates its input strictly, then the core checks the
 * Project Policy before it touches the store; errors are problem documents like the governance
 * routes'.
 */
@RestController
@ConditionalOnProperty(prefix = "qinglong.ai", name = "enabled", havingValue = "true")
@ConditionalOnRole({Role.ALL, Role.WRITER})
@Tag(name = OpenApiDocument.MODEL_QUOTA_TAG)
public record ModelQuotaController(ModelQuota quota) {
  static final String BASE = "/v1/projects/{projectId}";

  @Operation(
      operationId = "putModelPolicy",
      summary = "Set a model's invocation policy (needs project.admin).",
      description =
          "Appends a new immutable revision unless the latest one has exactly these limits (then"
              + " returns it). Admission reserves maxTotalTokens and maxCostMicros (the worst"
              + " case) per invocation.")
  @PutMapping(
      path = BASE + "/model-policies/{modelId}",
      consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<ModelPolicyView> putModelPolicy(
      @PathVariable String projectId,
      @PathVariable String modelId,
      @RequestBody ModelPolicyRequest body,
      Principal caller) {
    ModelInvocationPolicy policy =
        quota.putModelPolicy(
            caller, projectId, modelId, body.maxTotalTokens(), body.maxCostMicros());
    return JsonAnswers.ok(ModelPolicyView.of(policy));
  }

  @Operation(
      operationId = "putModelQuota",
      summary = "Set the Project's model quota (needs project.admin).",
      description =
          "Appends a new immutable revision unless unchanged. Fixed, epoch-aligned window on the"
              + " database clock. A cost limit requires every model policy of the Project to cap"
              + " cost, or admission fails closed (409).")
  @PutMapping(path = BASE + "/model-quota", consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<ProjectQuotaView> putProjectQuota(
      @PathVariable String projectId, @RequestBody ProjectQuotaRequest body, Principal caller) {
    ProjectQuotaPolicy policy =
        quota.putProjectQuota(
            caller,
            projectId,
            body.window(),
            body.maxInvocations(),
            body.maxTokens(),
            body.maxCostMicros());
    return JsonAnswers.ok(ProjectQuotaView.of(policy));
  }

  @Operation(
      operationId = "createStepRun",
      summary = "Create a ready StepRun (needs model.invoke).")
  @Answers({CREATED, CONFLICT})
  @PostMapping(path = BASE + "/step-runs", consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<StepRunView> createStepRun(
      @PathVariable String projectId, @RequestBody StepRunRequest body, Principal caller) {
    StepRunCreation result =
        quota.createStepRun(caller, projectId, body.stepRunId(), body.runId(), body.modelId());
    return JsonAnswers.answer(
        result.created(),
        "/v1/projects/" + projectId + "/step-runs/" + result.stepRun().stepRunId(),
        StepRunView.of(result.stepRun()),
        HttpHeaders.EMPTY);
  }

  /** What the {@code Location} of a created StepRun names; the same view as the creation's. */
  @Operation(operationId = "getStepRun", summary = "Read one StepRun (needs model.invoke).")
  @Answers({CONFLICT})
  @GetMapping(BASE + "/step-runs/{stepRunId}")
  ResponseEntity<StepRunView> stepRun(
      @PathVariable String projectId, @PathVariable String stepRunId, Principal caller) {
    return JsonAnswers.ok(StepRunView.of(quota.stepRun(caller, projectId, stepRunId)));
  }

  /** What the {@code Location} of an admission names; the same view as the admission's. */
  @Operation(
      operationId = "getModelInvocation",
      summary = "Read one admitted model invocation (needs model.invoke).")
  @Answers({CONFLICT})
  @GetMapping(BASE + "/model-invocations/{invocationId}")
  ResponseEntity<AdmissionView> invocation(
      @PathVariable String projectId, @PathVariable String invocationId, Principal caller) {
    return JsonAnswers.ok(AdmissionView.of(quota.invocation(caller, projectId, invocationId)));
  }

  @Operation(
      operationId = "admitModelInvocation",
      summary = "Admit one model invocation: reserve its worst case (needs model.invoke).",
      description =
          "In one transaction serialised per Project window: the window from the database"
              + " clock, its usage, the quota fence, StepRun ready -> running, the start and"
              + " reservation receipts. An exact replay (same invocationId and stepRunId) returns"
              + " the stored receipts (200).")
  @Answers({CREATED, CONFLICT, MODEL_QUOTA})
  @PostMapping(path = BASE + "/model-invocations", consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<AdmissionView> admit(
      @PathVariable String projectId, @RequestBody AdmissionRequest body, Principal caller) {
    String invocationId = body.invocationId();
    String stepRunId = body.stepRunId();
    Identifiers.require("projectId", projectId);
    Identifiers.require("invocationId", invocationId);
    Identifiers.require("stepRunId", stepRunId);
    // A refusal carries its window on the exception; ModelQuotaExceptionHandler answers with its
    // fields.
    Admission admission = quota.admit(caller, projectId, invocationId, stepRunId);
    return JsonAnswers.answer(
        admission.created(),
        "/v1/projects/" + projectId + "/model-invocations/" + invocationId,
        AdmissionView.of(admission),
        RateLimitHeaders.fields(ModelRateLimits.of(admission.window())));
  }

  @Operation(
      operationId = "completeModelInvocation",
      summary = "Complete an admitted invocation and settle its reservation (needs model.invoke).",
      description =
          "In one transaction: completion, UsageLedger entry, settlement, terminal StepRun."
              + " Known usage settles the actual tokens (and cost where cost was reserved) and"
              + " releases the rest; usage null or outcome unknown keeps the whole reservation."
              + " Usage above the reservation is 409, nothing recorded.")
  @Answers({CONFLICT})
  @PostMapping(
      path = BASE + "/model-invocations/{invocationId}/completion",
      consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<SettledView> complete(
      @PathVariable String projectId,
      @PathVariable String invocationId,
      @RequestBody CompletionRequest body,
      Principal caller) {
    Settled settled =
        quota.complete(
            caller, projectId, invocationId, body.outcome(), body.toUsage(), body.costMicros());
    return JsonAnswers.ok(SettledView.of(settled));
  }

  @Operation(
      operationId = "recoverStepRun",
      summary =
          "Recover a StepRun left running: complete it as unknown, keeping its whole reservation"
              + " (needs project.admin).")
  @Answers({CONFLICT})
  @PostMapping(BASE + "/step-runs/{stepRunId}/recovery")
  ResponseEntity<SettledView> recover(
      @PathVariable String projectId, @PathVariable String stepRunId, Principal caller) {
    Settled settled = quota.recoverStepRun(caller, projectId, stepRunId);
    return JsonAnswers.ok(SettledView.of(settled));
  }

  @Operation(
      operationId = "getModelUsageWindow",
      summary =
          "The Project's current model quota window: usage and limits (needs model.usage.read, or a global"
              + " administrator).",
      description =
          "Without a Project quota the window is the unfenced day window and every limit is"
              + " null. Consumes one unit of the management quota model-usage.read under a fresh"
              + " request id.")
  @Answers({CONFLICT, QUOTA})
  @GetMapping(BASE + "/model-usage/window")
  ResponseEntity<WindowUsageView> window(@PathVariable String projectId, Principal caller) {
    WindowUsageReading reading = quota.windowUsage(caller, projectId, requestId());
    return JsonAnswers.ok(WindowUsageView.of(reading));
  }

  @Operation(
      operationId = "getModelUsageLedger",
      summary =
          "A bounded page of the Project's UsageLedger (needs model.usage.read, or a global"
              + " administrator).",
      description =
          "Entries in ledger order. Consumes one unit of the management quota model-usage.read"
              + " under a fresh request id.")
  @Answers({CONFLICT, QUOTA})
  @Paged(
      max = ModelQuota.MAX_LEDGER_PAGE,
      byDefault = ModelQuota.DEFAULT_LEDGER_PAGE,
      cursorLength = ModelQuota.MAX_CURSOR_LENGTH)
  @GetMapping(BASE + "/model-usage/ledger")
  ResponseEntity<LedgerPageView> ledger(
      @PathVariable String projectId,
      @RequestParam(name = "limit", required = false) String limit,
      @RequestParam(name = "cursor", required = false) String cursor,
      Principal caller) {
    if (cursor != null && cursor.isEmpty()) {
      throw new ValidationException("cursor", "is not a cursor this server issued");
    }
    LedgerPage page =
        quota.ledger(
            caller, projectId, QueryParameters.wholeNumber(limit, "limit"), cursor, requestId());
    return JsonAnswers.ok(LedgerPageView.of(page));
  }

  /** A fresh id per read: the receipt of its management quota unit. */
  private static String requestId() {
    return "req-" + UUID.randomUUID();
  }
}
