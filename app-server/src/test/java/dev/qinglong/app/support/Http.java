package dev.qinglong.app.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A small HTTP client for the tests: real requests against a running app. */
public final class Http {
  public static final JsonMapper JSON = JsonMapper.builder().build();
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final String base;
  private final int port;

  public Http(int port) {
    this.base = "http://127.0.0.1:" + port;
    this.port = port;
  }

  /** The loopback port the app listens on. */
  public int port() {
    return port;
  }

  /** A response: status, headers, raw body and the body as JSON (null if not JSON). */
  public record Response(int status, HttpResponse<String> raw, JsonNode json) {
    public Optional<String> header(String name) {
      return raw.headers().firstValue(name);
    }

    public String body() {
      return raw.body();
    }

    /**
     * The body as a client compares two answers: a problem's {@code instance} (the per-request id)
     * left out, everything else as sent.
     */
    public String comparableBody() {
      if (json instanceof tools.jackson.databind.node.ObjectNode o && o.has("instance")) {
        tools.jackson.databind.node.ObjectNode copy = o.deepCopy();
        copy.remove("instance");
        return copy.toString();
      }
      return body();
    }

    public String contentType() {
      return header("Content-Type").orElse("");
    }

    public String code() {
      return json == null || json.get("error") == null
          ? null
          : json.get("error").get("code").asString();
    }
  }

  public Response get(String path, String token) {
    return send(builder(path, token).GET());
  }

  public Response post(String path, String token, String body) {
    return send(
        builder(path, token)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  public Response put(String path, String token, String body) {
    return send(
        builder(path, token)
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(body)));
  }

  public Response method(
      String method, String path, String token, String contentType, String body) {
    HttpRequest.Builder b = builder(path, token);
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    return send(
        b.method(
            method,
            body == null
                ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body)));
  }

  public HttpRequest.Builder builder(String path, String token) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return b;
  }

  public Response send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> r = CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
      JsonNode json = null;
      String ct = r.headers().firstValue("Content-Type").orElse("");
      if (ct.contains("json") && !r.body().isEmpty()) {
        json = JSON.readTree(r.body());
      }
      return new Response(r.statusCode(), r, json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
