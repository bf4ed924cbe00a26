package dev.qinglong.app.platform;

import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * {@code qinglong.log-format=json} switches the console to Boot's structured logging (Elastic
 * Common Schema, one JSON object per line) unless {@code logging.structured.format.console} is set.
 */
public class LogFormatEnvironmentPostProcessor implements EnvironmentPostProcessor {
  @Override
  public void postProcessEnvironment(
      ConfigurableEnvironment environment, SpringApplication application) {
    String format = environment.getProperty("qinglong.log-format", "text");
    if ("json".equalsIgnoreCase(format.trim())
        && !environment.containsProperty("logging.structured.format.console")) {
      environment
          .getPropertySources()
          .addLast(
              new MapPropertySource(
                  "qinglongLogFormat", Map.of("logging.structured.format.console", "ecs")));
    }
  }
}
