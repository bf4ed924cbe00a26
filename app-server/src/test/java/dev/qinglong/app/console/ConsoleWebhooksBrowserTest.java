package dev.qinglong.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.TestApp;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.JsonNode;

/**
 * The webhooks view in a real headless Chromium (SQLite, dev tokens, insecure targets allowed for a
 * local receiver): an endpoint registered through the API and a {@code webhook.test} event enqueued
 * through the API are listed by the console for carol, a Project administrator: the endpoint's URL,
 * events and thresholds (never its secret) and the delivery with its shortened event id (the whole
 * id in its title), type, status and attempts, as the API has them; her "Send test event" button
 * enqueues one more, which the log then shows; bob, no Project administrator, is not offered the
 * view.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleWebhooksBrowserTest {
  private static final String HOOK = "/v1/projects/demo/webhooks/ops";

  @TempDir static Path dir;
  private HttpServer receiver;
  private final Set<String> received = ConcurrentHashMap.newKeySet();
  private final Map<String, Delivery> deliveries = new ConcurrentHashMap<>();

  /** What the receiver was sent for one event id (the last attempt's). */
  private record Delivery(String timestamp, String signature, String body) {}

  private TestApp app;
  private ConsoleBrowser console;
  private ChromeDriver browser;
  private WebDriverWait wait;
  private String secret;
  private String firstEvent;

  @BeforeAll
  void start() throws IOException {
    // A local receiver that answers 204 at once and notes each event id it is sent.
    receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    receiver.createContext(
        "/hook",
        exchange -> {
          String body;
          try (InputStream in = exchange.getRequestBody()) {
            body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
          }
          String id = exchange.getRequestHeaders().getFirst("webhook-id");
          if (id != null) {
            deliveries.put(
                id,
                new Delivery(
                    exchange.getRequestHeaders().getFirst("webhook-timestamp"),
                    exchange.getRequestHeaders().getFirst("webhook-signature"),
                    body));
            received.add(id);
          }
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    receiver.start();
    app =
        TestApp.start(
            dir.resolve("data"), Map.of("qinglong.webhooks.allow-insecure-targets", "true"));
    app.grant("demo", "carol", "project.admin");
    console = ConsoleBrowser.start(app, dir.resolve("chromium-profile"));
    browser = console.driver;
    wait = console.wait;
  }

  @AfterAll
  void stop() {
    ConsoleBrowser.closeAll(console, app);
    if (receiver != null) {
      receiver.stop(0);
    }
  }

  @Test
  @Order(1)
  void aProjectAdminSeesTheEndpointAndItsDelivery() {
    String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
    Http.Response put =
        app.http.put(
            HOOK,
            app.token("carol"),
            "{\"url\":\""
                + url
                + "\",\"events\":[\"webhook.test\",\"approval.pending\",\"model-quota.threshold\"],"
                + "\"modelQuotaThresholds\":[0.5,1]}");
    assertThat(put.status()).as(put.body()).isEqualTo(201);
    secret = put.json().get("secret").asString();
    assertThat(secret).startsWith("whsec_");
    Http.Response test = app.http.post(HOOK + "/test", app.token("carol"), "");
    assertThat(test.status()).as(test.body()).isEqualTo(200);
    firstEvent = test.json().get("deliveryId").asString();

    console.signIn("carol");
    console.tab("webhooks");
    assertThat(endpointCell("wh-url", "ops")).isEqualTo(url);
    assertThat(endpointCell("wh-events", "ops"))
        .contains("webhook.test")
        .contains("approval.pending")
        .contains("model-quota.threshold");
    assertThat(endpointCell("wh-thresholds", "ops")).isEqualTo("0.5, 1");

    List<String> row = deliveryRow("ops", firstEvent);
    assertThat(row.get(0)).startsWith(firstEvent.substring(0, 12) + "…").endsWith("Copy");
    assertThat(row.get(1)).isEqualTo("webhook.test");
    // Pending until the worker's attempt, or already delivered.
    assertThat(row.get(2)).isIn("pending", "delivered");

    // The worker delivers it to the receiver; Refresh then shows it delivered, as the API has it.
    wait.until(d -> received.contains(firstEvent));
    wait.until(
        d -> {
          d.findElement(By.id("webhooks-refresh")).click();
          return deliveryRow("ops", firstEvent).get(2).equals("delivered");
        });
    row = deliveryRow("ops", firstEvent);
    JsonNode api = apiDelivery(firstEvent);
    assertThat(api.get("status").asString()).isEqualTo("delivered");
    assertThat(api.get("type").asString()).isEqualTo("webhook.test");
    assertThat(row.get(3)).isEqualTo(String.valueOf(api.get("attempts").asInt())).isEqualTo("1");
    assertThat(row.get(4)).isEqualTo("HTTP 204");
    assertThat(row.get(5)).isEqualTo("—"); // no next attempt once delivered
    assertThat(row.get(6)).isNotEqualTo("—");
    assertThat(row.get(7)).isNotEqualTo("—");

    // The secret is never on the page.
    assertThat(browser.getPageSource()).doesNotContain(secret);
    console.screenshot("webhooks");
  }

  @Test
  @Order(2)
  void theTestButtonEnqueuesAnotherEvent() {
    console.signIn("carol");
    console.tab("webhooks");
    deliveryRow("ops", firstEvent);
    browser.findElement(By.cssSelector("button.wh-test[data-webhook='ops']")).click();
    wait.until(
        ExpectedConditions.textToBePresentInElementLocated(By.id("status"), "Test event msg_"));
    String status = browser.findElement(By.id("status")).getText();
    String second = status.substring(status.indexOf("msg_")).split(" ")[0];
    assertThat(second).isNotEqualTo(firstEvent);
    List<String> row = deliveryRow("ops", second);
    assertThat(row.get(1)).isEqualTo("webhook.test");
    assertThat(apiDelivery(second).get("type").asString()).isEqualTo("webhook.test");
    // Newest first: the new event above the first one.
    List<String> ids =
        browser.findElements(By.cssSelector("#wh-deliveries-ops tbody code[data-id]")).stream()
            .map(c -> c.getAttribute("data-id"))
            .toList();
    assertThat(ids).containsSubsequence(second, firstEvent);
  }

  @Test
  @Order(3)
  void someoneWhoIsNoProjectAdminIsNotOfferedTheView() {
    // The view is not offered to him: no tab, and the view is not shown.
    console.signIn("bob");
    assertThat(
            browser.findElement(By.cssSelector("button.tab[data-view='webhooks']")).isDisplayed())
        .isFalse();
    assertThat(browser.findElement(By.id("view-webhooks")).isDisplayed()).isFalse();
    assertThat(app.http.get("/v1/projects/demo/webhooks", app.token("bob")).status())
        .isEqualTo(403);
  }

  @Test
  @Order(4)
  void aProjectAdminRegistersRotatesAndDeletesAnEndpointSeeingEachSecretOnce() throws Exception {
    String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
    console.signIn("carol");
    console.tab("webhooks");
    WebElement form = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("wh-form")));
    // Checked in the page first: no event chosen, nothing sent.
    console.type("wh-new-id", "made");
    console.type("wh-new-url", url);
    browser.findElement(By.id("wh-save")).click();
    wait.until(
        ExpectedConditions.textToBePresentInElementLocated(
            By.id("wh-form-message"), "Choose at least one event. Nothing was sent."));
    assertThat(app.http.get("/v1/projects/demo/webhooks/made", app.token("carol")).status())
        .isEqualTo(409);

    browser.findElement(By.id("wh-event-webhook.test")).click();
    browser.findElement(By.id("wh-save")).click();
    String first = shownSecret();
    assertThat(first).startsWith("whsec_");
    assertThat(browser.findElement(By.id("wh-secret-copy")).getText()).isEqualTo("Copy");
    assertThat(endpointCell("wh-url", "made")).isEqualTo(url);
    assertThat(form.isDisplayed()).isTrue();
    // The secret signs what the worker sends: a test event verifies with it.
    String one = sendTestFromConsole("made");
    wait.until(d -> received.contains(one));
    assertThat(validSignatures(one, first)).isEqualTo(1);

    // Leaving the view forgets the secret: it is never read back.
    console.tab("members");
    console.tab("webhooks");
    endpointCell("wh-url", "made");
    assertThat(browser.findElement(By.id("wh-secret")).getText()).isEmpty();
    assertThat(browser.getPageSource()).doesNotContain(first);

    // Rotation, after the in-page confirmation: a new secret, once; both sign for 24 hours.
    browser.findElement(By.cssSelector("button.wh-rotate[data-webhook='made']")).click();
    WebElement dialog =
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("confirm-dialog")));
    browser.findElement(By.id("confirm-ok")).click();
    wait.until(ExpectedConditions.invisibilityOf(dialog));
    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("wh-secret"), "(new)"));
    String second = shownSecret();
    assertThat(second).startsWith("whsec_").isNotEqualTo(first);
    String two = sendTestFromConsole("made");
    wait.until(d -> received.contains(two));
    assertThat(validSignatures(two, second)).isEqualTo(1);
    assertThat(validSignatures(two, first)).isEqualTo(1);

    // Delete: Cancel sends nothing, Confirm removes it.
    browser.findElement(By.cssSelector("button.wh-delete[data-webhook='made']")).click();
    wait.until(ExpectedConditions.visibilityOf(dialog));
    browser.findElement(By.id("confirm-cancel")).click();
    wait.until(ExpectedConditions.invisibilityOf(dialog));
    assertThat(app.http.get("/v1/projects/demo/webhooks/made", app.token("carol")).status())
        .isEqualTo(200);
    browser.findElement(By.cssSelector("button.wh-delete[data-webhook='made']")).click();
    wait.until(ExpectedConditions.visibilityOf(dialog));
    browser.findElement(By.id("confirm-ok")).click();
    wait.until(ExpectedConditions.invisibilityOf(dialog));
    wait.until(
        ExpectedConditions.textToBePresentInElementLocated(
            By.id("status"), "Endpoint made deleted"));
    wait.until(d -> d.findElements(By.cssSelector(".wh-url[data-webhook='made']")).isEmpty());
    assertThat(endpointCell("wh-url", "ops")).isEqualTo(url);
    assertThat(app.http.get("/v1/projects/demo/webhooks/made", app.token("carol")).status())
        .isEqualTo(409);
  }

  // ---- helpers --------------------------------------------------------------------------------

  private String shownSecret() {
    return wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("wh-secret-value")))
        .getText()
        .trim();
  }

  /** Clicks an endpoint's "Send test event" and returns the event id the status line names. */
  private String sendTestFromConsole(String webhookId) {
    ((org.openqa.selenium.JavascriptExecutor) browser)
        .executeScript("document.getElementById('status').textContent = ''");
    browser.findElement(By.cssSelector("button.wh-test[data-webhook='" + webhookId + "']")).click();
    wait.until(
        ExpectedConditions.textToBePresentInElementLocated(By.id("status"), "Test event msg_"));
    String status = browser.findElement(By.id("status")).getText();
    return status.substring(status.indexOf("msg_")).split(" ")[0];
  }

  /**
   * How many of the {@code v1,} signatures the receiver got for an event verify with {@code
   * secret}: HMAC-SHA256 of {@code id.timestamp.body} under the base64 key after {@code whsec_}
   * (Standard Webhooks), computed here, independent of the sending code.
   */
  private long validSignatures(String eventId, String secret) throws Exception {
    Delivery d = deliveries.get(eventId);
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(
        new SecretKeySpec(
            Base64.getDecoder().decode(secret.substring("whsec_".length())), "HmacSHA256"));
    String expected =
        "v1,"
            + Base64.getEncoder()
                .encodeToString(
                    mac.doFinal(
                        (eventId + "." + d.timestamp() + "." + d.body())
                            .getBytes(StandardCharsets.UTF_8)));
    return Arrays.stream(d.signature().split(" ")).filter(expected::equals).count();
  }

  private String endpointCell(String column, String webhookId) {
    By cell = By.cssSelector("#webhooks-body ." + column + "[data-webhook='" + webhookId + "']");
    return wait.until(ExpectedConditions.visibilityOfElementLocated(cell)).getText().trim();
  }

  /** The cells of the delivery log row of an event, once the console shows it. */
  private List<String> deliveryRow(String webhookId, String eventId) {
    By row =
        By.xpath(
            "//div[@id='wh-deliveries-"
                + webhookId
                + "']//tbody/tr[.//code[@data-id='"
                + eventId
                + "']]");
    WebElement tr = wait.until(ExpectedConditions.visibilityOfElementLocated(row));
    return tr.findElements(By.tagName("td")).stream().map(td -> td.getText().trim()).toList();
  }

  private JsonNode apiDelivery(String eventId) {
    Http.Response r = app.http.get(HOOK + "/deliveries", app.token("carol"));
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    for (JsonNode d : r.json().get("deliveries")) {
      if (d.get("deliveryId").asString().equals(eventId)) {
        return d;
      }
    }
    throw new AssertionError("no " + eventId + " in " + r.body());
  }
}
