package dev.qinglong.app.http;

import jakarta.servlet.http.HttpServletRequest;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;

/**
 * The decoded, normalised form of a request path, for the filters that decide before MVC (roles,
 * shield): a filter that matched the raw URI could be passed by {@code /v%31/…} while MVC, which
 * decodes, still routes it.
 */
public final class ApiPaths {
  private ApiPaths() {}

  /**
   * The request's path as every filter before MVC classifies it (role filter, shield): {@link
   * #normalise} of its URI within the context path.
   *
   * @return the normalised path, or {@code null} if it is malformed
   */
  public static String of(HttpServletRequest request) {
    return normalise(request.getRequestURI(), request.getContextPath());
  }

  /**
   * Percent-decodes (repeatedly, so a double encoding cannot hide a segment), drops path parameters
   * ({@code ;…}), collapses repeated slashes, resolves {@code .} and {@code ..} segments and lower-
   * cases the result.
   *
   * @return the normalised path, or {@code null} if it cannot be decoded or climbs above the root
   */
  public static String normalise(String requestUri, String contextPath) {
    if (requestUri == null) {
      return null;
    }
    String path = requestUri;
    if (contextPath != null && !contextPath.isEmpty() && path.startsWith(contextPath)) {
      path = path.substring(contextPath.length());
    }
    try {
      for (int i = 0; i < 3 && path.indexOf('%') >= 0; i++) {
        path = URLDecoder.decode(path.replace("+", "%2B"), StandardCharsets.UTF_8);
      }
    } catch (IllegalArgumentException e) {
      return null;
    }
    if (path.indexOf('%') >= 0) {
      return null; // still encoded after three rounds: refuse rather than guess
    }
    Deque<String> segments = new ArrayDeque<>();
    for (String raw : path.replace('\\', '/').split("/")) {
      String segment = raw;
      int semicolon = segment.indexOf(';');
      if (semicolon >= 0) {
        segment = segment.substring(0, semicolon);
      }
      if (segment.isEmpty() || segment.equals(".")) {
        continue;
      }
      if (segment.equals("..")) {
        if (segments.isEmpty()) {
          return null;
        }
        segments.removeLast();
        continue;
      }
      segments.addLast(segment);
    }
    return ("/" + String.join("/", segments)).toLowerCase(Locale.ROOT);
  }

  /** Whether a normalised path is on the API ({@code /v1} or below). */
  public static boolean isApi(String normalisedPath) {
    return normalisedPath.equals("/v1") || normalisedPath.startsWith("/v1/");
  }
}
