package dev.qinglong.gateway.governor;

/**
 * Says whether this process may still send payload. The governor asks it before and after every
 * chunk, so a closed gate stops all payload within one chunk. In shared mode the download lease is
 * the gate (it closes on lease loss, and by itself when its local validity runs out).
 */
@FunctionalInterface
public interface ServingGate {

  /** A gate that never closes: standalone mode. */
  ServingGate ALWAYS_OPEN = () -> true;

  /**
   * @return {@code true} while payload may be sent; once {@code false} for a lease-backed gate it
   *     never becomes {@code true} again (lease loss is terminal)
   */
  boolean mayServe();
}
