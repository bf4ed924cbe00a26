package dev.qinglong.app.http.security;

import dev.qinglong.app.http.ProblemType;
import dev.qinglong.app.http.Problems;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.access.AccessDeniedHandler;

/** Spring Security's own 401 and 403, as problem documents with the contract's codes. */
public final class ProblemAuthenticationHandlers
    implements AuthenticationEntryPoint, AccessDeniedHandler {

  @Override
  public void commence(
      HttpServletRequest request,
      HttpServletResponse response,
      AuthenticationException authException)
      throws IOException {
    // Never say why a token failed (expired, wrong issuer, …): that helps only an attacker.
    Problems.write(
        response,
        ProblemType.UNAUTHENTICATED,
        "A valid bearer token is required.",
        Map.of("WWW-Authenticate", "Bearer"));
  }

  @Override
  public void handle(
      HttpServletRequest request,
      HttpServletResponse response,
      AccessDeniedException accessDeniedException)
      throws IOException {
    Problems.write(
        response,
        ProblemType.FORBIDDEN,
        "The Project Policy does not allow this operation.",
        Map.of());
  }
}
