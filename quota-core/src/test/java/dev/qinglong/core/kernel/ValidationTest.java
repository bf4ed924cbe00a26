package dev.qinglong.core.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.governance.PluginPackageAction;
import dev.qinglong.core.quota.ManagementQuotaPolicy;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.core.quota.ReceiptId;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ValidationTest {
  private static final String DIGEST = "sha256:" + "a".repeat(64);

  @ParameterizedTest
  @ValueSource(strings = {"a", "A-z_0", "x.y:z-1", "1"})
  void acceptsIdentifiersOfTheGrammar(String id) {
    assertThat(Identifiers.require("id", id)).isEqualTo(id);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "a b", "a/b", "ä", "a\nb", "<x>"})
  void rejectsIdentifiersOutsideTheGrammar(String id) {
    assertThatThrownBy(() -> Identifiers.require("actionRef", id))
        .isInstanceOf(ValidationException.class)
        .extracting(e -> ((ValidationException) e).field())
        .isEqualTo("actionRef");
  }

  @Test
  void identifierLengthIsBoundedAt128() {
    assertThat(Identifiers.require("id", "x".repeat(128))).hasSize(128);
    assertThatThrownBy(() -> Identifiers.require("id", "x".repeat(129)))
        .isInstanceOf(ValidationException.class);
    assertThatThrownBy(() -> new ReceiptId("r".repeat(129)))
        .isInstanceOf(ValidationException.class);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "sha256:",
        "sha256:ABCDEF",
        "sha512:aaaa",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
      })
  void rejectsMalformedDigests(String digest) {
    assertThatThrownBy(() -> Sha256Digest.parse("actionDigest", digest))
        .isInstanceOf(ValidationException.class);
  }

  @Test
  void rejectsUppercaseHexAndWrongLength() {
    assertThatThrownBy(() -> Sha256Digest.parse("d", "sha256:" + "A".repeat(64)))
        .isInstanceOf(ValidationException.class);
    assertThatThrownBy(() -> Sha256Digest.parse("d", "sha256:" + "a".repeat(63)))
        .isInstanceOf(ValidationException.class);
  }

  @Test
  void canonicalJsonSortsMembersAndDigestMatchesAnIndependentSha256() {
    PluginPackageAction action = PluginPackageAction.of("install", "acme-lint", "1.2.3", DIGEST);
    assertThat(action.canonicalJson())
        .isEqualTo(
            "{\"artifactDigest\":\""
                + DIGEST
                + "\",\"package\":\"acme-lint\",\"type\":\"install\",\"version\":\"1.2.3\"}");
    // Computed with `printf '%s' '<the JSON above>' | sha256sum`.
    assertThat(action.digest().value())
        .isEqualTo("sha256:e3d447b6001e270113bdf39acd2fe4a23076e8e611adbef0db6fc6d4cc1881e8");
  }

  @Test
  void rejectsBadActions() {
    assertThatThrownBy(() -> PluginPackageAction.of("delete", "p", "1", DIGEST))
        .hasMessageContaining("action.type");
    assertThatThrownBy(() -> PluginPackageAction.of(null, "p", "1", DIGEST))
        .hasMessageContaining("action.type");
    assertThatThrownBy(() -> PluginPackageAction.of("install", "Bad Name", "1", DIGEST))
        .hasMessageContaining("action.package");
    assertThatThrownBy(() -> PluginPackageAction.of("install", "p", "", DIGEST))
        .hasMessageContaining("action.version");
    assertThatThrownBy(() -> PluginPackageAction.of("install", "p", "1", null))
        .hasMessageContaining("action.artifactDigest");
    assertThatThrownBy(() -> PluginPackageAction.of("upgrade", "p", "1", "sha256:xyz"))
        .hasMessageContaining("action.artifactDigest");
    assertThatThrownBy(() -> PluginPackageAction.of("remove", "p", "1", DIGEST))
        .hasMessageContaining("action.artifactDigest");
    assertThat(PluginPackageAction.of("remove", "p", "1", null).canonicalJson())
        .isEqualTo("{\"package\":\"p\",\"type\":\"remove\",\"version\":\"1\"}");
  }

  @Test
  void quotaPolicyEnforcesAdrBounds() {
    ManagementQuotaPolicy defaults = ManagementQuotaPolicy.defaults();
    assertThat(defaults.window()).isEqualTo(Duration.ofSeconds(60));
    assertThat(defaults.limit(QuotaOperation.PROPOSE)).isEqualTo(30);
    assertThat(defaults.limit(QuotaOperation.DECIDE)).isEqualTo(60);
    assertThat(defaults.limit(QuotaOperation.INSPECT)).isEqualTo(600);
    assertThatThrownBy(
            () -> new ManagementQuotaPolicy(true, Duration.ofMinutes(5).plusMillis(1), Map.of()))
        .hasMessageContaining("window");
    assertThat(new ManagementQuotaPolicy(true, Duration.ofMinutes(5), Map.of()).window())
        .isEqualTo(Duration.ofMinutes(5));
    assertThatThrownBy(
            () ->
                new ManagementQuotaPolicy(
                    true, Duration.ofSeconds(60), Map.of(QuotaOperation.INSPECT, 1001)))
        .hasMessageContaining("limits.plugin-package.inspect");
    assertThatThrownBy(
            () ->
                new ManagementQuotaPolicy(
                    true, Duration.ofSeconds(60), Map.of(QuotaOperation.DECIDE, 0)))
        .hasMessageContaining("limits.plugin-package.decide");
  }
}
