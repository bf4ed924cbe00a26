package dev.qinglong.app.http;

import dev.qinglong.app.http.Problems.Problem;
import dev.qinglong.core.kernel.ConflictException;
import dev.qinglong.core.kernel.ForbiddenException;
import dev.qinglong.core.kernel.IdempotencyKeyReusedException;
import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.quota.QuotaExceededException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.ErrorResponse;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.NoHandlerFoundException;
import org.springframework.web.servlet.resource.NoResourceFoundException;

/** Maps every exception that reaches MVC to a problem document (docs/api.md#errors). */
@RestControllerAdvice
public class ApiExceptionHandler {
  private static final Logger log = LoggerFactory.getLogger(ApiExceptionHandler.class);

  /** Resolved once at start (a refusal must not pay for a bean lookup); empty without a quota. */
  private final Optional<RefusalAudit> refusals;

  ApiExceptionHandler(Optional<RefusalAudit> refusals) {
    this.refusals = refusals;
  }

  @ExceptionHandler(ValidationException.class)
  ResponseEntity<Problem> invalid(ValidationException e) {
    return Problems.entity(ProblemType.INVALID_REQUEST, "Invalid " + e.getMessage() + ".");
  }

  /** The message of a refusal that only a global administrator passes. */
  public static final String GLOBAL_ADMIN_ONLY = "global administrators only";

  @ExceptionHandler(ForbiddenException.class)
  ResponseEntity<Problem> forbidden(ForbiddenException e) {
    String message = e.getMessage() == null ? "" : e.getMessage();
    String detail =
        message.startsWith("four-eyes")
            ? "The proposer of a plugin-package action cannot decide it (four-eyes rule)."
            : message.equals(GLOBAL_ADMIN_ONLY)
                ? "Only a global administrator can read the download gateways."
                : "The Project Policy does not allow this operation.";
    return Problems.entity(ProblemType.FORBIDDEN, detail);
  }

  @ExceptionHandler(ConflictException.class)
  ResponseEntity<Problem> conflict(ConflictException e) {
    return Problems.entity(
        ProblemType.CONFLICT,
        "The request conflicts with the stored state, or the object does not exist in this"
            + " project.");
  }

  @ExceptionHandler(IdempotencyKeyReusedException.class)
  ResponseEntity<Problem> keyReused(IdempotencyKeyReusedException e) {
    return Problems.entity(
        ProblemType.IDEMPOTENCY_KEY_REUSED,
        "This idempotency id already names a different request (another target or body); use a"
            + " new id for a new request. Nothing was counted or changed.");
  }

  /**
   * A management quota refusal writes its {@code quota.rejected} line only when it is its bucket's
   * first in the window ({@link RefusalAudit}, where the process has a management quota; without
   * one every refusal is audited); the later ones are counted in the window's summary line instead
   * (docs/operations.md).
   */
  @ExceptionHandler(QuotaExceededException.class)
  ResponseEntity<Problem> quota(QuotaExceededException e, HttpServletRequest request) {
    if (refusals.map(audit -> audit.first(e.bucket(), e.windowStartedAtMs())).orElse(true)) {
      auditQuotaRejection(request, "management", e.retryAfterSeconds());
    }
    return Problems.entity(
        ProblemType.QUOTA_EXCEEDED,
        "The management quota of this operation is used up for the current window.",
        RateLimitHeaders.refusal(
            e.retryAfterSeconds(), List.of(RateLimitHeaders.of(e.rateLimit()))));
  }

  /**
   * Audit event {@code quota.rejected}: the route (its pattern, never the raw path), the Project
   * from the path, the user and the retry time. Public for the model quota's own handler.
   */
  public static void auditQuotaRejection(
      HttpServletRequest request, String quota, long retryAfterSeconds) {
    Object pattern = request.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
    Object variables = request.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE);
    Object projectId = variables instanceof Map<?, ?> map ? map.get("projectId") : null;
    var authentication =
        org.springframework.security.core.context.SecurityContextHolder.getContext()
            .getAuthentication();
    AuditLog.event("quota.rejected")
        .with("quota", quota)
        .with("method", request.getMethod())
        .with("route", pattern)
        .with("projectId", projectId)
        .with("userId", authentication == null ? null : authentication.getName())
        .with("retryAfterSeconds", retryAfterSeconds)
        .log();
  }

  @ExceptionHandler(StoreUnavailableException.class)
  ResponseEntity<Problem> unavailable(StoreUnavailableException e) {
    log.warn("request.unavailable reason={}", e.getMessage());
    return Problems.entity(
        ProblemType.UNAVAILABLE,
        "The store cannot give a definite answer now; retry later.",
        Map.of("Retry-After", databaseRetryAfter()));
  }

  @ExceptionHandler(HttpMessageNotReadableException.class)
  ResponseEntity<Problem> unreadable(
      HttpMessageNotReadableException e, HttpServletRequest request) {
    if (RequestShieldFilter.bodyTooLarge(request)) {
      return Problems.entity(ProblemType.PAYLOAD_TOO_LARGE, RequestShieldFilter.TOO_LARGE_DETAIL);
    }
    return Problems.entity(
        ProblemType.INVALID_REQUEST, "The request body is missing or is not valid JSON.");
  }

  @ExceptionHandler(HttpMediaTypeNotSupportedException.class)
  ResponseEntity<Problem> mediaType(HttpMediaTypeNotSupportedException e) {
    // Documented choice: a wrong Content-Type is 400 invalid_request (the error codes have no 415).
    // The accepted types come from the route's mapping, never from the request.
    boolean raw =
        e.getSupportedMediaTypes().stream()
            .anyMatch(MediaType.APPLICATION_OCTET_STREAM::equalsTypeAndSubtype);
    return Problems.entity(
        ProblemType.INVALID_REQUEST,
        raw
            ? "The request body must be sent as application/octet-stream."
            : "The request body must be sent as application/json.");
  }

  @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
  ResponseEntity<Problem> method(HttpRequestMethodNotSupportedException e) {
    Set<HttpMethod> allowed = e.getSupportedHttpMethods();
    Set<String> names = new TreeSet<>();
    if (allowed != null) {
      allowed.forEach(m -> names.add(m.name()));
    }
    if (names.contains("GET")) {
      names.add("HEAD"); // every GET route answers HEAD too
    }
    String allow = String.join(", ", names);
    return Problems.entity(
        ProblemType.METHOD_NOT_ALLOWED,
        "This route does not support the request method.",
        Map.of("Allow", allow));
  }

  @ExceptionHandler({NoResourceFoundException.class, NoHandlerFoundException.class})
  ResponseEntity<Problem> notFound(Exception e) {
    return Problems.entity(ProblemType.NOT_FOUND, "No such route.");
  }

  @ExceptionHandler(Exception.class)
  ResponseEntity<Problem> unexpected(Exception e, HttpServletResponse servletResponse) {
    if (e instanceof ErrorResponse response) {
      ProblemType type = ProblemType.forStatus(response.getStatusCode().value());
      if (type != ProblemType.UNAVAILABLE) {
        return Problems.entity(type, "The request could not be processed.");
      }
    }
    // Undetermined outcome: fail closed with 503, never leak the cause.
    log.error("request.failed unexpectedly", e);
    if (servletResponse.isCommitted()) {
      return null; // the answer is already out: nothing can be added to it
    }
    return Problems.entity(
        ProblemType.UNAVAILABLE,
        "The request could not be completed; retry later.",
        Map.of("Retry-After", databaseRetryAfter()));
  }

  /** Longest {@code Retry-After} of a database fault, in seconds. */
  static final int MAX_DATABASE_RETRY_AFTER = 3;

  /**
   * A short, jittered {@code Retry-After} (1..{@value #MAX_DATABASE_RETRY_AFTER} s) for a 503 the
   * database caused: long enough not to hammer a failing-over database, and spread so that the
   * clients it refused together do not all come back in the same second.
   */
  static String databaseRetryAfter() {
    return Integer.toString(
        1 + java.util.concurrent.ThreadLocalRandom.current().nextInt(MAX_DATABASE_RETRY_AFTER));
  }
}
