package dev.qinglong.core.quota;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A decision over a shadow limit is admitted, counted as shadow_rejected and reported once. */
class ManagementQuotaShadowTest {
  private final List<String> seen = new ArrayList<>();
  private QuotaDecision next;

  private final QuotaDecisionListener listener =
      new QuotaDecisionListener() {
        @Override
        public void decided(QuotaOperation operation, Outcome outcome) {
          seen.add(operation.wireName() + ":" + outcome);
        }

        @Override
        public void shadowRejected(QuotaKey key, int consumedCount, EffectiveLimit limit) {
          seen.add("shadow " + key.subjectId() + " " + consumedCount + "/" + limit.shadowLimit());
        }
      };

  private final ManagementQuota quota =
      new ManagementQuota(
          new DecidingOnlyStore() {
            @Override
            public QuotaDecision consume(
                QuotaKey key,
                ReceiptId receipt,
                RequestDigest request,
                int defaultLimit,
                Duration window) {
              return next;
            }
          },
          ManagementQuotaPolicy.defaults(),
          listener);

  private QuotaDecision consume(QuotaDecision decision) {
    next = decision;
    return quota
        .consume(
            "p",
            "alice",
            QuotaOperation.INSPECT,
            new ReceiptId("r"),
            RequestDigest.of(QuotaOperation.INSPECT, "x"))
        .result();
  }

  @Test
  void overTheShadowLimitIsAdmittedAndReportedUnderItIsAllowed() {
    EffectiveLimit withShadow = new EffectiveLimit(10, LimitSource.PROJECT, 2);
    QuotaDecision over = new QuotaDecision.Allowed(0, 3, 0, withShadow);
    assertThat(consume(over)).isEqualTo(over);
    consume(new QuotaDecision.Allowed(0, 2, 0, withShadow));
    // A replay is not a new count, whatever the shadow limit.
    consume(new QuotaDecision.Replayed(0, 3, 0, withShadow));
    assertThat(seen)
        .containsExactly(
            "plugin-package.inspect:SHADOW_REJECTED",
            "shadow alice 3/2",
            "plugin-package.inspect:ALLOWED",
            "plugin-package.inspect:REPLAYED");
  }

  @Test
  void theRateLimitIsTheEffectiveLimitNotTheDefault() {
    next = new QuotaDecision.Allowed(0, 3, 1_000, new EffectiveLimit(7, LimitSource.USER, null));
    var limited =
        quota.consume(
            "p",
            "alice",
            QuotaOperation.INSPECT,
            new ReceiptId("r"),
            RequestDigest.of(QuotaOperation.INSPECT, "x"));
    assertThat(limited.rateLimits())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.limit()).isEqualTo(7);
              assertThat(r.remaining()).isEqualTo(4);
            });
  }
}
