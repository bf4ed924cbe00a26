package dev.qinglong.app.http.security;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Locale;
import org.springframework.http.HttpHeaders;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;
import org.springframework.security.web.util.matcher.RequestMatcher;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Only the {@code Bearer} scheme authenticates. Spring Security 7's resource server also takes
 * {@code Authorization: DPoP …} whether or not anyone asked for it (its own filter, its own 401
 * with an empty body and the failure's reason in {@code WWW-Authenticate}); there is no switch to
 * turn it off. This filter answers such a request before it: any other scheme on {@code /v1/**},
 * and DPoP anywhere, gets the contract's 401 problem document, the same as every other 401.
 */
final class BearerOnlyFilter extends OncePerRequestFilter {
  private static final RequestMatcher API =
      PathPatternRequestMatcher.withDefaults().matcher("/v1/**");
  private final ProblemAuthenticationHandlers handlers;

  BearerOnlyFilter(ProblemAuthenticationHandlers handlers) {
    this.handlers = handlers;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String authorization = request.getHeader(HttpHeaders.AUTHORIZATION);
    if (authorization != null) {
      String scheme = scheme(authorization);
      if (!"bearer".equals(scheme) && ("dpop".equals(scheme) || API.matches(request))) {
        handlers.commence(request, response, new BadCredentialsException("not a bearer token"));
        return;
      }
    }
    chain.doFilter(request, response);
  }

  /** The auth-scheme (RFC 9110 §11.4, case-insensitive), lower case. */
  static String scheme(String authorization) {
    String a = authorization.strip();
    int space = a.indexOf(' ');
    return (space < 0 ? a : a.substring(0, space)).toLowerCase(Locale.ROOT);
  }
}
