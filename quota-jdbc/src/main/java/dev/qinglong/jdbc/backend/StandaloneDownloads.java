package dev.qinglong.jdbc.backend;

import dev.qinglong.gateway.governor.DownloadRates;
import dev.qinglong.gateway.governor.ServingGate;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Standalone downloads: the whole configured budget, always open. On PostgreSQL the mode barrier is
 * held alongside ({@code barrierHeld}, closed with this object); a process that found the barrier
 * taken by another standalone server serves nothing ({@link #notServing}).
 */
public final class StandaloneDownloads implements DownloadCoordination {
  private final DownloadRates rates;
  private final boolean serves;
  private final String barrier; // null: no barrier (SQLite)
  private final BooleanSupplier barrierHeld;
  private final AutoCloseable release;

  private StandaloneDownloads(
      DownloadRates rates,
      boolean serves,
      String barrier,
      BooleanSupplier barrierHeld,
      AutoCloseable release) {
    this.rates = rates;
    this.serves = serves;
    this.barrier = barrier;
    this.barrierHeld = barrierHeld;
    this.release = release;
  }

  /** One process per store (SQLite): nothing to coordinate. */
  public static StandaloneDownloads alone(DownloadSettings settings) {
    return new StandaloneDownloads(rates(settings), true, null, () -> true, () -> {});
  }

  /** This process holds the standalone barrier; {@code release} gives it back. */
  public static StandaloneDownloads holding(
      DownloadSettings settings, BooleanSupplier held, AutoCloseable release) {
    return new StandaloneDownloads(rates(settings), true, "held", held, release);
  }

  /** Another standalone download server holds the barrier: this process serves no payload. */
  public static StandaloneDownloads notServing(DownloadSettings settings) {
    return new StandaloneDownloads(rates(settings), false, "held-elsewhere", () -> false, () -> {});
  }

  private static DownloadRates rates(DownloadSettings settings) {
    return new DownloadRates(settings.rateBytesPerSecond(), settings.perPrincipalBytesPerSecond());
  }

  @Override
  public DownloadRates rates() {
    return rates;
  }

  @Override
  public boolean serves() {
    return serves;
  }

  @Override
  public ServingGate gate() {
    return serves ? ServingGate.ALWAYS_OPEN : () -> false;
  }

  @Override
  public boolean halted() {
    return false;
  }

  @Override
  public Map<String, Object> details() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("mode", "standalone");
    out.put("serves", serves);
    Map<String, Object> share = new LinkedHashMap<>();
    share.put("rateBytesPerSecond", rates.bytesPerSecond());
    share.put("perPrincipalBytesPerSecond", rates.perPrincipalBytesPerSecond());
    out.put("share", share);
    if (barrier != null) {
      out.put(
          "standaloneBarrier",
          "held".equals(barrier) ? (barrierHeld.getAsBoolean() ? "held" : "not-held") : barrier);
    }
    return out;
  }

  @Override
  public void close() {
    try {
      release.close();
    } catch (Exception e) {
      // Shutting down: the session ends with the process anyway.
    }
  }
}
