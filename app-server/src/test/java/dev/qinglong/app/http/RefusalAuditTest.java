package dev.qinglong.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.AuditLines;
import dev.qinglong.core.quota.QuotaKey;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.testkit.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RefusalAuditTest {
  private static final Duration WINDOW = Duration.ofSeconds(60);
  private static final long W1 = 1_800_000_000_000L;
  private static final long W2 = W1 + WINDOW.toMillis();

  private final MutableClock clock = new MutableClock(Instant.ofEpochMilli(W1 + 1_000));
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  @RegisterExtension final AuditLines lines = new AuditLines();

  private RefusalAudit audit(int capacity) {
    return new RefusalAudit(WINDOW, clock, false, registry, capacity);
  }

  private static QuotaKey bucket(String user) {
    return QuotaKey.user("prj-1", user, QuotaOperation.INSPECT);
  }

  /** The summary lines written so far, as their key-value fields. */
  private List<Map<String, String>> summaries() {
    return lines.fields();
  }

  private double suppressedCounter() {
    return registry.get("qinglong.quota.refusals.audit.suppressed").counter().count();
  }

  @Test
  void nRefusalsInOneWindowAreOneFirstLineAndOneSummaryWhenTheWindowIsOver() {
    RefusalAudit refusals = audit(100);
    int firsts = 0;
    for (int i = 0; i < 50; i++) {
      firsts += refusals.first(bucket("alice"), W1) ? 1 : 0;
    }
    assertThat(firsts).isEqualTo(1);
    assertThat(suppressedCounter()).isEqualTo(49);
    refusals.endExpired();
    assertThat(lines.events()).as("the window is not over yet").isEmpty();

    // Over, plus the margin for clock differences: reported without any refusal arriving.
    clock.set(Instant.ofEpochMilli(W2 + RefusalAudit.MARGIN.toMillis()));
    refusals.endExpired();
    assertThat(summaries())
        .containsExactly(
            Map.of(
                "auditEvent", "quota.rejected",
                "quota", "management",
                "projectId", "prj-1",
                "userId", "alice",
                "operation", "plugin-package.inspect",
                "windowStart", Instant.ofEpochMilli(W1).toString(),
                "refusals", "50",
                "suppressed", "49"));
    assertThat(lines.events().get(0).getFormattedMessage())
        .contains("auditEvent=quota.rejected")
        .contains("refusals=50")
        .contains("suppressed=49");
    refusals.close();
    assertThat(lines.events()).as("nothing left to report at shutdown").hasSize(1);
  }

  @Test
  void aRefusalOfTheNextWindowReportsTheEndedOneAndIsAFirstLineItself() {
    RefusalAudit refusals = audit(100);
    assertThat(refusals.first(bucket("alice"), W1)).isTrue();
    assertThat(refusals.first(bucket("alice"), W1)).isFalse();
    assertThat(refusals.first(bucket("alice"), W1)).isFalse();
    clock.set(Instant.ofEpochMilli(W2 + 5));
    assertThat(refusals.first(bucket("alice"), W2)).isTrue();
    assertThat(summaries())
        .singleElement()
        .satisfies(s -> assertThat(s).containsEntry("refusals", "3"));
    assertThat(refusals.first(bucket("alice"), W2)).isFalse();
    // A late thread's refusal of the earlier window counts with the remembered one.
    assertThat(refusals.first(bucket("alice"), W1)).isFalse();

    refusals.close();
    assertThat(summaries()).hasSize(2);
    assertThat(summaries().get(1))
        .containsEntry("windowStart", Instant.ofEpochMilli(W2).toString())
        .containsEntry("refusals", "3")
        .containsEntry("suppressed", "2");
    assertThat(suppressedCounter()).isEqualTo(4);
  }

  @Test
  void aWindowWithOneRefusalNeedsNoSummaryAndAnExpiredOneIsReportedOnce() {
    RefusalAudit refusals = audit(100);
    assertThat(refusals.first(bucket("bob"), W1)).isTrue();
    assertThat(refusals.first(bucket("carol"), W1)).isTrue();
    assertThat(refusals.first(bucket("carol"), W1)).isFalse();
    // Both expired, not yet cleaned up; the next window's refusal arrives first.
    clock.set(Instant.ofEpochMilli(W2 + RefusalAudit.MARGIN.toMillis() + 1));
    assertThat(refusals.first(bucket("carol"), W2)).isTrue();
    refusals.endExpired();
    refusals.close();
    assertThat(summaries())
        .singleElement()
        .satisfies(
            s ->
                assertThat(s)
                    .containsEntry("userId", "carol")
                    .containsEntry("windowStart", Instant.ofEpochMilli(W1).toString())
                    .containsEntry("refusals", "2"));
  }

  @Test
  void aFullMemoryEvictsABucketWithItsSummaryAndNeverLosesAFirstRefusal() {
    RefusalAudit refusals = audit(4);
    int firsts = 0;
    for (int b = 0; b < 10; b++) {
      for (int i = 0; i < 3; i++) {
        firsts += refusals.first(bucket("user-" + b), W1) ? 1 : 0;
      }
    }
    assertThat(firsts).as("each bucket's first refusal is reported first").isEqualTo(10);
    int reportedEarly = summaries().size();
    assertThat(reportedEarly)
        .as("at most 4 buckets remembered: 6 evicted")
        .isGreaterThanOrEqualTo(6);
    refusals.close();
    assertThat(summaries())
        .hasSize(10)
        .allSatisfy(s -> assertThat(s).containsEntry("refusals", "3"));
    assertThat(summaries().stream().map(s -> s.get("userId")).distinct()).hasSize(10);
  }

  @Test
  void manyThreadsRefusingOneBucketMakeExactlyOneFirstLine() throws Exception {
    RefusalAudit refusals = audit(100);
    int threads = 16;
    int each = 2_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    AtomicInteger firsts = new AtomicInteger();
    try {
      List<Future<?>> done =
          java.util.stream.IntStream.range(0, threads)
              .<Future<?>>mapToObj(
                  t ->
                      pool.submit(
                          () -> {
                            start.await();
                            for (int i = 0; i < each; i++) {
                              if (refusals.first(bucket("alice"), W1)) {
                                firsts.incrementAndGet();
                              }
                            }
                            return null;
                          }))
              .toList();
      start.countDown();
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(firsts.get()).isEqualTo(1);
    refusals.close();
    assertThat(summaries())
        .singleElement()
        .satisfies(s -> assertThat(s).containsEntry("refusals", String.valueOf(threads * each)));
    assertThat(suppressedCounter()).isEqualTo(threads * each - 1);
  }
}
