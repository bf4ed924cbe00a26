package dev.qinglong.app.governance;

import dev.qinglong.app.http.AuditLog;
import dev.qinglong.app.http.JsonBodies;
import dev.qinglong.app.http.JsonResponses;
import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import dev.qinglong.core.governance.Approval;
import dev.qinglong.core.governance.Inspection;
import dev.qinglong.core.governance.PluginPackageAction;
import dev.qinglong.core.governance.PluginPackageGovernance;
import dev.qinglong.core.governance.Proposal;
import dev.qinglong.core.governance.ProposalPage;
import dev.qinglong.core.governance.ProposeResult;
import java.util.Set;
import java.util.UUID;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.Authentication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** Plugin-package governance routes (DESIGN §4). */
@RestController
@ConditionalOnRole({Role.ALL, Role.WRITER})
public class GovernanceController {
  static final String BASE = "/v1/projects/{projectId}/plugin-packages";

  private final PluginPackageGovernance governance;
  private final Views views;

  public GovernanceController(PluginPackageGovernance governance, ObjectMapper mapper) {
    this.governance = governance;
    this.views = new Views(mapper);
  }

  @PostMapping(path = BASE + "/proposals", consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<String> propose(
      @PathVariable String projectId,
      @RequestBody(required = false) JsonNode body,
      Authentication authentication) {
    JsonNode request = JsonBodies.object(body, "body", Set.of("actionRef", "action"));
    String actionRef = JsonBodies.string(request, "actionRef", "actionRef");
    JsonNode actionNode = request.get("action");
    if (actionNode == null || actionNode.isNull()) {
      throw new dev.qinglong.core.kernel.ValidationException("action", "is required");
    }
    JsonNode action =
        JsonBodies.object(
            actionNode, "action", Set.of("type", "package", "version", "artifactDigest"));
    PluginPackageAction parsed =
        PluginPackageAction.of(
            JsonBodies.string(action, "type", "action.type"),
            JsonBodies.string(action, "package", "action.package"),
            JsonBodies.string(action, "version", "action.version"),
            JsonBodies.optionalString(action, "artifactDigest", "action.artifactDigest"));
    ProposeResult result =
        governance.propose(JsonResponses.caller(authentication), projectId, actionRef, parsed);
    Proposal proposal = result.proposal();
    AuditLog.event("governance.proposed")
        .with("projectId", proposal.projectId())
        .with("userId", proposal.proposedBy())
        .with("proposalId", proposal.proposalId())
        .with("approvalId", proposal.approvalId())
        .with("actionRef", proposal.actionRef())
        .with("action", proposal.action().type().wireName())
        .with("package", proposal.action().packageName())
        .with("version", proposal.action().version())
        .with("actionDigest", proposal.actionDigest().value())
        .with("replay", !result.created())
        .log();
    if (result.created()) {
      return JsonResponses.created(
          "/v1/projects/" + projectId + "/plugin-packages/proposals/" + proposal.proposalId(),
          views.write(views.proposal(proposal)));
    }
    return json(200, views.proposal(proposal));
  }

  @PostMapping(
      path = BASE + "/approvals/{approvalId}/decisions",
      consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<String> decide(
      @PathVariable String projectId,
      @PathVariable String approvalId,
      @RequestBody(required = false) JsonNode body,
      Authentication authentication) {
    JsonNode request =
        JsonBodies.object(body, "body", Set.of("decisionId", "decision", "actionDigest"));
    Approval approval =
        governance.decide(
            JsonResponses.caller(authentication),
            projectId,
            approvalId,
            JsonBodies.string(request, "decisionId", "decisionId"),
            JsonBodies.string(request, "decision", "decision"),
            JsonBodies.string(request, "actionDigest", "actionDigest"));
    AuditLog.event("governance.decided")
        .with("projectId", approval.projectId())
        .with("userId", JsonResponses.caller(authentication).userId())
        .with("approvalId", approval.approvalId())
        .with("proposalId", approval.proposalId())
        .with("decisionId", approval.decisionId())
        .with("decision", approval.decision() == null ? null : approval.decision().wireName())
        .with("decidedBy", approval.decidedBy())
        .with("state", approval.state().wireName())
        .with("actionDigest", approval.actionDigest().value())
        .log();
    return json(200, views.approval(approval));
  }

  @PostMapping(
      path = BASE + "/proposals/{proposalId}/inspections",
      consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<String> inspect(
      @PathVariable String projectId,
      @PathVariable String proposalId,
      @RequestBody(required = false) JsonNode body,
      Authentication authentication) {
    JsonNode request = JsonBodies.object(body, "body", Set.of("inspectionId"));
    Inspection inspection =
        governance.inspect(
            JsonResponses.caller(authentication),
            projectId,
            proposalId,
            JsonBodies.string(request, "inspectionId", "inspectionId"));
    ObjectNode out = views.object();
    out.set("proposal", views.proposal(inspection.proposal()));
    out.set("approval", views.approval(inspection.approval()));
    return json(200, out);
  }

  @GetMapping(BASE + "/proposals")
  ResponseEntity<String> list(
      @PathVariable String projectId,
      @RequestParam(name = "state", required = false) String state,
      @RequestParam(name = "limit", required = false) String limit,
      @RequestParam(name = "cursor", required = false) String cursor,
      Authentication authentication) {
    ProposalPage page =
        governance.listProposals(
            JsonResponses.caller(authentication),
            projectId,
            state,
            JsonBodies.optionalIntParameter(limit, "limit"),
            cursor,
            requestId());
    ObjectNode out = views.object();
    ArrayNode items = out.putArray("items");
    page.items().forEach(p -> items.add(views.proposal(p)));
    out.put("nextCursor", page.nextCursor());
    return json(200, out);
  }

  @GetMapping(BASE + "/proposals/{proposalId}")
  ResponseEntity<String> proposal(
      @PathVariable String projectId,
      @PathVariable String proposalId,
      Authentication authentication) {
    return json(
        200,
        views.proposal(
            governance.proposal(
                JsonResponses.caller(authentication), projectId, proposalId, requestId())));
  }

  @GetMapping(BASE + "/approvals/{approvalId}")
  ResponseEntity<String> approval(
      @PathVariable String projectId,
      @PathVariable String approvalId,
      Authentication authentication) {
    return json(
        200,
        views.approval(
            governance.approval(
                JsonResponses.caller(authentication), projectId, approvalId, requestId())));
  }

  /** A fresh id per read: the receipt of its inspect quota unit (a GET names no request id). */
  private static String requestId() {
    return "req-" + UUID.randomUUID();
  }

  private ResponseEntity<String> json(int status, Object node) {
    return JsonResponses.json(status, views.write(node));
  }
}
