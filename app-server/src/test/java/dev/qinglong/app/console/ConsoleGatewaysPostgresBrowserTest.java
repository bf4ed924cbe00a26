package dev.qinglong.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.PgApps;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.JsonNode;

/**
 * The console's gateways view in a real headless Chromium against an app on PostgreSQL in shared
 * download mode: the app ({@code all}) holds slot 0 of 2 (started as in {@code
 * GatewaysRoutePostgresTest}). Signed in as {@code admin}, the slots table shows slot 0 held with
 * the generation {@code GET /v1/downloads/gateways} reports, and slot 1 free; the process row shows
 * this process as the holder of slot 0 with that lease generation. A screenshot is written to
 * {@code target/console-screenshots/gateways-shared.png}. A missing Chromium fails the test (see
 * {@link SystemChromium}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleGatewaysPostgresBrowserTest {
  @TempDir static Path dir;
  private TestDatabase db;
  private TestApp app;
  private ConsoleBrowser console;
  private ChromeDriver browser;
  private WebDriverWait wait;

  @BeforeAll
  void start() throws IOException {
    db = PostgresTestServer.get().createDatabase("console_gateways");
    Map<String, String> p = new HashMap<>();
    p.put("qinglong.downloads.mode", "shared");
    p.put("qinglong.downloads.slots", "2");
    p.put("qinglong.downloads.slot", "0");
    p.put("qinglong.downloads.rate-bytes-per-second", "2000000");
    p.put("qinglong.downloads.per-principal-bytes-per-second", "200000");
    app = PgApps.start(db, dir.resolve("data"), p);
    console = ConsoleBrowser.start(app, dir.resolve("chromium-profile"));
    browser = console.driver;
    wait = console.wait;
  }

  @AfterAll
  void stop() {
    ConsoleBrowser.closeAll(console, app);
  }

  @Test
  void theAdminSeesSlotZeroHeldWithTheApisGenerationAndSlotOneFree() throws IOException {
    console.signIn("admin");
    console.tab("gateways");
    wait.until(
        ExpectedConditions.visibilityOfElementLocated(
            By.cssSelector("#gateways-body table.gateways-slots tbody tr")));

    Http.Response r = app.http.get("/v1/downloads/gateways", app.token("admin"));
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    JsonNode api = r.json();
    assertThat(api.get("slots").size()).isEqualTo(2);
    JsonNode zero = api.get("slots").get(0);
    JsonNode one = api.get("slots").get(1);
    assertThat(zero.get("state").asString()).isEqualTo("held");
    long generation = zero.get("generation").asLong();
    assertThat(generation).isPositive();
    assertThat(one.get("state").asString()).isEqualTo("free");

    assertThat(browser.findElement(By.id("gateways-mode")).getText())
        .isEqualTo("Download mode: shared (store postgres)");
    List<List<String>> slots = rows("#gateways-body table.gateways-slots tbody tr");
    assertThat(slots).hasSize(2);
    // Slot, Lease, Generation, Renewed, Expires
    assertThat(slots.get(0).subList(0, 3)).containsExactly("0", "held", Long.toString(generation));
    assertThat(slots.get(0).get(3)).isNotEqualTo("—");
    assertThat(slots.get(0).get(4)).isNotEqualTo("—");
    assertThat(slots.get(1))
        .containsExactly("1", "free", Long.toString(one.get("generation").asLong()), "—", "—");

    // The owner of slot 0 is this process: its row names the slot and the same lease generation.
    JsonNode process = api.get("process");
    assertThat(process.get("slot").asInt()).isZero();
    assertThat(process.get("lease").get("generation").asLong()).isEqualTo(generation);
    List<List<String>> processRow = rows("#gateways-body table.gateways-process tbody tr");
    assertThat(processRow).hasSize(1);
    // Role, Serves downloads, Mode, Slot, Lease, Bytes served, Publication worker
    assertThat(processRow.get(0).subList(0, 5))
        .containsExactly(
            process.get("role").asString(),
            "yes",
            "shared",
            "0",
            process.get("lease").get("state").asString() + ", generation " + generation);

    console.screenshot("gateways-shared");
  }

  private List<List<String>> rows(String css) {
    return browser.findElements(By.cssSelector(css)).stream()
        .map(
            tr ->
                tr.findElements(By.tagName("td")).stream().map(td -> td.getText().trim()).toList())
        .toList();
  }
}
