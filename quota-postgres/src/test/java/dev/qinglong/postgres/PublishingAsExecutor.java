package dev.qinglong.postgres;

import dev.qinglong.core.governance.Approval;
import dev.qinglong.core.governance.DecisionCommand;
import dev.qinglong.core.governance.GovernanceStore;
import dev.qinglong.core.governance.Proposal;
import dev.qinglong.core.governance.ProposeResult;
import dev.qinglong.core.kernel.Sha256Digest;
import java.util.List;
import java.util.Optional;

/**
 * The governance store as the application splits it on PostgreSQL: the management API's writes
 * through {@code ql3_package_manager}, the publication worker's scan and publication through {@code
 * ql3_package_executor} (the only login the V5 guard lets publish).
 */
final class PublishingAsExecutor implements GovernanceStore {
  private final GovernanceStore manager;
  private final GovernanceStore executor;

  PublishingAsExecutor(GovernanceStore manager, GovernanceStore executor) {
    this.manager = manager;
    this.executor = executor;
  }

  @Override
  public ProposeResult createIfAbsent(Proposal proposal, Approval approval) {
    return manager.createIfAbsent(proposal, approval);
  }

  @Override
  public Optional<Proposal> findProposal(String projectId, String proposalId) {
    return manager.findProposal(projectId, proposalId);
  }

  @Override
  public Optional<Approval> findApproval(String projectId, String approvalId) {
    return manager.findApproval(projectId, approvalId);
  }

  @Override
  public List<Proposal> listProposals(
      String projectId,
      dev.qinglong.core.governance.ProposalState state,
      dev.qinglong.core.governance.ProposalKey after,
      int limit) {
    return manager.listProposals(projectId, state, after, limit);
  }

  @Override
  public Optional<Approval> recordDecision(DecisionCommand command) {
    return manager.recordDecision(command);
  }

  @Override
  public Optional<dev.qinglong.core.governance.ApprovalPolicy> approvalPolicy(String projectId) {
    return manager.approvalPolicy(projectId);
  }

  @Override
  public dev.qinglong.core.governance.ApprovalPolicy putApprovalPolicy(
      String projectId, int requiredApprovals, String setBy) {
    return manager.putApprovalPolicy(projectId, requiredApprovals, setBy);
  }

  @Override
  public List<Proposal> listApprovedUnpublished(
      String afterProjectId, String afterProposalId, int limit) {
    return executor.listApprovedUnpublished(afterProjectId, afterProposalId, limit);
  }

  @Override
  public boolean markPublished(String projectId, String proposalId, long publishedAtMs) {
    return executor.markPublished(projectId, proposalId, publishedAtMs);
  }

  @Override
  public boolean isArtifactPublished(String projectId, Sha256Digest artifactDigest) {
    return manager.isArtifactPublished(projectId, artifactDigest);
  }

  @Override
  public void recordArtifactUpload(dev.qinglong.core.governance.ArtifactUpload upload) {
    manager.recordArtifactUpload(upload);
  }

  @Override
  public Optional<dev.qinglong.core.governance.ArtifactUpload> findArtifactUpload(
      String projectId, Sha256Digest artifactDigest) {
    return manager.findArtifactUpload(projectId, artifactDigest);
  }

  @Override
  public boolean isArtifactReferenced(Sha256Digest artifactDigest) {
    return executor.isArtifactReferenced(artifactDigest);
  }
}
