package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.TestApp;
import dev.qinglong.app.support.Walkthrough;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The README's five-minute walk-through runs as pasted against an app started as the README's first
 * command starts it (SQLite, dev tokens in {@code data/}), and leaves what the README says: an
 * approved proposal, 29 more proposals admitted and the 31st refused.
 */
class ReadmeWalkthroughTest {
  static final Path README = Path.of("..", "README.md");

  @Test
  void theReadmeWalkthroughRunsAsPastedAndEndsOnTheRefusedProposal(@TempDir Path tmp) {
    try (TestApp app = TestApp.start(tmp.resolve("data"), Map.of())) {
      Walkthrough.Result r = Walkthrough.run(README, tmp, app.http.port());
      assertThat(r.exitCode()).as(r.output()).isZero();
      assertThat(r.script()).doesNotContain("127.0.0.1:8080");
      // Step 4's loop: 29 admitted proposals, then the refusal, as the README says it prints.
      assertThat(r.output())
          .as(r.output())
          .contains(String.join("", Collections.nCopies(29, "201 ")) + "429 \n");

      String alice = app.token("alice");
      JsonNode page =
          app.http
              .get("/v1/projects/demo/plugin-packages/proposals?limit=100", alice)
              .json()
              .get("items");
      assertThat(page).hasSize(30);
      JsonNode first = null;
      for (JsonNode p : page) {
        if (p.get("actionRef").asString().equals("r1")) {
          first = p;
        }
      }
      assertThat(first).as("the proposal of step 1").isNotNull();
      String approvalId = first.get("approvalId").asString();
      JsonNode approval =
          app.http.get("/v1/projects/demo/plugin-packages/approvals/" + approvalId, alice).json();
      assertThat(approval.get("state").asString()).isEqualTo("approved");
      assertThat(approval.get("decidedBy").asString()).isEqualTo("bob");
    }
  }
}
