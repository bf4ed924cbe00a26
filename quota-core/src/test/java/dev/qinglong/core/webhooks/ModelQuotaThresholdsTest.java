package dev.qinglong.core.webhooks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.core.modelquota.ProjectQuotaPolicy;
import dev.qinglong.core.modelquota.QuotaWindow;
import dev.qinglong.core.modelquota.WindowRef;
import dev.qinglong.core.modelquota.WindowUsage;
import dev.qinglong.core.modelquota.WindowUsageReading;
import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;

class ModelQuotaThresholdsTest {
  private static final long HOUR = 3_600_000;
  private static final long START = 1_700_002_800_000L; // a whole hour

  private static WindowUsageReading reading(
      long invocations, long tokens, long cost, Long maxCost) {
    ProjectQuotaPolicy quota =
        new ProjectQuotaPolicy("p1", 1, QuotaWindow.ONE_HOUR, 10, 1_000, maxCost, 0);
    return new WindowUsageReading(
        new WindowUsage(new WindowRef("p1", START, HOUR), invocations, tokens, cost),
        quota,
        START + 5);
  }

  private static WebhookEventOutbox.ThresholdSubscription sub(String... fractions) {
    return new WebhookEventOutbox.ThresholdSubscription(
        "p1", "w1", List.of(fractions).stream().map(BigDecimal::new).toList());
  }

  @Test
  void aFractionIsReachedAtExactlyItsShareOfTheLimitInEachLimitedDimension() {
    List<ModelQuotaThresholds.Crossing> c =
        ModelQuotaThresholds.crossings(reading(8, 799, 500, 1_000L), List.of(sub("0.8", "1.0")));
    // invocations 8/10 reach 0.8; tokens 799/1000 do not; cost 500/1000 does not.
    assertThat(c).hasSize(1);
    assertThat(c.get(0).dimension()).isEqualTo(ModelQuotaThresholds.Dimension.INVOCATIONS);
    assertThat(c.get(0).dedupKey()).isEqualTo("mqt:" + START + ":" + HOUR + ":invocations:0.8");

    assertThat(
            ModelQuotaThresholds.crossings(
                reading(10, 1_000, 1_000, 1_000L), List.of(sub("0.8", "1.0"))))
        .hasSize(6);
  }

  @Test
  void costWithoutALimitAndUnusedDimensionsNeverCross() {
    assertThat(ModelQuotaThresholds.crossings(reading(0, 0, 5_000, null), List.of(sub("0.1"))))
        .isEmpty();
    // A cost limit of 0 is "nothing may cost", not a fraction to report.
    assertThat(ModelQuotaThresholds.crossings(reading(0, 0, 0, 0L), List.of(sub("0.1")))).isEmpty();
  }

  @Test
  void theKeyNamesTheFractionOnceWhateverItsScaleAndTheBodyCarriesNumbersOnly() {
    ModelQuotaThresholds.Crossing a =
        ModelQuotaThresholds.crossings(reading(10, 0, 0, null), List.of(sub("1.0"))).get(0);
    ModelQuotaThresholds.Crossing b =
        ModelQuotaThresholds.crossings(reading(10, 0, 0, null), List.of(sub("1"))).get(0);
    assertThat(a.dedupKey()).isEqualTo(b.dedupKey()).endsWith(":invocations:1");
    assertThat(a.payload(START))
        .isEqualTo(
            "{\"type\":\"model-quota.threshold\",\"timestamp\":\"2023-11-14T23:00:00.000Z\","
                + "\"data\":{\"projectId\":\"p1\",\"dimension\":\"invocations\",\"threshold\":1.0,"
                + "\"used\":10,\"limit\":10,\"windowStartedAt\":\"2023-11-14T23:00:00.000Z\","
                + "\"windowSeconds\":3600}}");
  }

  @Test
  void aProjectThatCannotBeReadDoesNotHoldBackTheOthersAndThePassStillFails() {
    List<String> written = new java.util.ArrayList<>();
    WebhookEventOutbox outbox =
        new WebhookEventOutbox() {
          @Override
          public int enqueueOnce(String p, WebhookEventType t, String k, String b) {
            throw new AssertionError("not used");
          }

          @Override
          public boolean enqueueOnce(String p, String w, WebhookEventType t, String k, String b) {
            written.add(p + " " + k);
            return true;
          }

          @Override
          public List<ThresholdSubscription> thresholdSubscriptions() {
            return List.of(
                new ThresholdSubscription("bad", "w1", List.of(BigDecimal.ONE)),
                new ThresholdSubscription("p1", "w1", List.of(BigDecimal.ONE)));
          }
        };
    ModelQuotaThresholds pass =
        new ModelQuotaThresholds(
            outbox,
            project -> {
              if (project.equals("bad")) {
                throw new IllegalStateException("drifted");
              }
              return reading(10, 0, 0, null);
            });
    org.assertj.core.api.Assertions.assertThatThrownBy(pass::run)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("drifted");
    assertThat(written).containsExactly("p1 mqt:" + START + ":" + HOUR + ":invocations:1");
  }
}
