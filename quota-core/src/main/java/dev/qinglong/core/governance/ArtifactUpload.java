package dev.qinglong.core.governance;

import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.Sha256Digest;
import java.util.Objects;

/**
 * An artifact uploaded into a Project: the content store is shared and content-addressed, but a
 * Project publishes and serves only a digest that was uploaded into it (docs/security.md,
 * "Uploads"). {@code sizeBytes} and {@code uploadedAtMs} are those of the last upload into the
 * Project.
 */
public record ArtifactUpload(
    String projectId, Sha256Digest digest, long sizeBytes, long uploadedAtMs) {
  public ArtifactUpload {
    Identifiers.require("projectId", projectId);
    Objects.requireNonNull(digest, "digest");
    if (sizeBytes < 0 || uploadedAtMs < 0) {
      throw new IllegalArgumentException("sizeBytes and uploadedAtMs must be >= 0");
    }
  }
}
