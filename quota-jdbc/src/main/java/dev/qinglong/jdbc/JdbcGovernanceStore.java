package dev.qinglong.jdbc;

import dev.qinglong.core.governance.Approval;
import dev.qinglong.core.governance.ApprovalPolicy;
import dev.qinglong.core.governance.ArtifactUpload;
import dev.qinglong.core.governance.DecisionCommand;
import dev.qinglong.core.governance.GovernanceStore;
import dev.qinglong.core.governance.Inspection;
import dev.qinglong.core.governance.Proposal;
import dev.qinglong.core.governance.ProposalKey;
import dev.qinglong.core.governance.ProposalState;
import dev.qinglong.core.governance.ProposeResult;
import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.core.kernel.StoreUnavailableException;
import java.sql.ResultSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * {@link GovernanceStore} over JDBC. Each write is one short transaction; the dialect's transaction
 * mode (SQLite {@code BEGIN IMMEDIATE}, PostgreSQL READ COMMITTED with row locks and unique
 * indexes) settles races. The rows and their statements are in {@link GovernanceRows}.
 */
public final class JdbcGovernanceStore implements GovernanceStore {
  // Portable SQL (PostgreSQL and SQLite >= 3.15 both compare row values).
  private static final String APPROVED_UNPUBLISHED =
      GovernanceRows.PROPOSALS
          + """
          WHERE state = 'approved' AND artifact_digest IS NOT NULL
            AND (project_id, proposal_id) > (?, ?)
            AND EXISTS (SELECT 1 FROM project_artifacts a
                        WHERE a.project_id = plugin_package_proposals.project_id
                          AND a.artifact_digest = plugin_package_proposals.artifact_digest)
          ORDER BY project_id, proposal_id
          LIMIT ?
          """;

  private static final String MARK_PUBLISHED =
      """
      UPDATE plugin_package_proposals SET state = 'published', updated_at_ms = ?
      WHERE project_id = ? AND proposal_id = ? AND state = 'approved'
        AND artifact_digest IS NOT NULL
        AND EXISTS (SELECT 1 FROM project_artifacts a
                    WHERE a.project_id = plugin_package_proposals.project_id
                      AND a.artifact_digest = plugin_package_proposals.artifact_digest)
      """;

  // Artifacts are per Project: the shared content store says nothing about who uploaded what.
  private static final String RECORD_UPLOAD =
      """
      INSERT INTO project_artifacts (project_id, artifact_digest, size_bytes, uploaded_at_ms)
      VALUES (?, ?, ?, ?)
      ON CONFLICT (project_id, artifact_digest)
      DO UPDATE SET size_bytes = excluded.size_bytes, uploaded_at_ms = excluded.uploaded_at_ms
      """;

  private static final String FIND_UPLOAD =
      """
      SELECT project_id, artifact_digest, size_bytes, uploaded_at_ms FROM project_artifacts
      WHERE project_id = ? AND artifact_digest = ?
      """;

  private static final String ARTIFACT_PUBLISHED =
      """
      SELECT 1 FROM plugin_package_proposals
      WHERE project_id = ? AND artifact_digest = ? AND state = 'published'
      LIMIT 1
      """;

  // Any Project, any state (index plugin_package_proposals_artifact_idx).
  private static final String ARTIFACT_REFERENCED =
      """
      SELECT 1 FROM plugin_package_proposals WHERE artifact_digest = ? LIMIT 1
      """;

  // A keyset page in (created_at_ms, proposal_id) order; both are immutable, so pages are stable.
  // "? IS NULL" lets one statement serve the first page and an optional state filter.
  private static final String PROPOSAL_PAGE =
      GovernanceRows.PROPOSALS
          + """
          WHERE project_id = ?
            AND (CAST(? AS text) IS NULL OR state = ?)
            AND (CAST(? AS bigint) IS NULL OR (created_at_ms, proposal_id) > (?, ?))
          ORDER BY created_at_ms, proposal_id
          LIMIT ?
          """;

  private final JdbcTransactions jdbc;
  private final JdbcTransactions policyWrites;
  private final String insertPolicy;
  private final WebhookOutbox outbox;

  /** Everything over {@code dataSource}. */
  public JdbcGovernanceStore(DataSource dataSource, JdbcDialect dialect) {
    this(dataSource, dataSource, dialect);
  }

  /**
   * @param dataSource everything but the approval policy's writes
   * @param policyWrites only {@link #putApprovalPolicy}: a policy write, on PostgreSQL the admin
   *     login's (as the Project Policy's member writes), not the login that proposes and decides
   */
  public JdbcGovernanceStore(DataSource dataSource, DataSource policyWrites, JdbcDialect dialect) {
    this.jdbc = new JdbcTransactions(dataSource, dialect);
    this.policyWrites = new JdbcTransactions(policyWrites, dialect);
    this.insertPolicy = GovernanceRows.insertPolicy(dialect);
    this.outbox = new WebhookOutbox(dialect);
  }

  @Override
  public ProposeResult createIfAbsent(Proposal p, Approval a) {
    return jdbc.inTransaction(
        "proposal create",
        c -> {
          if (GovernanceRows.insertProposal(c, p)) {
            GovernanceRows.insertApproval(c, a);
            // The outbox: approval.pending for every subscribed endpoint, in this transaction.
            outbox.approvalPending(c, p, a);
            return new ProposeResult(p, true);
          }
          Proposal existing =
              GovernanceRows.proposalByRef(c, p.projectId(), p.actionRef())
                  .orElseThrow(
                      () -> new StoreUnavailableException("proposal vanished after a conflict"));
          return new ProposeResult(existing, false);
        });
  }

  @Override
  public Optional<Proposal> findProposal(String projectId, String proposalId) {
    return jdbc.autoCommit(
        "proposal read", c -> GovernanceRows.proposalById(c, projectId, proposalId));
  }

  @Override
  public Optional<Approval> findApproval(String projectId, String approvalId) {
    return jdbc.autoCommit(
        "approval read", c -> GovernanceRows.approvalById(c, projectId, approvalId));
  }

  /** One statement: the proposal joined with the approval it names. */
  @Override
  public Optional<Inspection> findProposalWithApproval(String projectId, String proposalId) {
    return jdbc.autoCommit(
        "proposal read", c -> GovernanceRows.proposalWithApproval(c, projectId, proposalId));
  }

  /**
   * One transaction: lock the pending approval (concurrent decisions of it queue behind this one,
   * see {@link GovernanceRows#lockPending}), record the decision unless the decider or the decision
   * id is taken, and end the approval if this is a reject or its last required approve; the
   * proposal follows, and the outbox gets an {@code approval.decided} event in the same
   * transaction. Then the approval as stored, with every decision.
   */
  @Override
  public Optional<Approval> recordDecision(DecisionCommand d) {
    return jdbc.inTransaction(
        "decision",
        c -> {
          if (GovernanceRows.lockPending(c, d)
              && GovernanceRows.insertDecision(c, d)
              && GovernanceRows.endIfDecided(c, d)) {
            GovernanceRows.followDecision(c, d);
            Approval ended =
                GovernanceRows.approvalById(c, d.projectId(), d.approvalId())
                    .orElseThrow(() -> new StoreUnavailableException("approval vanished"));
            Proposal proposal =
                GovernanceRows.proposalById(c, d.projectId(), ended.proposalId())
                    .orElseThrow(() -> new StoreUnavailableException("approval without proposal"));
            outbox.approvalDecided(c, proposal, ended);
            return Optional.of(ended);
          }
          return GovernanceRows.approvalById(c, d.projectId(), d.approvalId());
        },
        // A constraint refused the decision (a guard of the schema): nothing recorded.
        c -> GovernanceRows.approvalById(c, d.projectId(), d.approvalId()));
  }

  @Override
  public Optional<ApprovalPolicy> approvalPolicy(String projectId) {
    Objects.requireNonNull(projectId, "projectId");
    return jdbc.autoCommit("approval policy read", c -> GovernanceRows.latestPolicy(c, projectId));
  }

  /**
   * Reads the latest revision and appends the next one unless it already requires this number. Two
   * concurrent changes may take the same revision number: the primary key refuses the second and
   * the transaction is tried again, now after the first.
   */
  @Override
  public ApprovalPolicy putApprovalPolicy(String projectId, int requiredApprovals, String setBy) {
    Objects.requireNonNull(projectId, "projectId");
    Objects.requireNonNull(setBy, "setBy");
    ApprovalPolicy.requireRequiredApprovals(requiredApprovals);
    return policyWrites.retryingTransaction(
        "approval policy write",
        c -> {
          Optional<ApprovalPolicy> latest = GovernanceRows.latestPolicy(c, projectId);
          if (latest.isPresent() && latest.get().requiredApprovals() == requiredApprovals) {
            return latest.get();
          }
          long revision = latest.map(ApprovalPolicy::revision).orElse(0L) + 1;
          JdbcRows.update(c, insertPolicy, projectId, revision, requiredApprovals, setBy);
          return GovernanceRows.latestPolicy(c, projectId)
              .orElseThrow(() -> new StoreUnavailableException("approval policy vanished"));
        });
  }

  @Override
  public List<Proposal> listApprovedUnpublished(
      String afterProjectId, String afterProposalId, int limit) {
    return jdbc.list(
        "approved proposals read",
        APPROVED_UNPUBLISHED,
        "proposal",
        GovernanceRows::proposal,
        Objects.requireNonNull(afterProjectId, "afterProjectId"),
        Objects.requireNonNull(afterProposalId, "afterProposalId"),
        JdbcRows.requireLimit(limit));
  }

  @Override
  public List<Proposal> listProposals(
      String projectId, ProposalState state, ProposalKey after, int limit) {
    JdbcRows.requireLimit(limit);
    return jdbc.statement(
        "proposal list",
        PROPOSAL_PAGE,
        ps -> {
          ps.setString(1, Objects.requireNonNull(projectId, "projectId"));
          String wire = state == null ? null : state.wireName();
          ps.setString(2, wire);
          ps.setString(3, wire);
          JdbcRows.setNullableLong(ps, 4, after == null ? null : after.createdAtMs());
          JdbcRows.setNullableLong(ps, 5, after == null ? null : after.createdAtMs());
          ps.setString(6, after == null ? null : after.proposalId());
          ps.setInt(7, limit);
          return JdbcRows.all(ps, "proposal", GovernanceRows::proposal);
        });
  }

  /**
   * One transaction: the state change and, if this call published, a {@code proposal.published}
   * event in the outbox.
   */
  @Override
  public boolean markPublished(String projectId, String proposalId, long publishedAtMs) {
    return jdbc.inTransaction(
        "proposal publish",
        c -> {
          if (JdbcRows.update(c, MARK_PUBLISHED, publishedAtMs, projectId, proposalId) != 1) {
            return false;
          }
          Proposal published =
              GovernanceRows.proposalById(c, projectId, proposalId)
                  .orElseThrow(() -> new StoreUnavailableException("published proposal vanished"));
          outbox.proposalPublished(c, published, publishedAtMs);
          return true;
        });
  }

  @Override
  public boolean isArtifactPublished(String projectId, Sha256Digest artifactDigest) {
    return jdbc.query(
        "published artifact read",
        ARTIFACT_PUBLISHED,
        ResultSet::next,
        projectId,
        artifactDigest.value());
  }

  @Override
  public void recordArtifactUpload(ArtifactUpload upload) {
    jdbc.update(
        "artifact upload record",
        RECORD_UPLOAD,
        upload.projectId(),
        upload.digest().value(),
        upload.sizeBytes(),
        upload.uploadedAtMs());
  }

  @Override
  public Optional<ArtifactUpload> findArtifactUpload(
      String projectId, Sha256Digest artifactDigest) {
    return jdbc.autoCommit(
        "artifact upload read",
        c ->
            Optional.ofNullable(
                JdbcRows.one(
                    c,
                    FIND_UPLOAD,
                    "artifact upload",
                    rs ->
                        new ArtifactUpload(
                            rs.getString(1),
                            Sha256Digest.parse("artifact_digest", rs.getString(2)),
                            rs.getLong(3),
                            rs.getLong(4)),
                    projectId,
                    artifactDigest.value())));
  }

  @Override
  public boolean isArtifactReferenced(Sha256Digest artifactDigest) {
    return jdbc.query(
        "artifact reference read", ARTIFACT_REFERENCED, ResultSet::next, artifactDigest.value());
  }
}
