package dev.qinglong.app.platform;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Actuator shares the API port unless {@code management.server.port} names another one
 * (docs/design.md#operations). On the API port it exposes only the health endpoints and never their
 * details or components (role, store, lease generation, schema versions), whatever else is
 * configured; the details and {@code /actuator/prometheus} need the management port of their own.
 *
 * <p>That port serves them without authentication, so it listens on {@code 127.0.0.1} unless {@code
 * management.server.address} is set (Spring Boot alone would bind every interface, whatever {@code
 * server.address} says). The default is the lowest-precedence source: any explicit setting wins;
 * the Kubernetes manifests set {@code 0.0.0.0} for the kubelet's probes and Prometheus.
 */
public class ManagementPortEnvironmentPostProcessor implements EnvironmentPostProcessor {
  static final String SOURCE = "qinglongActuatorOnApiPort";
  static final String ADDRESS_SOURCE = "qinglongManagementAddressDefault";
  static final String ADDRESS = "management.server.address";
  static final String DEFAULT_ADDRESS = "127.0.0.1";

  @Override
  public void postProcessEnvironment(
      ConfigurableEnvironment environment, SpringApplication application) {
    if (ManagementPortType.get(environment) == ManagementPortType.DIFFERENT) {
      if (!environment.containsProperty(ADDRESS)) {
        // Last: below application.properties, the environment and the command line.
        environment
            .getPropertySources()
            .addLast(new MapPropertySource(ADDRESS_SOURCE, Map.of(ADDRESS, DEFAULT_ADDRESS)));
      }
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
