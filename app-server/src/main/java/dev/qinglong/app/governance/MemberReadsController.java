package dev.qinglong.app.governance;

import static dev.qinglong.app.http.OpenApiDocument.Answer.CONFLICT;

import dev.qinglong.app.governance.GovernanceJson.MemberListView;
import dev.qinglong.app.governance.GovernanceJson.MemberView;
import dev.qinglong.app.http.JsonAnswers;
import dev.qinglong.app.http.OpenApiDocument.Answers;
import dev.qinglong.app.http.OpenApiDocument.Paged;
import dev.qinglong.app.http.QueryParameters;
import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import dev.qinglong.core.kernel.ConflictException;
import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.policy.ProjectMember;
import dev.qinglong.core.policy.ProjectPolicy;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Project Policy reads: the members of a Project. Read-only, no quota: served by read gateways too,
 * through their read-only Policy store.
 */
@RestController
@ConditionalOnRole({Role.ALL, Role.WRITER, Role.READER})
@Tag(name = "members")
public record MemberReadsController(ProjectPolicy policy) {
  @Operation(
      operationId = "listMembers",
      summary =
          "List the Project's members in user-id order, one page at a time (needs any"
              + " permission in the Project).")
  @Paged(
      max = ProjectPolicy.MAX_MEMBERS_PAGE,
      byDefault = ProjectPolicy.DEFAULT_MEMBERS_PAGE,
      cursorLength = ProjectPolicy.MAX_CURSOR_LENGTH)
  @GetMapping(MembersController.BASE)
  ResponseEntity<MemberListView> list(
      @PathVariable String projectId,
      @RequestParam(name = "limit", required = false) String limit,
      @RequestParam(name = "cursor", required = false) String cursor,
      Principal caller) {
    return JsonAnswers.ok(
        MemberListView.of(
            projectId,
            policy.members(
                caller, projectId, QueryParameters.wholeNumber(limit, "limit"), cursor)));
  }

  @Operation(
      operationId = "getMember",
      summary = "One member (needs any permission in the Project); 409 if not a member.")
  @Answers({CONFLICT})
  @GetMapping(MembersController.BASE + "/{userId}")
  ResponseEntity<MemberView> get(
      @PathVariable String projectId, @PathVariable String userId, Principal caller) {
    // The core's member list names no user: the route's own identifier is checked here, once.
    Identifiers.require("userId", userId);
    for (ProjectMember m : policy.members(caller, projectId)) {
      if (m.userId().equals(userId)) {
        return JsonAnswers.ok(MemberView.of(m));
      }
    }
    throw new ConflictException("no such member");
  }
}
