package dev.qinglong.benchmarks;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * The harness's HTTP client: one JDK {@link HttpClient} (HTTP/1.1, keep-alive) per app, JSON
 * bodies, bearer tokens. A call that answers an unexpected status throws with the status and body.
 */
final class Http {
  static final ObjectMapper JSON = JsonMapper.builder().build();

  private final BenchApp app;
  private final HttpClient client;

  Http(BenchApp app) {
    this.app = app;
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
  }

  HttpClient client() {
    return client;
  }

  HttpRequest.Builder request(String user, String path) {
    return HttpRequest.newBuilder(URI.create(app.base() + path))
        .timeout(Duration.ofSeconds(60))
        .header("Authorization", "Bearer " + app.token(user));
  }

  /** Sends JSON with {@code method}; returns the response (any status). */
  HttpResponse<String> send(String method, String user, String path, String json) throws Exception {
    HttpRequest r =
        request(user, path)
            .header("Content-Type", "application/json")
            .method(method, HttpRequest.BodyPublishers.ofString(json))
            .build();
    return client.send(r, HttpResponse.BodyHandlers.ofString());
  }

  /** Sends JSON and requires one of {@code expected}; returns the parsed body. */
  JsonNode expect(String method, String user, String path, String json, int... expected)
      throws Exception {
    HttpResponse<String> r = send(method, user, path, json);
    for (int status : expected) {
      if (r.statusCode() == status) {
        return r.body().isEmpty() ? null : JSON.readTree(r.body());
      }
    }
    throw unexpected(method + " " + path, r);
  }

  static IllegalStateException unexpected(String what, HttpResponse<?> r) {
    return new IllegalStateException(what + " answered " + r.statusCode() + ": " + r.body());
  }
}
