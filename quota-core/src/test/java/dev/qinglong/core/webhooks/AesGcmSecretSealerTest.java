package dev.qinglong.core.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.kernel.StoreUnavailableException;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class AesGcmSecretSealerTest {
  private static final byte[] KEY = new byte[32];

  static {
    for (int i = 0; i < KEY.length; i++) {
      KEY[i] = (byte) i;
    }
  }

  @Test
  void sealedSecretsOpenWithTheSameKeyOnlyAndNeverRepeat() {
    AesGcmSecretSealer sealer = new AesGcmSecretSealer(KEY);
    byte[] secret = WebhookSecrets.generate();
    byte[] a = sealer.seal(secret);
    byte[] b = sealer.seal(secret);
    assertThat(a).isNotEqualTo(b);
    assertThat(sealer.open(a)).isEqualTo(secret);
    assertThat(sealer.open(b)).isEqualTo(secret);
    byte[] other = KEY.clone();
    other[0] ^= 1;
    assertThatThrownBy(() -> new AesGcmSecretSealer(other).open(a))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("qinglong.webhooks.secret-key");
  }

  @Test
  void aChangedCiphertextIsRefused() {
    AesGcmSecretSealer sealer = new AesGcmSecretSealer(KEY);
    byte[] sealed = sealer.seal(WebhookSecrets.generate());
    sealed[sealed.length - 1] ^= 1;
    assertThatThrownBy(() -> sealer.open(sealed)).isInstanceOf(StoreUnavailableException.class);
    assertThatThrownBy(() -> sealer.open(new byte[5]))
        .isInstanceOf(StoreUnavailableException.class);
  }

  @Test
  void theKeyIsBase64OfExactly32Bytes() {
    String b64 = Base64.getEncoder().encodeToString(KEY);
    byte[] secret = WebhookSecrets.generate();
    assertThat(AesGcmSecretSealer.fromBase64(b64).open(new AesGcmSecretSealer(KEY).seal(secret)))
        .isEqualTo(secret);
    assertThat(AesGcmSecretSealer.decodeKey(Base64.getUrlEncoder().encodeToString(KEY)))
        .isEqualTo(KEY);
    assertThatThrownBy(() -> AesGcmSecretSealer.decodeKey("c2hvcnQ="))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> AesGcmSecretSealer.decodeKey("not base64!"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new AesGcmSecretSealer(new byte[16]))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aSecretsTextIsTheStandardWebhooksForm() {
    byte[] secret = new byte[24];
    assertThat(WebhookSecrets.text(secret)).isEqualTo("whsec_" + "A".repeat(32));
  }
}
