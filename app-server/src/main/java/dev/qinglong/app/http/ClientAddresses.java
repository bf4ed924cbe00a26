package dev.qinglong.app.http;

import jakarta.servlet.http.HttpServletRequest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.springframework.security.web.util.matcher.IpAddressMatcher;

/**
 * Who the client of a request is, for the shield's per-address bound. The TCP peer, unless the peer
 * is one of {@code qinglong.shield.trusted-proxies}: then the right-most {@code X-Forwarded-For}
 * entry that is not a trusted proxy, i.e. the address the outermost trusted proxy saw. Entries
 * further left were written by the client and are not believed.
 *
 * <p>Spring Boot's own {@code server.forward-headers-strategy} stays {@code none}: on Kubernetes
 * Boot would otherwise default it to {@code native} and let Tomcat trust {@code X-Forwarded-For}
 * from every private address, i.e. from any pod.
 */
public final class ClientAddresses {
  public static final String HEADER = "X-Forwarded-For";
  // Literal addresses only: IpAddressMatcher resolves anything else through DNS.
  private static final Pattern IPV4 =
      Pattern.compile(
          "^((25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)$");
  private static final Pattern IPV6 = Pattern.compile("^[0-9A-Fa-f:.]{2,45}$");
  private static final Pattern HEX_GROUP = Pattern.compile("^[0-9a-f]{1,4}$");

  private final List<IpAddressMatcher> trusted;

  /**
   * @param trustedProxies addresses or CIDR blocks ({@code 10.42.0.0/16}, {@code fd00::/8})
   * @throws IllegalArgumentException naming the entry when one is no literal address or block
   */
  public ClientAddresses(List<String> trustedProxies) {
    List<IpAddressMatcher> matchers = new ArrayList<>();
    for (String entry : trustedProxies) {
      String e = entry.trim();
      String address = e.contains("/") ? e.substring(0, e.indexOf('/')) : e;
      if (!isLiteral(address)) {
        throw new IllegalArgumentException(
            "qinglong.shield.trusted-proxies: '" + entry + "' is no IP address or CIDR block");
      }
      matchers.add(new IpAddressMatcher(e));
    }
    this.trusted = Collections.unmodifiableList(matchers);
  }

  /**
   * The client's address as the shield counts it, in the canonical spelling of {@link #canonical}
   * so that one client is one bucket however a proxy spells it.
   */
  public String of(HttpServletRequest request) {
    String remote = String.valueOf(request.getRemoteAddr());
    String canonicalPeer = canonical(remote);
    String peer = canonicalPeer == null ? remote : canonicalPeer;
    if (trusted.isEmpty() || !isTrusted(peer)) {
      return peer;
    }
    List<String> hops = new ArrayList<>();
    for (String line : Collections.list(request.getHeaders(HEADER))) {
      for (String hop : line.split(",")) {
        if (!hop.isBlank()) {
          hops.add(hop.trim());
        }
      }
    }
    String leftMost = peer;
    for (int i = hops.size() - 1; i >= 0; i--) {
      String hop = canonical(hops.get(i));
      if (hop == null) {
        // Not what a proxy writes: count it under the proxy rather than believe it.
        return peer;
      }
      if (!isTrusted(hop)) {
        return hop;
      }
      leftMost = hop;
    }
    return leftMost;
  }

  /**
   * The canonical spelling of one address as a proxy may write it in {@code X-Forwarded-For}, or
   * {@code null} if it is none: an IPv4 literal with or without {@code :port}; an IPv6 literal,
   * bare or as {@code [v6]} or {@code [v6]:port}. The port is dropped, an IPv4-mapped IPv6 address
   * ({@code ::ffff:a.b.c.d}) becomes its IPv4 address, and IPv6 is written as RFC 5952 says (lower
   * case, no leading zeros, the longest run of two or more zero groups as {@code ::}). Zone ids
   * ({@code %eth0}) and host names are none.
   *
   * <p>Parsed by hand, not with {@link java.net.InetAddress}: that resolves anything that is not a
   * literal through DNS, and a header value must never make the server look anything up. (Guava's
   * {@code InetAddresses} is not on the application's classpath.)
   */
  static String canonical(String entry) {
    if (entry == null) {
      return null;
    }
    String e = entry.trim().toLowerCase(Locale.ROOT);
    if (e.isEmpty() || e.length() > MAX_ENTRY) {
      return null;
    }
    if (e.charAt(0) == '[') {
      int close = e.indexOf(']');
      if (close < 0 || !(close == e.length() - 1 || isPort(e, close + 1))) {
        return null;
      }
      return ipv6(e.substring(1, close));
    }
    int colon = e.indexOf(':');
    if (colon >= 0 && e.indexOf(':', colon + 1) < 0) {
      // One colon: a.b.c.d:port (a bare IPv6 literal has at least two).
      String address = e.substring(0, colon);
      return isPort(e, colon) && IPV4.matcher(address).matches() ? address : null;
    }
    if (colon < 0) {
      // The pattern admits no leading zeros, so a match is already canonical.
      return IPV4.matcher(e).matches() ? e : null;
    }
    return ipv6(e);
  }

  private static final int MAX_ENTRY = 64;

  /** Whether {@code s} from {@code colon} on is {@code :port} with a port of 0 to 65535. */
  private static boolean isPort(String s, int colon) {
    if (s.charAt(colon) != ':') {
      return false;
    }
    String port = s.substring(colon + 1);
    return port.matches("\\d{1,5}") && Integer.parseInt(port) <= 65535;
  }

  /** The canonical form of a bare IPv6 literal (no brackets, no port), or {@code null}. */
  private static String ipv6(String literal) {
    int[] words = ipv6Words(literal);
    if (words == null) {
      return null;
    }
    boolean mapped = words[5] == 0xffff;
    for (int i = 0; i < 5 && mapped; i++) {
      mapped = words[i] == 0;
    }
    if (mapped) {
      return (words[6] >> 8)
          + "."
          + (words[6] & 0xff)
          + "."
          + (words[7] >> 8)
          + "."
          + (words[7] & 0xff);
    }
    // RFC 5952 4.2: the longest run of at least two zero groups, the first one on a tie.
    int bestStart = -1;
    int bestLength = 1;
    for (int i = 0; i < 8; ) {
      if (words[i] != 0) {
        i++;
        continue;
      }
      int j = i;
      while (j < 8 && words[j] == 0) {
        j++;
      }
      if (j - i > bestLength) {
        bestStart = i;
        bestLength = j - i;
      }
      i = j;
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        out.append("::");
        i += bestLength - 1;
        continue;
      }
      if (out.length() > 0 && out.charAt(out.length() - 1) != ':') {
        out.append(':');
      }
      out.append(Integer.toHexString(words[i]));
    }
    return out.toString();
  }

  /** The eight 16-bit groups of a bare IPv6 literal (RFC 4291 2.2), or {@code null}. */
  private static int[] ipv6Words(String s) {
    int gap = s.indexOf("::");
    if (gap >= 0 && s.indexOf("::", gap + 1) >= 0) {
      return null; // more than one "::", or ":::"
    }
    List<Integer> left = groups(gap < 0 ? s : s.substring(0, gap), gap < 0);
    List<Integer> right = gap < 0 ? List.of() : groups(s.substring(gap + 2), true);
    if (left == null || right == null) {
      return null;
    }
    int given = left.size() + right.size();
    if (gap < 0 ? given != 8 : given > 7) {
      return null;
    }
    int[] words = new int[8];
    for (int i = 0; i < left.size(); i++) {
      words[i] = left.get(i);
    }
    for (int i = 0; i < right.size(); i++) {
      words[8 - right.size() + i] = right.get(i);
    }
    return words;
  }

  /**
   * The groups of one side of {@code ::} (or of the whole literal): one to four hex digits each;
   * the last may be a dotted IPv4 address (two groups) if {@code lastMayBeIpv4}.
   */
  private static List<Integer> groups(String side, boolean lastMayBeIpv4) {
    List<Integer> words = new ArrayList<>();
    if (side.isEmpty()) {
      return words;
    }
    String[] parts = side.split(":", -1);
    for (int i = 0; i < parts.length; i++) {
      String part = parts[i];
      if (HEX_GROUP.matcher(part).matches()) {
        words.add(Integer.parseInt(part, 16));
      } else if (lastMayBeIpv4 && i == parts.length - 1 && IPV4.matcher(part).matches()) {
        String[] octets = part.split("\\.");
        words.add(Integer.parseInt(octets[0]) << 8 | Integer.parseInt(octets[1]));
        words.add(Integer.parseInt(octets[2]) << 8 | Integer.parseInt(octets[3]));
      } else {
        return null;
      }
    }
    return words;
  }

  private boolean isTrusted(String address) {
    if (!isLiteral(address)) {
      return false;
    }
    try {
      for (IpAddressMatcher m : trusted) {
        if (m.matches(address)) {
          return true;
        }
      }
    } catch (IllegalArgumentException e) {
      // Looked like an IPv6 literal but is none.
    }
    return false;
  }

  static boolean isLiteral(String address) {
    return IPV4.matcher(address).matches()
        || (address.indexOf(':') >= 0 && IPV6.matcher(address).matches());
  }
}
