package dev.qinglong.app.http;

import dev.qinglong.core.kernel.ValidationException;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * Strict reading of request bodies: right JSON types, no unknown members (duplicate members never
 * get here: the parser refuses them, {@link JsonConfiguration}). Problems name the field by its
 * place in the contract, never by what the client sent.
 */
public final class JsonBodies {
  private JsonBodies() {}

  /** The body as an object that has no member outside {@code allowed}. */
  public static JsonNode object(JsonNode body, String field, Set<String> allowed) {
    if (body == null || !body.isObject()) {
      throw new ValidationException(field, "must be a JSON object");
    }
    for (String name : body.propertyNames()) {
      if (!allowed.contains(name)) {
        // The name is the client's input: never echo it (DESIGN §3), only where it was.
        throw new ValidationException(field, "has a member that is not known");
      }
    }
    return body;
  }

  /** A string member, or null if absent or JSON null. */
  public static String optionalString(JsonNode object, String name, String path) {
    JsonNode value = object.get(name);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isString()) {
      throw new ValidationException(path, "must be a string");
    }
    return value.stringValue();
  }

  /** A required string member. */
  public static String string(JsonNode object, String name, String path) {
    String value = optionalString(object, name, path);
    if (value == null) {
      throw new ValidationException(path, "is required");
    }
    return value;
  }

  /** A whole number member that fits a long, or null if absent or JSON null. */
  public static Long optionalLong(JsonNode object, String name, String path) {
    JsonNode value = object.get(name);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isIntegralNumber() || !value.canConvertToLong()) {
      throw new ValidationException(path, "must be a whole number");
    }
    return value.longValue();
  }

  /** A required whole number member. */
  public static long requiredLong(JsonNode object, String name, String path) {
    Long value = optionalLong(object, name, path);
    if (value == null) {
      throw new ValidationException(path, "is required");
    }
    return value;
  }

  /** A query parameter holding a whole number, or null if absent. */
  public static Integer optionalIntParameter(String raw, String name) {
    if (raw == null) {
      return null;
    }
    if (!raw.matches("[0-9]{1,9}")) {
      throw new ValidationException(name, "must be a whole number");
    }
    return Integer.parseInt(raw);
  }
}
