package dev.qinglong.app.governance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.http.RateLimitHeaders;
import dev.qinglong.core.quota.QuotaDecision;
import dev.qinglong.core.quota.QuotaOperation;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What one management quota decision puts into the rate-limit fields. */
class RateLimitQuotaListenerTest {
  static final Duration MINUTE = Duration.ofSeconds(60);

  static String fields(QuotaDecision decision, long nowMs) {
    RateLimitHeaders.Limit l =
        RateLimitQuotaListener.limit(QuotaOperation.PROPOSE, 30, MINUTE, decision, nowMs);
    return RateLimitHeaders.policy(List.of(l)) + " | " + RateLimitHeaders.state(List.of(l));
  }

  @Test
  void anAllowedRequestShowsWhatIsLeftAndTheSecondsToTheWindowEnd() {
    assertThat(fields(new QuotaDecision.Allowed(100_000, 3), 100_000 + 18_500))
        .isEqualTo(
            "\"plugin-package.propose\";q=30;w=60;qu=\"requests\""
                + " | \"plugin-package.propose\";r=27;t=42");
    assertThat(fields(new QuotaDecision.Replayed(100_000, 30), 100_000)).endsWith("r=0;t=60");
  }

  @Test
  void aRefusalShowsNothingLeftAndItsRetryAfter() {
    assertThat(fields(new QuotaDecision.Rejected(17), 0)).endsWith(";r=0;t=17");
  }

  @Test
  void aClockOutsideTheWindowIsKeptWithinOneToTheWindowSeconds() {
    // This process's clock behind or ahead of the database's: never 0, never past the window.
    assertThat(fields(new QuotaDecision.Allowed(100_000, 1), 100_000 + 75_000)).endsWith("t=1");
    assertThat(fields(new QuotaDecision.Allowed(100_000, 1), 100_000 - 30_000)).endsWith("t=60");
  }

  @Test
  void aReusedKeyCarriesNoFields() {
    assertThat(
            RateLimitQuotaListener.limit(
                QuotaOperation.PROPOSE, 30, MINUTE, new QuotaDecision.KeyReused(), 0))
        .isNull();
  }
}
