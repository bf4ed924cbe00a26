package dev.qinglong.app.governance;

import static dev.qinglong.app.http.OpenApiDocument.Answer.CONFLICT;
import static dev.qinglong.app.http.OpenApiDocument.Answer.CREATED;
import static dev.qinglong.app.http.OpenApiDocument.Answer.QUOTA;

import dev.qinglong.app.governance.GovernanceJson.ApprovalPolicyRequest;
import dev.qinglong.app.governance.GovernanceJson.ApprovalPolicyView;
import dev.qinglong.app.governance.GovernanceJson.ApprovalView;
import dev.qinglong.app.governance.GovernanceJson.DecisionRequest;
import dev.qinglong.app.governance.GovernanceJson.InspectionRequest;
import dev.qinglong.app.governance.GovernanceJson.InspectionView;
import dev.qinglong.app.governance.GovernanceJson.ProposalPageView;
import dev.qinglong.app.governance.GovernanceJson.ProposalView;
import dev.qinglong.app.governance.GovernanceJson.ProposeRequest;
import dev.qinglong.app.http.AuditLog;
import dev.qinglong.app.http.JsonAnswers;
import dev.qinglong.app.http.OpenApiDocument;
import dev.qinglong.app.http.OpenApiDocument.Answers;
import dev.qinglong.app.http.OpenApiDocument.Paged;
import dev.qinglong.app.http.QueryParameters;
import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import dev.qinglong.core.governance.Approval;
import dev.qinglong.core.governance.ApprovalPolicy;
import dev.qinglong.core.governance.Inspection;
import dev.qinglong.core.governance.PluginPackageGovernance;
import dev.qinglong.core.governance.Proposal;
import dev.qinglong.core.governance.ProposalPage;
import dev.qinglong.core.governance.ProposeResult;
import dev.qinglong.core.kernel.Limited;
import dev.qinglong.core.kernel.Principal;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.UUID;
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
 * Plugin-package governance routes. The bodies are typed records; every value is checked by the
 * core ({@link PluginPackageGovernance}), and every answer carries the rate-limit fields of the
 * management quota decision that admitted it.
 */
@RestController
@ConditionalOnRole({Role.ALL, Role.WRITER})
@Tag(name = "plugin-packages")
public record GovernanceController(PluginPackageGovernance governance) {
  static final String BASE = "/v1/projects/{projectId}/plugin-packages";

  @Operation(
      operationId = "propose",
      summary = "Propose a plugin-package action (needs package.manage).",
      description =
          "actionRef is the idempotency identity. Consumes one unit of the management quota"
              + " plugin-package.propose under actionRef.")
  @Answers({CREATED, CONFLICT, QUOTA})
  @PostMapping(path = BASE + "/proposals", consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<ProposalView> propose(
      @PathVariable String projectId, @RequestBody ProposeRequest body, Principal caller) {
    Limited<ProposeResult> result =
        governance.propose(caller, projectId, body.actionRef(), body.toAction());
    Proposal proposal = result.result().proposal();
    boolean created = result.result().created();
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
        .with("replay", !created)
        .log();
    return JsonAnswers.createdOrReplayed(
        created,
        "/v1/projects/" + projectId + "/plugin-packages/proposals/" + proposal.proposalId(),
        ProposalView.of(proposal),
        result);
  }

  @Operation(
      operationId = "decide",
      summary = "Approve or reject a pending approval (needs approval.decide; not the proposer).",
      description =
          "decisionId is the idempotency identity; actionDigest must be the proposal's. Each"
              + " approver decides once; one reject rejects, the requiredApprovals-th approve"
              + " approves (and only then does the publication worker publish). Consumes one unit"
              + " of the management quota plugin-package.decide under decisionId.")
  @Answers({CONFLICT, QUOTA})
  @PostMapping(
      path = BASE + "/approvals/{approvalId}/decisions",
      consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<ApprovalView> decide(
      @PathVariable String projectId,
      @PathVariable String approvalId,
      @RequestBody DecisionRequest body,
      Principal caller) {
    Limited<Approval> result =
        governance.decide(
            caller, projectId, approvalId, body.decisionId(), body.decision(), body.actionDigest());
    Approval approval = result.result();
    AuditLog.event("governance.decided")
        .with("projectId", approval.projectId())
        .with("userId", caller.userId())
        .with("approvalId", approval.approvalId())
        .with("proposalId", approval.proposalId())
        .with("decisionId", body.decisionId())
        .with("decision", body.decision())
        .with("state", approval.state().wireName())
        .with("approvals", approval.approvals())
        .with("requiredApprovals", approval.requiredApprovals())
        .with("actionDigest", approval.actionDigest().value())
        .log();
    return JsonAnswers.ok(ApprovalView.of(approval), result);
  }

  @Operation(
      operationId = "inspect",
      summary = "Inspect a proposal and its approval (needs package.read or approval.decide).",
      description =
          "Consumes one unit of the management quota plugin-package.inspect under inspectionId.")
  @Answers({CONFLICT, QUOTA})
  @PostMapping(
      path = BASE + "/proposals/{proposalId}/inspections",
      consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<InspectionView> inspect(
      @PathVariable String projectId,
      @PathVariable String proposalId,
      @RequestBody InspectionRequest body,
      Principal caller) {
    Limited<Inspection> result =
        governance.inspect(caller, projectId, proposalId, body.inspectionId());
    return JsonAnswers.ok(InspectionView.of(result.result()), result);
  }

  @Operation(
      operationId = "listProposals",
      summary =
          "List the Project's proposals, oldest first (needs package.read, package.manage or"
              + " approval.decide, or a global administrator).",
      description =
          "A keyset page in (createdAt, proposalId) order: stable while proposals are added or"
              + " decided. Consumes one unit of the management quota plugin-package.inspect under"
              + " a fresh request id.")
  @Answers({QUOTA})
  @Paged(
      max = PluginPackageGovernance.MAX_PAGE,
      byDefault = PluginPackageGovernance.DEFAULT_PAGE,
      cursorLength = PluginPackageGovernance.MAX_CURSOR_LENGTH)
  @GetMapping(BASE + "/proposals")
  ResponseEntity<ProposalPageView> list(
      @PathVariable String projectId,
      @Parameter(
              description = "Only proposals in this state; omit for every state.",
              schema = @Schema(ref = OpenApiDocument.STATE))
          @RequestParam(name = "state", required = false)
          String state,
      @RequestParam(name = "limit", required = false) String limit,
      @RequestParam(name = "cursor", required = false) String cursor,
      Principal caller) {
    Limited<ProposalPage> result =
        governance.listProposals(
            caller,
            projectId,
            state,
            QueryParameters.wholeNumber(limit, "limit"),
            cursor,
            requestId());
    return JsonAnswers.ok(ProposalPageView.of(result.result()), result);
  }

  @Operation(
      operationId = "getProposal",
      summary =
          "One proposal (needs package.read, package.manage or approval.decide, or a global"
              + " administrator).",
      description = "Consumes one unit of plugin-package.inspect under a fresh request id.")
  @Answers({CONFLICT, QUOTA})
  @GetMapping(BASE + "/proposals/{proposalId}")
  ResponseEntity<ProposalView> proposal(
      @PathVariable String projectId, @PathVariable String proposalId, Principal caller) {
    Limited<Proposal> result = governance.proposal(caller, projectId, proposalId, requestId());
    return JsonAnswers.ok(ProposalView.of(result.result()), result);
  }

  @Operation(
      operationId = "getApproval",
      summary =
          "One approval (needs package.read, package.manage or approval.decide, or a global"
              + " administrator).",
      description = "Consumes one unit of plugin-package.inspect under a fresh request id.")
  @Answers({CONFLICT, QUOTA})
  @GetMapping(BASE + "/approvals/{approvalId}")
  ResponseEntity<ApprovalView> approval(
      @PathVariable String projectId, @PathVariable String approvalId, Principal caller) {
    Limited<Approval> result = governance.approval(caller, projectId, approvalId, requestId());
    return JsonAnswers.ok(ApprovalView.of(result.result()), result);
  }

  @Operation(
      operationId = "putApprovalPolicy",
      summary = "Set how many approvers the Project's proposals need (needs project.admin).",
      description =
          "requiredApprovals distinct approvers (1-5, never the proposer) must approve; one reject"
              + " rejects. Appends a new immutable revision unless unchanged. A proposal binds the"
              + " number in force when it was proposed. Not counted by the management quota.")
  @PutMapping(path = BASE + "/approval-policy", consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<ApprovalPolicyView> putApprovalPolicy(
      @PathVariable String projectId, @RequestBody ApprovalPolicyRequest body, Principal caller) {
    ApprovalPolicy policy =
        governance.putApprovalPolicy(caller, projectId, body.requiredApprovals());
    AuditLog.event("governance.approval_policy_set")
        .with("projectId", policy.projectId())
        .with("userId", caller.userId())
        .with("revision", policy.revision())
        .with("requiredApprovals", policy.requiredApprovals())
        .log();
    return JsonAnswers.ok(ApprovalPolicyView.of(policy));
  }

  @Operation(
      operationId = "getApprovalPolicy",
      summary =
          "The Project's approval policy in force (needs any permission in the Project); revision"
              + " 0 is the default of one approval.")
  @GetMapping(BASE + "/approval-policy")
  ResponseEntity<ApprovalPolicyView> approvalPolicy(
      @PathVariable String projectId, Principal caller) {
    return JsonAnswers.ok(ApprovalPolicyView.of(governance.approvalPolicy(caller, projectId)));
  }

  /** A fresh id per read: the receipt of its inspect quota unit (a GET names no request id). */
  private static String requestId() {
    return "req-" + UUID.randomUUID();
  }
}
