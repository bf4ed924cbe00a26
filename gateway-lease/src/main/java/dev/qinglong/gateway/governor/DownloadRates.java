package dev.qinglong.gateway.governor;

/**
 * The byte rates one process may serve: the whole process and each principal. {@code 0} means no
 * limit. In shared mode these are the process's fixed share of the stored policy, never the total.
 *
 * @param bytesPerSecond payload bytes per second for the whole process, {@code >= 0}
 * @param perPrincipalBytesPerSecond payload bytes per second for one principal, {@code >= 0}
 */
public record DownloadRates(long bytesPerSecond, long perPrincipalBytesPerSecond) {

  /** No limit at all. */
  public static final DownloadRates UNLIMITED = new DownloadRates(0, 0);

  public DownloadRates {
    if (bytesPerSecond < 0) {
      throw new IllegalArgumentException("bytesPerSecond must be >= 0, was " + bytesPerSecond);
    }
    if (perPrincipalBytesPerSecond < 0) {
      throw new IllegalArgumentException(
          "perPrincipalBytesPerSecond must be >= 0, was " + perPrincipalBytesPerSecond);
    }
  }

  /** Whether the whole process is limited. */
  public boolean limitsTotal() {
    return bytesPerSecond > 0;
  }

  /** Whether each principal is limited. */
  public boolean limitsPrincipals() {
    return perPrincipalBytesPerSecond > 0;
  }
}
