package dev.qinglong.app.platform;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Actuator shares the API port unless {@code management.server.port} names another one (DESIGN §7,
 * §10). On the API port it exposes only the health endpoints and never their details or components
 * (role, store, lease generation, schema versions), whatever else is configured; the details and
 * {@code /actuator/prometheus} need the management port of their own.
 */
public class ManagementPortEnvironmentPostProcessor implements EnvironmentPostProcessor {
  static final String SOURCE = "qinglongActuatorOnApiPort";

  @Override
  public void postProcessEnvironment(
      ConfigurableEnvironment environment, SpringApplication application) {
    if (ManagementPortType.get(environment) == ManagementPortType.DIFFERENT) {
      return;
    }
    Map<String, Object> locked = new LinkedHashMap<>();
    locked.put("management.endpoints.web.exposure.include", "health");
    locked.put("management.endpoints.web.exposure.exclude", "");
    locked.put("management.endpoint.health.show-details", "never");
    locked.put("management.endpoint.health.show-components", "never");
    for (String group : new String[] {"liveness", "readiness"}) {
      locked.put("management.endpoint.health.group." + group + ".show-details", "never");
      locked.put("management.endpoint.health.group." + group + ".show-components", "never");
    }
    // First: above the command line and the environment, so nothing re-opens the details here.
    environment.getPropertySources().addFirst(new MapPropertySource(SOURCE, locked));
  }
}
