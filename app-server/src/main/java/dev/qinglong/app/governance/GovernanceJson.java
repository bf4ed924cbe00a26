package dev.qinglong.app.governance;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.qinglong.core.governance.Approval;
import dev.qinglong.core.governance.Inspection;
import dev.qinglong.core.governance.PluginPackageAction;
import dev.qinglong.core.governance.Proposal;
import dev.qinglong.core.governance.ProposalPage;
import dev.qinglong.core.policy.MemberPage;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectMember;
import dev.qinglong.core.quota.OperationUsage;
import dev.qinglong.core.quota.QuotaUsage;
import java.time.Instant;
import java.util.List;

/**
 * The wire shapes of the governance, member and management-quota routes: request bodies bound by
 * Jackson (unknown members, duplicate members and wrong JSON types refused by the mapper's
 * configuration, see {@code application.properties}), and answers written by it. Values are checked
 * once, by the core, when the request is turned into a core call.
 */
public final class GovernanceJson {
  private GovernanceJson() {}

  /** {@code POST …/plugin-packages/proposals}. */
  public record ProposeRequest(String actionRef, ActionBody action) {
    /** The action, or null if the body has none (the core answers {@code action} is required). */
    PluginPackageAction toAction() {
      return action == null
          ? null
          : PluginPackageAction.of(
              action.type(), action.packageName(), action.version(), action.artifactDigest());
    }
  }

  /** A plugin-package action as a client sends it. */
  public record ActionBody(
      String type,
      @JsonProperty("package") String packageName,
      String version,
      String artifactDigest) {}

  /** {@code POST …/approvals/{approvalId}/decisions}. */
  public record DecisionRequest(String decisionId, String decision, String actionDigest) {}

  /** {@code POST …/proposals/{proposalId}/inspections}. */
  public record InspectionRequest(String inspectionId) {}

  /** {@code PUT …/members/{userId}}: the member's whole set of permissions. */
  public record MemberRequest(List<String> permissions) {}

  /** A plugin-package action as stored. */
  public record ActionView(
      String type,
      @JsonProperty("package") String packageName,
      String version,
      String artifactDigest) {
    static ActionView of(PluginPackageAction a) {
      return new ActionView(
          a.type().wireName(),
          a.packageName(),
          a.version(),
          a.artifactDigest() == null ? null : a.artifactDigest().value());
    }
  }

  public record ProposalView(
      String proposalId,
      String approvalId,
      String projectId,
      String actionRef,
      ActionView action,
      String actionDigest,
      String proposedBy,
      String state,
      long createdAtMs,
      long updatedAtMs,
      String createdAt,
      String updatedAt) {
    static ProposalView of(Proposal p) {
      return new ProposalView(
          p.proposalId(),
          p.approvalId(),
          p.projectId(),
          p.actionRef(),
          ActionView.of(p.action()),
          p.actionDigest().value(),
          p.proposedBy(),
          p.state().wireName(),
          p.createdAtMs(),
          p.updatedAtMs(),
          time(p.createdAtMs()),
          time(p.updatedAtMs()));
    }
  }

  public record ApprovalView(
      String approvalId,
      String proposalId,
      String projectId,
      String actionDigest,
      String proposedBy,
      String state,
      String decisionId,
      String decision,
      String decidedBy,
      Long decidedAtMs,
      String decidedAt,
      long createdAtMs,
      String createdAt) {
    static ApprovalView of(Approval a) {
      boolean decided = a.decisionId() != null;
      return new ApprovalView(
          a.approvalId(),
          a.proposalId(),
          a.projectId(),
          a.actionDigest().value(),
          a.proposedBy(),
          a.state().wireName(),
          decided ? a.decisionId() : null,
          decided ? a.decision().wireName() : null,
          decided ? a.decidedBy() : null,
          decided ? a.decidedAtMs() : null,
          decided ? time(a.decidedAtMs()) : null,
          a.createdAtMs(),
          time(a.createdAtMs()));
    }
  }

  public record InspectionView(ProposalView proposal, ApprovalView approval) {
    static InspectionView of(Inspection i) {
      return new InspectionView(ProposalView.of(i.proposal()), ApprovalView.of(i.approval()));
    }
  }

  public record ProposalPageView(List<ProposalView> items, String nextCursor) {
    static ProposalPageView of(ProposalPage page) {
      return new ProposalPageView(
          page.items().stream().map(ProposalView::of).toList(), page.nextCursor());
    }
  }

  public record MemberView(String projectId, String userId, List<String> permissions) {
    static MemberView of(ProjectMember m) {
      return new MemberView(
          m.projectId(), m.userId(), m.permissions().stream().map(Permission::wireName).toList());
    }
  }

  public record MemberListView(String projectId, List<MemberView> members, String nextCursor) {
    static MemberListView of(String projectId, MemberPage page) {
      return new MemberListView(
          projectId, page.items().stream().map(MemberView::of).toList(), page.nextCursor());
    }
  }

  public record OperationQuotaView(
      String operation,
      int limit,
      int used,
      int remaining,
      Long windowStartMs,
      String windowStart,
      Long resetAtMs,
      String resetAt,
      Long resetSeconds) {
    static OperationQuotaView of(OperationUsage op) {
      return new OperationQuotaView(
          op.operation().wireName(),
          op.limit(),
          op.used(),
          op.remaining(),
          op.windowStartedAtMs(),
          time(op.windowStartedAtMs()),
          op.resetAtMs(),
          time(op.resetAtMs()),
          op.resetSeconds());
    }
  }

  public record ManagementQuotaView(
      String projectId,
      String userId,
      boolean enabled,
      long windowMs,
      Long databaseNowMs,
      String databaseNow,
      List<OperationQuotaView> operations) {
    static ManagementQuotaView of(String projectId, String userId, QuotaUsage usage) {
      return new ManagementQuotaView(
          projectId,
          userId,
          usage.enabled(),
          usage.windowMs(),
          usage.databaseNowMs(),
          time(usage.databaseNowMs()),
          usage.operations().stream().map(OperationQuotaView::of).toList());
    }
  }

  private static String time(Long ms) {
    return ms == null ? null : Instant.ofEpochMilli(ms).toString();
  }
}
