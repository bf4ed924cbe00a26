package dev.qinglong.core.governance;

import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.core.kernel.ValidationException;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A normalised plugin-package action. Install and upgrade name the artifact by digest; remove names
 * none. Its {@link #canonicalJson()} (keys sorted, no whitespace, only present members) is what
 * {@link #digest()} hashes, so two equal actions always share one {@code actionDigest}.
 */
public record PluginPackageAction(
    ActionType type, String packageName, String version, Sha256Digest artifactDigest) {
  /** The package-name grammar (whole value), also stated by the OpenAPI document. */
  public static final String PACKAGE_PATTERN = "[a-z0-9@][a-z0-9@/._-]{0,127}";

  /** The version grammar (whole value), also stated by the OpenAPI document. */
  public static final String VERSION_PATTERN = "[0-9A-Za-z][0-9A-Za-z.+-]{0,63}";

  private static final Pattern PACKAGE = Pattern.compile(PACKAGE_PATTERN);
  private static final Pattern VERSION = Pattern.compile(VERSION_PATTERN);

  public PluginPackageAction {
    Objects.requireNonNull(type, "type");
    if (!PACKAGE.matcher(ValidationException.required("action.package", packageName)).matches()) {
      throw new ValidationException(
          "action.package", "must be 1-128 characters of a-z 0-9 @ / . _ -");
    }
    if (!VERSION.matcher(ValidationException.required("action.version", version)).matches()) {
      throw new ValidationException(
          "action.version", "must be 1-64 characters of A-Z a-z 0-9 . + -");
    }
    if (type == ActionType.REMOVE && artifactDigest != null) {
      throw new ValidationException("action.artifactDigest", "must be absent for remove");
    }
    if (type != ActionType.REMOVE && artifactDigest == null) {
      throw new ValidationException("action.artifactDigest", "is required for install and upgrade");
    }
  }

  /**
   * Validates and normalises raw wire values.
   *
   * @throws ValidationException naming the first offending field
   */
  public static PluginPackageAction of(
      String type, String packageName, String version, String artifactDigest) {
    ActionType actionType = ActionType.fromWire(ValidationException.required("action.type", type));
    Sha256Digest digest =
        artifactDigest == null ? null : Sha256Digest.parse("action.artifactDigest", artifactDigest);
    return new PluginPackageAction(actionType, packageName, version, digest);
  }

  /** Canonical JSON: members in lexicographic order, no insignificant whitespace. */
  public String canonicalJson() {
    StringBuilder json = new StringBuilder("{");
    if (artifactDigest != null) {
      json.append("\"artifactDigest\":").append(quote(artifactDigest.value())).append(',');
    }
    json.append("\"package\":").append(quote(packageName)).append(',');
    json.append("\"type\":").append(quote(type.wireName())).append(',');
    json.append("\"version\":").append(quote(version));
    return json.append('}').toString();
  }

  /** SHA-256 of the canonical JSON: the proposal's {@code actionDigest}. */
  public Sha256Digest digest() {
    return Sha256Digest.ofUtf8(canonicalJson());
  }

  // The grammars above admit no character JSON must escape; quoting stays general all the same.
  private static String quote(String value) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : value.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
