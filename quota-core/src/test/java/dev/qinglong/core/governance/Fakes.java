package dev.qinglong.core.governance;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectMember;
import dev.qinglong.core.policy.ProjectPolicyStore;
import dev.qinglong.core.quota.EffectiveLimit;
import dev.qinglong.core.quota.QuotaDecision;
import dev.qinglong.core.quota.QuotaKey;
import dev.qinglong.core.quota.ReceiptId;
import dev.qinglong.core.quota.RequestDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Minimal in-memory stores that record every call, so tests can assert the order of effects. */
final class Fakes {
  final List<String> calls = new ArrayList<>();

  final class Policies implements ProjectPolicyStore {
    final Map<String, Set<Permission>> members = new HashMap<>();

    @Override
    public Set<Permission> permissionsOf(String projectId, String userId) {
      calls.add("policy.read");
      return members.getOrDefault(projectId + "/" + userId, Set.of());
    }

    @Override
    public void replaceMember(ProjectMember member) {
      calls.add("policy.write");
      members.put(member.projectId() + "/" + member.userId(), member.permissions());
    }

    @Override
    public List<ProjectMember> members(String projectId) {
      return List.of();
    }

    @Override
    public List<ProjectMember> members(String projectId, String afterUserId, int limit) {
      calls.add("policy.list");
      return List.of();
    }
  }

  final class Quota extends dev.qinglong.core.quota.DecidingOnlyStore {
    /** Per bucket: receipt id → the request digest it was spent on. */
    final Map<QuotaKey, Map<String, String>> buckets = new HashMap<>();

    boolean failing;

    @Override
    public QuotaDecision consume(
        QuotaKey key, ReceiptId receipt, RequestDigest request, int limit, Duration window) {
      calls.add("quota." + key.operation().wireName());
      if (failing) {
        throw new StoreUnavailableException("down");
      }
      Map<String, String> receipts = buckets.computeIfAbsent(key, k -> new LinkedHashMap<>());
      String spentOn = receipts.get(receipt.value());
      if (spentOn != null) {
        return spentOn.equals(request.hex())
            ? new QuotaDecision.Replayed(0, receipts.size(), 0, EffectiveLimit.defaultLimit(limit))
            : new QuotaDecision.KeyReused();
      }
      if (receipts.size() >= limit) {
        return new QuotaDecision.Rejected(7, EffectiveLimit.defaultLimit(limit), 0);
      }
      receipts.put(receipt.value(), request.hex());
      return new QuotaDecision.Allowed(0, receipts.size(), 0, EffectiveLimit.defaultLimit(limit));
    }

    @Override
    public dev.qinglong.core.quota.BucketsSnapshot buckets(
        String projectId, dev.qinglong.core.quota.SubjectType subjectType, String subjectId) {
      calls.add("quota.read");
      return new dev.qinglong.core.quota.BucketsSnapshot(0, Map.of());
    }
  }

  final class Governance implements GovernanceStore {
    final Map<String, Proposal> proposalsByRef = new HashMap<>();
    final Map<String, Approval> approvals = new HashMap<>();
    // As an adapter that reads a proposal with its approval in one statement.
    boolean combinedRead;

    @Override
    public Optional<Inspection> findProposalWithApproval(String projectId, String proposalId) {
      if (!combinedRead) {
        return GovernanceStore.super.findProposalWithApproval(projectId, proposalId);
      }
      calls.add("store.findProposalWithApproval");
      return proposalsByRef.values().stream()
          .filter(p -> p.projectId().equals(projectId) && p.proposalId().equals(proposalId))
          .findFirst()
          .map(p -> new Inspection(p, approvals.get(projectId + "/" + p.approvalId())));
    }

    @Override
    public ProposeResult createIfAbsent(Proposal proposal, Approval approval) {
      calls.add("store.create");
      String ref = proposal.projectId() + "/" + proposal.actionRef();
      Proposal existing = proposalsByRef.get(ref);
      if (existing != null) {
        return new ProposeResult(existing, false);
      }
      proposalsByRef.put(ref, proposal);
      approvals.put(approval.projectId() + "/" + approval.approvalId(), approval);
      return new ProposeResult(proposal, true);
    }

    @Override
    public Optional<Proposal> findProposal(String projectId, String proposalId) {
      calls.add("store.findProposal");
      return proposalsByRef.values().stream()
          .filter(p -> p.projectId().equals(projectId) && p.proposalId().equals(proposalId))
          .findFirst();
    }

    @Override
    public Optional<Approval> findApproval(String projectId, String approvalId) {
      calls.add("store.findApproval");
      return Optional.ofNullable(approvals.get(projectId + "/" + approvalId));
    }

    @Override
    public Optional<Approval> recordDecision(DecisionCommand c) {
      calls.add("store.decide");
      String key = c.projectId() + "/" + c.approvalId();
      Approval a = approvals.get(key);
      if (a == null) {
        return Optional.empty();
      }
      boolean idTaken =
          approvals.values().stream()
              .anyMatch(
                  o ->
                      o.projectId().equals(c.projectId())
                          && o.decisionUnder(c.decisionId()).isPresent());
      if (!a.pending() || idTaken || a.hasDecided(c.decidedBy())) {
        // As the database's keys (project_id, decision_id), (approval, decided_by): nothing.
        return Optional.of(a);
      }
      List<ApprovalDecision> decisions = new ArrayList<>(a.decisions());
      decisions.add(
          new ApprovalDecision(c.decisionId(), c.decision(), c.decidedBy(), c.decidedAtMs()));
      boolean ends =
          c.decision() == Decision.REJECT
              || decisions.stream().filter(d -> d.decision() == Decision.APPROVE).count()
                  == a.requiredApprovals();
      Approval decided =
          new Approval(
              a.approvalId(),
              a.proposalId(),
              a.projectId(),
              a.actionDigest(),
              a.proposedBy(),
              ends ? c.decision().resultingState() : ProposalState.PENDING,
              ends ? c.decisionId() : null,
              ends ? c.decision() : null,
              ends ? c.decidedBy() : null,
              ends ? c.decidedAtMs() : null,
              a.createdAtMs(),
              a.requiredApprovals(),
              decisions);
      approvals.put(key, decided);
      return Optional.of(decided);
    }

    final Map<String, ApprovalPolicy> approvalPolicies = new HashMap<>();

    @Override
    public Optional<ApprovalPolicy> approvalPolicy(String projectId) {
      calls.add("store.approvalPolicy");
      return Optional.ofNullable(approvalPolicies.get(projectId));
    }

    @Override
    public ApprovalPolicy putApprovalPolicy(String projectId, int requiredApprovals, String setBy) {
      calls.add("store.putApprovalPolicy");
      ApprovalPolicy latest = approvalPolicies.get(projectId);
      if (latest != null && latest.requiredApprovals() == requiredApprovals) {
        return latest;
      }
      ApprovalPolicy next =
          new ApprovalPolicy(
              projectId,
              latest == null ? 1 : latest.revision() + 1,
              requiredApprovals,
              setBy,
              1_000L);
      approvalPolicies.put(projectId, next);
      return next;
    }

    final Map<String, ArtifactUpload> uploads = new HashMap<>();

    @Override
    public void recordArtifactUpload(ArtifactUpload upload) {
      uploads.put(upload.projectId() + "/" + upload.digest().value(), upload);
    }

    @Override
    public Optional<ArtifactUpload> findArtifactUpload(
        String projectId, dev.qinglong.core.kernel.Sha256Digest artifactDigest) {
      return Optional.ofNullable(uploads.get(projectId + "/" + artifactDigest.value()));
    }

    @Override
    public java.util.List<Proposal> listApprovedUnpublished(
        String afterProjectId, String afterProposalId, int limit) {
      return proposalsByRef.values().stream()
          .filter(p -> p.state() == ProposalState.APPROVED && p.action().artifactDigest() != null)
          .filter(
              p -> {
                int c = p.projectId().compareTo(afterProjectId);
                return c > 0 || (c == 0 && p.proposalId().compareTo(afterProposalId) > 0);
              })
          .sorted(
              java.util.Comparator.comparing(Proposal::projectId)
                  .thenComparing(Proposal::proposalId))
          .limit(limit)
          .toList();
    }

    @Override
    public List<Proposal> listProposals(
        String projectId, ProposalState state, ProposalKey after, int limit) {
      calls.add("store.listProposals");
      return proposalsByRef.values().stream()
          .filter(p -> p.projectId().equals(projectId))
          .filter(p -> state == null || p.state() == state)
          .sorted(
              java.util.Comparator.comparingLong(Proposal::createdAtMs)
                  .thenComparing(Proposal::proposalId))
          .filter(
              p ->
                  after == null
                      || p.createdAtMs() > after.createdAtMs()
                      || (p.createdAtMs() == after.createdAtMs()
                          && p.proposalId().compareTo(after.proposalId()) > 0))
          .limit(limit)
          .toList();
    }

    @Override
    public boolean markPublished(String projectId, String proposalId, long publishedAtMs) {
      return false;
    }

    @Override
    public boolean isArtifactPublished(
        String projectId, dev.qinglong.core.kernel.Sha256Digest artifactDigest) {
      return false;
    }

    @Override
    public boolean isArtifactReferenced(dev.qinglong.core.kernel.Sha256Digest artifactDigest) {
      return false;
    }
  }
}
