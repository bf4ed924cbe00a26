package dev.qinglong.core.webhooks;

import java.security.SecureRandom;
import java.util.Base64;

/**
 * Signing secrets: 24 random bytes, shown to the client once as {@code whsec_} + base64 (the
 * Standard Webhooks form, which its verifiers accept as is). The HMAC key is the 24 bytes.
 */
public final class WebhookSecrets {
  /** The prefix of a secret's text form. */
  public static final String PREFIX = "whsec_";

  /** Random bytes per secret. */
  public static final int BYTES = 24;

  private static final SecureRandom RANDOM = new SecureRandom();

  private WebhookSecrets() {}

  /** A new random secret. */
  public static byte[] generate() {
    byte[] b = new byte[BYTES];
    RANDOM.nextBytes(b);
    return b;
  }

  /** The text form the client is shown once. */
  public static String text(byte[] secret) {
    return PREFIX + Base64.getEncoder().encodeToString(secret);
  }
}
