package dev.qinglong.app.governance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.http.RateLimitHeaders;
import dev.qinglong.core.quota.QuotaDecision;
import dev.qinglong.core.quota.QuotaDecisionListener;
import dev.qinglong.core.quota.QuotaOperation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/** What one management quota decision puts into the rate-limit fields. */
class RateLimitQuotaListenerTest {
  static final Duration MINUTE = Duration.ofSeconds(60);

  static String fields(QuotaDecision decision) {
    RateLimitHeaders.Limit l =
        RateLimitQuotaListener.limit(QuotaOperation.PROPOSE, 30, MINUTE, decision);
    return RateLimitHeaders.policy(List.of(l)) + " | " + RateLimitHeaders.state(List.of(l));
  }

  @Test
  void anAllowedRequestShowsWhatIsLeftAndTheSecondsToTheWindowEnd() {
    assertThat(fields(new QuotaDecision.Allowed(100_000, 3, 100_000 + 18_500)))
        .isEqualTo(
            "\"plugin-package.propose\";q=30;w=60;qu=\"requests\""
                + " | \"plugin-package.propose\";r=27;t=42");
    assertThat(fields(new QuotaDecision.Replayed(100_000, 30, 100_000))).endsWith("r=0;t=60");
  }

  @Test
  void aRefusalShowsNothingLeftAndItsRetryAfter() {
    assertThat(fields(new QuotaDecision.Rejected(17))).endsWith(";r=0;t=17");
  }

  @Test
  void tIsOnTheDatabaseClockHoweverFarThisHostsClockIsFromIt() {
    // The database decided 18.5 s into its window: t=42. Its clock is decades behind and ahead of
    // this host's, so a t computed from this host's clock would be 1 and 60; the fields the
    // listener sets on the response do not move.
    for (long windowStart : List.of(1_000_000_000L, 4_102_444_800_000L)) {
      for (QuotaDecision decision :
          List.of(
              new QuotaDecision.Allowed(windowStart, 3, windowStart + 18_500),
              new QuotaDecision.Replayed(windowStart, 3, windowStart + 18_500))) {
        MockHttpServletResponse response = new MockHttpServletResponse();
        RequestContextHolder.setRequestAttributes(
            new ServletRequestAttributes(new MockHttpServletRequest(), response));
        List<QuotaDecision> passedOn = new ArrayList<>();
        try {
          new RateLimitQuotaListener(
                  new QuotaDecisionListener() {
                    @Override
                    public void decided(QuotaOperation operation, Outcome outcome) {}

                    @Override
                    public void limited(
                        QuotaOperation operation, int limit, Duration window, QuotaDecision d) {
                      passedOn.add(d);
                    }
                  })
              .limited(QuotaOperation.PROPOSE, 30, MINUTE, decision);
        } finally {
          RequestContextHolder.resetRequestAttributes();
        }
        assertThat(response.getHeader(RateLimitHeaders.STATE))
            .as("%s", decision)
            .isEqualTo("\"plugin-package.propose\";r=27;t=42");
        assertThat(passedOn).containsExactly(decision);
      }
    }
  }

  @Test
  void aDatabaseNowOutsideTheWindowIsKeptWithinOneToTheWindowSeconds() {
    // Never 0, never past the window, whatever the returned values.
    assertThat(fields(new QuotaDecision.Allowed(100_000, 1, 100_000 + 75_000))).endsWith("t=1");
    assertThat(fields(new QuotaDecision.Allowed(100_000, 1, 100_000 - 30_000))).endsWith("t=60");
    assertThat(fields(new QuotaDecision.Allowed(100_000, 1, 100_000 + 59_999))).endsWith("t=1");
    assertThat(fields(new QuotaDecision.Allowed(100_000, 1, 100_000 + 59_000))).endsWith("t=1");
    assertThat(fields(new QuotaDecision.Allowed(100_000, 1, 100_000 + 58_999))).endsWith("t=2");
  }

  @Test
  void aReusedKeyCarriesNoFields() {
    assertThat(
            RateLimitQuotaListener.limit(
                QuotaOperation.PROPOSE, 30, MINUTE, new QuotaDecision.KeyReused()))
        .isNull();
  }
}
