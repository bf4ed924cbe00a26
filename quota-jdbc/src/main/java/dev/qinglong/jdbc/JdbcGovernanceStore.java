package dev.qinglong.jdbc;

import dev.qinglong.core.governance.ActionType;
import dev.qinglong.core.governance.Approval;
import dev.qinglong.core.governance.Decision;
import dev.qinglong.core.governance.DecisionCommand;
import dev.qinglong.core.governance.GovernanceStore;
import dev.qinglong.core.governance.PluginPackageAction;
import dev.qinglong.core.governance.Proposal;
import dev.qinglong.core.governance.ProposalState;
import dev.qinglong.core.governance.ProposeResult;
import dev.qinglong.core.model.Sha256Digest;
import dev.qinglong.core.model.StoreUnavailableException;
import dev.qinglong.core.model.ValidationException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * {@link GovernanceStore} over JDBC. Each write is one short transaction; the dialect's transaction
 * mode (SQLite {@code BEGIN IMMEDIATE}, PostgreSQL READ COMMITTED with row locks and unique
 * indexes) settles races. Adapters subclass it with their SQL.
 */
public abstract class JdbcGovernanceStore implements GovernanceStore {
  // Portable SQL (PostgreSQL and SQLite >= 3.15 both compare row values).
  private static final String APPROVED_UNPUBLISHED =
      """
      SELECT project_id, proposal_id, approval_id, action_ref, action_type, package_name,
             package_version, artifact_digest, action_digest, proposed_by, state,
             created_at_ms, updated_at_ms
      FROM plugin_package_proposals
      WHERE state = 'approved' AND artifact_digest IS NOT NULL
        AND (project_id, proposal_id) > (?, ?)
      ORDER BY project_id, proposal_id
      LIMIT ?
      """;
  private static final String MARK_PUBLISHED =
      """
      UPDATE plugin_package_proposals SET state = 'published', updated_at_ms = ?
      WHERE project_id = ? AND proposal_id = ? AND state = 'approved'
        AND artifact_digest IS NOT NULL
      """;
  private static final String ARTIFACT_PUBLISHED =
      """
      SELECT 1 FROM plugin_package_proposals
      WHERE project_id = ? AND artifact_digest = ? AND state = 'published'
      LIMIT 1
      """;

  private final DataSource dataSource;
  private final GovernanceSql sql;
  private final String storeName;

  protected JdbcGovernanceStore(DataSource dataSource, GovernanceSql sql, String storeName) {
    this.dataSource = Objects.requireNonNull(dataSource);
    this.sql = Objects.requireNonNull(sql);
    this.storeName = Objects.requireNonNull(storeName);
  }

  @Override
  public ProposeResult createIfAbsent(Proposal p, Approval a) {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        int inserted;
        try (PreparedStatement ps = c.prepareStatement(sql.insertProposal())) {
          ps.setString(1, p.projectId());
          ps.setString(2, p.proposalId());
          ps.setString(3, p.approvalId());
          ps.setString(4, p.actionRef());
          ps.setString(5, p.action().type().wireName());
          ps.setString(6, p.action().packageName());
          ps.setString(7, p.action().version());
          if (p.action().artifactDigest() == null) {
            ps.setNull(8, Types.VARCHAR);
          } else {
            ps.setString(8, p.action().artifactDigest().value());
          }
          ps.setString(9, p.actionDigest().value());
          ps.setString(10, p.proposedBy());
          ps.setString(11, p.state().wireName());
          ps.setLong(12, p.createdAtMs());
          ps.setLong(13, p.updatedAtMs());
          inserted = ps.executeUpdate();
        }
        if (inserted == 1) {
          try (PreparedStatement ps = c.prepareStatement(sql.insertApproval())) {
            ps.setString(1, a.projectId());
            ps.setString(2, a.approvalId());
            ps.setString(3, a.proposalId());
            ps.setString(4, a.actionDigest().value());
            ps.setString(5, a.proposedBy());
            ps.setString(6, a.state().wireName());
            ps.setLong(7, a.createdAtMs());
            ps.executeUpdate();
          }
          c.commit();
          return new ProposeResult(p, true);
        }
        Proposal existing =
            queryProposal(c, sql.proposalByRef(), p.projectId(), p.actionRef())
                .orElseThrow(
                    () -> new StoreUnavailableException("proposal vanished after a conflict"));
        c.commit();
        return new ProposeResult(existing, false);
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw JdbcStoreException.unavailable(storeName, "proposal create", e);
    }
  }

  @Override
  public Optional<Proposal> findProposal(String projectId, String proposalId) {
    try (Connection c = dataSource.getConnection()) {
      return queryProposal(c, sql.proposalById(), projectId, proposalId);
    } catch (SQLException e) {
      throw JdbcStoreException.unavailable(storeName, "proposal read", e);
    }
  }

  @Override
  public Optional<Approval> findApproval(String projectId, String approvalId) {
    try (Connection c = dataSource.getConnection()) {
      return queryApproval(c, projectId, approvalId);
    } catch (SQLException e) {
      throw JdbcStoreException.unavailable(storeName, "approval read", e);
    }
  }

  @Override
  public Optional<Approval> recordDecision(DecisionCommand d) {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        int decided;
        try (PreparedStatement ps = c.prepareStatement(sql.decideApproval())) {
          ps.setString(1, d.decision().resultingState().wireName());
          ps.setString(2, d.decisionId());
          ps.setString(3, d.decision().wireName());
          ps.setString(4, d.decidedBy());
          ps.setLong(5, d.decidedAtMs());
          ps.setString(6, d.projectId());
          ps.setString(7, d.approvalId());
          ps.setString(8, d.projectId());
          ps.setString(9, d.decisionId());
          decided = ps.executeUpdate();
        }
        if (decided == 1) {
          try (PreparedStatement ps = c.prepareStatement(sql.followDecision())) {
            ps.setString(1, d.decision().resultingState().wireName());
            ps.setLong(2, d.decidedAtMs());
            ps.setString(3, d.projectId());
            ps.setString(4, d.projectId());
            ps.setString(5, d.approvalId());
            if (ps.executeUpdate() != 1) {
              throw new StoreUnavailableException("approval without its proposal");
            }
          }
        }
        Optional<Approval> after = queryApproval(c, d.projectId(), d.approvalId());
        c.commit();
        return after;
      } catch (SQLException e) {
        c.rollback();
        if (!JdbcStoreException.isConstraintViolation(e)) {
          throw e;
        }
        // A concurrent decision took this decision id on another approval: nothing recorded.
        c.setAutoCommit(true);
        return queryApproval(c, d.projectId(), d.approvalId());
      } catch (RuntimeException e) {
        c.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw JdbcStoreException.unavailable(storeName, "decision", e);
    }
  }

  @Override
  public List<Proposal> listApprovedUnpublished(
      String afterProjectId, String afterProposalId, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be >= 1, was " + limit);
    }
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(APPROVED_UNPUBLISHED)) {
      ps.setString(1, Objects.requireNonNull(afterProjectId, "afterProjectId"));
      ps.setString(2, Objects.requireNonNull(afterProposalId, "afterProposalId"));
      ps.setInt(3, limit);
      List<Proposal> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          try {
            out.add(mapProposal(rs));
          } catch (ValidationException | IllegalStateException e) {
            throw new StoreUnavailableException("corrupt proposal row", e);
          }
        }
      }
      return out;
    } catch (SQLException e) {
      throw JdbcStoreException.unavailable(storeName, "approved proposals read", e);
    }
  }

  @Override
  public boolean markPublished(String projectId, String proposalId, long publishedAtMs) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(MARK_PUBLISHED)) {
      ps.setLong(1, publishedAtMs);
      ps.setString(2, projectId);
      ps.setString(3, proposalId);
      return ps.executeUpdate() == 1;
    } catch (SQLException e) {
      throw JdbcStoreException.unavailable(storeName, "proposal publish", e);
    }
  }

  @Override
  public boolean isArtifactPublished(String projectId, Sha256Digest artifactDigest) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(ARTIFACT_PUBLISHED)) {
      ps.setString(1, projectId);
      ps.setString(2, artifactDigest.value());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    } catch (SQLException e) {
      throw JdbcStoreException.unavailable(storeName, "published artifact read", e);
    }
  }

  private Optional<Proposal> queryProposal(Connection c, String sql, String projectId, String id)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, projectId);
      ps.setString(2, id);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        try {
          return Optional.of(mapProposal(rs));
        } catch (ValidationException | IllegalStateException e) {
          throw new StoreUnavailableException("corrupt proposal row", e);
        }
      }
    }
  }

  private static Proposal mapProposal(ResultSet rs) throws SQLException {
    String artifact = rs.getString("artifact_digest");
    PluginPackageAction action =
        new PluginPackageAction(
            ActionType.fromWire(rs.getString("action_type")),
            rs.getString("package_name"),
            rs.getString("package_version"),
            artifact == null ? null : new Sha256Digest(artifact));
    Sha256Digest digest = new Sha256Digest(rs.getString("action_digest"));
    if (!digest.equals(action.digest())) {
      throw new StoreUnavailableException("stored proposal does not match its action digest");
    }
    return new Proposal(
        rs.getString("proposal_id"),
        rs.getString("approval_id"),
        rs.getString("project_id"),
        rs.getString("action_ref"),
        action,
        digest,
        rs.getString("proposed_by"),
        ProposalState.fromWire(rs.getString("state")),
        rs.getLong("created_at_ms"),
        rs.getLong("updated_at_ms"));
  }

  private Optional<Approval> queryApproval(Connection c, String projectId, String id)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.approvalById())) {
      ps.setString(1, projectId);
      ps.setString(2, id);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        try {
          return Optional.of(mapApproval(rs));
        } catch (ValidationException | IllegalStateException e) {
          throw new StoreUnavailableException("corrupt approval row", e);
        }
      }
    }
  }

  private static Approval mapApproval(ResultSet rs) throws SQLException {
    String decision = rs.getString("decision");
    long decidedAt = rs.getLong("decided_at_ms");
    Long decidedAtMs = rs.wasNull() ? null : decidedAt;
    return new Approval(
        rs.getString("approval_id"),
        rs.getString("proposal_id"),
        rs.getString("project_id"),
        new Sha256Digest(rs.getString("action_digest")),
        rs.getString("proposed_by"),
        ProposalState.fromWire(rs.getString("state")),
        rs.getString("decision_id"),
        decision == null ? null : Decision.fromWire(decision),
        rs.getString("decided_by"),
        decidedAtMs,
        rs.getLong("created_at_ms"));
  }
}
