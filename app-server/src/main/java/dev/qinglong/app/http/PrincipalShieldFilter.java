package dev.qinglong.app.http;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Bounds the requests one authenticated user has in flight, from whatever addresses (issue 10 item
 * 3): behind an ingress, or with many addresses, the per-address bound of {@link
 * RequestShieldFilter} does not stop one principal from holding every slot. Runs right after Spring
 * Security's chain, so the user is known; anonymous requests pass (the per-address bound and the
 * total hold them). Excess gets 429 with {@code Retry-After: 1} before any database work of the
 * route.
 */
public final class PrincipalShieldFilter extends OncePerRequestFilter {
  private final int perPrincipal;
  // Requests in flight per user id; an entry exists only while its count is positive.
  private final ConcurrentHashMap<String, Integer> inFlight = new ConcurrentHashMap<>();

  private final ShieldMetrics metrics;

  public PrincipalShieldFilter(ShieldProperties shield) {
    this(shield, ShieldMetrics.detached());
  }

  public PrincipalShieldFilter(ShieldProperties shield, ShieldMetrics metrics) {
    this.perPrincipal = shield.maxConcurrentRequestsPerPrincipal();
    this.metrics = metrics;
  }

  /**
   * How many authenticated requests are counted against their user right now. For diagnostics and
   * tests, which wait on it instead of guessing how long the server takes to admit a request.
   */
  public int inFlight() {
    return inFlight.values().stream().mapToInt(Integer::intValue).sum();
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
    if (authentication == null
        || !authentication.isAuthenticated()
        || authentication instanceof AnonymousAuthenticationToken) {
      chain.doFilter(request, response);
      return;
    }
    String principal = authentication.getName();
    if (!admit(principal)) {
      metrics.rejected(ShieldMetrics.Reason.PRINCIPAL_CONCURRENCY);
      Problems.write(
          response,
          ProblemType.TOO_MANY_REQUESTS,
          "Too many concurrent requests from this user.",
          Map.of("Retry-After", "1"));
      return;
    }
    try {
      chain.doFilter(request, response);
    } finally {
      inFlight.computeIfPresent(principal, (k, n) -> n <= 1 ? null : n - 1);
    }
  }

  private boolean admit(String principal) {
    boolean[] admitted = {false};
    inFlight.compute(
        principal,
        (k, n) -> {
          int current = n == null ? 0 : n;
          if (current >= perPrincipal) {
            return n;
          }
          admitted[0] = true;
          return current + 1;
        });
    return admitted[0];
  }
}
