package dev.qinglong.core.quota;

import dev.qinglong.core.kernel.WireNamed;

/** The operations a management quota bucket may count. Wire names are stored in the database. */
public enum QuotaOperation implements WireNamed {
  PROPOSE("plugin-package.propose", 30),
  DECIDE("plugin-package.decide", 60),
  INSPECT("plugin-package.inspect", 600),
  /** Reads of model usage (window and ledger). */
  MODEL_USAGE_READ("model-usage.read", 600),
  /**
   * Artifact uploads ({@code PUT /v1/projects/{p}/artifacts/{digest}}): each may store up to {@code
   * qinglong.artifacts.max-bytes}, so the budget is small. The receipt is the digest.
   */
  ARTIFACT_UPLOAD("artifact.upload", 20);

  private final String wireName;
  private final int defaultLimit;

  QuotaOperation(String wireName, int defaultLimit) {
    this.wireName = wireName;
    this.defaultLimit = defaultLimit;
  }

  @Override
  public String wireName() {
    return wireName;
  }

  public int defaultLimit() {
    return defaultLimit;
  }
}
