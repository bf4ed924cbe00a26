package dev.qinglong.core.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.kernel.ConflictException;
import dev.qinglong.core.kernel.ForbiddenException;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectMember;
import dev.qinglong.core.policy.ProjectPolicy;
import dev.qinglong.core.policy.ProjectPolicyStore;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The service checks everything before the store is touched, and maps absence to a conflict. */
class WebhooksTest {
  private final List<String> calls = new ArrayList<>();
  private final Principal admin = new Principal("ann");
  private final Principal carol = new Principal("carol");

  private final ProjectPolicyStore members =
      new ProjectPolicyStore() {
        @Override
        public Set<Permission> permissionsOf(String projectId, String userId) {
          return userId.equals("ann")
              ? Set.of(Permission.PROJECT_ADMIN)
              : Set.of(Permission.PACKAGE_READ);
        }

        @Override
        public void replaceMember(ProjectMember member) {}

        @Override
        public List<ProjectMember> members(String projectId) {
          return List.of();
        }

        @Override
        public List<ProjectMember> members(String projectId, String afterUserId, int limit) {
          return List.of();
        }
      };

  private final WebhookStore store =
      new WebhookStore() {
        @Override
        public PutResult put(
            String projectId,
            String webhookId,
            URI url,
            Set<WebhookEventType> events,
            List<BigDecimal> thresholds,
            byte[] secret) {
          calls.add("put " + events + " " + thresholds);
          return new PutResult(
              new WebhookEndpoint(projectId, webhookId, url, events, thresholds, 1, 1), true);
        }

        @Override
        public List<WebhookEndpoint> list(String projectId) {
          calls.add("list");
          return List.of();
        }

        @Override
        public Optional<WebhookEndpoint> find(String projectId, String webhookId) {
          calls.add("find");
          return Optional.empty();
        }

        @Override
        public boolean delete(String projectId, String webhookId) {
          calls.add("delete");
          return false;
        }

        @Override
        public boolean rotateSecret(String projectId, String webhookId, byte[] newSecret) {
          calls.add("rotate");
          return false;
        }

        @Override
        public Optional<String> enqueueTest(String projectId, String webhookId) {
          calls.add("test");
          return Optional.empty();
        }

        @Override
        public List<WebhookDelivery> deliveries(
            String projectId, String webhookId, DeliveryCursor after, int limit) {
          calls.add("deliveries");
          return List.of();
        }

        @Override
        public List<ClaimedDelivery> claimDue(long leaseMs, int max) {
          throw new AssertionError();
        }

        @Override
        public boolean recordAttempt(String deliveryId, long claimToken, AttemptResult result) {
          throw new AssertionError();
        }

        @Override
        public OptionalLong oldestDueCreatedAtMs() {
          throw new AssertionError();
        }
      };

  private final Webhooks webhooks =
      new Webhooks(
          new ProjectPolicy(members, Set.of()),
          store,
          new WebhookTargets(
              false,
              host ->
                  new InetAddress[] {InetAddress.getByAddress(host, new byte[] {93, 1, 2, 3})}));

  private void put(Principal who, String url, List<String> events, List<BigDecimal> thresholds) {
    webhooks.put(who, "demo", "ops", url, events, thresholds);
  }

  @Test
  void aCreationReturnsTheSecretOnceAndDefaultsTheThresholds() {
    WebhookRegistration r =
        webhooks.put(
            admin,
            "demo",
            "ops",
            "https://hooks.example.com/h",
            List.of("model-quota.threshold"),
            null);
    assertThat(r.created()).isTrue();
    assertThat(r.secret()).startsWith("whsec_").hasSize(6 + 32);
    assertThat(r.toString()).doesNotContain(r.secret());
    assertThat(calls).containsExactly("put [MODEL_QUOTA_THRESHOLD] [0.8, 1]");
  }

  @Test
  void thresholdsAreSortedAndDeduplicated() {
    put(
        admin,
        "https://hooks.example.com/h",
        List.of("approval.pending", "approval.pending"),
        List.of(new BigDecimal("1.00"), new BigDecimal("0.5"), new BigDecimal("0.50")));
    assertThat(calls).containsExactly("put [APPROVAL_PENDING] [0.5, 1]");
  }

  @Test
  void badInputIsRefusedBeforeAnythingIsReadOrWritten() {
    String ok = "https://hooks.example.com/h";
    List<String> events = List.of("approval.pending");
    assertInvalid(() -> put(admin, "http://hooks.example.com/h", events, null), "url");
    assertInvalid(() -> put(admin, ok, List.of(), null), "events");
    assertInvalid(() -> put(admin, ok, List.of("approval.unknown"), null), "events");
    assertInvalid(() -> put(admin, ok, events, List.of(BigDecimal.ZERO)), "modelQuotaThresholds");
    assertInvalid(
        () -> put(admin, ok, events, List.of(new BigDecimal("1.01"))), "modelQuotaThresholds");
    assertInvalid(
        () -> put(admin, ok, events, List.of(new BigDecimal("0.12345"))), "modelQuotaThresholds");
    assertInvalid(() -> webhooks.put(admin, "demo", "bad id", ok, events, null), "webhookId");
    assertInvalid(() -> webhooks.deliveries(admin, "demo", "ops", 0, null), "limit");
    assertInvalid(() -> webhooks.deliveries(admin, "demo", "ops", null, "junk"), "cursor");
    assertThat(calls).isEmpty();
  }

  @Test
  void onlyProjectAdminsRegisterAndNothingIsCreatedOtherwise() {
    assertThatThrownBy(
            () -> put(carol, "https://hooks.example.com/h", List.of("approval.pending"), null))
        .isInstanceOf(ForbiddenException.class);
    assertThatThrownBy(() -> webhooks.list(carol, "demo")).isInstanceOf(ForbiddenException.class);
    assertThatThrownBy(() -> webhooks.test(carol, "demo", "ops"))
        .isInstanceOf(ForbiddenException.class);
    assertThat(calls).isEmpty();
  }

  @Test
  void aMissingEndpointIsAConflict() {
    assertThatThrownBy(() -> webhooks.get(admin, "demo", "none"))
        .isInstanceOf(ConflictException.class);
    assertThatThrownBy(() -> webhooks.delete(admin, "demo", "none"))
        .isInstanceOf(ConflictException.class);
    assertThatThrownBy(() -> webhooks.rotateSecret(admin, "demo", "none"))
        .isInstanceOf(ConflictException.class);
    assertThatThrownBy(() -> webhooks.test(admin, "demo", "none"))
        .isInstanceOf(ConflictException.class);
    assertThatThrownBy(() -> webhooks.deliveries(admin, "demo", "none", null, null))
        .isInstanceOf(ConflictException.class);
  }

  private static void assertInvalid(Runnable call, String field) {
    assertThatThrownBy(call::run)
        .isInstanceOf(ValidationException.class)
        .satisfies(e -> assertThat(((ValidationException) e).field()).isEqualTo(field));
  }
}
