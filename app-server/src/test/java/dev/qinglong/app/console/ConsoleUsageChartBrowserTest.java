package dev.qinglong.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.TestApp;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.JsonNode;

/**
 * The model-usage view's chart of recent windows in a real headless Chromium against the running
 * app (SQLite, AI enabled, a one-minute Project model quota window): usage is created through the
 * API in two windows (admitted and completed invocations, one of them with unknown usage), and the
 * chart's table shows, per window, exactly the totals computed here from the API's own ledger (GET
 * …/model-usage/ledger, grouped by recordedAtMs into the window route's windows). Switching the
 * metric redraws the SVG bars for that metric. A screenshot is written to {@code
 * target/console-screenshots/}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleUsageChartBrowserTest {

  @TempDir static Path dir;
  private TestApp app;
  private ConsoleBrowser console;
  private ChromeDriver browser;
  private WebDriverWait wait;

  @BeforeAll
  void start() throws IOException {
    app = TestApp.start(dir.resolve("data"), Map.of("qinglong.ai.enabled", "true"));
    console = ConsoleBrowser.start(app, dir.resolve("chromium-profile"));
    browser = console.driver;
    wait = new WebDriverWait(browser, Duration.ofSeconds(20));
  }

  @AfterAll
  void stop() {
    ConsoleBrowser.closeAll(console, app);
  }

  @Test
  void theChartTableShowsPerWindowTheTotalsOfTheApisLedger() throws InterruptedException {
    apiOk(
        app.http.put(
            "/v1/projects/demo/members/alice",
            app.token("admin"),
            "{\"permissions\":[\"model.invoke\",\"model.usage.read\"]}"));
    apiOk(
        app.http.put(
            "/v1/projects/demo/model-policies/m1",
            app.token("admin"),
            "{\"maxTotalTokens\":4096,\"maxCostMicros\":5000}"));
    apiOk(
        app.http.put(
            "/v1/projects/demo/model-quota",
            app.token("admin"),
            "{\"window\":\"1m\",\"maxInvocations\":100,\"maxTokens\":1000000,"
                + "\"maxCostMicros\":1000000}"));

    // First window: two known completions and one with unknown usage, with time to spare in it.
    JsonNode w = window();
    if (w.get("windowStartMs").asLong()
            + w.get("windowMs").asLong()
            - w.get("databaseNowMs").asLong()
        < 20_000) {
      awaitNextWindow(w.get("windowStartMs").asLong());
    }
    long firstWindow = windowStart();
    invoke("a1", "{\"inputTokens\":1000,\"outputTokens\":500,\"totalTokens\":1500}", "1200");
    invoke("a2", "{\"inputTokens\":10,\"outputTokens\":20,\"totalTokens\":30}", "7");
    invoke("a3", "null", "null");
    // The next window on the database clock, then one more completion there.
    awaitNextWindow(firstWindow);
    invoke("b1", "{\"inputTokens\":40,\"outputTokens\":2,\"totalTokens\":42}", "99");

    // The expected totals, from the API's ledger (all pages), grouped into the window route's
    // epoch-aligned windows by recordedAtMs.
    long windowMs = window().get("windowMs").asLong();
    assertThat(windowMs).isEqualTo(60_000);
    Map<Long, long[]> expected = new TreeMap<>();
    int entries = 0;
    String cursor = null;
    do {
      Http.Response page =
          app.http.get(
              "/v1/projects/demo/model-usage/ledger?limit=2"
                  + (cursor == null ? "" : "&cursor=" + cursor),
              app.token("alice"));
      apiOk(page);
      for (JsonNode e : page.json().get("items")) {
        entries++;
        long start = Math.floorDiv(e.get("recordedAtMs").asLong(), windowMs) * windowMs;
        long[] t = expected.computeIfAbsent(start, k -> new long[4]);
        t[0]++;
        if (e.get("usage").isNull()) {
          t[3]++;
        } else {
          t[1] += e.get("usage").get("totalTokens").asLong();
        }
        if (!e.get("costMicros").isNull()) {
          t[2] += e.get("costMicros").asLong();
        }
      }
      cursor =
          page.json().get("nextCursor").isNull() ? null : page.json().get("nextCursor").asString();
    } while (cursor != null);
    assertThat(entries).isEqualTo(4);
    // Two windows, or three if the first three invocations ran past their window's end on a slow
    // machine: the rows are checked against whatever windows the ledger has.
    assertThat(expected).hasSizeBetween(2, 3);

    console.signIn("alice");
    browser.findElement(By.cssSelector("button.tab[data-view='usage']")).click();
    WebElement chart = browser.findElement(By.id("usage-chart"));
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#usage-chart table")));
    assertThat(chart.findElement(By.tagName("caption")).getText())
        .contains("Completed invocations per window");
    assertThat(chart.findElements(By.cssSelector("thead th")).stream().map(WebElement::getText))
        .containsExactly(
            "Window start",
            "Invocations",
            "Tokens",
            "Cost (micros)",
            "Completions with unknown usage");
    List<WebElement> rows = chart.findElements(By.cssSelector("tbody tr"));
    assertThat(rows).hasSize(12);
    long shownInvocations = 0;
    for (WebElement row : rows) {
      long start =
          Long.parseLong(
              row.findElement(By.cssSelector("[data-window-start]"))
                  .getAttribute("data-window-start"));
      long[] t = expected.getOrDefault(start, new long[4]);
      assertThat(cell(row, "invocations")).as("invocations of %d", start).isEqualTo(t[0]);
      assertThat(cell(row, "tokens")).as("tokens of %d", start).isEqualTo(t[1]);
      assertThat(cell(row, "cost")).as("cost of %d", start).isEqualTo(t[2]);
      assertThat(cell(row, "unknown")).as("unknown usage of %d", start).isEqualTo(t[3]);
      shownInvocations += cell(row, "invocations");
    }
    // Every ledger entry falls into a row: both windows are among the recent ones shown.
    assertThat(shownInvocations).isEqualTo(entries);

    // The SVG bars: one per window, tokens first; a bar is as tall as its share of the maximum.
    assertThat(chartTitle()).startsWith("Tokens per window, last 12 windows");
    assertBars(expected, 1);
    console.screenshot("usage-chart-tokens");
    new Select(browser.findElement(By.id("usage-metric"))).selectByValue("cost");
    wait.until(d -> chartTitle().startsWith("Cost (micros) per window"));
    assertBars(expected, 2);
    new Select(browser.findElement(By.id("usage-metric"))).selectByValue("invocations");
    wait.until(d -> chartTitle().startsWith("Invocations per window"));
    assertBars(expected, 0);
    console.screenshot("usage-chart");

    List<String> messages = console.logMessages();
    assertThat(messages).noneMatch(m -> m.contains("Content Security Policy"));
    assertThat(messages).noneMatch(m -> m.contains("Refused to"));
    assertThat(messages).noneMatch(m -> m.contains("Uncaught"));
  }

  // ---- helpers --------------------------------------------------------------------------------

  /** The bars' heights are proportional to the expected metric (index into the totals). */
  private void assertBars(Map<Long, long[]> expected, int metric) {
    List<WebElement> bars = browser.findElements(By.cssSelector("#usage-chart-svg rect"));
    assertThat(bars).hasSize(12);
    long max = expected.values().stream().mapToLong(t -> t[metric]).max().orElse(0);
    double tallest =
        bars.stream()
            .mapToDouble(b -> Double.parseDouble(b.getAttribute("height")))
            .max()
            .orElse(0);
    assertThat(tallest).isPositive();
    for (WebElement bar : bars) {
      long start = Long.parseLong(bar.getAttribute("data-window-start"));
      long value = expected.getOrDefault(start, new long[4])[metric];
      double height = Double.parseDouble(bar.getAttribute("height"));
      assertThat(height).as("bar of %d", start).isCloseTo(tallest * value / max, within(1.0));
    }
  }

  /** The SVG's accessible name (an SVG title is not rendered text, so read its textContent). */
  private String chartTitle() {
    return browser
        .findElement(By.cssSelector("#usage-chart-svg > title"))
        .getDomProperty("textContent");
  }

  private static org.assertj.core.data.Offset<Double> within(double d) {
    return org.assertj.core.data.Offset.offset(d);
  }

  private static long cell(WebElement row, String column) {
    return Long.parseLong(row.findElement(By.cssSelector("." + column)).getText().trim());
  }

  private JsonNode window() {
    Http.Response r = app.http.get("/v1/projects/demo/model-usage/window", app.token("alice"));
    apiOk(r);
    return r.json();
  }

  private void awaitNextWindow(long current) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(75).toNanos();
    while (windowStart() == current) {
      assertThat(System.nanoTime()).as("the 1m window never ended").isLessThan(deadline);
      Thread.sleep(1_000);
    }
  }

  private long windowStart() {
    return window().get("windowStartMs").asLong();
  }

  /** A StepRun, its admission and its completion, through the API. */
  private void invoke(String id, String usage, String cost) {
    apiOk(
        app.http.post(
            "/v1/projects/demo/step-runs",
            app.token("alice"),
            "{\"stepRunId\":\"s-" + id + "\",\"runId\":\"r1\",\"modelId\":\"m1\"}"));
    apiOk(
        app.http.post(
            "/v1/projects/demo/model-invocations",
            app.token("alice"),
            "{\"invocationId\":\"" + id + "\",\"stepRunId\":\"s-" + id + "\"}"));
    String outcome = "null".equals(usage) ? "unknown" : "succeeded";
    apiOk(
        app.http.post(
            "/v1/projects/demo/model-invocations/" + id + "/completion",
            app.token("alice"),
            "{\"outcome\":\""
                + outcome
                + "\",\"usage\":"
                + usage
                + ",\"costMicros\":"
                + cost
                + "}"));
  }

  private static void apiOk(Http.Response r) {
    assertThat(r.status()).as(r.body()).isBetween(200, 201);
  }
}
