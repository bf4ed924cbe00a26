package dev.qinglong.core.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.kernel.IdempotencyKeyReusedException;
import dev.qinglong.core.kernel.StoreUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Every decision reaches the listener exactly once, through the timed callback, with its outcome
 * and the time the store took (a lower bound is checked: the store here waits 30 ms before it
 * answers; no upper bound, which would be a timing claim).
 */
class ManagementQuotaTimingTest {
  record Seen(QuotaOperation operation, QuotaDecisionListener.Outcome outcome, long nanos) {}

  private final List<Seen> seen = new ArrayList<>();
  private final List<String> untimed = new ArrayList<>();
  private final QuotaDecisionListener listener =
      new QuotaDecisionListener() {
        @Override
        public void decided(QuotaOperation operation, Outcome outcome) {
          untimed.add(operation + ":" + outcome);
        }

        @Override
        public void decided(QuotaOperation operation, Outcome outcome, long elapsedNanos) {
          seen.add(new Seen(operation, outcome, elapsedNanos));
        }
      };

  private ManagementQuota quota(Supplier<QuotaDecision> answer) {
    ManagementQuotaStore store =
        deciding(
            (key, receipt, request, limit, window) -> {
              try {
                Thread.sleep(30);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return answer.get();
            });
    return new ManagementQuota(store, ManagementQuotaPolicy.defaults(), listener);
  }

  private QuotaDecision consume(ManagementQuota q) {
    return q.consume(
            "p",
            "alice",
            QuotaOperation.PROPOSE,
            new ReceiptId("r1"),
            RequestDigest.of(QuotaOperation.PROPOSE, "x"))
        .result();
  }

  @Test
  void eachOutcomeIsReportedOnceWithTheStoresTime() {
    consume(quota(() -> new QuotaDecision.Allowed(0, 1, 0, DecidingOnlyStore.LIMIT)));
    consume(quota(() -> new QuotaDecision.Replayed(0, 1, 0, DecidingOnlyStore.LIMIT)));
    assertThatThrownBy(
            () -> consume(quota(() -> new QuotaDecision.Rejected(7, DecidingOnlyStore.LIMIT, 0))))
        .isInstanceOf(QuotaExceededException.class);
    assertThatThrownBy(() -> consume(quota(QuotaDecision.KeyReused::new)))
        .isInstanceOf(IdempotencyKeyReusedException.class);
    assertThatThrownBy(
            () ->
                consume(
                    quota(
                        () -> {
                          throw new StoreUnavailableException("down");
                        })))
        .isInstanceOf(StoreUnavailableException.class);
    assertThatThrownBy(() -> consume(quota(() -> null)))
        .isInstanceOf(StoreUnavailableException.class);

    assertThat(seen)
        .extracting(Seen::outcome)
        .containsExactly(
            QuotaDecisionListener.Outcome.ALLOWED,
            QuotaDecisionListener.Outcome.REPLAYED,
            QuotaDecisionListener.Outcome.REJECTED,
            QuotaDecisionListener.Outcome.KEY_REUSED,
            QuotaDecisionListener.Outcome.UNAVAILABLE,
            QuotaDecisionListener.Outcome.UNAVAILABLE);
    assertThat(seen).allMatch(s -> s.operation() == QuotaOperation.PROPOSE);
    assertThat(seen).allMatch(s -> s.nanos() >= TimeUnit.MILLISECONDS.toNanos(30));
    // The timed callback replaces the plain one (a listener that overrides it is not told twice).
    assertThat(untimed).isEmpty();
  }

  @Test
  void aListenerWithoutTimingStillHearsEveryDecision() {
    List<String> plain = new ArrayList<>();
    ManagementQuota q =
        new ManagementQuota(
            deciding(
                (key, receipt, request, limit, window) ->
                    new QuotaDecision.Allowed(0, 1, 0, DecidingOnlyStore.LIMIT)),
            ManagementQuotaPolicy.defaults(),
            (operation, outcome) -> plain.add(operation.wireName() + ":" + outcome));
    consume(q);
    assertThat(plain).containsExactly("plugin-package.propose:ALLOWED");
  }

  /** The store's consume step only (this test reads no buckets). */
  private interface Consume {
    QuotaDecision consume(
        QuotaKey key, ReceiptId receipt, RequestDigest request, int limit, Duration window);
  }

  private static ManagementQuotaStore deciding(Consume consume) {
    return new DecidingOnlyStore() {
      @Override
      public QuotaDecision consume(
          QuotaKey key, ReceiptId receipt, RequestDigest request, int limit, Duration window) {
        return consume.consume(key, receipt, request, limit, window);
      }
    };
  }
}
