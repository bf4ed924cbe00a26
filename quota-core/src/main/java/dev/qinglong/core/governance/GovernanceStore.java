package dev.qinglong.core.governance;

import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.core.kernel.StoreUnavailableException;
import java.util.List;
import java.util.Optional;

/**
 * Durable proposals and approvals. Every lookup is scoped by Project: an object of another Project
 * is simply not found. Every method throws {@link StoreUnavailableException} when the store cannot
 * give a definite answer.
 */
public interface GovernanceStore {

  /**
   * Inserts the proposal and its pending approval in one transaction unless the Project already has
   * a proposal with the same {@code actionRef}. The approval's {@code requiredApprovals} is stored
   * as given (the caller read it from {@link #approvalPolicy}).
   *
   * @return the stored proposal and {@code created=true} if this call inserted it; otherwise the
   *     existing proposal for that actionRef and {@code created=false} (the caller compares digests
   *     to tell an exact replay from a conflicting one)
   */
  ProposeResult createIfAbsent(Proposal proposal, Approval approval);

  /** The proposal with that id in that Project, or empty. */
  Optional<Proposal> findProposal(String projectId, String proposalId);

  /** The approval with that id in that Project, or empty. */
  Optional<Approval> findApproval(String projectId, String approvalId);

  /**
   * The proposal with that id in that Project together with the approval it names, or empty if the
   * Project has no such proposal. The approval is the one with the proposal's {@code approvalId} in
   * the same Project, or null if there is none (the caller treats a missing or mismatched approval
   * as a store fault).
   *
   * <p>The default reads the two rows one after the other, as {@link #findProposal} and {@link
   * #findApproval}; an adapter may override it with one statement (one round trip, one consistent
   * snapshot), which is what the inspect route needs on every request.
   */
  default Optional<Inspection> findProposalWithApproval(String projectId, String proposalId) {
    Optional<Proposal> proposal = findProposal(projectId, proposalId);
    if (proposal.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        new Inspection(
            proposal.get(), findApproval(projectId, proposal.get().approvalId()).orElse(null)));
  }

  /**
   * A page of the Project's proposals in ({@code createdAtMs}, {@code proposalId}) order, strictly
   * after {@code after} (null: from the start), only those in {@code state} (null: any state).
   *
   * @param limit at most this many, {@code >= 1}
   */
  List<Proposal> listProposals(String projectId, ProposalState state, ProposalKey after, int limit);

  /**
   * Records the decision, in one transaction, if the approval is still pending, the decision id is
   * not yet used in the Project and the decider (never the proposer) has not decided this approval.
   * A {@code reject} ends the approval as rejected; the {@code requiredApprovals}-th {@code
   * approve} ends it as approved; either way the approval's deciding columns and the proposal's
   * state follow in the same transaction. Any other approve leaves it pending with one more
   * decision.
   *
   * @return the approval as stored after the call, with every decision: with this command's if it
   *     was recorded, unchanged if it was already decided, the decider had decided it or the
   *     decision id was taken (the caller compares to tell an exact replay from a conflict); empty
   *     if the approval does not exist in the Project
   */
  Optional<Approval> recordDecision(DecisionCommand command);

  /** The Project's latest approval policy revision, or empty if it never set one. */
  Optional<ApprovalPolicy> approvalPolicy(String projectId);

  /**
   * Appends a revision of the Project's approval policy, on the database clock, unless the latest
   * revision already requires {@code requiredApprovals} (then it is returned unchanged).
   *
   * @return the revision in force after the call
   */
  ApprovalPolicy putApprovalPolicy(String projectId, int requiredApprovals, String setBy);

  /**
   * Approved install/upgrade proposals (those with an artifact digest that was uploaded into the
   * proposal's Project, see {@link #recordArtifactUpload}) that are not yet published, over all
   * Projects, in (projectId, proposalId) order strictly after the given key: a keyset page for the
   * publication worker. Pass empty strings to start from the beginning.
   *
   * @param limit at most this many, {@code >= 1}
   */
  List<Proposal> listApprovedUnpublished(String afterProjectId, String afterProposalId, int limit);

  /**
   * Moves an approved install/upgrade proposal to {@code published}, only if its artifact was
   * uploaded into the proposal's Project. Idempotent: a proposal that is already published (or not
   * approved, absent, or whose artifact the Project never uploaded) is left as it is.
   *
   * @return {@code true} if this call published it, {@code false} if nothing changed
   */
  boolean markPublished(String projectId, String proposalId, long publishedAtMs);

  /**
   * Whether the Project has a published proposal for this artifact digest: the download routes
   * serve only published artifacts, and only in a Project that published them.
   */
  boolean isArtifactPublished(String projectId, Sha256Digest artifactDigest);

  /**
   * Records that the Project uploaded this artifact (insert, or refresh size and time of an earlier
   * upload into the same Project). Artifacts are per Project: only an uploaded digest is published
   * for the Project's proposals and so served in it; another Project's upload of the same bytes
   * counts for nothing here.
   */
  void recordArtifactUpload(ArtifactUpload upload);

  /** The Project's upload of this artifact, or empty if the Project never uploaded it. */
  Optional<ArtifactUpload> findArtifactUpload(String projectId, Sha256Digest artifactDigest);

  /**
   * Whether any proposal, in any Project and any state, names this artifact digest: the clean-up of
   * unreferenced artifacts deletes only what this answers {@code false} for (the content store is
   * shared by all Projects).
   */
  boolean isArtifactReferenced(Sha256Digest artifactDigest);
}
