package dev.qinglong.app.http;

import dev.qinglong.core.kernel.RateLimit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpHeaders;

/**
 * The rate-limit header fields of draft-ietf-httpapi-ratelimit-headers in their structured-field
 * form (RFC 9651 lists of string items with parameters):
 *
 * <pre>
 * RateLimit-Policy: "plugin-package.propose";q=30;w=60;qu="requests"
 * RateLimit: "plugin-package.propose";r=27;t=41
 * </pre>
 *
 * {@code q} is the quota, {@code w} the window in seconds, {@code qu} the quota unit where the
 * draft names one ({@code requests}), {@code r} what is left and {@code t} the seconds until the
 * window resets. Hand-written on purpose: two short fixed-shape lines, and the only
 * structured-field library for Java is not on Maven Central in a maintained version.
 */
public final class RateLimitHeaders {
  public static final String POLICY = "RateLimit-Policy";
  public static final String STATE = "RateLimit";

  /**
   * One quota policy and its state for this response.
   *
   * @param name the policy's name: a quota operation or a model-quota dimension
   * @param unit the draft's quota unit ({@code "requests"}), or null when the draft has none for it
   */
  public record Limit(
      String name, long quota, long windowSeconds, long remaining, long resetSeconds, String unit) {
    public Limit {
      if (!isToken(name)) {
        throw new IllegalArgumentException("policy name is not a plain token. Indicates a bug.");
      }
      remaining = Math.max(0, Math.min(remaining, quota));
      resetSeconds = Math.max(0, resetSeconds);
    }

    void appendPolicyItem(StringBuilder out) {
      out.append('"')
          .append(name)
          .append("\";q=")
          .append(quota)
          .append(";w=")
          .append(windowSeconds);
      if (unit != null) {
        out.append(";qu=\"").append(unit).append('"');
      }
    }

    void appendStateItem(StringBuilder out) {
      out.append('"').append(name).append("\";r=").append(remaining).append(";t=");
      out.append(resetSeconds);
    }
  }

  private RateLimitHeaders() {}

  /** The header item of a core rate limit: a request quota ({@code qu="requests"}). */
  public static Limit of(RateLimit limit) {
    return new Limit(
        limit.name(),
        limit.limit(),
        limit.windowSeconds(),
        limit.remaining(),
        limit.resetSeconds(),
        "requests");
  }

  /**
   * The {@code RateLimit-Policy} and {@code RateLimit} fields of {@code limits}, the rate limits a
   * request's result or refusal carries; no fields when there are none.
   */
  public static HttpHeaders headers(List<RateLimit> limits) {
    return fields(limits.stream().map(RateLimitHeaders::of).toList());
  }

  /**
   * Whether {@code name} is 1..64 of {@code [a-z0-9._-]}: a plain token that needs no escaping in a
   * structured-field string. A loop, not {@code String.matches}, which compiles its pattern anew on
   * every call (every response with a quota decision).
   */
  static boolean isToken(String name) {
    int n = name.length();
    if (n < 1 || n > 64) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      char c = name.charAt(i);
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-')) {
        return false;
      }
    }
    return true;
  }

  /** The {@code RateLimit-Policy} field value for {@code limits}. */
  public static String policy(List<Limit> limits) {
    StringBuilder out = new StringBuilder(48 * limits.size());
    for (int i = 0; i < limits.size(); i++) {
      if (i > 0) {
        out.append(", ");
      }
      limits.get(i).appendPolicyItem(out);
    }
    return out.toString();
  }

  /** The {@code RateLimit} field value for {@code limits}. */
  public static String state(List<Limit> limits) {
    StringBuilder out = new StringBuilder(40 * limits.size());
    for (int i = 0; i < limits.size(); i++) {
      if (i > 0) {
        out.append(", ");
      }
      limits.get(i).appendStateItem(out);
    }
    return out.toString();
  }

  /** A quota refusal's headers: {@code Retry-After} and the two fields of the refusing limits. */
  public static Map<String, String> refusal(long retryAfterSeconds, List<Limit> items) {
    Map<String, String> out = new LinkedHashMap<>();
    out.put(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds));
    fields(items).forEach((name, values) -> out.put(name, String.join(", ", values)));
    return out;
  }

  /** The two fields for {@code items}; no fields when there are none. */
  public static HttpHeaders fields(List<Limit> items) {
    HttpHeaders out = new HttpHeaders();
    if (!items.isEmpty()) {
      out.set(POLICY, policy(items));
      out.set(STATE, state(items));
    }
    return out;
  }
}
