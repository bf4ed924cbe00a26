package dev.qinglong.app.http;

import jakarta.servlet.http.HttpServletResponse;
import java.util.List;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

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
      if (!name.matches("[a-z0-9._-]{1,64}")) {
        throw new IllegalArgumentException("policy name is not a plain token. Indicates a bug.");
      }
      remaining = Math.max(0, Math.min(remaining, quota));
      resetSeconds = Math.max(0, resetSeconds);
    }

    String policyItem() {
      return "\""
          + name
          + "\";q="
          + quota
          + ";w="
          + windowSeconds
          + (unit == null ? "" : ";qu=\"" + unit + "\"");
    }

    String stateItem() {
      return "\"" + name + "\";r=" + remaining + ";t=" + resetSeconds;
    }
  }

  private RateLimitHeaders() {}

  /** The {@code RateLimit-Policy} field value for {@code limits}. */
  public static String policy(List<Limit> limits) {
    return String.join(", ", limits.stream().map(Limit::policyItem).toList());
  }

  /** The {@code RateLimit} field value for {@code limits}. */
  public static String state(List<Limit> limits) {
    return String.join(", ", limits.stream().map(Limit::stateItem).toList());
  }

  /**
   * Adds {@code limits} to the response of the request this thread is serving (nothing outside a
   * request). Fields already set by another quota of the same request are extended, as structured
   * lists combine.
   */
  public static void addToCurrentResponse(List<Limit> limits) {
    if (limits.isEmpty()) {
      return;
    }
    RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
    if (!(attributes instanceof ServletRequestAttributes servlet)) {
      return;
    }
    HttpServletResponse response = servlet.getResponse();
    if (response == null || response.isCommitted()) {
      return;
    }
    append(response, POLICY, policy(limits));
    append(response, STATE, state(limits));
  }

  private static void append(HttpServletResponse response, String name, String value) {
    String existing = response.getHeader(name);
    response.setHeader(name, existing == null ? value : existing + ", " + value);
  }
}
