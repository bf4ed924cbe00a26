package dev.qinglong.app.http;

import jakarta.servlet.http.HttpServletRequest;
import java.util.regex.Pattern;

/**
 * The artifact routes' paths, for the filters that act before MVC (shield, roles). Both classify
 * the decoded, normalised path ({@link ApiPaths#normalise}), never the raw URI: MVC decodes before
 * it routes, so {@code /v%31/projects/p/%61rtifacts/d} is served by the download route and must be
 * counted as a download too.
 */
public final class ArtifactRoutes {
  public static final String PATH = "/v1/projects/{projectId}/artifacts/{digest}";
  private static final Pattern ARTIFACT = Pattern.compile("^/v1/projects/[^/]+/artifacts/[^/]+$");

  private ArtifactRoutes() {}

  /**
   * Whether {@code normalisedPath} (from {@link ApiPaths#normalise}) is {@code
   * /v1/projects/{p}/artifacts/{digest}}.
   */
  public static boolean isArtifact(String normalisedPath) {
    return normalisedPath != null && ARTIFACT.matcher(normalisedPath).matches();
  }

  /** Whether the request is a download (GET or HEAD of an artifact): it has its own budget. */
  public static boolean isDownload(HttpServletRequest request) {
    String method = request.getMethod();
    return ("GET".equals(method) || "HEAD".equals(method)) && isArtifact(ApiPaths.of(request));
  }

  /** Whether the request is an artifact upload: it has its own size cap, not the JSON one. */
  public static boolean isUpload(HttpServletRequest request) {
    return "PUT".equals(request.getMethod()) && isArtifact(ApiPaths.of(request));
  }
}
