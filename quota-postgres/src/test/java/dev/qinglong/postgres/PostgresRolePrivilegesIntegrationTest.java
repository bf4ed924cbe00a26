package dev.qinglong.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.core.governance.Approval;
import dev.qinglong.core.governance.Decision;
import dev.qinglong.core.governance.DecisionCommand;
import dev.qinglong.core.governance.PluginPackageAction;
import dev.qinglong.core.governance.Proposal;
import dev.qinglong.core.governance.ProposalState;
import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.modelquota.QuotaWindow;
import dev.qinglong.core.quota.EffectiveLimit;
import dev.qinglong.core.quota.LimitSource;
import dev.qinglong.core.quota.QuotaDecision;
import dev.qinglong.core.quota.QuotaKey;
import dev.qinglong.core.quota.QuotaLimits;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.core.quota.ReceiptId;
import dev.qinglong.core.quota.RequestDigest;
import dev.qinglong.jdbc.JdbcGovernanceStore;
import dev.qinglong.jdbc.JdbcManagementQuotaStore;
import dev.qinglong.jdbc.JdbcModelQuotaStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Connects as each ql3_* role and proves what it can and cannot do
 * (docs/design.md#least-privilege-logins).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresRolePrivilegesIntegrationTest {
  private static final String BUCKETS = "plugin_package_management_quota_buckets";
  private static final String INSUFFICIENT_PRIVILEGE = "42501";
  private static final String CHECK_VIOLATION = "23514";
  private static final String PROPOSALS = "qinglong.plugin_package_proposals";
  private static final String APPROVALS = "qinglong.plugin_package_approvals";
  private static final String DECISIONS = "plugin_package_approval_decisions";
  private static final String POLICIES = "plugin_package_approval_policies";
  private static final String LIMIT_REVISIONS = "management_quota_limit_revisions";
  private static final String LIMITS = "management_quota_limits";
  private static final String DIGEST = "sha256:" + "1".repeat(64);
  private static final String OTHER_DIGEST = "sha256:" + "2".repeat(64);
  private static final List<String> OTHERS =
      List.of(
          PostgresLogins.ADMIN,
          PostgresLogins.PACKAGE_EXECUTOR,
          PostgresLogins.RUNTIME,
          PostgresLogins.WORKER_INGRESS);

  private static final List<String> OTHERS_AND_READER =
      java.util.stream.Stream.concat(OTHERS.stream(), java.util.stream.Stream.of("ql3_reader"))
          .toList();

  private PostgresFixture fixture;

  @BeforeAll
  void setUp() {
    fixture = new PostgresFixture("roles", true);
  }

  @AfterAll
  void tearDown() {
    fixture.close();
  }

  @Test
  void packageManagerDecidesQuotaButCannotDeleteOrTruncate() throws SQLException {
    HikariDataSource manager = fixture.rolePool(PostgresLogins.PACKAGE_MANAGER, 1);
    QuotaKey key = QuotaKey.user("prj-roles", "alice", QuotaOperation.PROPOSE);
    QuotaDecision d =
        new JdbcManagementQuotaStore(manager, PostgresDialect.INSTANCE)
            .consume(
                key,
                new ReceiptId("r1"),
                RequestDigest.of(key.operation(), "t"),
                5,
                Duration.ofSeconds(60));
    assertThat(d).isInstanceOf(QuotaDecision.Allowed.class);

    assertDenied(manager, "DELETE FROM " + BUCKETS);
    assertDenied(manager, "TRUNCATE " + BUCKETS);
    assertDenied(manager, "DROP TABLE " + BUCKETS);
    assertDenied(manager, "ALTER TABLE " + BUCKETS + " DROP CONSTRAINT IF EXISTS x");
    assertDenied(manager, "CREATE TABLE qinglong.intruder (id int)");
  }

  @ParameterizedTest
  @ValueSource(strings = {"ql3_admin", "ql3_package_executor", "ql3_runtime", "ql3_reader"})
  void otherRolesCannotTouchTheBuckets(String role) {
    HikariDataSource pool = fixture.rolePool(role, 1);
    assertDenied(pool, "SELECT count(*) FROM " + BUCKETS);
    assertDenied(
        pool,
        "INSERT INTO "
            + BUCKETS
            + " VALUES ('p', 'user', 'u', 'plugin-package.propose', 0, 1, '[\"r\"]', 0)");
    assertDenied(pool, "UPDATE " + BUCKETS + " SET consumed_count = 1");
    assertDenied(pool, "DELETE FROM " + BUCKETS);
    assertDenied(pool, "CREATE TABLE qinglong.intruder (id int)");
  }

  @Test
  void packageExecutorMayOnlyReadProposalsAndChangeTheirState() throws SQLException {
    String executor = PostgresLogins.PACKAGE_EXECUTOR;
    String proposals = "plugin_package_proposals";
    assertThat(hasTablePrivilege(executor, proposals, "SELECT")).isTrue();
    assertThat(hasTablePrivilege(executor, proposals, "INSERT")).isFalse();
    assertThat(
            query(
                "SELECT has_column_privilege('"
                    + executor
                    + "', 'qinglong."
                    + proposals
                    + "', 'state', 'UPDATE')"))
        .isTrue();
    assertThat(
            query(
                "SELECT has_column_privilege('"
                    + executor
                    + "', 'qinglong."
                    + proposals
                    + "', 'action_digest', 'UPDATE')"))
        .isFalse();
    for (String table : List.of("plugin_package_approvals", "project_members")) {
      for (String privilege : List.of("SELECT", "INSERT", "UPDATE")) {
        assertThat(hasTablePrivilege(executor, table, privilege))
            .as(executor + " " + privilege + " " + table)
            .isFalse();
      }
    }
    HikariDataSource pool = fixture.rolePool(executor, 1);
    assertDenied(pool, "UPDATE qinglong." + proposals + " SET action_digest = action_digest");
    assertDenied(pool, "SELECT count(*) FROM qinglong.plugin_package_approvals");
  }

  /** Proposals in each state, created and decided as the service does (ql3_package_manager). */
  private record Governed(
      Proposal pending, Proposal approved, Proposal rejected, Proposal approvedRemove) {}

  private Governed governed(String project) {
    JdbcGovernanceStore manager =
        new JdbcGovernanceStore(
            fixture.rolePool(PostgresLogins.PACKAGE_MANAGER, 1), PostgresDialect.INSTANCE);
    Proposal pending =
        propose(manager, project, "p", PluginPackageAction.of("install", "a", "1", DIGEST));
    Proposal approved =
        propose(manager, project, "a", PluginPackageAction.of("install", "b", "1", DIGEST));
    Proposal rejected =
        propose(manager, project, "r", PluginPackageAction.of("install", "c", "1", DIGEST));
    Proposal remove =
        propose(manager, project, "rm", PluginPackageAction.of("remove", "d", "1", null));
    decide(manager, approved, Decision.APPROVE);
    decide(manager, rejected, Decision.REJECT);
    decide(manager, remove, Decision.APPROVE);
    return new Governed(pending, approved, rejected, remove);
  }

  private static Proposal propose(
      JdbcGovernanceStore store, String project, String ref, PluginPackageAction action) {
    return propose(store, project, ref, action, 1);
  }

  private static Proposal propose(
      JdbcGovernanceStore store,
      String project,
      String ref,
      PluginPackageAction action,
      int requiredApprovals) {
    String id = project + "-" + ref;
    Proposal p =
        new Proposal(
            "prp-" + id,
            "apr-" + id,
            project,
            ref,
            action,
            action.digest(),
            "alice",
            ProposalState.PENDING,
            1L,
            1L);
    Approval a =
        new Approval(
            p.approvalId(),
            p.proposalId(),
            project,
            p.actionDigest(),
            "alice",
            ProposalState.PENDING,
            null,
            null,
            null,
            null,
            1L,
            requiredApprovals,
            List.of());
    assertThat(store.createIfAbsent(p, a).created()).isTrue();
    return p;
  }

  private static void decide(JdbcGovernanceStore store, Proposal p, Decision decision) {
    assertThat(
            store.recordDecision(
                new DecisionCommand(
                    p.projectId(), p.approvalId(), "d-" + p.proposalId(), decision, "bob", 2L)))
        .isPresent();
  }

  private static String where(Proposal p) {
    return " WHERE project_id = '" + p.projectId() + "' AND proposal_id = '" + p.proposalId() + "'";
  }

  private static String approvalWhere(Proposal p) {
    return " WHERE project_id = '" + p.projectId() + "' AND approval_id = '" + p.approvalId() + "'";
  }

  @Test
  void executorPublishesOnlyApprovedInstallsAndChangesNothingElse() throws SQLException {
    Governed g = governed("prj-exec");
    HikariDataSource executor = fixture.rolePool(PostgresLogins.PACKAGE_EXECUTOR, 1);

    // A compromised worker cannot publish what was not approved, nor a removal.
    assertRefused(
        executor,
        "UPDATE " + PROPOSALS + " SET state = 'published'" + where(g.rejected()),
        CHECK_VIOLATION);
    assertRefused(
        executor,
        "UPDATE " + PROPOSALS + " SET state = 'published'" + where(g.pending()),
        CHECK_VIOLATION);
    assertRefused(
        executor,
        "UPDATE " + PROPOSALS + " SET state = 'published'" + where(g.approvedRemove()),
        CHECK_VIOLATION);
    // Nor decide, undo or touch anything but the publication.
    assertRefused(
        executor,
        "UPDATE " + PROPOSALS + " SET state = 'approved'" + where(g.pending()),
        INSUFFICIENT_PRIVILEGE);
    assertRefused(
        executor,
        "UPDATE " + PROPOSALS + " SET state = 'rejected'" + where(g.approved()),
        CHECK_VIOLATION);
    assertRefused(
        executor,
        "UPDATE " + PROPOSALS + " SET state = 'pending'" + where(g.approved()),
        CHECK_VIOLATION);
    assertRefused(
        executor,
        "UPDATE " + PROPOSALS + " SET updated_at_ms = 7" + where(g.approved()),
        CHECK_VIOLATION);
    assertRefused(
        executor,
        "UPDATE "
            + PROPOSALS
            + " SET artifact_digest = '"
            + OTHER_DIGEST
            + "'"
            + where(g.approved()),
        INSUFFICIENT_PRIVILEGE);
    assertThat(stateOf(g.rejected())).isEqualTo("rejected");
    assertThat(stateOf(g.pending())).isEqualTo("pending");

    // What the worker does: approved -> published, once; then nothing moves it again.
    JdbcGovernanceStore store = new JdbcGovernanceStore(executor, PostgresDialect.INSTANCE);
    // Not before the Project uploaded the artifact (artifacts are per Project).
    assertThat(store.markPublished("prj-exec", g.approved().proposalId(), 9L)).isFalse();
    new JdbcGovernanceStore(
            fixture.rolePool(PostgresLogins.PACKAGE_MANAGER, 1), PostgresDialect.INSTANCE)
        .recordArtifactUpload(
            new dev.qinglong.core.governance.ArtifactUpload(
                "prj-exec", g.approved().action().artifactDigest(), 3L, 1L));
    assertThat(store.markPublished("prj-exec", g.approved().proposalId(), 9L)).isTrue();
    assertThat(stateOf(g.approved())).isEqualTo("published");
    assertRefused(
        executor,
        "UPDATE " + PROPOSALS + " SET state = 'approved'" + where(g.approved()),
        CHECK_VIOLATION);
  }

  @Test
  void packageManagerDoesOnlyWhatTheServiceDoes() throws SQLException {
    Governed g = governed("prj-mgr");
    HikariDataSource manager = fixture.rolePool(PostgresLogins.PACKAGE_MANAGER, 1);

    // A decided approval is never rewritten, and its binding columns are not the manager's.
    assertRefused(
        manager,
        "UPDATE "
            + APPROVALS
            + " SET state = 'rejected', decision = 'reject'"
            + approvalWhere(g.approved()),
        CHECK_VIOLATION);
    assertRefused(
        manager,
        "UPDATE " + APPROVALS + " SET decided_by = 'mallory'" + approvalWhere(g.approved()),
        CHECK_VIOLATION);
    assertRefused(
        manager,
        "UPDATE " + APPROVALS + " SET decision_id = 'd-other'" + approvalWhere(g.rejected()),
        CHECK_VIOLATION);
    assertRefused(
        manager,
        "UPDATE "
            + APPROVALS
            + " SET action_digest = '"
            + OTHER_DIGEST
            + "'"
            + approvalWhere(g.pending()),
        INSUFFICIENT_PRIVILEGE);
    assertRefused(
        manager,
        "UPDATE " + APPROVALS + " SET proposed_by = 'bob'" + approvalWhere(g.pending()),
        INSUFFICIENT_PRIVILEGE);
    // A proposal's action is fixed, and its state only follows its approval's decision.
    assertRefused(
        manager,
        "UPDATE " + PROPOSALS + " SET action_digest = '" + OTHER_DIGEST + "'" + where(g.pending()),
        INSUFFICIENT_PRIVILEGE);
    assertRefused(
        manager,
        "UPDATE " + PROPOSALS + " SET package_version = '6.6.6'" + where(g.pending()),
        INSUFFICIENT_PRIVILEGE);
    assertRefused(
        manager,
        "UPDATE "
            + PROPOSALS
            + " SET artifact_digest = '"
            + OTHER_DIGEST
            + "'"
            + where(g.approved()),
        INSUFFICIENT_PRIVILEGE);
    assertRefused(
        manager,
        "UPDATE " + PROPOSALS + " SET state = 'approved'" + where(g.pending()),
        CHECK_VIOLATION);
    assertRefused(
        manager,
        "UPDATE " + PROPOSALS + " SET state = 'approved'" + where(g.rejected()),
        CHECK_VIOLATION);
    // Publication is the publication worker's alone.
    assertRefused(
        manager,
        "UPDATE " + PROPOSALS + " SET state = 'published'" + where(g.approved()),
        INSUFFICIENT_PRIVILEGE);
    // Rows start pending, and an approval is bound to its proposal.
    assertRefused(
        manager,
        "INSERT INTO "
            + PROPOSALS
            + " VALUES ('prj-mgr', 'prp-x', 'apr-x', 'x', 'install', 'e',"
            + " '1', '"
            + DIGEST
            + "', '"
            + DIGEST
            + "', 'alice', 'published', 1, 1)",
        CHECK_VIOLATION);
    try (Connection c = manager.getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "INSERT INTO "
              + PROPOSALS
              + " VALUES ('prj-mgr', 'prp-y', 'apr-y', 'y', 'install', 'e',"
              + " '1', '"
              + DIGEST
              + "', '"
              + DIGEST
              + "', 'alice', 'pending', 1, 1)");
    }
    assertRefused(
        manager,
        "INSERT INTO "
            + APPROVALS
            + " (project_id, approval_id, proposal_id, action_digest,"
            + " proposed_by, state, created_at_ms) VALUES ('prj-mgr', 'apr-y', 'prp-y', '"
            + OTHER_DIGEST
            + "', 'alice', 'pending', 1)",
        CHECK_VIOLATION);
    assertRefused(
        manager,
        "INSERT INTO "
            + APPROVALS
            + " VALUES ('prj-mgr', 'apr-y', 'prp-y', '"
            + DIGEST
            + "',"
            + " 'alice', 'approved', 'd-y', 'approve', 'bob', 1, 1)",
        CHECK_VIOLATION);
    assertThat(stateOf(g.pending())).isEqualTo("pending");
    assertThat(stateOf(g.rejected())).isEqualTo("rejected");
    assertThat(stateOf(g.approved())).isEqualTo("approved");
    for (String column : List.of("action_digest", "proposed_by", "proposal_id", "project_id")) {
      assertThat(
              columnPrivilege(PostgresLogins.PACKAGE_MANAGER, "plugin_package_approvals", column))
          .as("manager UPDATE approvals." + column)
          .isFalse();
    }
    assertThat(
            columnPrivilege(PostgresLogins.PACKAGE_MANAGER, "plugin_package_approvals", "decision"))
        .isTrue();
  }

  @Test
  void decisionsAreThePackageManagersApprovalPoliciesTheAdminsAndBothAppendOnly()
      throws SQLException {
    // Who may do what: decisions the package manager inserts; policies the admin inserts and the
    // package manager only reads (the login that proposes and decides cannot lower the number).
    Map<String, Map<String, List<String>>> granted =
        Map.of(
            DECISIONS, Map.of(PostgresLogins.PACKAGE_MANAGER, List.of("SELECT", "INSERT")),
            POLICIES,
                Map.of(
                    PostgresLogins.PACKAGE_MANAGER,
                    List.of("SELECT"),
                    PostgresLogins.ADMIN,
                    List.of("SELECT", "INSERT")));
    List<String> logins = new java.util.ArrayList<>(PostgresLogins.ALL);
    logins.add(PostgresLogins.READER);
    for (String table : List.of(DECISIONS, POLICIES)) {
      for (String role : logins) {
        List<String> allowed = granted.get(table).getOrDefault(role, List.of());
        for (String privilege : List.of("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE")) {
          assertThat(hasTablePrivilege(role, table, privilege))
              .as(role + " " + privilege + " " + table)
              .isEqualTo(allowed.contains(privilege));
        }
      }
    }

    HikariDataSource managerPool = fixture.rolePool(PostgresLogins.PACKAGE_MANAGER, 1);
    HikariDataSource adminPool = fixture.rolePool(PostgresLogins.ADMIN, 1);
    JdbcGovernanceStore manager =
        new JdbcGovernanceStore(managerPool, adminPool, PostgresDialect.INSTANCE);
    Proposal p =
        propose(
            manager, "prj-append", "n2", PluginPackageAction.of("install", "e", "1", DIGEST), 2);
    // The package manager inserts a decision and a policy revision, and changes neither.
    try (Connection c = managerPool.getConnection();
        Statement st = c.createStatement()) {
      assertThat(
              st.executeUpdate(
                  "INSERT INTO qinglong."
                      + DECISIONS
                      + " VALUES ('prj-append', '"
                      + p.approvalId()
                      + "', 'd-bob', 'approve', 'bob', 'alice', 5)"))
          .isEqualTo(1);
    }
    assertThat(manager.putApprovalPolicy("prj-append", 3, "root").revision()).isEqualTo(1);
    assertRefused(
        managerPool,
        "INSERT INTO qinglong." + POLICIES + " VALUES ('prj-append', 2, 1, 'mallory', 5)",
        INSUFFICIENT_PRIVILEGE);
    assertThat(
            new JdbcGovernanceStore(managerPool, PostgresDialect.INSTANCE)
                .approvalPolicy("prj-append")
                .orElseThrow()
                .requiredApprovals())
        .isEqualTo(3);
    for (String table : List.of(DECISIONS, POLICIES)) {
      for (HikariDataSource pool : List.of(managerPool, adminPool)) {
        assertRefused(
            pool,
            "UPDATE qinglong." + table + " SET project_id = project_id",
            INSUFFICIENT_PRIVILEGE);
        assertRefused(pool, "DELETE FROM qinglong." + table, INSUFFICIENT_PRIVILEGE);
      }
      // Not even the owner changes them (the append-only triggers).
      assertRefused(
          fixture.owner(),
          "UPDATE qinglong." + table + " SET project_id = project_id",
          CHECK_VIOLATION);
      assertRefused(fixture.owner(), "DELETE FROM qinglong." + table, CHECK_VIOLATION);
    }
    // The proposer never decides; a decision names its approval's proposer.
    assertRefused(
        managerPool,
        "INSERT INTO qinglong."
            + DECISIONS
            + " VALUES ('prj-append', '"
            + p.approvalId()
            + "', 'd-own', 'approve', 'alice', 'alice', 5)",
        CHECK_VIOLATION);
    assertRefused(
        managerPool,
        "INSERT INTO qinglong."
            + DECISIONS
            + " VALUES ('prj-append', '"
            + p.approvalId()
            + "', 'd-fk', 'approve', 'carol', 'mallory', 5)",
        "23503");
    assertThat(manager.findApproval("prj-append", p.approvalId()).orElseThrow().decisions())
        .hasSize(1);
  }

  /**
   * Limit revisions (migration V11): the admin appends them, the package manager (whose statements
   * decide under them) only reads them, nobody else sees them, and nobody changes one.
   */
  @Test
  void limitRevisionsAreTheAdminsReadByThePackageManagerAndAppendOnly() throws SQLException {
    List<String> logins = new java.util.ArrayList<>(PostgresLogins.ALL);
    logins.add(PostgresLogins.READER);
    for (String table : List.of(LIMIT_REVISIONS, LIMITS)) {
      for (String role : logins) {
        List<String> allowed =
            switch (role) {
              case PostgresLogins.ADMIN -> List.of("SELECT", "INSERT");
              case PostgresLogins.PACKAGE_MANAGER -> List.of("SELECT");
              default -> List.of();
            };
        for (String privilege : List.of("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE")) {
          assertThat(hasTablePrivilege(role, table, privilege))
              .as(role + " " + privilege + " " + table)
              .isEqualTo(allowed.contains(privilege));
        }
      }
    }

    HikariDataSource managerPool = fixture.rolePool(PostgresLogins.PACKAGE_MANAGER, 1);
    HikariDataSource adminPool = fixture.rolePool(PostgresLogins.ADMIN, 1);
    // The admin's revision is in force for the package manager's decision.
    JdbcManagementQuotaStore store =
        new JdbcManagementQuotaStore(
            managerPool,
            adminPool,
            PostgresDialect.INSTANCE,
            System::nanoTime,
            JdbcManagementQuotaStore.Coalescing.OFF);
    assertThat(
            store
                .putLimits(
                    "prj-limits",
                    null,
                    new QuotaLimits(Map.of(QuotaOperation.PROPOSE, 7), Map.of()),
                    "root")
                .revision())
        .isEqualTo(1);
    QuotaDecision d =
        store.consume(
            QuotaKey.user("prj-limits", "alice", QuotaOperation.PROPOSE),
            new ReceiptId("r-1"),
            RequestDigest.of(QuotaOperation.PROPOSE, "x"),
            30,
            Duration.ofSeconds(60));
    assertThat(((QuotaDecision.Allowed) d).limit())
        .isEqualTo(new EffectiveLimit(7, LimitSource.PROJECT, null));
    // The login that decides cannot raise its own limits.
    assertRefused(
        managerPool,
        "INSERT INTO qinglong." + LIMIT_REVISIONS + " VALUES ('prj-limits', '', 2, 'mallory', 5)",
        INSUFFICIENT_PRIVILEGE);
    assertRefused(
        managerPool,
        "INSERT INTO qinglong."
            + LIMITS
            + " VALUES ('prj-limits', '', 'plugin-package.propose', 1, 1000, NULL)",
        INSUFFICIENT_PRIVILEGE);
    new JdbcManagementQuotaStore(
            managerPool,
            managerPool,
            PostgresDialect.INSTANCE,
            System::nanoTime,
            JdbcManagementQuotaStore.Coalescing.OFF)
        .limits("prj-limits", null)
        .orElseThrow();
    assertThatThrownBy(
            () ->
                new JdbcManagementQuotaStore(
                        managerPool,
                        managerPool,
                        PostgresDialect.INSTANCE,
                        System::nanoTime,
                        JdbcManagementQuotaStore.Coalescing.OFF)
                    .putLimits("prj-limits", null, QuotaLimits.NONE, "mallory"))
        .isInstanceOf(StoreUnavailableException.class);
    for (String table : List.of(LIMIT_REVISIONS, LIMITS)) {
      for (HikariDataSource pool : List.of(managerPool, adminPool)) {
        assertRefused(
            pool,
            "UPDATE qinglong." + table + " SET project_id = project_id",
            INSUFFICIENT_PRIVILEGE);
        assertRefused(pool, "DELETE FROM qinglong." + table, INSUFFICIENT_PRIVILEGE);
      }
      // Not even the owner changes them (the append-only triggers).
      assertRefused(
          fixture.owner(),
          "UPDATE qinglong." + table + " SET project_id = project_id",
          CHECK_VIOLATION);
      assertRefused(fixture.owner(), "DELETE FROM qinglong." + table, CHECK_VIOLATION);
      assertRefused(fixture.owner(), "TRUNCATE qinglong." + table + " CASCADE", CHECK_VIOLATION);
    }
    assertThat(store.limits("prj-limits", null).orElseThrow().revision()).isEqualTo(1);
  }

  /**
   * Webhooks (migration V12): the admin registers endpoints and enqueues test events, the package
   * manager and the executor insert the delivery rows of their changes (reading only which
   * endpoints subscribe, never a secret), the executor alone claims and updates deliveries, and
   * nobody else sees any of it.
   */
  @Test
  void webhookGrantsFollowWhoWritesWhat() throws SQLException {
    Map<String, Map<String, List<String>>> expected =
        Map.of(
            "webhook_projects",
            Map.of(PostgresLogins.ADMIN, List.of("SELECT", "INSERT", "UPDATE")),
            "webhook_endpoints",
            Map.of(
                PostgresLogins.ADMIN,
                List.of("SELECT", "INSERT", "UPDATE", "DELETE"),
                PostgresLogins.PACKAGE_EXECUTOR,
                List.of("SELECT")),
            "webhook_endpoint_events",
            Map.of(
                PostgresLogins.ADMIN,
                List.of("SELECT", "INSERT", "UPDATE", "DELETE"),
                PostgresLogins.PACKAGE_MANAGER,
                List.of("SELECT"),
                PostgresLogins.PACKAGE_EXECUTOR,
                List.of("SELECT")),
            "webhook_deliveries",
            Map.of(
                PostgresLogins.ADMIN,
                List.of("SELECT", "INSERT"),
                PostgresLogins.PACKAGE_MANAGER,
                List.of("INSERT"),
                PostgresLogins.PACKAGE_EXECUTOR,
                List.of("SELECT", "INSERT")));
    List<String> logins = new java.util.ArrayList<>(PostgresLogins.ALL);
    logins.add(PostgresLogins.READER);
    logins.add(PostgresLogins.WORKER_INGRESS);
    for (var table : expected.entrySet()) {
      for (String role : logins) {
        List<String> allowed = table.getValue().getOrDefault(role, List.of());
        for (String privilege : List.of("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE")) {
          assertThat(hasTablePrivilege(role, table.getKey(), privilege))
              .as(role + " " + privilege + " " + table.getKey())
              .isEqualTo(allowed.contains(privilege));
        }
      }
    }
    // The executor updates only the delivery columns of an attempt, never what was sent or where.
    for (String column :
        List.of("status", "attempts", "next_attempt_at_ms", "claim_token", "last_error")) {
      assertThat(columnPrivilege(PostgresLogins.PACKAGE_EXECUTOR, "webhook_deliveries", column))
          .as(column)
          .isTrue();
    }
    for (String column : List.of("payload", "project_id", "webhook_id", "event_type")) {
      assertThat(columnPrivilege(PostgresLogins.PACKAGE_EXECUTOR, "webhook_deliveries", column))
          .as(column)
          .isFalse();
    }
    // The package manager cannot read a sealed secret, or the delivery log.
    HikariDataSource manager = fixture.rolePool(PostgresLogins.PACKAGE_MANAGER, 1);
    assertDenied(manager, "SELECT secret_sealed FROM qinglong.webhook_endpoints");
    assertDenied(manager, "SELECT payload FROM qinglong.webhook_deliveries");
    assertDenied(manager, "UPDATE qinglong.webhook_deliveries SET status = 'delivered'");
    // A reader sees nothing of it.
    HikariDataSource reader = fixture.rolePool(PostgresLogins.READER, 1);
    for (String table : expected.keySet()) {
      assertDenied(reader, "SELECT count(*) FROM qinglong." + table);
    }
  }

  @Test
  void theGuardApprovesOnlyWithTheRequiredRecordedApproves() throws SQLException {
    HikariDataSource managerPool = fixture.rolePool(PostgresLogins.PACKAGE_MANAGER, 1);
    JdbcGovernanceStore manager = new JdbcGovernanceStore(managerPool, PostgresDialect.INSTANCE);
    Proposal p =
        propose(manager, "prj-guard", "n2", PluginPackageAction.of("install", "g", "1", DIGEST), 2);
    assertThat(
            manager
                .recordDecision(
                    new DecisionCommand(
                        "prj-guard", p.approvalId(), "d-bob", Decision.APPROVE, "bob", 7L))
                .orElseThrow()
                .pending())
        .isTrue();
    String end =
        "UPDATE "
            + APPROVALS
            + " SET state = '%s', decision_id = '%s', decision = '%s', decided_by = '%s',"
            + " decided_at_ms = %d"
            + approvalWhere(p);
    // One approve of two: not approved, not even naming the recorded approve.
    assertRefused(
        managerPool, end.formatted("approved", "d-bob", "approve", "bob", 7L), CHECK_VIOLATION);
    // Nor approved or rejected by a decision that was never recorded.
    assertRefused(
        managerPool, end.formatted("approved", "d-x", "approve", "carol", 8L), CHECK_VIOLATION);
    assertRefused(
        managerPool, end.formatted("rejected", "d-x", "reject", "carol", 8L), CHECK_VIOLATION);
    // An approve does not reject.
    assertRefused(
        managerPool, end.formatted("rejected", "d-bob", "reject", "bob", 7L), CHECK_VIOLATION);
    // The bound number is fixed, for the owner too.
    assertRefused(
        fixture.owner(),
        "UPDATE " + APPROVALS + " SET required_approvals = 1" + approvalWhere(p),
        CHECK_VIOLATION);
    assertThat(
            columnPrivilege(
                PostgresLogins.PACKAGE_MANAGER, "plugin_package_approvals", "required_approvals"))
        .isFalse();
    assertThat(stateOf(p)).isEqualTo("pending");

    // The second approver's approve, recorded, ends it: what the store does is what the guard
    // allows.
    assertThat(
            manager
                .recordDecision(
                    new DecisionCommand(
                        "prj-guard", p.approvalId(), "d-carol", Decision.APPROVE, "carol", 8L))
                .orElseThrow()
                .state())
        .isEqualTo(ProposalState.APPROVED);
    assertThat(stateOf(p)).isEqualTo("approved");
  }

  @Test
  void runtimeReadsButCannotWriteTheQuotaPoliciesThatFenceIt() throws SQLException {
    HikariDataSource runtime = fixture.rolePool(PostgresLogins.RUNTIME, 1);
    HikariDataSource admin = fixture.rolePool(PostgresLogins.ADMIN, 1);
    assertRefused(
        runtime,
        "INSERT INTO qinglong.model_project_quota_policies VALUES"
            + " ('prj-rt', 99, 60000, 1000000, 1000000, NULL, 0)",
        INSUFFICIENT_PRIVILEGE);
    assertRefused(
        runtime,
        "INSERT INTO qinglong.model_invocation_policies VALUES ('prj-rt', 'm1', 99, 1000000, NULL, 0)",
        INSUFFICIENT_PRIVILEGE);
    assertThatThrownBy(
            () ->
                new JdbcModelQuotaStore(runtime, PostgresDialect.INSTANCE)
                    .putProjectQuota("prj-rt", QuotaWindow.ONE_HOUR, 1_000_000, 1_000_000, null))
        .isInstanceOf(StoreUnavailableException.class);

    // The administrator's login writes them (as the backend wires policy writes); the runtime
    // reads what it is fenced by.
    new JdbcModelQuotaStore(admin, PostgresDialect.INSTANCE)
        .putProjectQuota("prj-rt", QuotaWindow.ONE_HOUR, 5, 100, null);
    assertThat(new JdbcModelQuotaStore(runtime, PostgresDialect.INSTANCE).projectQuota("prj-rt"))
        .hasValueSatisfying(p -> assertThat(p.maxInvocations()).isEqualTo(5));
    for (String table : List.of("model_invocation_policies", "model_project_quota_policies")) {
      assertThat(hasTablePrivilege(PostgresLogins.RUNTIME, table, "INSERT")).isFalse();
      assertThat(hasTablePrivilege(PostgresLogins.RUNTIME, table, "SELECT")).isTrue();
      assertThat(hasTablePrivilege(PostgresLogins.ADMIN, table, "INSERT")).isTrue();
      for (String privilege : List.of("UPDATE", "DELETE", "TRUNCATE")) {
        assertThat(hasTablePrivilege(PostgresLogins.ADMIN, table, privilege)).isFalse();
      }
    }
  }

  private String stateOf(Proposal p) throws SQLException {
    try (Connection c = fixture.owner().getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT state FROM " + PROPOSALS + where(p));
        ResultSet rs = ps.executeQuery()) {
      assertThat(rs.next()).isTrue();
      return rs.getString(1);
    }
  }

  private boolean columnPrivilege(String role, String table, String column) throws SQLException {
    return query(
        "SELECT has_column_privilege('"
            + role
            + "', 'qinglong."
            + table
            + "', '"
            + column
            + "', 'UPDATE')");
  }

  @Test
  void catalogShowsExactlyTheGrantsOfTheDesign() throws SQLException {
    for (String privilege : List.of("SELECT", "INSERT", "UPDATE")) {
      assertThat(hasTablePrivilege(PostgresLogins.PACKAGE_MANAGER, BUCKETS, privilege)).isTrue();
      for (String other : OTHERS) {
        assertThat(hasTablePrivilege(other, BUCKETS, privilege))
            .as(other + " " + privilege)
            .isFalse();
      }
    }
    for (String role : PostgresLogins.ALL) {
      for (String table :
          List.of(
              BUCKETS,
              "plugin_package_proposals",
              "plugin_package_approvals",
              "project_members",
              "project_artifacts",
              "management_quota_operations",
              DECISIONS,
              POLICIES,
              LIMIT_REVISIONS,
              LIMITS)) {
        assertThat(hasTablePrivilege(role, table, "DELETE"))
            .as(role + " DELETE " + table)
            .isFalse();
        assertThat(hasTablePrivilege(role, table, "TRUNCATE")).as(role + " TRUNCATE").isFalse();
      }
      assertThat(query("SELECT has_schema_privilege('" + role + "', 'qinglong', 'CREATE')"))
          .as(role + " CREATE on schema")
          .isFalse();
      assertThat(
              query(
                  "SELECT EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = 'qinglong'"
                      + " AND tableowner = '"
                      + role
                      + "')"))
          .as(role + " owns nothing")
          .isFalse();
    }
  }

  /**
   * The operations a bucket may count change only by migration; the foreign key check of a bucket
   * insert runs with the owner's rights, so no login needs (or has) any privilege on them.
   */
  @Test
  void noRoleHasAnyPrivilegeOnTheQuotaOperations() throws SQLException {
    for (String role : PostgresLogins.ALL) {
      for (String privilege : List.of("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE")) {
        assertThat(hasTablePrivilege(role, "management_quota_operations", privilege))
            .as(role + " " + privilege)
            .isFalse();
      }
    }
  }

  @Test
  void uploadsAreRecordedByTheManagerAndReadByTheExecutorOnly() throws SQLException {
    for (String privilege : List.of("SELECT", "INSERT", "UPDATE")) {
      assertThat(hasTablePrivilege(PostgresLogins.PACKAGE_MANAGER, "project_artifacts", privilege))
          .as("package manager " + privilege)
          .isTrue();
    }
    assertThat(hasTablePrivilege(PostgresLogins.PACKAGE_EXECUTOR, "project_artifacts", "SELECT"))
        .isTrue();
    for (String privilege : List.of("INSERT", "UPDATE")) {
      assertThat(hasTablePrivilege(PostgresLogins.PACKAGE_EXECUTOR, "project_artifacts", privilege))
          .as("executor " + privilege)
          .isFalse();
    }
    for (String role : PostgresLogins.ALL) {
      if (!role.equals(PostgresLogins.PACKAGE_MANAGER)
          && !role.equals(PostgresLogins.PACKAGE_EXECUTOR)) {
        assertThat(hasTablePrivilege(role, "project_artifacts", "SELECT")).as(role).isFalse();
      }
    }
  }

  @Test
  void publicHoldsNothingInTheSchema() throws SQLException {
    assertThat(
            query(
                "SELECT EXISTS (SELECT 1 FROM pg_class c, aclexplode(c.relacl) a"
                    + " WHERE c.relnamespace = 'qinglong'::regnamespace AND a.grantee = 0)"))
        .isFalse();
    assertThat(
            query(
                "SELECT EXISTS (SELECT 1 FROM pg_namespace n, aclexplode(n.nspacl) a"
                    + " WHERE n.nspname = 'qinglong' AND a.grantee = 0)"))
        .isFalse();
  }

  private boolean hasTablePrivilege(String role, String table, String privilege)
      throws SQLException {
    return query(
        "SELECT has_table_privilege('"
            + role
            + "', 'qinglong."
            + table
            + "', '"
            + privilege
            + "')");
  }

  private boolean query(String sql) throws SQLException {
    try (Connection c = fixture.owner().getConnection();
        PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getBoolean(1);
    }
  }

  private static void assertRefused(HikariDataSource pool, String sql, String sqlState) {
    assertThatThrownBy(
            () -> {
              try (Connection c = pool.getConnection();
                  Statement st = c.createStatement()) {
                st.execute(sql);
              }
            })
        .as(sql)
        .isInstanceOf(SQLException.class)
        .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo(sqlState));
  }

  private static void assertDenied(HikariDataSource pool, String sql) {
    assertThatThrownBy(
            () -> {
              try (Connection c = pool.getConnection();
                  Statement st = c.createStatement()) {
                st.execute(sql);
              }
            })
        .as(sql)
        .isInstanceOf(SQLException.class)
        .satisfies(
            e ->
                assertThat(((SQLException) e).getSQLState()).isIn(INSUFFICIENT_PRIVILEGE, "42P01"));
  }
}
