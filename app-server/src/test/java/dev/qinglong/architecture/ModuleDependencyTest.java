package dev.qinglong.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

/**
 * Dependencies point inwards only: adapters → core; the app → adapters + core. Run here because
 * only app-server has every module on its class path.
 */
class ModuleDependencyTest {
  private static final JavaClasses ALL =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.qinglong");

  @Test
  void coreDependsOnNoAdapterNoAppAndNoInfrastructure() {
    noClasses()
        .that()
        .resideInAPackage("dev.qinglong.core..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.qinglong.jdbc..",
            "dev.qinglong.sqlite..",
            "dev.qinglong.postgres..",
            "dev.qinglong.app..",
            "java.sql..",
            "javax.sql..",
            "org.springframework..")
        .check(ALL);
  }

  @Test
  void adaptersDoNotDependOnEachOtherOrOnTheApp() {
    noClasses()
        .that()
        .resideInAPackage("dev.qinglong.sqlite..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.qinglong.postgres..", "dev.qinglong.app..", "org.springframework..")
        .check(ALL);
    noClasses()
        .that()
        .resideInAPackage("dev.qinglong.postgres..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.qinglong.sqlite..", "dev.qinglong.app..", "org.springframework..")
        .check(ALL);
  }

  @Test
  void sharedJdbcCodeKnowsNoDialectAndNoApp() {
    noClasses()
        .that()
        .resideInAPackage("dev.qinglong.jdbc..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.qinglong.sqlite..",
            "dev.qinglong.postgres..",
            "dev.qinglong.app..",
            "org.springframework..",
            "org.sqlite..",
            "org.postgresql..",
            "dev.qinglong.gateway..",
            "dev.qinglong.backend..")
        .check(ALL);
  }

  @Test
  void theBackendSpiKnowsNoDialectNoStoreAndNoApp() {
    noClasses()
        .that()
        .resideInAPackage("dev.qinglong.backend..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.qinglong.jdbc..",
            "dev.qinglong.sqlite..",
            "dev.qinglong.postgres..",
            "dev.qinglong.app..",
            "org.springframework..",
            "org.sqlite..",
            "org.postgresql..",
            "com.zaxxer..")
        .check(ALL);
  }

  @Test
  void everyModuleIsImported() {
    for (String pkg :
        new String[] {
          "dev.qinglong.core",
          "dev.qinglong.jdbc",
          "dev.qinglong.backend",
          "dev.qinglong.gateway",
          "dev.qinglong.sqlite",
          "dev.qinglong.postgres"
        }) {
      Assertions.assertThat(ALL.stream().anyMatch(c -> c.getPackageName().startsWith(pkg)))
          .as(pkg)
          .isTrue();
    }
  }
}
