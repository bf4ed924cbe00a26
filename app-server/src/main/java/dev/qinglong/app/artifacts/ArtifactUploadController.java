package dev.qinglong.app.artifacts;

import dev.qinglong.app.http.ArtifactRoutes;
import dev.qinglong.app.http.JsonResponses;
import dev.qinglong.app.http.ProblemType;
import dev.qinglong.app.http.Problems;
import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectPolicy;
import dev.qinglong.core.quota.ManagementQuota;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.core.quota.ReceiptId;
import dev.qinglong.core.quota.RequestDigest;
import dev.qinglong.gateway.artifacts.ArtifactDigestMismatchException;
import dev.qinglong.gateway.artifacts.ArtifactTooLargeException;
import dev.qinglong.gateway.artifacts.FileArtifactStore;
import dev.qinglong.gateway.artifacts.StoredArtifact;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.Authentication;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code PUT /v1/projects/{p}/artifacts/{digest}} (DESIGN §6), in the roles that serve the
 * management API: a streamed, verified upload (needs {@code package.manage}); 201 for a fresh
 * upload and for a verified re-upload of stored content alike (the content store is shared, so the
 * answer must not say whether some Project already uploaded it).
 *
 * <p>Order: validate → Project Policy → declared size → durable management quota {@code
 * artifact.upload} per (Project, user) → read the body. The quota's receipt is the digest: the same
 * digest names the same bytes, so a re-upload of it by the same user in the window (a retry after a
 * lost response) is a replay and not counted again, and a receipt can never name two different
 * requests. A full window is 429 {@code quota_exceeded} before a byte of the body is read.
 */
@RestController
@ConditionalOnRole({Role.ALL, Role.WRITER})
public class ArtifactUploadController {
  private static final Logger log = LoggerFactory.getLogger(ArtifactUploadController.class);

  private final ProjectPolicy policy;
  private final ManagementQuota quota;
  private final FileArtifactStore artifacts;

  public ArtifactUploadController(
      ProjectPolicy policy, ManagementQuota quota, FileArtifactStore artifacts) {
    this.policy = policy;
    this.quota = quota;
    this.artifacts = artifacts;
  }

  // Raw bytes only: a form or multipart body is refused unread, never parsed into memory.
  @PutMapping(path = ArtifactRoutes.PATH, consumes = MediaType.APPLICATION_OCTET_STREAM_VALUE)
  ResponseEntity<String> upload(
      @PathVariable String projectId,
      @PathVariable String digest,
      HttpServletRequest request,
      Authentication authentication)
      throws IOException {
    Identifiers.require("projectId", projectId);
    Sha256Digest d = Sha256Digest.parse("digest", digest);
    Principal caller = JsonResponses.caller(authentication);
    policy.requireAny(caller, projectId, Permission.PACKAGE_MANAGE);
    if (request.getContentLengthLong() > artifacts.maxBytes()) {
      return tooLarge();
    }
    // The digest is both the receipt id and the request: the same digest names the same bytes.
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
    log.info("artifact.uploaded project={} artifact={} bytes={}", projectId, d.value(), size);
    return ResponseEntity.status(201)
        .contentType(MediaType.APPLICATION_JSON)
        .header(HttpHeaders.CACHE_CONTROL, "no-store")
        .header(HttpHeaders.ETAG, etag(d))
        .header(HttpHeaders.LOCATION, "/v1/projects/" + projectId + "/artifacts/" + d.value())
        .body(
            "{\"projectId\":\""
                + projectId
                + "\",\"digest\":\""
                + d.value()
                + "\",\"sizeBytes\":"
                + size
                + "}");
  }

  @ExceptionHandler(ArtifactTooLargeException.class)
  ResponseEntity<String> tooLargeWhileStreaming(ArtifactTooLargeException e) {
    return tooLarge();
  }

  @ExceptionHandler(ArtifactDigestMismatchException.class)
  ResponseEntity<String> mismatch(ArtifactDigestMismatchException e) {
    return Problems.entity(
        ProblemType.INVALID_REQUEST, "The uploaded bytes do not hash to the digest in the path.");
  }

  @ExceptionHandler(IOException.class)
  ResponseEntity<String> io(IOException e) {
    log.warn("artifact.io-failure reason={}", e.getMessage());
    return Problems.entity(
        ProblemType.UNAVAILABLE, "The artifact could not be transferred; retry later.");
  }

  private static ResponseEntity<String> tooLarge() {
    return Problems.entity(
        ProblemType.PAYLOAD_TOO_LARGE,
        "The artifact is larger than this server accepts.",
        Map.of(HttpHeaders.CONNECTION, "close"));
  }

  static String etag(Sha256Digest d) {
    return ArtifactDownloadController.etag(d);
  }
}
