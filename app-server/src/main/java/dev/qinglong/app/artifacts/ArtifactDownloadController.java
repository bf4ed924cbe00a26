package dev.qinglong.app.artifacts;

import dev.qinglong.app.http.ArtifactRoutes;
import dev.qinglong.app.http.OpenApiDocument;
import dev.qinglong.app.http.ProblemType;
import dev.qinglong.app.http.Problems;
import dev.qinglong.app.http.Problems.Problem;
import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.core.governance.GovernanceStore;
import dev.qinglong.core.kernel.ConflictException;
import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectPolicy;
import dev.qinglong.gateway.artifacts.FileArtifactStore;
import dev.qinglong.gateway.artifacts.StoredArtifact;
import dev.qinglong.gateway.governor.DownloadRates;
import dev.qinglong.gateway.governor.DownloadsHaltedException;
import dev.qinglong.gateway.governor.ThrottleTimeoutException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.coyote.CloseNowException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET|HEAD /v1/projects/{p}/artifacts/{digest}} (docs/downloads.md), in the roles that serve
 * downloads: published artifacts only (needs {@code package.read}); unknown, unpublished and other
 * Projects' artifacts give the same 409. {@code ETag}, {@code Content-Length}, one {@code Range} →
 * 206; several ranges or a malformed Range → the whole artifact (200); one range outside the
 * artifact → 416. Payload passes the download governor chunk by chunk.
 *
 * <p>Chunks are {@value #THROTTLED_CHUNK_BYTES} bytes while the governor limits a rate (so the
 * pacing, and the bytes a closed gate can still let out, stay as fine as before) and {@value
 * #UNTHROTTLED_CHUNK_BYTES} bytes without a limit: the serving gate (standalone barrier or shared
 * lease) is still asked before every chunk, so a lost lease or barrier stops the body within one
 * chunk plus what the socket buffers already hold (docs/downloads.md: admitted, buffered bytes may
 * leave later). The larger chunk is what lets an unthrottled download keep up with a plain file
 * copy (docs/benchmarks.md, "Downloads").
 */
@RestController
@ConditionalOnRole({Role.ALL, Role.READER})
@Tag(name = "artifacts")
public record ArtifactDownloadController(
    ProjectPolicy policy,
    GovernanceStore governance,
    FileArtifactStore artifacts,
    DownloadSide downloads,
    DownloadMetrics metrics,
    DownloadsProperties properties) {
  private static final Logger log = LoggerFactory.getLogger(ArtifactDownloadController.class);
  static final int THROTTLED_CHUNK_BYTES = 16 * 1024;
  static final int UNTHROTTLED_CHUNK_BYTES = 256 * 1024;
  static final Duration MAX_CHUNK_WAIT = Duration.ofSeconds(30);

  @Autowired
  public ArtifactDownloadController(
      ProjectPolicy policy,
      OpenedStore.Catalog catalog,
      FileArtifactStore artifacts,
      DownloadSide downloads,
      DownloadMetrics metrics,
      DownloadsProperties properties) {
    this(policy, catalog.governance(), artifacts, downloads, metrics, properties);
  }

  @Operation(
      operationId = "downloadArtifact",
      summary = "Download a published artifact, or (HEAD) its headers (needs package.read).",
      description =
          "Only artifacts published by the publication worker in this Project are served. Payload"
              + " passes the download governor: `qinglong.downloads.rate-bytes-per-second` for the"
              + " process (in shared mode its fixed share) and `.per-principal-bytes-per-second`"
              + " per caller. Served by roles `all` and `reader`; a `writer` answers 405 with"
              + " `Allow: PUT`, a `worker` 404.")
  @ApiResponse(
      responseCode = "200",
      description = "The whole artifact.",
      headers = {
        @Header(name = HttpHeaders.ETAG, ref = OpenApiDocument.ETAG),
        @Header(
            name = HttpHeaders.CONTENT_LENGTH,
            description = "Bytes in the body (the range's length for 206).",
            schema = @Schema(types = "integer")),
        @Header(
            name = HttpHeaders.ACCEPT_RANGES,
            description = "`bytes`.",
            schema = @Schema(types = "string"))
      },
      content =
          @Content(
              mediaType = MediaType.APPLICATION_OCTET_STREAM_VALUE,
              schema = @Schema(types = "string", format = "binary")))
  @ApiResponse(
      responseCode = "206",
      description = "One byte range (`Range: bytes=a-b`, `a-` or `-n`).",
      headers = {
        @Header(name = HttpHeaders.ETAG, ref = OpenApiDocument.ETAG),
        @Header(name = HttpHeaders.CONTENT_RANGE, ref = OpenApiDocument.CONTENT_RANGE)
      },
      content =
          @Content(
              mediaType = MediaType.APPLICATION_OCTET_STREAM_VALUE,
              schema = @Schema(types = "string", format = "binary")))
  @ApiResponse(
      responseCode = "304",
      description = "`If-None-Match` matches the ETag; no body.",
      headers = @Header(name = HttpHeaders.ETAG, ref = OpenApiDocument.ETAG))
  @ApiResponse(responseCode = "409", ref = OpenApiDocument.NOT_PUBLISHED)
  @ApiResponse(responseCode = "416", ref = OpenApiDocument.RANGE_NOT_SATISFIABLE)
  @ApiResponse(responseCode = "503", ref = OpenApiDocument.DOWNLOAD_UNAVAILABLE)
  @RequestMapping(
      path = ArtifactRoutes.PATH,
      method = {RequestMethod.GET, RequestMethod.HEAD})
  void download(
      @PathVariable String projectId,
      @PathVariable String digest,
      HttpServletRequest request,
      HttpServletResponse response,
      Principal caller)
      throws IOException, InterruptedException {
    Identifiers.require("projectId", projectId);
    Sha256Digest d = Sha256Digest.parse("digest", digest);
    policy.requireAny(caller, projectId, Permission.PACKAGE_READ);
    if (!governance.isArtifactPublished(projectId, d)) {
      throw new ConflictException("artifact not published in project");
    }
    if (!downloads.mayServe()) {
      Problems.write(
          response,
          ProblemType.UNAVAILABLE,
          "This server does not serve downloads now; retry on another read gateway.",
          Map.of("Retry-After", "1"));
      return;
    }
    Optional<StoredArtifact> opened = artifacts.open(d);
    if (opened.isEmpty()) {
      // Published but not on this storage root: same answer as unpublished (no oracle).
      log.warn("artifact.missing project={} artifact={}", projectId, d.value());
      throw new ConflictException("artifact not stored");
    }
    try (StoredArtifact artifact = opened.get()) {
      String etag = etag(d);
      long size = artifact.length();
      response.setHeader(HttpHeaders.ETAG, etag);
      response.setHeader(HttpHeaders.ACCEPT_RANGES, "bytes");
      response.setHeader(HttpHeaders.CACHE_CONTROL, "private, no-cache");
      if (matches(request.getHeader(HttpHeaders.IF_NONE_MATCH), etag)) {
        response.setStatus(304);
        return;
      }
      String ifRange = request.getHeader(HttpHeaders.IF_RANGE);
      ByteRange range =
          ifRange == null || ifRange.trim().equals(etag)
              ? ByteRange.parse(request.getHeader(HttpHeaders.RANGE), size)
              : ByteRange.parse(null, size);
      if (range.kind() == ByteRange.Kind.UNSATISFIABLE) {
        Problems.write(
            response,
            ProblemType.RANGE_NOT_SATISFIABLE,
            "The requested range is outside the artifact.",
            Map.of(HttpHeaders.CONTENT_RANGE, "bytes */" + size));
        return;
      }
      response.setContentType(MediaType.APPLICATION_OCTET_STREAM_VALUE);
      response.setContentLengthLong(range.length());
      if (range.kind() == ByteRange.Kind.PARTIAL) {
        response.setStatus(206);
        response.setHeader(
            HttpHeaders.CONTENT_RANGE,
            "bytes " + range.start() + "-" + (range.start() + range.length() - 1) + "/" + size);
      } else {
        response.setStatus(200);
      }
      if ("HEAD".equals(request.getMethod()) || range.length() == 0) {
        return;
      }
      stream(artifact, range, caller.userId(), response);
    }
  }

  private void stream(
      StoredArtifact artifact, ByteRange range, String principal, HttpServletResponse response)
      throws IOException, InterruptedException {
    byte[] buffer = new byte[chunkBytes(downloads.governor().rates(), range.length())];
    long sent = 0;
    SlowReaderCheck slow =
        new SlowReaderCheck(properties.minBytesPerSecond(), properties.minRateWindow().toNanos());
    try (InputStream in = artifact.openRange(range.start(), range.length())) {
      OutputStream out = response.getOutputStream();
      while (sent < range.length()) {
        int want = (int) Math.min(buffer.length, range.length() - sent);
        try {
          downloads.governor().acquire(principal, want, MAX_CHUNK_WAIT);
        } catch (DownloadsHaltedException | ThrottleTimeoutException e) {
          if (!response.isCommitted()) {
            response.reset();
            Problems.write(
                response,
                ProblemType.UNAVAILABLE,
                "This server stopped serving downloads; retry on another read gateway.",
                Map.of("Retry-After", "1"));
            return;
          }
          // Headers are out: cut the connection so the client sees a short, failed transfer.
          throw new DownloadAbortedException(sent, e);
        }
        int n = in.readNBytes(buffer, 0, want);
        if (n < want) {
          throw new DownloadAbortedException(sent, new IOException("artifact shorter than stated"));
        }
        long writeStarted = System.nanoTime();
        try {
          out.write(buffer, 0, n);
        } catch (IOException e) {
          if (timedOut(e)) {
            // The client took nothing for server.tomcat.connection-timeout: the slowest reader.
            metrics.slowReader();
          }
          throw e;
        }
        sent += n;
        if (slow.tooSlow(System.nanoTime() - writeStarted, n)) {
          metrics.slowReader();
          throw new DownloadAbortedException(
              sent, new IOException("client reads below qinglong.downloads.min-bytes-per-second"));
        }
      }
    }
  }

  /**
   * The chunk size of a download of {@code length} bytes: small while any rate is limited, large
   * otherwise; never larger than the download itself.
   */
  static int chunkBytes(DownloadRates rates, long length) {
    int chunk =
        rates.limitsTotal() || rates.limitsPrincipals()
            ? THROTTLED_CHUNK_BYTES
            : UNTHROTTLED_CHUNK_BYTES;
    return (int) Math.max(1, Math.min(chunk, length));
  }

  /**
   * Rethrown so the exception leaves MVC: the container then closes the connection of a response
   * that is already committed, instead of anything being appended to the payload. It is Tomcat's
   * {@link CloseNowException}, so the container logs it at DEBUG: the one line an aborted download
   * costs is this WARN, without a stack trace.
   */
  @ExceptionHandler(DownloadAbortedException.class)
  void aborted(DownloadAbortedException e) throws DownloadAbortedException {
    log.warn("download.aborted afterBytes={} reason={}", e.sent(), e.getCause().getMessage());
    throw e;
  }

  @ExceptionHandler(IOException.class)
  ResponseEntity<Problem> io(IOException e, HttpServletResponse response) {
    log.warn("artifact.io-failure reason={}", e.getMessage());
    if (response.isCommitted()) {
      return null; // part of the payload is out (the client went away): nothing can be added
    }
    return Problems.entity(
        ProblemType.UNAVAILABLE, "The artifact could not be transferred; retry later.");
  }

  private static boolean timedOut(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.net.SocketTimeoutException) {
        return true;
      }
    }
    return false;
  }

  private static boolean matches(String ifNoneMatch, String etag) {
    if (ifNoneMatch == null) {
      return false;
    }
    for (String candidate : ifNoneMatch.split(",")) {
      String c = candidate.trim();
      if (c.startsWith("W/")) {
        c = c.substring(2);
      }
      if (c.equals("*") || c.equals(etag)) {
        return true;
      }
    }
    return false;
  }

  static String etag(Sha256Digest d) {
    return "\"" + d.value() + "\"";
  }

  /**
   * The minimum transfer rate: counts only the time spent in writes, i.e. waiting for the client to
   * take bytes (the governor's pacing is not the reader's fault), and every {@code window} of that
   * time the reader must have taken at least {@code minBytesPerSecond} on average. A reader that
   * takes too little to free kernel buffer space blocks one write until the container's write
   * timeout ({@code server.tomcat.connection-timeout}, 20 s), which cuts it off too (also counted
   * as a slow reader).
   */
  static final class SlowReaderCheck {
    private final long minBytesPerSecond;
    private final long windowNanos;
    private long waitedNanos;
    private long bytes;

    SlowReaderCheck(long minBytesPerSecond, long windowNanos) {
      this.minBytesPerSecond = minBytesPerSecond;
      this.windowNanos = windowNanos;
    }

    /** Adds one write; true once a full window of waiting moved too few bytes. */
    boolean tooSlow(long writeNanos, long written) {
      if (minBytesPerSecond <= 0) {
        return false;
      }
      waitedNanos += writeNanos;
      bytes += written;
      if (waitedNanos < windowNanos) {
        return false;
      }
      boolean slow = bytes * 1e9 < (double) minBytesPerSecond * waitedNanos;
      waitedNanos = 0;
      bytes = 0;
      return slow;
    }
  }

  /**
   * A download cut off after its headers were sent: a {@link CloseNowException}, which tells Tomcat
   * to close the connection (the client sees a short, failed transfer) and to log it only at DEBUG.
   */
  static final class DownloadAbortedException extends CloseNowException {
    private final long sent;

    DownloadAbortedException(long sent, Exception cause) {
      super("download aborted after " + sent + " bytes", cause);
      this.sent = sent;
    }

    long sent() {
      return sent;
    }
  }
}
