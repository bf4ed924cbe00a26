package dev.qinglong.app.http;

import jakarta.servlet.http.HttpServletRequest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Pattern;
import org.springframework.security.web.util.matcher.IpAddressMatcher;

/**
 * Who the client of a request is, for the shield's per-address bound (issue 10 item 3). The TCP
 * peer, unless the peer is one of {@code qinglong.shield.trusted-proxies}: then the right-most
 * {@code X-Forwarded-For} entry that is not a trusted proxy, i.e. the address the outermost trusted
 * proxy saw. Entries further left were written by the client and are not believed.
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

  /** The client's address as the shield counts it. */
  public String of(HttpServletRequest request) {
    String peer = String.valueOf(request.getRemoteAddr());
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
    for (int i = hops.size() - 1; i >= 0; i--) {
      String hop = hops.get(i);
      if (!isLiteral(hop)) {
        // Not what a proxy writes: count it under the proxy rather than believe it.
        return peer;
      }
      if (!isTrusted(hop)) {
        return hop;
      }
    }
    return hops.isEmpty() ? peer : hops.get(0);
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
