package dev.qinglong.gateway.downloads;

import dev.qinglong.gateway.governor.DownloadRates;
import dev.qinglong.gateway.governor.ServingGate;
import java.util.Map;

/**
 * What lets this process serve artifact payload, and at which rates: the whole configured budget
 * (standalone), or one slot's fixed share gated by its lease (shared). Closing it releases what it
 * holds in the database.
 */
public interface DownloadCoordination extends AutoCloseable {

  /** The rates this process's governor enforces. */
  DownloadRates rates();

  /**
   * Whether this process serves payload at all: {@code false} for a standalone process that found
   * another standalone download server on the same database (it starts, and serves no downloads).
   */
  boolean serves();

  /** The governor's gate: the lease in shared mode, always open in standalone mode. */
  ServingGate gate();

  /** Whether payload stopped for good (the shared lease is lost): readiness is DOWN. */
  boolean halted();

  /** The {@code sharedDownloads} readiness details (mode, slot, share, lease state). */
  Map<String, Object> details();

  @Override
  void close();
}
