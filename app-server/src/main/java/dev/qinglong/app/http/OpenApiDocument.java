package dev.qinglong.app.http;

import dev.qinglong.app.platform.Role;
import dev.qinglong.app.platform.Store;
import dev.qinglong.core.governance.ActionType;
import dev.qinglong.core.governance.Decision;
import dev.qinglong.core.governance.PluginPackageAction;
import dev.qinglong.core.governance.ProposalState;
import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.core.modelquota.InvocationOutcome;
import dev.qinglong.core.modelquota.QuotaWindow;
import dev.qinglong.core.modelquota.StepRunState;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.quota.LimitSource;
import dev.qinglong.core.quota.ManagementQuotaPolicy;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.core.webhooks.DeliveryStatus;
import dev.qinglong.core.webhooks.WebhookEventType;
import dev.qinglong.gateway.lease.StoredLeases;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.JsonSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import io.swagger.v3.oas.models.servers.Server;
import io.swagger.v3.oas.models.tags.Tag;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springdoc.core.customizers.OperationCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The parts of the generated OpenAPI document (springdoc, {@code /v3/api-docs}, checked in as
 * {@code docs/openapi.json}) that the controllers' and records' annotations cannot state: the
 * shared components (identifier and digest grammars and the enums, taken from the constants the
 * core validates with; the problem document; the rate-limit headers; the problem answers) and the
 * rules every {@code /v1} operation follows. The records and controllers refer to these components
 * by the names below.
 */
@Configuration(proxyBeanMethods = false)
public class OpenApiDocument {
  public static final String IDENTIFIER = "#/components/schemas/Identifier";
  public static final String ACTION = "#/components/schemas/Action";
  public static final String PERMISSION = "#/components/schemas/Permission";
  public static final String STATE = "#/components/schemas/State";
  public static final String DECISION = "#/components/schemas/Decision";
  public static final String WINDOW = "#/components/schemas/Window";
  public static final String OUTCOME = "#/components/schemas/Outcome";
  public static final String STEP_RUN_STATE = "#/components/schemas/StepRunState";
  public static final String OPERATION = "#/components/schemas/Operation";
  public static final String LIMIT_SOURCE = "#/components/schemas/LimitSource";
  public static final String OPERATION_LIMITS = "#/components/schemas/OperationLimits";
  public static final String ROLE = "#/components/schemas/Role";
  public static final String STORE = "#/components/schemas/Store";
  public static final String SLOT_STATE = "#/components/schemas/SlotState";
  public static final String EVENT_TYPE = "#/components/schemas/EventType";
  public static final String DELIVERY_STATUS = "#/components/schemas/DeliveryStatus";

  /** The download and upload answers their routes name by {@code @ApiResponse(ref = …)}. */
  public static final String NOT_PUBLISHED = "NotPublished";

  public static final String RANGE_NOT_SATISFIABLE = "RangeNotSatisfiable";
  public static final String DOWNLOAD_UNAVAILABLE = "DownloadUnavailable";
  public static final String UPLOAD_REFUSED = "UploadRefused";
  public static final String UPLOAD_TOO_LARGE = "UploadTooLarge";
  public static final String ETAG = "#/components/headers/ETag";
  public static final String CONTENT_RANGE = "#/components/headers/Content-Range";

  /** The tag of the optional model-quota routes ({@code qinglong.ai.enabled=true}). */
  public static final String MODEL_QUOTA_TAG = "model-quota";

  private static final String DIGEST = "#/components/schemas/Digest";
  private static final String PROBLEM = "#/components/schemas/Problem";
  private static final String PROBLEM_JSON = "application/problem+json";
  private static final String CONFLICT = "Conflict";
  private static final String QUOTA_EXCEEDED = "QuotaExceeded";
  private static final String MODEL_QUOTA_EXCEEDED = "ModelProjectQuotaExceeded";

  /** Every /v1 answer of the shield, authentication and the error handlers, by status. */
  private static final Map<String, String> EVERY_OPERATION =
      Map.of(
          "400", "InvalidRequest",
          "401", "Unauthenticated",
          "403", "Forbidden",
          "405", "MethodNotAllowed",
          "413", "PayloadTooLarge",
          "429", "TooManyRequests",
          "503", "Unavailable");

  /** What an operation answers beyond what every {@code /v1} operation does. */
  public enum Answer {
    /** 201 with {@code Location}; the 200 is the replay of the request's idempotency key. */
    CREATED,
    /** 409 {@code conflict} or {@code idempotency_key_reused}. */
    CONFLICT,
    /** Counted by the management quota: 429 {@code quota_exceeded}, rate-limit fields. */
    QUOTA,
    /** Counted by the model quota: 429 {@code model_project_quota_exceeded}, rate-limit fields. */
    MODEL_QUOTA
  }

  /** The {@link Answer}s of a handler method, for the document. */
  @Retention(RetentionPolicy.RUNTIME)
  @Target(ElementType.METHOD)
  public @interface Answers {
    Answer[] value();
  }

  /**
   * A route any authenticated caller may use: its handler checks no permission, so the document
   * lists no 403 for it (every other {@code /v1} operation may answer 403 {@code forbidden}).
   */
  @Retention(RetentionPolicy.RUNTIME)
  @Target(ElementType.METHOD)
  public @interface AnyCaller {}

  /** Marks, between the two customizers, an operation of an {@link AnyCaller} handler. */
  private static final String ANY_CALLER = "x-qinglong-any-caller";

  /**
   * A keyset-paged list: its handler takes the query parameters {@code limit} and {@code cursor} as
   * strings (checked by {@link QueryParameters} and the core); the document states their bounds.
   */
  @Retention(RetentionPolicy.RUNTIME)
  @Target(ElementType.METHOD)
  public @interface Paged {
    /** The largest page. */
    int max();

    /** The page size when the caller gives none. */
    int byDefault();

    /** The longest cursor accepted. */
    int cursorLength();
  }

  @Bean
  OperationCustomizer qinglongAnswers() {
    return (operation, handler) -> {
      Paged paged = handler.getMethodAnnotation(Paged.class);
      if (paged != null) {
        for (Parameter p : operation.getParameters()) {
          switch (p.getName()) {
            case "limit" ->
                p.schema(
                    typed("integer")
                        .minimum(bound(1))
                        .maximum(bound(paged.max()))
                        ._default(paged.byDefault()));
            // A schema of its own: springdoc may share one instance between the string parameters.
            case "cursor" -> p.schema(typed("string").maxLength(paged.cursorLength()));
            default -> {}
          }
        }
      }
      if (handler.hasMethodAnnotation(AnyCaller.class)) {
        operation.addExtension(ANY_CALLER, true);
      }
      Answers answers = handler.getMethodAnnotation(Answers.class);
      ApiResponses responses = operation.getResponses();
      for (Answer answer : answers == null ? new Answer[0] : answers.value()) {
        switch (answer) {
          case CREATED -> {
            ApiResponse ok = responses.get("200");
            responses.addApiResponse(
                "201", new ApiResponse().description("Created.").content(ok.getContent()));
            ok.description("Exact replay of the idempotency key: the stored answer.");
          }
          case CONFLICT -> responses.addApiResponse("409", new ApiResponse().$ref(CONFLICT));
          case QUOTA -> responses.addApiResponse("429", new ApiResponse().$ref(QUOTA_EXCEEDED));
          case MODEL_QUOTA ->
              responses.addApiResponse("429", new ApiResponse().$ref(MODEL_QUOTA_EXCEEDED));
        }
      }
      return operation;
    };
  }

  @Bean
  OpenAPI qinglongOpenApi() {
    Components components =
        new Components()
            .addSecuritySchemes(
                "bearer",
                new SecurityScheme()
                    .type(SecurityScheme.Type.HTTP)
                    .scheme("bearer")
                    .description(
                        "A dev token (qinglong.auth.mode=dev-tokens) or a JWT whose subject is the"
                            + " user id (qinglong.auth.mode=jwt)."));
    schemas(components);
    headers(components);
    responses(components);
    return new OpenAPI()
        .info(
            new Info()
                .title("QingLong control plane API")
                .version("0.1.0")
                .description(
                    "Plugin-package governance under Project Policy and a durable management"
                        + " quota; streamed artifact uploads, published by the publication worker"
                        + " and downloaded through read gateways under a byte-rate budget; an"
                        + " optional model-invocation quota (tag model-quota, operations marked"
                        + " x-qinglong-feature: ai: they exist only with qinglong.ai.enabled=true"
                        + " and answer 404 not_found otherwise). Every /v1 request needs"
                        + " `Authorization: Bearer <token>`. Errors are RFC 9457 problem documents"
                        + " with `error.code`. Query parameters marked x-qinglong-issued take only"
                        + " values this server issued."))
        .servers(List.of(new Server().url("http://127.0.0.1:8080")))
        .addSecurityItem(new SecurityRequirement().addList("bearer"))
        .tags(
            List.of(
                new Tag().name("plugin-packages"),
                new Tag().name("members"),
                new Tag()
                    .name(MODEL_QUOTA_TAG)
                    .description(
                        "Model-invocation quota: reservation before, settlement after each model"
                            + " call. Only with qinglong.ai.enabled=true."),
                new Tag().name("artifacts"),
                new Tag()
                    .name("webhooks")
                    .description(
                        "Signed webhooks (Standard Webhooks) of a Project's events, written in the"
                            + " transaction of the change they report.")))
        .components(components);
  }

  /**
   * The rules of every {@code /v1} operation: the shared problem answers, path identifiers without
   * the dot segments, issued cursors, the rate-limit fields on the answers of quota-counted
   * operations, {@code Location} on every 201, the optional feature's marker and 404. Required
   * members: a request body (a record that refuses unknown members) requires every member that may
   * not be null (absent is null); an answer has every member (Jackson writes nulls too).
   */
  @Bean
  OpenApiCustomizer qinglongRules() {
    return api -> {
      api.getPaths()
          .forEach(
              (path, item) -> {
                item.readOperations().forEach(OpenApiDocument::rules);
                if (item.getHead() != null) {
                  // GET and HEAD share a handler: springdoc numbers the second one.
                  Operation head = item.getHead();
                  head.setOperationId(head.getOperationId().replaceAll("_[0-9]+$", "") + "Head");
                }
              });
      // Here, not with the other components: springdoc drops the ones nothing names before
      // the customizers run, and only the rules above name this one.
      api.getComponents()
          .addSchemas(
              "PathIdentifier",
              string(pathIdentifier())
                  .minLength(1)
                  .maxLength(Identifiers.MAX_LENGTH)
                  .description(
                      "An identifier in a path segment: the identifier grammar without the dot"
                          + " segments \".\" and \"..\" (a path never carries them to a route;"
                          + " they are 400)."));
      api.getComponents()
          .getSchemas()
          .forEach(
              (name, schema) -> {
                Map<String, Schema> properties = schema.getProperties();
                if (properties == null) {
                  return;
                }
                properties.replaceAll(OpenApiDocument::referenced);
                if (Boolean.FALSE.equals(schema.getAdditionalProperties())) {
                  schema.setRequired(
                      properties.entrySet().stream()
                          .filter(member -> !nullable(member.getValue()))
                          .map(Map.Entry::getKey)
                          .toList());
                } else if (schema.getRequired() == null) {
                  schema.setRequired(new ArrayList<>(properties.keySet()));
                }
              });
      // After the rule above, which would require every member: none of these is required.
      api.getComponents().addSchemas("OperationLimits", operationLimits());
    };
  }

  /**
   * Management-quota limits by operation, as a request sets them and an answer shows them: a member
   * per operation (its wire name), each optional, a whole number 1..{@value
   * ManagementQuotaPolicy#MAX_LIMIT}; no other member.
   */
  private static Schema<?> operationLimits() {
    Schema<Object> limits =
        typed("object")
            .additionalProperties(false)
            .description(
                "Requests per window by operation (wire name); an operation left out is not set"
                    + " here. Whole numbers 1.."
                    + ManagementQuotaPolicy.MAX_LIMIT
                    + "; any other member is 400.");
    for (QuotaOperation op : QuotaOperation.values()) {
      limits.addProperty(
          op.wireName(),
          typed("integer")
              .format("int32")
              .minimum(bound(1))
              .maximum(bound(ManagementQuotaPolicy.MAX_LIMIT)));
    }
    return limits;
  }

  private static void rules(Operation operation) {
    ApiResponses responses = operation.getResponses();
    for (Parameter p :
        operation.getParameters() == null ? List.<Parameter>of() : operation.getParameters()) {
      if ("path".equals(p.getIn())) {
        p.schema(
            ref(p.getName().equals("digest") ? DIGEST : "#/components/schemas/PathIdentifier"));
      } else if (p.getName().equals("cursor")) {
        p.addExtension("x-qinglong-issued", true);
        p.description(
            "An opaque nextCursor this server issued (base64url, no padding); anything else is"
                + " 400.");
        p.getSchema().pattern("^[A-Za-z0-9_-]+$").minLength(1);
      }
    }
    if (operation.getTags() != null && operation.getTags().contains(MODEL_QUOTA_TAG)) {
      operation.addExtension("x-qinglong-feature", "ai");
      responses.addApiResponse("404", new ApiResponse().$ref("NotFoundAi"));
    }
    boolean anyCaller =
        operation.getExtensions() != null && operation.getExtensions().remove(ANY_CALLER) != null;
    if (operation.getExtensions() != null && operation.getExtensions().isEmpty()) {
      operation.setExtensions(null);
    }
    EVERY_OPERATION.forEach(
        (status, name) -> {
          if (!(anyCaller && status.equals("403"))) {
            responses.computeIfAbsent(status, s -> new ApiResponse().$ref(name));
          }
        });
    String limited = responses.get("429").get$ref();
    boolean counted =
        limited != null
            && (limited.endsWith("/" + QUOTA_EXCEEDED)
                || limited.endsWith("/" + MODEL_QUOTA_EXCEEDED));
    responses.forEach(
        (status, response) -> {
          if (response.getHeaders() != null) {
            // springdoc gives every header a style; a reference takes none.
            response.getHeaders().values().stream()
                .filter(h -> h.get$ref() != null)
                .forEach(h -> h.setStyle(null));
          }
          if (status.startsWith("2") && response.get$ref() == null) {
            if (counted) {
              response.addHeaderObject("RateLimit-Policy", headerRef("RateLimit-Policy"));
              response.addHeaderObject("RateLimit", headerRef("RateLimit"));
            }
            if (status.equals("201")) {
              response.addHeaderObject("Location", headerRef("Location"));
            }
          }
        });
  }

  /**
   * A member that names a component ({@code @Schema(ref = …)}) is that component alone, or, where
   * its annotation adds {@code "null"} to the types, that component or null.
   */
  private static Schema referenced(String member, Schema property) {
    if ((member.equals("digest") || member.endsWith("Digest"))
        && property.getTypes() != null
        && property.getTypes().equals(Set.of("string"))) {
      // Every digest member is a content digest of the contract's form.
      return ref(DIGEST).description(property.getDescription());
    }
    Schema items = property.getItems();
    if (items != null && items.get$ref() != null) {
      property.setItems(referenced("", items));
    }
    if (property.get$ref() != null) {
      // A map member naming a component: the component says which members it has (springdoc
      // adds the map's own value schema next to the reference).
      property.setAdditionalProperties(null);
    }
    if (property.get$ref() == null || property.getTypes() == null) {
      return property;
    }
    if (!property.getTypes().contains("null")) {
      property.setTypes(null);
      property.setType(null);
      return property;
    }
    return new JsonSchema()
        .oneOf(List.of(ref(property.get$ref()), typed("null")))
        .description(property.getDescription());
  }

  private static boolean nullable(Schema<?> s) {
    return (s.getTypes() != null && s.getTypes().contains("null"))
        || (s.getOneOf() != null && s.getOneOf().stream().anyMatch(OpenApiDocument::nullable));
  }

  /**
   * The identifier grammar without "." and "..", as alternatives a generator can follow: a first
   * character other than a dot, or one dot and then one, or two dots and then any.
   */
  private static String pathIdentifier() {
    String any = "[" + Identifiers.CHARACTERS + "]";
    String noDot = "[" + Identifiers.CHARACTERS.replace(".", "") + "]";
    int max = Identifiers.MAX_LENGTH;
    return String.format(
        "^(%2$s%1$s{0,%3$d}|\\.%2$s%1$s{0,%4$d}|\\.\\.%1$s{1,%4$d})$",
        any, noDot, max - 1, max - 2);
  }

  private static void schemas(Components c) {
    c.addSchemas(
            "Identifier",
            string("^" + Identifiers.PATTERN + "$").minLength(1).maxLength(Identifiers.MAX_LENGTH))
        .addSchemas("Digest", string("^" + Sha256Digest.PATTERN + "$"))
        .addSchemas("Action", action())
        .addSchemas("Problem", problem());
    Map<String, List<String>> enums = new LinkedHashMap<>();
    enums.put("Permission", wire(Permission.values(), Permission::wireName));
    enums.put("State", wire(ProposalState.values(), ProposalState::wireName));
    enums.put("Decision", wire(Decision.values(), Decision::wireName));
    enums.put("Window", wire(QuotaWindow.values(), QuotaWindow::wireName));
    enums.put("Outcome", wire(InvocationOutcome.values(), InvocationOutcome::wireName));
    enums.put("StepRunState", wire(StepRunState.values(), StepRunState::wireName));
    enums.put("Operation", wire(QuotaOperation.values(), QuotaOperation::wireName));
    enums.put("LimitSource", wire(LimitSource.values(), LimitSource::wireName));
    enums.put("Role", wire(Role.values(), OpenApiDocument::lower));
    enums.put("Store", wire(Store.values(), OpenApiDocument::lower));
    enums.put("SlotState", wire(StoredLeases.State.values(), OpenApiDocument::lower));
    enums.put("EventType", wire(WebhookEventType.values(), WebhookEventType::wireName));
    enums.put("DeliveryStatus", wire(DeliveryStatus.values(), DeliveryStatus::wireName));
    enums.forEach(
        (name, values) -> c.addSchemas(name, typed("string")._enum(new ArrayList<Object>(values))));
  }

  /**
   * A plugin-package action: install and upgrade name the artifact by digest (required), remove
   * names none (absent or null), as {@link PluginPackageAction} decides.
   */
  private static Schema<?> action() {
    List<Schema> branches = new ArrayList<>();
    for (boolean remove : new boolean[] {false, true}) {
      List<Object> types =
          Arrays.stream(ActionType.values())
              .filter(t -> (t == ActionType.REMOVE) == remove)
              .map(t -> (Object) t.wireName())
              .toList();
      Schema<Object> branch =
          typed("object")
              .additionalProperties(false)
              .addProperty("type", typed("string")._enum(types))
              .addProperty("package", string("^" + PluginPackageAction.PACKAGE_PATTERN + "$"))
              .addProperty("version", string("^" + PluginPackageAction.VERSION_PATTERN + "$"))
              .addProperty("artifactDigest", remove ? typed("null") : ref(DIGEST));
      branch.setRequired(
          new ArrayList<>(
              remove
                  ? List.of("type", "package", "version")
                  : List.of("type", "package", "version", "artifactDigest")));
      branches.add(branch);
    }
    return new JsonSchema()
        .oneOf(branches)
        .description(
            "A plugin-package action. install and upgrade name the artifact by digest (required);"
                + " remove names none (artifactDigest absent or null).");
  }

  private static Schema<?> problem() {
    Schema<Object> error =
        typed("object")
            .addProperty(
                "code",
                typed("string")
                    ._enum(
                        Arrays.stream(ProblemType.values())
                            .map(t -> (Object) t.code())
                            .distinct()
                            .toList()));
    error.setRequired(new ArrayList<>(List.of("code")));
    Schema<Object> problem =
        typed("object")
            .description("RFC 9457 problem document with the extension member error.code.")
            .addProperty("type", typed("string").format("uri"))
            .addProperty("title", typed("string"))
            .addProperty("status", typed("integer"))
            .addProperty("detail", typed("string"))
            .addProperty(
                "instance",
                typed("string")
                    .format("uri")
                    .description(
                        "urn:uuid:<request id>: the same id as the X-Request-Id response header"
                            + " and the requestId of the server's log lines for this request."))
            .addProperty("error", error);
    problem.setRequired(new ArrayList<>(List.of("type", "title", "status", "detail", "error")));
    return problem;
  }

  private static void headers(Components c) {
    String policy = "\"[a-z0-9._-]+\";q=[0-9]+;w=[0-9]+(;qu=\"requests\")?";
    String remaining = "\"[a-z0-9._-]+\";r=[0-9]+;t=[0-9]+";
    c.addHeaders(
            "RateLimit-Policy",
            new Header()
                .description(
                    "The quota policies that gated this request (structured-field list): a string"
                        + " item per policy with q (quota), w (window, seconds) and, where a unit"
                        + " is named, qu=\"requests\". Management quota: the operation's wire"
                        + " name, e.g. \"plugin-package.inspect\";q=600;w=60;qu=\"requests\"."
                        + " Model admission: \"invocations\", \"tokens\" and (with a Project cost"
                        + " limit) \"cost-micros\". Present when the quota is enabled (and, for"
                        + " model admission, when the Project has a quota policy).")
                .schema(string("^" + policy + "(, " + policy + ")*$")))
        .addHeaders(
            "RateLimit",
            new Header()
                .description(
                    "What is left of each policy in RateLimit-Policy for this caller: r"
                        + " (remaining) and t (seconds until the window resets; database clock)."
                        + " r=0 on a 429, with t equal to Retry-After.")
                .schema(string("^" + remaining + "(, " + remaining + ")*$")))
        .addHeaders(
            "Location",
            new Header()
                .description("The path of the created resource.")
                .required(true)
                .schema(string("^/v1/projects/" + Identifiers.PATTERN + "/")))
        .addHeaders(
            "ETag",
            new Header()
                .description("The artifact digest as a strong validator: `\"sha256:…\"`.")
                .schema(string("^\"" + Sha256Digest.PATTERN + "\"$")))
        .addHeaders(
            "Content-Range",
            new Header()
                .description("`bytes a-b/size` (a 206), `bytes */size` (a 416).")
                .schema(string("^bytes ([0-9]+-[0-9]+|\\*)/[0-9]+$")))
        .addHeaders(
            "RetryAfterDatabase",
            new Header()
                .description(
                    "Whole seconds to wait: 1..3 when the database is at fault; 1 when the server"
                        + " is at its concurrency limit or a read gateway cannot serve downloads.")
                .schema(typed("integer").minimum(bound(1)).maximum(bound(3))));
  }

  private static void responses(Components c) {
    Header retryAfter =
        new Header()
            .description("Whole seconds until the window ends (rounded up, at least 1).")
            .required(true)
            .schema(typed("integer").minimum(bound(1)));
    c.addResponses(
            "InvalidRequest",
            problem(
                "400 invalid_request: malformed JSON, wrong types, missing or unknown members,"
                    + " ill-formed ids or digests, a value out of bounds, or a Content-Type other"
                    + " than the operation's."))
        .addResponses(
            "Unauthenticated",
            problem(
                    "401 unauthenticated: missing, malformed, unknown, expired or otherwise invalid"
                        + " bearer token, or another scheme than Bearer. Every 401 is the same"
                        + " document, whatever failed.")
                .addHeaderObject(
                    "WWW-Authenticate",
                    new Header()
                        .description("Always exactly Bearer: no error or other reason.")
                        .schema(typed("string")._const("Bearer"))))
        .addResponses(
            "Forbidden",
            problem(
                "403 forbidden: the Project Policy does not allow it (also: the proposer"
                    + " deciding; any Project the caller has no permission in, existing or not)."))
        .addResponses(
            "MethodNotAllowed",
            problem("405 method_not_allowed.")
                .addHeaderObject(
                    "Allow",
                    new Header()
                        .description("The methods the route supports.")
                        .schema(typed("string"))))
        .addResponses(
            CONFLICT,
            problem(
                "409 idempotency_key_reused: an idempotency id (actionRef, decisionId,"
                    + " inspectionId, stepRunId, invocationId, a completion) reused for a"
                    + " different request (another target or body); nothing was counted or"
                    + " changed. 409 conflict: already decided, digest mismatch, state, or no such"
                    + " object in this Project."))
        .addResponses(
            "PayloadTooLarge",
            problem(
                "413 payload_too_large: the body is larger than qinglong.shield.max-body-bytes"
                    + " (64 KiB)."))
        .addResponses(
            "TooManyRequests",
            problem(
                    "429 too_many_requests: too many concurrent requests from this client or user"
                        + " (the shield, before any database work).")
                .addHeaderObject("Retry-After", retryAfter))
        .addResponses(
            QUOTA_EXCEEDED,
            refusedByQuota(
                "429 quota_exceeded: the management quota window is full (durable quota),"
                    + " with RateLimit r=0; 429 too_many_requests: the shield (no RateLimit"
                    + " fields).",
                retryAfter))
        .addResponses(
            MODEL_QUOTA_EXCEEDED,
            refusedByQuota(
                "429 model_project_quota_exceeded: the Project's model quota window has no"
                    + " room for this invocation's worst case; nothing was reserved and the"
                    + " StepRun stays ready. (429 too_many_requests is the shield.)",
                retryAfter))
        .addResponses(
            "Unavailable",
            problem(
                    "503 unavailable: the store cannot give a definite answer (fail closed), or"
                        + " the server is busy.")
                .addHeaderObject("Retry-After", headerRef("RetryAfterDatabase")))
        .addResponses(
            NOT_PUBLISHED,
            problem(
                "409 conflict: the artifact is not published in this Project. Unknown, unpublished"
                    + " and other Projects' artifacts give exactly this answer."))
        .addResponses(
            RANGE_NOT_SATISFIABLE,
            problem(
                    "416 range_not_satisfiable: one range that starts at or past the end. Several"
                        + " ranges or a malformed `Range` are ignored and the whole artifact is"
                        + " sent (200).")
                .addHeaderObject("Content-Range", headerRef("Content-Range")))
        .addResponses(
            DOWNLOAD_UNAVAILABLE,
            problem(
                    "503 unavailable: the store cannot answer, or this read gateway stopped"
                        + " serving payload (retry on another gateway). A download cut off after"
                        + " its headers ends with a short body on a closed connection.")
                .addHeaderObject("Retry-After", headerRef("RetryAfterDatabase")))
        .addResponses(
            UPLOAD_REFUSED,
            problem(
                "400 invalid_request: bad identifier or digest, a Content-Type other than"
                    + " application/octet-stream (the body is not read), or the bytes do not hash"
                    + " to `digest`; nothing is stored."))
        .addResponses(
            UPLOAD_TOO_LARGE,
            problem(
                "413 payload_too_large: larger than `qinglong.artifacts.max-bytes` (from"
                    + " Content-Length, or while streaming); nothing is stored."))
        .addResponses(
            "NotFoundAi",
            problem(
                "404 not_found: the model quota is off (qinglong.ai.enabled=false), so the route"
                    + " does not exist."));
  }

  /** A problem answer: {@code application/problem+json} with the Problem schema. */
  private static ApiResponse problem(String description) {
    return new ApiResponse()
        .description(description)
        .content(new Content().addMediaType(PROBLEM_JSON, new MediaType().schema(ref(PROBLEM))));
  }

  /** A 429 of a quota: its window's end and its rate-limit fields (r=0). */
  private static ApiResponse refusedByQuota(String description, Header retryAfter) {
    return problem(description)
        .addHeaderObject("Retry-After", retryAfter)
        .addHeaderObject("RateLimit-Policy", headerRef("RateLimit-Policy"))
        .addHeaderObject("RateLimit", headerRef("RateLimit"));
  }

  private static Header headerRef(String name) {
    return new Header().$ref("#/components/headers/" + name);
  }

  private static Schema<Object> ref(String ref) {
    return new JsonSchema().$ref(ref);
  }

  private static Schema<Object> typed(String... types) {
    return new JsonSchema().types(new LinkedHashSet<>(List.of(types)));
  }

  private static Schema<Object> string(String pattern) {
    return typed("string").pattern(pattern);
  }

  private static java.math.BigDecimal bound(long value) {
    return java.math.BigDecimal.valueOf(value);
  }

  private static <E> List<String> wire(E[] values, Function<E, String> name) {
    return Arrays.stream(values).map(name).toList();
  }

  private static String lower(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT);
  }
}
