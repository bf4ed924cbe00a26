package dev.qinglong.testkit;

import dev.qinglong.core.governance.PluginPackageAction;
import dev.qinglong.core.governance.Proposal;
import dev.qinglong.core.governance.ProposalState;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectMember;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * Lifecycle shared by the contract suites: one fixture (one migrated database) per test class, one
 * default pool, and unique names so tests in a class never share a bucket or a Project.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class StoreContractSupport {
  protected StoreFixture fixture;
  protected DataSource dataSource;

  /** Creates the adapter's fixture over a fresh, migrated database. Called once per class. */
  protected abstract StoreFixture createFixture();

  @BeforeAll
  final void openFixture() {
    fixture = createFixture();
    dataSource = fixture.newDataSource();
  }

  @AfterAll
  final void closeFixture() {
    if (fixture != null) {
      fixture.close();
    }
  }

  /** A fresh identifier with a readable prefix. */
  protected static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 12);
  }

  /** A new pending proposal of {@code action} by alice, created at {@code createdAtMs}. */
  protected static Proposal pendingProposal(
      String project, String ref, PluginPackageAction action, long createdAtMs) {
    String id = unique("x");
    return new Proposal(
        "prp-" + id,
        "apr-" + id,
        project,
        ref,
        action,
        action.digest(),
        "alice",
        ProposalState.PENDING,
        createdAtMs,
        createdAtMs);
  }

  /** Stores {@code user} as a member of {@code project} holding exactly these permissions. */
  protected final void addMember(String project, String user, Permission... permissions) {
    fixture
        .policyStore(dataSource)
        .replaceMember(new ProjectMember(project, user, Set.of(permissions)));
  }

  /** {@link Races#race}: each call on a thread of its own, all released at once. */
  protected static <T> List<T> race(List<Callable<T>> calls) throws Exception {
    return Races.race(calls);
  }
}
