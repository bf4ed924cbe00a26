package dev.qinglong.app.web;

import dev.qinglong.core.model.ValidationException;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/** Strict reading of request bodies: right JSON types, no unknown members. */
final class JsonBodies {
  private JsonBodies() {}

  /** The body as an object that has no member outside {@code allowed}. */
  static JsonNode object(JsonNode body, String field, Set<String> allowed) {
    if (body == null || !body.isObject()) {
      throw new ValidationException(field, "must be a JSON object");
    }
    for (String name : body.propertyNames()) {
      if (!allowed.contains(name)) {
        String path = field.equals("body") ? name : field + "." + name;
        throw new ValidationException(path, "is not a known member");
      }
    }
    return body;
  }

  /** A string member, or null if absent or JSON null. */
  static String optionalString(JsonNode object, String name, String path) {
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
  static String string(JsonNode object, String name, String path) {
    String value = optionalString(object, name, path);
    if (value == null) {
      throw new ValidationException(path, "is required");
    }
    return value;
  }
}
