package dev.qinglong.app.platform;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * {@code java -jar app.jar migrate}: the migrate step of a release. Binds the same {@code
 * qinglong.*} properties as the application (command line, environment, files), applies every
 * migration of the configured store as the schema owner — the base schema, the shared-download
 * schema on PostgreSQL, the AI schema when {@code qinglong.ai.enabled=true}, creating the {@code
 * ql3_*} roles first when {@code qinglong.postgres.bootstrap-roles=true} — and exits: 0 when done,
 * 1 with a message when not. It starts no web server and opens no component pool.
 */
public final class MigrateCommand {
  public static final String NAME = "migrate";
  private static final Logger log = LoggerFactory.getLogger(MigrateCommand.class);

  private MigrateCommand() {}

  /**
   * Properties binding only: no component scan, no auto-configuration. It binds and validates every
   * {@code qinglong.*} record of the application, as a start does (a bad value refuses the step
   * too); {@link BackendConfiguration#migrate} takes the store's own properties from the context.
   * The package is named, not referenced, so the platform knows no feature.
   */
  @Configuration(proxyBeanMethods = false)
  @ConfigurationPropertiesScan("dev.qinglong.app")
  static class Properties {}

  /** Runs the step; returns the process exit code. */
  public static int run(String... args) {
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(Properties.class)
            .web(WebApplicationType.NONE)
            .bannerMode(Banner.Mode.OFF)
            .logStartupInfo(false)
            .run(args)) {
      log.info("migrate.done {}", BackendConfiguration.migrate(context));
      return 0;
    } catch (RuntimeException e) {
      log.error("migrate.failed reason={}", rootMessage(e));
      return 1;
    }
  }

  private static String rootMessage(Throwable e) {
    String message = e.getMessage();
    Throwable cause = e.getCause();
    while (cause != null && cause != e) {
      if (cause.getMessage() != null) {
        message = message + ": " + cause.getMessage();
      }
      e = cause;
      cause = cause.getCause();
    }
    return message;
  }
}
