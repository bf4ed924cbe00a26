package dev.qinglong.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

class ArchitectureTest {
  private final JavaClasses core =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.qinglong.core");

  @Test
  void coreImportsNoInfrastructure() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "java.sql..",
            "javax.sql..",
            "org.springframework..",
            "org.postgresql..",
            "org.sqlite..",
            "org.flywaydb..",
            "com.zaxxer..",
            "jakarta..",
            "tools.jackson..",
            "com.fasterxml..")
        .check(core);
  }

  @Test
  void coreDependsOnNoOtherQingLongModule() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.qinglong.jdbc..",
            "dev.qinglong.postgres..",
            "dev.qinglong.sqlite..",
            "dev.qinglong.testkit..",
            "dev.qinglong.app..")
        .check(core);
  }

  @Test
  void theRuleSeesTheCore() {
    // Guards the rules above against passing vacuously on an empty import.
    org.assertj.core.api.Assertions.assertThat(core.size()).isGreaterThan(20);
  }
}
