package dev.qinglong.app.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.app.http.security.DevTokens;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Token lookup of the dev-tokens file (by the token's SHA-256 digest, then a constant-time
 * compare).
 */
class DevTokensTest {

  private static DevTokens load(Path dir, Map<String, String> tokens) throws IOException {
    StringBuilder file = new StringBuilder();
    tokens.forEach((user, token) -> file.append(user).append('=').append(token).append('\n'));
    Path f = dir.resolve(DevTokens.FILE_NAME);
    Files.writeString(f, file.toString());
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
    return DevTokens.loadOrCreate(dir);
  }

  @Test
  void eachTokenNamesItsOwnUserAmongManyAndNothingElseMatches(@TempDir Path dir) throws Exception {
    Map<String, String> tokens = new LinkedHashMap<>();
    for (int i = 0; i < 2_000; i++) {
      tokens.put("u" + i, "token-of-user-number-" + i + "-xyz");
    }
    // Tokens sharing a long prefix with each other.
    tokens.put("p1", "shared-prefix-0123456789");
    tokens.put("p2", "shared-prefix-01234567890");
    DevTokens devTokens = load(dir, tokens);

    tokens.forEach((user, token) -> assertThat(devTokens.userFor(token)).contains(user));
    assertThat(devTokens.users()).containsExactlyInAnyOrderElementsOf(tokens.keySet());
    // Another user's token authenticates that user, never the one asking.
    assertThat(devTokens.userFor(tokens.get("u7"))).contains("u7");
    // Unknown tokens, prefixes and extensions of a stored token, and empty input: no user.
    assertThat(devTokens.userFor("token-of-user-number-7-xy")).isEmpty();
    assertThat(devTokens.userFor("token-of-user-number-7-xyzz")).isEmpty();
    assertThat(devTokens.userFor("shared-prefix-012345678")).isEmpty();
    assertThat(devTokens.userFor("shared-prefix-012345678901")).isEmpty();
    assertThat(devTokens.userFor("never-issued-token-abcdef")).isEmpty();
    assertThat(devTokens.userFor("")).isEmpty();
    assertThat(devTokens.userFor(null)).isEqualTo(Optional.empty());
  }

  @Test
  void oneTokenGivenToTwoUsersIsRefusedAtLoad(@TempDir Path dir) {
    Map<String, String> tokens = new LinkedHashMap<>();
    tokens.put("alice", "the-same-token-for-both");
    tokens.put("bob", "the-same-token-for-both");
    assertThatThrownBy(() -> load(dir, tokens))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("one token to two users")
        .hasMessageNotContaining("the-same-token-for-both");
  }
}
