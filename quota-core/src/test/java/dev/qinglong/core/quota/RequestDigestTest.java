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
