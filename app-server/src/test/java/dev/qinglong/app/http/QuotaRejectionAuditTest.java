package dev.qinglong.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.qinglong.core.kernel.QuotaExceededException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.mock.web.MockHttpServletRequest;

class QuotaRejectionAuditTest {
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final Logger audit = (Logger) LoggerFactory.getLogger(AuditLog.LOGGER);

  @BeforeEach
  void capture() {
    lines.start();
    audit.addAppender(lines);
  }

  @AfterEach
  void release() {
    audit.detachAppender(lines);
  }

  @Test
  void aRefusalIsAuditedUnlessItsBucketsWindowAlreadyWasThenItIsStillA429() {
    ApiExceptionHandler handler = new ApiExceptionHandler();
    MockHttpServletRequest first = new MockHttpServletRequest("POST", "/v1/projects/p/x");
    assertThat(handler.quota(new QuotaExceededException(7, null), first).getStatusCode().value())
        .isEqualTo(429);
    assertThat(lines.list)
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.getFormattedMessage())
                    .contains("auditEvent=quota.rejected quota=management method=POST")
                    .contains("retryAfterSeconds=7"));

    MockHttpServletRequest later = new MockHttpServletRequest("POST", "/v1/projects/p/x");
    later.setAttribute(ApiExceptionHandler.AUDIT_SUPPRESSED, Boolean.TRUE);
    assertThat(handler.quota(new QuotaExceededException(7, null), later).getStatusCode().value())
        .isEqualTo(429);
    assertThat(lines.list).hasSize(1);
  }
}
