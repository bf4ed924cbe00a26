package dev.qinglong.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.modelquota.ModelQuota;
import dev.qinglong.core.modelquota.ModelQuotaStore;
import dev.qinglong.core.modelquota.QuotaWindow;
import dev.qinglong.core.modelquota.WindowRef;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectPolicy;
import dev.qinglong.core.quota.ManagementQuota;
import dev.qinglong.core.quota.ManagementQuotaPolicy;
import dev.qinglong.core.quota.ManagementQuotaStore;
import dev.qinglong.core.quota.QuotaDecision;
import dev.qinglong.core.quota.QuotaDecisionListener;
import dev.qinglong.core.quota.QuotaKey;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.core.quota.ReceiptId;
import dev.qinglong.core.quota.RequestDigest;
import dev.qinglong.core.webhooks.AesGcmSecretSealer;
import dev.qinglong.core.webhooks.ClaimedDelivery;
import dev.qinglong.core.webhooks.ManagementQuotaRejections;
import dev.qinglong.core.webhooks.ModelQuotaThresholds;
import dev.qinglong.core.webhooks.SecretSealer;
import dev.qinglong.core.webhooks.WebhookDelivery;
import dev.qinglong.core.webhooks.WebhookEventOutbox;
import dev.qinglong.core.webhooks.WebhookEventType;
import dev.qinglong.core.webhooks.WebhookSecrets;
import dev.qinglong.core.webhooks.WebhookStore;
import java.math.BigDecimal;
import java.net.URI;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Contract of the two events that report no change of their own (docs/stores.md#webhooks): a
 * management-quota refusal is written at most once per bucket and window, and a model-quota window
 * reaching an endpoint's fraction once per window, dimension and fraction, however many writers,
 * passes and store instances try; an endpoint not subscribed gets nothing; a new window writes
 * again.
 */
public abstract class WebhookEventProducersContract extends StoreContractSupport {
  private static final URI URL = URI.create("https://hooks.example.com/qinglong");
  private static final Duration WINDOW = Duration.ofSeconds(60);
  private static final Principal ADMIN = new Principal("admin");
  private static final Principal ALICE = new Principal("alice");

  private WebhookStore store;
  private WebhookStore delivery;

  private WebhookEventsFixture events() {
    return (WebhookEventsFixture) fixture;
  }

  @BeforeAll
  final void openStores() {
    byte[] key = new byte[AesGcmSecretSealer.KEY_BYTES];
    new SecureRandom().nextBytes(key);
    SecretSealer sealer = new AesGcmSecretSealer(key);
    store = events().webhookStore(sealer);
    delivery = events().deliveryStore(sealer);
  }

  private void register(
      String project, String id, List<BigDecimal> thresholds, WebhookEventType... types) {
    Set<WebhookEventType> set = EnumSet.noneOf(WebhookEventType.class);
    set.addAll(List.of(types));
    store.put(project, id, URL, set, thresholds, WebhookSecrets.generate());
  }

  private List<WebhookDelivery> log(String project, String webhookId, WebhookEventType type) {
    return store.deliveries(project, webhookId, null, 100).stream()
        .filter(d -> d.type() == type)
        .toList();
  }

  /** The bodies of the Project's due deliveries of {@code type} (claims them). */
  private List<String> bodies(String project, WebhookEventType type) {
    List<String> out = new ArrayList<>();
    for (ClaimedDelivery d : delivery.claimDue(60_000, 500)) {
      if (d.projectId().equals(project) && d.type() == type) {
        out.add(d.payloadJson());
      }
    }
    return out;
  }

  /** Fills a bucket of limit 1 and returns the refusal of the next request. */
  private QuotaDecision.Rejected refusal(ManagementQuotaStore quota, QuotaKey key) {
    QuotaDecision first =
        quota.consume(key, receipt(), RequestDigest.of(key.operation(), "a"), 1, WINDOW);
    assertThat(first.admitted()).isTrue();
    QuotaDecision second =
        quota.consume(key, receipt(), RequestDigest.of(key.operation(), "b"), 1, WINDOW);
    assertThat(second).isInstanceOf(QuotaDecision.Rejected.class);
    return (QuotaDecision.Rejected) second;
  }

  private static ReceiptId receipt() {
    return new ReceiptId("r-" + UUID.randomUUID());
  }

  @Test
  void aRefusalIsWrittenOncePerBucketAndWindowByManyConcurrentWritersOnTwoInstances()
      throws Exception {
    String project = unique("prj");
    register(project, "a", List.of(), WebhookEventType.MANAGEMENT_QUOTA_REJECTED);
    register(
        project,
        "b",
        List.of(),
        WebhookEventType.MANAGEMENT_QUOTA_REJECTED,
        WebhookEventType.APPROVAL_PENDING);
    register(project, "other", List.of(), WebhookEventType.APPROVAL_PENDING);
    QuotaKey key = QuotaKey.user(project, "alice", QuotaOperation.INSPECT);
    QuotaDecision.Rejected rejected = refusal(fixture.quotaStore(dataSource), key);
    String dedup = ManagementQuotaRejections.dedupKey(key, rejected.windowStartedAtMs());
    String body = ManagementQuotaRejections.payload(key, rejected, rejected.windowStartedAtMs());

    List<WebhookEventOutbox> instances =
        List.of(events().rejectionOutbox(), events().rejectionOutbox());
    List<Callable<Integer>> writers = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      WebhookEventOutbox outbox = instances.get(i % 2);
      writers.add(
          () ->
              outbox.enqueueOnce(project, WebhookEventType.MANAGEMENT_QUOTA_REJECTED, dedup, body));
    }
    List<Integer> written = race(writers);

    // One delivery per subscribed endpoint, in all: 2, none for the endpoint not subscribed.
    assertThat(written.stream().mapToInt(Integer::intValue).sum()).isEqualTo(2);
    assertThat(log(project, "a", WebhookEventType.MANAGEMENT_QUOTA_REJECTED)).hasSize(1);
    assertThat(log(project, "b", WebhookEventType.MANAGEMENT_QUOTA_REJECTED)).hasSize(1);
    assertThat(store.deliveries(project, "other", null, 100)).isEmpty();

    // Ids and numbers only: the bucket, the limit and the window start.
    List<String> sent = bodies(project, WebhookEventType.MANAGEMENT_QUOTA_REJECTED);
    assertThat(sent).hasSize(2).allSatisfy(b -> assertThat(b).isEqualTo(body));
    assertThat(body)
        .startsWith("{\"type\":\"management-quota.rejected\",")
        .contains("\"projectId\":\"" + project + "\"")
        .contains("\"subjectType\":\"user\"")
        .contains("\"userId\":\"alice\"")
        .contains("\"operation\":\"plugin-package.inspect\"")
        .contains("\"limit\":1")
        .contains("\"windowStartedAt\":\"");
  }

  @Test
  void anotherBucketOrANewWindowIsWrittenAgain() {
    String project = unique("prj");
    register(project, "a", List.of(), WebhookEventType.MANAGEMENT_QUOTA_REJECTED);
    ManagementQuotaStore quota = fixture.quotaStore(dataSource);
    WebhookEventOutbox outbox = events().rejectionOutbox();
    QuotaKey key = QuotaKey.user(project, "alice", QuotaOperation.INSPECT);
    QuotaDecision.Rejected first = refusal(quota, key);
    assertThat(enqueue(outbox, key, first)).isEqualTo(1);
    assertThat(enqueue(outbox, key, first)).isZero();

    // Another subject of the same Project and operation is another bucket.
    QuotaKey bob = QuotaKey.user(project, "bob", QuotaOperation.INSPECT);
    assertThat(enqueue(outbox, bob, refusal(quota, bob))).isEqualTo(1);

    // The window ends (moved into the past); the bucket's next window is another event. (Another
    // store instance: this one holds the full bucket in memory for up to a second.)
    fixture.setWindowStart(key, fixture.databaseNowMs() - WINDOW.toMillis() - 1_000);
    QuotaDecision.Rejected next = refusal(fixture.quotaStore(dataSource), key);
    assertThat(next.windowStartedAtMs()).isGreaterThan(first.windowStartedAtMs());
    assertThat(enqueue(outbox, key, next)).isEqualTo(1);
    assertThat(enqueue(events().rejectionOutbox(), key, next)).isZero();
    assertThat(log(project, "a", WebhookEventType.MANAGEMENT_QUOTA_REJECTED)).hasSize(3);
  }

  private static int enqueue(
      WebhookEventOutbox outbox, QuotaKey key, QuotaDecision.Rejected rejected) {
    return outbox.enqueueOnce(
        key.projectId(),
        WebhookEventType.MANAGEMENT_QUOTA_REJECTED,
        ManagementQuotaRejections.dedupKey(key, rejected.windowStartedAtMs()),
        ManagementQuotaRejections.payload(key, rejected, rejected.windowStartedAtMs()));
  }

  // --- model-quota.threshold ---

  private ModelQuota modelQuota() {
    return new ModelQuota(
        new ProjectPolicy(fixture.policyStore(dataSource), Set.of("admin")),
        new ManagementQuota(
            fixture.quotaStore(dataSource),
            new ManagementQuotaPolicy(
                true, Duration.ofSeconds(60), Map.of(QuotaOperation.MODEL_USAGE_READ, 600)),
            QuotaDecisionListener.NONE),
        events().modelQuotaStore(events().newRuntimeDataSource()));
  }

  /** A Project whose model m1 reserves 10 tokens per invocation, 100 tokens and 10 per hour. */
  private String modelProject(ModelQuota quota) {
    String project = unique("prj");
    addMember(project, "alice", Permission.MODEL_INVOKE, Permission.MODEL_USAGE_READ);
    quota.putModelPolicy(ADMIN, project, "m1", 10, null);
    // The thresholds count one window: the test must not run across the hour.
    QuotaWindows.awaitRoom(QuotaWindow.ONE_HOUR, events()::databaseNowMs);
    quota.putProjectQuota(ADMIN, project, "1h", 10, 100, null);
    return project;
  }

  private static void invoke(ModelQuota quota, String project) {
    String step = "s-" + UUID.randomUUID().toString().substring(0, 8);
    quota.createStepRun(ALICE, project, step, "run-1", "m1");
    quota.admit(ALICE, project, "inv-" + UUID.randomUUID().toString().substring(0, 8), step);
  }

  private ModelQuotaThresholds pass() {
    ModelQuotaStore usage = events().workerUsage();
    return new ModelQuotaThresholds(events().workerOutbox(), usage::currentWindowUsage);
  }

  private List<String> thresholdBodies(String project, String webhookId) {
    List<String> out = new ArrayList<>();
    for (ClaimedDelivery d : delivery.claimDue(60_000, 500)) {
      if (d.projectId().equals(project)
          && d.webhookId().equals(webhookId)
          && d.type() == WebhookEventType.MODEL_QUOTA_THRESHOLD) {
        out.add(d.payloadJson());
      }
    }
    return out;
  }

  @Test
  void aThresholdIsWrittenOncePerWindowAndFractionAcrossPassesAndInstances() throws Exception {
    ModelQuota quota = modelQuota();
    String project = modelProject(quota);
    List<BigDecimal> fractions = List.of(new BigDecimal("0.1"), new BigDecimal("0.5"));
    register(project, "a", fractions, WebhookEventType.MODEL_QUOTA_THRESHOLD);
    register(project, "other", fractions, WebhookEventType.APPROVAL_PENDING);
    ModelQuotaThresholds one = pass();
    ModelQuotaThresholds two = pass();

    // Nothing used yet: no threshold reached.
    assertThat(one.run()).isZero();

    // 10 tokens and 1 invocation of 100 and 10: 0.1 reached in both dimensions (cost has no limit).
    invoke(quota, project);
    List<Integer> written = race(List.of(one::run, two::run, one::run, two::run));
    assertThat(written.stream().mapToInt(Integer::intValue).sum()).isEqualTo(2);
    assertThat(one.run() + two.run()).isZero();
    List<String> first = thresholdBodies(project, "a");
    assertThat(first).hasSize(2);
    assertThat(String.join("\n", first))
        .contains("\"dimension\":\"tokens\"")
        .contains("\"dimension\":\"invocations\"")
        .contains("\"threshold\":0.1")
        .doesNotContain("\"threshold\":0.5")
        .doesNotContain("\"dimension\":\"cost\"");
    assertThat(store.deliveries(project, "other", null, 100)).isEmpty();

    // 50 tokens and 5 invocations: 0.5 reached, 0.1 is not written again.
    for (int i = 0; i < 4; i++) {
      invoke(quota, project);
    }
    assertThat(two.run()).isEqualTo(2);
    assertThat(one.run()).isZero();
    assertThat(log(project, "a", WebhookEventType.MODEL_QUOTA_THRESHOLD)).hasSize(4);
    assertThat(String.join("\n", thresholdBodies(project, "a")))
        .contains("\"threshold\":0.5")
        .contains("\"used\":50")
        .contains("\"limit\":100");
  }

  @Test
  void aNewWindowWritesTheThresholdsAgain() {
    ModelQuota quota = modelQuota();
    String project = modelProject(quota);
    register(project, "a", List.of(new BigDecimal("0.1")), WebhookEventType.MODEL_QUOTA_THRESHOLD);
    ModelQuotaThresholds pass = pass();
    invoke(quota, project);
    assertThat(pass.run()).isEqualTo(2);
    assertThat(pass.run()).isZero();

    // What happened so far becomes the previous window: its receipts and its events move one
    // window back (the clock cannot be moved), and the current window starts empty.
    WindowRef current = events().workerUsage().currentWindowUsage(project).usage().window();
    for (String table : List.of("model_invocation_reservations", "model_invocation_settlements")) {
      fixture.ownerUpdate(
          "UPDATE "
              + table
              + " SET window_start_ms = window_start_ms - window_ms WHERE project_id = ?",
          project);
    }
    fixture.ownerUpdate(
        "UPDATE webhook_deliveries SET dedup_key = replace(dedup_key, ?, ?) WHERE project_id = ?",
        "mqt:" + current.windowStartMs() + ":",
        "mqt:" + (current.windowStartMs() - current.windowMs()) + ":",
        project);
    assertThat(pass.run()).isZero();
    invoke(quota, project);
    assertThat(pass.run()).isEqualTo(2);
    assertThat(pass().run()).isZero();
    assertThat(log(project, "a", WebhookEventType.MODEL_QUOTA_THRESHOLD)).hasSize(4);
  }

  @Test
  void aProjectWithoutAModelQuotaHasNoThreshold() {
    ModelQuota quota = modelQuota();
    String project = unique("prj");
    addMember(project, "alice", Permission.MODEL_INVOKE, Permission.MODEL_USAGE_READ);
    quota.putModelPolicy(ADMIN, project, "m1", 10, null);
    register(project, "a", List.of(new BigDecimal("0.1")), WebhookEventType.MODEL_QUOTA_THRESHOLD);
    invoke(quota, project);
    assertThat(pass().run()).isZero();
    assertThat(store.deliveries(project, "a", null, 100)).isEmpty();
  }
}
