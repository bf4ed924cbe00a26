package dev.qinglong.ha;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Runs the PostgreSQL physical-HA gate and writes {@code target/ha-gate.json}. Only with {@code
 * -Pha}: {@code ./mvnw -B -pl src-test-ha -am verify -Pha}.
 */
@Tag("ha")
class PostgresHaGateTest {

  @Test
  @Timeout(value = 9, unit = TimeUnit.MINUTES)
  void everyGatePassesAndNothingIsLeftBehind() throws Exception {
    GateReport report = new PostgresHaGate().run();
    Path file = Path.of(System.getProperty("qinglong.ha.report", "target/ha-gate.json"));
    report.write(file);
    System.out.println(report.toJson());

    assertThat(report.gates()).extracting(GateReport.Gate::name).isEqualTo(PostgresHaGate.GATES);
    assertThat(report.failures()).as("failed gates, see " + file).isEmpty();
    assertThat(report.passed()).isTrue();
    // No gate may be skipped: a skip never counts as a pass.
    assertThat(report.gates()).noneMatch(GateReport.Gate::skipped);
    assertThat(report.gate(PostgresHaGate.MODEL_RACE).passed()).isTrue();
  }
}
