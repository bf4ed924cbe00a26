package dev.qinglong.core.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.kernel.IdempotencyKeyReusedException;
import dev.qinglong.core.kernel.Limited;
import dev.qinglong.core.kernel.RateLimit;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The rate limit each management quota decision returns with it (or carries on its refusal). */
class ManagementQuotaRateLimitTest {
  QuotaDecision next;

  final ManagementQuotaStore store =
      new DecidingOnlyStore() {
        @Override
        public QuotaDecision consume(
            QuotaKey key, ReceiptId receipt, RequestDigest request, int limit, Duration window) {
          return next;
        }
      };

  Limited<QuotaDecision> consume(ManagementQuotaPolicy policy, QuotaDecision decision) {
    next = decision;
    return new ManagementQuota(store, policy, QuotaDecisionListener.NONE)
        .consume(
            "p",
            "u",
            QuotaOperation.PROPOSE,
            new ReceiptId("r"),
            RequestDigest.of(QuotaOperation.PROPOSE, "x"));
  }

  static final ManagementQuotaPolicy POLICY =
      new ManagementQuotaPolicy(true, Duration.ofSeconds(60), Map.of(QuotaOperation.PROPOSE, 30));

  RateLimit admitted(QuotaDecision decision) {
    Limited<QuotaDecision> result = consume(POLICY, decision);
    assertThat(result.result()).isEqualTo(decision);
    assertThat(result.rateLimits()).hasSize(1);
    return result.rateLimits().get(0);
  }

  @Test
  void anAllowedRequestReturnsWhatIsLeftAndTheSecondsToTheWindowEnd() {
    assertThat(
            admitted(
                new QuotaDecision.Allowed(100_000, 3, 100_000 + 18_500, DecidingOnlyStore.LIMIT)))
        .isEqualTo(new RateLimit("plugin-package.propose", 30, 60, 27, 42));
    assertThat(admitted(new QuotaDecision.Replayed(100_000, 30, 100_000, DecidingOnlyStore.LIMIT)))
        .isEqualTo(new RateLimit("plugin-package.propose", 30, 60, 0, 60));
  }

  @Test
  void aRefusalCarriesNothingLeftAndItsRetryAfter() {
    assertThatThrownBy(
            () -> consume(POLICY, new QuotaDecision.Rejected(17, DecidingOnlyStore.LIMIT, 0)))
        .isInstanceOfSatisfying(
            QuotaExceededException.class,
            e -> {
              assertThat(e.retryAfterSeconds()).isEqualTo(17);
              assertThat(e.rateLimit())
                  .isEqualTo(new RateLimit("plugin-package.propose", 30, 60, 0, 17));
            });
  }

  @Test
  void theResetIsOnTheDatabaseClockHoweverFarThisHostsClockIsFromIt() {
    // The database decided 18.5 s into its window: reset 42. Its clock is decades behind and ahead
    // of this host's, so a reset computed from this host's clock would be 1 and 60.
    for (long windowStart : List.of(1_000_000_000L, 4_102_444_800_000L)) {
      for (QuotaDecision decision :
          List.of(
              new QuotaDecision.Allowed(
                  windowStart, 3, windowStart + 18_500, DecidingOnlyStore.LIMIT),
              new QuotaDecision.Replayed(
                  windowStart, 3, windowStart + 18_500, DecidingOnlyStore.LIMIT))) {
        assertThat(admitted(decision).resetSeconds()).as("%s", decision).isEqualTo(42);
        assertThat(admitted(decision).remaining()).as("%s", decision).isEqualTo(27);
      }
    }
  }

  @Test
  void aDatabaseNowOutsideTheWindowIsKeptWithinOneToTheWindowSeconds() {
    // Never 0, never past the window, whatever the returned values.
    assertThat(reset(100_000 + 75_000)).isEqualTo(1);
    assertThat(reset(100_000 - 30_000)).isEqualTo(60);
    assertThat(reset(100_000 + 59_999)).isEqualTo(1);
    assertThat(reset(100_000 + 59_000)).isEqualTo(1);
    assertThat(reset(100_000 + 58_999)).isEqualTo(2);
  }

  long reset(long databaseNowMs) {
    return admitted(new QuotaDecision.Allowed(100_000, 1, databaseNowMs, DecidingOnlyStore.LIMIT))
        .resetSeconds();
  }

  @Test
  void aReusedKeyOrADisabledQuotaCarriesNoLimit() {
    assertThatThrownBy(() -> consume(POLICY, new QuotaDecision.KeyReused()))
        .isInstanceOf(IdempotencyKeyReusedException.class);
    assertThat(
            consume(new ManagementQuotaPolicy(false, Duration.ofSeconds(60), Map.of()), null)
                .rateLimits())
        .isEmpty();
  }
}
