package dev.qinglong.core.webhooks;

import dev.qinglong.core.kernel.StoreUnavailableException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * AES-256-GCM sealing: {@code version(1) || nonce(12) || ciphertext+tag}, a fresh random nonce per
 * seal. The additional authenticated data binds the ciphertext to its purpose, so a sealed value
 * cannot be replayed elsewhere.
 */
public final class AesGcmSecretSealer implements SecretSealer {
  /** Key length in bytes (AES-256). */
  public static final int KEY_BYTES = 32;

  private static final byte VERSION = 1;
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final byte[] AAD =
      "qinglong:webhook-secret:v1".getBytes(StandardCharsets.US_ASCII);

  private final SecretKeySpec key;
  private final SecureRandom random;

  public AesGcmSecretSealer(byte[] key) {
    this(key, new SecureRandom());
  }

  public AesGcmSecretSealer(byte[] key, SecureRandom random) {
    if (key == null || key.length != KEY_BYTES) {
      throw new IllegalArgumentException("the sealing key must be " + KEY_BYTES + " bytes");
    }
    this.key = new SecretKeySpec(key.clone(), "AES");
    this.random = random;
  }

  /**
   * A sealer from the base64 form of a 32-byte key (standard or URL alphabet).
   *
   * @throws IllegalArgumentException if it is not base64 of exactly 32 bytes
   */
  public static AesGcmSecretSealer fromBase64(String base64Key) {
    byte[] raw = decodeKey(base64Key);
    try {
      return new AesGcmSecretSealer(raw);
    } finally {
      Arrays.fill(raw, (byte) 0);
    }
  }

  /**
   * The 32 key bytes of a base64 key.
   *
   * @throws IllegalArgumentException if it is not base64 of exactly 32 bytes
   */
  public static byte[] decodeKey(String base64Key) {
    if (base64Key == null) {
      throw new IllegalArgumentException("the sealing key must be base64 of 32 bytes");
    }
    String text = base64Key.strip();
    byte[] raw;
    try {
      raw =
          text.indexOf('-') >= 0 || text.indexOf('_') >= 0
              ? Base64.getUrlDecoder().decode(text)
              : Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the sealing key must be base64 of 32 bytes");
    }
    if (raw.length != KEY_BYTES) {
      throw new IllegalArgumentException("the sealing key must be base64 of 32 bytes");
    }
    return raw;
  }

  @Override
  public byte[] seal(byte[] secret) {
    byte[] nonce = new byte[NONCE_BYTES];
    random.nextBytes(nonce);
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
      cipher.updateAAD(AAD);
      byte[] body = cipher.doFinal(secret);
      return ByteBuffer.allocate(1 + NONCE_BYTES + body.length)
          .put(VERSION)
          .put(nonce)
          .put(body)
          .array();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is unavailable. Indicates a broken JDK.", e);
    }
  }

  @Override
  public byte[] open(byte[] sealed) {
    if (sealed == null || sealed.length < 1 + NONCE_BYTES + TAG_BITS / 8 || sealed[0] != VERSION) {
      throw new StoreUnavailableException("corrupt row: unreadable webhook secret");
    }
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, sealed, 1, NONCE_BYTES));
      cipher.updateAAD(AAD);
      return cipher.doFinal(sealed, 1 + NONCE_BYTES, sealed.length - 1 - NONCE_BYTES);
    } catch (GeneralSecurityException e) {
      throw new StoreUnavailableException(
          "webhook secret does not open with the configured qinglong.webhooks.secret-key");
    }
  }
}
