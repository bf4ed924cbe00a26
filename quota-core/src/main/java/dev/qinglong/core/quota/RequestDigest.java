package dev.qinglong.core.quota;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What a receipt id was first spent on: the SHA-256 of the operation, the route target and the
 * request body's meaning, as 64 lowercase hex digits (the bucket stores it next to the receipt id).
 * The same receipt id with the same digest is a replay; with another digest it is a reused key (409
 * {@code idempotency_key_reused}, see docs/design.md#idempotency-ids).
 */
public record RequestDigest(String hex) {
  private static final Pattern HEX = Pattern.compile("[0-9a-f]{64}");

  public RequestDigest {
    if (hex == null || !HEX.matcher(hex).matches()) {
      throw new IllegalArgumentException("a request digest is 64 lowercase hex digits");
    }
  }

  /**
   * The digest of {@code operation} and {@code fields} (target first, then the body's normalised
   * values, in an order the caller keeps fixed). Each field is length-prefixed, so no two different
   * field lists encode alike; a {@code null} field is encoded apart from every string.
   */
  public static RequestDigest of(QuotaOperation operation, String... fields) {
    Objects.requireNonNull(operation, "operation");
    StringBuilder canonical = new StringBuilder();
    append(canonical, operation.wireName());
    for (String field : fields) {
      append(canonical, field);
    }
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256")
              .digest(canonical.toString().getBytes(StandardCharsets.UTF_8));
      return new RequestDigest(HexFormat.of().formatHex(hash));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is mandatory in every JRE", e);
    }
  }

  private static void append(StringBuilder out, String field) {
    if (field == null) {
      out.append("-;");
    } else {
      out.append(field.length()).append(':').append(field).append(';');
    }
  }
}
