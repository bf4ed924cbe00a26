package dev.qinglong.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.core.governance.Approval;
import dev.qinglong.core.governance.ApprovalDecision;
import dev.qinglong.core.governance.Decision;
import dev.qinglong.core.governance.DecisionCommand;
import dev.qinglong.core.governance.PluginPackageAction;
import dev.qinglong.core.governance.ProposalState;
import dev.qinglong.jdbc.JdbcGovernanceStore;
import dev.qinglong.testkit.MigrationChecksums;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * Base V10 on a database that ran V1 … V9: every approval needs one approver, and each decided
 * approval gets its one decision from its deciding columns, so the replaced guard holds for it and
 * the store (as the package manager) reads and decides as before.
 */
class PostgresApprovalsMigrationIntegrationTest {
  private static final String DIGEST = "sha256:" + "1".repeat(64);
  private static final String PROJECT = "prj-v10";

  @Test
  void v10BackfillsTheDecisionsOfDecidedApprovals() throws SQLException {
    TestDatabase database = PostgresTestServer.get().createDatabase("approvals_v10");
    HikariDataSource manager = null;
    try (HikariDataSource owner = database.newDataSource(2)) {
      PostgresLogins.bootstrap(owner);
      Flyway.configure()
          .configuration(PostgresMigrations.flyway(owner).getConfiguration())
          .target("9")
          .load()
          .migrate();
      stored(owner, "approved", "approve", "d-a", "bob", 20L);
      stored(owner, "rejected", "reject", "d-r", "carol", 21L);
      stored(owner, "pending", null, null, null, null);

      assertThat(PostgresMigrations.migrate(owner))
          .isEqualTo(MigrationChecksums.sha256("db/postgres").size() - 9);

      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(database.jdbcUrl());
      config.setUsername(PostgresLogins.PACKAGE_MANAGER);
      config.setSchema(PostgresMigrations.SCHEMA);
      config.setMaximumPoolSize(1);
      manager = new HikariDataSource(config);
      JdbcGovernanceStore store = new JdbcGovernanceStore(manager, PostgresDialect.INSTANCE);
      Approval approved = store.findApproval(PROJECT, "apr-approved").orElseThrow();
      assertThat(approved.requiredApprovals()).isEqualTo(1);
      assertThat(approved.state()).isEqualTo(ProposalState.APPROVED);
      assertThat(approved.decisionId()).isEqualTo("d-a");
      assertThat(approved.decisions())
          .containsExactly(new ApprovalDecision("d-a", Decision.APPROVE, "bob", 20L));
      assertThat(store.findApproval(PROJECT, "apr-rejected").orElseThrow().decisions())
          .containsExactly(new ApprovalDecision("d-r", Decision.REJECT, "carol", 21L));
      Approval pending = store.findApproval(PROJECT, "apr-pending").orElseThrow();
      assertThat(pending.requiredApprovals()).isEqualTo(1);
      assertThat(pending.decisions()).isEmpty();

      // A backfilled decision id stays taken; a new one decides the pending approval.
      assertThat(
              store.recordDecision(
                  new DecisionCommand(
                      PROJECT, "apr-pending", "d-a", Decision.APPROVE, "dave", 30L)))
          .contains(pending);
      Approval decided =
          store
              .recordDecision(
                  new DecisionCommand(PROJECT, "apr-pending", "d-p", Decision.APPROVE, "dave", 31L))
              .orElseThrow();
      assertThat(decided.state()).isEqualTo(ProposalState.APPROVED);
      assertThat(decided.decisions())
          .containsExactly(new ApprovalDecision("d-p", Decision.APPROVE, "dave", 31L));
    } finally {
      if (manager != null) {
        manager.close();
      }
    }
  }

  /**
   * A proposal and its approval as V9 stored them: inserted pending, then decided (the V5 guards
   * allow only that path).
   */
  private static void stored(
      HikariDataSource owner,
      String name,
      String decision,
      String decisionId,
      String decidedBy,
      Long decidedAtMs)
      throws SQLException {
    PluginPackageAction action = PluginPackageAction.of("install", "pkg-" + name, "1.0.0", DIGEST);
    String digest = action.digest().value();
    try (Connection c = owner.getConnection()) {
      update(
          c,
          "INSERT INTO qinglong.plugin_package_proposals VALUES"
              + " (?, ?, ?, ?, 'install', ?, '1.0.0', ?, ?, 'alice', 'pending', 10, 10)",
          PROJECT,
          "prp-" + name,
          "apr-" + name,
          "ref-" + name,
          "pkg-" + name,
          DIGEST,
          digest);
      update(
          c,
          "INSERT INTO qinglong.plugin_package_approvals (project_id, approval_id, proposal_id,"
              + " action_digest, proposed_by, state, created_at_ms)"
              + " VALUES (?, ?, ?, ?, 'alice', 'pending', 10)",
          PROJECT,
          "apr-" + name,
          "prp-" + name,
          digest);
      // A pending one stays as inserted.
      if (decision != null) {
        String state = decision.equals("approve") ? "approved" : "rejected";
        update(
            c,
            "UPDATE qinglong.plugin_package_approvals SET state = ?, decision_id = ?, decision = ?,"
                + " decided_by = ?, decided_at_ms = ? WHERE project_id = ? AND approval_id = ?",
            state,
            decisionId,
            decision,
            decidedBy,
            decidedAtMs,
            PROJECT,
            "apr-" + name);
        update(
            c,
            "UPDATE qinglong.plugin_package_proposals SET state = ?, updated_at_ms = ?"
                + " WHERE project_id = ? AND proposal_id = ?",
            state,
            decidedAtMs,
            PROJECT,
            "prp-" + name);
      }
    }
  }

  private static void update(Connection c, String sql, Object... parameters) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        ps.setObject(i + 1, parameters[i]);
      }
      ps.executeUpdate();
    }
  }
}
