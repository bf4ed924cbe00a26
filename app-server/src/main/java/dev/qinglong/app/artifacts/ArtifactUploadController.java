package dev.qinglong.app.artifacts;

import static dev.qinglong.app.http.OpenApiDocument.Answer.CONFLICT;
import static dev.qinglong.app.http.OpenApiDocument.Answer.QUOTA;

import dev.qinglong.app.http.ArtifactRoutes;
import dev.qinglong.app.http.JsonAnswers;
import dev.qinglong.app.http.OpenApiDocument;
import dev.qinglong.app.http.OpenApiDocument.Answers;
import dev.qinglong.app.http.ProblemType;
import dev.qinglong.app.http.Problems;
import dev.qinglong.app.http.Problems.Problem;
import dev.qinglong.app.http.RateLimitHeaders;
import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.core.governance.ArtifactUpload;
import dev.qinglong.core.governance.GovernanceStore;
import dev.qinglong.core.kernel.ConflictException;
import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.Limited;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectPolicy;
import dev.qinglong.core.quota.ManagementQuota;
import dev.qinglong.core.quota.QuotaDecision;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.core.quota.ReceiptId;
import dev.qinglong.core.quota.RequestDigest;
import dev.qinglong.gateway.artifacts.ArtifactDigestMismatchException;
import dev.qinglong.gateway.artifacts.ArtifactTooLargeException;
import dev.qinglong.gateway.artifacts.FileArtifactStore;
import dev.qinglong.gateway.artifacts.StoredArtifact;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code PUT /v1/projects/{p}/artifacts/{digest}} (docs/downloads.md), in the roles that serve the
 * management API: a streamed, verified upload (needs {@code package.manage}); 201 for a fresh
 * upload and for a verified re-upload of stored content alike (the content store is shared, so the
 * answer must not say whether some Project already uploaded it).
 *
 * <p>Order: validate → Project Policy → declared size → durable management quota {@code
 * artifact.upload} per (Project, user) → read the body. The quota's receipt is the digest: the same
 * digest names the same bytes, so a re-upload of it by the same user in the window (a retry after a
 * lost response) is a replay and not counted again, and a receipt can never name two different
 * requests. A full window is 429 {@code quota_exceeded} before a byte of the body is read.
 *
 * <p>Artifacts are per Project: the bytes go to the shared content-addressed store, and the upload
 * into this Project is recorded ({@link GovernanceStore#recordArtifactUpload}); only then may the
 * Project's proposals for the digest be published and the artifact be served in it. The 201's
 * {@code Location} is {@code GET …/artifacts/{digest}/upload}, the upload's state (needs {@code
 * package.manage}, one {@code plugin-package.inspect} quota unit): the download path answers 409
 * until a proposal of the Project is published.
 */
@RestController
@ConditionalOnRole({Role.ALL, Role.WRITER})
@Tag(name = "artifacts")
public record ArtifactUploadController(
    ProjectPolicy policy,
    ManagementQuota quota,
    FileArtifactStore artifacts,
    GovernanceStore governance,
    Clock clock) {
  private static final Logger log = LoggerFactory.getLogger(ArtifactUploadController.class);

  /** The upload's state: what an upload's {@code Location} names. */
  static final String UPLOAD_PATH = ArtifactRoutes.PATH + "/upload";

  @Autowired
  public ArtifactUploadController(
      ProjectPolicy policy,
      ManagementQuota quota,
      FileArtifactStore artifacts,
      OpenedStore.Catalog catalog) {
    this(policy, quota, artifacts, catalog.governance(), Clock.systemUTC());
  }

  // Raw bytes only: a form or multipart body is refused unread, never parsed into memory.
  @Operation(
      operationId = "uploadArtifact",
      summary = "Upload an artifact (needs package.manage).",
      description =
          "The body is streamed into the content-addressed store, hashed while it arrives and"
              + " stored only if it hashes to `digest` and is at most `qinglong.artifacts.max-bytes`"
              + " (default 268435456). Only `application/octet-stream` (or no Content-Type) is"
              + " accepted, chunked included; the 64 KiB JSON cap does not apply to it. Each upload"
              + " consumes one `artifact.upload` of the caller's management quota in the Project"
              + " before the body is read (the receipt is the digest: a re-upload of the same"
              + " digest in the window is not counted again). A verified re-upload of stored"
              + " content also answers 201. Only a digest uploaded into the Project is published"
              + " for its proposals and served in it. Served by roles `all` and `writer`.",
      requestBody =
          @io.swagger.v3.oas.annotations.parameters.RequestBody(
              required = true,
              content =
                  @Content(
                      mediaType = MediaType.APPLICATION_OCTET_STREAM_VALUE,
                      schema = @Schema(types = "string", format = "binary"))))
  @ApiResponse(
      responseCode = "201",
      description = "Stored and verified (also for a re-upload of stored content).",
      useReturnTypeSchema = true,
      headers = @Header(name = HttpHeaders.ETAG, ref = OpenApiDocument.ETAG))
  @ApiResponse(responseCode = "400", ref = OpenApiDocument.UPLOAD_REFUSED)
  @ApiResponse(responseCode = "413", ref = OpenApiDocument.UPLOAD_TOO_LARGE)
  @Answers({QUOTA})
  @PutMapping(path = ArtifactRoutes.PATH, consumes = MediaType.APPLICATION_OCTET_STREAM_VALUE)
  ResponseEntity<ArtifactUploadView> upload(
      @PathVariable String projectId,
      @PathVariable String digest,
      HttpServletRequest request,
      Principal caller)
      throws IOException {
    Identifiers.require("projectId", projectId);
    Sha256Digest d = Sha256Digest.parse("digest", digest);
    policy.requireAny(caller, projectId, Permission.PACKAGE_MANAGE);
    if (request.getContentLengthLong() > artifacts.maxBytes()) {
      throw new ArtifactTooLargeException(artifacts.maxBytes());
    }
    // The digest is both the receipt id and the request: the same digest names the same bytes.
    Limited<QuotaDecision> decided =
        quota.consume(
            projectId,
            caller.userId(),
            QuotaOperation.ARTIFACT_UPLOAD,
            new ReceiptId(d.value()),
            RequestDigest.of(QuotaOperation.ARTIFACT_UPLOAD, d.value()));
    long size;
    try (InputStream body = request.getInputStream()) {
      artifacts.store(d, body);
    }
    try (StoredArtifact stored = artifacts.open(d).orElseThrow()) {
      size = stored.length();
    }
    // Only now does this Project have the artifact: its proposals may publish it, it may serve it.
    governance.recordArtifactUpload(new ArtifactUpload(projectId, d, size, clock.millis()));
    log.info("artifact.uploaded project={} artifact={} bytes={}", projectId, d.value(), size);
    return ResponseEntity.status(201)
        .contentType(MediaType.APPLICATION_JSON)
        .header(HttpHeaders.CACHE_CONTROL, "no-store")
        .header(HttpHeaders.ETAG, etag(d))
        .header(
            HttpHeaders.LOCATION,
            "/v1/projects/" + projectId + "/artifacts/" + d.value() + "/upload")
        .headers(RateLimitHeaders.headers(decided.rateLimits()))
        .body(new ArtifactUploadView(projectId, d.value(), size));
  }

  /**
   * {@code GET /v1/projects/{p}/artifacts/{digest}/upload}: the Project's upload of the artifact
   * and whether the Project published it. Needs {@code package.manage} (as the upload); consumes
   * one {@code plugin-package.inspect} unit under a fresh id. Never uploaded into this Project
   * (whether or not another Project did) → the same 409 {@code conflict} as any unknown object.
   */
  @Operation(
      operationId = "getArtifactUpload",
      summary = "Read the Project's upload of an artifact (needs package.manage).",
      description =
          "What the Location of an upload names. Consumes one unit of plugin-package.inspect"
              + " under a fresh request id. Never uploaded into this Project: 409.")
  @Answers({CONFLICT, QUOTA})
  @GetMapping(UPLOAD_PATH)
  ResponseEntity<ArtifactUploadStateView> upload(
      @PathVariable String projectId, @PathVariable String digest, Principal caller) {
    Identifiers.require("projectId", projectId);
    Sha256Digest d = Sha256Digest.parse("digest", digest);
    policy.requireAny(caller, projectId, Permission.PACKAGE_MANAGE);
    Limited<QuotaDecision> decided =
        quota.consume(
            projectId,
            caller.userId(),
            QuotaOperation.INSPECT,
            new ReceiptId("req-" + UUID.randomUUID()),
            RequestDigest.of(QuotaOperation.INSPECT, "artifact-upload", d.value()));
    ArtifactUpload upload =
        governance
            .findArtifactUpload(projectId, d)
            .orElseThrow(() -> new ConflictException("no such object in this project"));
    boolean published = governance.isArtifactPublished(projectId, d);
    return JsonAnswers.ok(
        new ArtifactUploadStateView(
            upload.projectId(),
            upload.digest().value(),
            upload.sizeBytes(),
            upload.uploadedAtMs(),
            published),
        decided);
  }

  /** The 201 of an upload. */
  @Schema(name = "ArtifactUpload")
  public record ArtifactUploadView(
      String projectId, String digest, @Schema(minimum = "0") long sizeBytes) {}

  /** The state of a Project's upload of an artifact. */
  @Schema(name = "ArtifactUploadState")
  public record ArtifactUploadStateView(
      String projectId,
      String digest,
      @Schema(minimum = "0") long sizeBytes,
      @Schema(description = "When the Project last uploaded it (server clock, ms since the epoch).")
          long uploadedAtMs,
      @Schema(
              description =
                  "Whether a proposal of this Project published the artifact (then GET"
                      + " …/artifacts/{digest} serves it).")
          boolean published) {}

  @ExceptionHandler(ArtifactTooLargeException.class)
  ResponseEntity<Problem> tooLargeWhileStreaming(ArtifactTooLargeException e) {
    return tooLarge();
  }

  @ExceptionHandler(ArtifactDigestMismatchException.class)
  ResponseEntity<Problem> mismatch(ArtifactDigestMismatchException e) {
    return Problems.entity(
        ProblemType.INVALID_REQUEST, "The uploaded bytes do not hash to the digest in the path.");
  }

  @ExceptionHandler(IOException.class)
  ResponseEntity<Problem> io(IOException e) {
    log.warn("artifact.io-failure reason={}", e.getMessage());
    return Problems.entity(
        ProblemType.UNAVAILABLE, "The artifact could not be transferred; retry later.");
  }

  private static ResponseEntity<Problem> tooLarge() {
    return Problems.entity(
        ProblemType.PAYLOAD_TOO_LARGE,
        "The artifact is larger than this server accepts.",
        Map.of(HttpHeaders.CONNECTION, "close"));
  }

  static String etag(Sha256Digest d) {
    return ArtifactDownloadController.etag(d);
  }
}
