package dev.qinglong.app.http;

import dev.qinglong.app.platform.Role;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Locale;
import java.util.Map;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The answer of a process of each {@code qinglong.role} to {@code /v1/**} requests it does not
 * serve (docs/design.md#process-roles), before authentication and before any database work:
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
 * This filter is the courtesy answer, not the boundary: the routes a role does not serve are not
 * registered at all ({@code ConditionalOnRole}), so no spelling of a path can reach them. It
 * decides on the decoded, normalised path ({@link ApiPaths#normalise}), so {@code /v%31/…}, {@code
 * //v1/…}, {@code /x/../v1/…} and {@code /V1/…} get the same answer as {@code /v1/…}. Actuator
 * endpoints and the OpenAPI document are served by every role; the API viewer ({@code
 * /swagger-ui/}, and the webjars behind it) only by {@code all} and {@code writer}.
 */
public final class RoleFilter extends OncePerRequestFilter {
  private final Role role;

  public RoleFilter(Role role) {
    this.role = role;
  }

  @Override
  protected boolean shouldNotFilter(HttpServletRequest request) {
    return role == Role.ALL;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String path = ApiPaths.of(request);
    if (path == null) {
      Problems.write(
          response, ProblemType.INVALID_REQUEST, "The request path is malformed.", Map.of());
      return;
    }
    if ((role == Role.READER || role == Role.WORKER) && isViewer(path)) {
      // The API viewer is the management side's (all, writer); its webjar files are on every
      // role's classpath, so answer for them here too.
      Problems.write(response, ProblemType.NOT_FOUND, "No such route.", Map.of());
      return;
    }
    if (!ApiPaths.isApi(path)) {
      chain.doFilter(request, response);
      return;
    }
    String method = request.getMethod().toUpperCase(Locale.ROOT);
    boolean read = "GET".equals(method) || "HEAD".equals(method);
    if (role == Role.READER && !read) {
      Problems.write(
          response,
          ProblemType.METHOD_NOT_ALLOWED,
          "This server is a read gateway: it serves only GET and HEAD.",
          Map.of("Allow", "GET, HEAD"));
    } else if (role == Role.WRITER && read && ArtifactRoutes.isArtifact(path)) {
      Problems.write(
          response,
          ProblemType.METHOD_NOT_ALLOWED,
          "This server accepts artifact uploads; read gateways serve the downloads.",
          Map.of("Allow", "PUT"));
    } else if (role == Role.WORKER) {
      Problems.write(
          response,
          ProblemType.NOT_FOUND,
          "This server is a publication worker; it serves no API.",
          Map.of());
    } else {
      chain.doFilter(request, response);
    }
  }

  private static boolean isViewer(String path) {
    String lower = path.toLowerCase(Locale.ROOT);
    return lower.equals("/swagger-ui")
        || lower.startsWith("/swagger-ui/")
        || lower.equals("/webjars")
        || lower.startsWith("/webjars/");
  }
}
