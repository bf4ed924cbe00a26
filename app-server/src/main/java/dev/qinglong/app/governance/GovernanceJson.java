package dev.qinglong.app.governance;

import static dev.qinglong.app.http.OpenApiDocument.ACTION;
import static dev.qinglong.app.http.OpenApiDocument.DECISION;
import static dev.qinglong.app.http.OpenApiDocument.IDENTIFIER;
import static dev.qinglong.app.http.OpenApiDocument.LIMIT_SOURCE;
import static dev.qinglong.app.http.OpenApiDocument.OPERATION;
import static dev.qinglong.app.http.OpenApiDocument.OPERATION_LIMITS;
import static dev.qinglong.app.http.OpenApiDocument.PERMISSION;
import static dev.qinglong.app.http.OpenApiDocument.STATE;
import static io.swagger.v3.oas.annotations.media.Schema.AdditionalPropertiesValue.FALSE;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.qinglong.app.http.OpenApiDocument;
import dev.qinglong.core.governance.Approval;
import dev.qinglong.core.governance.ApprovalDecision;
import dev.qinglong.core.governance.ApprovalPolicy;
import dev.qinglong.core.governance.Inspection;
import dev.qinglong.core.governance.PluginPackageAction;
import dev.qinglong.core.governance.PluginPackageGovernance;
import dev.qinglong.core.governance.Proposal;
import dev.qinglong.core.governance.ProposalPage;
import dev.qinglong.core.kernel.WireNamed;
import dev.qinglong.core.policy.MemberPage;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectMember;
import dev.qinglong.core.policy.ProjectPolicy;
import dev.qinglong.core.quota.ManagementQuotaLimits;
import dev.qinglong.core.quota.ManagementQuotaPolicy;
import dev.qinglong.core.quota.OperationUsage;
import dev.qinglong.core.quota.QuotaLimits;
import dev.qinglong.core.quota.QuotaLimitsRevision;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.core.quota.QuotaPolicyPage;
import dev.qinglong.core.quota.QuotaUsage;
import dev.qinglong.core.quota.ShadowRefusal;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The wire shapes of the governance, member and management-quota routes: request bodies bound by
 * Jackson (unknown members, duplicate members and wrong JSON types refused by the mapper's
 * configuration, see {@code application.properties}), and answers written by it. Values are checked
 * once, by the core, when the request is turned into a core call; the bounds the annotations state
 * for the OpenAPI document are the core's constants (or the shared components of {@link
 * OpenApiDocument}).
 */
public final class GovernanceJson {
  private GovernanceJson() {}

  static final String NEXT_CURSOR =
      "Opaque; pass as cursor for the next page. null on the last page.";

  /** {@code POST …/plugin-packages/proposals}. */
  @Schema(additionalProperties = FALSE)
  public record ProposeRequest(
      @Schema(
              ref = IDENTIFIER,
              description =
                  "Idempotency key: the same actionRef with the same action returns the stored"
                      + " proposal (200); with another action, 409 idempotency_key_reused.")
          String actionRef,
      @Schema(ref = ACTION) ActionBody action) {
    /** The action, or null if the body has none (the core answers {@code action} is required). */
    PluginPackageAction toAction() {
      return action == null
          ? null
          : PluginPackageAction.of(
              action.type(), action.packageName(), action.version(), action.artifactDigest());
    }
  }

  /** A plugin-package action as a client sends it (its schema: {@link OpenApiDocument#ACTION}). */
  public record ActionBody(
      String type,
      @JsonProperty("package") String packageName,
      String version,
      String artifactDigest) {}

  /** {@code POST …/approvals/{approvalId}/decisions}. */
  @Schema(additionalProperties = FALSE)
  public record DecisionRequest(
      @Schema(ref = IDENTIFIER, description = "Idempotency key of the decision.") String decisionId,
      @Schema(ref = DECISION) String decision,
      @Schema(description = "The actionDigest of the proposal the caller decides on.")
          String actionDigest) {}

  /** {@code POST …/proposals/{proposalId}/inspections}. */
  @Schema(additionalProperties = FALSE)
  public record InspectionRequest(
      @Schema(
              ref = IDENTIFIER,
              description = "Idempotency key of the inspection (its quota unit's receipt).")
          String inspectionId) {}

  /** {@code PUT …/members/{userId}}: the member's whole set of permissions. */
  @Schema(additionalProperties = FALSE)
  public record MemberRequest(
      @ArraySchema(schema = @Schema(ref = PERMISSION)) List<String> permissions) {}

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

  @Schema(name = "Proposal")
  public record ProposalView(
      String proposalId,
      String approvalId,
      String projectId,
      String actionRef,
      @Schema(ref = ACTION) ActionView action,
      String actionDigest,
      String proposedBy,
      @Schema(ref = STATE) String state,
      long createdAtMs,
      long updatedAtMs,
      @Schema(format = "date-time") String createdAt,
      @Schema(format = "date-time") String updatedAt) {
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

  /** {@code PUT …/plugin-packages/approval-policy}. */
  @Schema(additionalProperties = FALSE)
  public record ApprovalPolicyRequest(
      @JsonProperty(required = true)
          @Schema(
              minimum = "" + ApprovalPolicy.MIN_REQUIRED_APPROVALS,
              maximum = "" + ApprovalPolicy.MAX_REQUIRED_APPROVALS,
              description =
                  "How many distinct approvers (never the proposer) the Project's next proposals"
                      + " need; one reject rejects.")
          long requiredApprovals) {}

  @Schema(name = "ApprovalPolicy")
  public record ApprovalPolicyView(
      String projectId,
      @Schema(description = "0 while the Project uses the default (one approval).") long revision,
      @Schema(
              minimum = "" + ApprovalPolicy.MIN_REQUIRED_APPROVALS,
              maximum = "" + ApprovalPolicy.MAX_REQUIRED_APPROVALS)
          int requiredApprovals,
      @Schema(types = {"string", "null"}) String setBy,
      @Schema(
              types = {"integer", "null"},
              description = "When the revision was set (database clock).")
          Long setAtMs,
      @Schema(
              types = {"string", "null"},
              format = "date-time")
          String setAt) {
    static ApprovalPolicyView of(ApprovalPolicy p) {
      return new ApprovalPolicyView(
          p.projectId(),
          p.revision(),
          p.requiredApprovals(),
          p.setBy(),
          p.setAtMs(),
          time(p.setAtMs()));
    }
  }

  @Schema(name = "ApprovalDecision")
  public record DecisionView(
      String decisionId,
      @Schema(ref = DECISION) String decision,
      String decidedBy,
      long decidedAtMs,
      @Schema(format = "date-time") String decidedAt) {
    static DecisionView of(ApprovalDecision d) {
      return new DecisionView(
          d.decisionId(),
          d.decision().wireName(),
          d.decidedBy(),
          d.decidedAtMs(),
          time(d.decidedAtMs()));
    }
  }

  @Schema(
      name = "Approval",
      description =
          "decisionId, decision, decidedBy and decidedAt(Ms) are the decision that ended the"
              + " approval (null while pending); decisions lists every decision recorded.")
  public record ApprovalView(
      String approvalId,
      String proposalId,
      String projectId,
      String actionDigest,
      String proposedBy,
      @Schema(ref = STATE) String state,
      @Schema(types = {"string", "null"}) String decisionId,
      @Schema(types = {"string", "null"}) String decision,
      @Schema(types = {"string", "null"}) String decidedBy,
      @Schema(types = {"integer", "null"}) Long decidedAtMs,
      @Schema(
              types = {"string", "null"},
              format = "date-time")
          String decidedAt,
      long createdAtMs,
      @Schema(format = "date-time") String createdAt,
      @Schema(
              minimum = "" + ApprovalPolicy.MIN_REQUIRED_APPROVALS,
              maximum = "" + ApprovalPolicy.MAX_REQUIRED_APPROVALS,
              description = "The approvals this proposal needs, bound when it was proposed.")
          int requiredApprovals,
      @ArraySchema(maxItems = ApprovalPolicy.MAX_REQUIRED_APPROVALS) List<DecisionView> decisions) {
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
          time(a.createdAtMs()),
          a.requiredApprovals(),
          a.decisions().stream().map(DecisionView::of).toList());
    }
  }

  @Schema(name = "Inspection")
  public record InspectionView(ProposalView proposal, ApprovalView approval) {
    static InspectionView of(Inspection i) {
      return new InspectionView(ProposalView.of(i.proposal()), ApprovalView.of(i.approval()));
    }
  }

  @Schema(name = "ProposalPage")
  public record ProposalPageView(
      @ArraySchema(maxItems = PluginPackageGovernance.MAX_PAGE) List<ProposalView> items,
      @Schema(
              types = {"string", "null"},
              description = NEXT_CURSOR)
          String nextCursor) {
    static ProposalPageView of(ProposalPage page) {
      return new ProposalPageView(
          page.items().stream().map(ProposalView::of).toList(), page.nextCursor());
    }
  }

  @Schema(name = "Member")
  public record MemberView(
      String projectId,
      String userId,
      @ArraySchema(schema = @Schema(ref = PERMISSION)) List<String> permissions) {
    static MemberView of(ProjectMember m) {
      return new MemberView(
          m.projectId(), m.userId(), m.permissions().stream().map(Permission::wireName).toList());
    }
  }

  @Schema(name = "MemberList")
  public record MemberListView(
      String projectId,
      @ArraySchema(maxItems = ProjectPolicy.MAX_MEMBERS_PAGE) List<MemberView> members,
      @Schema(
              types = {"string", "null"},
              description = NEXT_CURSOR)
          String nextCursor) {
    static MemberListView of(String projectId, MemberPage page) {
      return new MemberListView(
          projectId, page.items().stream().map(MemberView::of).toList(), page.nextCursor());
    }
  }

  @Schema(name = "OperationQuota")
  public record OperationQuotaView(
      @Schema(ref = OPERATION) String operation,
      @Schema(
              minimum = "1",
              maximum = "" + ManagementQuotaPolicy.MAX_LIMIT,
              description =
                  "The effective limit: the caller's own override, else the Project's policy, else"
                      + " the configured default (limitSource says which).")
          int limit,
      @Schema(ref = LIMIT_SOURCE) String limitSource,
      @Schema(
              types = {"integer", "null"},
              minimum = "1",
              maximum = "" + ManagementQuotaPolicy.MAX_LIMIT,
              description =
                  "The shadow limit in force (the caller's override, else the Project's): counted"
                      + " and reported, never enforced; null for none.")
          Integer shadowLimit,
      @Schema(minimum = "0", maximum = "" + ManagementQuotaPolicy.MAX_LIMIT) int used,
      @Schema(minimum = "0", maximum = "" + ManagementQuotaPolicy.MAX_LIMIT) int remaining,
      @Schema(
              types = {"integer", "null"},
              description =
                  "Start of the current window (database clock); null when no window is open:"
                      + " the next request opens one.")
          Long windowStartMs,
      @Schema(
              types = {"string", "null"},
              format = "date-time")
          String windowStart,
      @Schema(
              types = {"integer", "null"},
              description = "End of the current window: windowStartMs + windowMs.")
          Long resetAtMs,
      @Schema(
              types = {"string", "null"},
              format = "date-time")
          String resetAt,
      @Schema(
              types = {"integer", "null"},
              minimum = "1",
              description = "Whole seconds from databaseNowMs to resetAtMs, rounded up.")
          Long resetSeconds) {
    static OperationQuotaView of(OperationUsage op) {
      return new OperationQuotaView(
          op.operation().wireName(),
          op.limit(),
          op.limitSource().wireName(),
          op.shadowLimit(),
          op.used(),
          op.remaining(),
          op.windowStartedAtMs(),
          time(op.windowStartedAtMs()),
          op.resetAtMs(),
          time(op.resetAtMs()),
          op.resetSeconds());
    }
  }

  @Schema(name = "ManagementQuota")
  public record ManagementQuotaView(
      String projectId,
      String userId,
      @Schema(
              description =
                  "false: qinglong.management-quota.enabled=false; nothing is counted, operations"
                      + " is empty.")
          boolean enabled,
      long windowMs,
      @Schema(
              types = {"integer", "null"},
              description = "The database clock when the buckets were read (null when disabled).")
          Long databaseNowMs,
      @Schema(
              types = {"string", "null"},
              format = "date-time")
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

  /**
   * {@code PUT …/management-quota/policy} and {@code PUT …/management-quota/users/{userId}}: the
   * limits and shadow limits the new revision sets, by operation wire name. An absent (or null)
   * member sets nothing; the same body again writes nothing new.
   */
  @Schema(additionalProperties = FALSE)
  public record ManagementQuotaLimitsRequest(
      @Schema(
              ref = OPERATION_LIMITS,
              types = {"object", "null"},
              description =
                  "Enforced limits per window; an operation left out falls through (a user's"
                      + " override to the Project's policy, the Project's policy to the default).")
          Map<String, Integer> limits,
      @Schema(
              ref = OPERATION_LIMITS,
              types = {"object", "null"},
              description =
                  "Shadow limits: a request over one is still admitted, and counted and reported as"
                      + " one the limit would have refused.")
          Map<String, Integer> shadowLimits) {
    /**
     * The core's limits. An unknown operation is refused without its name (no input is echoed); a
     * missing value and the range are checked by {@link QuotaLimits}.
     */
    QuotaLimits toLimits() {
      return new QuotaLimits(
          operations("limits", limits), operations("shadowLimits", shadowLimits));
    }

    private static Map<QuotaOperation, Integer> operations(
        String member, Map<String, Integer> values) {
      Map<QuotaOperation, Integer> out = new EnumMap<>(QuotaOperation.class);
      if (values != null) {
        values.forEach(
            (name, value) ->
                out.put(
                    WireNamed.requested(
                        QuotaOperation.class, name, member, "names an operation that is not known"),
                    value));
      }
      return out;
    }
  }

  @Schema(
      name = "ManagementQuotaLimits",
      description =
          "One revision of a Project's management-quota policy (userId null) or of one user's"
              + " override in it. Operations it does not set are absent.")
  public record ManagementQuotaLimitsView(
      String projectId,
      @Schema(
              types = {"string", "null"},
              description = "The user the override is for; null for the Project's own policy.")
          String userId,
      @Schema(minimum = "1", description = "Counts from 1 per (Project, user).") long revision,
      @Schema(ref = OPERATION_LIMITS) Map<String, Integer> limits,
      @Schema(ref = OPERATION_LIMITS) Map<String, Integer> shadowLimits,
      String setBy,
      @Schema(description = "When the revision was written (database clock).") long setAtMs,
      @Schema(format = "date-time") String setAt) {
    static ManagementQuotaLimitsView of(QuotaLimitsRevision r) {
      return new ManagementQuotaLimitsView(
          r.projectId(),
          r.userId(),
          r.revision(),
          wire(r.limits().limits()),
          wire(r.limits().shadowLimits()),
          r.setBy(),
          r.setAtMs(),
          time(r.setAtMs()));
    }
  }

  @Schema(name = "ShadowRefusal")
  public record ShadowRefusalView(
      String userId,
      @Schema(ref = OPERATION) String operation,
      @Schema(
              minimum = "1",
              maximum = "" + ManagementQuotaPolicy.MAX_LIMIT,
              description = "Requests admitted in the current window.")
          int used,
      @Schema(minimum = "1", maximum = "" + ManagementQuotaPolicy.MAX_LIMIT) int shadowLimit,
      @Schema(
              minimum = "1",
              maximum = "" + ManagementQuotaPolicy.MAX_LIMIT,
              description = "used - shadowLimit: what the shadow limit would have refused.")
          int wouldHaveRefused,
      @Schema(description = "Start of the window (database clock).") long windowStartMs,
      @Schema(format = "date-time") String windowStart) {
    static ShadowRefusalView of(ShadowRefusal s) {
      return new ShadowRefusalView(
          s.userId(),
          s.operation().wireName(),
          s.consumedCount(),
          s.shadowLimit(),
          s.wouldHaveRefused(),
          s.windowStartedAtMs(),
          time(s.windowStartedAtMs()));
    }
  }

  @Schema(name = "ManagementQuotaPolicy")
  public record ManagementQuotaPolicyView(
      String projectId,
      long windowMs,
      @Schema(
              ref = OPERATION_LIMITS,
              description =
                  "The configured limit of every operation (qinglong.management-quota.limits.*).")
          Map<String, Integer> defaults,
      @Schema(
              types = {"object", "null"},
              description = "The Project's latest revision; null if it never set one.")
          ManagementQuotaLimitsView project,
      @ArraySchema(
              maxItems = ManagementQuotaLimits.MAX_PAGE,
              arraySchema =
                  @Schema(
                      description =
                          "One page of the users whose latest override sets something, in"
                              + " user-id order."))
          List<ManagementQuotaLimitsView> users,
      @Schema(
              types = {"string", "null"},
              description = NEXT_CURSOR)
          String nextCursor,
      @ArraySchema(
              maxItems = ManagementQuotaLimits.MAX_SHADOW_REFUSALS,
              arraySchema =
                  @Schema(
                      description =
                          "Who went past a shadow limit in the current windows, the most over"
                              + " first."))
          List<ShadowRefusalView> shadowRefusals) {
    static ManagementQuotaPolicyView of(String projectId, QuotaPolicyPage page) {
      return new ManagementQuotaPolicyView(
          projectId,
          page.windowMs(),
          wire(page.defaults()),
          page.project().map(ManagementQuotaLimitsView::of).orElse(null),
          page.users().stream().map(ManagementQuotaLimitsView::of).toList(),
          page.nextCursor(),
          page.shadowRefusals().stream().map(ShadowRefusalView::of).toList());
    }
  }

  /** Values by operation wire name, in the operations' order; operations without one left out. */
  private static Map<String, Integer> wire(Map<QuotaOperation, Integer> values) {
    Map<String, Integer> out = new LinkedHashMap<>();
    for (QuotaOperation op : QuotaOperation.values()) {
      Integer value = values.get(op);
      if (value != null) {
        out.put(op.wireName(), value);
      }
    }
    return out;
  }

  private static String time(Long ms) {
    return ms == null ? null : Instant.ofEpochMilli(ms).toString();
  }
}
