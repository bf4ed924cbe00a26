package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.app.support.Walkthrough;
import dev.qinglong.core.modelquota.QuotaWindow;
import dev.qinglong.testkit.QuotaWindows;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The curl walk-through of docs/model-quota.md runs as pasted against an app started as the page
 * says (dev tokens in {@code data/}, {@code qinglong.ai.enabled=true}), and leaves what it says.
 */
class ModelQuotaWalkthroughTest {
  static final Path PAGE = Path.of("..", "docs", "model-quota.md");

  static List<String> statuses(String output) {
    Matcher m = Pattern.compile("(?m)^HTTP (\\d{3})$").matcher(output);
    return m.results().map(r -> r.group(1)).toList();
  }

  @Test
  void theWalkthroughRunsAsPastedAndLeavesTheSettledInvocationInTheLedger(@TempDir Path tmp) {
    try (TestApp app = TestApp.start(tmp.resolve("data"), Map.of("qinglong.ai.enabled", "true"))) {
      // The page sets a 1h quota and the window read below must be the one it counted in.
      QuotaWindows.awaitRoom(QuotaWindow.ONE_HOUR, System::currentTimeMillis);
      Walkthrough.Result r = Walkthrough.run(PAGE, tmp, app.http.port());
      assertThat(r.exitCode()).as(r.output()).isZero();
      assertThat(r.script()).doesNotContain("127.0.0.1:8080").contains("set -euo pipefail");
      // policy, quota, step run, reservation, settlement, window, ledger
      assertThat(statuses(r.output()))
          .as(r.output())
          .containsExactly("200", "200", "201", "201", "200", "200", "200");

      String runtime = app.token("runtime");
      String demo = "/v1/projects/demo";
      JsonNode step = app.http.get(demo + "/step-runs/step-1", runtime).json();
      assertThat(step.get("state").asString()).isEqualTo("succeeded");
      assertThat(step.get("modelId").asString()).isEqualTo("gpt-small");
      Http.Response ledger = app.http.get(demo + "/model-usage/ledger", runtime);
      assertThat(ledger.status()).isEqualTo(200);
      JsonNode items = ledger.json().get("items");
      assertThat(items).hasSize(1);
      JsonNode entry = items.get(0);
      assertThat(entry.get("invocationId").asString()).isEqualTo("inv-1");
      assertThat(entry.get("stepRunId").asString()).isEqualTo("step-1");
      assertThat(entry.get("outcome").asString()).isEqualTo("succeeded");
      assertThat(entry.get("usage").get("inputTokens").asLong()).isEqualTo(120);
      assertThat(entry.get("usage").get("outputTokens").asLong()).isEqualTo(380);
      assertThat(entry.get("usage").get("totalTokens").asLong()).isEqualTo(500);
      JsonNode window = app.http.get(demo + "/model-usage/window", runtime).json();
      assertThat(window.get("invocations").asLong()).isEqualTo(1);
      assertThat(window.get("tokens").asLong()).isEqualTo(500);

      // Pasted again on the same data, every step is an exact replay: nothing is counted twice.
      Walkthrough.Result again = Walkthrough.run(PAGE, tmp, app.http.port());
      assertThat(again.exitCode()).as(again.output()).isZero();
      assertThat(statuses(again.output()))
          .containsExactly("200", "200", "200", "200", "200", "200", "200");
      assertThat(app.http.get(demo + "/model-usage/ledger", runtime).json().get("items"))
          .hasSize(1);
    }
  }

  @Test
  void onlyMarkedBashBlocksRunInPageOrder(@TempDir Path tmp) throws Exception {
    Path page = tmp.resolve("page.md");
    Files.writeString(
        page,
        String.join(
            "\n",
            "```bash",
            "echo unmarked",
            "```",
            Walkthrough.MARK,
            "```bash",
            "echo one http://127.0.0.1:8080/x",
            "```",
            "text",
            Walkthrough.MARK,
            "```bash",
            "echo two; false",
            "echo never",
            "```",
            ""));
    assertThat(Walkthrough.blocks(page))
        .containsExactly("echo one http://127.0.0.1:8080/x\n", "echo two; false\necho never\n");
    Walkthrough.Result r = Walkthrough.run(page, tmp, 4242);
    // set -e: the failing command ends the one bash process.
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.output()).isEqualTo("one http://127.0.0.1:4242/x\ntwo\n");

    Files.writeString(page, Walkthrough.MARK + "\n\n```bash\necho x\n```\n");
    assertThatThrownBy(() -> Walkthrough.blocks(page))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("is not directly before a ```bash fence");
  }
}
