package dev.qinglong.app.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes RFC 9457 problem documents with the extension {@code "error":{"code":…}}. Details are
 * fixed texts chosen by the caller of this class: never an exception message from a store, a stack
 * trace, SQL, a row, a count or an identifier of another Project or user.
 */
public final class Problems {
  public static final String CONTENT_TYPE = "application/problem+json";

  /**
   * {@code Retry-After} of a 503 {@code unavailable} that names no other: the store (a database
   * that is away, slow or restarting) or the server cannot answer now, a retry with the same id in
   * a second is the right move (docs/design.md#guarantees: never fail open).
   */
  public static final String UNAVAILABLE_RETRY_AFTER_SECONDS = "1";

  private Problems() {}

  /**
   * An RFC 9457 problem document as the API writes it, members in this order; {@code instance} (the
   * request's id) is left out when the request has none.
   */
  public record Problem(
      String type,
      String title,
      int status,
      String detail,
      @JsonInclude(JsonInclude.Include.NON_NULL) String instance,
      ErrorCode error) {}

  /** The extension member {@code "error":{"code":…}}: the stable code a client switches on. */
  public record ErrorCode(String code) {}

  // Only problem documents go through it: no configuration of the app's mapper is needed.
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** The problem document of {@code type} with {@code detail}, for the current request. */
  public static Problem problem(ProblemType type, String detail) {
    return new Problem(
        type.typeUri(),
        type.title(),
        type.status(),
        detail,
        RequestIdFilter.currentInstance(),
        new ErrorCode(type.code()));
  }

  /** The problem document as JSON text, for writers outside Spring MVC (filters, the valve). */
  public static String json(ProblemType type, String detail) {
    return JSON.writeValueAsString(problem(type, detail));
  }

  /**
   * A response entity for MVC handlers; content type preset so the Accept header cannot veto it.
   */
  public static ResponseEntity<Problem> entity(
      ProblemType type, String detail, Map<String, String> headers) {
    HttpHeaders h = new HttpHeaders();
    h.setContentType(MediaType.parseMediaType(CONTENT_TYPE));
    h.setCacheControl("no-store");
    withRetryAfter(type, headers).forEach(h::set);
    return ResponseEntity.status(type.status()).headers(h).body(problem(type, detail));
  }

  public static ResponseEntity<Problem> entity(ProblemType type, String detail) {
    return entity(type, detail, Map.of());
  }

  /** Writes the problem straight to a servlet response (filters, security entry points). */
  public static void write(
      HttpServletResponse response, ProblemType type, String detail, Map<String, String> headers)
      throws IOException {
    if (response.isCommitted()) {
      return;
    }
    response.resetBuffer();
    response.setStatus(type.status());
    response.setContentType(CONTENT_TYPE);
    response.setHeader(HttpHeaders.CACHE_CONTROL, "no-store");
    withRetryAfter(type, headers).forEach(response::setHeader);
    byte[] body = json(type, detail).getBytes(StandardCharsets.UTF_8);
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
    response.flushBuffer();
  }

  /** The headers, plus {@code Retry-After: 1} on a 503 {@code unavailable} that has none. */
  static Map<String, String> withRetryAfter(ProblemType type, Map<String, String> headers) {
    if (type != ProblemType.UNAVAILABLE
        || headers.keySet().stream().anyMatch(HttpHeaders.RETRY_AFTER::equalsIgnoreCase)) {
      return headers;
    }
    Map<String, String> out = new java.util.LinkedHashMap<>(headers);
    out.put(HttpHeaders.RETRY_AFTER, UNAVAILABLE_RETRY_AFTER_SECONDS);
    return out;
  }
}
