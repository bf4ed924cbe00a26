package dev.qinglong.core.governance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.kernel.ConflictException;
import dev.qinglong.core.kernel.ForbiddenException;
import dev.qinglong.core.kernel.IdempotencyKeyReusedException;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectPolicy;
import dev.qinglong.core.quota.ManagementQuota;
import dev.qinglong.core.quota.ManagementQuotaPolicy;
import dev.qinglong.core.quota.QuotaDecisionListener;
import dev.qinglong.core.quota.QuotaExceededException;
import dev.qinglong.core.quota.QuotaOperation;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PluginPackageGovernanceTest {
  private static final String DIGEST = "sha256:" + "b".repeat(64);
  private static final Principal ALICE = new Principal("alice");
  private static final Principal BOB = new Principal("bob");
  private static final Principal CAROL = new Principal("carol");

  private final Fakes fakes = new Fakes();
  private final Fakes.Policies policies = fakes.new Policies();
  private final Fakes.Quota quotaStore = fakes.new Quota();
  private final Fakes.Governance store = fakes.new Governance();
  private final List<String> outcomes = new ArrayList<>();
  private PluginPackageGovernance service;

  @BeforeEach
  void setUp() {
    policies.members.put("demo/alice", Set.of(Permission.PACKAGE_MANAGE, Permission.PACKAGE_READ));
    policies.members.put("demo/bob", Set.of(Permission.APPROVAL_DECIDE, Permission.PACKAGE_READ));
    policies.members.put("other/bob", Set.of(Permission.PACKAGE_MANAGE));
    service =
        serviceWith(
            new ManagementQuotaPolicy(
                true, Duration.ofSeconds(60), Map.of(QuotaOperation.PROPOSE, 2)));
  }

  private PluginPackageGovernance serviceWith(ManagementQuotaPolicy quotaPolicy) {
    QuotaDecisionListener listener = (op, outcome) -> outcomes.add(op.wireName() + ":" + outcome);
    return new PluginPackageGovernance(
        new ProjectPolicy(policies, Set.of("admin")),
        new ManagementQuota(quotaStore, quotaPolicy, listener),
        store,
        Clock.systemUTC());
  }

  private PluginPackageAction install() {
    return PluginPackageAction.of("install", "acme-lint", "1.0.0", DIGEST);
  }

  @Test
  void proposeRunsPolicyThenQuotaThenMutation() {
    ProposeResult result = service.propose(ALICE, "demo", "r1", install()).result();
    assertThat(result.created()).isTrue();
    assertThat(fakes.calls)
        .containsExactly(
            "policy.read", "quota.plugin-package.propose", "store.approvalPolicy", "store.create");
    assertThat(result.proposal().state()).isEqualTo(ProposalState.PENDING);
    assertThat(result.proposal().actionDigest()).isEqualTo(install().digest());
  }

  @Test
  void invalidInputTouchesNoStore() {
    assertThatThrownBy(() -> service.propose(ALICE, "demo", "bad ref", install()))
        .isInstanceOf(ValidationException.class);
    assertThatThrownBy(() -> service.propose(ALICE, "d/emo", "r1", install()))
        .isInstanceOf(ValidationException.class);
    assertThatThrownBy(() -> service.decide(BOB, "demo", "a1", "d1", "maybe", DIGEST))
        .isInstanceOf(ValidationException.class);
    assertThatThrownBy(() -> service.decide(BOB, "demo", "a1", "d1", "approve", "sha256:1"))
        .isInstanceOf(ValidationException.class);
    assertThatThrownBy(() -> service.inspect(BOB, "demo", "p1", "i".repeat(129)))
        .isInstanceOf(ValidationException.class);
    assertThat(fakes.calls).isEmpty();
  }

  @Test
  void unauthorisedCallerCreatesAndConsumesNoBucket() {
    assertThatThrownBy(() -> service.propose(CAROL, "demo", "r1", install()))
        .isInstanceOf(ForbiddenException.class);
    assertThatThrownBy(() -> service.propose(BOB, "demo", "r1", install()))
        .isInstanceOf(ForbiddenException.class);
    assertThatThrownBy(() -> service.inspect(CAROL, "demo", "p1", "i1"))
        .isInstanceOf(ForbiddenException.class);
    assertThatThrownBy(() -> service.decide(ALICE, "demo", "a1", "d1", "approve", DIGEST))
        .isInstanceOf(ForbiddenException.class);
    assertThat(quotaStore.buckets).isEmpty();
    assertThat(fakes.calls).containsOnly("policy.read");
  }

  @Test
  void aGlobalAdministratorReadsAProjectItIsNoMemberOfButNeitherProposesNorDecidesNorInspects() {
    Principal admin = new Principal("admin");
    Proposal proposal = service.propose(ALICE, "demo", "r1", install()).result().proposal();
    assertThat(
            service.listProposals(admin, "demo", "pending", null, null, "req-1").result().items())
        .containsExactly(proposal);
    assertThat(service.proposal(admin, "demo", proposal.proposalId(), "req-2").result())
        .isEqualTo(proposal);
    assertThat(service.approval(admin, "demo", proposal.approvalId(), "req-3").result().state())
        .isEqualTo(ProposalState.PENDING);
    assertThatThrownBy(() -> service.propose(admin, "demo", "r2", install()))
        .isInstanceOf(ForbiddenException.class);
    assertThatThrownBy(
            () ->
                service.decide(
                    admin,
                    "demo",
                    proposal.approvalId(),
                    "d1",
                    "approve",
                    proposal.actionDigest().value()))
        .isInstanceOf(ForbiddenException.class);
    assertThatThrownBy(() -> service.inspect(admin, "demo", proposal.proposalId(), "i1"))
        .isInstanceOf(ForbiddenException.class);
  }

  @Test
  void quotaRejectionHappensBeforeAnyMutation() {
    service.propose(ALICE, "demo", "r1", install());
    service.propose(ALICE, "demo", "r2", install());
    fakes.calls.clear();
    assertThatThrownBy(() -> service.propose(ALICE, "demo", "r3", install()))
        .isInstanceOf(QuotaExceededException.class)
        .extracting(e -> ((QuotaExceededException) e).retryAfterSeconds())
        .isEqualTo(7L);
    assertThat(fakes.calls).containsExactly("policy.read", "quota.plugin-package.propose");
    assertThat(store.proposalsByRef).hasSize(2);
    assertThat(outcomes)
        .containsExactly(
            "plugin-package.propose:ALLOWED",
            "plugin-package.propose:ALLOWED",
            "plugin-package.propose:REJECTED");
  }

  @Test
  void exactReplayReturnsTheSameProposalAndConflictingReplayIsConflict() {
    Proposal first = service.propose(ALICE, "demo", "r1", install()).result().proposal();
    ProposeResult replay = service.propose(ALICE, "demo", "r1", install()).result();
    assertThat(replay.created()).isFalse();
    assertThat(replay.proposal()).isEqualTo(first);
    assertThat(outcomes).endsWith("plugin-package.propose:REPLAYED");
    PluginPackageAction other = PluginPackageAction.of("install", "acme-lint", "2.0.0", DIGEST);
    fakes.calls.clear();
    assertThatThrownBy(() -> service.propose(ALICE, "demo", "r1", other))
        .isInstanceOf(IdempotencyKeyReusedException.class);
    // Refused by the quota receipt: not counted, nothing written or read.
    assertThat(fakes.calls).containsExactly("policy.read", "quota.plugin-package.propose");
    assertThat(outcomes).endsWith("plugin-package.propose:KEY_REUSED");
    assertThat(quotaStore.buckets.values().iterator().next()).hasSize(1);
  }

  @Test
  void actionRefReusedAfterTheQuotaWindowIsStillKeyReused() {
    service.propose(ALICE, "demo", "r1", install());
    quotaStore.buckets.clear(); // the window ended: the bucket no longer remembers r1
    PluginPackageAction other = PluginPackageAction.of("install", "acme-lint", "2.0.0", DIGEST);
    assertThatThrownBy(() -> service.propose(ALICE, "demo", "r1", other))
        .isInstanceOf(IdempotencyKeyReusedException.class);
    assertThat(store.proposalsByRef).hasSize(1);
  }

  @Test
  void inspectionIdSpentOnOneProposalCannotReadAnother() {
    Proposal a = service.propose(ALICE, "demo", "r1", install()).result().proposal();
    Proposal b = service.propose(ALICE, "demo", "r2", install()).result().proposal();
    assertThat(service.inspect(BOB, "demo", a.proposalId(), "i1").result().proposal()).isEqualTo(a);
    fakes.calls.clear();
    assertThatThrownBy(() -> service.inspect(BOB, "demo", b.proposalId(), "i1"))
        .isInstanceOf(IdempotencyKeyReusedException.class);
    assertThat(fakes.calls).containsExactly("policy.read", "quota.plugin-package.inspect");
    assertThat(outcomes).endsWith("plugin-package.inspect:KEY_REUSED");
    // The same read replays.
    assertThat(service.inspect(BOB, "demo", a.proposalId(), "i1").result().proposal()).isEqualTo(a);
    assertThat(outcomes).endsWith("plugin-package.inspect:REPLAYED");
  }

  @Test
  void decisionIdReusedOnAnotherApprovalIsKeyReusedInAndAfterTheWindow() {
    Proposal a = service.propose(ALICE, "demo", "r1", install()).result().proposal();
    Proposal b = service.propose(ALICE, "demo", "r2", install()).result().proposal();
    String digest = a.actionDigest().value();
    service.decide(BOB, "demo", a.approvalId(), "d1", "approve", digest);
    assertThatThrownBy(() -> service.decide(BOB, "demo", b.approvalId(), "d1", "approve", digest))
        .isInstanceOf(IdempotencyKeyReusedException.class);
    assertThat(outcomes).endsWith("plugin-package.decide:KEY_REUSED");

    quotaStore.buckets.clear(); // the window ended
    assertThatThrownBy(() -> service.decide(BOB, "demo", b.approvalId(), "d1", "approve", digest))
        .isInstanceOf(IdempotencyKeyReusedException.class);
    assertThatThrownBy(() -> service.decide(BOB, "demo", a.approvalId(), "d1", "reject", digest))
        .isInstanceOf(IdempotencyKeyReusedException.class);
    assertThat(store.approvals.get("demo/" + b.approvalId()).state())
        .isEqualTo(ProposalState.PENDING);
  }

  @Test
  void fourEyesDecisionReplayAndSecondDecision() {
    Proposal p = service.propose(ALICE, "demo", "r1", install()).result().proposal();
    String digest = p.actionDigest().value();
    policies.members.put(
        "demo/alice", Set.of(Permission.PACKAGE_MANAGE, Permission.APPROVAL_DECIDE));
    assertThatThrownBy(() -> service.decide(ALICE, "demo", p.approvalId(), "d0", "approve", digest))
        .isInstanceOf(ForbiddenException.class)
        .hasMessageContaining("four-eyes");
    assertThat(quotaStore.buckets.keySet()).noneMatch(k -> k.operation() == QuotaOperation.DECIDE);

    Approval approved =
        service.decide(BOB, "demo", p.approvalId(), "d1", "approve", digest).result();
    assertThat(approved.state()).isEqualTo(ProposalState.APPROVED);
    assertThat(service.decide(BOB, "demo", p.approvalId(), "d1", "approve", digest).result())
        .isEqualTo(approved);
    assertThatThrownBy(() -> service.decide(BOB, "demo", p.approvalId(), "d1", "reject", digest))
        .isInstanceOf(IdempotencyKeyReusedException.class);
    assertThatThrownBy(() -> service.decide(BOB, "demo", p.approvalId(), "d2", "reject", digest))
        .isExactlyInstanceOf(ConflictException.class);
  }

  @Test
  void twoOfThreeApproversDecideOnceEachAndTheSecondApproveApproves() {
    policies.members.put("demo/carol", Set.of(Permission.APPROVAL_DECIDE));
    policies.members.put("demo/dave", Set.of(Permission.APPROVAL_DECIDE));
    Principal dave = new Principal("dave");
    service.putApprovalPolicy(new Principal("admin"), "demo", 2);
    Proposal p = service.propose(ALICE, "demo", "r1", install()).result().proposal();
    String digest = p.actionDigest().value();

    Approval first = service.decide(BOB, "demo", p.approvalId(), "d1", "approve", digest).result();
    assertThat(first.pending()).isTrue();
    assertThat(first.requiredApprovals()).isEqualTo(2);
    assertThat(first.approvals()).isEqualTo(1);
    assertThat(first.decisionId()).isNull();
    assertThat(service.decide(BOB, "demo", p.approvalId(), "d1", "approve", digest).result())
        .isEqualTo(first);
    assertThatThrownBy(() -> service.decide(BOB, "demo", p.approvalId(), "d1b", "approve", digest))
        .isExactlyInstanceOf(ConflictException.class)
        .hasMessageContaining("already decided");
    assertThatThrownBy(() -> service.decide(ALICE, "demo", p.approvalId(), "d0", "approve", digest))
        .isInstanceOf(ForbiddenException.class);

    Approval second =
        service.decide(CAROL, "demo", p.approvalId(), "d2", "approve", digest).result();
    assertThat(second.state()).isEqualTo(ProposalState.APPROVED);
    assertThat(second.decisionId()).isEqualTo("d2");
    assertThat(second.decidedBy()).isEqualTo("carol");
    assertThat(second.decisions())
        .extracting(ApprovalDecision::decidedBy)
        .containsExactly("bob", "carol");
    assertThatThrownBy(() -> service.decide(dave, "demo", p.approvalId(), "d3", "reject", digest))
        .isExactlyInstanceOf(ConflictException.class);
    // A replay of the first approve still answers the approval as it is now.
    assertThat(service.decide(BOB, "demo", p.approvalId(), "d1", "approve", digest).result())
        .isEqualTo(second);
  }

  @Test
  void oneRejectRejectsAndTheBoundNumberSurvivesAPolicyChange() {
    policies.members.put("demo/carol", Set.of(Permission.APPROVAL_DECIDE));
    Principal admin = new Principal("admin");
    service.putApprovalPolicy(admin, "demo", 3);
    Proposal p = service.propose(ALICE, "demo", "r1", install()).result().proposal();
    String digest = p.actionDigest().value();
    service.putApprovalPolicy(admin, "demo", 1);
    Approval after = service.decide(BOB, "demo", p.approvalId(), "d1", "approve", digest).result();
    assertThat(after.pending()).isTrue();
    assertThat(after.requiredApprovals()).isEqualTo(3);
    Approval rejected =
        service.decide(CAROL, "demo", p.approvalId(), "d2", "reject", digest).result();
    assertThat(rejected.state()).isEqualTo(ProposalState.REJECTED);
    assertThat(rejected.decision()).isEqualTo(Decision.REJECT);
    // A proposal made after the change binds the new number.
    Proposal q = service.propose(ALICE, "demo", "r2", install()).result().proposal();
    assertThat(
            service
                .decide(BOB, "demo", q.approvalId(), "d3", "approve", q.actionDigest().value())
                .result()
                .state())
        .isEqualTo(ProposalState.APPROVED);
  }

  @Test
  void approvalPolicyIsValidatedThenAuthorisedThenStored() {
    Principal admin = new Principal("admin");
    for (long bad : new long[] {0, 6, -1, Long.MAX_VALUE}) {
      assertThatThrownBy(() -> service.putApprovalPolicy(admin, "demo", bad))
          .isInstanceOf(ValidationException.class)
          .hasMessageContaining("requiredApprovals");
    }
    assertThatThrownBy(() -> service.putApprovalPolicy(BOB, "demo", 2))
        .isInstanceOf(ForbiddenException.class);
    assertThat(fakes.calls).doesNotContain("store.putApprovalPolicy");
    assertThat(service.approvalPolicy(BOB, "demo").requiredApprovals()).isEqualTo(1);
    assertThat(service.approvalPolicy(BOB, "demo").revision()).isZero();
    ApprovalPolicy set = service.putApprovalPolicy(admin, "demo", 2);
    assertThat(set.revision()).isEqualTo(1);
    assertThat(set.setBy()).isEqualTo("admin");
    assertThat(service.putApprovalPolicy(admin, "demo", 2)).isEqualTo(set);
    assertThat(service.approvalPolicy(BOB, "demo")).isEqualTo(set);
    assertThatThrownBy(() -> service.approvalPolicy(CAROL, "demo"))
        .isInstanceOf(ForbiddenException.class);
  }

  @Test
  void mismatchedDigestIsConflictAndDoesNotDecide() {
    Proposal p = service.propose(ALICE, "demo", "r1", install()).result().proposal();
    assertThatThrownBy(
            () ->
                service.decide(
                    BOB, "demo", p.approvalId(), "d1", "approve", "sha256:" + "c".repeat(64)))
        .isInstanceOf(ConflictException.class);
    assertThat(fakes.calls).doesNotContain("store.decide");
  }

  @Test
  void otherProjectAndMissingObjectsGiveTheSameConflict() {
    Proposal p = service.propose(ALICE, "demo", "r1", install()).result().proposal();
    // bob has package.manage in "other": the demo proposal does not exist there.
    Throwable foreign = catchConflict(() -> service.inspect(BOB, "other", p.proposalId(), "i1"));
    Throwable missing = catchConflict(() -> service.inspect(BOB, "other", "prp-none", "i2"));
    assertThat(foreign).hasMessage(missing.getMessage());
  }

  @Test
  void inspectConsumesQuotaBeforeReading() {
    Proposal p = service.propose(ALICE, "demo", "r1", install()).result().proposal();
    fakes.calls.clear();
    Inspection inspection = service.inspect(BOB, "demo", p.proposalId(), "i1").result();
    assertThat(inspection.proposal()).isEqualTo(p);
    assertThat(inspection.approval().approvalId()).isEqualTo(p.approvalId());
    assertThat(fakes.calls)
        .containsExactly(
            "policy.read",
            "quota.plugin-package.inspect",
            "store.findProposal",
            "store.findApproval");
  }

  @Test
  void inspectReadsTheProposalWithItsApprovalInOneStoreCallWhereTheStoreOffersIt() {
    Proposal p = service.propose(ALICE, "demo", "r1", install()).result().proposal();
    store.combinedRead = true;
    fakes.calls.clear();
    Inspection inspection = service.inspect(BOB, "demo", p.proposalId(), "i1").result();
    assertThat(inspection.proposal()).isEqualTo(p);
    assertThat(inspection.approval().approvalId()).isEqualTo(p.approvalId());
    assertThat(fakes.calls)
        .containsExactly(
            "policy.read", "quota.plugin-package.inspect", "store.findProposalWithApproval");
    // Absent, or in another Project: the same conflict as with two reads.
    Throwable foreign = catchConflict(() -> service.inspect(BOB, "other", p.proposalId(), "i2"));
    Throwable missing = catchConflict(() -> service.inspect(BOB, "demo", "prp-none", "i3"));
    assertThat(foreign).hasMessage(missing.getMessage());
  }

  @Test
  void aProposalWithoutItsApprovalIsAStoreFaultWithEitherRead() {
    for (boolean combined : new boolean[] {false, true}) {
      Proposal p = service.propose(ALICE, "demo", "r-" + combined, install()).result().proposal();
      store.approvals.remove("demo/" + p.approvalId());
      store.combinedRead = combined;
      assertThatThrownBy(() -> service.inspect(BOB, "demo", p.proposalId(), "i-" + combined))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("bindings disagree");
    }
  }

  @Test
  void unavailableQuotaFailsClosedWithoutMutation() {
    quotaStore.failing = true;
    assertThatThrownBy(() -> service.propose(ALICE, "demo", "r1", install()))
        .isInstanceOf(StoreUnavailableException.class);
    assertThat(store.proposalsByRef).isEmpty();
    assertThat(outcomes).containsExactly("plugin-package.propose:UNAVAILABLE");
  }

  @Test
  void disabledQuotaStoresNothing() {
    PluginPackageGovernance unlimited =
        serviceWith(new ManagementQuotaPolicy(false, Duration.ofSeconds(60), Map.of()));
    assertThat(unlimited.propose(ALICE, "demo", "r1", install()).rateLimits()).isEmpty();
    assertThat(quotaStore.buckets).isEmpty();
  }

  @Test
  void everyResultCarriesTheRateLimitOfTheDecisionThatAdmittedIt() {
    var proposed = service.propose(ALICE, "demo", "r1", install());
    assertThat(proposed.rateLimits())
        .singleElement()
        .satisfies(
            l -> {
              assertThat(l.name()).isEqualTo("plugin-package.propose");
              assertThat(l.limit()).isEqualTo(2);
              assertThat(l.remaining()).isEqualTo(1);
              assertThat(l.windowSeconds()).isEqualTo(60);
            });
    String proposalId = proposed.result().proposal().proposalId();
    assertThat(service.inspect(BOB, "demo", proposalId, "i1").rateLimits())
        .singleElement()
        .satisfies(l -> assertThat(l.name()).isEqualTo("plugin-package.inspect"));
    // The refusal carries the refusing limit: nothing left.
    service.propose(ALICE, "demo", "r2", PluginPackageAction.of("remove", "x", "1.0.0", null));
    assertThatThrownBy(
            () ->
                service.propose(
                    ALICE, "demo", "r3", PluginPackageAction.of("remove", "y", "1.0.0", null)))
        .isInstanceOfSatisfying(
            QuotaExceededException.class, e -> assertThat(e.rateLimit().remaining()).isZero());
  }

  private static Throwable catchConflict(Runnable r) {
    try {
      r.run();
    } catch (ConflictException e) {
      return e;
    }
    throw new AssertionError("expected a conflict");
  }
}
