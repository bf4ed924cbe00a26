package dev.qinglong.gateway.lease;

import dev.qinglong.gateway.governor.DownloadRates;

/**
 * The single shared-download policy stored in the database: the total budget of all gateways and
 * the number of fixed shares it is split into. Changed only offline: a running slot must never see
 * its share change.
 *
 * @param rateBytesPerSecond total payload rate of all gateways together; 0 = unlimited
 * @param perPrincipalBytesPerSecond total per-principal rate; 0 = unlimited
 * @param slots number of slots (shares), 1..1024
 */
public record SharedDownloadPolicy(
    long rateBytesPerSecond, long perPrincipalBytesPerSecond, int slots) {
  public static final int MAX_SLOTS = 1024;

  public SharedDownloadPolicy {
    if (rateBytesPerSecond < 0 || perPrincipalBytesPerSecond < 0) {
      throw new IllegalArgumentException("rates must be >= 0 (0 = unlimited)");
    }
    if (slots < 1 || slots > MAX_SLOTS) {
      throw new IllegalArgumentException("slots must be 1.." + MAX_SLOTS + ", was " + slots);
    }
    // floor(rate / slots) = 0 would read as "unlimited": a tiny budget must not become none.
    if (rateBytesPerSecond > 0 && rateBytesPerSecond < slots) {
      throw new IllegalArgumentException(
          "rate-bytes-per-second " + rateBytesPerSecond + " is below the slot count " + slots);
    }
    if (perPrincipalBytesPerSecond > 0 && perPrincipalBytesPerSecond < slots) {
      throw new IllegalArgumentException(
          "per-principal-bytes-per-second "
              + perPrincipalBytesPerSecond
              + " is below the slot count "
              + slots);
    }
  }

  /** One slot's fixed share: floor(rate / slots) for both rates (0 stays unlimited). */
  public DownloadRates share() {
    return new DownloadRates(rateBytesPerSecond / slots, perPrincipalBytesPerSecond / slots);
  }
}
