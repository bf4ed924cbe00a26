package dev.qinglong.app.platform;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.web.server.PortInUseException;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * A port that is already in use, reported with the property that chose it ({@code server.port} for
 * the API, {@code management.server.port} for the probes and metrics); runs before Spring Boot's
 * own analyzer, which names no property.
 */
public final class PortInUseFailureAnalyzer extends AbstractFailureAnalyzer<PortInUseException>
    implements Ordered {
  private final Environment environment;

  public PortInUseFailureAnalyzer(Environment environment) {
    this.environment = environment;
  }

  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, PortInUseException cause) {
    String port = Integer.toString(cause.getPort());
    String property =
        port.equals(environment.getProperty("management.server.port"))
                && !port.equals(environment.getProperty("server.port"))
            ? "management.server.port"
            : "server.port";
    String what = property.equals("server.port") ? "the API" : "the probes and metrics";
    return new FailureAnalysis(
        "Port "
            + port
            + " ("
            + property
            + "="
            + port
            + ", "
            + what
            + ") is already in use by another process",
        "Stop the process listening on port "
            + port
            + " (ss -ltnp shows it), or set "
            + property
            + " to a free port.",
        cause);
  }
}
