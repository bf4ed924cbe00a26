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
    implements Receipt, InWindow {
  public static final String TYPE = "qinglong/model-invocation-quota-settlement@v1";

  public Settlement {
    Receipts.require(projectId, invocationId, digest);
    Objects.requireNonNull(reservationDigest, "reservationDigest");
    Objects.requireNonNull(completionDigest, "completionDigest");
  }

  /**
   * The settlement of {@code r} by {@code c}: the window keeps {@code settledTokens} and {@code
   * settledCostMicros} of the reservation and gets the rest back, which adds to the release totals
   * of {@code previous}, the window's latest settlement ({@code null} for its first).
   *
   * @param settledCostMicros {@code null} exactly when {@code r} reserved no cost
   */
  public static Settlement create(
      Reservation r,
      Completion c,
      Settlement previous,
      long settledTokens,
      Long settledCostMicros,
      long settledAtMs) {
    long releasedTokens = r.reservedTokens() - settledTokens;
    Long reservedCost = r.reservedCostMicros();
    long releasedCostMicros = reservedCost == null ? 0 : reservedCost - settledCostMicros;
    long windowSettleSeq = previous == null ? 1 : Math.addExact(previous.windowSettleSeq(), 1);
    long windowReleasedTokens =
        Math.addExact(previous == null ? 0 : previous.windowReleasedTokens(), releasedTokens);
    long windowReleasedCostMicros =
        Math.addExact(
            previous == null ? 0 : previous.windowReleasedCostMicros(), releasedCostMicros);
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
