package dev.qinglong.app.http;

import dev.qinglong.app.http.Problems.Problem;
import dev.qinglong.app.platform.PlatformProperties;
import dev.qinglong.app.platform.Role;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.http.server.PathContainer;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.condition.PathPatternsRequestCondition;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.util.pattern.PathPattern;

/**
 * Renders container-level errors (outside MVC handlers) as problem documents too. It is the target
 * of the container's error dispatch only: reached as a route ({@code GET /error}) it is a route
 * that does not exist, 404.
 */
@RestController
public class ProblemErrorController implements ErrorController {
  private final Role role;
  private final BeanFactory beans;

  public ProblemErrorController(PlatformProperties platform, BeanFactory beans) {
    this.role = platform.role();
    this.beans = beans;
  }

  @RequestMapping("/error")
  ResponseEntity<Problem> error(HttpServletRequest request, HttpServletResponse response) {
    if (response.isCommitted()) {
      // E.g. a download cut after its headers and part of its payload went out (the container
      // dispatches here all the same): nothing can be added to that answer, and nothing is.
      return null;
    }
    Object status = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
    if (request.getDispatcherType() != DispatcherType.ERROR || !(status instanceof Integer code)) {
      return Problems.entity(ProblemType.NOT_FOUND, "No such route.");
    }
    // An error dispatch is a GET (Servlet 6.1); the client's method is an attribute.
    if (code == 405 && "TRACE".equals(request.getAttribute(RequestDispatcher.ERROR_METHOD))) {
      return trace(request, response);
    }
    ProblemType type = ProblemType.forStatus(code);
    String detail =
        switch (type) {
          case NOT_FOUND -> "No such route.";
          case UNAUTHENTICATED -> "A valid bearer token is required.";
          case FORBIDDEN -> "The Project Policy does not allow this operation.";
          case PAYLOAD_TOO_LARGE -> "The request body is too large.";
          case INVALID_REQUEST -> "The request could not be processed.";
          default -> "The request could not be completed; retry later.";
        };
    return Problems.entity(type, detail);
  }

  /**
   * Tomcat refuses {@code TRACE} itself (it would echo the request) with 405 and the servlet's
   * methods; the answer must still be the route's: 404 where there is no route, 405 with the
   * route's methods where there is one, and a reader's 405 {@code GET, HEAD} on the API.
   */
  private ResponseEntity<Problem> trace(HttpServletRequest request, HttpServletResponse response) {
    Object uri = request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
    String path = uri instanceof String s ? s : "";
    response.reset(); // drops the container's Allow header
    String normalised = ApiPaths.normalise(path, request.getContextPath());
    Set<String> allowed =
        role == Role.READER && normalised != null && ApiPaths.isApi(normalised)
            ? Set.of("GET", "HEAD")
            : allowedMethods(path);
    if (allowed.isEmpty()) {
      return Problems.entity(ProblemType.NOT_FOUND, "No such route.");
    }
    return Problems.entity(
        ProblemType.METHOD_NOT_ALLOWED,
        "This route does not support the request method.",
        Map.of(HttpHeaders.ALLOW, String.join(", ", new TreeSet<>(allowed))));
  }

  /** The methods Spring MVC's registered routes accept at {@code path}; empty if none matches. */
  private Set<String> allowedMethods(String path) {
    RequestMappingHandlerMapping mapping =
        beans.getBean("requestMappingHandlerMapping", RequestMappingHandlerMapping.class);
    PathContainer container = PathContainer.parsePath(path);
    Set<String> methods = new TreeSet<>();
    for (RequestMappingInfo info : mapping.getHandlerMethods().keySet()) {
      PathPatternsRequestCondition patterns = info.getPathPatternsCondition();
      if (patterns == null || info.getMethodsCondition().getMethods().isEmpty()) {
        continue; // this controller's own catch-all mapping
      }
      for (PathPattern pattern : patterns.getPatterns()) {
        if (pattern.matches(container)) {
          info.getMethodsCondition().getMethods().forEach(m -> methods.add(m.name()));
        }
      }
    }
    if (methods.contains("GET")) {
      methods.add("HEAD");
    }
    return methods;
  }
}
