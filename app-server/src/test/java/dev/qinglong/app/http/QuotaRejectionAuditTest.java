package dev.qinglong.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.AuditLines;
import dev.qinglong.core.kernel.RateLimit;
import dev.qinglong.core.quota.QuotaExceededException;
import dev.qinglong.core.quota.QuotaKey;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.testkit.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.mock.web.MockHttpServletRequest;

/**
 * The exception handler audits a management quota refusal from what the refusal itself names (its
 * bucket and window): the first of a bucket's window writes the {@code quota.rejected} line, the
 * later ones of that window write none and are still 429; another bucket or the next window is a
 * first again. A process without a management quota's audit audits every refusal.
 */
class QuotaRejectionAuditTest {
  private static final long W1 = 1_800_000_000_000L;
  private static final Duration WINDOW = Duration.ofSeconds(60);

  @RegisterExtension final AuditLines lines = new AuditLines();

  private static QuotaExceededException refusal(String user, long windowStartedAtMs) {
    return new QuotaExceededException(
        7,
        new RateLimit("plugin-package.inspect", 2, 60, 0, 7),
        QuotaKey.user("prj-1", user, QuotaOperation.INSPECT),
        windowStartedAtMs);
  }

  private static ApiExceptionHandler handler(Optional<RefusalAudit> audit) {
    return new ApiExceptionHandler(audit);
  }

  private static int status(ApiExceptionHandler handler, QuotaExceededException e) {
    return handler
        .quota(e, new MockHttpServletRequest("POST", "/v1/projects/prj-1/x"))
        .getStatusCode()
        .value();
  }

  @Test
  void aWindowsFirstRefusalIsAuditedTheLaterOnesAreCountedAndAllAre429() {
    MutableClock clock = new MutableClock(Instant.ofEpochMilli(W1 + 1_000));
    try (RefusalAudit audit =
        new RefusalAudit(WINDOW, clock, false, new SimpleMeterRegistry(), 100)) {
      ApiExceptionHandler handler = handler(Optional.of(audit));
      assertThat(status(handler, refusal("alice", W1))).isEqualTo(429);
      assertThat(lines.events())
          .singleElement()
          .satisfies(
              e ->
                  assertThat(e.getFormattedMessage())
                      .contains("auditEvent=quota.rejected quota=management method=POST")
                      .contains("retryAfterSeconds=7"));
      for (int i = 0; i < 5; i++) {
        assertThat(status(handler, refusal("alice", W1))).isEqualTo(429);
      }
      assertThat(lines.events()).as("later refusals of the window").hasSize(1);
      assertThat(status(handler, refusal("bob", W1))).isEqualTo(429);
      assertThat(lines.events()).as("another bucket").hasSize(2);
    }
  }

  @Test
  void withoutTheAuditEveryRefusalIsAudited() {
    ApiExceptionHandler handler = handler(Optional.empty());
    for (int i = 0; i < 3; i++) {
      assertThat(status(handler, refusal("alice", W1))).isEqualTo(429);
    }
    assertThat(lines.events()).hasSize(3);
  }
}
