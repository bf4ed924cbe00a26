package dev.qinglong.core.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.kernel.IdempotencyKeyReusedException;
import dev.qinglong.core.kernel.QuotaExceededException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which decisions reach {@link QuotaDecisionListener#limited}, with what they were decided on. */
class ManagementQuotaListenerTest {
  final List<String> seen = new ArrayList<>();
  QuotaDecision next;

  final ManagementQuotaStore store =
      new ManagementQuotaStore() {
        @Override
        public QuotaDecision consume(
            QuotaKey key, ReceiptId receipt, RequestDigest request, int limit, Duration window) {
          return next;
        }

        @Override
        public BucketsSnapshot buckets(String projectId, SubjectType type, String subjectId) {
          throw new AssertionError("not read");
        }
      };

  final QuotaDecisionListener listener =
      new QuotaDecisionListener() {
        @Override
        public void decided(QuotaOperation operation, Outcome outcome) {}

        @Override
        public void limited(
            QuotaOperation operation, int limit, Duration window, QuotaDecision decision) {
          seen.add(operation.wireName() + " " + limit + " " + window.toSeconds() + " " + decision);
        }
      };

  QuotaDecision consume(ManagementQuotaPolicy policy, QuotaDecision decision) {
    next = decision;
    return new ManagementQuota(store, policy, listener)
        .consume(
            "p",
            "u",
            QuotaOperation.INSPECT,
            new ReceiptId("r"),
            RequestDigest.of(QuotaOperation.INSPECT, "x"));
  }

  static final ManagementQuotaPolicy POLICY =
      new ManagementQuotaPolicy(true, Duration.ofSeconds(90), Map.of(QuotaOperation.INSPECT, 7));

  @Test
  void admittedAndRefusedDecisionsAreReportedWithTheirLimitAndWindow() {
    consume(POLICY, new QuotaDecision.Allowed(5, 1, 6));
    consume(POLICY, new QuotaDecision.Replayed(5, 1, 6));
    assertThatThrownBy(() -> consume(POLICY, new QuotaDecision.Rejected(3)))
        .isInstanceOf(QuotaExceededException.class);
    assertThat(seen)
        .containsExactly(
            "plugin-package.inspect 7 90 Allowed[windowStartedAtMs=5, consumedCount=1, databaseNowMs=6]",
            "plugin-package.inspect 7 90 Replayed[windowStartedAtMs=5, consumedCount=1, databaseNowMs=6]",
            "plugin-package.inspect 7 90 Rejected[retryAfterSeconds=3]");
  }

  @Test
  void aReusedKeyOrADisabledQuotaReportsNothing() {
    assertThatThrownBy(() -> consume(POLICY, new QuotaDecision.KeyReused()))
        .isInstanceOf(IdempotencyKeyReusedException.class);
    consume(new ManagementQuotaPolicy(false, Duration.ofSeconds(60), Map.of()), null);
    assertThat(seen).isEmpty();
  }
}
