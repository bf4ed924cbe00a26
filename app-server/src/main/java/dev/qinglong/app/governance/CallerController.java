package dev.qinglong.app.governance;

import static dev.qinglong.app.http.OpenApiDocument.PERMISSION;

import dev.qinglong.app.http.JsonAnswers;
import dev.qinglong.app.http.OpenApiDocument.AnyCaller;
import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectPolicy;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Who the caller is in a Project: its user id, whether it is a global administrator and the
 * permissions it holds there (what the console shows and offers). Any authenticated caller may ask;
 * a Project that does not exist and one where the caller holds nothing give the same empty list, so
 * the answer tells nothing about other Projects. Not counted by the management quota.
 */
@RestController
@ConditionalOnRole({Role.ALL, Role.WRITER})
@Tag(name = "members")
public record CallerController(ProjectPolicy policy) {
  @Operation(
      operationId = "getCaller",
      summary =
          "The caller's own user id and permissions in the Project (any authenticated caller;"
              + " none held, or no such Project: an empty list).",
      description =
          "permissions are the effective ones, in a fixed order (package.manage, approval.decide,"
              + " package.read, model.invoke, model.usage.read, project.admin): a global"
              + " administrator holds project.admin in every Project. Not counted by the"
              + " management quota.")
  @AnyCaller
  @GetMapping("/v1/projects/{projectId}/me")
  ResponseEntity<CallerView> me(@PathVariable String projectId, Principal caller) {
    Identifiers.require("projectId", projectId);
    return JsonAnswers.ok(
        new CallerView(
            caller.userId(),
            policy.isGlobalAdmin(caller),
            policy.permissions(caller, projectId).stream().map(Permission::wireName).toList()));
  }

  /** The caller in one Project. */
  @Schema(name = "Caller")
  public record CallerView(
      String userId,
      boolean globalAdmin,
      @ArraySchema(schema = @Schema(ref = PERMISSION)) List<String> permissions) {}
}
