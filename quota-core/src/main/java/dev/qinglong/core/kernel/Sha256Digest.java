package dev.qinglong.core.kernel;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/** A digest in the contract's form: {@code sha256:} followed by 64 lowercase hex digits. */
public record Sha256Digest(String value) {
  /** The form as a regular expression (whole value), also stated by the OpenAPI document. */
  public static final String PATTERN = "sha256:[0-9a-f]{64}";

  private static final Pattern GRAMMAR = Pattern.compile(PATTERN);

  public Sha256Digest {
    if (value == null || !GRAMMAR.matcher(value).matches()) {
      throw new ValidationException(
          "digest", "must be sha256: followed by 64 lowercase hex digits");
    }
  }

  /**
   * Parses a digest supplied by a caller.
   *
   * @throws ValidationException naming {@code field} if it is not of the contract's form
   */
  public static Sha256Digest parse(String field, String value) {
    if (!GRAMMAR.matcher(ValidationException.required(field, value)).matches()) {
      throw new ValidationException(field, "must be sha256: followed by 64 lowercase hex digits");
    }
    return new Sha256Digest(value);
  }

  /** The digest of {@code bytes}. */
  public static Sha256Digest of(byte[] bytes) {
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256").digest(bytes);
      return new Sha256Digest("sha256:" + HexFormat.of().formatHex(hash));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is mandatory in every JRE", e);
    }
  }

  /** The digest of the UTF-8 encoding of {@code text}. */
  public static Sha256Digest ofUtf8(String text) {
    return of(text.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public String toString() {
    return value;
  }
}
