package dev.qinglong.app.http;

import dev.qinglong.core.kernel.Limited;
import dev.qinglong.core.kernel.Principal;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.Authentication;

/**
 * What every JSON route shares: who calls, and how a typed answer is sent (JSON, never cached: the
 * answers carry per-caller data), with the rate-limit fields of the limits its result carries.
 */
public final class JsonAnswers {
  private JsonAnswers() {}

  /** The authenticated caller; the security chain has already checked the id's grammar. */
  public static Principal caller(Authentication authentication) {
    return new Principal(authentication.getName());
  }

  /** A 200 JSON answer. */
  public static <T> ResponseEntity<T> ok(T body) {
    return ResponseEntity.ok()
        .contentType(MediaType.APPLICATION_JSON)
        .header(HttpHeaders.CACHE_CONTROL, "no-store")
        .body(body);
  }

  /** A 200 JSON answer with the rate-limit fields of the limits that decided it. */
  public static <T> ResponseEntity<T> ok(T body, Limited<?> decided) {
    return ResponseEntity.ok()
        .contentType(MediaType.APPLICATION_JSON)
        .header(HttpHeaders.CACHE_CONTROL, "no-store")
        .headers(RateLimitHeaders.headers(decided.rateLimits()))
        .body(body);
  }

  /**
   * A 201 JSON answer with {@code Location}: the path of what was created (every 201 carries it).
   * Identifiers are of the contract's grammar, so the path needs no escaping.
   */
  public static <T> ResponseEntity<T> created(String location, T body) {
    return ResponseEntity.status(201)
        .contentType(MediaType.APPLICATION_JSON)
        .header(HttpHeaders.CACHE_CONTROL, "no-store")
        .header(HttpHeaders.LOCATION, location)
        .body(body);
  }

  /** A 201 JSON answer with {@code Location} and the rate-limit fields of what decided it. */
  public static <T> ResponseEntity<T> created(String location, T body, Limited<?> decided) {
    return ResponseEntity.status(201)
        .contentType(MediaType.APPLICATION_JSON)
        .header(HttpHeaders.CACHE_CONTROL, "no-store")
        .header(HttpHeaders.LOCATION, location)
        .headers(RateLimitHeaders.headers(decided.rateLimits()))
        .body(body);
  }

  /** A 200 JSON answer with extra header fields (e.g. the model quota's rate-limit fields). */
  public static <T> ResponseEntity<T> ok(T body, HttpHeaders fields) {
    return ResponseEntity.ok()
        .contentType(MediaType.APPLICATION_JSON)
        .header(HttpHeaders.CACHE_CONTROL, "no-store")
        .headers(fields)
        .body(body);
  }

  /** A 201 JSON answer with {@code Location} and extra header fields. */
  public static <T> ResponseEntity<T> created(String location, T body, HttpHeaders fields) {
    return ResponseEntity.status(201)
        .contentType(MediaType.APPLICATION_JSON)
        .header(HttpHeaders.CACHE_CONTROL, "no-store")
        .header(HttpHeaders.LOCATION, location)
        .headers(fields)
        .body(body);
  }
}
