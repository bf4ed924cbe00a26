package dev.qinglong.app.http;

/** The error codes of the API (docs/api.md#errors), with their HTTP status and a fixed title. */
public enum ProblemType {
  INVALID_REQUEST(400, "invalid_request", "Invalid request"),
  UNAUTHENTICATED(401, "unauthenticated", "Authentication required"),
  FORBIDDEN(403, "forbidden", "Forbidden"),
  NOT_FOUND(404, "not_found", "Not found"),
  METHOD_NOT_ALLOWED(405, "method_not_allowed", "Method not allowed"),
  CONFLICT(409, "conflict", "Conflict"),
  PAYLOAD_TOO_LARGE(413, "payload_too_large", "Payload too large"),
  RANGE_NOT_SATISFIABLE(416, "range_not_satisfiable", "Range not satisfiable"),
  QUOTA_EXCEEDED(429, "quota_exceeded", "Quota exceeded"),
  UNAVAILABLE(503, "unavailable", "Service unavailable"),
  // After QUOTA_EXCEEDED, so forStatus(429) keeps answering quota_exceeded.
  MODEL_PROJECT_QUOTA_EXCEEDED(429, "model_project_quota_exceeded", "Model project quota exceeded"),
  // The shield's own bound on concurrent requests, never the durable quota's quota_exceeded.
  TOO_MANY_REQUESTS(429, "too_many_requests", "Too many requests"),
  // After CONFLICT, so forStatus(409) keeps answering conflict.
  IDEMPOTENCY_KEY_REUSED(409, "idempotency_key_reused", "Idempotency key reused");

  private final int status;
  private final String code;
  private final String title;

  ProblemType(int status, String code, String title) {
    this.status = status;
    this.code = code;
    this.title = title;
  }

  public int status() {
    return status;
  }

  public String code() {
    return code;
  }

  public String title() {
    return title;
  }

  /** The problem's {@code type} URI. */
  public String typeUri() {
    return "urn:qinglong:problem:" + code;
  }

  /** The type a status maps to when a framework component produced the error. */
  public static ProblemType forStatus(int status) {
    for (ProblemType t : values()) {
      if (t.status == status) {
        return t;
      }
    }
    if (status == 415 || status == 406 || (status >= 400 && status < 500)) {
      // Wrong or unacceptable content type and other client errors: documented as 400.
      return INVALID_REQUEST;
    }
    return UNAVAILABLE;
  }
}
