package dev.qinglong.app.webhooks.delivery;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Standard Webhooks v1 signatures: {@code v1,} + base64 of HMAC-SHA256 over {@code
 * id.timestamp.body} with the endpoint's secret (its raw bytes, as {@code whsec_} + base64 shows
 * them). One signature per key, space-separated: during a secret rotation the current and the
 * previous key both sign, so a receiver that still has the old secret verifies too.
 */
public final class WebhookSigner {
  private static final String HMAC = "HmacSHA256";

  private WebhookSigner() {}

  /**
   * The {@code webhook-signature} header value.
   *
   * @param messageId the {@code webhook-id} header (the event id, the same on every attempt)
   * @param timestampSeconds the {@code webhook-timestamp} header, seconds since the epoch
   * @param body the exact request body
   * @param keys the signing keys, current first; at least one
   */
  public static String signatureHeader(
      String messageId, long timestampSeconds, byte[] body, List<byte[]> keys) {
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("no signing key");
    }
    if (messageId.indexOf('.') >= 0) {
      // The signed content is dot-separated; an id with a dot could be re-split differently.
      throw new IllegalArgumentException("message id must not contain '.'");
    }
    byte[] prefix = (messageId + "." + timestampSeconds + ".").getBytes(StandardCharsets.UTF_8);
    StringBuilder header = new StringBuilder(keys.size() * 48);
    for (byte[] key : keys) {
      if (header.length() > 0) {
        header.append(' ');
      }
      header.append("v1,").append(Base64.getEncoder().encodeToString(hmac(key, prefix, body)));
    }
    return header.toString();
  }

  private static byte[] hmac(byte[] key, byte[] prefix, byte[] body) {
    try {
      Mac mac = Mac.getInstance(HMAC);
      mac.init(new SecretKeySpec(key, HMAC));
      mac.update(prefix);
      return mac.doFinal(body);
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("HMAC-SHA256 is not available", e);
    }
  }
}
