package dev.qinglong.core.webhooks;

import dev.qinglong.core.kernel.ValidationException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Objects;

/**
 * Where webhooks may be sent, checked at registration and again before every delivery attempt. Only
 * {@code https} URLs whose host resolves to public addresses only: a webhook must not become a way
 * to reach the control plane's own network (loopback, private ranges, link-local, the cloud
 * metadata address). {@code allowInsecure} lifts every rule but the URL's shape, for development
 * and tests only.
 */
public final class WebhookTargets {
  /** The longest URL accepted. */
  public static final int MAX_URL_LENGTH = 2048;

  /**
   * Resolves a host name to all its addresses (the app passes {@code InetAddress::getAllByName}).
   */
  @FunctionalInterface
  public interface HostResolver {
    InetAddress[] resolve(String host) throws UnknownHostException;
  }

  private final boolean allowInsecure;
  private final HostResolver resolver;

  public WebhookTargets(boolean allowInsecure, HostResolver resolver) {
    this.allowInsecure = allowInsecure;
    this.resolver = Objects.requireNonNull(resolver, "resolver");
  }

  /** Whether {@code http} and non-public addresses are allowed (development and tests only). */
  public boolean allowInsecure() {
    return allowInsecure;
  }

  /**
   * Parses and checks a URL at registration: {@code https} only (also {@code http} when insecure
   * targets are allowed), a host, no user-info, no fragment; the host resolves and every address it
   * resolves to is public.
   *
   * @throws ValidationException naming {@code url}; the message never names an address
   */
  public URI requireAllowed(String url) {
    ValidationException.required("url", url);
    if (url.isEmpty() || url.length() > MAX_URL_LENGTH) {
      throw new ValidationException("url", "must be 1-" + MAX_URL_LENGTH + " characters");
    }
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      throw new ValidationException("url", "is not a valid URL");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    boolean allowedScheme = scheme.equals("https") || (allowInsecure && scheme.equals("http"));
    if (!uri.isAbsolute() || uri.isOpaque() || !allowedScheme) {
      throw new ValidationException(
          "url", allowInsecure ? "must be an http or https URL" : "must be an https URL");
    }
    if (uri.getRawUserInfo() != null) {
      throw new ValidationException("url", "must not contain user information");
    }
    if (uri.getRawFragment() != null) {
      throw new ValidationException("url", "must not contain a fragment");
    }
    String host = host(uri);
    if (host == null || host.isEmpty()) {
      throw new ValidationException("url", "must name a host");
    }
    InetAddress[] addresses;
    try {
      addresses = resolver.resolve(host);
    } catch (UnknownHostException | SecurityException e) {
      throw new ValidationException("url", "host does not resolve");
    }
    if (addresses == null || addresses.length == 0) {
      throw new ValidationException("url", "host does not resolve");
    }
    for (InetAddress address : addresses) {
      if (refusal(address) != null) {
        throw new ValidationException(
            "url", "must not point to a loopback, private, link-local or metadata address");
      }
    }
    return uri;
  }

  /**
   * The host of a URL as a resolver takes it: an IPv6 literal without its brackets; null if the URL
   * has none.
   */
  public static String host(URI uri) {
    String host = uri.getHost();
    if (host != null && host.startsWith("[") && host.endsWith("]")) {
      return host.substring(1, host.length() - 1);
    }
    return host;
  }

  /**
   * Null if the address may be connected to, else a short reason: {@code loopback}, {@code
   * private}, {@code shared} (carrier-grade NAT), {@code link-local}, {@code metadata}, {@code
   * multicast}, {@code unspecified} or {@code reserved}. Always null when insecure targets are
   * allowed. An IPv6 address that embeds an IPv4 one (IPv4-mapped, NAT64, 6to4) is judged by the
   * embedded address.
   */
  public String refusal(InetAddress address) {
    if (allowInsecure) {
      return null;
    }
    Objects.requireNonNull(address, "address");
    byte[] b = address.getAddress();
    if (address instanceof Inet4Address) {
      return refusal4(b);
    }
    if (address instanceof Inet6Address) {
      return refusal6(b);
    }
    return "reserved";
  }

  private static String refusal4(byte[] b) {
    int a0 = b[0] & 0xff;
    int a1 = b[1] & 0xff;
    int a2 = b[2] & 0xff;
    int a3 = b[3] & 0xff;
    if (a0 == 0) {
      return "unspecified";
    }
    if (a0 == 127) {
      return "loopback";
    }
    if (a0 == 10 || (a0 == 172 && (a1 & 0xf0) == 16) || (a0 == 192 && a1 == 168)) {
      return "private";
    }
    if (a0 == 100 && (a1 & 0xc0) == 64) {
      return "shared";
    }
    if (a0 == 169 && a1 == 254) {
      return a2 == 169 && a3 == 254 ? "metadata" : "link-local";
    }
    if (a0 >= 224 && a0 <= 239) {
      return "multicast";
    }
    if (a0 >= 240) {
      return "reserved"; // 240/4 and the broadcast address
    }
    if (a0 == 192 && a1 == 0 && (a2 == 0 || a2 == 2)) {
      return "reserved"; // IETF protocol assignments, documentation
    }
    if ((a0 == 198 && (a1 == 18 || a1 == 19)) || (a0 == 198 && a1 == 51 && a2 == 100)) {
      return "reserved"; // benchmarking, documentation
    }
    if (a0 == 203 && a1 == 0 && a2 == 113) {
      return "reserved"; // documentation
    }
    return null;
  }

  private static String refusal6(byte[] b) {
    boolean firstTenZero = true;
    for (int i = 0; i < 10; i++) {
      firstTenZero &= b[i] == 0;
    }
    if (firstTenZero && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff) {
      return refusal4(new byte[] {b[12], b[13], b[14], b[15]}); // IPv4-mapped
    }
    if (firstTenZero && b[10] == 0 && b[11] == 0) {
      boolean lastZero = true;
      for (int i = 12; i < 15; i++) {
        lastZero &= b[i] == 0;
      }
      if (lastZero && b[15] == 0) {
        return "unspecified";
      }
      if (lastZero && b[15] == 1) {
        return "loopback";
      }
      return "reserved"; // IPv4-compatible, deprecated
    }
    int w0 = ((b[0] & 0xff) << 8) | (b[1] & 0xff);
    int w1 = ((b[2] & 0xff) << 8) | (b[3] & 0xff);
    if (w0 == 0x0064 && w1 == 0xff9b) {
      return refusal4(new byte[] {b[12], b[13], b[14], b[15]}); // NAT64
    }
    if (w0 == 0x2002) {
      return refusal4(new byte[] {b[2], b[3], b[4], b[5]}); // 6to4
    }
    if ((b[0] & 0xff) == 0xff) {
      return "multicast";
    }
    if ((w0 & 0xffc0) == 0xfe80) {
      return "link-local";
    }
    if ((w0 & 0xffc0) == 0xfec0) {
      return "private"; // site-local, deprecated
    }
    if ((b[0] & 0xfe) == 0xfc) {
      // Unique local; fd00:ec2::254 is a cloud metadata address.
      return w0 == 0xfd00 && w1 == 0x0ec2 ? "metadata" : "private";
    }
    if (w0 == 0x2001 && (w1 == 0x0db8 || w1 == 0x0000)) {
      return "reserved"; // documentation, Teredo (embeds an address we cannot judge)
    }
    if (w0 == 0x0100 && w1 == 0 && b[4] == 0 && b[5] == 0 && b[6] == 0 && b[7] == 0) {
      return "reserved"; // discard prefix
    }
    return null;
  }
}
