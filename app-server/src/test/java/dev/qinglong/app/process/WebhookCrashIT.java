package dev.qinglong.app.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.standardwebhooks.Webhook;
import dev.qinglong.app.webhooks.delivery.WebhookReceiver;
import dev.qinglong.testkit.AppProcess;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.io.Reader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A webhook delivery survives a SIGKILL of its worker (SQLite, one process): the first attempt
 * fails (500) and is scheduled again; the process is killed while the second attempt waits for the
 * receiver's answer (claimed, nothing recorded); after a restart the claim's lease ends and the
 * event arrives, with the same webhook-id and a valid signature. On PostgreSQL, with two workers,
 * killing the active one during an attempt makes the standby take the worker lock and deliver the
 * event after the claim's lease, with the same id.
 */
class WebhookCrashIT {
  static final Duration START = Duration.ofSeconds(120);
  static final Path LOGS = Path.of("target", "process-logs", "webhook-crash");
  static final HttpClient CLIENT = HttpClient.newHttpClient();

  @TempDir static Path dataDir;
  @TempDir static Path pgDataDir;

  /** Where the dev tokens of the app under test are. */
  private static Path tokensDir;

  private static Map<String, String> props() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("qinglong.data-dir", dataDir.toString());
    p.put("qinglong.webhooks.allow-insecure-targets", "true");
    p.put("qinglong.webhooks.delivery.lease", "11s");
    p.put("qinglong.webhooks.delivery.retry-initial", "500ms");
    p.put("qinglong.webhooks.delivery.retry-max-interval", "500ms");
    return p;
  }

  private static String token(String user) throws Exception {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(tokensDir.resolve("dev-tokens.properties"))) {
      p.load(r);
    }
    return p.getProperty(user);
  }

  private static HttpResponse<String> send(
      AppProcess app, String method, String path, String user, String body) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(app.base() + path))
            .header("Authorization", "Bearer " + token(user))
            .header("Content-Type", "application/json")
            .method(method, HttpRequest.BodyPublishers.ofString(body));
    return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aDeliveryInterruptedBySigkillArrivesAfterTheRestartWithTheSameId() throws Exception {
    tokensDir = dataDir;
    try (WebhookReceiver receiver = new WebhookReceiver()) {
      AppProcess first = AppProcess.start("webhook-1", LOGS, props()).awaitReady(START);
      AppProcess second = null;
      try {
        HttpResponse<String> granted =
            send(
                first,
                "PUT",
                "/v1/projects/crash/members/carol",
                "admin",
                "{\"permissions\":[\"project.admin\"]}");
        assertThat(granted.statusCode()).as(granted.body()).isEqualTo(200);
        HttpResponse<String> put =
            send(
                first,
                "PUT",
                "/v1/projects/crash/webhooks/rx",
                "carol",
                "{\"url\":\"" + receiver.url("/hold-crash") + "\",\"events\":[\"webhook.test\"]}");
        assertThat(put.statusCode()).as(put.body()).isEqualTo(201);
        String secret = match(put.body(), "\"(whsec_[A-Za-z0-9+/=]+)\"");
        receiver.respond("/hold-crash", 500);

        HttpResponse<String> test =
            send(first, "POST", "/v1/projects/crash/webhooks/rx/test", "carol", "");
        assertThat(test.statusCode()).as(test.body()).isBetween(200, 202);
        String id = match(test.body(), "\"(msg_[A-Za-z0-9_-]+)\"");

        // Attempt 1 answered 500; attempt 2 waits for an answer that never comes: kill then.
        await().atMost(Duration.ofSeconds(30)).until(() -> at(receiver).size() == 2);
        first.kill();
        receiver.release();

        second = AppProcess.start("webhook-2", LOGS, props()).awaitReady(START);
        // The killed claim is due again after its 11 s lease.
        await().atMost(Duration.ofSeconds(60)).until(() -> at(receiver).size() >= 3);

        List<WebhookReceiver.Received> got = at(receiver);
        assertThat(got).allSatisfy(r -> assertThat(r.header("webhook-id")).isEqualTo(id));
        for (WebhookReceiver.Received r : got) {
          new Webhook(secret).verify(r.body(), r.webhookHeaders());
        }
        AppProcess restarted = second;
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    send(restarted, "GET", "/v1/projects/crash/webhooks/rx/deliveries", "carol", "")
                        .body()
                        .contains("delivered"));
      } finally {
        first.close();
        if (second != null) {
          second.close();
        }
      }
    }
  }

  private static Map<String, String> pgProps(TestDatabase db, String role) {
    Map<String, String> p = new LinkedHashMap<>(props());
    p.put("qinglong.data-dir", pgDataDir.toString());
    p.put("qinglong.store", "postgres");
    p.put("qinglong.postgres.url", db.jdbcUrl());
    p.put("qinglong.postgres.username", db.username());
    p.put("qinglong.postgres.password", db.password() == null ? "" : db.password());
    p.put("qinglong.postgres.bootstrap-roles", "true");
    p.put("qinglong.webhooks.secret-key", Base64.getEncoder().encodeToString(new byte[32]));
    p.put("qinglong.role", role);
    return p;
  }

  private static boolean active(AppProcess worker) {
    try {
      return worker.body("/actuator/health/readiness").contains("\"worker\":\"active\"");
    } catch (Exception e) {
      return false;
    }
  }

  @Test
  void onPostgresAStandbyWorkerTakesOverADeliveryWhoseActiveWorkerWasKilled() throws Exception {
    tokensDir = pgDataDir;
    TestDatabase db = PostgresTestServer.get().createDatabase("webhook_takeover");
    List<AppProcess> started = new ArrayList<>();
    try (WebhookReceiver receiver = new WebhookReceiver()) {
      AppProcess writer =
          AppProcess.start("pg-writer", LOGS, pgProps(db, "writer")).awaitReady(START);
      started.add(writer);
      AppProcess w1 =
          AppProcess.start("pg-worker-1", LOGS, pgProps(db, "worker")).awaitReady(START);
      started.add(w1);
      AppProcess w2 =
          AppProcess.start("pg-worker-2", LOGS, pgProps(db, "worker")).awaitReady(START);
      started.add(w2);
      await().atMost(Duration.ofSeconds(30)).until(() -> active(w1) || active(w2));

      HttpResponse<String> granted =
          send(
              writer,
              "PUT",
              "/v1/projects/takeover/members/carol",
              "admin",
              "{\"permissions\":[\"project.admin\"]}");
      assertThat(granted.statusCode()).as(granted.body()).isEqualTo(200);
      HttpResponse<String> put =
          send(
              writer,
              "PUT",
              "/v1/projects/takeover/webhooks/rx",
              "carol",
              "{\"url\":\"" + receiver.url("/hold-pg") + "\",\"events\":[\"webhook.test\"]}");
      assertThat(put.statusCode()).as(put.body()).isEqualTo(201);
      String secret = match(put.body(), "\"(whsec_[A-Za-z0-9+/=]+)\"");
      HttpResponse<String> test =
          send(writer, "POST", "/v1/projects/takeover/webhooks/rx/test", "carol", "");
      assertThat(test.statusCode()).as(test.body()).isBetween(200, 202);
      String id = match(test.body(), "\"(msg_[A-Za-z0-9_-]+)\"");

      // The active worker's attempt waits for an answer: kill that worker then.
      await().atMost(Duration.ofSeconds(30)).until(() -> at(receiver, "/hold-pg").size() == 1);
      AppProcess victim = active(w1) ? w1 : w2;
      AppProcess standby = victim == w1 ? w2 : w1;
      victim.kill();
      receiver.release();

      // The standby takes the worker lock, and the claim is due again after its lease.
      await().atMost(Duration.ofSeconds(30)).until(() -> active(standby));
      await().atMost(Duration.ofSeconds(60)).until(() -> at(receiver, "/hold-pg").size() >= 2);
      List<WebhookReceiver.Received> got = at(receiver, "/hold-pg");
      assertThat(got).allSatisfy(r -> assertThat(r.header("webhook-id")).isEqualTo(id));
      for (WebhookReceiver.Received r : got) {
        new Webhook(secret).verify(r.body(), r.webhookHeaders());
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  send(writer, "GET", "/v1/projects/takeover/webhooks/rx/deliveries", "carol", "")
                      .body()
                      .contains("delivered"));
    } finally {
      for (AppProcess p : started) {
        p.close();
      }
    }
  }

  private static List<WebhookReceiver.Received> at(WebhookReceiver receiver, String path) {
    return receiver.received().stream().filter(r -> r.path().equals(path)).toList();
  }

  private static List<WebhookReceiver.Received> at(WebhookReceiver receiver) {
    return receiver.received().stream().filter(r -> r.path().equals("/hold-crash")).toList();
  }

  private static String match(String body, String regex) {
    Matcher m = Pattern.compile(regex).matcher(body);
    assertThat(m.find()).as(body).isTrue();
    return m.group(1);
  }
}
