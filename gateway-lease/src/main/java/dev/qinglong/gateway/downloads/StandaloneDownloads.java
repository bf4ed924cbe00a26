package dev.qinglong.gateway.downloads;

import dev.qinglong.gateway.governor.DownloadRates;
import dev.qinglong.gateway.governor.ServingGate;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Standalone downloads: the whole configured budget. On PostgreSQL the mode barrier goes with it
 * ({@link Barrier}, kept in the background and released when this object closes): payload flows
 * only while this process holds it; a process that finds it held by another standalone server
 * serves nothing until it takes it over; a process whose barrier session died stops serving and is
 * not ready until it re-takes it.
 */
public final class StandaloneDownloads implements DownloadCoordination {
  /** Barrier states as readiness shows them. */
  public static final String HELD = "held";

  public static final String HELD_ELSEWHERE = "held-elsewhere";
  public static final String NOT_HELD = "not-held";

  /** The standalone mode barrier as this process sees it now. */
  public interface Barrier extends AutoCloseable {
    /**
     * @return {@link #HELD}, {@link #HELD_ELSEWHERE} or {@link #NOT_HELD}
     */
    String state();

    @Override
    void close();
  }

  private final DownloadRates rates;
  private final Barrier barrier; // null: no barrier (SQLite)

  private StandaloneDownloads(DownloadRates rates, Barrier barrier) {
    this.rates = rates;
    this.barrier = barrier;
  }

  /** One process per store (SQLite): nothing to coordinate. */
  public static StandaloneDownloads alone(DownloadRates rates) {
    return new StandaloneDownloads(Objects.requireNonNull(rates), null);
  }

  /** PostgreSQL: payload flows while {@code barrier} is held; closing this closes it. */
  public static StandaloneDownloads withBarrier(DownloadRates rates, Barrier barrier) {
    return new StandaloneDownloads(Objects.requireNonNull(rates), Objects.requireNonNull(barrier));
  }

  @Override
  public DownloadRates rates() {
    return rates;
  }

  @Override
  public boolean serves() {
    return barrier == null || HELD.equals(barrier.state());
  }

  @Override
  public ServingGate gate() {
    return barrier == null ? ServingGate.ALWAYS_OPEN : this::serves;
  }

  /** Not ready while the barrier this process should hold is lost and not yet re-taken. */
  @Override
  public boolean halted() {
    return barrier != null && NOT_HELD.equals(barrier.state());
  }

  @Override
  public Map<String, Object> details() {
    String state = barrier == null ? null : barrier.state();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("mode", "standalone");
    out.put("serves", state == null || HELD.equals(state));
    Map<String, Object> share = new LinkedHashMap<>();
    share.put("rateBytesPerSecond", rates.bytesPerSecond());
    share.put("perPrincipalBytesPerSecond", rates.perPrincipalBytesPerSecond());
    out.put("share", share);
    if (state != null) {
      out.put("standaloneBarrier", state);
    }
    return out;
  }

  @Override
  public void close() {
    if (barrier != null) {
      try {
        barrier.close();
      } catch (RuntimeException e) {
        // Shutting down: the session ends with the process anyway.
      }
    }
  }
}
