package dev.qinglong.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.AuditLines;
import dev.qinglong.core.kernel.QuotaExceededException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.mock.web.MockHttpServletRequest;

class QuotaRejectionAuditTest {
  @RegisterExtension final AuditLines lines = new AuditLines();

  @Test
  void aRefusalIsAuditedUnlessItsBucketsWindowAlreadyWasThenItIsStillA429() {
    ApiExceptionHandler handler = new ApiExceptionHandler();
    MockHttpServletRequest first = new MockHttpServletRequest("POST", "/v1/projects/p/x");
    assertThat(handler.quota(new QuotaExceededException(7, null), first).getStatusCode().value())
        .isEqualTo(429);
    assertThat(lines.events())
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
    assertThat(lines.events()).hasSize(1);
  }
}
