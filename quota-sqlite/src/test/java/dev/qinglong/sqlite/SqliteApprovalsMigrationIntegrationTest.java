package dev.qinglong.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.core.governance.Approval;
import dev.qinglong.core.governance.ApprovalDecision;
import dev.qinglong.core.governance.Decision;
import dev.qinglong.core.governance.DecisionCommand;
import dev.qinglong.core.governance.PluginPackageAction;
import dev.qinglong.core.governance.ProposalState;
import dev.qinglong.jdbc.JdbcGovernanceStore;
import dev.qinglong.testkit.MigrationChecksums;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Base V8 on a database that ran V1 … V7: every approval needs one approver, each decided approval
 * gets its one decision from its deciding columns, and from then on the triggers refuse an approval
 * ended without its recorded decisions and any change to a decision or a policy revision.
 */
class SqliteApprovalsMigrationIntegrationTest {
  private static final String DIGEST = "sha256:" + "1".repeat(64);
  private static final String PROJECT = "prj-v8";

  @TempDir Path dir;

  @Test
  void v8BackfillsTheDecisionsOfDecidedApprovalsAndGuardsTheNewRules() throws SQLException {
    try (HikariDataSource ds = SqliteDatabase.open(dir.resolve("v8.db"))) {
      Flyway.configure()
          .dataSource(ds)
          .locations(SqliteDatabase.MIGRATIONS)
          .target("7")
          .load()
          .migrate();
      stored(ds, "approved", "approved", "d-a", "approve", "bob", 20L);
      stored(ds, "rejected", "rejected", "d-r", "reject", "carol", 21L);
      stored(ds, "pending", "pending", null, null, null, null);

      assertThat(SqliteDatabase.migrate(ds))
          .isEqualTo(MigrationChecksums.sha256("db/sqlite").size() - 7);

      JdbcGovernanceStore store = new JdbcGovernanceStore(ds, SqliteDialect.INSTANCE);
      Approval approved = store.findApproval(PROJECT, "apr-approved").orElseThrow();
      assertThat(approved.requiredApprovals()).isEqualTo(1);
      assertThat(approved.state()).isEqualTo(ProposalState.APPROVED);
      assertThat(approved.decisions())
          .containsExactly(new ApprovalDecision("d-a", Decision.APPROVE, "bob", 20L));
      assertThat(store.findApproval(PROJECT, "apr-rejected").orElseThrow().decisions())
          .containsExactly(new ApprovalDecision("d-r", Decision.REJECT, "carol", 21L));
      Approval pending = store.findApproval(PROJECT, "apr-pending").orElseThrow();
      assertThat(pending.requiredApprovals()).isEqualTo(1);
      assertThat(pending.decisions()).isEmpty();
      assertThat(count(ds, "SELECT count(*) FROM plugin_package_approval_decisions")).isEqualTo(2);

      // A decision id of a backfilled decision stays taken in the Project.
      assertThat(
              store.recordDecision(
                  new DecisionCommand(
                      PROJECT, "apr-pending", "d-a", Decision.APPROVE, "dave", 30L)))
          .contains(pending);

      // Ending an approval without its recorded decision is refused by the triggers.
      assertThatThrownBy(
              () ->
                  update(
                      ds,
                      "UPDATE plugin_package_approvals SET state = 'approved', decision_id = 'd-x',"
                          + " decision = 'approve', decided_by = 'dave', decided_at_ms = 30"
                          + " WHERE approval_id = 'apr-pending'"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("approved needs its recorded approves");
      assertThatThrownBy(
              () ->
                  update(
                      ds,
                      "UPDATE plugin_package_approvals SET state = 'rejected', decision_id = 'd-x',"
                          + " decision = 'reject', decided_by = 'dave', decided_at_ms = 30"
                          + " WHERE approval_id = 'apr-pending'"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("rejected needs its recorded reject");
      assertThatThrownBy(
              () ->
                  update(
                      ds,
                      "UPDATE plugin_package_approvals SET required_approvals = 2"
                          + " WHERE approval_id = 'apr-pending'"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("required_approvals never changes");
      // Decisions and policy revisions are append-only; none is added to a decided approval.
      assertThatThrownBy(
              () -> update(ds, "UPDATE plugin_package_approval_decisions SET decided_at_ms = 1"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("never changed");
      assertThatThrownBy(() -> update(ds, "DELETE FROM plugin_package_approval_decisions"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("never deleted");
      assertThatThrownBy(
              () ->
                  update(
                      ds,
                      "INSERT INTO plugin_package_approval_decisions VALUES"
                          + " ('prj-v8', 'apr-approved', 'd-late', 'approve', 'dave', 'alice', 40)"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("not pending");
      store.putApprovalPolicy(PROJECT, 2, "admin");
      assertThatThrownBy(
              () ->
                  update(ds, "UPDATE plugin_package_approval_policies SET required_approvals = 5"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("never changed");
      assertThatThrownBy(() -> update(ds, "DELETE FROM plugin_package_approval_policies"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("never deleted");

      // What the store does is what the triggers allow.
      Approval decided =
          store
              .recordDecision(
                  new DecisionCommand(PROJECT, "apr-pending", "d-p", Decision.APPROVE, "dave", 31L))
              .orElseThrow();
      assertThat(decided.state()).isEqualTo(ProposalState.APPROVED);
      assertThat(decided.decisions())
          .containsExactly(new ApprovalDecision("d-p", Decision.APPROVE, "dave", 31L));
    }
  }

  /** A proposal and its approval as V7 stored them, in {@code state}. */
  private static void stored(
      HikariDataSource ds,
      String name,
      String state,
      String decisionId,
      String decision,
      String decidedBy,
      Long decidedAtMs)
      throws SQLException {
    PluginPackageAction action = PluginPackageAction.of("install", "pkg-" + name, "1.0.0", DIGEST);
    try (Connection c = ds.getConnection();
        PreparedStatement p =
            c.prepareStatement(
                "INSERT INTO plugin_package_proposals VALUES"
                    + " (?, ?, ?, ?, 'install', ?, '1.0.0', ?, ?, 'alice', ?, 10, 10)");
        PreparedStatement a =
            c.prepareStatement(
                "INSERT INTO plugin_package_approvals VALUES"
                    + " (?, ?, ?, ?, 'alice', ?, ?, ?, ?, ?, 10)")) {
      p.setString(1, PROJECT);
      p.setString(2, "prp-" + name);
      p.setString(3, "apr-" + name);
      p.setString(4, "ref-" + name);
      p.setString(5, "pkg-" + name);
      p.setString(6, DIGEST);
      p.setString(7, action.digest().value());
      p.setString(8, state);
      p.executeUpdate();
      a.setString(1, PROJECT);
      a.setString(2, "apr-" + name);
      a.setString(3, "prp-" + name);
      a.setString(4, action.digest().value());
      a.setString(5, state);
      a.setString(6, decisionId);
      a.setString(7, decision);
      a.setString(8, decidedBy);
      a.setObject(9, decidedAtMs);
      a.executeUpdate();
    }
  }

  private static long count(HikariDataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void update(HikariDataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.executeUpdate();
    }
  }
}
