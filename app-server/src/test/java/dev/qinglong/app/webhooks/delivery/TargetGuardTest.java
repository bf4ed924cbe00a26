package dev.qinglong.app.webhooks.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.webhooks.WebhookTargets;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TargetGuardTest {
  private static InetAddress ip(String literal) {
    try {
      return InetAddress.getByName(literal);
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  /** A fake DNS: each name to its addresses; counts lookups. */
  private static final class FakeDns implements WebhookTargets.HostResolver {
    final Map<String, InetAddress[]> names;
    final List<String> lookups = new ArrayList<>();

    FakeDns(Map<String, InetAddress[]> names) {
      this.names = names;
    }

    @Override
    public InetAddress[] resolve(String host) throws UnknownHostException {
      lookups.add(host);
      InetAddress[] a = names.get(host);
      if (a == null) {
        throw new UnknownHostException(host);
      }
      return a;
    }
  }

  private static TargetGuard guard(boolean insecure, FakeDns dns) {
    return new TargetGuard(new WebhookTargets(insecure, dns), dns);
  }

  @Test
  void aHostThatResolvesTo127001IsRefused() {
    FakeDns dns = new FakeDns(Map.of("hooks.example.com", new InetAddress[] {ip("127.0.0.1")}));

    assertThatThrownBy(() -> guard(false, dns).check(URI.create("https://hooks.example.com/in")))
        .isInstanceOf(TargetGuard.RefusedTargetException.class)
        .hasMessageContaining("loopback")
        .hasMessageNotContaining("127.0.0.1");
  }

  @Test
  void privateLinkLocalMetadataAndMappedAddressesAreRefused() {
    for (String literal :
        List.of(
            "10.1.2.3",
            "192.168.0.1",
            "169.254.169.254",
            "169.254.1.1",
            "::ffff:127.0.0.1",
            "fd00::1",
            "fe80::1",
            "0.0.0.0",
            "100.64.0.1")) {
      FakeDns dns = new FakeDns(Map.of("h.example", new InetAddress[] {ip(literal)}));
      assertThatThrownBy(() -> guard(false, dns).check(URI.create("https://h.example/")))
          .as(literal)
          .isInstanceOf(TargetGuard.RefusedTargetException.class);
    }
  }

  @Test
  void oneInternalAddressAmongPublicOnesRefusesTheHost() {
    FakeDns dns =
        new FakeDns(
            Map.of("mixed.example", new InetAddress[] {ip("93.184.215.14"), ip("10.0.0.5")}));

    assertThatThrownBy(() -> guard(false, dns).check(URI.create("https://mixed.example/")))
        .isInstanceOf(TargetGuard.RefusedTargetException.class)
        .hasMessageContaining("private");
  }

  @Test
  void aPublicHostIsPinnedToTheAddressResolvedOnce() throws Exception {
    FakeDns dns = new FakeDns(Map.of("hooks.example.com", new InetAddress[] {ip("93.184.215.14")}));

    TargetGuard.PinnedTarget target =
        guard(false, dns).check(URI.create("https://hooks.example.com/in?x=1"));

    assertThat(target.address()).isEqualTo(ip("93.184.215.14"));
    assertThat(target.host()).isEqualTo("hooks.example.com");
    assertThat(target.port()).isEqualTo(443);
    assertThat(dns.lookups).containsExactly("hooks.example.com");
  }

  @Test
  void httpIsRefusedUnlessInsecureTargetsAreAllowed() throws Exception {
    FakeDns dns = new FakeDns(Map.of("localhost", new InetAddress[] {ip("127.0.0.1")}));

    assertThatThrownBy(() -> guard(false, dns).check(URI.create("http://localhost:8080/")))
        .isInstanceOf(TargetGuard.RefusedTargetException.class)
        .hasMessageContaining("scheme");
    TargetGuard.PinnedTarget target = guard(true, dns).check(URI.create("http://localhost:8080/"));
    assertThat(target.address()).isEqualTo(ip("127.0.0.1"));
    assertThat(target.port()).isEqualTo(8080);
  }

  @Test
  void aHostThatNoLongerResolvesIsRefused() {
    FakeDns dns = new FakeDns(Map.of());

    assertThatThrownBy(() -> guard(false, dns).check(URI.create("https://gone.example/")))
        .isInstanceOf(TargetGuard.RefusedTargetException.class)
        .hasMessage("host does not resolve");
  }
}
