package dev.qinglong.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.core.modelquota.WindowRef;
import org.junit.jupiter.api.Test;

class AdvisoryLockKeysTest {

  @Test
  void windowKeyIsTheFirstEightBytesOfTheWindowsSha256() {
    WindowRef w = new WindowRef("demo", 1_700_000_040_000L, 60_000L);
    assertThat(w.canonicalJson()).isEqualTo("[\"demo\",1700000040000,60000]");
    String hex = Sha256Digest.ofUtf8(w.canonicalJson()).value().substring(7, 23);
    assertThat(AdvisoryLockKeys.window(w)).isEqualTo(Long.parseUnsignedLong(hex, 16));
    assertThat(AdvisoryLockKeys.window(new WindowRef("demo", 1_700_000_100_000L, 60_000L)))
        .isNotEqualTo(AdvisoryLockKeys.window(w));
  }

  @Test
  void ledgerKeyIsTheFirstEightBytesOfTheLedgerArraysSha256() {
    String hex = Sha256Digest.ofUtf8("[\"ledger\",\"demo\"]").value().substring(7, 23);
    assertThat(AdvisoryLockKeys.ledger("demo")).isEqualTo(Long.parseUnsignedLong(hex, 16));
  }
}
