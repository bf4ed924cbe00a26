package dev.qinglong.app.artifacts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.PgApps;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code GET /v1/downloads/gateways} on PostgreSQL in shared mode: the app ({@code all}) holds slot
 * 0 of 2, slot 1 is free; a writer sibling (no downloads, no reader pool) lists the same slots.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GatewaysRoutePostgresTest {
  static final String PATH = "/v1/downloads/gateways";
  @TempDir static Path dataDir;
  TestDatabase db;
  TestApp app;
  TestApp writer;

  @BeforeAll
  void start() {
    db = PostgresTestServer.get().createDatabase("app_gateways");
    Map<String, String> p = new HashMap<>();
    p.put("qinglong.downloads.mode", "shared");
    p.put("qinglong.downloads.slots", "2");
    p.put("qinglong.downloads.slot", "0");
    p.put("qinglong.downloads.rate-bytes-per-second", "2000000");
    p.put("qinglong.downloads.per-principal-bytes-per-second", "200000");
    app = PgApps.start(db, dataDir, p);
    writer = PgApps.start(db, dataDir, Map.of("qinglong.role", "writer"));
  }

  @AfterAll
  void stop() {
    if (writer != null) {
      writer.close();
    }
    if (app != null) {
      app.close();
    }
  }

  @Test
  void theAdminSeesThePolicyTheSlotsOnTheDatabaseClockAndThisProcess() {
    Http.Response r = app.http.get(PATH, app.token("admin"));
    assertThat(r.status()).isEqualTo(200);
    JsonNode j = r.json();
    assertThat(j.get("mode").asString()).isEqualTo("shared");
    assertThat(j.get("store").asString()).isEqualTo("postgres");
    assertThat(j.get("policy").get("rateBytesPerSecond").asLong()).isEqualTo(2_000_000);
    assertThat(j.get("policy").get("perPrincipalBytesPerSecond").asLong()).isEqualTo(200_000);
    assertThat(j.get("policy").get("slots").asInt()).isEqualTo(2);
    assertThat(j.get("policy").get("share").get("rateBytesPerSecond").asLong())
        .isEqualTo(1_000_000);
    assertThat(j.get("slots").size()).isEqualTo(2);
    JsonNode zero = j.get("slots").get(0);
    Instant now = Instant.parse(j.get("databaseNow").asString());
    assertThat(zero.get("state").asString()).isEqualTo("held");
    assertThat(Instant.parse(zero.get("expiresAt").asString())).isAfter(now);
    JsonNode process = j.get("process");
    assertThat(process.get("mode").asString()).isEqualTo("shared");
    assertThat(process.get("slot").asInt()).isZero();
    assertThat(process.get("serves").asBoolean()).isTrue();
    assertThat(process.get("lease").get("generation").asLong())
        .isEqualTo(zero.get("generation").asLong())
        .isPositive();
    assertThat(process.get("bytesServed").asLong())
        .isEqualTo(app.bean(DownloadMetrics.class).bytesServed());
    JsonNode one = j.get("slots").get(1);
    assertThat(one.get("state").asString()).isEqualTo("free");
    assertThat(one.get("generation").asLong()).isZero();
    assertThat(one.get("expiresAt").isNull()).isTrue();
    assertThat(j.get("worker").get("runsHere").asBoolean()).isTrue();
  }

  @Test
  void aWriterWithoutDownloadsListsTheSameSlots() {
    Http.Response r = writer.http.get(PATH, writer.token("admin"));
    assertThat(r.status()).isEqualTo(200);
    JsonNode j = r.json();
    assertThat(j.get("mode").asString()).isEqualTo("shared");
    assertThat(j.get("slots").get(0).get("state").asString()).isEqualTo("held");
    assertThat(j.get("slots").get(1).get("state").asString()).isEqualTo("free");
    assertThat(j.get("process").get("role").asString()).isEqualTo("writer");
    assertThat(j.get("process").get("downloads").asBoolean()).isFalse();
    assertThat(j.get("process").get("bytesServed").isNull()).isTrue();
    assertThat(j.get("worker").get("runsHere").asBoolean()).isFalse();
    assertThat(j.get("worker").get("state").isNull()).isTrue();
  }

  @Test
  void nonAdminsGet403AndACutDatabaseA503() {
    Http.Response alice = app.http.get(PATH, app.token("alice"));
    assertThat(alice.status()).isEqualTo(403);
    assertThat(alice.code()).isEqualTo("forbidden");
    app.cutDatabase();
    try {
      Http.Response cut = app.http.get(PATH, app.token("admin"));
      assertThat(cut.status()).isEqualTo(503);
      assertThat(cut.code()).isEqualTo("unavailable");
      assertThat(cut.raw().headers().firstValue("Retry-After")).isPresent();
      assertThat(cut.raw().body()).doesNotContainIgnoringCase("sql").doesNotContain("qinglong.");
    } finally {
      app.restoreDatabase();
    }
  }
}
