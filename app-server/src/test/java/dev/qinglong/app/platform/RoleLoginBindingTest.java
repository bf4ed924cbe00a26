package dev.qinglong.app.platform;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/** Role logins bind from properties and from environment variables (as Kubernetes sets them). */
class RoleLoginBindingTest {

  @Test
  void defaultLoginIsTheRolesOwnName() {
    PostgresProperties postgres = bind(new MapConfigurationPropertySource());
    assertThat(postgres.login("package-manager").username()).isEqualTo("ql3_package_manager");
    assertThat(postgres.login("package-manager").password()).isNull();
  }

  @Test
  void dashedPropertyKeyBinds() {
    PostgresProperties postgres =
        bind(
            new MapConfigurationPropertySource(
                Map.of(
                    "qinglong.postgres.roles.package-manager.username", "pm",
                    "qinglong.postgres.roles.package-manager.password", "secret")));
    assertThat(postgres.login("package-manager").username()).isEqualTo("pm");
    assertThat(postgres.login("package-manager").password()).isEqualTo("secret");
  }

  @Test
  void environmentVariableWithoutDashesBinds() {
    StandardEnvironment environment = new StandardEnvironment();
    environment
        .getPropertySources()
        .replace(
            StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
            new SystemEnvironmentPropertySource(
                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                Map.of(
                    "QINGLONG_POSTGRES_ROLES_PACKAGEMANAGER_USERNAME", "pm-from-env",
                    "QINGLONG_POSTGRES_ROLES_PACKAGEMANAGER_PASSWORD", "env-secret")));
    PostgresProperties postgres =
        Binder.get(environment).bindOrCreate("qinglong.postgres", PostgresProperties.class);
    assertThat(postgres.login("package-manager").username()).isEqualTo("pm-from-env");
    assertThat(postgres.login("package-manager").password()).isEqualTo("env-secret");
    assertThat(postgres.login("admin").username()).isEqualTo("ql3_admin");
  }

  private static PostgresProperties bind(MapConfigurationPropertySource source) {
    return new Binder(source).bindOrCreate("qinglong.postgres", PostgresProperties.class);
  }
}
