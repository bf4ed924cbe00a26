package dev.qinglong.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.TestApp;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
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
 * The management-quota policy in a real headless Chromium (SQLite, dev tokens; {@code admin} is the
 * global administrator, carol is made a Project administrator): admin changes the Project's propose
 * limit and shadow limit, sees every changed field's old and new value in the in-page confirmation,
 * confirms, and the quota view then shows the new limit with its source "project", as the API does;
 * Cancel sends nothing, and a value outside 1..1000 is refused before anything is sent; admin sets
 * alice's override, which alice's own view shows as source "user"; carol sees the policy, the
 * override and the request alice's shadow limit would have refused, read-only (no input and no
 * button); bob, no Project administrator, sees no policy at all.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleQuotaPolicyBrowserTest {
  private static final String PROPOSE = "plugin-package.propose";
  private static final String DECIDE = "plugin-package.decide";

  @TempDir static Path dir;
  private TestApp app;
  private ConsoleBrowser console;
  private ChromeDriver browser;
  private WebDriverWait wait;

  @BeforeAll
  void start() throws IOException {
    app = TestApp.start(dir.resolve("data"));
    app.grant("demo", "carol", "project.admin");
    console = ConsoleBrowser.start(app, dir.resolve("chromium-profile"));
    browser = console.driver;
    wait = console.wait;
  }

  @AfterAll
  void stop() {
    ConsoleBrowser.closeAll(console, app);
  }

  @Test
  @Order(1)
  void aGlobalAdminChangesTheProjectLimitAfterSeeingOldAndNew() {
    console.signIn("admin");
    console.tab("quota");
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("qp-project-form")));
    assertThat(quotaCell("limit", "propose")).isEqualTo("30");
    assertThat(quotaCell("limit-source", "propose")).isEqualTo("default");
    assertThat(quotaCell("shadow-limit", "propose")).isEqualTo("none");
    assertThat(browser.findElement(By.id("qp-revision")).getText()).contains("never set a policy");

    console.type("qp-project-limit-" + PROPOSE, "5");
    console.type("qp-project-shadow-" + PROPOSE, "3");
    browser.findElement(By.id("qp-project-save")).click();
    WebElement dialog =
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("confirm-dialog")));
    assertThat(changeRows())
        .containsExactly("propose limit not set (default 30) 5", "propose shadow limit none 3");
    screenshot("quota-policy-confirm");
    // The PUT answers only once the change is in force on every replica (about a second): the
    // form says it is busy meanwhile, its controls disabled. The page itself records whether that
    // state was ever shown (a stalled test thread could poll past it).
    browser.executeScript(
        "window.qlBusySeen = false;"
            + "new MutationObserver(() => {"
            + "  const save = document.getElementById('qp-project-save');"
            + "  if (document.getElementById('qp-project-busy') && save && save.disabled) {"
            + "    window.qlBusySeen = true;"
            + "  }"
            + "}).observe(document.body, {subtree: true, childList: true, attributes: true});");
    browser.findElement(By.id("confirm-ok")).click();
    wait.until(ExpectedConditions.invisibilityOf(dialog));
    wait.until(
        ExpectedConditions.textToBePresentInElementLocated(
            By.id("qp-project-message"), "Project limits saved: revision 1, set by admin"));
    assertThat(browser.executeScript("return window.qlBusySeen === true"))
        .as("the form showed itself busy, its save button disabled, while the PUT ran")
        .isEqualTo(true);
    assertThat(browser.findElement(By.id("qp-project-save")).isEnabled()).isTrue();

    // The view was read again: the new limit and where it comes from, as the API has them.
    wait.until(d -> quotaCell("limit", "propose").equals("5"));
    assertThat(quotaCell("limit-source", "propose")).isEqualTo("project");
    assertThat(quotaCell("shadow-limit", "propose")).isEqualTo("3");
    assertThat(quotaCell("limit-source", "decide")).isEqualTo("default");
    JsonNode propose = apiQuota("admin", PROPOSE);
    assertThat(propose.get("limit").asInt()).isEqualTo(5);
    assertThat(propose.get("limitSource").asString()).isEqualTo("project");
    assertThat(propose.get("shadowLimit").asInt()).isEqualTo(3);
    assertThat(browser.findElement(By.id("qp-revision")).getText())
        .contains("revision 1, set by admin");
    JsonNode project = apiPolicy("admin").get("project");
    assertThat(project.get("revision").asInt()).isEqualTo(1);
    assertThat(project.get("limits").get(PROPOSE).asInt()).isEqualTo(5);
    assertThat(project.get("shadowLimits").get(PROPOSE).asInt()).isEqualTo(3);
    screenshot("quota-policy-admin");
  }

  @Test
  @Order(2)
  void cancelSendsNothingAndBadInputIsCaughtBeforeSending() {
    console.signIn("admin");
    console.tab("quota");
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("qp-project-form")));
    console.type("qp-project-limit-" + DECIDE, "7");
    browser.findElement(By.id("qp-project-save")).click();
    WebElement dialog =
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("confirm-dialog")));
    assertThat(changeRows()).containsExactly("decide limit not set (default 60) 7");
    browser.findElement(By.id("confirm-cancel")).click();
    wait.until(ExpectedConditions.invisibilityOf(dialog));
    wait.until(
        ExpectedConditions.textToBePresentInElementLocated(
            By.id("qp-project-message"), "Cancelled: nothing was sent."));

    // Outside 1..1000: refused next to the form, no confirmation, nothing sent.
    console.type("qp-project-limit-" + DECIDE, "1001");
    browser.findElement(By.id("qp-project-save")).click();
    wait.until(
        ExpectedConditions.textToBePresentInElementLocated(
            By.id("qp-project-message"), "must be a whole number from 1 to 1000"));
    assertThat(dialog.isDisplayed()).isFalse();

    JsonNode project = apiPolicy("admin").get("project");
    assertThat(project.get("revision").asInt()).isEqualTo(1);
    assertThat(project.get("limits").has(DECIDE)).isFalse();
    assertThat(apiQuota("admin", DECIDE).get("limitSource").asString()).isEqualTo("default");
  }

  @Test
  @Order(3)
  void aGlobalAdminSetsOneUsersOverride() {
    console.signIn("admin");
    console.tab("quota");
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("qp-user-form")));
    console.type("qp-user", "alice");
    console.type("qp-user-limit-" + PROPOSE, "8");
    browser.findElement(By.id("qp-user-save")).click();
    WebElement dialog =
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("confirm-dialog")));
    assertThat(browser.findElement(By.id("confirm-title")).getText()).contains("alice");
    assertThat(changeRows()).containsExactly("propose limit not set 8");
    browser.findElement(By.id("confirm-ok")).click();
    wait.until(ExpectedConditions.invisibilityOf(dialog));
    wait.until(
        ExpectedConditions.textToBePresentInElementLocated(
            By.id("qp-user-message"), "Override of alice saved: revision 1"));
    WebElement users = browser.findElement(By.id("qp-users"));
    wait.until(ExpectedConditions.textToBePresentInElement(users, "propose 8"));
    assertThat(users.getText()).contains("alice");
    JsonNode alice = apiQuota("alice", PROPOSE);
    assertThat(alice.get("limit").asInt()).isEqualTo(8);
    assertThat(alice.get("limitSource").asString()).isEqualTo("user");
    // The Project's shadow limit still applies to her: her override sets only the limit.
    assertThat(alice.get("shadowLimit").asInt()).isEqualTo(3);

    console.signIn("alice");
    console.tab("quota");
    wait.until(d -> quotaCell("limit", "propose").equals("8"));
    assertThat(quotaCell("limit-source", "propose")).isEqualTo("user");
    assertThat(quotaCell("shadow-limit", "propose")).isEqualTo("3");
  }

  @Test
  @Order(4)
  void aProjectAdminSeesThePolicyReadOnly() {
    // alice proposes four times: all admitted (her limit is 8), the fourth over the shadow limit 3.
    for (int i = 1; i <= 4; i++) {
      Http.Response r =
          app.http.post(
              "/v1/projects/demo/plugin-packages/proposals",
              app.token("alice"),
              "{\"actionRef\":\"shadow-"
                  + i
                  + "\",\"action\":{\"type\":\"remove\",\"package\":\"p\",\"version\":\""
                  + i
                  + "\"}}");
      assertThat(r.status()).as(r.body()).isEqualTo(201);
    }

    console.signIn("carol");
    console.tab("quota");
    WebElement section =
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("quota-policy-section")));
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("qp-read-only")));
    assertThat(policyCell("qp-limit", "propose")).isEqualTo("5");
    assertThat(policyCell("qp-shadow", "propose")).isEqualTo("3");
    assertThat(policyCell("qp-limit", "decide")).isEqualTo("not set (default)");
    assertThat(policyCell("qp-default", "decide")).isEqualTo("60");
    assertThat(browser.findElement(By.id("qp-revision")).getText())
        .contains("revision 1, set by admin");
    assertThat(browser.findElement(By.id("qp-users")).getText())
        .contains("alice")
        .contains("propose 8");
    WebElement shadow = browser.findElement(By.id("qp-shadow"));
    List<String> refusals =
        shadow.findElements(By.cssSelector("tbody tr")).stream().map(WebElement::getText).toList();
    assertThat(refusals).hasSize(1);
    assertThat(refusals.get(0)).startsWith("alice propose 4 3 1");
    // Read-only: no input, no button, no form to change anything.
    assertThat(section.findElements(By.cssSelector("#quota-policy input"))).isEmpty();
    assertThat(section.findElements(By.cssSelector("#quota-policy button"))).isEmpty();
    assertThat(browser.findElements(By.id("qp-user-form"))).isEmpty();
    assertThat(browser.findElements(By.id("qp-project-save"))).isEmpty();
    // Her own quota follows the Project's policy.
    assertThat(quotaCell("limit", "propose")).isEqualTo("5");
    assertThat(quotaCell("limit-source", "propose")).isEqualTo("project");
    screenshot("quota-policy-read-only");
    // And the API refuses her a change, as the console's missing controls say.
    Http.Response put =
        app.http.put(
            "/v1/projects/demo/management-quota/policy",
            app.token("carol"),
            "{\"limits\":{\"plugin-package.propose\":100}}");
    assertThat(put.status()).isEqualTo(403);

    // bob is no Project administrator: once his own quota is shown, there is no policy section.
    console.signIn("bob");
    console.tab("quota");
    wait.until(d -> quotaCell("limit", "propose").equals("5"));
    assertThat(browser.findElement(By.id("quota-policy-section")).isDisplayed()).isFalse();
    assertThat(app.http.get("/v1/projects/demo/management-quota/policy", app.token("bob")).status())
        .isEqualTo(403);
  }

  // ---- helpers --------------------------------------------------------------------------------

  /** The confirmation's rows: field, old value, new value. */
  private List<String> changeRows() {
    return browser.findElements(By.cssSelector("#confirm-body tbody tr")).stream()
        .map(WebElement::getText)
        .toList();
  }

  /** The text of the caller's quota table cell {@code column} of an operation. */
  private String quotaCell(String column, String operation) {
    By cell = By.cssSelector("#quota-table ." + column + "[data-operation='" + operation + "']");
    return wait.until(ExpectedConditions.visibilityOfElementLocated(cell)).getText().trim();
  }

  /**
   * The text of a read-only policy cell ({@code qp-limit}, {@code qp-shadow}, {@code qp-default}).
   */
  private String policyCell(String column, String operation) {
    By cell = By.cssSelector("#quota-policy ." + column + "[data-operation='" + operation + "']");
    return wait.until(ExpectedConditions.visibilityOfElementLocated(cell)).getText().trim();
  }

  private JsonNode apiQuota(String user, String operation) {
    Http.Response r = app.http.get("/v1/projects/demo/management-quota", app.token(user));
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    for (JsonNode o : r.json().get("operations")) {
      if (o.get("operation").asString().equals(operation)) {
        return o;
      }
    }
    throw new AssertionError("no " + operation + " in " + r.body());
  }

  private JsonNode apiPolicy(String user) {
    Http.Response r = app.http.get("/v1/projects/demo/management-quota/policy", app.token(user));
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    return r.json();
  }

  /** A screenshot with the policy section at the top of the window. */
  private void screenshot(String view) {
    browser.executeScript("document.getElementById('quota-policy-section').scrollIntoView()");
    console.screenshot(view);
  }
}
