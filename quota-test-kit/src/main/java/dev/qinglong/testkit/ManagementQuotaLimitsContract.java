package dev.qinglong.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.quota.BucketsSnapshot;
import dev.qinglong.core.quota.EffectiveLimit;
import dev.qinglong.core.quota.LimitSource;
import dev.qinglong.core.quota.ManagementQuotaStore;
import dev.qinglong.core.quota.QuotaDecision;
import dev.qinglong.core.quota.QuotaKey;
import dev.qinglong.core.quota.QuotaLimits;
import dev.qinglong.core.quota.QuotaLimitsRevision;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.core.quota.ReceiptId;
import dev.qinglong.core.quota.RequestDigest;
import dev.qinglong.core.quota.ShadowRefusal;
import dev.qinglong.core.quota.SubjectType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

/**
 * Contract of the management quota's limits as data (docs/design.md#limits-as-data): limit
 * revisions, the effective limit (the user's, else the Project's, else the default) resolved by the
 * one deciding statement, shadow limits that are counted and never refuse, and changes in force for
 * the next decision of every instance, the hot-bucket fast path's included.
 */
public abstract class ManagementQuotaLimitsContract extends StoreContractSupport {
  private static final Duration WINDOW = Duration.ofSeconds(60);

  /** The default limit the tests decide with (the process configuration's). */
  private static final int DEFAULT = 5;

  private static final RequestDigest SAME = RequestDigest.of(QuotaOperation.PROPOSE, "prp-1");

  /** The store that writes limits: on the fixture's own pool (PostgreSQL: the admin's writes). */
  private ManagementQuotaStore writer() {
    return fixture.quotaStore(dataSource);
  }

  private static QuotaLimits limits(QuotaOperation op, int limit) {
    return new QuotaLimits(Map.of(op, limit), Map.of());
  }

  private static QuotaLimits shadow(QuotaOperation op, int shadowLimit) {
    return new QuotaLimits(Map.of(), Map.of(op, shadowLimit));
  }

  private static QuotaDecision consume(ManagementQuotaStore on, QuotaKey key, String receipt) {
    return on.consume(key, new ReceiptId(receipt), SAME, DEFAULT, WINDOW);
  }

  /** Decides new receipts until the first refusal; the admitted decisions' limits, in order. */
  private static List<EffectiveLimit> fill(ManagementQuotaStore on, QuotaKey key) {
    List<EffectiveLimit> admitted = new ArrayList<>();
    for (int i = 0; i <= 1000; i++) {
      QuotaDecision d = consume(on, key, "fill-" + i);
      if (d instanceof QuotaDecision.Rejected) {
        return admitted;
      }
      admitted.add(((QuotaDecision.Allowed) d).limit());
    }
    throw new AssertionError("never refused");
  }

  @Test
  void theUsersLimitThenTheProjectsThenTheDefaultEachOperationOnItsOwn() {
    String project = unique("prj");
    ManagementQuotaStore store = writer();
    store.putLimits(project, null, limits(QuotaOperation.PROPOSE, 3), "root");
    store.putLimits(project, "carol", limits(QuotaOperation.PROPOSE, 2), "root");
    // A user override that sets only a shadow limit: its enforced limit is the Project's.
    store.putLimits(project, "dave", shadow(QuotaOperation.PROPOSE, 1), "root");

    EffectiveLimit user = new EffectiveLimit(2, LimitSource.USER, null);
    EffectiveLimit projects = new EffectiveLimit(3, LimitSource.PROJECT, null);
    assertThat(fill(store, QuotaKey.user(project, "carol", QuotaOperation.PROPOSE)))
        .containsExactly(user, user);
    assertThat(fill(store, QuotaKey.user(project, "bob", QuotaOperation.PROPOSE)))
        .containsExactly(projects, projects, projects);
    EffectiveLimit daves = new EffectiveLimit(3, LimitSource.PROJECT, 1);
    assertThat(fill(store, QuotaKey.user(project, "dave", QuotaOperation.PROPOSE)))
        .containsExactly(daves, daves, daves);
    // Another operation, and another Project, are under the default.
    EffectiveLimit defaults = EffectiveLimit.defaultLimit(DEFAULT);
    assertThat(fill(store, QuotaKey.user(project, "carol", QuotaOperation.DECIDE)))
        .hasSize(DEFAULT)
        .containsOnly(defaults);
    assertThat(fill(store, QuotaKey.user(unique("prj"), "carol", QuotaOperation.PROPOSE)))
        .hasSize(DEFAULT)
        .containsOnly(defaults);
    // The refusal reports the limit it refused under.
    assertThat(consume(store, QuotaKey.user(project, "carol", QuotaOperation.PROPOSE), "more"))
        .isInstanceOfSatisfying(
            QuotaDecision.Rejected.class, r -> assertThat(r.limit()).isEqualTo(user));
  }

  @Test
  void aChangeIsInForceForTheNextDecisionOfAnotherInstanceItsFastPathIncluded() {
    String project = unique("prj");
    QuotaKey key = QuotaKey.user(project, "alice", QuotaOperation.PROPOSE);
    writer().putLimits(project, null, limits(QuotaOperation.PROPOSE, 2), "root");
    // Instance A, on a pool of its own and the real monotonic clock, fills the bucket and so holds
    // it: its next refusal takes no statement.
    FaultyDataSource countingA = new FaultyDataSource(fixture.newDataSource());
    ManagementQuotaStore a = fixture.quotaStore(countingA);
    assertThat(fill(a, key)).hasSize(2);
    int statements = countingA.statements();
    assertThat(consume(a, key, "held")).isInstanceOf(QuotaDecision.Rejected.class);
    assertThat(countingA.statements()).as("refused from memory").isEqualTo(statements);

    // Another instance raises the limit; once the write answers, A admits under it.
    ManagementQuotaStore b = fixture.quotaStore(fixture.newDataSource());
    b.putLimits(project, null, limits(QuotaOperation.PROPOSE, 4), "root");
    EffectiveLimit raised = new EffectiveLimit(4, LimitSource.PROJECT, null);
    assertThat(consume(a, key, "after-raise-a"))
        .isInstanceOfSatisfying(
            QuotaDecision.Allowed.class,
            d -> {
              assertThat(d.limit()).isEqualTo(raised);
              assertThat(d.consumedCount()).isEqualTo(3);
            });
    assertThat(consume(b, key, "after-raise-b"))
        .isInstanceOfSatisfying(
            QuotaDecision.Allowed.class, d -> assertThat(d.consumedCount()).isEqualTo(4));

    // A user override lowering it is in force for A's next decision as well.
    b.putLimits(project, "alice", limits(QuotaOperation.PROPOSE, 1), "root");
    assertThat(consume(a, key, "after-lower"))
        .isInstanceOfSatisfying(
            QuotaDecision.Rejected.class,
            r -> assertThat(r.limit()).isEqualTo(new EffectiveLimit(1, LimitSource.USER, null)));
    // Removing the override falls back to the Project's 4: the window is full at 4.
    b.putLimits(project, "alice", QuotaLimits.NONE, "root");
    assertThat(consume(b, key, "after-removal"))
        .isInstanceOfSatisfying(
            QuotaDecision.Rejected.class, r -> assertThat(r.limit()).isEqualTo(raised));
    assertThat(fixture.readBucket(key).orElseThrow().consumedCount()).isEqualTo(4);
  }

  @Test
  void eachDecisionIsStillOneStatementOnOneConnectionWithLimitsSet() {
    String project = unique("prj");
    writer().putLimits(project, null, limits(QuotaOperation.INSPECT, 4), "root");
    writer()
        .putLimits(
            project,
            "erin",
            new QuotaLimits(Map.of(QuotaOperation.INSPECT, 3), Map.of(QuotaOperation.INSPECT, 2)),
            "root");
    FaultyDataSource counting = new FaultyDataSource(fixture.newDataSource());
    ManagementQuotaStore instance = fixture.quotaStore(counting);
    QuotaKey erin = QuotaKey.user(project, "erin", QuotaOperation.INSPECT);
    QuotaKey frank = QuotaKey.user(project, "frank", QuotaOperation.INSPECT);
    for (int i = 0; i < 3; i++) {
      assertThat(consume(instance, erin, "e" + i)).isInstanceOf(QuotaDecision.Allowed.class);
      assertThat(consume(instance, frank, "f" + i)).isInstanceOf(QuotaDecision.Allowed.class);
    }
    assertThat(counting.connections()).isEqualTo(6);
    assertThat(counting.statements()).isEqualTo(6);
  }

  @Test
  void aShadowLimitIsCountedAndReportedButNeverRefuses() {
    String project = unique("prj");
    ManagementQuotaStore store = writer();
    store.putLimits(project, null, shadow(QuotaOperation.INSPECT, 2), "root");
    QuotaKey key = QuotaKey.user(project, "gina", QuotaOperation.INSPECT);
    List<Boolean> shadowRejected = new ArrayList<>();
    for (int i = 0; i < DEFAULT; i++) {
      QuotaDecision d = consume(store, key, "s" + i);
      shadowRejected.add(((QuotaDecision.Allowed) d).shadowRejected());
    }
    assertThat(shadowRejected).containsExactly(false, false, true, true, true);
    // The enforced limit (the default) still refuses; a replay is not counted again.
    assertThat(consume(store, key, "s-over")).isInstanceOf(QuotaDecision.Rejected.class);
    assertThat(consume(store, key, "s4")).isInstanceOf(QuotaDecision.Replayed.class);

    QuotaKey under = QuotaKey.user(project, "hugo", QuotaOperation.INSPECT);
    consume(store, under, "h0");
    List<ShadowRefusal> refusals = store.shadowRefusals(project, WINDOW, 10);
    assertThat(refusals)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.userId()).isEqualTo("gina");
              assertThat(r.operation()).isEqualTo(QuotaOperation.INSPECT);
              assertThat(r.consumedCount()).isEqualTo(DEFAULT);
              assertThat(r.shadowLimit()).isEqualTo(2);
              assertThat(r.wouldHaveRefused()).isEqualTo(3);
            });
    // An ended window is not current: nothing would be refused in it.
    fixture.setWindowStart(key, fixture.databaseNowMs() - WINDOW.toMillis());
    assertThat(store.shadowRefusals(project, WINDOW, 10)).isEmpty();
  }

  @Test
  void revisionsAreNumberedStampedAndNeverChanged() {
    String project = unique("prj");
    ManagementQuotaStore store = writer();
    long before = fixture.databaseNowMs();
    QuotaLimitsRevision first =
        store.putLimits(project, null, limits(QuotaOperation.PROPOSE, 10), "root");
    assertThat(first.revision()).isEqualTo(1);
    assertThat(first.userId()).isNull();
    assertThat(first.setBy()).isEqualTo("root");
    assertThat(first.setAtMs()).isBetween(before, fixture.databaseNowMs());
    QuotaLimitsRevision second =
        store.putLimits(
            project,
            null,
            new QuotaLimits(Map.of(QuotaOperation.DECIDE, 20), Map.of(QuotaOperation.INSPECT, 9)),
            "ops");
    assertThat(second.revision()).isEqualTo(2);
    assertThat(second.limits().limits()).containsExactly(Map.entry(QuotaOperation.DECIDE, 20));
    assertThat(second.limits().shadowLimits())
        .containsExactly(Map.entry(QuotaOperation.INSPECT, 9));
    // The same limits again: nothing new is written.
    assertThat(store.putLimits(project, null, second.limits(), "again")).isEqualTo(second);
    assertThat(store.limits(project, null)).contains(second);
    // Revision 2 replaced revision 1 as a whole: propose is the default again.
    assertThat(consume(store, QuotaKey.user(project, "ivy", QuotaOperation.PROPOSE), "r1"))
        .isInstanceOfSatisfying(
            QuotaDecision.Allowed.class,
            d -> assertThat(d.limit()).isEqualTo(EffectiveLimit.defaultLimit(DEFAULT)));

    // The schema refuses to change or remove a revision, whoever asks.
    for (String sql :
        List.of(
            "UPDATE management_quota_limit_revisions SET set_by = 'mallory' WHERE project_id = ?",
            "DELETE FROM management_quota_limit_revisions WHERE project_id = ?",
            "UPDATE management_quota_limits SET limit_value = 1000 WHERE project_id = ?",
            "DELETE FROM management_quota_limits WHERE project_id = ?")) {
      assertThatThrownBy(() -> fixture.ownerUpdate(sql, project))
          .as(sql)
          .isInstanceOf(IllegalStateException.class);
    }
    assertThat(store.limits(project, null)).contains(second);
  }

  @Test
  void userOverridesArePagedAndARemovedOneIsNotListed() {
    String project = unique("prj");
    ManagementQuotaStore store = writer();
    for (String user : List.of("u-c", "u-a", "u-d", "u-b")) {
      store.putLimits(project, user, limits(QuotaOperation.DECIDE, 7), "root");
    }
    store.putLimits(project, "u-b", QuotaLimits.NONE, "root");
    store.putLimits(project, null, limits(QuotaOperation.DECIDE, 8), "root");
    assertThat(store.userLimits(project, null, 2))
        .extracting(QuotaLimitsRevision::userId)
        .containsExactly("u-a", "u-c");
    assertThat(store.userLimits(project, "u-c", 2))
        .extracting(QuotaLimitsRevision::userId)
        .containsExactly("u-d");
    assertThat(store.limits(project, "u-b"))
        .hasValueSatisfying(
            r -> {
              assertThat(r.revision()).isEqualTo(2);
              assertThat(r.limits().isEmpty()).isTrue();
            });
    assertThat(store.limits(project, "nobody")).isEmpty();
  }

  @Test
  void theCallersReadShowsTheLimitsSetForIt() {
    String project = unique("prj");
    ManagementQuotaStore store = writer();
    store.putLimits(project, null, limits(QuotaOperation.PROPOSE, 9), "root");
    store.putLimits(
        project,
        "jo",
        new QuotaLimits(Map.of(QuotaOperation.DECIDE, 4), Map.of(QuotaOperation.PROPOSE, 3)),
        "root");
    BucketsSnapshot snapshot = store.buckets(project, SubjectType.USER, "jo");
    assertThat(snapshot.effective(QuotaOperation.PROPOSE, DEFAULT))
        .isEqualTo(new EffectiveLimit(9, LimitSource.PROJECT, 3));
    assertThat(snapshot.effective(QuotaOperation.DECIDE, DEFAULT))
        .isEqualTo(new EffectiveLimit(4, LimitSource.USER, null));
    assertThat(snapshot.effective(QuotaOperation.INSPECT, DEFAULT))
        .isEqualTo(EffectiveLimit.defaultLimit(DEFAULT));
    assertThat(snapshot.buckets()).isEmpty();
  }

  @Test
  void concurrentChangesOfOneProjectEachGetTheirOwnRevision() throws Exception {
    String project = unique("prj");
    List<Callable<QuotaLimitsRevision>> writes = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      int limit = 10 * i;
      ManagementQuotaStore instance = fixture.quotaStore(fixture.newDataSource());
      writes.add(
          () -> instance.putLimits(project, null, limits(QuotaOperation.PROPOSE, limit), "root"));
    }
    assertThat(race(writes))
        .extracting(QuotaLimitsRevision::revision)
        .containsExactlyInAnyOrder(1L, 2L, 3L, 4L);
  }

  @Test
  void anUnreachableDatabaseNeverYieldsTheDefault() {
    ManagementQuotaStore down = fixture.quotaStore(FaultyDataSource.unreachable());
    String project = unique("prj");
    assertThatThrownBy(
            () -> consume(down, QuotaKey.user(project, "kim", QuotaOperation.PROPOSE), "r"))
        .isInstanceOf(StoreUnavailableException.class);
    assertThatThrownBy(() -> down.limits(project, null))
        .isInstanceOf(StoreUnavailableException.class);
    assertThatThrownBy(() -> down.userLimits(project, null, 10))
        .isInstanceOf(StoreUnavailableException.class);
    assertThatThrownBy(() -> down.shadowRefusals(project, WINDOW, 10))
        .isInstanceOf(StoreUnavailableException.class);
    assertThatThrownBy(() -> down.buckets(project, SubjectType.USER, "kim"))
        .isInstanceOf(StoreUnavailableException.class);
  }
}
