package dev.qinglong.app.support;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Checks real responses against the checked-in OpenAPI 3.1 document: the status is documented for
 * the operation, the media type is one the response declares, the body is valid under the declared
 * JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1, validated by networknt's
 * json-schema-validator), each declared header is present when required and valid when present, and
 * a problem document's {@code status} is the HTTP status. Records what it checked, so a test can
 * require coverage of every operation.
 */
public final class OpenApiResponses {
  public static final Path DOCUMENT = Path.of("..", "docs", "openapi.json");

  private final JsonNode doc;
  private final SchemaRegistry registry =
      SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
  private final Map<String, Schema> schemas = new ConcurrentHashMap<>();
  private final Map<String, Set<Integer>> checked = new ConcurrentHashMap<>();

  private OpenApiResponses(JsonNode doc) {
    this.doc = doc;
  }

  /** A checker of {@code doc}, e.g. the document the app serves. */
  public static OpenApiResponses of(JsonNode doc) {
    return new OpenApiResponses(doc);
  }

  public static OpenApiResponses load() {
    try {
      return new OpenApiResponses(Http.JSON.readTree(Files.readString(DOCUMENT)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every documented operation ({@code "GET /v1/…"}) with its documented statuses. */
  public Map<String, Set<Integer>> documented() {
    Map<String, Set<Integer>> out = new TreeMap<>();
    for (Map.Entry<String, JsonNode> path : doc.get("paths").properties()) {
      for (Map.Entry<String, JsonNode> op : path.getValue().properties()) {
        Set<Integer> statuses = new TreeSet<>();
        op.getValue()
            .get("responses")
            .propertyNames()
            .forEach(s -> statuses.add(Integer.valueOf(s)));
        out.put(op.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey(), statuses);
      }
    }
    return out;
  }

  /** What was checked so far: operation → statuses. */
  public Map<String, Set<Integer>> checked() {
    Map<String, Set<Integer>> out = new TreeMap<>();
    checked.forEach((k, v) -> out.put(k, new TreeSet<>(v)));
    return out;
  }

  /**
   * Checks one response of {@code method template} (the document's path, e.g. {@code
   * /v1/projects/{projectId}/members}).
   *
   * @return what does not conform; empty if it does
   */
  public List<String> check(
      String method,
      String template,
      int status,
      Function<String, Optional<String>> header,
      String body) {
    String operation = method.toUpperCase(Locale.ROOT) + " " + template;
    List<String> failures = new ArrayList<>();
    JsonNode op = doc.path("paths").path(template).path(method.toLowerCase(Locale.ROOT));
    if (op.isMissingNode()) {
      failures.add(operation + " is not documented");
      return failures;
    }
    JsonNode response = resolve(op.path("responses").path(Integer.toString(status)));
    if (response.isMissingNode()) {
      failures.add(operation + ": status " + status + " is not documented");
      return failures;
    }
    String where = operation + " " + status;
    checkHeaders(where, response, header, failures);
    JsonNode content = response.path("content");
    String contentType = header.apply("Content-Type").orElse("");
    String media = contentType.split(";")[0].trim().toLowerCase(Locale.ROOT);
    boolean hasBody = body != null && !body.isEmpty();
    if (content.isMissingNode() || content.isEmpty()) {
      if (hasBody && !"HEAD".equalsIgnoreCase(method)) {
        failures.add(where + ": a body where the document declares none");
      }
    } else if (hasBody || !"HEAD".equalsIgnoreCase(method)) {
      JsonNode declared = content.path(media);
      if (declared.isMissingNode()) {
        failures.add(
            where + ": media type '" + media + "' not declared " + content.propertyNames());
      } else if (media.endsWith("json")) {
        JsonNode instance;
        try {
          instance = Http.JSON.readTree(body);
        } catch (RuntimeException e) {
          failures.add(where + ": body is not JSON");
          return failures;
        }
        for (Error e : schema(declared.path("schema")).validate(instance)) {
          failures.add(where + ": " + e.getInstanceLocation() + " " + e.getMessage());
        }
        if (media.equals("application/problem+json") && instance.path("status").asInt() != status) {
          failures.add(where + ": problem status " + instance.path("status") + " is not " + status);
        }
      }
    }
    if (failures.isEmpty()) {
      checked.computeIfAbsent(operation, k -> ConcurrentHashMap.newKeySet()).add(status);
    }
    return failures;
  }

  private void checkHeaders(
      String where,
      JsonNode response,
      Function<String, Optional<String>> header,
      List<String> failures) {
    for (Map.Entry<String, JsonNode> h : response.path("headers").properties()) {
      JsonNode declared = resolve(h.getValue());
      Optional<String> value = header.apply(h.getKey());
      if (value.isEmpty()) {
        if (declared.path("required").asBoolean(false)) {
          failures.add(where + ": required header " + h.getKey() + " is missing");
        }
        continue;
      }
      JsonNode schemaNode = declared.path("schema");
      JsonNode instance;
      if ("integer".equals(schemaNode.path("type").asString(""))) {
        try {
          instance = Http.JSON.getNodeFactory().numberNode(Long.parseLong(value.get().trim()));
        } catch (NumberFormatException e) {
          failures.add(where + ": header " + h.getKey() + " is not an integer: " + value.get());
          continue;
        }
      } else {
        instance = Http.JSON.getNodeFactory().stringNode(value.get());
      }
      for (Error e : schema(schemaNode).validate(instance)) {
        failures.add(where + ": header " + h.getKey() + " " + e.getMessage());
      }
    }
  }

  /** A {@code $ref} to {@code #/components/…} resolved, or the node itself. */
  private JsonNode resolve(JsonNode node) {
    JsonNode ref = node.path("$ref");
    if (!ref.isString()) {
      return node;
    }
    JsonNode target = doc.at(ref.asString().substring(1));
    return resolve(target);
  }

  /** Whether {@code instance} is valid under {@code schema}, a schema of the document. */
  public boolean valid(JsonNode schema, JsonNode instance) {
    return schema(schema).validate(instance).isEmpty();
  }

  /**
   * The schema of {@code node} with the document's components beside it, so that its {@code
   * #/components/schemas/…} references resolve within one JSON Schema resource.
   */
  private Schema schema(JsonNode node) {
    return schemas.computeIfAbsent(
        node.toString(),
        text -> {
          ObjectNode wrapper = Http.JSON.createObjectNode();
          wrapper.put("$schema", "https://json-schema.org/draft/2020-12/schema");
          wrapper.set("components", doc.get("components"));
          wrapper.putArray("allOf").add(node);
          return registry.getSchema(wrapper.toString());
        });
  }
}
