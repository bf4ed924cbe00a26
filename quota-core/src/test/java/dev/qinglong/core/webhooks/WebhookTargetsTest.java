package dev.qinglong.core.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.kernel.ValidationException;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class WebhookTargetsTest {
  /** A resolver that knows a few names, none of them through DNS. */
  private static final Map<String, String[]> NAMES =
      Map.of(
          "hooks.example.com", new String[] {"93.184.215.14"},
          "rebind.example.com", new String[] {"93.184.215.14", "127.0.0.1"},
          "localhost", new String[] {"127.0.0.1", "::1"},
          "metadata.example.com", new String[] {"169.254.169.254"},
          "v6.example.com", new String[] {"2606:2800:21f:cb07:6820:80da:af6b:8b2c"});

  private static InetAddress[] resolve(String host) throws UnknownHostException {
    String[] literal = NAMES.get(host);
    if (literal == null) {
      if (host.matches("[0-9.]+") || host.contains(":")) {
        return new InetAddress[] {InetAddress.getByName(host)};
      }
      throw new UnknownHostException(host);
    }
    InetAddress[] out = new InetAddress[literal.length];
    for (int i = 0; i < literal.length; i++) {
      out[i] = InetAddress.getByAddress(host, InetAddress.getByName(literal[i]).getAddress());
    }
    return out;
  }

  private final WebhookTargets strict = new WebhookTargets(false, WebhookTargetsTest::resolve);
  private final WebhookTargets insecure = new WebhookTargets(true, WebhookTargetsTest::resolve);

  @Test
  void aPublicHttpsUrlIsAllowed() {
    assertThat(strict.requireAllowed("https://hooks.example.com/qinglong?x=1"))
        .isEqualTo(URI.create("https://hooks.example.com/qinglong?x=1"));
    assertThat(strict.requireAllowed("https://v6.example.com:8443/h")).hasPort(8443);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "http://hooks.example.com/h",
        "ftp://hooks.example.com/h",
        "hooks.example.com/h",
        "https://user:pw@hooks.example.com/h",
        "https://hooks.example.com/h#frag",
        "https:///nohost",
        "https://unknown.example.com/h",
        "https://localhost/h",
        "https://127.0.0.1/h",
        "https://[::1]/h",
        "https://10.1.2.3/h",
        "https://192.168.0.10/h",
        "https://172.16.5.4/h",
        "https://100.64.0.1/h",
        "https://169.254.169.254/latest/meta-data",
        "https://metadata.example.com/h",
        "https://rebind.example.com/h",
        "https://[::ffff:127.0.0.1]/h",
        "https://[fd00::1]/h",
        "https://[fe80::1]/h",
        "https://0.0.0.0/h",
        "not a url"
      })
  void everythingElseIsRefusedNamingTheUrlButNoAddress(String url) {
    assertThatThrownBy(() -> strict.requireAllowed(url))
        .isInstanceOf(ValidationException.class)
        .satisfies(e -> assertThat(((ValidationException) e).field()).isEqualTo("url"))
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("127.0.0.1", "169.254"));
  }

  @Test
  void insecureTargetsAllowHttpAndPrivateAddressesButNotOtherSchemesOrUserInfo() {
    assertThat(insecure.allowInsecure()).isTrue();
    assertThat(insecure.requireAllowed("http://localhost:8080/h")).hasHost("localhost");
    assertThat(insecure.requireAllowed("https://10.1.2.3/h")).hasHost("10.1.2.3");
    assertThatThrownBy(() -> insecure.requireAllowed("ftp://localhost/h"))
        .isInstanceOf(ValidationException.class);
    assertThatThrownBy(() -> insecure.requireAllowed("http://u@localhost/h"))
        .isInstanceOf(ValidationException.class);
    assertThat(insecure.refusal(address("127.0.0.1"))).isNull();
  }

  @ParameterizedTest
  @CsvSource({
    "127.0.0.1, loopback",
    "127.255.0.1, loopback",
    "::1, loopback",
    "10.0.0.1, private",
    "172.31.255.255, private",
    "192.168.1.1, private",
    "100.64.0.1, shared",
    "100.127.255.254, shared",
    "169.254.1.1, link-local",
    "169.254.169.254, metadata",
    "fe80::1, link-local",
    "fc00::1, private",
    "fd12:3456::1, private",
    "fd00:ec2::254, metadata",
    "224.0.0.1, multicast",
    "ff02::1, multicast",
    "0.0.0.0, unspecified",
    "0.1.2.3, unspecified",
    "::, unspecified",
    "240.0.0.1, reserved",
    "255.255.255.255, reserved",
    "192.0.2.1, reserved",
    "2001:db8::1, reserved",
    "::ffff:10.0.0.1, private",
    "::ffff:169.254.169.254, metadata",
    "64:ff9b::7f00:1, loopback",
    "2002:7f00:1::, loopback"
  })
  void nonPublicAddressesAreRefusedWithTheirReason(String literal, String reason) {
    assertThat(strict.refusal(address(literal))).isEqualTo(reason);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "93.184.215.14",
        "8.8.8.8",
        "172.32.0.1",
        "100.128.0.1",
        "2606:2800:21f:cb07:6820:80da:af6b:8b2c",
        "::ffff:8.8.8.8"
      })
  void publicAddressesMayBeConnectedTo(String literal) {
    assertThat(strict.refusal(address(literal))).isNull();
  }

  /** An IPv4-mapped IPv6 address kept as 16 bytes (as a resolver may hand it over). */
  @Test
  void aMappedAddressAsSixteenBytesIsJudgedByItsIpv4Address() throws Exception {
    byte[] mapped = new byte[16];
    mapped[10] = (byte) 0xff;
    mapped[11] = (byte) 0xff;
    mapped[12] = 127;
    mapped[15] = 1;
    InetAddress a = java.net.Inet6Address.getByAddress(null, mapped, -1);
    assertThat(strict.refusal(a)).isEqualTo("loopback");
  }

  private static InetAddress address(String literal) {
    try {
      return InetAddress.getByName(literal);
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    }
  }
}
