package dev.qinglong.app.http;

import dev.qinglong.app.platform.EnumCounters;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;

/**
 * The shield's own refusals: each reason's fixed answer, and its count as {@code
 * qinglong_shield_rejections_total{reason}}. No client address or user is a tag: that would be one
 * series per attacker.
 */
public final class ShieldRefusals {
  /** Why the shield answered instead of the route, and what it answered. */
  public enum Reason {
    DUPLICATE_AUTHORIZATION(
        ProblemType.INVALID_REQUEST, "The request has more than one Authorization header."),
    BODY_TOO_LARGE(ProblemType.PAYLOAD_TOO_LARGE, RequestShieldFilter.TOO_LARGE_DETAIL),
    CLIENT_CONCURRENCY(
        ProblemType.TOO_MANY_REQUESTS, "Too many concurrent requests from this client."),
    PRINCIPAL_CONCURRENCY(
        ProblemType.TOO_MANY_REQUESTS,
        "Too many concurrent requests from this user: the per-user in-flight bound is reached"
            + " (qinglong.shield.max-concurrent-requests-per-principal; one user's own bound is"
            + " raised with qinglong.shield.principal-overrides). Retry in a second."),
    /** The server-wide (or download) concurrency budget is exhausted. */
    SERVER_BUSY(ProblemType.UNAVAILABLE, "The server is busy; retry later.");

    private final ProblemType type;
    private final String detail;

    Reason(ProblemType type, String detail) {
      this.type = type;
      this.detail = detail;
    }
  }

  private final EnumCounters<Reason> counters;

  public ShieldRefusals(MeterRegistry registry) {
    counters =
        new EnumCounters<>(
            registry,
            "qinglong.shield.rejections",
            "Requests the pre-authentication shield refused, by reason",
            "reason",
            Reason.class);
  }

  /** Counts the refusal and answers it with its problem document. */
  void refuse(HttpServletResponse response, Reason reason) throws IOException {
    counters.increment(reason);
    // A body the shield refuses is never read, so the connection closes; a concurrency refusal
    // may be retried in a second.
    Map<String, String> headers =
        switch (reason.type) {
          case INVALID_REQUEST, PAYLOAD_TOO_LARGE -> Map.of("Connection", "close");
          default -> Map.of("Retry-After", "1");
        };
    Problems.write(response, reason.type, reason.detail, headers);
  }
}
