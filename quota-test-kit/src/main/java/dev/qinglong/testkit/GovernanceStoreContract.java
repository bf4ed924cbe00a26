package dev.qinglong.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.governance.Approval;
import dev.qinglong.core.governance.ApprovalDecision;
import dev.qinglong.core.governance.ApprovalPolicy;
import dev.qinglong.core.governance.ArtifactUpload;
import dev.qinglong.core.governance.Decision;
import dev.qinglong.core.governance.DecisionCommand;
import dev.qinglong.core.governance.GovernanceStore;
import dev.qinglong.core.governance.Inspection;
import dev.qinglong.core.governance.PluginPackageAction;
import dev.qinglong.core.governance.PluginPackageGovernance;
import dev.qinglong.core.governance.Proposal;
import dev.qinglong.core.governance.ProposalKey;
import dev.qinglong.core.governance.ProposalPage;
import dev.qinglong.core.governance.ProposalState;
import dev.qinglong.core.governance.ProposeResult;
import dev.qinglong.core.kernel.ConflictException;
import dev.qinglong.core.kernel.ForbiddenException;
import dev.qinglong.core.kernel.IdempotencyKeyReusedException;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectPolicy;
import dev.qinglong.core.quota.ManagementQuota;
import dev.qinglong.core.quota.ManagementQuotaPolicy;
import dev.qinglong.core.quota.QuotaDecisionListener;
import dev.qinglong.core.quota.QuotaExceededException;
import dev.qinglong.core.quota.QuotaKey;
import dev.qinglong.core.quota.QuotaOperation;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Contract of {@link GovernanceStore}, and of the governance service running on the adapter's real
 * stores: idempotent create, conflicting replay, four eyes, decision replay and conflicts.
 */
public abstract class GovernanceStoreContract extends StoreContractSupport {
  private static final String DIGEST = "sha256:" + "1".repeat(64);
  private static final Principal ALICE = new Principal("alice");
  private static final Principal BOB = new Principal("bob");

  private GovernanceStore store() {
    return fixture.governanceStore(dataSource);
  }

  private static PluginPackageAction install(String version) {
    return PluginPackageAction.of("install", "acme-lint", version, DIGEST);
  }

  private static Proposal proposal(String project, String ref, PluginPackageAction action) {
    return proposal(project, ref, action, 1_700_000_000_123L);
  }

  private static Proposal proposal(
      String project, String ref, PluginPackageAction action, long createdAtMs) {
    return pendingProposal(project, ref, action, createdAtMs);
  }

  private static Approval approvalOf(Proposal p) {
    return Approval.pending(p, 1);
  }

  private ProposeResult create(Proposal p) {
    return store().createIfAbsent(p, approvalOf(p));
  }

  @Test
  void createdProposalAndApprovalRoundTrip() {
    Proposal p = proposal(unique("prj"), "ref-1", install("1.0.0"));
    ProposeResult result = create(p);
    assertThat(result).isEqualTo(new ProposeResult(p, true));
    assertThat(store().findProposal(p.projectId(), p.proposalId())).contains(p);
    assertThat(store().findApproval(p.projectId(), p.approvalId())).contains(approvalOf(p));
  }

  @Test
  void removeActionWithoutArtifactRoundTrips() {
    Proposal p =
        proposal(unique("prj"), "ref-rm", PluginPackageAction.of("remove", "acme", "2.0.0", null));
    create(p);
    assertThat(store().findProposal(p.projectId(), p.proposalId())).contains(p);
  }

  @Test
  void sameActionRefReturnsTheExistingProposal() {
    String project = unique("prj");
    Proposal first = proposal(project, "ref-1", install("1.0.0"));
    create(first);
    ProposeResult again = create(proposal(project, "ref-1", install("9.9.9")));
    assertThat(again.created()).isFalse();
    assertThat(again.proposal()).isEqualTo(first);
  }

  @Test
  void sameActionRefInAnotherProjectIsIndependent() {
    Proposal a = proposal(unique("prj"), "ref-1", install("1.0.0"));
    Proposal b = proposal(unique("prj"), "ref-1", install("1.0.0"));
    assertThat(create(a).created()).isTrue();
    assertThat(create(b).created()).isTrue();
  }

  @Test
  void aProposalIsReadWithItsApprovalAndOnlyInItsProject() {
    Proposal p = proposal(unique("prj"), "ref-1", install("1.0.0"));
    create(p);
    Inspection found =
        store().findProposalWithApproval(p.projectId(), p.proposalId()).orElseThrow();
    assertThat(found.proposal()).isEqualTo(p);
    assertThat(found.approval()).isEqualTo(approvalOf(p));
    Approval decided =
        store()
            .recordDecision(
                new DecisionCommand(
                    p.projectId(),
                    p.approvalId(),
                    "d1",
                    Decision.APPROVE,
                    "bob",
                    1_700_000_009_000L))
            .orElseThrow();
    Inspection after =
        store().findProposalWithApproval(p.projectId(), p.proposalId()).orElseThrow();
    assertThat(after.approval()).isEqualTo(decided);
    assertThat(after.proposal())
        .isEqualTo(store().findProposal(p.projectId(), p.proposalId()).orElseThrow());
    assertThat(store().findProposalWithApproval(unique("prj"), p.proposalId())).isEmpty();
    assertThat(store().findProposalWithApproval(p.projectId(), "prp-none")).isEmpty();
  }

  @Test
  void theInspectReadIsOneStatementAndOneConnection() {
    Proposal p = proposal(unique("prj"), "ref-1", install("1.0.0"));
    create(p);
    FaultyDataSource counting = new FaultyDataSource(dataSource);
    GovernanceStore counted = fixture.governanceStore(counting);

    Inspection found =
        counted.findProposalWithApproval(p.projectId(), p.proposalId()).orElseThrow();

    assertThat(found.approval()).isEqualTo(approvalOf(p));
    // The inspect route reads this on every request: one round trip on one pooled connection.
    assertThat(counting.statements()).isEqualTo(1);
    assertThat(counting.connections()).isEqualTo(1);
  }

  @Test
  void objectsOfAnotherProjectAreNotFound() {
    Proposal p = proposal(unique("prj"), "ref-1", install("1.0.0"));
    create(p);
    String other = unique("prj");
    assertThat(store().findProposal(other, p.proposalId())).isEmpty();
    assertThat(store().findApproval(other, p.approvalId())).isEmpty();
    assertThat(
            store()
                .recordDecision(
                    new DecisionCommand(other, p.approvalId(), "d1", Decision.APPROVE, "bob", 5L)))
        .isEmpty();
    assertThat(store().findApproval(p.projectId(), p.approvalId()).orElseThrow().pending())
        .isTrue();
  }

  @Test
  void decisionIsRecordedOnceAndTheProposalFollows() {
    Proposal p = proposal(unique("prj"), "ref-1", install("1.0.0"));
    create(p);
    DecisionCommand approve =
        new DecisionCommand(p.projectId(), p.approvalId(), "d1", Decision.APPROVE, "bob", 42L);
    Approval decided = store().recordDecision(approve).orElseThrow();
    assertThat(decided.state()).isEqualTo(ProposalState.APPROVED);
    assertThat(decided.decisionId()).isEqualTo("d1");
    assertThat(decided.decidedBy()).isEqualTo("bob");
    assertThat(decided.decidedAtMs()).isEqualTo(42L);
    assertThat(store().findProposal(p.projectId(), p.proposalId()).orElseThrow().state())
        .isEqualTo(ProposalState.APPROVED);

    // Replay and a second, different decision both leave the stored decision untouched.
    assertThat(store().recordDecision(approve)).contains(decided);
    DecisionCommand reject =
        new DecisionCommand(p.projectId(), p.approvalId(), "d2", Decision.REJECT, "carol", 43L);
    assertThat(store().recordDecision(reject)).contains(decided);
    assertThat(store().findApproval(p.projectId(), p.approvalId())).contains(decided);
  }

  private Proposal approved(String project, String ref, PluginPackageAction action) {
    Proposal p = proposal(project, ref, action);
    create(p);
    store()
        .recordDecision(
            new DecisionCommand(project, p.approvalId(), "d-" + ref, Decision.APPROVE, "bob", 50L));
    return store().findProposal(project, p.proposalId()).orElseThrow();
  }

  private List<Proposal> approvedUnpublishedOf(String project) {
    List<Proposal> out = new ArrayList<>();
    String afterProject = "";
    String afterProposal = "";
    while (true) {
      List<Proposal> page = store().listApprovedUnpublished(afterProject, afterProposal, 2);
      for (Proposal p : page) {
        if (p.projectId().equals(project)) {
          out.add(p);
        }
      }
      if (page.size() < 2) {
        return out;
      }
      Proposal last = page.get(page.size() - 1);
      afterProject = last.projectId();
      afterProposal = last.proposalId();
    }
  }

  private void uploaded(String project) {
    store()
        .recordArtifactUpload(
            new ArtifactUpload(project, Sha256Digest.parse("digest", DIGEST), 3L, 1L));
  }

  @Test
  void approvedInstallsAreListedPublishedOnceAndThenServed() {
    String project = unique("prj");
    uploaded(project);
    Proposal a = approved(project, "ref-a", install("1.0.0"));
    Proposal b = approved(project, "ref-b", install("2.0.0"));
    Proposal pending = proposal(project, "ref-p", install("3.0.0"));
    create(pending);
    approved(project, "ref-rm", PluginPackageAction.of("remove", "acme-lint", "1.0.0", null));
    Proposal rejected = proposal(project, "ref-r", install("4.0.0"));
    create(rejected);
    store()
        .recordDecision(
            new DecisionCommand(
                project, rejected.approvalId(), "d-r", Decision.REJECT, "bob", 51L));

    // Only approved install/upgrade proposals, paged by keyset in (project, proposal) order.
    List<Proposal> listed = approvedUnpublishedOf(project);
    assertThat(listed)
        .extracting(Proposal::proposalId)
        .containsExactlyElementsOf(
            List.of(a.proposalId(), b.proposalId()).stream().sorted().toList());
    assertThat(store().isArtifactPublished(project, a.action().artifactDigest())).isFalse();

    assertThat(store().markPublished(project, a.proposalId(), 99L)).isTrue();
    // Idempotent: a second publication (a repeated pass, a second worker) changes nothing.
    assertThat(store().markPublished(project, a.proposalId(), 100L)).isFalse();
    Proposal published = store().findProposal(project, a.proposalId()).orElseThrow();
    assertThat(published.state()).isEqualTo(ProposalState.PUBLISHED);
    assertThat(published.updatedAtMs()).isEqualTo(99L);
    assertThat(approvedUnpublishedOf(project))
        .extracting(Proposal::proposalId)
        .containsExactly(b.proposalId());
    assertThat(store().isArtifactPublished(project, a.action().artifactDigest())).isTrue();

    // Neither pending, rejected, absent nor another Project's proposals can be published.
    assertThat(store().markPublished(project, pending.proposalId(), 101L)).isFalse();
    assertThat(store().markPublished(project, rejected.proposalId(), 101L)).isFalse();
    assertThat(store().markPublished(project, "prp-missing", 101L)).isFalse();
    assertThat(store().markPublished(unique("prj"), b.proposalId(), 101L)).isFalse();
    assertThat(store().findProposal(project, pending.proposalId()).orElseThrow().state())
        .isEqualTo(ProposalState.PENDING);
    assertThat(store().findProposal(project, rejected.proposalId()).orElseThrow().state())
        .isEqualTo(ProposalState.REJECTED);
    // Published in one Project means nothing for another.
    assertThat(store().isArtifactPublished(unique("prj"), a.action().artifactDigest())).isFalse();
  }

  @Test
  void anyProposalInAnyStateOrProjectReferencesItsArtifact() {
    String project = unique("prj");
    Sha256Digest artifact = Sha256Digest.of(unique("artifact").getBytes(StandardCharsets.UTF_8));
    String digest = artifact.value();
    assertThat(store().isArtifactReferenced(artifact)).isFalse();
    Proposal pending =
        proposal(project, "ref-ref", PluginPackageAction.of("install", "acme", "1.0.0", digest));
    create(pending);
    assertThat(store().isArtifactReferenced(artifact)).isTrue();
    store()
        .recordDecision(
            new DecisionCommand(
                project, pending.approvalId(), "d-ref", Decision.REJECT, "bob", 5L));
    // Rejected still references it (a re-proposal may follow); another digest is not referenced.
    assertThat(store().isArtifactReferenced(artifact)).isTrue();
    assertThat(
            store()
                .isArtifactReferenced(
                    Sha256Digest.of(unique("other").getBytes(StandardCharsets.UTF_8))))
        .isFalse();
  }

  @Test
  void concurrentPublicationsOfOneProposalPublishItExactlyOnce() throws Exception {
    String project = unique("prj");
    Proposal p = approved(project, "ref-c", install("1.0.0"));
    uploaded(project);
    DataSource second = fixture.newDataSource();
    GovernanceStore[] stores = {store(), fixture.governanceStore(second)};
    try {
      List<Callable<Boolean>> publications = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        GovernanceStore s = stores[i % 2];
        long at = 200L + i;
        publications.add(() -> s.markPublished(project, p.proposalId(), at));
      }
      assertThat(race(publications).stream().filter(won -> won)).hasSize(1);
    } finally {
      if (second instanceof AutoCloseable closeable) {
        closeable.close();
      }
    }
    assertThat(store().findProposal(project, p.proposalId()).orElseThrow().state())
        .isEqualTo(ProposalState.PUBLISHED);
  }

  @Test
  void decisionIdAlreadyUsedInTheProjectDoesNotDecideAnotherApproval() {
    String project = unique("prj");
    Proposal a = proposal(project, "ref-a", install("1.0.0"));
    Proposal b = proposal(project, "ref-b", install("2.0.0"));
    create(a);
    create(b);
    store()
        .recordDecision(
            new DecisionCommand(project, a.approvalId(), "d1", Decision.APPROVE, "bob", 1L));
    Optional<Approval> second =
        store()
            .recordDecision(
                new DecisionCommand(project, b.approvalId(), "d1", Decision.REJECT, "bob", 2L));
    assertThat(second.orElseThrow().pending()).isTrue();
    assertThat(store().findProposal(project, b.proposalId()).orElseThrow().state())
        .isEqualTo(ProposalState.PENDING);
  }

  @Test
  void concurrentCreatesOfOneActionRefYieldOneProposal() throws Exception {
    String project = unique("prj");
    List<GovernanceStore> instances =
        List.of(
            fixture.governanceStore(fixture.newDataSource()),
            fixture.governanceStore(fixture.newDataSource()));
    List<Callable<ProposeResult>> creates = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      GovernanceStore instance = instances.get(t % 2);
      Proposal candidate = proposal(project, "ref-race", install("1.0.0"));
      creates.add(() -> instance.createIfAbsent(candidate, approvalOf(candidate)));
    }
    List<ProposeResult> results = race(creates);
    assertThat(results.stream().filter(ProposeResult::created)).hasSize(1);
    assertThat(results.stream().map(r -> r.proposal().proposalId()).distinct()).hasSize(1);
  }

  @Test
  void concurrentDecisionsFromTwoInstancesRecordExactlyOne() throws Exception {
    Proposal p = proposal(unique("prj"), "ref-1", install("1.0.0"));
    create(p);
    List<GovernanceStore> instances =
        List.of(
            fixture.governanceStore(fixture.newDataSource()),
            fixture.governanceStore(fixture.newDataSource()));
    List<Callable<Optional<Approval>>> decisions = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      GovernanceStore instance = instances.get(t % 2);
      DecisionCommand c =
          new DecisionCommand(
              p.projectId(),
              p.approvalId(),
              "d" + t,
              t % 2 == 0 ? Decision.APPROVE : Decision.REJECT,
              "bob",
              t);
      decisions.add(() -> instance.recordDecision(c));
    }
    List<String> winners = race(decisions).stream().map(a -> a.orElseThrow().decisionId()).toList();
    assertThat(winners).allMatch(w -> w.equals(winners.get(0)));
    Approval stored = store().findApproval(p.projectId(), p.approvalId()).orElseThrow();
    assertThat(stored.decisionId()).isEqualTo(winners.get(0));
    assertThat(store().findProposal(p.projectId(), p.proposalId()).orElseThrow().state())
        .isEqualTo(stored.state());
  }

  // --- N-of-M approvals ---

  private Proposal proposedNeeding(String project, int requiredApprovals) {
    Proposal p = proposal(project, unique("ref"), install("1.0.0"));
    assertThat(store().createIfAbsent(p, Approval.pending(p, requiredApprovals)).created())
        .isTrue();
    return p;
  }

  private static DecisionCommand decision(
      Proposal p, String decisionId, Decision decision, String by, long atMs) {
    return new DecisionCommand(p.projectId(), p.approvalId(), decisionId, decision, by, atMs);
  }

  private Approval stored(Proposal p) {
    return store().findApproval(p.projectId(), p.approvalId()).orElseThrow();
  }

  private Proposal storedProposal(Proposal p) {
    return store().findProposal(p.projectId(), p.proposalId()).orElseThrow();
  }

  @Test
  void aPendingApprovalRoundTripsItsRequiredApprovals() {
    Proposal p = proposedNeeding(unique("prj"), 3);
    assertThat(stored(p)).isEqualTo(Approval.pending(p, 3));
    assertThat(stored(p).decisions()).isEmpty();
  }

  @Test
  void twoOfThreeIsApprovedByTheSecondDistinctApprover() {
    Proposal p = proposedNeeding(unique("prj"), 2);

    Approval first =
        store().recordDecision(decision(p, "d-bob", Decision.APPROVE, "bob", 10L)).orElseThrow();
    assertThat(first.pending()).isTrue();
    assertThat(first.decisionId()).isNull();
    assertThat(first.decidedBy()).isNull();
    assertThat(first.decisions())
        .containsExactly(new ApprovalDecision("d-bob", Decision.APPROVE, "bob", 10L));
    assertThat(storedProposal(p).state()).isEqualTo(ProposalState.PENDING);
    assertThat(stored(p)).isEqualTo(first);

    // The same approver again, under another decision id: not recorded.
    assertThat(store().recordDecision(decision(p, "d-bob-2", Decision.APPROVE, "bob", 11L)))
        .contains(first);
    assertThat(store().recordDecision(decision(p, "d-bob-3", Decision.REJECT, "bob", 11L)))
        .contains(first);

    Approval approved =
        store()
            .recordDecision(decision(p, "d-carol", Decision.APPROVE, "carol", 12L))
            .orElseThrow();
    assertThat(approved.state()).isEqualTo(ProposalState.APPROVED);
    assertThat(approved.decisionId()).isEqualTo("d-carol");
    assertThat(approved.decision()).isEqualTo(Decision.APPROVE);
    assertThat(approved.decidedBy()).isEqualTo("carol");
    assertThat(approved.decidedAtMs()).isEqualTo(12L);
    assertThat(approved.requiredApprovals()).isEqualTo(2);
    assertThat(approved.decisions())
        .containsExactly(
            new ApprovalDecision("d-bob", Decision.APPROVE, "bob", 10L),
            new ApprovalDecision("d-carol", Decision.APPROVE, "carol", 12L));
    Proposal after = storedProposal(p);
    assertThat(after.state()).isEqualTo(ProposalState.APPROVED);
    assertThat(after.updatedAtMs()).isEqualTo(12L);

    // The third approver comes too late; every read returns the decisions.
    assertThat(store().recordDecision(decision(p, "d-dave", Decision.APPROVE, "dave", 13L)))
        .contains(approved);
    assertThat(stored(p)).isEqualTo(approved);
    assertThat(store().findProposalWithApproval(p.projectId(), p.proposalId()).orElseThrow())
        .isEqualTo(new Inspection(after, approved));
  }

  @Test
  void theProposersDecisionIsRefusedByTheDatabase() {
    Proposal p = proposedNeeding(unique("prj"), 2);
    Approval pending = stored(p);

    assertThat(store().recordDecision(decision(p, "d-own", Decision.APPROVE, "alice", 10L)))
        .contains(pending);
    assertThat(stored(p).decisions()).isEmpty();

    // Past the store, straight into the table: its CHECK refuses the proposer as decider.
    String insert =
        "INSERT INTO plugin_package_approval_decisions (project_id, approval_id, decision_id,"
            + " decision, decided_by, proposed_by, decided_at_ms) VALUES (?, ?, ?, 'approve', ?,"
            + " ?, 10)";
    assertThatThrownBy(
            () ->
                fixture.ownerUpdate(
                    insert, p.projectId(), p.approvalId(), "d-own-2", "alice", "alice"))
        .isInstanceOf(IllegalStateException.class);
    // Nor can a decision name another proposer than its approval's (the foreign key).
    assertThatThrownBy(
            () ->
                fixture.ownerUpdate(
                    insert, p.projectId(), p.approvalId(), "d-own-3", "alice", "mallory"))
        .isInstanceOf(IllegalStateException.class);
    assertThat(stored(p)).isEqualTo(pending);
  }

  @Test
  void oneRejectEndsTheApprovalEvenAfterAnApprove() {
    Proposal p = proposedNeeding(unique("prj"), 3);
    store().recordDecision(decision(p, "d-bob", Decision.APPROVE, "bob", 10L));
    Approval rejected =
        store().recordDecision(decision(p, "d-carol", Decision.REJECT, "carol", 11L)).orElseThrow();
    assertThat(rejected.state()).isEqualTo(ProposalState.REJECTED);
    assertThat(rejected.decisionId()).isEqualTo("d-carol");
    assertThat(rejected.decision()).isEqualTo(Decision.REJECT);
    assertThat(rejected.decidedBy()).isEqualTo("carol");
    assertThat(rejected.decisions())
        .extracting(ApprovalDecision::decisionId)
        .containsExactly("d-bob", "d-carol");
    assertThat(storedProposal(p).state()).isEqualTo(ProposalState.REJECTED);
    assertThat(store().recordDecision(decision(p, "d-dave", Decision.APPROVE, "dave", 12L)))
        .contains(rejected);
  }

  @Test
  void aDecisionIdUsedOnAnotherApprovalIsNotRecorded() {
    String project = unique("prj");
    Proposal a = proposedNeeding(project, 2);
    Proposal b = proposedNeeding(project, 2);
    store().recordDecision(decision(a, "d-shared", Decision.APPROVE, "bob", 10L));
    Approval untouched = stored(b);
    assertThat(store().recordDecision(decision(b, "d-shared", Decision.APPROVE, "carol", 11L)))
        .contains(untouched);
    assertThat(stored(b).decisions()).isEmpty();
    assertThat(stored(a).decisions())
        .extracting(ApprovalDecision::decidedBy)
        .containsExactly("bob");
    // In another Project the same id is free.
    Proposal elsewhere = proposedNeeding(unique("prj"), 2);
    assertThat(
            store()
                .recordDecision(decision(elsewhere, "d-shared", Decision.APPROVE, "carol", 12L))
                .orElseThrow()
                .decisions())
        .hasSize(1);
  }

  @Test
  void concurrentApprovesOfTwoOfThreeRecordExactlyTwo() throws Exception {
    DataSource first = fixture.newDataSource();
    DataSource second = fixture.newDataSource();
    List<GovernanceStore> instances =
        List.of(fixture.governanceStore(first), fixture.governanceStore(second));
    List<String> approvers = List.of("bob", "carol", "dave");
    for (int round = 0; round < 5; round++) {
      Proposal p = proposedNeeding(unique("prj"), 2);
      List<Callable<Approval>> approves = new ArrayList<>();
      for (int t = 0; t < approvers.size(); t++) {
        GovernanceStore instance = instances.get(t % 2);
        DecisionCommand c =
            decision(p, "d-" + approvers.get(t), Decision.APPROVE, approvers.get(t), 100L + t);
        approves.add(() -> instance.recordDecision(c).orElseThrow());
      }
      List<Approval> answers = race(approves);

      Approval after = stored(p);
      assertThat(after.state()).isEqualTo(ProposalState.APPROVED);
      assertThat(after.decisions()).hasSize(2);
      assertThat(after.approvals()).isEqualTo(2);
      assertThat(after.decisionUnder(after.decisionId())).isPresent();
      // Each caller learns whether its own decision was recorded: exactly two were.
      int recorded = 0;
      for (int t = 0; t < approvers.size(); t++) {
        if (answers.get(t).decisionUnder("d-" + approvers.get(t)).isPresent()) {
          recorded++;
        }
      }
      assertThat(recorded).isEqualTo(2);
      // The proposal followed once, with the decision that ended the approval.
      Proposal proposal = storedProposal(p);
      assertThat(proposal.state()).isEqualTo(ProposalState.APPROVED);
      assertThat(proposal.updatedAtMs()).isEqualTo(after.decidedAtMs());
    }
    for (DataSource ds : List.of(first, second)) {
      if (ds instanceof AutoCloseable closeable) {
        closeable.close();
      }
    }
  }

  @Test
  void anApprovalKeepsTheNumberItWasProposedWith() {
    String project = unique("prj");
    store().putApprovalPolicy(project, 2, "admin");
    int bound = store().approvalPolicy(project).orElseThrow().requiredApprovals();
    Proposal p = proposal(project, "ref-bound", install("1.0.0"));
    store().createIfAbsent(p, Approval.pending(p, bound));

    store().putApprovalPolicy(project, 1, "admin");
    assertThat(store().recordDecision(decision(p, "d-bob", Decision.APPROVE, "bob", 10L)))
        .hasValueSatisfying(a -> assertThat(a.pending()).isTrue());
    assertThat(stored(p).requiredApprovals()).isEqualTo(2);
    assertThat(store().recordDecision(decision(p, "d-carol", Decision.APPROVE, "carol", 11L)))
        .hasValueSatisfying(a -> assertThat(a.state()).isEqualTo(ProposalState.APPROVED));
  }

  @Test
  void approvalPolicyRevisionsAreAppendedOnTheDatabaseClock() {
    String project = unique("prj");
    assertThat(store().approvalPolicy(project)).isEmpty();

    long before = fixture.databaseNowMs();
    ApprovalPolicy first = store().putApprovalPolicy(project, 2, "admin");
    long after = fixture.databaseNowMs();
    assertThat(first.projectId()).isEqualTo(project);
    assertThat(first.revision()).isEqualTo(1);
    assertThat(first.requiredApprovals()).isEqualTo(2);
    assertThat(first.setBy()).isEqualTo("admin");
    assertThat(first.setAtMs()).isBetween(before, after);
    assertThat(store().approvalPolicy(project)).contains(first);

    // The same number again changes nothing: the revision in force is returned as it is.
    assertThat(store().putApprovalPolicy(project, 2, "someone-else")).isEqualTo(first);

    ApprovalPolicy second = store().putApprovalPolicy(project, 3, "root");
    assertThat(second.revision()).isEqualTo(2);
    assertThat(second.requiredApprovals()).isEqualTo(3);
    assertThat(second.setBy()).isEqualTo("root");
    assertThat(store().approvalPolicy(project)).contains(second);
    assertThat(store().putApprovalPolicy(project, 2, "admin").revision()).isEqualTo(3);
    assertThat(store().approvalPolicy(unique("prj"))).isEmpty();
  }

  @Test
  void theApprovalReadsReturnEveryDecisionInOneStatement() {
    Proposal p = proposedNeeding(unique("prj"), 3);
    store().recordDecision(decision(p, "d-carol", Decision.APPROVE, "carol", 20L));
    Approval twice =
        store().recordDecision(decision(p, "d-bob", Decision.APPROVE, "bob", 21L)).orElseThrow();
    assertThat(twice.decisions())
        .extracting(ApprovalDecision::decidedBy)
        .containsExactly("carol", "bob");

    FaultyDataSource counting = new FaultyDataSource(dataSource);
    GovernanceStore counted = fixture.governanceStore(counting);
    Inspection found =
        counted.findProposalWithApproval(p.projectId(), p.proposalId()).orElseThrow();
    assertThat(found.approval()).isEqualTo(twice);
    assertThat(found.proposal()).isEqualTo(storedProposal(p));
    assertThat(counting.statements()).isEqualTo(1);
    assertThat(counted.findApproval(p.projectId(), p.approvalId())).contains(twice);
    assertThat(counting.statements()).isEqualTo(2);
  }

  @Test
  void serviceNeedsTheBoundNumberOfDistinctApprovers() {
    PluginPackageGovernance service = service(dataSource, Map.of());
    String project = seededProject();
    addMember(project, "carol", Permission.APPROVAL_DECIDE);
    addMember(project, "root", Permission.PROJECT_ADMIN);
    Principal carol = new Principal("carol");
    assertThat(service.putApprovalPolicy(new Principal("root"), project, 2).requiredApprovals())
        .isEqualTo(2);
    Proposal p = service.propose(ALICE, project, "ref-2", install("1.0.0")).result().proposal();
    String digest = p.actionDigest().value();

    Approval once = service.decide(BOB, project, p.approvalId(), "d1", "approve", digest).result();
    assertThat(once.pending()).isTrue();
    assertThat(once.requiredApprovals()).isEqualTo(2);
    assertThatThrownBy(() -> service.decide(BOB, project, p.approvalId(), "d2", "approve", digest))
        .isInstanceOf(ConflictException.class);
    Approval approved =
        service.decide(carol, project, p.approvalId(), "d3", "approve", digest).result();
    assertThat(approved.state()).isEqualTo(ProposalState.APPROVED);
    assertThat(approved.decisions())
        .extracting(ApprovalDecision::decidedBy)
        .containsExactly("bob", "carol");
  }

  @Test
  void unreachableDatabaseIsUnavailable() {
    GovernanceStore broken = fixture.governanceStore(FaultyDataSource.unreachable());
    Proposal p = proposal(unique("prj"), "ref-1", install("1.0.0"));
    assertThatThrownBy(() -> broken.createIfAbsent(p, approvalOf(p)))
        .isInstanceOf(StoreUnavailableException.class);
    assertThatThrownBy(() -> broken.findProposal("p", "x"))
        .isInstanceOf(StoreUnavailableException.class);
  }

  // --- the governance service over the adapter's real stores ---

  private PluginPackageGovernance service(DataSource ds, Map<QuotaOperation, Integer> limits) {
    return new PluginPackageGovernance(
        new ProjectPolicy(fixture.policyStore(ds), Set.of("admin")),
        new ManagementQuota(
            fixture.quotaStore(ds),
            new ManagementQuotaPolicy(true, Duration.ofSeconds(60), limits),
            QuotaDecisionListener.NONE),
        fixture.governanceStore(ds),
        Clock.systemUTC());
  }

  private String seededProject() {
    String project = unique("prj");
    addMember(project, "alice", Permission.PACKAGE_MANAGE, Permission.APPROVAL_DECIDE);
    addMember(project, "bob", Permission.APPROVAL_DECIDE);
    return project;
  }

  @Test
  void serviceEnforcesFourEyesAndSingleDecision() {
    PluginPackageGovernance service = service(dataSource, Map.of());
    String project = seededProject();
    Proposal p = service.propose(ALICE, project, "ref-1", install("1.0.0")).result().proposal();
    String digest = p.actionDigest().value();

    assertThatThrownBy(
            () -> service.decide(ALICE, project, p.approvalId(), "d0", "approve", digest))
        .isInstanceOf(ForbiddenException.class);
    assertThat(fixture.readBucket(QuotaKey.user(project, "alice", QuotaOperation.DECIDE)))
        .isEmpty();

    Approval approved =
        service.decide(BOB, project, p.approvalId(), "d1", "approve", digest).result();
    assertThat(approved.state()).isEqualTo(ProposalState.APPROVED);
    assertThat(service.decide(BOB, project, p.approvalId(), "d1", "approve", digest).result())
        .isEqualTo(approved);
    assertThatThrownBy(() -> service.decide(BOB, project, p.approvalId(), "d2", "reject", digest))
        .isInstanceOf(ConflictException.class);
    assertThat(service.inspect(BOB, project, p.proposalId(), "i1").result().proposal().state())
        .isEqualTo(ProposalState.APPROVED);
  }

  @Test
  void serviceQuotaRejectionLeavesNoProposal() {
    PluginPackageGovernance service = service(dataSource, Map.of(QuotaOperation.PROPOSE, 1));
    String project = seededProject();
    service.propose(ALICE, project, "ref-1", install("1.0.0"));
    assertThatThrownBy(() -> service.propose(ALICE, project, "ref-2", install("2.0.0")))
        .isInstanceOf(QuotaExceededException.class);
    // The exact replay of the admitted ref is still answered (replayed receipt).
    assertThat(service.propose(ALICE, project, "ref-1", install("1.0.0")).result().created())
        .isFalse();
    // Nothing was stored for the rejected ref: creating it now is a first creation.
    assertThat(create(proposal(project, "ref-2", install("2.0.0"))).created()).isTrue();
  }

  // --- artifacts per Project ---

  @Test
  void anArtifactUploadedInAnotherProjectIsNeitherListedNorPublished() {
    String uploader = unique("prj");
    String project = unique("prj");
    Sha256Digest artifact = Sha256Digest.parse("digest", DIGEST);
    uploaded(uploader);
    Proposal p = approved(project, "ref-x", install("1.0.0"));

    // The content store is shared; only an upload into the proposal's own Project counts.
    assertThat(store().findArtifactUpload(project, artifact)).isEmpty();
    assertThat(approvedUnpublishedOf(project)).isEmpty();
    assertThat(store().markPublished(project, p.proposalId(), 99L)).isFalse();
    assertThat(store().findProposal(project, p.proposalId()).orElseThrow().state())
        .isEqualTo(ProposalState.APPROVED);
    assertThat(store().isArtifactPublished(project, artifact)).isFalse();

    // Uploaded into the Project, the same approved proposal is listed and published.
    uploaded(project);
    assertThat(approvedUnpublishedOf(project))
        .extracting(Proposal::proposalId)
        .containsExactly(p.proposalId());
    assertThat(store().markPublished(project, p.proposalId(), 100L)).isTrue();
    assertThat(store().isArtifactPublished(project, artifact)).isTrue();
  }

  @Test
  void anArtifactUploadIsRecordedPerProjectAndRefreshedByARepeat() {
    String project = unique("prj");
    Sha256Digest artifact = Sha256Digest.of(unique("bytes").getBytes(StandardCharsets.UTF_8));
    assertThat(store().findArtifactUpload(project, artifact)).isEmpty();
    store().recordArtifactUpload(new ArtifactUpload(project, artifact, 5L, 10L));
    assertThat(store().findArtifactUpload(project, artifact))
        .contains(new ArtifactUpload(project, artifact, 5L, 10L));
    store().recordArtifactUpload(new ArtifactUpload(project, artifact, 5L, 20L));
    assertThat(store().findArtifactUpload(project, artifact))
        .contains(new ArtifactUpload(project, artifact, 5L, 20L));
    assertThat(store().findArtifactUpload(unique("prj"), artifact)).isEmpty();
  }

  // --- idempotency ids are bound to their caller (docs/design.md#idempotency-ids) ---

  @Test
  void serviceRefusesAnotherUsersActionRefAndNeverReturnsTheirProposal() {
    PluginPackageGovernance service = service(dataSource, Map.of());
    String project = seededProject();
    addMember(project, "carol", Permission.PACKAGE_MANAGE, Permission.APPROVAL_DECIDE);
    Principal carol = new Principal("carol");
    Proposal mine =
        service.propose(ALICE, project, "ref-own", install("1.0.0")).result().proposal();

    // The exact same body under the same actionRef, but from another user: a reused key.
    assertThatThrownBy(() -> service.propose(carol, project, "ref-own", install("1.0.0")))
        .isInstanceOf(IdempotencyKeyReusedException.class);
    // Alice's replay still replays, and her proposal is unchanged.
    ProposeResult replay = service.propose(ALICE, project, "ref-own", install("1.0.0")).result();
    assertThat(replay.created()).isFalse();
    assertThat(replay.proposal()).isEqualTo(mine);
    assertThat(store().findProposal(project, mine.proposalId())).contains(mine);
    assertThat(store().listProposals(project, null, null, 10)).containsExactly(mine);
  }

  @Test
  void serviceRefusesAnotherUsersDecisionIdOnTheSameApproval() {
    PluginPackageGovernance service = service(dataSource, Map.of());
    String project = seededProject();
    addMember(project, "carol", Permission.APPROVAL_DECIDE);
    Principal carol = new Principal("carol");
    Proposal p = service.propose(ALICE, project, "ref-d", install("1.0.0")).result().proposal();
    String digest = p.actionDigest().value();
    Approval decided =
        service.decide(BOB, project, p.approvalId(), "d-own", "approve", digest).result();

    assertThatThrownBy(
            () -> service.decide(carol, project, p.approvalId(), "d-own", "approve", digest))
        .isInstanceOf(IdempotencyKeyReusedException.class);
    assertThat(service.decide(BOB, project, p.approvalId(), "d-own", "approve", digest).result())
        .isEqualTo(decided);
    assertThat(store().findApproval(project, p.approvalId())).contains(decided);
  }

  // --- proposal lists (GET …/proposals) ---

  private static Proposal proposalAt(String project, String ref, long createdAtMs) {
    return proposal(project, ref, install("1.0." + ref.length()), createdAtMs);
  }

  @Test
  void listProposalsPagesInCreationThenIdOrderWithinTheProjectOnly() {
    String project = unique("prj");
    // Two share a timestamp: the id breaks the tie, so the order is total and stable.
    Proposal late = proposalAt(project, "r-late", 3_000);
    Proposal tieB = proposalAt(project, "r-tie-b", 2_000);
    Proposal tieA = proposalAt(project, "r-tie-a", 2_000);
    Proposal early = proposalAt(project, "r-early", 1_000);
    for (Proposal p : List.of(late, tieB, tieA, early)) {
      create(p);
    }
    create(proposalAt(unique("prj"), "r-foreign", 1_500));
    List<Proposal> tie =
        tieA.proposalId().compareTo(tieB.proposalId()) < 0
            ? List.of(tieA, tieB)
            : List.of(tieB, tieA);
    List<Proposal> expected = List.of(early, tie.get(0), tie.get(1), late);

    assertThat(store().listProposals(project, null, null, 10)).isEqualTo(expected);
    List<Proposal> first = store().listProposals(project, null, null, 2);
    assertThat(first).isEqualTo(expected.subList(0, 2));
    ProposalKey after = ProposalKey.of(first.get(1));
    assertThat(store().listProposals(project, null, after, 2)).isEqualTo(expected.subList(2, 4));
    assertThat(store().listProposals(project, null, ProposalKey.of(late), 2)).isEmpty();
    assertThat(store().listProposals(unique("prj"), null, null, 10)).isEmpty();
  }

  @Test
  void listProposalsFiltersByState() {
    String project = unique("prj");
    Proposal decided = proposalAt(project, "r-1", 1_000);
    Proposal open = proposalAt(project, "r-2", 2_000);
    create(decided);
    create(open);
    store()
        .recordDecision(
            new DecisionCommand(
                project, decided.approvalId(), "d1", Decision.APPROVE, "bob", 1_500L));
    assertThat(store().listProposals(project, ProposalState.PENDING, null, 10))
        .extracting(Proposal::proposalId)
        .containsExactly(open.proposalId());
    assertThat(store().listProposals(project, ProposalState.APPROVED, null, 10))
        .extracting(Proposal::proposalId)
        .containsExactly(decided.proposalId());
    assertThat(store().listProposals(project, ProposalState.PUBLISHED, null, 10)).isEmpty();
  }

  @Test
  void serviceListsEveryProposalOnceThroughItsCursorAndCountsEachReadAsAnInspection() {
    PluginPackageGovernance service = service(dataSource, Map.of());
    String project = seededProject();
    List<String> proposed = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      proposed.add(
          service
              .propose(ALICE, project, "ref-" + i, install("1.0." + i))
              .result()
              .proposal()
              .proposalId());
    }
    List<String> seen = new ArrayList<>();
    String cursor = null;
    int pages = 0;
    do {
      ProposalPage page =
          service.listProposals(BOB, project, "pending", 2, cursor, unique("req")).result();
      page.items().forEach(p -> seen.add(p.proposalId()));
      cursor = page.nextCursor();
      pages++;
    } while (cursor != null);
    assertThat(seen).containsExactlyInAnyOrderElementsOf(proposed).doesNotHaveDuplicates();
    assertThat(pages).isEqualTo(3);
    assertThat(fixture.readBucket(QuotaKey.user(project, "bob", QuotaOperation.INSPECT)))
        .hasValueSatisfying(row -> assertThat(row.consumedCount()).isEqualTo(3));
    assertThat(service.proposal(BOB, project, proposed.get(0), unique("req")).result().proposalId())
        .isEqualTo(proposed.get(0));
  }

  @Test
  void serviceReadsCheckPolicyBeforeQuotaAndAnswerAbsentAndForeignAlike() {
    PluginPackageGovernance service = service(dataSource, Map.of());
    String project = seededProject();
    Proposal p = service.propose(ALICE, project, "ref-1", install("1.0.0")).result().proposal();
    Principal carol = new Principal("carol");
    assertThatThrownBy(() -> service.listProposals(carol, project, null, null, null, "q1"))
        .isInstanceOf(ForbiddenException.class);
    assertThatThrownBy(() -> service.proposal(carol, project, p.proposalId(), "q2"))
        .isInstanceOf(ForbiddenException.class);
    assertThat(fixture.readBucket(QuotaKey.user(project, "carol", QuotaOperation.INSPECT)))
        .isEmpty();
    String other = seededProject();
    assertThatThrownBy(() -> service.proposal(BOB, other, p.proposalId(), "q3"))
        .isInstanceOf(ConflictException.class);
    assertThatThrownBy(() -> service.approval(BOB, other, p.approvalId(), "q4"))
        .isInstanceOf(ConflictException.class);
    assertThatThrownBy(() -> service.approval(BOB, other, "apr-absent", "q5"))
        .isInstanceOf(ConflictException.class);
    assertThat(service.approval(BOB, project, p.approvalId(), "q6").result().approvalId())
        .isEqualTo(p.approvalId());
  }

  @Test
  void serviceRefusesBadListInputBeforeTouchingTheStore() {
    PluginPackageGovernance service = service(dataSource, Map.of());
    String project = seededProject();
    for (Runnable bad :
        List.<Runnable>of(
            () -> service.listProposals(BOB, project, "open", null, null, "q1"),
            () -> service.listProposals(BOB, project, null, 0, null, "q2"),
            () -> service.listProposals(BOB, project, null, 201, null, "q3"),
            () -> service.listProposals(BOB, project, null, null, "bm90LWEtY3Vyc29y", "q4"),
            () -> service.listProposals(BOB, project, null, null, "%%%", "q5"))) {
      assertThatThrownBy(bad::run).isInstanceOf(ValidationException.class);
    }
    assertThat(fixture.readBucket(QuotaKey.user(project, "bob", QuotaOperation.INSPECT))).isEmpty();
  }
}
