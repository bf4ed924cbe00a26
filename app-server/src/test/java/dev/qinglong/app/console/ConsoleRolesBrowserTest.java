package dev.qinglong.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.TestApp;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * What each dev-token user of Project demo is shown: alice (package.manage, package.read), bob
 * (approval.decide, package.read), carol (a member holding nothing) and admin (a global
 * administrator, no member). Each signs in and sees exactly the tabs and actions they may use and
 * none other, the header names them (and says when they are a global administrator), the first view
 * is the one their permissions choose, and a time cell is in the console's one format (local time
 * with its zone, the UTC instant as its title). Each writes a screenshot to {@code
 * target/console-screenshots/roles-<user>.png}; bob's is the README's picture ({@code
 * docs/images/console.png}, see docs/testing.md).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleRolesBrowserTest {
  static final List<String> VIEWS =
      List.of(
          "approvals", "propose", "history", "quota", "usage", "gateways", "members", "webhooks");

  /** Local date and time with a zone name, as the console writes every instant. */
  static final String LOCAL_TIME = "\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} \\S+";

  @TempDir static Path dir;
  private TestApp app;
  private ConsoleBrowser console;
  private ChromeDriver browser;
  private WebDriverWait wait;
  private String proposalId;
  private String actionDigest;
  private Instant updatedAt;

  @BeforeAll
  void start() {
    app = TestApp.start(dir.resolve("data"), Map.of("qinglong.ai.enabled", "true"));
    console = ConsoleBrowser.start(app, dir.resolve("chromium-profile"));
    browser = console.driver;
    wait = console.wait;
    Http.Response proposed =
        app.http.post(
            "/v1/projects/demo/plugin-packages/proposals",
            app.token("alice"),
            "{\"actionRef\":\"roles-1\",\"action\":{\"type\":\"install\",\"package\":\"left-pad\","
                + "\"version\":\"1.3.0\",\"artifactDigest\":\"sha256:"
                + "3f".repeat(32)
                + "\"}}");
    assertThat(proposed.status()).as(proposed.body()).isEqualTo(201);
    proposalId = proposed.json().get("proposalId").asString();
    actionDigest = proposed.json().get("actionDigest").asString();
    updatedAt = Instant.parse(proposed.json().get("updatedAt").asString());
  }

  @AfterAll
  void stop() {
    ConsoleBrowser.closeAll(console, app);
  }

  @Test
  void aliceProposesAndReadsButIsOfferedNoDecision() {
    console.signIn("alice");
    assertHeader("alice", false);
    assertTabs(Set.of("approvals", "propose", "history", "quota", "members"));
    assertFirstView("propose");
    assertThat(browser.findElement(By.id("propose-form")).isDisplayed()).isTrue();
    console.screenshot("roles-alice");

    console.tab("approvals");
    assertPendingListedWithoutDecisions();
    assertTimeCell();
    console.tab("members");
    assertThat(browser.findElement(By.id("member-form")).isDisplayed()).isFalse();
    console.tab("quota");
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#quota-table table")));
    assertThat(browser.findElement(By.id("quota-policy-section")).isDisplayed()).isFalse();
    assertNoError();
  }

  @Test
  void bobDecidesAndSeesAlicesProposalFirstWithItsDigest() {
    console.signIn("bob");
    assertHeader("bob", false);
    assertTabs(Set.of("approvals", "history", "quota", "members"));
    assertFirstView("approvals");
    WebElement list = browser.findElement(By.id("approvals-list"));
    wait.until(d -> ConsoleBrowser.shows(list, proposalId));
    assertThat(ConsoleBrowser.shows(list, actionDigest)).isTrue();
    assertThat(list.getText()).contains("alice").contains("install left-pad 1.3.0");
    assertThat(decisionButtons()).hasSize(2);
    assertThat(browser.findElement(By.id("approvals-hint-decide")).isDisplayed()).isTrue();
    assertThat(browser.findElement(By.id("approvals-hint-read")).isDisplayed()).isFalse();
    assertThat(
            browser.findElements(
                By.cssSelector(
                    "#approvals-list button[aria-label='Approve proposal " + proposalId + "']")))
        .hasSize(1);
    // No wrapping inside a cell: a shortened id and its copy button stay on one line.
    WebElement digest = list.findElement(By.cssSelector("code[data-id='" + actionDigest + "']"));
    assertThat(digest.getText()).endsWith("…").hasSizeLessThan(actionDigest.length());
    assertThat(digest.findElement(By.xpath("..")).getCssValue("white-space")).isEqualTo("nowrap");
    assertTimeCell();
    console.screenshot("roles-bob");

    console.tab("members");
    assertThat(browser.findElement(By.id("member-form")).isDisplayed()).isFalse();
    assertNoError();
  }

  @Test
  void carolHoldsNothingAndIsToldSoCalmly() {
    console.signIn("carol");
    assertHeader("carol", false);
    assertTabs(Set.of());
    WebElement calm =
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("no-permission")));
    assertThat(calm.getText())
        .contains("You hold no permission in Project demo; a Project administrator can grant one.");
    for (String view : VIEWS) {
      assertThat(browser.findElement(By.id("view-" + view)).isDisplayed()).as(view).isFalse();
    }
    assertNoError();
    console.screenshot("roles-carol");
  }

  @Test
  void theGlobalAdminReadsAndAdministersButIsOfferedNoProposalAndNoDecision() {
    console.signIn("admin");
    assertHeader("admin", true);
    assertTabs(Set.of("approvals", "history", "quota", "usage", "gateways", "members", "webhooks"));
    assertFirstView("approvals");
    assertPendingListedWithoutDecisions();
    // Told that it reads here and what deciding needs, not invited to approve or reject.
    assertThat(browser.findElement(By.id("approvals-hint-read")).isDisplayed()).isTrue();
    assertThat(browser.findElement(By.id("approvals-hint-decide")).isDisplayed()).isFalse();
    assertTimeCell();
    console.screenshot("roles-admin");

    console.tab("members");
    assertThat(
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("member-form")))
                .isDisplayed())
        .isTrue();
    console.tab("quota");
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("qp-project-save")));
    console.tab("webhooks");
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("wh-form")));
    console.tab("usage");
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#usage-table table")));
    assertNoError();
  }

  // ---- helpers --------------------------------------------------------------------------------

  private void assertHeader(String user, boolean globalAdmin) {
    assertThat(browser.findElement(By.id("who")).getText()).isEqualTo(user);
    assertThat(browser.findElement(By.id("who-project")).getText()).isEqualTo("demo");
    List<WebElement> admin = browser.findElements(By.id("who-admin"));
    if (globalAdmin) {
      assertThat(admin).hasSize(1);
      assertThat(admin.get(0).getText()).contains("global administrator");
    } else {
      assertThat(admin).isEmpty();
    }
  }

  /** Exactly these tabs are shown, every other one is not. */
  private void assertTabs(Set<String> shown) {
    for (String view : VIEWS) {
      WebElement tab = browser.findElement(By.cssSelector("button.tab[data-view='" + view + "']"));
      assertThat(tab.isDisplayed()).as("tab " + view).isEqualTo(shown.contains(view));
    }
  }

  private void assertFirstView(String view) {
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("view-" + view)));
    assertThat(
            browser
                .findElement(By.cssSelector("button.tab[data-view='" + view + "']"))
                .getAttribute("aria-current"))
        .isEqualTo("page");
    for (String other : VIEWS) {
      if (!other.equals(view)) {
        assertThat(browser.findElement(By.id("view-" + other)).isDisplayed()).as(other).isFalse();
      }
    }
  }

  /** The pending list shows alice's proposal, and no Approve or Reject button anywhere. */
  private void assertPendingListedWithoutDecisions() {
    WebElement list = browser.findElement(By.id("approvals-list"));
    wait.until(d -> ConsoleBrowser.shows(list, proposalId));
    assertThat(decisionButtons()).isEmpty();
    assertThat(list.findElements(By.tagName("th")).stream().map(WebElement::getText))
        .doesNotContain("Decision");
  }

  private List<WebElement> decisionButtons() {
    return browser.findElements(
        By.cssSelector("#view-approvals button.approve, #view-approvals button.reject"));
  }

  /** The proposal's Updated cell: local time with its zone, the API's instant as its title. */
  private void assertTimeCell() {
    WebElement cell =
        browser.findElement(
            By.xpath(
                "//div[@id='approvals-list']//tr[.//code[@data-id='"
                    + proposalId
                    + "']]//time[@class='when']"));
    assertThat(cell.getText()).matches(LOCAL_TIME);
    assertThat(Instant.parse(cell.getAttribute("title"))).isEqualTo(updatedAt);
    assertThat(cell.getAttribute("title")).matches("\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z");
  }

  /** No error notice in view and nothing in the status line. */
  private void assertNoError() {
    assertThat(browser.findElements(By.cssSelector(".notice.error")))
        .noneMatch(WebElement::isDisplayed);
    assertThat(browser.findElement(By.id("status")).getText()).isEmpty();
  }
}
