package dev.qinglong.gateway;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The governor, lease state machine, worker loop and artifact store are pure: no class of this
 * module talks to a database; the lease storage, barriers and worker lock on PostgreSQL live in
 * quota-postgres behind this module's ports ({@code LeaseStorage}, {@code WorkerLock}). The
 * governor stays the executor and knows no SQL.
 */
class ArchitectureTest {
  private static final JavaClasses GATEWAY =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.qinglong.gateway");

  @Test
  void noClassTouchesTheDatabaseOrAStore() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "java.sql..",
            "javax.sql..",
            "org.postgresql..",
            "org.sqlite..",
            "org.flywaydb..",
            "com.zaxxer..",
            "org.springframework..",
            "dev.qinglong.jdbc..",
            "dev.qinglong.postgres..",
            "dev.qinglong.sqlite..",
            "dev.qinglong.backend..",
            "dev.qinglong.app..")
        .check(GATEWAY);
  }

  @Test
  void theGovernorKnowsNothingOfLeasesOrStorage() {
    noClasses()
        .that()
        .resideInAPackage("dev.qinglong.gateway.governor..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.qinglong.gateway.lease..",
            "dev.qinglong.gateway.artifacts..",
            "dev.qinglong.gateway.worker..")
        .check(GATEWAY);
  }

  @Test
  void theLeaseStateMachineSeesTheDatabaseOnlyThroughItsStoragePort() {
    // Stated on its own (the rule above covers it too) so that moving SQL or a driver type into
    // the state machine, or letting it reach into the adapter, names the lease package.
    noClasses()
        .that()
        .resideInAPackage("dev.qinglong.gateway.lease..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "java.sql..",
            "javax.sql..",
            "org.postgresql..",
            "org.flywaydb..",
            "com.zaxxer..",
            "org.springframework..",
            "dev.qinglong.gateway.artifacts..",
            "dev.qinglong.gateway.worker..")
        .check(GATEWAY);
  }

  @Test
  void theRulesSeeTheModule() {
    // Guards the rules above against passing vacuously on an empty import.
    assertThat(GATEWAY.stream().filter(c -> c.getPackageName().endsWith(".governor")).count())
        .isGreaterThan(3);
    assertThat(
            GATEWAY.stream()
                .filter(c -> c.getPackageName().endsWith(".lease"))
                .map(c -> c.getSimpleName()))
        .contains("SlotLease", "SlotAcquisition", "LeaseStorage", "LeaseKeepAlive", "LeaseWindow");
  }
}
