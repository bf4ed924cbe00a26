package dev.qinglong.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

/**
 * Dependencies point inwards only (DESIGN §2): adapters → core; the app → adapters + core. Run here
 * because only app-server has every module on its class path.
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
  void everyModuleIsImported() {
    for (String pkg :
        new String[] {"dev.qinglong.core", "dev.qinglong.sqlite", "dev.qinglong.postgres"}) {
      Assertions.assertThat(ALL.stream().anyMatch(c -> c.getPackageName().startsWith(pkg)))
          .as(pkg)
          .isTrue();
    }
  }
}
