package dev.qinglong.app.platform;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.artifacts.ArtifactDownloadController;
import dev.qinglong.app.artifacts.ArtifactUploadController;
import dev.qinglong.app.governance.GovernanceController;
import dev.qinglong.app.governance.MemberReadsController;
import dev.qinglong.app.governance.MembersController;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.gateway.artifacts.FileArtifactStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A role's routes exist only in that role (docs/design.md#process-roles): the controllers of other
 * roles are not registered, and no encoded, doubled-slash, dot-segment, path-parameter or case
 * variant of a path reaches a route the role does not serve. The requests are written byte for byte
 * on a socket, so no client normalises them first. Runs on SQLite: what is checked is the web layer
 * of each role.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RoleRoutesTest {
  private static final String DIGEST =
      "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

  /** Spellings of {@code /v1/projects/demo/<rest>} that a lenient server might route. */
  private static List<String> variants(String rest) {
    return List.of(
        "/v1/projects/demo/" + rest,
        "/v%31/projects/demo/" + rest,
        "/%76%31/projects/demo/" + rest,
        "/v%2531/projects/demo/" + rest,
        "//v1/projects/demo/" + rest,
        "/v1//projects/demo/" + rest,
        "/./v1/projects/demo/" + rest,
        "/v1/./projects/demo/" + rest,
        "/x/../v1/projects/demo/" + rest,
        "/v1/projects/x/../demo/" + rest,
        "/V1/projects/demo/" + rest,
        "/v1;x=y/projects/demo/" + rest,
        "/v1/projects;x=y/demo/" + rest,
        "/v1/projects/demo/" + rest + "/");
  }

  @TempDir static Path dir;
  private TestApp reader;
  private TestApp worker;
  private TestApp writer;

  @BeforeAll
  void start() throws IOException {
    Path readerDir = dir.resolve("reader");
    FileArtifactStore.forWriter(readerDir, 1024); // the storage identity a reader verifies
    reader = TestApp.start(readerDir, Map.of("qinglong.role", "reader"));
    worker = TestApp.start(dir.resolve("worker"), Map.of("qinglong.role", "worker"));
    writer = TestApp.start(dir.resolve("writer"), Map.of("qinglong.role", "writer"));
  }

  @AfterAll
  void stop() {
    for (TestApp app : new TestApp[] {reader, worker, writer}) {
      if (app != null) {
        app.close();
      }
    }
  }

  @Test
  void eachRoleRegistersOnlyItsOwnControllers() {
    assertThat(reader.beanCount(GovernanceController.class)).isZero();
    assertThat(reader.beanCount(MembersController.class)).isZero();
    assertThat(reader.beanCount(ArtifactUploadController.class)).isZero();
    assertThat(reader.beanCount(MemberReadsController.class)).isOne();
    assertThat(reader.beanCount(ArtifactDownloadController.class)).isOne();

    assertThat(worker.beanCount(GovernanceController.class)).isZero();
    assertThat(worker.beanCount(MemberReadsController.class)).isZero();
    assertThat(worker.beanCount(ArtifactUploadController.class)).isZero();
    assertThat(worker.beanCount(ArtifactDownloadController.class)).isZero();

    assertThat(writer.beanCount(GovernanceController.class)).isOne();
    assertThat(writer.beanCount(ArtifactUploadController.class)).isOne();
    assertThat(writer.beanCount(ArtifactDownloadController.class)).isZero();
  }

  @Test
  void noSpellingOfAWriteReachesAReader() throws IOException {
    String body =
        "{\"actionRef\":\"r1\",\"action\":{\"type\":\"remove\",\"package\":\"p\",\"version\":\"1\"}}";
    for (String path : variants("plugin-packages/proposals")) {
      int status = raw(reader, "POST", path, reader.token("alice"), body);
      assertThat(status).as("POST " + path).isIn(400, 404, 405);
    }
    for (String path : variants("members/bob")) {
      int status = raw(reader, "PUT", path, reader.token("admin"), "{\"permissions\":[]}");
      assertThat(status).as("PUT " + path).isIn(400, 404, 405);
    }
    // The canonical spelling gets the documented answer.
    assertThat(raw(reader, "POST", "/v1/projects/demo/plugin-packages/proposals", "x", body))
        .isEqualTo(405);
  }

  @Test
  void noSpellingOfAnApiRouteReachesAWorker() throws IOException {
    for (String path : variants("members")) {
      int status = raw(worker, "GET", path, worker.token("admin"), null);
      assertThat(status).as("GET " + path).isIn(400, 404);
    }
    assertThat(raw(worker, "GET", "/v1/projects/demo/members", worker.token("admin"), null))
        .isEqualTo(404);
  }

  @Test
  void noSpellingOfADownloadReachesAWriter() throws IOException {
    for (String path : variants("artifacts/" + DIGEST)) {
      int status = raw(writer, "GET", path, writer.token("alice"), null);
      assertThat(status).as("GET " + path).isIn(400, 404, 405);
    }
    assertThat(raw(writer, "GET", "/v1/projects/demo/artifacts/" + DIGEST, "x", null))
        .isEqualTo(405);
  }

  /** One HTTP/1.1 request written as is; returns the status code. */
  private static int raw(TestApp app, String method, String path, String token, String body)
      throws IOException {
    byte[] payload = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    StringBuilder head = new StringBuilder();
    head.append(method).append(' ').append(path).append(" HTTP/1.1\r\n");
    head.append("Host: 127.0.0.1\r\n");
    head.append("Authorization: Bearer ").append(token).append("\r\n");
    head.append("Connection: close\r\n");
    if (body != null) {
      head.append("Content-Type: application/json\r\n");
      head.append("Content-Length: ").append(payload.length).append("\r\n");
    }
    head.append("\r\n");
    try (Socket socket = new Socket("127.0.0.1", app.http.port())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
      out.write(payload);
      out.flush();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      int b;
      while ((b = in.read()) != -1 && b != '\n') {
        line.write(b);
      }
      String status = line.toString(StandardCharsets.ISO_8859_1);
      String[] parts = status.split(" ");
      if (parts.length < 2) {
        throw new IOException("no status line for " + method + " " + path + ": " + status);
      }
      return Integer.parseInt(parts[1]);
    }
  }

  @Test
  void theApiViewerIsServedByTheWriterAndByNeitherReaderNorWorker() {
    String version = dev.qinglong.app.http.ApiViewerConfiguration.webjarVersion();
    var index = writer.http.get("/swagger-ui/index.html", null);
    assertThat(index.status()).isEqualTo(200);
    assertThat(index.contentType()).startsWith("text/html");
    assertThat(index.body()).contains("swagger-ui-bundle.js", "qinglong-init.js");
    var init = writer.http.get("/swagger-ui/qinglong-init.js", null);
    assertThat(init.status()).isEqualTo(200);
    assertThat(init.body()).contains("url: \"/v3/api-docs\"", "queryConfigEnabled: false");
    var bundle = writer.http.get("/swagger-ui/swagger-ui-bundle.js", null);
    assertThat(bundle.status()).isEqualTo(200);
    assertThat(bundle.body()).contains("SwaggerUIBundle");
    var redirect = writer.http.get("/swagger-ui/", null);
    assertThat(redirect.status()).isEqualTo(302);
    assertThat(redirect.header("Location"))
        .hasValueSatisfying(l -> assertThat(l).endsWith("/swagger-ui/index.html"));
    for (TestApp app : new TestApp[] {reader, worker}) {
      for (String path :
          List.of(
              "/swagger-ui/",
              "/swagger-ui/index.html",
              "/swagger-ui/swagger-ui-bundle.js",
              "/SWAGGER-UI/index.html",
              "/x/../swagger-ui/index.html",
              "/webjars/swagger-ui/" + version + "/swagger-ui-bundle.js")) {
        var r = app.http.get(path, null);
        assertThat(r.status()).as(path).isEqualTo(404);
        assertThat(r.contentType()).as(path).startsWith("application/problem+json");
      }
    }
  }
}
