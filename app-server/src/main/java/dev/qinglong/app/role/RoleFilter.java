package dev.qinglong.app.role;

import dev.qinglong.app.artifacts.ArtifactRoutes;
import dev.qinglong.app.config.QingLongProperties.Role;
import dev.qinglong.app.web.ProblemType;
import dev.qinglong.app.web.Problems;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * What a process of each {@code qinglong.role} serves on {@code /v1/**} (DESIGN §6), decided before
 * authentication and before any database work:
 *
 * <ul>
 *   <li>{@code all}: everything;
 *   <li>{@code writer}: everything except artifact downloads ({@code GET|HEAD …/artifacts/{digest}}
 *       → 405 with {@code Allow: PUT}): payload is served by readers, under the download budget;
 *   <li>{@code reader}: only {@code GET} and {@code HEAD}; any other method → 405 {@code
 *       method_not_allowed} with {@code Allow: GET, HEAD};
 *   <li>{@code worker}: no {@code /v1} API at all → 404 {@code not_found}.
 * </ul>
 *
 * Actuator endpoints and the OpenAPI document are served by every role.
 */
public final class RoleFilter extends OncePerRequestFilter {
  private final Role role;

  public RoleFilter(Role role) {
    this.role = role;
  }

  @Override
  protected boolean shouldNotFilter(HttpServletRequest request) {
    return role == Role.ALL || !isApi(request.getRequestURI());
  }

  static boolean isApi(String uri) {
    return uri.equals("/v1") || uri.startsWith("/v1/");
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String method = request.getMethod();
    boolean read = "GET".equals(method) || "HEAD".equals(method);
    switch (role) {
      case READER:
        if (!read) {
          Problems.write(
              response,
              ProblemType.METHOD_NOT_ALLOWED,
              "This server is a read gateway: it serves only GET and HEAD.",
              Map.of("Allow", "GET, HEAD"));
          return;
        }
        break;
      case WRITER:
        if (read && ArtifactRoutes.isArtifact(request.getRequestURI())) {
          Problems.write(
              response,
              ProblemType.METHOD_NOT_ALLOWED,
              "This server accepts artifact uploads; read gateways serve the downloads.",
              Map.of("Allow", "PUT"));
          return;
        }
        break;
      case WORKER:
        Problems.write(
            response,
            ProblemType.NOT_FOUND,
            "This server is a completion worker; it serves no API.",
            Map.of());
        return;
      default:
        break;
    }
    chain.doFilter(request, response);
  }
}
