package dev.qinglong.app.governance;

import dev.qinglong.app.governance.GovernanceJson.ManagementQuotaLimitsRequest;
import dev.qinglong.app.governance.GovernanceJson.ManagementQuotaLimitsView;
import dev.qinglong.app.governance.GovernanceJson.ManagementQuotaPolicyView;
import dev.qinglong.app.http.AuditLog;
import dev.qinglong.app.http.JsonAnswers;
import dev.qinglong.app.http.OpenApiDocument.Paged;
import dev.qinglong.app.http.QueryParameters;
import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.quota.ManagementQuotaLimits;
import dev.qinglong.core.quota.QuotaLimitsRevision;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.core.quota.QuotaPolicyPage;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Management-quota limits as data: a Project's policy and its users' overrides, set by global
 * administrators and read by the Project's administrators ({@link ManagementQuotaLimits}). Served
 * where the quota store is ({@code all}, {@code writer}). Not counted by the management quota
 * itself: the people who set the limits must never be locked out by them.
 */
@RestController
@ConditionalOnRole({Role.ALL, Role.WRITER})
@Tag(name = "members")
public record ManagementQuotaLimitsController(ManagementQuotaLimits limits) {
  static final String BASE = "/v1/projects/{projectId}/management-quota";

  @Operation(
      operationId = "putManagementQuotaPolicy",
      summary = "Set the Project's management-quota limits (global administrators only).",
      description =
          "Appends a new immutable revision (none if it sets exactly what the latest sets). An"
              + " operation it leaves out takes the configured default. The answer comes once the"
              + " revision is in force for every later request on every instance: about a second"
              + " after the write.")
  @PutMapping(path = BASE + "/policy", consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<ManagementQuotaLimitsView> putPolicy(
      @PathVariable String projectId,
      @RequestBody ManagementQuotaLimitsRequest body,
      Principal caller) {
    QuotaLimitsRevision revision = limits.putProject(caller, projectId, body.toLimits());
    audit(revision, caller);
    return JsonAnswers.ok(ManagementQuotaLimitsView.of(revision));
  }

  @Operation(
      operationId = "putManagementQuotaUser",
      summary =
          "Set one user's management-quota override in the Project (global administrators only).",
      description =
          "Appends a new immutable revision (none if it sets exactly what the latest sets); {}"
              + " removes the override. An operation it leaves out takes the Project's policy,"
              + " else the default. The answer comes once the revision is in force for every later"
              + " request on every instance: about a second after the write.")
  @PutMapping(path = BASE + "/users/{userId}", consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<ManagementQuotaLimitsView> putUser(
      @PathVariable String projectId,
      @PathVariable String userId,
      @RequestBody ManagementQuotaLimitsRequest body,
      Principal caller) {
    QuotaLimitsRevision revision = limits.putUser(caller, projectId, userId, body.toLimits());
    audit(revision, caller);
    return JsonAnswers.ok(ManagementQuotaLimitsView.of(revision));
  }

  @Operation(
      operationId = "getManagementQuotaPolicy",
      summary =
          "The Project's management-quota policy: defaults, the Project's limits, one page of"
              + " user overrides and the current shadow refusals (needs project.admin).",
      description =
          "Users in user-id order, only those whose latest override sets something. Shadow"
              + " refusals: the buckets of the current windows over the shadow limit in force for"
              + " them, the most over first. Not counted by the management quota.")
  @Paged(
      max = ManagementQuotaLimits.MAX_PAGE,
      byDefault = ManagementQuotaLimits.DEFAULT_PAGE,
      cursorLength = QuotaPolicyPage.MAX_CURSOR_LENGTH)
  @GetMapping(BASE + "/policy")
  ResponseEntity<ManagementQuotaPolicyView> policy(
      @PathVariable String projectId,
      @RequestParam(name = "limit", required = false) String limit,
      @RequestParam(name = "cursor", required = false) String cursor,
      Principal caller) {
    QuotaPolicyPage page =
        limits.read(caller, projectId, QueryParameters.wholeNumber(limit, "limit"), cursor);
    return JsonAnswers.ok(ManagementQuotaPolicyView.of(projectId, page));
  }

  /**
   * Audit event {@code quota.limits_set}: the Project, the user the override is for ({@code -} for
   * the Project's policy), the revision in force afterwards, the caller as {@code setBy} and what
   * the revision sets.
   */
  private static void audit(QuotaLimitsRevision revision, Principal caller) {
    AuditLog.event("quota.limits_set")
        .with("projectId", revision.projectId())
        .with("userId", revision.userId())
        .with("revision", revision.revision())
        .with("setBy", caller.userId())
        .with("limits", listed(revision.limits().limits()))
        .with("shadowLimits", listed(revision.limits().shadowLimits()))
        .log();
  }

  /** {@code operation:value,…} in the operations' order; {@code -} for none. */
  private static String listed(Map<QuotaOperation, Integer> values) {
    String listed =
        Stream.of(QuotaOperation.values())
            .filter(values::containsKey)
            .map(op -> op.wireName() + ":" + values.get(op))
            .collect(Collectors.joining(","));
    return listed.isEmpty() ? null : listed;
  }
}
