package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.OpenApiResponses;
import dev.qinglong.core.governance.PluginPackageAction;
import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.kernel.WireNamed;
import dev.qinglong.core.quota.QuotaLimits;
import dev.qinglong.core.quota.QuotaOperation;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The bounds docs/openapi.json states are the server's: a value the document allows is one the core
 * accepts, and for identifiers and actions the other way round too. Each case is decided by the
 * document's own schema and by the core's own check, and the two must agree.
 */
class OpenApiBoundsTest {
  static final JsonNode DOC = read();
  static final SchemaRegistry REGISTRY =
      SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

  static JsonNode read() {
    try {
      return Http.JSON.readTree(Files.readString(OpenApiResponses.DOCUMENT));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static Schema schema(String name) {
    ObjectNode wrapper = Http.JSON.createObjectNode();
    wrapper.put("$schema", "https://json-schema.org/draft/2020-12/schema");
    wrapper.set("components", DOC.get("components"));
    wrapper.put("$ref", "#/components/schemas/" + name);
    return REGISTRY.getSchema(wrapper.toString());
  }

  static boolean valid(Schema schema, String json) {
    return schema.validate(Http.JSON.readTree(json)).isEmpty();
  }

  static final List<String> IDS =
      List.of(
          "a",
          "Z",
          "0",
          "p-1",
          "a.b",
          "a_b:c",
          ".",
          "..",
          "...",
          ".a",
          "..a",
          "a.",
          "",
          " a",
          "a/b",
          "a%2Fb",
          "é",
          "x".repeat(128),
          "x".repeat(129),
          "." + "x".repeat(127),
          ".." + "x".repeat(126),
          ".." + "x".repeat(127));

  @Test
  void bodyIdentifiersAreExactlyTheCoreGrammar() {
    Schema identifier = schema("Identifier");
    for (String id : IDS) {
      assertThat(valid(identifier, Http.JSON.writeValueAsString(id)))
          .as("%s", id)
          .isEqualTo(Identifiers.isValid(id));
    }
  }

  @Test
  void pathIdentifiersAreTheCoreGrammarWithoutTheDotSegments() {
    Schema pathId = schema("PathIdentifier");
    for (String id : IDS) {
      boolean routed = Identifiers.isValid(id) && !id.equals(".") && !id.equals("..");
      assertThat(valid(pathId, Http.JSON.writeValueAsString(id))).as("%s", id).isEqualTo(routed);
    }
    // Every path parameter of the document is one: none admits a dot segment.
    for (var path : DOC.get("paths").properties()) {
      for (var op : path.getValue().properties()) {
        for (JsonNode p : op.getValue().path("parameters")) {
          if (p.path("in").asString().equals("path")
              && !p.path("name").asString().equals("digest")) {
            assertThat(p.path("schema").path("$ref").asString())
                .as("%s %s %s", op.getKey(), path.getKey(), p.path("name"))
                .isEqualTo("#/components/schemas/PathIdentifier");
          }
        }
      }
    }
  }

  static final String DIGEST = "\"sha256:" + "ab".repeat(32) + "\"";

  @Test
  void anActionTheDocumentAllowsIsOneTheCoreAccepts() {
    Schema action = schema("Action");
    String[][] cases = {
      {"install", DIGEST},
      {"install", null},
      {"install", "null"},
      {"upgrade", DIGEST},
      {"upgrade", null},
      {"remove", null},
      {"remove", "null"},
      {"remove", DIGEST},
      {"explode", DIGEST},
    };
    for (String[] c : cases) {
      String json =
          "{\"type\":\""
              + c[0]
              + "\",\"package\":\"x\",\"version\":\"1.2.3\""
              + (c[1] == null ? "" : ",\"artifactDigest\":" + c[1])
              + "}";
      assertThat(valid(action, json)).as(json).isEqualTo(coreAccepts(c[0], c[1]));
    }
  }

  @Test
  void managementQuotaLimitsTheDocumentAllowsAreExactlyTheOnesTheCoreAccepts() {
    Schema request = schema("ManagementQuotaLimitsRequest");
    List<String> names = new ArrayList<>();
    for (QuotaOperation op : QuotaOperation.values()) {
      names.add(op.wireName());
    }
    names.addAll(List.of("plugin-package.publish", "PLUGIN-PACKAGE.PROPOSE", "", "propose"));
    int accepted = 0;
    for (String member : List.of("limits", "shadowLimits")) {
      for (String name : names) {
        for (long value : new long[] {Long.MIN_VALUE, -1, 0, 1, 2, 999, 1000, 1001, 1L << 31}) {
          String json =
              "{\"" + member + "\":{" + Http.JSON.writeValueAsString(name) + ":" + value + "}}";
          boolean core = coreAccepts(member, name, value);
          assertThat(valid(request, json)).as(json).isEqualTo(core);
          accepted += core ? 1 : 0;
        }
      }
    }
    assertThat(accepted).isEqualTo(2 * QuotaOperation.values().length * 4);
    // Absent, null and empty set nothing; both at once is one body.
    for (String json :
        List.of(
            "{}",
            "{\"limits\":null,\"shadowLimits\":null}",
            "{\"limits\":{},\"shadowLimits\":{}}",
            "{\"limits\":{\"plugin-package.propose\":5},\"shadowLimits\":{\"artifact.upload\":1}}")) {
      assertThat(valid(request, json)).as(json).isTrue();
    }
    for (String json :
        List.of(
            "{\"limits\":{\"plugin-package.propose\":1.5}}",
            "{\"limits\":{\"plugin-package.propose\":\"5\"}}",
            "{\"limits\":{\"plugin-package.propose\":true}}",
            "{\"limits\":{\"plugin-package.propose\":null}}",
            "{\"limits\":[]}",
            "{\"extra\":{}}",
            "[]")) {
      assertThat(valid(request, json)).as(json).isFalse();
    }
  }

  /** What the server makes of a whole-number value under an operation name: the core's answer. */
  static boolean coreAccepts(String member, String name, long value) {
    var op = WireNamed.lookup(QuotaOperation.class, name);
    if (op.isEmpty() || value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
      return false; // an unknown operation is refused by the request record, an overflow by JSON
    }
    Map<QuotaOperation, Integer> values = Map.of(op.get(), (int) value);
    try {
      if (member.equals("limits")) {
        new QuotaLimits(values, Map.of());
      } else {
        new QuotaLimits(Map.of(), values);
      }
      return true;
    } catch (ValidationException e) {
      return false;
    }
  }

  static boolean coreAccepts(String type, String digest) {
    String value = digest == null || digest.equals("null") ? null : digest.replace("\"", "");
    try {
      PluginPackageAction.of(type, "x", "1.2.3", value);
      return true;
    } catch (ValidationException e) {
      return false;
    }
  }
}
