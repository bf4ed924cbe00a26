package dev.qinglong.app.http;

import dev.qinglong.core.kernel.Limited;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

/**
 * What every JSON route shares: how a typed answer is sent (JSON, never cached: the answers carry
 * per-caller data), with the rate-limit fields of the limits its result carries.
 */
public final class JsonAnswers {
  private JsonAnswers() {}

  /** A 200 JSON answer. */
  public static <T> ResponseEntity<T> ok(T body) {
    return answer(false, null, body, HttpHeaders.EMPTY);
  }

  /** A 200 JSON answer with the rate-limit fields of the limits that decided it. */
  public static <T> ResponseEntity<T> ok(T body, Limited<?> decided) {
    return answer(false, null, body, RateLimitHeaders.headers(decided.rateLimits()));
  }

  /**
   * A 201 JSON answer with {@code Location}, the path of what was created (every 201 carries it),
   * if {@code created}; else the 200 of a replay, the stored answer. Identifiers are of the
   * contract's grammar, so the path needs no escaping.
   */
  public static <T> ResponseEntity<T> createdOrReplayed(
      boolean created, String location, T body, Limited<?> decided) {
    return answer(created, location, body, RateLimitHeaders.headers(decided.rateLimits()));
  }

  /** As {@link #createdOrReplayed(boolean, String, Object, Limited)}, with extra header fields. */
  public static <T> ResponseEntity<T> answer(
      boolean created, String location, T body, HttpHeaders fields) {
    ResponseEntity.BodyBuilder answer =
        ResponseEntity.status(created ? 201 : 200)
            .contentType(MediaType.APPLICATION_JSON)
            .header(HttpHeaders.CACHE_CONTROL, "no-store")
            .headers(fields);
    if (created) {
      answer.header(HttpHeaders.LOCATION, location);
    }
    return answer.body(body);
  }
}
