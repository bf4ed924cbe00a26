package dev.qinglong.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * app-server is organised by feature ({@code governance}, {@code modelquota}, {@code artifacts})
 * over two shared layers ({@code http}: the web edge; {@code platform}: properties, roles, the
 * store backend, readiness). The packages form no cycle, the shared layers know no feature, and
 * only {@code platform} chooses a store.
 */
class AppPackagesTest {
  private static final JavaClasses APP =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.qinglong.app");

  @Test
  void theTopLevelPackagesAreExactlyTheFeaturesAndTheSharedLayers() {
    Set<String> packages =
        APP.stream()
            .map(c -> c.getPackageName())
            .filter(p -> p.startsWith("dev.qinglong.app."))
            .map(p -> p.substring("dev.qinglong.app.".length()).split("\\.")[0])
            .collect(Collectors.toSet());
    Assertions.assertThat(packages)
        .containsExactlyInAnyOrder(
            "platform", "http", "governance", "modelquota", "artifacts", "console", "webhooks");
  }

  /**
   * What a decision means for the answer (its rate-limit fields, whether its refusal is audited)
   * travels with the decision's result or exception, never through the request bound to the thread.
   */
  @Test
  void nothingReadsOrWritesTheThreadBoundRequest() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .haveFullyQualifiedName("org.springframework.web.context.request.RequestContextHolder")
        .check(APP);
  }

  /**
   * The HTTP contract is typed: no handler of a controller or controller advice takes a JSON tree
   * or answers with JSON text it wrote itself; request and response records are bound by Jackson
   * (problem documents too: {@code Problems.Problem}).
   */
  @Test
  void handlersTakeAndAnswerTypedBodies() {
    List<String> untyped = new ArrayList<>();
    for (JavaClass c : APP) {
      boolean web =
          Stream.of(
                  RestController.class,
                  Controller.class,
                  RestControllerAdvice.class,
                  ControllerAdvice.class)
              .anyMatch(c::isAnnotatedWith);
      if (!web) {
        continue;
      }
      for (JavaMethod m : c.getMethods()) {
        boolean handler =
            m.isAnnotatedWith(RequestMapping.class)
                || m.isMetaAnnotatedWith(RequestMapping.class)
                || m.isAnnotatedWith(ExceptionHandler.class);
        if (!handler) {
          continue;
        }
        String returned = m.reflect().getGenericReturnType().getTypeName();
        boolean answersText =
            returned.equals("java.lang.String") || returned.endsWith("<java.lang.String>");
        boolean takesTree =
            m.getRawParameterTypes().stream()
                .anyMatch(t -> t.getName().startsWith("tools.jackson.databind.JsonNode"));
        if (answersText || takesTree) {
          untyped.add(c.getSimpleName() + "." + m.getName() + " " + returned);
        }
      }
    }
    Assertions.assertThat(untyped).isEmpty();
  }

  @Test
  void packagesAreFreeOfCycles() {
    slices().matching("dev.qinglong.app.(*)..").should().beFreeOfCycles().check(APP);
  }

  @Test
  void sharedLayersKnowNoFeature() {
    noClasses()
        .that()
        .resideInAnyPackage("dev.qinglong.app.platform..", "dev.qinglong.app.http..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.qinglong.app.governance..",
            "dev.qinglong.app.modelquota..",
            "dev.qinglong.app.artifacts..",
            "dev.qinglong.app.console..",
            "dev.qinglong.app.webhooks..")
        .check(APP);
    noClasses()
        .that()
        .resideInAPackage("dev.qinglong.app.platform..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.qinglong.app.http..")
        .check(APP);
  }

  @Test
  void onlyThePlatformChoosesAStore() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "dev.qinglong.app.http..",
            "dev.qinglong.app.governance..",
            "dev.qinglong.app.modelquota..",
            "dev.qinglong.app.artifacts..",
            "dev.qinglong.app.console..",
            "dev.qinglong.app.webhooks..")
        .should()
        .dependOnClassesThat(
            resideInAPackage("dev.qinglong..")
                .and(
                    not(
                        resideInAnyPackage(
                            "dev.qinglong.app..",
                            "dev.qinglong.core..",
                            "dev.qinglong.gateway..",
                            "dev.qinglong.backend..")))
                .or(resideInAPackage("java.sql..")))
        .check(APP);
  }

  @Test
  void featuresDoNotDependOnEachOther() {
    for (String feature :
        new String[] {"governance", "modelquota", "artifacts", "console", "webhooks"}) {
      noClasses()
          .that()
          .resideInAPackage("dev.qinglong.app." + feature + "..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              Set.of("governance", "modelquota", "artifacts", "console", "webhooks").stream()
                  .filter(f -> !f.equals(feature))
                  .map(f -> "dev.qinglong.app." + f + "..")
                  .toArray(String[]::new))
          .check(APP);
    }
  }
}
