package dev.qinglong.app.platform;

import dev.qinglong.core.webhooks.AesGcmSecretSealer;
import jakarta.validation.constraints.AssertTrue;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * {@code qinglong.webhooks.*}: webhook targets and the key that seals their signing secrets. It
 * lives in the platform because the platform is what reads the key: it decides whether the store
 * backend opens the webhook stores at all.
 *
 * @param allowInsecureTargets Allow {@code http} URLs and loopback, private and link-local
 *     addresses as webhook targets, at registration and at delivery. For development and tests
 *     only; the process logs a warning at start when it is on.
 * @param secretKey Base64 of 32 random bytes: the AES-256-GCM key that seals the endpoints' signing
 *     secrets in the database. Without it, SQLite generates one into {@code
 *     <data-dir>/webhook-secret.key} (mode 0600) at first start; PostgreSQL has no webhooks (the
 *     routes answer 503, nothing is delivered). Keep it in a secret, never in a ConfigMap.
 */
@ConfigurationProperties("qinglong.webhooks")
@Validated
public record WebhooksProperties(
    @DefaultValue("false") boolean allowInsecureTargets, String secretKey) {

  @AssertTrue(message = "qinglong.webhooks.secret-key must be base64 of exactly 32 bytes")
  public boolean isSecretKeyWellFormed() {
    if (secretKey == null || secretKey.isBlank()) {
      return true;
    }
    try {
      AesGcmSecretSealer.decodeKey(secretKey);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** Whether a key is configured. */
  public boolean hasSecretKey() {
    return secretKey != null && !secretKey.isBlank();
  }

  @Override
  public String toString() {
    // Never print the key.
    return "WebhooksProperties[allowInsecureTargets="
        + allowInsecureTargets
        + ", secretKey="
        + (hasSecretKey() ? "(set)" : "(unset)")
        + "]";
  }
}
