package dev.qinglong.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;

/**
 * The shield's per-client bound counts one client once however a proxy spells its address in {@code
 * X-Forwarded-For} (port, IPv4-mapped IPv6, IPv6 spelling, case), and what is no address is counted
 * under the proxy, as before.
 */
class ClientAddressesTest {
  private static final String PROXY = "127.0.0.2";
  private final ClientAddresses clients = new ClientAddresses(List.of(PROXY + "/32"));

  private String client(String peer, String... forwardedFor) {
    MockHttpServletRequest request = new MockHttpServletRequest("GET", "/v1/projects/demo/members");
    request.setRemoteAddr(peer);
    for (String value : forwardedFor) {
      request.addHeader(ClientAddresses.HEADER, value);
    }
    return clients.of(request);
  }

  @Test
  void spellingsOfOneIpv4ClientAreOneClient() {
    for (String spelling :
        List.of(
            "198.51.100.7",
            " 198.51.100.7 ",
            "198.51.100.7:4444",
            "198.51.100.7:0",
            "198.51.100.7:65535",
            "::ffff:198.51.100.7",
            "::FFFF:198.51.100.7",
            "[::ffff:198.51.100.7]",
            "[::ffff:198.51.100.7]:4444",
            "0:0:0:0:0:ffff:198.51.100.7",
            "0000:0000:0000:0000:0000:FFFF:c633:6407",
            "::ffff:c633:6407")) {
      assertThat(client(PROXY, spelling)).as(spelling).isEqualTo("198.51.100.7");
      // Behind the client's own (unbelieved) entries and in front of the proxy's own address.
      assertThat(client(PROXY, "203.0.113.1, " + spelling + ", ::ffff:" + PROXY))
          .as(spelling)
          .isEqualTo("198.51.100.7");
    }
  }

  @Test
  void spellingsOfOneIpv6ClientAreOneClient() {
    for (String spelling :
        List.of(
            "2001:db8::1",
            "2001:DB8::1",
            "2001:0db8:0000:0000:0000:0000:0000:0001",
            "2001:db8:0:0:0:0:0:1",
            "2001:db8:0::1",
            "[2001:db8::1]",
            "[2001:db8::1]:443",
            "[2001:0DB8::0001]:8080")) {
      assertThat(client(PROXY, spelling)).as(spelling).isEqualTo("2001:db8::1");
    }
  }

  @Test
  void ipv6IsWrittenAsRfc5952Says() {
    assertThat(ClientAddresses.canonical("2001:db8:0:0:1:0:0:1")).isEqualTo("2001:db8::1:0:0:1");
    assertThat(ClientAddresses.canonical("2001:db8:0:1:1:1:1:1")).isEqualTo("2001:db8:0:1:1:1:1:1");
    assertThat(ClientAddresses.canonical("2001:0:0:1:0:0:0:1")).isEqualTo("2001:0:0:1::1");
    assertThat(ClientAddresses.canonical("0:0:0:0:0:0:0:0")).isEqualTo("::");
    assertThat(ClientAddresses.canonical("0:0:0:0:0:0:0:1")).isEqualTo("::1");
    assertThat(ClientAddresses.canonical("fd00:0:0:0:0:0:0:0")).isEqualTo("fd00::");
    assertThat(ClientAddresses.canonical("1:2:3:4:5:6:7::")).isEqualTo("1:2:3:4:5:6:7:0");
    assertThat(ClientAddresses.canonical("::1.2.3.4")).isEqualTo("::102:304");
  }

  @Test
  void whatIsNoAddressIsCountedUnderTheProxyAsBefore() {
    for (String garbage :
        List.of(
            "garbage",
            "example.com",
            "localhost",
            "unknown",
            "198.51.100.7:",
            "198.51.100.7:port",
            "198.51.100.7:65536",
            "198.51.100.7:123456",
            "198.51.100.07",
            "198.51.100",
            "198.51.100.7.1",
            "256.1.1.1",
            "[198.51.100.7]",
            "[2001:db8::1",
            "[2001:db8::1]x",
            "[2001:db8::1]:",
            "2001:db8::1::2",
            "2001:db8:::1",
            "1:2:3:4:5:6:7:8:9",
            "1:2:3:4:5:6:7",
            "12345::1",
            "fe80::1%eth0",
            "::ffff:198.51.100.7:4444",
            "1.2.3.4::",
            ":1::",
            "::1:")) {
      assertThat(ClientAddresses.canonical(garbage)).as(garbage).isNull();
      assertThat(client(PROXY, garbage)).as(garbage).isEqualTo(PROXY);
      assertThat(client(PROXY, "198.51.100.7, " + garbage)).as(garbage).isEqualTo(PROXY);
    }
  }

  @Test
  void thePeerIsCanonicalToo() {
    ClientAddresses untrusting = new ClientAddresses(List.of());
    MockHttpServletRequest request = new MockHttpServletRequest();
    request.setRemoteAddr("0:0:0:0:0:0:0:1");
    request.addHeader(ClientAddresses.HEADER, "198.51.100.7");
    assertThat(untrusting.of(request)).isEqualTo("::1");
    // A trusted proxy that connects over an IPv4-mapped address is still that proxy.
    assertThat(client("::ffff:" + PROXY, "198.51.100.7:4444")).isEqualTo("198.51.100.7");
    // An untrusted peer's X-Forwarded-For is not read at all.
    assertThat(client("127.0.0.1", "198.51.100.7")).isEqualTo("127.0.0.1");
  }
}
