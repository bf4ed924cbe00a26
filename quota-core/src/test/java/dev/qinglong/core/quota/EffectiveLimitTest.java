package dev.qinglong.core.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.kernel.ValidationException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EffectiveLimitTest {
  @Test
  void theUsersValueThenTheProjectsThenTheDefaultAndTheShadowOnItsOwn() {
    assertThat(EffectiveLimit.resolve(30, 20, 10, null, null))
        .isEqualTo(new EffectiveLimit(10, LimitSource.USER, null));
    assertThat(EffectiveLimit.resolve(30, 20, null, 5, null))
        .isEqualTo(new EffectiveLimit(20, LimitSource.PROJECT, 5));
    assertThat(EffectiveLimit.resolve(30, null, null, 5, 4))
        .isEqualTo(new EffectiveLimit(30, LimitSource.DEFAULT, 4));
    assertThat(EffectiveLimit.resolve(30, null, 7, 5, null))
        .isEqualTo(new EffectiveLimit(7, LimitSource.USER, 5));
  }

  @Test
  void aShadowLimitRefusesOnlyACountPastIt() {
    EffectiveLimit limit = new EffectiveLimit(10, LimitSource.PROJECT, 3);
    assertThat(limit.shadowRefuses(3)).isFalse();
    assertThat(limit.shadowRefuses(4)).isTrue();
    assertThat(EffectiveLimit.defaultLimit(10).shadowRefuses(10)).isFalse();
  }

  @Test
  void aLimitOutOfRangeFromTheStoreIsUnavailableAndFromAClientInvalid() {
    assertThatThrownBy(() -> new EffectiveLimit(0, LimitSource.USER, null))
        .isInstanceOf(StoreUnavailableException.class);
    assertThatThrownBy(() -> new EffectiveLimit(10, LimitSource.USER, 1001))
        .isInstanceOf(StoreUnavailableException.class);
    assertThatThrownBy(() -> new QuotaLimits(Map.of(QuotaOperation.PROPOSE, 1001), Map.of()))
        .isInstanceOf(ValidationException.class);
    assertThatThrownBy(() -> new QuotaLimits(Map.of(), Map.of(QuotaOperation.PROPOSE, 0)))
        .isInstanceOf(ValidationException.class);
    assertThat(new QuotaLimits(null, null).isEmpty()).isTrue();
  }
}
