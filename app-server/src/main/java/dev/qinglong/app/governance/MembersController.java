package dev.qinglong.app.governance;

import dev.qinglong.app.http.AuditLog;
import dev.qinglong.app.http.JsonBodies;
import dev.qinglong.app.http.JsonResponses;
import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectMember;
import dev.qinglong.core.policy.ProjectPolicy;
import java.util.EnumSet;
import java.util.Set;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.Authentication;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Project Policy writes: a member's permissions are replaced (DESIGN §3), in the roles that serve
 * the management API. Reads are {@link MemberReadsController}.
 */
@RestController
@ConditionalOnRole({Role.ALL, Role.WRITER})
public class MembersController {
  static final String BASE = "/v1/projects/{projectId}/members";

  private final ProjectPolicy policy;
  private final Views views;

  public MembersController(ProjectPolicy policy, ObjectMapper mapper) {
    this.policy = policy;
    this.views = new Views(mapper);
  }

  @PutMapping(path = BASE + "/{userId}", consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<String> replace(
      @PathVariable String projectId,
      @PathVariable String userId,
      @RequestBody(required = false) JsonNode body,
      Authentication authentication) {
    Identifiers.require("projectId", projectId);
    Identifiers.require("userId", userId);
    JsonNode request = JsonBodies.object(body, "body", Set.of("permissions"));
    JsonNode list = request.get("permissions");
    if (list == null || list.isNull()) {
      throw new ValidationException("permissions", "is required");
    }
    if (!list.isArray()) {
      throw new ValidationException("permissions", "must be an array of permission names");
    }
    Set<Permission> permissions = EnumSet.noneOf(Permission.class);
    for (JsonNode item : list) {
      if (!item.isString()) {
        throw new ValidationException("permissions", "must be an array of permission names");
      }
      permissions.add(Permission.fromWire(item.stringValue()));
    }
    ProjectMember member =
        policy.replaceMember(
            JsonResponses.caller(authentication),
            new ProjectMember(projectId, userId, permissions));
    AuditLog.event("member.changed")
        .with("projectId", projectId)
        .with("userId", JsonResponses.caller(authentication).userId())
        .with("member", userId)
        .with(
            "permissions",
            String.join(
                ",", member.permissions().stream().map(Permission::wireName).sorted().toList()))
        .log();
    return json(views.member(member));
  }

  private ResponseEntity<String> json(Object node) {
    return JsonResponses.json(200, views.write(node));
  }
}
