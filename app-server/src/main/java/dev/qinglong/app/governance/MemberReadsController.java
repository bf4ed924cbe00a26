package dev.qinglong.app.governance;

import dev.qinglong.app.http.JsonBodies;
import dev.qinglong.app.http.JsonResponses;
import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import dev.qinglong.core.kernel.ConflictException;
import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.policy.MemberPage;
import dev.qinglong.core.policy.ProjectMember;
import dev.qinglong.core.policy.ProjectPolicy;
import java.util.List;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.Authentication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Project Policy reads: the members of a Project (DESIGN §3). Read-only, no quota: served by read
 * gateways too, through their read-only Policy store.
 */
@RestController
@ConditionalOnRole({Role.ALL, Role.WRITER, Role.READER})
public class MemberReadsController {
  private final ProjectPolicy policy;
  private final Views views;

  public MemberReadsController(ProjectPolicy policy, ObjectMapper mapper) {
    this.policy = policy;
    this.views = new Views(mapper);
  }

  @GetMapping(MembersController.BASE)
  ResponseEntity<String> list(
      @PathVariable String projectId,
      @RequestParam(name = "limit", required = false) String limit,
      @RequestParam(name = "cursor", required = false) String cursor,
      Authentication authentication) {
    MemberPage page =
        policy.members(
            JsonResponses.caller(authentication),
            projectId,
            JsonBodies.optionalIntParameter(limit, "limit"),
            cursor);
    ObjectNode out = views.object();
    out.put("projectId", projectId);
    ArrayNode items = out.putArray("members");
    for (ProjectMember m : page.items()) {
      items.add(views.member(m));
    }
    out.put("nextCursor", page.nextCursor());
    return json(out);
  }

  @GetMapping(MembersController.BASE + "/{userId}")
  ResponseEntity<String> get(
      @PathVariable String projectId, @PathVariable String userId, Authentication authentication) {
    Identifiers.require("userId", userId);
    List<ProjectMember> members = policy.members(JsonResponses.caller(authentication), projectId);
    for (ProjectMember m : members) {
      if (m.userId().equals(userId)) {
        return json(views.member(m));
      }
    }
    throw new ConflictException("no such member");
  }

  private ResponseEntity<String> json(Object node) {
    return JsonResponses.json(200, views.write(node));
  }
}
