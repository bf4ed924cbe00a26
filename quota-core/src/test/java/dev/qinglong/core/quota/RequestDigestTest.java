package dev.qinglong.core.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RequestDigestTest {

  @Test
  void isSixtyFourLowercaseHexDigitsAndStable() {
    RequestDigest d = RequestDigest.of(QuotaOperation.INSPECT, "prp-1");
    assertThat(d.hex()).matches("[0-9a-f]{64}");
    assertThat(RequestDigest.of(QuotaOperation.INSPECT, "prp-1")).isEqualTo(d);
  }

  /**
   * Pins the encoding across JVMs and releases: stored receipts carry these digests, so a change of
   * the canonical form (separators, length prefix, null marker, charset, wire names) must fail the
   * build, not silently turn every replay into {@code idempotency_key_reused}.
   *
   * <p>The expected values were computed outside Java, from the canonical form documented on {@link
   * RequestDigest#of} (each field as {@code <UTF-16 length>:<value>;}, {@code null} as {@code -;},
   * the operation's wire name first, UTF-8 bytes hashed), with coreutils:
   *
   * <pre>
   * printf '22:plugin-package.inspect;' | sha256sum
   * printf '22:plugin-package.inspect;5:prp-1;' | sha256sum
   * printf '21:plugin-package.decide;5:apr-1;7:approve;8:sha256:x;' | sha256sum
   * printf '22:plugin-package.inspect;1:a;-;' | sha256sum
   * printf '22:plugin-package.inspect;5:prp-\xc3\xa9;' | sha256sum   # "prp-é": 5 chars, 6 bytes
   * </pre>
   */
  @Test
  void knownRequestsHaveTheirPinnedSha256() {
    assertThat(RequestDigest.of(QuotaOperation.INSPECT).hex())
        .isEqualTo("45818fedfb909b7930467ce9e706cea6e994f5a040ea4e08ccec9d1c334f9a96");
    assertThat(RequestDigest.of(QuotaOperation.INSPECT, "prp-1").hex())
        .isEqualTo("8dc525bce12a044a72c0a88e30eddae2a92b5cdc2529393ff0e8321fb6cf1588");
    assertThat(RequestDigest.of(QuotaOperation.DECIDE, "apr-1", "approve", "sha256:x").hex())
        .isEqualTo("491029e5135a56560c79f91f3e08df0128ef2a88e09c471a4041bd88b7584bc8");
    assertThat(RequestDigest.of(QuotaOperation.INSPECT, "a", null).hex())
        .isEqualTo("4a6269c076afa46ae0f31000f211b64bad2e9ca939557d0a7066aaf943d04173");
    assertThat(RequestDigest.of(QuotaOperation.INSPECT, "prp-\u00e9").hex())
        .isEqualTo("29bcb437b7655bfcc992f553624fc6ae8f4b869dc13924dc1cef5c4850c78d3c");
  }

  @Test
  void operationTargetAndEveryFieldCount() {
    RequestDigest base = RequestDigest.of(QuotaOperation.DECIDE, "apr-1", "approve", "sha256:x");
    assertThat(RequestDigest.of(QuotaOperation.INSPECT, "apr-1", "approve", "sha256:x"))
        .isNotEqualTo(base);
    assertThat(RequestDigest.of(QuotaOperation.DECIDE, "apr-2", "approve", "sha256:x"))
        .isNotEqualTo(base);
    assertThat(RequestDigest.of(QuotaOperation.DECIDE, "apr-1", "reject", "sha256:x"))
        .isNotEqualTo(base);
    assertThat(RequestDigest.of(QuotaOperation.DECIDE, "apr-1", "approve", "sha256:y"))
        .isNotEqualTo(base);
  }

  @Test
  void fieldBoundariesAndNullAreUnambiguous() {
    assertThat(RequestDigest.of(QuotaOperation.INSPECT, "ab", "c"))
        .isNotEqualTo(RequestDigest.of(QuotaOperation.INSPECT, "a", "bc"));
    assertThat(RequestDigest.of(QuotaOperation.INSPECT, "a", null))
        .isNotEqualTo(RequestDigest.of(QuotaOperation.INSPECT, "a", "-"))
        .isNotEqualTo(RequestDigest.of(QuotaOperation.INSPECT, "a", ""))
        .isNotEqualTo(RequestDigest.of(QuotaOperation.INSPECT, "a"));
  }

  @Test
  void refusesAnythingButSixtyFourLowercaseHexDigits() {
    assertThatThrownBy(() -> new RequestDigest("AB".repeat(32)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RequestDigest("ab")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RequestDigest(null)).isInstanceOf(IllegalArgumentException.class);
  }
}
