package dev.qinglong.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.TestApp;
import java.nio.file.Path;
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
import tools.jackson.databind.JsonNode;

/**
 * A Project that needs two approvals, in a real headless Chromium (SQLite, dev tokens): bob's
 * approve leaves the proposal pending ("1 of 2") and in the pending list, carol's approves it, the
 * detail lists both decisions, and the API says the same.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleTwoOfTwoApprovalBrowserTest {
  @TempDir static Path dir;
  private TestApp app;
  private ConsoleBrowser console;
  private ChromeDriver browser;
  private WebDriverWait wait;

  @BeforeAll
  void start() {
    app = TestApp.start(dir.resolve("data"));
    console = ConsoleBrowser.start(app, dir.resolve("chromium-profile"));
    browser = console.driver;
    wait = console.wait;
  }

  @AfterAll
  void stop() {
    ConsoleBrowser.closeAll(console, app);
  }

  @Test
  void twoApproversApproveOneAfterTheOther() {
    app.grant("demo", "carol", "approval.decide", "package.read");
    Http.Response policy =
        app.http.put(
            "/v1/projects/demo/plugin-packages/approval-policy",
            app.token("admin"),
            "{\"requiredApprovals\":2}");
    assertThat(policy.status()).as(policy.body()).isEqualTo(200);
    Http.Response proposed =
        app.http.post(
            "/v1/projects/demo/plugin-packages/proposals",
            app.token("alice"),
            "{\"actionRef\":\"two-of-two\",\"action\":{\"type\":\"remove\",\"package\":\"left-pad\","
                + "\"version\":\"2.0.0\"}}");
    assertThat(proposed.status()).as(proposed.body()).isEqualTo(201);
    String proposalId = proposed.json().get("proposalId").asString();
    String approvalId = proposed.json().get("approvalId").asString();
    By approve =
        By.cssSelector("#approvals-list button[aria-label='Approve proposal " + proposalId + "']");

    console.signIn("bob");
    WebElement list = browser.findElement(By.id("approvals-list"));
    wait.until(ExpectedConditions.elementToBeClickable(approve)).click();
    WebElement detail = browser.findElement(By.id("approval-detail"));
    wait.until(ExpectedConditions.textToBePresentInElement(detail, "Decision recorded: approve"));
    assertThat(detail.getText()).contains("is pending, 1 of 2 approvals");
    // Still pending: it stays in the list for the next approver.
    wait.until(d -> ConsoleBrowser.shows(d.findElement(By.id("approvals-list")), proposalId));

    console.signIn("carol");
    wait.until(ExpectedConditions.elementToBeClickable(approve)).click();
    detail = browser.findElement(By.id("approval-detail"));
    wait.until(ExpectedConditions.textToBePresentInElement(detail, "Decision recorded: approve"));
    assertThat(detail.getText()).contains("is approved, 2 of 2 approvals");
    list = browser.findElement(By.id("approvals-list"));
    wait.until(ExpectedConditions.textToBePresentInElement(list, "Nothing waits for a decision."));

    // The detail lists both decisions, as the API does.
    browser.findElement(By.id("open-proposal")).sendKeys(proposalId);
    browser.findElement(By.cssSelector("#open-form button[type=submit]")).click();
    WebElement decisions =
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("detail-decisions")));
    assertThat(decisions.getText()).contains("approve by bob").contains("approve by carol");
    assertThat(browser.findElement(By.id("detail-approvals")).getText())
        .isEqualTo("2 of 2 required");
    JsonNode approval =
        app.http
            .get("/v1/projects/demo/plugin-packages/approvals/" + approvalId, app.token("bob"))
            .json();
    assertThat(approval.get("state").asString()).isEqualTo("approved");
    assertThat(approval.get("decisions")).hasSize(2);
    assertThat(approval.get("decidedBy").asString()).isEqualTo("carol");
  }
}
