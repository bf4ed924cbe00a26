package dev.qinglong.core.governance;

import dev.qinglong.core.kernel.ConflictException;
import dev.qinglong.core.kernel.ForbiddenException;
import dev.qinglong.core.kernel.IdempotencyKeyReusedException;
import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.Limited;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.kernel.RateLimit;
import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectPolicy;
import dev.qinglong.core.quota.ManagementQuota;
import dev.qinglong.core.quota.QuotaExceededException;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.core.quota.ReceiptId;
import dev.qinglong.core.quota.RequestDigest;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * Plugin-package governance (docs/design.md#four-eyes-governance): propose, decide (four eyes) and
 * inspect.
 *
 * <p>Every operation runs in the same order: validate and normalise → Project Policy → durable
 * quota under the request's own idempotency identity → mutate or read. So a malformed or
 * unauthorised request never creates or consumes a bucket, and a quota rejection never mutates.
 *
 * <p>Every method returns its result with the management quota's rate limit after the decision
 * ({@link Limited}), for the caller's answer to report. Every method may throw {@link
 * ValidationException} (400), {@link ForbiddenException} (403), {@link ConflictException} (409;
 * {@link IdempotencyKeyReusedException} for an id reused on a different request), {@link
 * QuotaExceededException} (429) and {@link StoreUnavailableException} (503).
 */
public final class PluginPackageGovernance {
  private final ProjectPolicy policy;
  private final ManagementQuota quota;
  private final GovernanceStore store;
  private final Clock clock;
  private final Supplier<String> randomIds;

  public PluginPackageGovernance(
      ProjectPolicy policy, ManagementQuota quota, GovernanceStore store, Clock clock) {
    this(policy, quota, store, clock, () -> UUID.randomUUID().toString());
  }

  public PluginPackageGovernance(
      ProjectPolicy policy,
      ManagementQuota quota,
      GovernanceStore store,
      Clock clock,
      Supplier<String> randomIds) {
    this.policy = Objects.requireNonNull(policy);
    this.quota = Objects.requireNonNull(quota);
    this.store = Objects.requireNonNull(store);
    this.clock = Objects.requireNonNull(clock);
    this.randomIds = Objects.requireNonNull(randomIds);
  }

  /**
   * Proposes {@code action} under {@code actionRef}. Needs {@code package.manage}.
   *
   * @return the new proposal ({@code created=true}), or the existing one if this is an exact replay
   *     of the actionRef
   * @throws IdempotencyKeyReusedException if the actionRef already names a different action, or the
   *     same action proposed by another user (an id is bound to its caller)
   */
  public Limited<ProposeResult> propose(
      Principal caller, String projectId, String actionRef, PluginPackageAction action) {
    Identifiers.require("projectId", projectId);
    Identifiers.require("actionRef", actionRef);
    ValidationException.required("action", action);
    policy.requireAny(caller, projectId, Permission.PACKAGE_MANAGE);
    Sha256Digest digest = action.digest();
    // The actionRef names this action: the same ref with another action is a reused key.
    List<RateLimit> limits =
        consume(caller, projectId, QuotaOperation.PROPOSE, actionRef, digest.value());

    long now = clock.millis();
    String suffix = randomIds.get();
    Proposal proposal =
        new Proposal(
            "prp-" + suffix,
            "apr-" + suffix,
            projectId,
            actionRef,
            action,
            digest,
            caller.userId(),
            ProposalState.PENDING,
            now,
            now);
    int required =
        store
            .approvalPolicy(projectId)
            .map(ApprovalPolicy::requiredApprovals)
            .orElse(ApprovalPolicy.DEFAULT_REQUIRED_APPROVALS);
    Approval approval = Approval.pending(proposal, required);
    ProposeResult result = store.createIfAbsent(proposal, approval);
    if (!result.created() && !result.proposal().actionDigest().equals(digest)) {
      // Outside the quota window the bucket no longer remembers the ref; the proposal does.
      throw new IdempotencyKeyReusedException("actionRef already used for a different action");
    }
    if (!result.created() && !result.proposal().proposedBy().equals(caller.userId())) {
      // The actionRef names one request, and the caller is part of it: another user's ref is a
      // reused key, never a replay that hands out that user's proposal.
      throw new IdempotencyKeyReusedException("actionRef already used for a different request");
    }
    return new Limited<>(result, limits);
  }

  /**
   * Records {@code decision} on the approval. Needs {@code approval.decide} and must not be the
   * proposer; each approver decides an approval once. One {@code reject} rejects; the approval is
   * approved with the {@code requiredApprovals}-th {@code approve} (the number bound when it was
   * proposed). An exact replay of the same decisionId returns the approval as it is now.
   *
   * @throws IdempotencyKeyReusedException if the decisionId was used on another approval, or on
   *     this one with another decision, decider or {@code actionDigest}
   * @throws ConflictException if the approval does not exist in the Project, is no longer pending,
   *     was already decided by the caller under another decisionId, or {@code actionDigest} differs
   */
  public Limited<Approval> decide(
      Principal caller,
      String projectId,
      String approvalId,
      String decisionId,
      String decision,
      String actionDigest) {
    Identifiers.require("projectId", projectId);
    Identifiers.require("approvalId", approvalId);
    Identifiers.require("decisionId", decisionId);
    Decision verdict = Decision.fromWire(ValidationException.required("decision", decision));
    Sha256Digest digest = Sha256Digest.parse("actionDigest", actionDigest);

    policy.requireAny(caller, projectId, Permission.APPROVAL_DECIDE);
    // Reading the approval is only allowed after the caller proved a permission in the Project.
    Approval current = store.findApproval(projectId, approvalId).orElseThrow(ProposalsOnly::gone);
    if (current.proposedBy().equals(caller.userId())) {
      throw new ForbiddenException("four-eyes: the proposer cannot decide");
    }
    // The decisionId names (approval, decision, actionDigest): another of these is a reused key.
    List<RateLimit> limits =
        consume(
            caller,
            projectId,
            QuotaOperation.DECIDE,
            decisionId,
            approvalId,
            verdict.wireName(),
            digest.value());

    Optional<ApprovalDecision> replayed = current.decisionUnder(decisionId);
    if (replayed.isPresent()) {
      // Decided under this id before: an exact replay, or the id reused for another request.
      if (!sameDecision(replayed.get(), verdict, caller)
          || !current.actionDigest().equals(digest)) {
        throw new IdempotencyKeyReusedException("decisionId already used for a different request");
      }
      return new Limited<>(current, limits);
    }
    if (!current.actionDigest().equals(digest)) {
      throw new ConflictException("actionDigest does not match the approval");
    }
    refuseSecondDecision(current, caller);
    DecisionCommand command =
        new DecisionCommand(
            projectId, approvalId, decisionId, verdict, caller.userId(), clock.millis());
    Approval after = store.recordDecision(command).orElseThrow(ProposalsOnly::gone);
    Optional<ApprovalDecision> recorded = after.decisionUnder(decisionId);
    if (recorded.isPresent()) {
      // Recorded by this call, or by a concurrent exact replay of it.
      if (!sameDecision(recorded.get(), verdict, caller)) {
        throw new IdempotencyKeyReusedException("decisionId already used for a different request");
      }
      return new Limited<>(after, limits);
    }
    // Nothing recorded: a concurrent decision ended the approval or was the caller's own, or the
    // Project already used this decisionId on another approval.
    refuseSecondDecision(after, caller);
    throw new IdempotencyKeyReusedException("decisionId already used on another approval");
  }

  private static boolean sameDecision(ApprovalDecision d, Decision verdict, Principal caller) {
    return d.decision() == verdict && d.decidedBy().equals(caller.userId());
  }

  /** An approver decides once, and only while the approval is pending. */
  private static void refuseSecondDecision(Approval approval, Principal caller) {
    if (!approval.pending()) {
      throw new ConflictException("approval already decided");
    }
    if (approval.hasDecided(caller.userId())) {
      throw new ConflictException("this approver already decided the approval");
    }
  }

  /**
   * Sets how many distinct approvers the Project's next proposals need. Needs {@code
   * project.admin}. A proposal keeps the number in force when it was proposed. Not counted by the
   * management quota (like the other policy writes).
   *
   * @throws ValidationException if {@code requiredApprovals} is outside 1..5
   */
  public ApprovalPolicy putApprovalPolicy(
      Principal caller, String projectId, long requiredApprovals) {
    Identifiers.require("projectId", projectId);
    int n = ApprovalPolicy.requireRequiredApprovals(requiredApprovals);
    policy.requireAny(caller, projectId, Permission.PROJECT_ADMIN);
    return store.putApprovalPolicy(projectId, n, caller.userId());
  }

  /**
   * The Project's approval policy in force: its latest revision, or the default (one approval,
   * revision 0). Needs some permission in the Project (an unknown Project and a foreign one are the
   * same 403).
   */
  public ApprovalPolicy approvalPolicy(Principal caller, String projectId) {
    Identifiers.require("projectId", projectId);
    if (policy.permissions(caller, projectId).isEmpty()) {
      throw new ForbiddenException("no permission in project");
    }
    return store.approvalPolicy(projectId).orElseGet(() -> ApprovalPolicy.defaultFor(projectId));
  }

  /**
   * Reads a proposal with its approval. Needs {@code package.manage} or {@code approval.decide};
   * consumes inspect quota under {@code inspectionId} before reading.
   *
   * @throws IdempotencyKeyReusedException if the inspectionId was spent on another proposal in the
   *     current quota window (nothing counted, nothing read)
   * @throws ConflictException if the proposal does not exist in the Project
   */
  public Limited<Inspection> inspect(
      Principal caller, String projectId, String proposalId, String inspectionId) {
    Identifiers.require("projectId", projectId);
    Identifiers.require("proposalId", proposalId);
    Identifiers.require("inspectionId", inspectionId);
    policy.requireAny(caller, projectId, Permission.PACKAGE_MANAGE, Permission.APPROVAL_DECIDE);
    // The inspectionId names one read of one proposal: not a pass for reading others.
    List<RateLimit> limits =
        consume(caller, projectId, QuotaOperation.INSPECT, inspectionId, proposalId);

    Inspection found =
        store.findProposalWithApproval(projectId, proposalId).orElseThrow(ProposalsOnly::gone);
    Proposal proposal = found.proposal();
    Approval approval = found.approval();
    if (!proposal.projectId().equals(projectId) || !proposal.proposalId().equals(proposalId)) {
      throw new StoreUnavailableException("proposal read returned a row it was not asked for");
    }
    if (approval == null
        || !approval.projectId().equals(projectId)
        || !approval.approvalId().equals(proposal.approvalId())
        || !approval.proposalId().equals(proposal.proposalId())
        || !approval.actionDigest().equals(proposal.actionDigest())) {
      throw new StoreUnavailableException("proposal and approval bindings disagree");
    }
    return new Limited<>(found, limits);
  }

  /** The longest proposal-list cursor accepted (an issued one is far shorter). */
  public static final int MAX_CURSOR_LENGTH = 256;

  /** The largest page {@link #listProposals} returns. */
  public static final int MAX_PAGE = 200;

  /** The page size when the caller gives none. */
  public static final int DEFAULT_PAGE = 50;

  /**
   * One page of the Project's proposals, oldest first. Needs {@code package.read}, {@code
   * package.manage} or {@code approval.decide}; consumes one inspect quota unit under {@code
   * requestId} (a fresh id per read: a list is no replayable request).
   *
   * @param state {@code pending|approved|rejected|published}, or null for every state
   * @param limit 1..{@value #MAX_PAGE}, or null for {@value #DEFAULT_PAGE}
   * @param cursor null for the first page, else a {@code nextCursor} this service issued
   */
  public Limited<ProposalPage> listProposals(
      Principal caller,
      String projectId,
      String state,
      Integer limit,
      String cursor,
      String requestId) {
    Identifiers.require("projectId", projectId);
    ProposalState wanted = state == null ? null : stateFilter(state);
    int size = limit == null ? DEFAULT_PAGE : limit;
    if (size < 1 || size > MAX_PAGE) {
      throw new ValidationException("limit", "must be between 1 and " + MAX_PAGE);
    }
    ProposalKey after = ProposalCursor.decode(cursor);
    requireReader(caller, projectId);
    List<RateLimit> limits =
        consume(
            caller,
            projectId,
            QuotaOperation.INSPECT,
            requestId,
            "list",
            String.valueOf(state),
            Integer.toString(size),
            cursor);
    List<Proposal> rows = store.listProposals(projectId, wanted, after, size + 1);
    for (Proposal p : rows) {
      if (!p.projectId().equals(projectId) || (wanted != null && p.state() != wanted)) {
        throw new StoreUnavailableException("proposal list returned a row it was not asked for");
      }
    }
    if (rows.size() <= size) {
      return new Limited<>(new ProposalPage(rows, null), limits);
    }
    List<Proposal> page = rows.subList(0, size);
    return new Limited<>(
        new ProposalPage(page, ProposalCursor.encode(ProposalKey.of(page.get(size - 1)))), limits);
  }

  /**
   * One proposal. Needs {@code package.read}, {@code package.manage} or {@code approval.decide};
   * consumes one inspect quota unit under {@code requestId} before reading.
   *
   * @throws ConflictException if the proposal does not exist in the Project
   */
  public Limited<Proposal> proposal(
      Principal caller, String projectId, String proposalId, String requestId) {
    return inspect(caller, projectId, "proposal", proposalId, requestId, store::findProposal);
  }

  /**
   * One approval. Needs {@code package.read}, {@code package.manage} or {@code approval.decide};
   * consumes one inspect quota unit under {@code requestId} before reading.
   *
   * @throws ConflictException if the approval does not exist in the Project
   */
  public Limited<Approval> approval(
      Principal caller, String projectId, String approvalId, String requestId) {
    return inspect(caller, projectId, "approval", approvalId, requestId, store::findApproval);
  }

  /** One {@code kind} object by its id, after the reader's permission and one inspect unit. */
  private <T> Limited<T> inspect(
      Principal caller,
      String projectId,
      String kind,
      String id,
      String requestId,
      BiFunction<String, String, Optional<T>> find) {
    Identifiers.require("projectId", projectId);
    Identifiers.require(kind + "Id", id);
    requireReader(caller, projectId);
    List<RateLimit> limits =
        consume(caller, projectId, QuotaOperation.INSPECT, requestId, kind, id);
    return new Limited<>(find.apply(projectId, id).orElseThrow(ProposalsOnly::gone), limits);
  }

  /**
   * One unit of {@code operation} for the caller under {@code receipt}, spent on the request that
   * {@code target} names: the limits it leaves.
   */
  private List<RateLimit> consume(
      Principal caller,
      String projectId,
      QuotaOperation operation,
      String receipt,
      String... target) {
    RequestDigest request = RequestDigest.of(operation, target);
    return quota
        .consume(projectId, caller.userId(), operation, new ReceiptId(receipt), request)
        .rateLimits();
  }

  /** A reader of the Project's proposals and approvals (or a global administrator). */
  private void requireReader(Principal caller, String projectId) {
    policy.requireRead(
        caller,
        projectId,
        Permission.PACKAGE_READ,
        Permission.PACKAGE_MANAGE,
        Permission.APPROVAL_DECIDE);
  }

  private static ProposalState stateFilter(String state) {
    for (ProposalState s : ProposalState.values()) {
      if (s.wireName().equals(state)) {
        return s;
      }
    }
    throw new ValidationException("state", "must be pending, approved, rejected or published");
  }

  private static final class ProposalsOnly {
    // One message for "absent" and "in another Project": the two must be indistinguishable.
    static ConflictException gone() {
      return new ConflictException("no such object in this project");
    }
  }
}
