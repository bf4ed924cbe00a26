package dev.qinglong.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Set;
import java.util.TreeSet;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

/**
 * Dependencies point inwards only: stores → the backend SPI, the shared SQL and the core; the app →
 * everything. Run here because only app-server has every module on its class path.
 *
 * <p>The rules name the inner modules, never a store: every other top-level package under {@code
 * dev.qinglong} is a store (today {@code sqlite} and {@code postgres}), so a third store is held to
 * them without editing this test.
 */
class ModuleDependencyTest {
  private static final JavaClasses ALL =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.qinglong");

  /** The modules a store may build on. */
  private static final Set<String> INNER = Set.of("core", "jdbc", "backend", "gateway");

  /** Top-level packages that are neither inner modules nor stores. */
  private static final Set<String> NOT_STORES = Set.of("app", "testkit", "benchmarks");

  @Test
  void coreDependsOnNoOtherModuleAndNoInfrastructure() {
    noClasses()
        .that()
        .resideInAPackage("dev.qinglong.core..")
        .should()
        .dependOnClassesThat(
            resideInAPackage("dev.qinglong..")
                .and(not(resideInAPackage("dev.qinglong.core..")))
                .or(resideInAnyPackage("java.sql..", "javax.sql..", "org.springframework..")))
        .check(ALL);
  }

  @Test
  void sharedJdbcCodeKnowsOnlyTheCore() {
    noClasses()
        .that()
        .resideInAPackage("dev.qinglong.jdbc..")
        .should()
        .dependOnClassesThat(
            resideInAPackage("dev.qinglong..")
                .and(not(resideInAnyPackage("dev.qinglong.core..", "dev.qinglong.jdbc..")))
                .or(
                    resideInAnyPackage(
                        "org.springframework..", "org.sqlite..", "org.postgresql..")))
        .check(ALL);
  }

  @Test
  void theBackendSpiKnowsNoStoreNoSqlAndNoApp() {
    noClasses()
        .that()
        .resideInAPackage("dev.qinglong.backend..")
        .should()
        .dependOnClassesThat(
            resideInAPackage("dev.qinglong..")
                .and(
                    not(
                        resideInAnyPackage(
                            "dev.qinglong.core..",
                            "dev.qinglong.gateway..",
                            "dev.qinglong.backend..")))
                .or(
                    resideInAnyPackage(
                        "org.springframework..",
                        "org.sqlite..",
                        "org.postgresql..",
                        "com.zaxxer..")))
        .check(ALL);
  }

  @Test
  void storesKnowNeitherEachOtherNorTheApp() {
    Set<String> stores = stores();
    Assertions.assertThat(stores).contains("sqlite", "postgres");
    for (String store : stores) {
      Set<String> allowed = new TreeSet<>(INNER);
      allowed.add(store);
      noClasses()
          .that()
          .resideInAPackage("dev.qinglong." + store + "..")
          .should()
          .dependOnClassesThat(
              resideInAPackage("dev.qinglong..")
                  .and(
                      not(
                          resideInAnyPackage(
                              allowed.stream()
                                  .map(p -> "dev.qinglong." + p + "..")
                                  .toArray(String[]::new))))
                  .or(resideInAPackage("org.springframework..")))
          .check(ALL);
    }
  }

  @Test
  void everyModuleIsImported() {
    Assertions.assertThat(topLevelPackages()).containsAll(INNER).contains("app");
  }

  private static Set<String> stores() {
    Set<String> stores = topLevelPackages();
    stores.removeAll(INNER);
    stores.removeAll(NOT_STORES);
    return stores;
  }

  private static Set<String> topLevelPackages() {
    Set<String> names = new TreeSet<>();
    for (var c : ALL) {
      String[] parts = c.getPackageName().split("\\.");
      if (parts.length > 2) {
        names.add(parts[2]);
      }
    }
    return names;
  }
}
