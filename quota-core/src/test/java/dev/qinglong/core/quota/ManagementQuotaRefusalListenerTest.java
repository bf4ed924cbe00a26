package dev.qinglong.core.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A refusal reaches the listeners with its bucket and the window start the store decided in (what
 * the refusal's webhook event is keyed by); an admission does not.
 */
class ManagementQuotaRefusalListenerTest {
  private QuotaDecision next;
  private final List<String> heard = new ArrayList<>();

  private final ManagementQuota quota =
      new ManagementQuota(
          new DecidingOnlyStore() {
            @Override
            public QuotaDecision consume(
                QuotaKey key,
                ReceiptId receipt,
                RequestDigest request,
                int limit,
                Duration window) {
              return next;
            }
          },
          new ManagementQuotaPolicy(
              true, Duration.ofSeconds(60), Map.of(QuotaOperation.INSPECT, 2)),
          new QuotaDecisionListener() {
            @Override
            public void decided(QuotaOperation operation, Outcome outcome) {
              heard.add(outcome.name());
            }

            @Override
            public void rejected(QuotaKey key, QuotaDecision.Rejected rejected) {
              heard.add(
                  "rejected "
                      + key
                      + " "
                      + rejected.windowStartedAtMs()
                      + " "
                      + rejected.limit().limit());
            }
          });

  private void consume() {
    quota.consume(
        "p1",
        "alice",
        QuotaOperation.INSPECT,
        new ReceiptId("r"),
        RequestDigest.of(QuotaOperation.INSPECT, "x"));
  }

  @Test
  void aRefusalIsHeardWithItsBucketAndWindowStartAndAnAdmissionIsNot() {
    next = new QuotaDecision.Allowed(60_000, 1, 61_000, DecidingOnlyStore.LIMIT);
    consume();
    assertThat(heard).containsExactly("ALLOWED");

    next = new QuotaDecision.Rejected(9, DecidingOnlyStore.LIMIT, 60_000);
    assertThatThrownBy(this::consume).isInstanceOf(QuotaExceededException.class);
    assertThat(heard)
        .containsExactly(
            "ALLOWED",
            "REJECTED",
            "rejected "
                + QuotaKey.user("p1", "alice", QuotaOperation.INSPECT)
                + " 60000 "
                + DecidingOnlyStore.LIMIT.limit());
  }
}
