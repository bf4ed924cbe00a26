package dev.qinglong.app.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.StoreInspector;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.gateway.artifacts.FileArtifactStore;
import dev.qinglong.testkit.RawHttp;
import dev.qinglong.testkit.RawHttp.Response;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A hostile client against a running app (role {@code all}, SQLite), over raw sockets where a
 * client library would normalise the request: no body is read before authentication, uploads take
 * only {@code application/octet-stream}, ambiguous input is refused, input is never reflected,
 * unknown routes are 404 for every method, and what the servlet container refuses is a problem
 * document too.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HostileClientTest {
  private static final int UPLOAD_CAP = 4096;
  private static final String FORM = "application/x-www-form-urlencoded";

  @TempDir static Path dataDir;
  private TestApp app;
  private int port;

  @BeforeAll
  void start() {
    app = TestApp.start(dataDir, Map.of("qinglong.artifacts.max-bytes", "" + UPLOAD_CAP));
    port = app.http.port();
  }

  @AfterAll
  void stop() {
    if (app != null) {
      app.close();
    }
  }

  // ---- every 401 alike, Bearer only (dev-tokens mode) -------------------------------------------

  @Test
  void anUnknownDevTokenAndTheDpopSchemeGetTheSame401WithoutAReason() {
    List<Http.Response> answers =
        List.of(
            app.http.get("/v1/projects/demo/members", "no-such-dev-token"),
            app.http.send(
                app.http
                    .builder("/v1/projects/demo/members", null)
                    .header("Authorization", "DPoP " + app.token("alice"))),
            app.http.send(
                app.http
                    .builder("/v1/projects/demo/members", null)
                    .header("Authorization", "DPoP no-such-dev-token")),
            app.http.send(
                app.http
                    .builder("/v1/projects/demo/members", null)
                    .header("Authorization", "Basic YWxpY2U6c2VjcmV0")));
    String first = answers.get(0).comparableBody();
    for (Http.Response r : answers) {
      assertThat(r.status()).as(r.body()).isEqualTo(401);
      assertThat(r.code()).isEqualTo("unauthenticated");
      assertThat(r.raw().headers().allValues("WWW-Authenticate")).containsExactly("Bearer");
      assertThat(r.comparableBody()).isEqualTo(first);
      r.raw()
          .headers()
          .map()
          .forEach(
              (name, values) -> assertThat(values).as(name).noneMatch(v -> v.contains("error")));
    }
  }

  // ---- nothing reads a body before authentication ----------------------------------------------

  @Test
  void aFormBodyOnTheUploadRouteIsNotReadBeforeAuthentication() throws IOException {
    String head =
        "PUT /v1/projects/demo/artifacts/"
            + digest(new byte[] {1})
            + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
            + FORM
            + "\r\nTransfer-Encoding: chunked\r\n\r\n";
    // The body never ends: a server that reads it before answering never answers.
    Response r = RawHttp.answerBeforeBodyEnds(port, head, RawHttp.chunk(formBytes(8192)), 5000);
    assertProblem(r, 401, "unauthenticated");
  }

  @Test
  void aFormBodyOnTheUploadRouteIsRefusedUnreadAfterAuthentication() throws IOException {
    String head =
        "PUT /v1/projects/demo/artifacts/"
            + digest(new byte[] {1})
            + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            + app.token("alice")
            + "\r\nContent-Type: "
            + FORM
            + "\r\nTransfer-Encoding: chunked\r\n\r\n";
    Response r = RawHttp.answerBeforeBodyEnds(port, head, RawHttp.chunk(formBytes(8192)), 5000);
    assertProblem(r, 400, "invalid_request");
  }

  @Test
  void aFormBodyOnAJsonRouteIsNotReadBeforeAuthentication() throws IOException {
    String head =
        "PUT /v1/projects/demo/members/carol HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
            + FORM
            + "\r\nTransfer-Encoding: chunked\r\n\r\n";
    Response r = RawHttp.answerBeforeBodyEnds(port, head, RawHttp.chunk(formBytes(1024)), 5000);
    assertProblem(r, 401, "unauthenticated");
  }

  @Test
  void theUploadRouteTakesOnlyOctetStream() {
    byte[] content = "not json at all".getBytes(StandardCharsets.UTF_8);
    String d = digest(content);
    for (String type : List.of("application/json", FORM, "text/plain", "multipart/form-data")) {
      Http.Response r =
          app.http.method(
              "PUT",
              "/v1/projects/demo/artifacts/" + d,
              app.token("alice"),
              type,
              new String(content, StandardCharsets.UTF_8));
      assertThat(r.status()).as(type).isEqualTo(400);
      assertThat(r.code()).as(type).isEqualTo("invalid_request");
    }
    assertThat(app.bean(FileArtifactStore.class).isPresent(Sha256Digest.parse("d", d))).isFalse();
  }

  @Test
  void aChunkedUploadIsStreamedAndCapped() throws IOException {
    byte[] small = "small artifact".getBytes(StandardCharsets.UTF_8);
    Response ok = chunkedUpload(small, digest(small));
    assertThat(ok.status()).isEqualTo(201);

    byte[] big = new byte[UPLOAD_CAP + 1];
    Response tooBig = chunkedUpload(big, digest(big));
    assertProblem(tooBig, 413, "payload_too_large");
    assertThat(app.bean(FileArtifactStore.class).isPresent(Sha256Digest.parse("d", digest(big))))
        .isFalse();
  }

  private Response chunkedUpload(byte[] content, String digest) throws IOException {
    String head =
        "PUT /v1/projects/demo/artifacts/"
            + digest
            + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            + app.token("alice")
            + "\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n"
            + "Connection: close\r\n\r\n";
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    for (int off = 0; off < content.length; off += 1000) {
      body.writeBytes(
          RawHttp.chunk(
              java.util.Arrays.copyOfRange(content, off, Math.min(content.length, off + 1000))));
    }
    body.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    return RawHttp.exchange(port, head, body.toByteArray());
  }

  // ---- parsing ambiguity, reflection
  // -----------------------------------------------------

  @Test
  void duplicateJsonKeysAreRejected() {
    String before = StoreInspector.sqlite(dataDir).snapshot();
    Http.Response members =
        app.http.put(
            "/v1/projects/demo/members/carol",
            app.token("admin"),
            "{\"permissions\":[\"project.admin\"],\"permissions\":[]}");
    assertThat(members.status()).isEqualTo(400);
    assertThat(members.code()).isEqualTo("invalid_request");

    Http.Response nested =
        app.http.post(
            "/v1/projects/demo/plugin-packages/proposals",
            app.token("alice"),
            "{\"actionRef\":\"dup\",\"action\":{\"type\":\"remove\",\"type\":\"remove\","
                + "\"package\":\"p\",\"version\":\"1\"}}");
    assertThat(nested.status()).isEqualTo(400);
    assertThat(nested.code()).isEqualTo("invalid_request");
    assertThat(StoreInspector.sqlite(dataDir).snapshot()).isEqualTo(before);
  }

  @Test
  void twoAuthorizationHeadersAreRejected() throws IOException {
    for (String second : List.of(app.token("bob"), app.token("alice"), "junk")) {
      Response r =
          RawHttp.exchange(
              port,
              "GET /v1/projects/demo/members HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  + "Authorization: Bearer "
                  + app.token("alice")
                  + "\r\nAuthorization: Bearer "
                  + second
                  + "\r\nConnection: close\r\n\r\n",
              null);
      assertProblem(r, 400, "invalid_request");
    }
  }

  @Test
  void unknownMemberNamesAreNotEchoed() {
    String marker = "Zq7marker";
    String name = marker + "x".repeat(20_000);
    for (String body :
        List.of(
            "{\"actionRef\":\"r\",\"" + name + "\":1}",
            "{\"actionRef\":\"r\",\"action\":{\"type\":\"remove\",\"" + name + "\":1}}",
            "{\"actionRef\":\"" + name + "\"}",
            "{\"" + name)) {
      Http.Response r =
          app.http.post("/v1/projects/demo/plugin-packages/proposals", app.token("alice"), body);
      assertThat(r.status()).isEqualTo(400);
      assertThat(r.code()).isEqualTo("invalid_request");
      assertThat(r.body()).doesNotContain(marker).hasSizeLessThan(1024);
    }
  }

  // ---- routes and what the container refuses ---------------------------------------------------

  @Test
  void unknownApiRoutesAre404ForEveryMethod() throws IOException {
    String token = app.token("alice");
    for (String path :
        List.of(
            "/v1",
            "/v1/",
            "/v1/nope",
            "/v1/projects/demo/nope",
            "/v1/projects/demo/plugin-packages/proposals/p1/nope")) {
      for (String method :
          List.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE")) {
        Response r =
            RawHttp.exchange(
                port,
                method
                    + " "
                    + path
                    + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                    + token
                    + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
                    + "Connection: close\r\n\r\n",
                "{}".getBytes(StandardCharsets.US_ASCII));
        assertThat(r.status()).as(method + " " + path + " " + r).isEqualTo(404);
        assertThat(r.contentType()).as(method + " " + path).startsWith("application/problem+json");
        if (!method.equals("HEAD")) {
          assertThat(r.body()).as(method + " " + path).contains("\"code\":\"not_found\"");
        }
      }
    }
    // A route that exists keeps its 405 with the route's own Allow, TRACE included.
    for (String method : List.of("DELETE", "TRACE")) {
      Response wrongMethod =
          RawHttp.exchange(
              port,
              method
                  + " /v1/projects/demo/members HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  + "Authorization: Bearer "
                  + token
                  + "\r\nConnection: close\r\n\r\n",
              null);
      assertProblem(wrongMethod, 405, "method_not_allowed");
      assertThat(wrongMethod.header("Allow")).as(method).contains("GET, HEAD");
    }
  }

  @Test
  void traceGetsEachRolesAnswer() throws IOException {
    Path readerDir = dataDir.resolve("reader");
    FileArtifactStore.forWriter(readerDir, 1024); // the storage identity a reader verifies
    try (TestApp reader = TestApp.start(readerDir, Map.of("qinglong.role", "reader"));
        TestApp worker =
            TestApp.start(dataDir.resolve("worker"), Map.of("qinglong.role", "worker"))) {
      for (String path : List.of("/v1/nope", "/v1/projects/demo/members")) {
        Response r = trace(reader.http.port(), path);
        assertProblem(r, 405, "method_not_allowed");
        assertThat(r.header("Allow")).contains("GET, HEAD");
        assertProblem(trace(worker.http.port(), path), 404, "not_found");
      }
    }
  }

  private static Response trace(int port, String path) throws IOException {
    return RawHttp.exchange(
        port, "TRACE " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", null);
  }

  @Test
  void errorIsNotARoute() throws IOException {
    for (String method : List.of("GET", "POST", "PUT", "DELETE")) {
      for (String path : List.of("/error", "/error/")) {
        Response r =
            RawHttp.exchange(
                port,
                method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                null);
        assertProblem(r, 404, "not_found");
      }
    }
  }

  @Test
  void requestsTheContainerRefusesAreProblem400s() throws IOException {
    for (String path :
        List.of(
            "/v1/%2e%2e/x",
            "/v1/projects/demo/%2e%2e/%2e%2e/%2e%2e/x",
            "/%2e%2e/etc/passwd",
            "/v1\\projects\\demo\\members",
            "/v1/%00",
            "/v1/projects/demo%00/members",
            "/v1/%zz",
            "/v1/%",
            "/v1/projects%2fdemo/members",
            "/v1/projects/demo/members%5c..",
            "http://x/v1/projects/demo/members",
            "v1/projects/demo/members")) {
      Response r =
          RawHttp.exchange(
              port,
              "GET "
                  + path
                  + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                  + app.token("alice")
                  + "\r\nConnection: close\r\n\r\n",
              null);
      assertThat(r.status()).as(path).isEqualTo(400);
      assertThat(r.contentType()).as(path).startsWith("application/problem+json");
      assertThat(r.body()).as(path).contains("\"code\":\"invalid_request\"").doesNotContain("<");
    }
    // A method Tomcat does not serve, and a header it cannot parse.
    for (String head :
        List.of(
            "CONNECT /v1/nope HTTP/1.1\r\nHost: 127.0.0.1\r\n",
            "GET /v1/projects/demo/members HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: x\r\n",
            "GET /v1/projects/demo/members HTTP/1.1\r\nHost: 127.0.0.1\r\nX: "
                + "y".repeat(20_000)
                + "\r\n")) {
      Response r = RawHttp.exchange(port, head + "Connection: close\r\n\r\n", null);
      assertProblem(r, 400, "invalid_request");
    }
  }

  // ---- helpers ---------------------------------------------------------------------------------

  static void assertProblem(Response r, int status, String code) {
    assertThat(r.status()).as(r.toString()).isEqualTo(status);
    assertThat(r.contentType()).as(r.toString()).startsWith("application/problem+json");
    assertThat(r.body()).as(r.toString()).contains("\"code\":\"" + code + "\"");
    assertThat(r.body()).doesNotContain("Exception", "\tat ", "<html");
  }

  private static byte[] formBytes(int n) {
    byte[] b = ("a=" + "b".repeat(Math.max(0, n - 2))).getBytes(StandardCharsets.US_ASCII);
    return b;
  }

  static String digest(byte[] content) {
    try {
      return "sha256:"
          + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
