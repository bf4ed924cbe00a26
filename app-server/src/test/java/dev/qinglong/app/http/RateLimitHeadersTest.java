package dev.qinglong.app.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The rate-limit fields' grammar: which policy names are plain tokens, and the field values. */
class RateLimitHeadersTest {
  // The grammar the names were checked against with String.matches before (one compiled pattern
  // per response); the hand-written check must accept exactly the same names.
  private static final Pattern TOKEN = Pattern.compile("[a-z0-9._-]{1,64}");

  @Test
  void aPolicyNameIsOneToSixtyFourOfLowerCaseLettersDigitsDotUnderscoreAndHyphen() {
    List<String> names =
        List.of(
            "plugin-package.propose",
            "model.tokens",
            "a",
            "0",
            "a_b",
            "x".repeat(64),
            "x".repeat(65),
            "",
            "A",
            "plugin-package.Propose",
            "a b",
            "a\"b",
            "a;b",
            "a,b",
            "é",
            "a/b",
            "\u0661", // a digit outside ASCII
            "a\n");
    for (String name : names) {
      assertThat(RateLimitHeaders.isToken(name)).as(name).isEqualTo(TOKEN.matcher(name).matches());
    }
    for (char c = 0; c < 0x2000; c++) {
      String name = "a" + c;
      assertThat(RateLimitHeaders.isToken(name))
          .as("U+%04X", (int) c)
          .isEqualTo(TOKEN.matcher(name).matches());
    }
  }

  @Test
  void aNameThatIsNoPlainTokenIsRefused() {
    assertThatThrownBy(() -> new RateLimitHeaders.Limit("Bad Name", 1, 1, 1, 1, null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RateLimitHeaders.Limit("x".repeat(65), 1, 1, 1, 1, null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theFieldsListEveryLimitInOrderWithTheirParameters() {
    List<RateLimitHeaders.Limit> limits =
        List.of(
            new RateLimitHeaders.Limit("plugin-package.inspect", 600, 60, 599, 42, "requests"),
            new RateLimitHeaders.Limit("model.tokens", 1000, 3600, 2000, -5, null));
    assertThat(RateLimitHeaders.policy(limits))
        .isEqualTo(
            "\"plugin-package.inspect\";q=600;w=60;qu=\"requests\", \"model.tokens\";q=1000;w=3600");
    // remaining is kept within 0..quota and the reset at 0 or more.
    assertThat(RateLimitHeaders.state(limits))
        .isEqualTo("\"plugin-package.inspect\";r=599;t=42, \"model.tokens\";r=1000;t=0");
    assertThat(RateLimitHeaders.policy(List.of())).isEmpty();
    assertThat(RateLimitHeaders.state(List.of(limits.get(0))))
        .isEqualTo("\"plugin-package.inspect\";r=599;t=42");
  }
}
