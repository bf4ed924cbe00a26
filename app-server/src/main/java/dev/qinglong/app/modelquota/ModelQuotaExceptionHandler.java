package dev.qinglong.app.modelquota;

import dev.qinglong.app.http.ProblemType;
import dev.qinglong.app.http.Problems;
import dev.qinglong.app.http.Problems.Problem;
import dev.qinglong.app.http.RateLimitHeaders;
import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import dev.qinglong.core.modelquota.ModelPolicyMissingException;
import dev.qinglong.core.modelquota.ModelProjectQuotaExceededException;
import dev.qinglong.core.modelquota.ModelQuotaConfigurationException;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Problem documents of the three model-quota exceptions; every other exception of the AI routes
 * goes to the application's own handler, as for governance. Ordered first because that handler also
 * has a catch-all.
 */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE)
@ConditionalOnProperty(prefix = "qinglong.ai", name = "enabled", havingValue = "true")
@ConditionalOnRole({Role.ALL, Role.WRITER})
public class ModelQuotaExceptionHandler {

  @ExceptionHandler(ModelProjectQuotaExceededException.class)
  ResponseEntity<Problem> projectQuota(
      ModelProjectQuotaExceededException e, jakarta.servlet.http.HttpServletRequest request) {
    dev.qinglong.app.http.ApiExceptionHandler.auditQuotaRejection(
        request, "model", e.retryAfterSeconds());
    return Problems.entity(
        ProblemType.MODEL_PROJECT_QUOTA_EXCEEDED,
        "The Project's model quota window has no room for this invocation's worst case.",
        // The rate-limit fields of the window the refusal was decided in.
        RateLimitHeaders.refusal(e.retryAfterSeconds(), ModelRateLimits.of(e.window())));
  }

  @ExceptionHandler(ModelQuotaConfigurationException.class)
  ResponseEntity<Problem> configuration(ModelQuotaConfigurationException e) {
    // Fail closed: the Project limits cost but the model policy has no cost cap.
    return Problems.entity(
        ProblemType.CONFLICT,
        "The Project's model quota configuration cannot be enforced (a cost limit needs a cost cap"
            + " on the model policy); nothing was reserved.");
  }

  /** Admission before the StepRun's model has a policy: says what to set, names no id. */
  static final String NO_MODEL_POLICY_DETAIL =
      "No model policy is set for this StepRun's model in this Project; a project.admin sets one"
          + " with PUT /v1/projects/{projectId}/model-policies/{modelId}. Nothing was reserved.";

  @ExceptionHandler(ModelPolicyMissingException.class)
  ResponseEntity<Problem> noModelPolicy(ModelPolicyMissingException e) {
    return Problems.entity(ProblemType.CONFLICT, NO_MODEL_POLICY_DETAIL);
  }
}
