package dev.qinglong.app.governance;

import dev.qinglong.app.governance.GovernanceJson.MemberRequest;
import dev.qinglong.app.governance.GovernanceJson.MemberView;
import dev.qinglong.app.http.AuditLog;
import dev.qinglong.app.http.JsonAnswers;
import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectMember;
import dev.qinglong.core.policy.ProjectPolicy;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.EnumSet;
import java.util.Set;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * Project Policy writes: a member's permissions are replaced, in the roles that serve the
 * management API. Reads are {@link MemberReadsController}. Identifiers and permission names are
 * checked by the core ({@link ProjectMember}, {@link Permission#fromWire}).
 */
@RestController
@ConditionalOnRole({Role.ALL, Role.WRITER})
@Tag(name = "members")
public record MembersController(ProjectPolicy policy) {
  static final String BASE = "/v1/projects/{projectId}/members";

  @Operation(
      operationId = "replaceMember",
      summary = "Replace a member's permissions (needs project.admin).",
      description =
          "Creates the membership (and so the Project) if absent. An empty list keeps the user a"
              + " member without permissions.")
  @PutMapping(path = BASE + "/{userId}", consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<MemberView> replace(
      @PathVariable String projectId,
      @PathVariable String userId,
      @RequestBody MemberRequest body,
      Principal caller) {
    if (body.permissions() == null) {
      throw new ValidationException("permissions", "is required");
    }
    Set<Permission> permissions = EnumSet.noneOf(Permission.class);
    for (String name : body.permissions()) {
      permissions.add(Permission.fromWire(name));
    }
    ProjectMember member =
        policy.replaceMember(caller, new ProjectMember(projectId, userId, permissions));
    AuditLog.event("member.changed")
        .with("projectId", projectId)
        .with("userId", caller.userId())
        .with("member", userId)
        .with(
            "permissions",
            String.join(
                ",", member.permissions().stream().map(Permission::wireName).sorted().toList()))
        .log();
    return JsonAnswers.ok(MemberView.of(member));
  }
}
