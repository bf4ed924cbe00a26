package dev.qinglong.app.http;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Bounds the requests one authenticated user has in flight, from whatever addresses: behind an
 * ingress, or with many addresses, the per-address bound of {@link RequestShieldFilter} does not
 * stop one principal from holding every slot. Runs right after Spring Security's chain, so the user
 * is known; anonymous requests pass (the per-address bound and the total hold them). Excess gets
 * 429 with {@code Retry-After: 1} before any database work of the route. The bound is {@code
 * qinglong.shield.max-concurrent-requests-per-principal} for every user but those {@code
 * qinglong.shield.principal-overrides} names, each of which has its own.
 */
public final class PrincipalShieldFilter extends OncePerRequestFilter {
  private final InFlightCounts inFlight;
  // One count per overridden user, bounded by that user's own maximum.
  private final Map<String, InFlightCounts> overridden;
  private final ShieldRefusals refusals;

  public PrincipalShieldFilter(ShieldProperties shield, ShieldRefusals refusals) {
    this.inFlight = new InFlightCounts(shield.maxConcurrentRequestsPerPrincipal());
    Map<String, InFlightCounts> own = new HashMap<>();
    shield.principalOverrides().forEach((user, max) -> own.put(user, new InFlightCounts(max)));
    this.overridden = Map.copyOf(own);
    this.refusals = refusals;
  }

  /**
   * How many authenticated requests are counted against their user right now. For diagnostics and
   * tests, which wait on it instead of guessing how long the server takes to admit a request.
   */
  public int inFlight() {
    int total = inFlight.total();
    for (InFlightCounts counts : overridden.values()) {
      total += counts.total();
    }
    return total;
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
    InFlightCounts counts = overridden.getOrDefault(principal, inFlight);
    if (!counts.tryAcquire(principal)) {
      refusals.refuse(response, ShieldRefusals.Reason.PRINCIPAL_CONCURRENCY);
      return;
    }
    try {
      chain.doFilter(request, response);
    } finally {
      counts.release(principal);
    }
  }
}
