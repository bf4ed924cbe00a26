package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.Sha256Digest;
import java.util.Objects;

/**
 * The settlement receipt ({@value #TYPE}): binds one reservation and its completion, and says how
 * much of the reservation the window keeps ({@code settled*}) and gives back ({@code released*}).
 *
 * <p>Like a reservation it carries the window's running release totals after it ({@code
 * windowSettleSeq}, {@code windowReleasedTokens}, {@code windowReleasedCostMicros}), so the
 * window's usage is the latest reservation's totals minus the latest settlement's.
 *
 * @param settledCostMicros {@code null} exactly when the reservation reserved no cost
 */
public record Settlement(
    String projectId,
    String invocationId,
    long windowStartMs,
    long windowMs,
    Sha256Digest reservationDigest,
    Sha256Digest completionDigest,
    long settledTokens,
    Long settledCostMicros,
    long releasedTokens,
    long releasedCostMicros,
    long windowSettleSeq,
    long windowReleasedTokens,
    long windowReleasedCostMicros,
    long settledAtMs,
    Sha256Digest digest)
    implements Receipt {
  public static final String TYPE = "qinglong/model-invocation-quota-settlement@v1";

  public Settlement {
    Receipts.requireIds(projectId, invocationId);
    Objects.requireNonNull(reservationDigest, "reservationDigest");
    Objects.requireNonNull(completionDigest, "completionDigest");
    Objects.requireNonNull(digest, "digest");
  }

  public static Settlement create(
      Reservation r,
      Completion c,
      long settledTokens,
      Long settledCostMicros,
      long releasedTokens,
      long releasedCostMicros,
      long windowSettleSeq,
      long windowReleasedTokens,
      long windowReleasedCostMicros,
      long settledAtMs) {
    return Receipt.sealed(
        digest ->
            new Settlement(
                r.projectId(),
                r.invocationId(),
                r.windowStartMs(),
                r.windowMs(),
                r.digest(),
                c.digest(),
                settledTokens,
                settledCostMicros,
                releasedTokens,
                releasedCostMicros,
                windowSettleSeq,
                windowReleasedTokens,
                windowReleasedCostMicros,
                settledAtMs,
                digest));
  }

  @Override
  public String type() {
    return TYPE;
  }

  public WindowRef window() {
    return new WindowRef(projectId, windowStartMs, windowMs);
  }

  @Override
  public String canonicalJson() {
    return Receipts.json(TYPE, projectId, invocationId)
        .put("windowStartMs", windowStartMs)
        .put("windowMs", windowMs)
        .put("reservationDigest", reservationDigest.value())
        .put("completionDigest", completionDigest.value())
        .put("settledTokens", settledTokens)
        .put("settledCostMicros", settledCostMicros)
        .put("releasedTokens", releasedTokens)
        .put("releasedCostMicros", releasedCostMicros)
        .put(
            "windowTotals",
            CanonicalJson.object()
                .put("seq", windowSettleSeq)
                .put("releasedTokens", windowReleasedTokens)
                .put("releasedCostMicros", windowReleasedCostMicros))
        .put("settledAtMs", settledAtMs)
        .encode();
  }
}
