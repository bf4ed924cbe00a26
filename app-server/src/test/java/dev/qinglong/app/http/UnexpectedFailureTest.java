package dev.qinglong.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.http.Problems.Problem;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.http.ResponseEntity;
import org.springframework.mock.web.MockHttpServletResponse;

/**
 * An unexpected failure fails closed with a 503 problem, but only while nothing of the answer is
 * out: after the status line and part of a body went to the client, a problem document cannot
 * follow them, so the handler adds nothing (the container then ends the connection).
 */
class UnexpectedFailureTest {
  private final ApiExceptionHandler handler = new ApiExceptionHandler(Optional.empty());

  @Test
  void beforeTheAnswerIsOutItIsA503WithRetryAfterAndNoCause() {
    ResponseEntity<Problem> answer =
        handler.unexpected(
            new IllegalStateException("secret detail"), new MockHttpServletResponse());
    assertThat(answer.getStatusCode().value()).isEqualTo(503);
    assertThat(answer.getHeaders().getFirst("Retry-After")).matches("[1-3]");
    assertThat(answer.getBody().detail()).doesNotContain("secret");
  }

  @Test
  void afterTheAnswerIsOutNothingIsAdded() {
    MockHttpServletResponse committed = new MockHttpServletResponse();
    committed.setCommitted(true);
    assertThat(handler.unexpected(new IllegalStateException("mid-stream"), committed)).isNull();
  }
}
