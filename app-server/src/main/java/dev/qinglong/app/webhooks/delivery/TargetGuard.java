package dev.qinglong.app.webhooks.delivery;

import dev.qinglong.core.webhooks.WebhookTargets;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Objects;

/**
 * The delivery-time target check. The endpoint's host is resolved once per attempt; if any address
 * it resolves to may not be connected to (loopback, private, link-local, metadata, …) the attempt
 * is refused, otherwise the sender connects to exactly the first address resolved here and never
 * resolves the name again. A name that resolved to a public address at registration and now
 * resolves to an internal one (DNS rebinding) is therefore refused, and so is one that answers
 * differently between the check and the connection.
 */
public final class TargetGuard {
  private final WebhookTargets targets;
  private final WebhookTargets.HostResolver resolver;

  /**
   * @param targets the target rules (the same as at registration)
   * @param resolver how host names are resolved ({@code InetAddress::getAllByName} in the app)
   */
  public TargetGuard(WebhookTargets targets, WebhookTargets.HostResolver resolver) {
    this.targets = Objects.requireNonNull(targets, "targets");
    this.resolver = Objects.requireNonNull(resolver, "resolver");
  }

  /** A target that passed the check: the URL and the one address to connect to. */
  public record PinnedTarget(URI url, String host, int port, InetAddress address) {}

  /** The attempt may not be made; {@link #getMessage()} is short and names no address. */
  public static final class RefusedTargetException extends Exception {
    private static final long serialVersionUID = 1L;

    RefusedTargetException(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * Checks {@code url} for one attempt.
   *
   * @throws RefusedTargetException if the URL's scheme is not allowed, its host does not resolve or
   *     resolves to an address that may not be connected to
   */
  public PinnedTarget check(URI url) throws RefusedTargetException {
    String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("https") && !(targets.allowInsecure() && scheme.equals("http"))) {
      throw new RefusedTargetException("target refused: scheme " + scheme + " not allowed");
    }
    String host = WebhookTargets.host(url);
    if (host == null || host.isEmpty()) {
      throw new RefusedTargetException("target refused: no host");
    }
    InetAddress[] addresses;
    try {
      addresses = resolver.resolve(host);
    } catch (UnknownHostException | SecurityException e) {
      throw new RefusedTargetException("host does not resolve");
    }
    if (addresses == null || addresses.length == 0) {
      throw new RefusedTargetException("host does not resolve");
    }
    for (InetAddress address : addresses) {
      String reason = targets.refusal(address);
      if (reason != null) {
        throw new RefusedTargetException(
            "target refused: host resolves to a " + reason + " address");
      }
    }
    int port = url.getPort() >= 0 ? url.getPort() : scheme.equals("https") ? 443 : 80;
    return new PinnedTarget(url, host, port, addresses[0]);
  }
}
