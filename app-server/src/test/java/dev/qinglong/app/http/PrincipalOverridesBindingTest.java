package dev.qinglong.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;

/**
 * How Spring Boot binds {@code qinglong.shield.principal-overrides} keys (the forms
 * docs/operations.md gives) and the range each value must be in.
 */
class PrincipalOverridesBindingTest {
  @Configuration(proxyBeanMethods = false)
  @EnableConfigurationProperties(ShieldProperties.class)
  static class Props {}

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner().withUserConfiguration(Props.class);

  /**
   * The runner with {@code properties} as a property source (as a properties file gives them; the
   * runner's own {@code withPropertyValues} would split a key at its first {@code :}).
   */
  private ApplicationContextRunner with(Map<String, Object> properties) {
    return runner.withInitializer(
        context ->
            context
                .getEnvironment()
                .getPropertySources()
                .addFirst(new MapPropertySource("test", properties)));
  }

  private Map<String, Integer> bound(Map<String, Object> properties) {
    Map<String, Integer>[] result = new Map[1];
    with(properties)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              result[0] = context.getBean(ShieldProperties.class).principalOverrides();
            });
    return result[0];
  }

  @Test
  void noOverrideByDefault() {
    assertThat(bound(Map.of())).isEmpty();
  }

  @Test
  void plainDottedAndBracketedKeysBindAsUserIds() {
    assertThat(
            bound(
                Map.of(
                    "qinglong.shield.principal-overrides.runtime", "64",
                    "qinglong.shield.principal-overrides.svc.batch", "5",
                    "qinglong.shield.principal-overrides[svc:runtime]", "100000",
                    "qinglong.shield.principal-overrides[Runtime@Example.com]", "7")))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "runtime", 64, "svc.batch", 5, "svc:runtime", 100_000, "Runtime@Example.com", 7));
  }

  @Test
  void withoutBracketsCharactersOtherThanLettersDigitsAndDashAreDropped() {
    // Why the page says to write such a user id in brackets.
    assertThat(bound(Map.of("qinglong.shield.principal-overrides.svc:runtime", "5")))
        .containsExactly(Map.entry("svcruntime", 5));
  }

  @Test
  void aValueOutside1To100000RefusesTheStart() {
    for (String value : new String[] {"0", "100001", "-1"}) {
      with(Map.of("qinglong.shield.principal-overrides.runtime", value))
          .run(
              context ->
                  assertThat(context)
                      .hasFailed()
                      .getFailure()
                      .rootCause()
                      .hasMessageContaining("principalOverrides[runtime]"));
    }
  }
}
