package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.OpenApiResponses;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The response checker of {@code OpenApiResponsesTest} refuses what the document does not allow, so
 * that test's passing means something: each case here breaks one rule of the document.
 */
class OpenApiResponsesCheckTest {
  static final String P = "/v1/projects/{projectId}";
  static final String DIGEST = "sha256:" + "ab".repeat(32);
  static final String PROPOSAL =
      "{\"proposalId\":\"prp-1\",\"approvalId\":\"apr-1\",\"projectId\":\"demo\","
          + "\"actionRef\":\"r1\",\"action\":{\"type\":\"remove\",\"package\":\"x\","
          + "\"version\":\"1\",\"artifactDigest\":null},\"actionDigest\":\""
          + DIGEST
          + "\",\"proposedBy\":\"alice\",\"state\":\"pending\",\"createdAtMs\":1,"
          + "\"updatedAtMs\":1,\"createdAt\":\"1970-01-01T00:00:00.001Z\","
          + "\"updatedAt\":\"1970-01-01T00:00:00.001Z\"}";

  final OpenApiResponses api = OpenApiResponses.load();

  static Function<String, Optional<String>> headers(Map<String, String> h) {
    return name ->
        h.entrySet().stream()
            .filter(e -> e.getKey().equalsIgnoreCase(name))
            .map(Map.Entry::getValue)
            .findFirst();
  }

  static String problem(int status, String code) {
    return "{\"type\":\"urn:qinglong:problem:"
        + code
        + "\",\"title\":\"t\",\"status\":"
        + status
        + ",\"detail\":\"d\",\"error\":{\"code\":\""
        + code
        + "\"}}";
  }

  @Test
  void aConformingProposalAndProblemPass() {
    Map<String, String> json = Map.of("Content-Type", "application/json");
    assertThat(
            api.check(
                "GET", P + "/plugin-packages/proposals/{proposalId}", 200, headers(json), PROPOSAL))
        .isEmpty();
    assertThat(
            api.check(
                "GET",
                P + "/plugin-packages/proposals",
                429,
                headers(
                    Map.of(
                        "Content-Type", "application/problem+json",
                        "Retry-After", "7",
                        "RateLimit-Policy", "\"plugin-package.inspect\";q=600;w=60;qu=\"requests\"",
                        "RateLimit", "\"plugin-package.inspect\";r=0;t=7")),
                problem(429, "quota_exceeded")))
        .isEmpty();
  }

  @Test
  void everyBrokenRuleIsReported() {
    Map<String, String> json = Map.of("Content-Type", "application/json");
    String proposal = P + "/plugin-packages/proposals/{proposalId}";
    // A required member missing, a member of the wrong type, an unknown state.
    assertThat(
            api.check(
                "GET",
                proposal,
                200,
                headers(json),
                PROPOSAL.replace("\"proposedBy\":\"alice\",", "")))
        .isNotEmpty();
    assertThat(
            api.check(
                "GET",
                proposal,
                200,
                headers(json),
                PROPOSAL.replace("\"createdAtMs\":1", "\"createdAtMs\":\"1\"")))
        .isNotEmpty();
    assertThat(api.check("GET", proposal, 200, headers(json), PROPOSAL.replace("pending", "open")))
        .isNotEmpty();
    // A status the operation does not document, and a media type it does not declare.
    assertThat(api.check("GET", proposal, 418, headers(json), PROPOSAL)).isNotEmpty();
    assertThat(
            api.check(
                "GET", proposal, 200, headers(Map.of("Content-Type", "text/plain")), PROPOSAL))
        .isNotEmpty();
    // An error code outside the enum, a problem whose status is not the HTTP status.
    Map<String, String> problemType = Map.of("Content-Type", "application/problem+json");
    assertThat(api.check("GET", proposal, 409, headers(problemType), problem(409, "gone")))
        .isNotEmpty();
    assertThat(
            api.check("GET", proposal, 409, headers(problemType), problem(400, "invalid_request")))
        .isNotEmpty();
    // A 201 without its required Location; malformed rate-limit fields; a long 503 Retry-After.
    assertThat(api.check("POST", P + "/plugin-packages/proposals", 201, headers(json), PROPOSAL))
        .anyMatch(f -> f.contains("Location"));
    assertThat(
            api.check(
                "GET",
                proposal,
                200,
                headers(Map.of("Content-Type", "application/json", "RateLimit", "r=5, t=3")),
                PROPOSAL))
        .anyMatch(f -> f.contains("RateLimit"));
    assertThat(
            api.check(
                "GET",
                proposal,
                503,
                headers(Map.of("Content-Type", "application/problem+json", "Retry-After", "30")),
                problem(503, "unavailable")))
        .anyMatch(f -> f.contains("Retry-After"));
    // A 429 without Retry-After.
    assertThat(
            api.check(
                "GET",
                P + "/plugin-packages/proposals",
                429,
                headers(problemType),
                problem(429, "quota_exceeded")))
        .anyMatch(f -> f.contains("Retry-After"));
  }
}
