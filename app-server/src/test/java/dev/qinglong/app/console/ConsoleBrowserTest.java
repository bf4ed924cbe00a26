package dev.qinglong.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.StoreInspector;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.core.modelquota.QuotaWindow;
import dev.qinglong.testkit.QuotaWindows;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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

/**
 * The operator console in a real headless Chromium against the running app (SQLite, dev tokens,
 * propose limit 2): alice proposes and sees it in the proposal history (the list route), bob sees
 * it in his pending list and approves it there with the digest he was shown, his quota view's
 * decide count moves by exactly one (the same count as the API and the database), alice cannot
 * decide her own proposal, her third proposal in the window is refused with its retry time
 * explained and her quota view shows the window used up with its reset counting down, and members,
 * model usage and gateway views say what they show. Every action goes through the public {@code
 * /v1} API, checked here against the API itself; the token never appears in a URL. A screenshot of
 * each view is written to {@code target/console-screenshots/}.
 *
 * <p>The gateways view is for global administrators ({@code GET /v1/downloads/gateways}); anyone
 * else is told so.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserTest {
  @TempDir static Path dir;
  private TestApp app;
  private ConsoleBrowser console;
  private ChromeDriver browser;
  private WebDriverWait wait;
  private String proposalId;
  private String actionDigest;

  @BeforeAll
  void start() throws IOException {
    app =
        TestApp.start(
            dir.resolve("data"),
            Map.of(
                "qinglong.ai.enabled", "true",
                "qinglong.management-quota.limits.propose", "2",
                // The longest window there is: the ordered steps from alice's first proposal
                // to her refused third one always fall in one window.
                "qinglong.management-quota.window", "5m"));
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
  void aliceSignsInAndProposes() {
    console.signIn("alice");
    console.tab("propose");
    new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("p-type")))
        .selectByValue("remove");
    browser.findElement(By.id("p-package")).sendKeys("left-pad");
    browser.findElement(By.id("p-version")).sendKeys("1.3.0");
    browser.findElement(By.cssSelector("#propose-form button[type=submit]")).click();
    WebElement id = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("proposed-id")));
    proposalId = id.getText();
    actionDigest =
        browser.findElement(By.cssSelector("#propose-result code.digest")).getText().trim();
    assertThat(actionDigest).matches("sha256:[0-9a-f]{64}");
    console.screenshot("propose");

    // What the page shows is what the API holds.
    Http.Response inspected = inspect("bob", proposalId);
    assertThat(inspected.status()).isEqualTo(200);
    assertThat(inspected.json().get("proposal").get("actionDigest").asString())
        .isEqualTo(actionDigest);
    assertThat(inspected.json().get("proposal").get("proposedBy").asString()).isEqualTo("alice");
    assertThat(inspected.json().get("proposal").get("state").asString()).isEqualTo("pending");

    console.tab("history");
    WebElement history =
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#history-list")));
    wait.until(d -> ConsoleBrowser.shows(history, proposalId));
    assertThat(ConsoleBrowser.shows(history, actionDigest)).isTrue();
    assertThat(history.getText())
        .contains("Proposals, oldest first")
        .contains("remove left-pad 1.3.0")
        .contains("pending")
        .doesNotContain("not available");
    console.screenshot("history");
    assertNoTokenInUrl("alice");
  }

  @Test
  @Order(2)
  void bobSeesItInHisPendingListApprovesThereAndHisQuotaViewCountsTheDecision() {
    console.signIn("bob");
    StoreInspector store = StoreInspector.sqlite(app.dataDir());
    int decidedBefore = store.consumed("demo", "bob", "plugin-package.decide");
    console.tab("quota");
    assertThat(quotaCell("used", "decide")).isEqualTo(Integer.toString(decidedBefore));
    assertThat(apiQuota("bob", "plugin-package.decide").get("used").asInt())
        .isEqualTo(decidedBefore);

    console.tab("approvals");
    WebElement list = browser.findElement(By.id("approvals-list"));
    wait.until(d -> ConsoleBrowser.shows(list, proposalId));
    assertThat(ConsoleBrowser.shows(list, actionDigest)).isTrue();
    assertThat(list.getText())
        .contains("Pending proposals")
        .contains("alice")
        .doesNotContain("not available");
    console.screenshot("approvals");
    // The first answer is lost after the quota statement committed: the console says so, and
    // approving again sends the same decisionId, which replays instead of counting again.
    app.faults().forEach(f -> f.loseNextResponse(ConsoleBrowserTest::isQuotaUpsert));
    By approve =
        By.cssSelector("#approvals-list button[aria-label='Approve proposal " + proposalId + "']");
    browser.findElement(approve).click();
    // The error is shown next to the button pressed: in a row right under the proposal's row.
    WebElement rowMessage =
        wait.until(
            ExpectedConditions.visibilityOfElementLocated(
                By.xpath(
                    "//div[@id='approvals-list']//tr[.//code[@data-id='"
                        + proposalId
                        + "']]/following-sibling::tr[1][contains(@class,'row-message')]")));
    assertThat(rowMessage.getText()).contains("same request with the same id");
    WebElement detail = browser.findElement(By.id("approval-detail"));
    assertThat(app.faults().stream().mapToInt(f -> f.lostResponses()).sum()).isEqualTo(1);
    assertThat(store.consumed("demo", "bob", "plugin-package.decide")).isEqualTo(decidedBefore + 1);
    wait.until(ExpectedConditions.elementToBeClickable(approve)).click();
    wait.until(ExpectedConditions.textToBePresentInElement(detail, "Decision recorded: approve"));
    // Decided: it leaves the pending list.
    wait.until(ExpectedConditions.textToBePresentInElement(list, "Nothing waits for a decision."));
    assertThat(store.consumed("demo", "bob", "plugin-package.decide")).isEqualTo(decidedBefore + 1);
    console.screenshot("approvals-decided");

    Http.Response inspected = inspect("bob", proposalId);
    assertThat(inspected.json().get("approval").get("state").asString()).isEqualTo("approved");
    assertThat(inspected.json().get("approval").get("decidedBy").asString()).isEqualTo("bob");

    // The quota view's decide count moved by exactly one, as the API and the database say.
    console.tab("quota");
    wait.until(d -> quotaCell("used", "decide").equals(Integer.toString(decidedBefore + 1)));
    tools.jackson.databind.JsonNode decide = apiQuota("bob", "plugin-package.decide");
    assertThat(decide.get("used").asInt()).isEqualTo(decidedBefore + 1);
    assertThat(quotaCell("remaining", "decide"))
        .isEqualTo(Integer.toString(decide.get("remaining").asInt()));
    assertThat(quotaCell("reset", "decide")).matches("(\\d+m )?\\d+s");
    assertNoTokenInUrl("bob");
  }

  @Test
  @Order(3)
  void aliceCannotDecideHerOwnProposalAndHerThirdProposalIsRefusedWithItsRetryTime() {
    console.signIn("alice");
    String own = propose("left-pad", "1.4.0");
    console.tab("approvals");
    WebElement detail = browser.findElement(By.id("approval-detail"));
    // Opened by id through GET …/proposals/{id} and GET …/approvals/{approvalId}: an unknown id
    // is the API's 409, explained.
    browser.findElement(By.id("open-proposal")).sendKeys("no-such-proposal");
    browser.findElement(By.cssSelector("#open-form button[type=submit]")).click();
    wait.until(ExpectedConditions.textToBePresentInElement(detail, "Conflict"));
    browser.findElement(By.id("open-proposal")).clear();
    browser.findElement(By.id("open-proposal")).sendKeys(own);
    browser.findElement(By.cssSelector("#open-form button[type=submit]")).click();
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("detail-digest")));
    Http.Response ownApi = inspect("bob", own);
    assertThat(browser.findElement(By.id("detail-digest")).getText())
        .isEqualTo(ownApi.json().get("proposal").get("actionDigest").asString());
    assertThat(detail.getText())
        .contains(ownApi.json().get("approval").get("approvalId").asString() + " · pending");
    // She may not decide (approval.decide, never the proposer): no decision is offered to her, and
    // the API refuses it too.
    assertThat(detail.getText()).contains("a user with approval.decide in this Project decides it");
    assertThat(browser.findElements(By.cssSelector("#view-approvals button.approve"))).isEmpty();
    assertThat(browser.findElements(By.cssSelector("#view-approvals button.reject"))).isEmpty();
    Http.Response refused =
        app.http.post(
            "/v1/projects/demo/plugin-packages/approvals/"
                + ownApi.json().get("approval").get("approvalId").asString()
                + "/decisions",
            app.token("alice"),
            "{\"decisionId\":\"own-1\",\"decision\":\"approve\",\"actionDigest\":\""
                + ownApi.json().get("proposal").get("actionDigest").asString()
                + "\"}");
    assertThat(refused.status()).isEqualTo(403);
    assertThat(inspect("bob", own).json().get("approval").get("state").asString())
        .isEqualTo("pending");

    // Limit 2 per window: this third proposal is the durable quota's 429.
    console.tab("propose");
    fillProposal("left-pad", "1.5.0");
    WebElement result = browser.findElement(By.id("propose-result"));
    wait.until(ExpectedConditions.textToBePresentInElement(result, "Quota exceeded"));
    assertThat(result.getText())
        .containsPattern("your propose quota in Project demo for the current window is used up")
        .containsPattern("try again in \\d+ s \\(at [0-9:]+");
    Http.Response direct =
        app.http.post(
            "/v1/projects/demo/plugin-packages/proposals",
            app.token("alice"),
            "{\"actionRef\":\"direct-3\",\"action\":{\"type\":\"remove\",\"package\":\"x\",\"version\":\"1\"}}");
    assertThat(direct.status()).isEqualTo(429);
    assertThat(direct.code()).isEqualTo("quota_exceeded");

    console.tab("quota");
    WebElement rejections = browser.findElement(By.id("quota-rejections"));
    wait.until(ExpectedConditions.textToBePresentInElement(rejections, "Quota exceeded"));
    assertThat(rejections.getText())
        .contains("propose")
        .containsPattern("The window resets and you can try again in \\d+ s");
    // Her propose window is used up: the view shows the count the API and the database hold, and
    // the window's reset counting down.
    tools.jackson.databind.JsonNode propose = apiQuota("alice", "plugin-package.propose");
    assertThat(propose.get("used").asInt())
        .isEqualTo(2)
        .isEqualTo(
            StoreInspector.sqlite(app.dataDir())
                .consumed("demo", "alice", "plugin-package.propose"));
    assertThat(propose.get("remaining").asInt()).isZero();
    wait.until(d -> quotaCell("used", "propose").equals("2"));
    assertThat(quotaCell("remaining", "propose")).isEqualTo("0");
    String reset = quotaCell("reset", "propose");
    // duration() of what is left of the 5 min window: "4m 58s", or "5m 00s" at its full length
    assertThat(reset).matches("\\d{1,2}m \\d{2}s|\\d{1,2}s");
    assertThat(browser.findElement(By.id("quota-table")).getText()).doesNotContain("not available");
    console.screenshot("quota");
    assertNoTokenInUrl("alice");
  }

  @Test
  @Order(4)
  void membersModelUsageAndGatewaysShowWhatTheApiAllows() {
    console.signIn("admin");
    console.tab("members");
    WebElement members = browser.findElement(By.id("members-table"));
    wait.until(ExpectedConditions.textToBePresentInElement(members, "alice"));
    browser.findElement(By.id("m-user")).sendKeys("dave");
    browser.findElement(By.id("perm-package.read")).click();
    browser.findElement(By.cssSelector("#member-form button[type=submit]")).click();
    wait.until(ExpectedConditions.textToBePresentInElement(members, "dave"));
    assertThat(members.getText()).contains("package.manage, package.read");
    Http.Response dave = app.http.get("/v1/projects/demo/members/dave", app.token("admin"));
    assertThat(dave.status()).isEqualTo(200);
    assertThat(dave.json().get("permissions").toString()).isEqualTo("[\"package.read\"]");
    console.screenshot("members");

    // Model usage: one invocation admitted and settled at 1,500 tokens, through the API.
    apiOk(
        app.http.put(
            "/v1/projects/demo/members/alice",
            app.token("admin"),
            "{\"permissions\":[\"package.manage\",\"package.read\",\"model.invoke\","
                + "\"model.usage.read\"]}"));
    apiOk(
        app.http.put(
            "/v1/projects/demo/model-policies/m1",
            app.token("admin"),
            "{\"maxTotalTokens\":4096,\"maxCostMicros\":null}"));
    // The usage view shows this hour's window: the invocation below must fall in it.
    QuotaWindows.awaitRoom(QuotaWindow.ONE_HOUR, System::currentTimeMillis);
    apiOk(
        app.http.put(
            "/v1/projects/demo/model-quota",
            app.token("admin"),
            "{\"window\":\"1h\",\"maxInvocations\":100,\"maxTokens\":100000,"
                + "\"maxCostMicros\":null}"));
    apiOk(
        app.http.post(
            "/v1/projects/demo/step-runs",
            app.token("alice"),
            "{\"stepRunId\":\"s1\",\"runId\":\"r1\",\"modelId\":\"m1\"}"));
    apiOk(
        app.http.post(
            "/v1/projects/demo/model-invocations",
            app.token("alice"),
            "{\"invocationId\":\"inv1\",\"stepRunId\":\"s1\"}"));
    apiOk(
        app.http.post(
            "/v1/projects/demo/model-invocations/inv1/completion",
            app.token("alice"),
            "{\"outcome\":\"succeeded\",\"usage\":{\"inputTokens\":1000,\"outputTokens\":500,"
                + "\"totalTokens\":1500},\"costMicros\":null}"));
    console.signIn("alice");
    console.tab("usage");
    WebElement usage = browser.findElement(By.id("usage-table"));
    wait.until(ExpectedConditions.textToBePresentInElement(usage, "1 of 100"));
    assertThat(usage.getText()).contains("1500 of 100000").contains("(no limit)");
    console.screenshot("usage");
    // bob has no model.usage.read and is no global administrator: neither view is offered to him.
    console.signIn("bob");
    assertThat(browser.findElement(By.cssSelector("button.tab[data-view='usage']")).isDisplayed())
        .isFalse();
    assertThat(
            browser.findElement(By.cssSelector("button.tab[data-view='gateways']")).isDisplayed())
        .isFalse();
    // The admin sees the mode and this process's state as GET /v1/downloads/gateways gives them.
    console.signIn("admin");
    console.tab("gateways");
    WebElement gateways = browser.findElement(By.id("gateways-body"));
    wait.until(ExpectedConditions.textToBePresentInElement(gateways, "Download mode"));
    Http.Response api = app.http.get("/v1/downloads/gateways", app.token("admin"));
    assertThat(api.status()).isEqualTo(200);
    assertThat(browser.findElement(By.id("gateways-mode")).getText())
        .isEqualTo("Download mode: " + api.json().get("mode").asString() + " (store sqlite)");
    String process =
        browser
            .findElement(By.cssSelector("#gateways-body table.gateways-process tbody"))
            .getText();
    assertThat(process)
        .contains(api.json().get("process").get("role").asString())
        .contains(api.json().get("process").get("mode").asString())
        .contains(Long.toString(api.json().get("process").get("bytesServed").asLong()))
        .contains(api.json().get("worker").get("state").asString());
    console.screenshot("gateways");

    // carol holds no permission: the same console offers her nothing, and says why.
    console.signIn("carol");
    wait.until(
        ExpectedConditions.textToBePresentInElementLocated(
            By.id("no-permission"), "You hold no permission in Project demo"));
    assertThat(browser.findElements(By.cssSelector("button.tab")))
        .noneMatch(WebElement::isDisplayed);
  }

  @Test
  @Order(5)
  void theListsPageWithTheServersCursor() {
    // Four more proposals (carol and admin may now propose, two each within the propose limit):
    // six in all, five of them pending.
    for (String user : List.of("carol", "admin")) {
      apiOk(
          app.http.put(
              "/v1/projects/demo/members/" + user,
              app.token("admin"),
              "{\"permissions\":[\"package.manage\",\"package.read\"]}"));
      for (int i = 1; i <= 2; i++) {
        apiOk(
            app.http.post(
                "/v1/projects/demo/plugin-packages/proposals",
                app.token(user),
                "{\"actionRef\":\"page-"
                    + user
                    + "-"
                    + i
                    + "\",\"action\":{\"type\":\"remove\",\"package\":\"pager\",\"version\":\""
                    + user
                    + "."
                    + i
                    + "\"}}"));
      }
    }
    Http.Response all =
        app.http.get("/v1/projects/demo/plugin-packages/proposals?limit=200", app.token("bob"));
    assertThat(all.json().get("items").size()).isEqualTo(6);
    Http.Response firstFive =
        app.http.get("/v1/projects/demo/plugin-packages/proposals?limit=5", app.token("bob"));
    assertThat(firstFive.json().get("nextCursor").isNull()).isFalse();

    console.signIn("bob");
    WebElement pending = browser.findElement(By.id("approvals-list"));
    wait.until(ExpectedConditions.textToBePresentInElement(pending, "carol.2"));
    assertThat(pending.findElements(By.cssSelector("tbody tr"))).hasSize(5);
    assertThat(pending.getText()).doesNotContain("1.3.0"); // approved: not pending

    console.tab("history");
    WebElement history = browser.findElement(By.id("history-list"));
    wait.until(ExpectedConditions.textToBePresentInElement(history, "admin.2"));
    new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("history-page-size")))
        .selectByValue("5");
    // Oldest first: the first page of five ends before admin's second proposal.
    wait.until(d -> history.findElements(By.cssSelector("tbody tr")).size() == 5);
    assertThat(history.getText()).contains("remove left-pad 1.3.0").doesNotContain("admin.2");
    browser.findElement(By.id("history-list-more")).click();
    wait.until(ExpectedConditions.textToBePresentInElement(history, "admin.2"));
    assertThat(history.findElements(By.cssSelector("tbody tr"))).hasSize(6);
    // The last page: its nextCursor is null, so there is nothing more to load.
    assertThat(browser.findElements(By.id("history-list-more"))).isEmpty();
    List<String> shown =
        history.findElements(By.cssSelector("tbody tr td:first-child code[data-id]")).stream()
            .map(c -> c.getAttribute("data-id"))
            .toList();
    List<String> api = new java.util.ArrayList<>();
    all.json().get("items").forEach(item -> api.add(item.get("proposalId").asString()));
    assertThat(shown).isEqualTo(api);
    console.screenshot("history-paged");
  }

  @Test
  @Order(6)
  void aWrongTokenIsRefusedAndNothingLeaksIntoTheUrl() {
    console.signOutIfSignedIn();
    browser.findElement(By.id("token")).sendKeys("not-a-token");
    browser.findElement(By.cssSelector("#sign-in-form button[type=submit]")).click();
    wait.until(
        ExpectedConditions.textToBePresentInElementLocated(
            By.id("sign-in-message"), "not accepted"));
    assertThat(browser.findElement(By.id("app")).isDisplayed()).isFalse();
    assertThat(browser.getCurrentUrl()).isEqualTo(console.consoleUrl());
  }

  @Test
  @Order(7)
  void theContentSecurityPolicyRefusedNothingTheConsoleNeeds() {
    // Read after every scenario above: a console that needed an inline script or style, or a
    // call to another origin, leaves "Refused to …" in the browser's log.
    List<String> messages = console.logMessages();
    // The log is really read: the refused third proposal left its 429 in it.
    assertThat(messages).anyMatch(m -> m.contains("429"));
    assertThat(messages).noneMatch(m -> m.contains("Content Security Policy"));
    assertThat(messages).noneMatch(m -> m.contains("Refused to"));
    assertThat(messages).noneMatch(m -> m.contains("Uncaught"));
  }

  // ---- helpers --------------------------------------------------------------------------------

  private void fillProposal(String pkg, String version) {
    new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("p-type")))
        .selectByValue("remove");
    browser.findElement(By.id("p-package")).clear();
    browser.findElement(By.id("p-package")).sendKeys(pkg);
    browser.findElement(By.id("p-version")).clear();
    browser.findElement(By.id("p-version")).sendKeys(version);
    browser.findElement(By.cssSelector("#propose-form button[type=submit]")).click();
  }

  private String propose(String pkg, String version) {
    console.tab("propose");
    fillProposal(pkg, version);
    WebElement id = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("proposed-id")));
    wait.until(d -> !id.getText().isBlank());
    return id.getText();
  }

  private Http.Response inspect(String user, String proposal) {
    return app.http.post(
        "/v1/projects/demo/plugin-packages/proposals/" + proposal + "/inspections",
        app.token(user),
        "{\"inspectionId\":\"check-" + System.nanoTime() + "\"}");
  }

  /** The text of the quota view's cell {@code column} (used, remaining, reset) of an operation. */
  private String quotaCell(String column, String operation) {
    By cell = By.cssSelector("#quota-table ." + column + "[data-operation='" + operation + "']");
    return wait.until(ExpectedConditions.visibilityOfElementLocated(cell)).getText().trim();
  }

  /** The caller's quota of one operation, as GET …/management-quota reports it. */
  private tools.jackson.databind.JsonNode apiQuota(String user, String operation) {
    Http.Response r = app.http.get("/v1/projects/demo/management-quota", app.token(user));
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    for (tools.jackson.databind.JsonNode o : r.json().get("operations")) {
      if (o.get("operation").asString().equals(operation)) {
        return o;
      }
    }
    throw new AssertionError("no " + operation + " in " + r.body());
  }

  static boolean isQuotaUpsert(String sql) {
    String s = sql.toLowerCase(java.util.Locale.ROOT);
    return s.contains("plugin_package_management_quota_buckets") && s.contains("insert");
  }

  private static void apiOk(Http.Response r) {
    assertThat(r.status()).as(r.body()).isBetween(200, 201);
  }

  private void assertNoTokenInUrl(String user) {
    assertThat(browser.getCurrentUrl())
        .isEqualTo(console.consoleUrl())
        .doesNotContain(app.token(user));
  }
}
