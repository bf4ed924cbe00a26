package dev.qinglong.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.qinglong.core.governance.Approval;
import dev.qinglong.core.governance.ArtifactUpload;
import dev.qinglong.core.governance.Decision;
import dev.qinglong.core.governance.DecisionCommand;
import dev.qinglong.core.governance.GovernanceStore;
import dev.qinglong.core.governance.PluginPackageAction;
import dev.qinglong.core.governance.Proposal;
import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.webhooks.AesGcmSecretSealer;
import dev.qinglong.core.webhooks.AttemptResult;
import dev.qinglong.core.webhooks.ClaimedDelivery;
import dev.qinglong.core.webhooks.DeliveryCursor;
import dev.qinglong.core.webhooks.DeliveryStatus;
import dev.qinglong.core.webhooks.PutResult;
import dev.qinglong.core.webhooks.SecretSealer;
import dev.qinglong.core.webhooks.WebhookDelivery;
import dev.qinglong.core.webhooks.WebhookEndpoint;
import dev.qinglong.core.webhooks.WebhookEventType;
import dev.qinglong.core.webhooks.WebhookSecrets;
import dev.qinglong.core.webhooks.WebhookStore;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.net.URI;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Contract of the webhook store and its transactional outbox (docs/stores.md#webhooks): endpoints
 * per Project (at most 10, also under concurrent registrations), secrets stored sealed, events
 * written in the transaction of the change they report (and never when it rolls back), and the
 * delivery worker's claims: a lease, a claim token that fences a stale attempt, retries and
 * failure.
 */
public abstract class WebhookStoreContract extends StoreContractSupport {
  private static final String DIGEST = "sha256:" + "c".repeat(64);
  private static final long LEASE_MS = 60_000;
  private static final URI URL = URI.create("https://hooks.example.com/qinglong");

  private SecretSealer sealer;
  private WebhookStore store;
  private WebhookStore delivery;

  private WebhookFixture webhooks() {
    return (WebhookFixture) fixture;
  }

  @BeforeAll
  final void openStores() {
    byte[] key = new byte[AesGcmSecretSealer.KEY_BYTES];
    new SecureRandom().nextBytes(key);
    sealer = new AesGcmSecretSealer(key);
    store = webhooks().webhookStore(sealer);
    delivery = webhooks().deliveryStore(sealer);
  }

  private GovernanceStore governance() {
    return fixture.governanceStore(dataSource);
  }

  private PutResult register(String project, String id, WebhookEventType... events) {
    return register(project, id, WebhookSecrets.generate(), events);
  }

  private PutResult register(String project, String id, byte[] secret, WebhookEventType... events) {
    Set<WebhookEventType> types = EnumSet.noneOf(WebhookEventType.class);
    types.addAll(Arrays.asList(events));
    return store.put(project, id, URL, types, List.of(), secret);
  }

  private static Proposal proposal(String project, String ref) {
    return pendingProposal(
        project,
        ref,
        PluginPackageAction.of("install", "acme-lint", "1.0.0", DIGEST),
        1_700_000_000_123L);
  }

  private List<WebhookDelivery> log(String project, String webhookId) {
    return store.deliveries(project, webhookId, null, 100);
  }

  /** Claims every due delivery (there are few in each test's Project, but others' too). */
  private List<ClaimedDelivery> claimOf(String project) {
    List<ClaimedDelivery> mine = new ArrayList<>();
    for (ClaimedDelivery d : delivery.claimDue(LEASE_MS, 500)) {
      if (d.projectId().equals(project)) {
        mine.add(d);
      }
    }
    return mine;
  }

  // --- registration ---

  @Test
  void anEndpointRoundTripsAndAReplacementKeepsItsSecretAndCreationTime() {
    String project = unique("prj");
    byte[] secret = WebhookSecrets.generate();
    PutResult created =
        store.put(
            project,
            "ops",
            URL,
            EnumSet.of(WebhookEventType.APPROVAL_PENDING, WebhookEventType.MODEL_QUOTA_THRESHOLD),
            List.of(new BigDecimal("0.8"), BigDecimal.ONE),
            secret);
    assertThat(created.created()).isTrue();
    WebhookEndpoint e = created.endpoint();
    assertThat(e.projectId()).isEqualTo(project);
    assertThat(e.webhookId()).isEqualTo("ops");
    assertThat(e.url()).isEqualTo(URL);
    assertThat(e.events())
        .containsExactlyInAnyOrder(
            WebhookEventType.APPROVAL_PENDING, WebhookEventType.MODEL_QUOTA_THRESHOLD);
    assertThat(e.modelQuotaThresholds()).containsExactly(new BigDecimal("0.8"), BigDecimal.ONE);
    assertThat(store.find(project, "ops")).contains(e);
    assertThat(store.find(project, "other")).isEmpty();
    assertThat(store.find(unique("prj"), "ops")).isEmpty();

    URI other = URI.create("https://other.example.com/hook");
    PutResult replaced =
        store.put(
            project,
            "ops",
            other,
            EnumSet.of(WebhookEventType.WEBHOOK_TEST),
            List.of(),
            WebhookSecrets.generate());
    assertThat(replaced.created()).isFalse();
    assertThat(replaced.endpoint().url()).isEqualTo(other);
    assertThat(replaced.endpoint().events()).containsExactly(WebhookEventType.WEBHOOK_TEST);
    assertThat(replaced.endpoint().modelQuotaThresholds()).isEmpty();
    assertThat(replaced.endpoint().createdAtMs()).isEqualTo(e.createdAtMs());
    assertThat(store.list(project)).containsExactly(replaced.endpoint());

    // The secret given at creation signs; the one passed with the replacement was not stored.
    String id = store.enqueueTest(project, "ops").orElseThrow();
    ClaimedDelivery claimed = claimed(project, id);
    assertThat(claimed.signingKeys()).hasSize(1);
    assertThat(claimed.signingKeys().get(0)).isEqualTo(secret);
  }

  @Test
  void theDatabaseHoldsOnlyTheSealedSecret() {
    String project = unique("prj");
    byte[] secret = WebhookSecrets.generate();
    register(project, "sealed", secret, WebhookEventType.WEBHOOK_TEST);
    byte[] stored = webhooks().storedSecret(project, "sealed");
    assertThat(stored).isNotNull();
    assertThat(Bytes.indexOf(stored, secret)).isEqualTo(-1);
    assertThat(sealer.open(stored)).isEqualTo(secret);
    // Another key cannot open it: the worker fails closed instead of signing with garbage.
    byte[] otherKey = new byte[AesGcmSecretSealer.KEY_BYTES];
    assertThatThrownBy(() -> new AesGcmSecretSealer(otherKey).open(stored))
        .isInstanceOf(StoreUnavailableException.class);
  }

  @Test
  void aProjectHasAtMostTenEndpointsAndTheEleventhStoresNothing() {
    String project = unique("prj");
    for (int i = 0; i < WebhookStore.MAX_ENDPOINTS_PER_PROJECT; i++) {
      assertThat(register(project, "h" + i, WebhookEventType.WEBHOOK_TEST).created()).isTrue();
    }
    assertThatThrownBy(() -> register(project, "h10", WebhookEventType.APPROVAL_PENDING))
        .isInstanceOf(ValidationException.class);
    assertThat(store.list(project)).hasSize(10);
    assertThat(store.find(project, "h10")).isEmpty();
    // Replacing one at the cap is still allowed; another Project is not affected.
    assertThat(register(project, "h3", WebhookEventType.APPROVAL_DECIDED).created()).isFalse();
    assertThat(register(unique("prj"), "h10", WebhookEventType.WEBHOOK_TEST).created()).isTrue();
    // After a delete there is room again.
    assertThat(store.delete(project, "h0")).isTrue();
    assertThat(register(project, "h10", WebhookEventType.WEBHOOK_TEST).created()).isTrue();
  }

  @Test
  void concurrentRegistrationsNeverExceedTheCap() throws Exception {
    String project = unique("prj");
    WebhookStore second = webhooks().webhookStore(sealer);
    List<Callable<Boolean>> calls = new ArrayList<>();
    for (int i = 0; i < 14; i++) {
      WebhookStore on = i % 2 == 0 ? store : second;
      String id = "c" + i;
      calls.add(
          () -> {
            try {
              return on.put(
                      project,
                      id,
                      URL,
                      EnumSet.of(WebhookEventType.WEBHOOK_TEST),
                      List.of(),
                      WebhookSecrets.generate())
                  .created();
            } catch (ValidationException e) {
              return false;
            }
          });
    }
    List<Boolean> results = race(calls);
    assertThat(results.stream().filter(b -> b).count()).isEqualTo(10);
    assertThat(store.list(project)).hasSize(10);
  }

  @Test
  void deleteRemovesTheEndpointAndItsDeliveries() {
    String project = unique("prj");
    register(project, "gone", WebhookEventType.WEBHOOK_TEST);
    String id = store.enqueueTest(project, "gone").orElseThrow();
    assertThat(log(project, "gone")).extracting(WebhookDelivery::deliveryId).containsExactly(id);
    assertThat(store.delete(project, "gone")).isTrue();
    assertThat(store.delete(project, "gone")).isFalse();
    assertThat(store.find(project, "gone")).isEmpty();
    assertThat(log(project, "gone")).isEmpty();
    assertThat(claimOf(project)).isEmpty();
    assertThat(store.delete(unique("prj"), "gone")).isFalse();
  }

  @Test
  void missingEndpointsAnswerEmptyOrFalse() {
    String project = unique("prj");
    assertThat(store.list(project)).isEmpty();
    assertThat(store.enqueueTest(project, "none")).isEmpty();
    assertThat(store.rotateSecret(project, "none", WebhookSecrets.generate())).isFalse();
    assertThat(store.deliveries(project, "none", null, 10)).isEmpty();
  }

  @Test
  void rotationKeepsThePreviousSecretForTheWorker() {
    String project = unique("prj");
    byte[] first = WebhookSecrets.generate();
    byte[] second = WebhookSecrets.generate();
    register(project, "rot", first, WebhookEventType.WEBHOOK_TEST);
    assertThat(store.rotateSecret(project, "rot", second)).isTrue();
    String id = store.enqueueTest(project, "rot").orElseThrow();
    ClaimedDelivery claimed = claimed(project, id);
    assertThat(claimed.signingKeys()).hasSize(2);
    assertThat(claimed.signingKeys().get(0)).isEqualTo(second);
    assertThat(claimed.signingKeys().get(1)).isEqualTo(first);
  }

  // --- the outbox ---

  @Test
  void aCreatedProposalEnqueuesApprovalPendingForEachSubscribedEndpointOfItsProject() {
    String project = unique("prj");
    register(project, "subscribed", WebhookEventType.APPROVAL_PENDING);
    register(project, "also", WebhookEventType.APPROVAL_PENDING, WebhookEventType.APPROVAL_DECIDED);
    register(project, "deaf", WebhookEventType.APPROVAL_DECIDED);
    String elsewhere = unique("prj");
    register(elsewhere, "subscribed", WebhookEventType.APPROVAL_PENDING);

    Proposal p = proposal(project, "ref-1");
    assertThat(governance().createIfAbsent(p, Approval.pending(p, 2)).created()).isTrue();
    // A replay creates nothing and enqueues nothing.
    assertThat(governance().createIfAbsent(p, Approval.pending(p, 2)).created()).isFalse();

    assertThat(log(project, "subscribed")).hasSize(1);
    assertThat(log(project, "also")).hasSize(1);
    assertThat(log(project, "deaf")).isEmpty();
    assertThat(log(elsewhere, "subscribed")).isEmpty();
    WebhookDelivery row = log(project, "subscribed").get(0);
    assertThat(row.type()).isEqualTo(WebhookEventType.APPROVAL_PENDING);
    assertThat(row.status()).isEqualTo(DeliveryStatus.PENDING);
    assertThat(row.attempts()).isZero();
    assertThat(row.deliveryId()).startsWith("msg_");
    assertThat(row.deliveryId()).isNotEqualTo(log(project, "also").get(0).deliveryId());

    ClaimedDelivery claimed = claimed(project, row.deliveryId());
    assertThat(claimed.type()).isEqualTo(WebhookEventType.APPROVAL_PENDING);
    assertThat(claimed.payloadJson())
        .startsWith("{\"type\":\"approval.pending\",\"timestamp\":\"2023-11-14T22:13:20.123Z\"")
        .contains("\"projectId\":\"" + project + "\"")
        .contains("\"proposalId\":\"" + p.proposalId() + "\"")
        .contains("\"approvalId\":\"" + p.approvalId() + "\"")
        .contains("\"actionRef\":\"ref-1\"")
        .contains("\"requiredApprovals\":2")
        .contains("\"artifactDigest\":\"" + DIGEST + "\"");
  }

  @Test
  void anApprovalThatEndsEnqueuesApprovalDecidedOnceAndAnIntermediateApproveNothing() {
    String project = unique("prj");
    register(project, "decided", WebhookEventType.APPROVAL_DECIDED);
    Proposal p = proposal(project, "ref-2");
    governance().createIfAbsent(p, Approval.pending(p, 2));
    governance()
        .recordDecision(
            new DecisionCommand(project, p.approvalId(), "d-bob", Decision.APPROVE, "bob", 5L));
    assertThat(log(project, "decided")).isEmpty();
    governance()
        .recordDecision(
            new DecisionCommand(project, p.approvalId(), "d-carol", Decision.APPROVE, "carol", 6L));
    // A decision after the end records nothing and enqueues nothing.
    governance()
        .recordDecision(
            new DecisionCommand(project, p.approvalId(), "d-dave", Decision.REJECT, "dave", 7L));
    List<WebhookDelivery> rows = log(project, "decided");
    assertThat(rows).hasSize(1);
    ClaimedDelivery claimed = claimed(project, rows.get(0).deliveryId());
    assertThat(claimed.payloadJson())
        .startsWith("{\"type\":\"approval.decided\"")
        .contains("\"state\":\"approved\"")
        .contains("\"decidedBy\":\"carol\"");

    Proposal rejected = proposal(project, "ref-3");
    governance().createIfAbsent(rejected, Approval.pending(rejected, 1));
    governance()
        .recordDecision(
            new DecisionCommand(project, rejected.approvalId(), "d-x", Decision.REJECT, "bob", 8L));
    assertThat(log(project, "decided")).hasSize(2);
  }

  @Test
  void aPublicationEnqueuesProposalPublished() {
    String project = unique("prj");
    register(project, "pub", WebhookEventType.PROPOSAL_PUBLISHED);
    Proposal p = proposal(project, "ref-4");
    governance().createIfAbsent(p, Approval.pending(p, 1));
    governance()
        .recordDecision(
            new DecisionCommand(project, p.approvalId(), "d-1", Decision.APPROVE, "bob", 5L));
    governance()
        .recordArtifactUpload(new ArtifactUpload(project, p.action().artifactDigest(), 3L, 1L));
    assertThat(governance().markPublished(project, p.proposalId(), 1_700_000_100_000L)).isTrue();
    assertThat(governance().markPublished(project, p.proposalId(), 1_700_000_200_000L)).isFalse();
    List<WebhookDelivery> rows = log(project, "pub");
    assertThat(rows).hasSize(1);
    assertThat(rows.get(0).type()).isEqualTo(WebhookEventType.PROPOSAL_PUBLISHED);
    assertThat(claimed(project, rows.get(0).deliveryId()).payloadJson())
        .startsWith("{\"type\":\"proposal.published\",\"timestamp\":\"2023-11-14T22:15:00.000Z\"");
  }

  @Test
  void aChangeThatRollsBackLeavesNoEvent() {
    String project = unique("prj");
    register(project, "rb", WebhookEventType.APPROVAL_PENDING);
    FailingCommitAfterOutbox failing = new FailingCommitAfterOutbox(dataSource);
    GovernanceStore onFailing = fixture.governanceStore(failing);
    Proposal p = proposal(project, "ref-rb");
    assertThatThrownBy(() -> onFailing.createIfAbsent(p, Approval.pending(p, 1)))
        .isInstanceOf(StoreUnavailableException.class);
    assertThat(failing.outboxRowsWritten)
        .as("the outbox row was written, then rolled back")
        .isOne();
    assertThat(governance().findProposal(project, p.proposalId())).isEmpty();
    assertThat(log(project, "rb")).isEmpty();
    assertThat(claimOf(project)).isEmpty();
    // The same change, committed, reports once.
    assertThat(governance().createIfAbsent(p, Approval.pending(p, 1)).created()).isTrue();
    assertThat(log(project, "rb")).hasSize(1);
  }

  /** Refuses the commit of a transaction that inserted outbox rows: the change rolls back. */
  private static final class FailingCommitAfterOutbox extends InterceptingDataSource {
    volatile int outboxRowsWritten;
    private volatile boolean wrote;

    FailingCommitAfterOutbox(javax.sql.DataSource delegate) {
      super(delegate);
    }

    @Override
    protected Object aroundExecute(Statement statement, String sql, Call call) throws Throwable {
      Object result = call.proceed();
      if (sql != null && sql.contains("INSERT INTO webhook_deliveries")) {
        int n = statement.getUpdateCount();
        outboxRowsWritten += Math.max(n, result instanceof Integer i ? i : 0);
        wrote = true;
      }
      return result;
    }

    @Override
    protected Object aroundConnectionCall(Connection connection, Method method, Call call)
        throws Throwable {
      if (method.getName().equals("commit") && wrote) {
        wrote = false;
        throw new SQLException("commit refused by the test", "08006");
      }
      return call.proceed();
    }
  }

  // --- delivery: claims, leases, fencing ---

  /** The claim of delivery {@code id} (it must be due). */
  private ClaimedDelivery claimed(String project, String id) {
    return claimOf(project).stream()
        .filter(d -> d.deliveryId().equals(id))
        .findFirst()
        .orElseThrow(() -> new AssertionError("not claimed: " + id));
  }

  @Test
  void aClaimLeasesTheRowAndAnotherClaimDoesNotSeeItUntilTheLeaseEnds() {
    String project = unique("prj");
    register(project, "lease", WebhookEventType.WEBHOOK_TEST);
    String id = store.enqueueTest(project, "lease").orElseThrow();
    ClaimedDelivery first = claimed(project, id);
    assertThat(first.attempts()).isZero();
    assertThat(first.url()).isEqualTo(URL);
    assertThat(first.payloadJson()).startsWith("{\"type\":\"webhook.test\"");
    assertThat(claimOf(project)).isEmpty();

    // A worker that died: its claim (a short lease here) is due again, with a new token.
    String short1 = store.enqueueTest(project, "lease").orElseThrow();
    ClaimedDelivery dead =
        delivery.claimDue(1, 500).stream()
            .filter(d -> d.deliveryId().equals(short1))
            .findFirst()
            .orElseThrow();
    ClaimedDelivery again =
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () ->
                    delivery.claimDue(LEASE_MS, 500).stream()
                        .filter(d -> d.deliveryId().equals(short1))
                        .findFirst(),
                Optional::isPresent)
            .orElseThrow();
    assertThat(again.claimToken()).isGreaterThan(dead.claimToken());
    // The stale worker's attempt is fenced off; the live claim's is recorded.
    assertThat(delivery.recordAttempt(short1, dead.claimToken(), AttemptResult.delivered(200)))
        .isFalse();
    assertThat(delivery.recordAttempt(short1, again.claimToken(), AttemptResult.delivered(204)))
        .isTrue();
    assertThat(delivery.recordAttempt(short1, again.claimToken(), AttemptResult.delivered(204)))
        .as("a finished delivery takes no further attempt")
        .isFalse();
    WebhookDelivery row =
        log(project, "lease").stream()
            .filter(d -> d.deliveryId().equals(short1))
            .findFirst()
            .orElseThrow();
    assertThat(row.status()).isEqualTo(DeliveryStatus.DELIVERED);
    assertThat(row.attempts()).isEqualTo(1);
    assertThat(row.lastStatusCode()).isEqualTo(204);
    assertThat(row.deliveredAtMs()).isNotNull();
    assertThat(row.nextAttemptAtMs()).isNull();
  }

  @Test
  void aFailedAttemptIsRetriedWhenDueKeepingItsIdAndGivingUpMarksItFailed() {
    String project = unique("prj");
    register(project, "retry", WebhookEventType.WEBHOOK_TEST);
    String id = store.enqueueTest(project, "retry").orElseThrow();
    ClaimedDelivery first = claimed(project, id);
    long later = fixture.databaseNowMs() + 3_600_000;
    assertThat(
            delivery.recordAttempt(
                id, first.claimToken(), AttemptResult.failed(503, "status 503", later)))
        .isTrue();
    WebhookDelivery pending = log(project, "retry").get(0);
    assertThat(pending.status()).isEqualTo(DeliveryStatus.PENDING);
    assertThat(pending.attempts()).isEqualTo(1);
    assertThat(pending.lastStatusCode()).isEqualTo(503);
    assertThat(pending.lastError()).isEqualTo("status 503");
    assertThat(pending.nextAttemptAtMs()).isEqualTo(later);
    assertThat(claimOf(project)).as("not due before its next attempt").isEmpty();

    // Due now: claimed again under the same id, with the attempts so far.
    fixture.ownerUpdate(
        "UPDATE webhook_deliveries SET next_attempt_at_ms = ? WHERE delivery_id = ?",
        fixture.databaseNowMs() - 1,
        id);
    ClaimedDelivery second = claimed(project, id);
    assertThat(second.attempts()).isEqualTo(1);
    assertThat(second.claimToken()).isGreaterThan(first.claimToken());
    assertThat(
            delivery.recordAttempt(
                id, second.claimToken(), AttemptResult.failed(null, "connect timed out", null)))
        .isTrue();
    WebhookDelivery failed = log(project, "retry").get(0);
    assertThat(failed.status()).isEqualTo(DeliveryStatus.FAILED);
    assertThat(failed.attempts()).isEqualTo(2);
    assertThat(failed.lastStatusCode()).isNull();
    assertThat(failed.lastError()).isEqualTo("connect timed out");
    assertThat(failed.nextAttemptAtMs()).isNull();
    assertThat(claimOf(project)).isEmpty();
  }

  @Test
  void theQueueAgeIsTheOldestDueDelivery() {
    String project = unique("prj");
    register(project, "age", WebhookEventType.WEBHOOK_TEST);
    store.enqueueTest(project, "age").orElseThrow();
    long now = fixture.databaseNowMs();
    assertThat(delivery.oldestDueCreatedAtMs()).isPresent();
    assertThat(delivery.oldestDueCreatedAtMs().getAsLong()).isLessThanOrEqualTo(now);
    // Claimed (leased) rows are not due.
    delivery.claimDue(LEASE_MS, 500);
    assertThat(delivery.oldestDueCreatedAtMs()).isEmpty();
  }

  // --- the delivery log ---

  @Test
  void theDeliveryLogPagesNewestFirstWithoutGapsOrRepeats() {
    String project = unique("prj");
    register(project, "log", WebhookEventType.WEBHOOK_TEST);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ids.add(store.enqueueTest(project, "log").orElseThrow());
    }
    List<WebhookDelivery> all = log(project, "log");
    assertThat(all)
        .extracting(WebhookDelivery::deliveryId)
        .containsExactlyInAnyOrderElementsOf(ids);
    for (int i = 1; i < all.size(); i++) {
      assertThat(all.get(i - 1).createdAtMs()).isGreaterThanOrEqualTo(all.get(i).createdAtMs());
    }
    List<String> paged = new ArrayList<>();
    DeliveryCursor cursor = null;
    int pages = 0;
    while (true) {
      List<WebhookDelivery> page = store.deliveries(project, "log", cursor, 2);
      if (page.isEmpty()) {
        break;
      }
      pages++;
      page.forEach(d -> paged.add(d.deliveryId()));
      cursor = DeliveryCursor.after(page.get(page.size() - 1));
      // The wire form round-trips.
      cursor = DeliveryCursor.decode(cursor.encode());
    }
    assertThat(pages).isEqualTo(3);
    assertThat(paged).isEqualTo(all.stream().map(WebhookDelivery::deliveryId).toList());
    assertThat(new HashSet<>(paged)).hasSize(5);
    // Another Project's endpoint of the same id shows nothing of this one's.
    assertThat(store.deliveries(unique("prj"), "log", null, 10)).isEmpty();
  }
}
