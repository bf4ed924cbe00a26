package dev.qinglong.app.platform;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggerConfiguration;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.event.GenericApplicationListener;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;

/**
 * While the process starts, the loggers that would repeat a start failure with its exception (or
 * its stack trace) are turned down, so a failed start prints only Spring Boot's "APPLICATION FAILED
 * TO START" report (our {@code *FailureAnalyzer}s say what is wrong and what to change). Once the
 * application is ready, or its start has failed, they are back at their configured levels: at run
 * time a pool or the web server logs its errors as before.
 *
 * <ul>
 *   <li>the application context's warning "Exception encountered during context initialization";
 *   <li>Tomcat's "Error starting Tomcat context. Exception: …" (the same failure, met while the
 *       servlet context starts its filters);
 *   <li>Hikari's "Exception during pool initialization" with the driver's stack trace.
 * </ul>
 *
 * A level set for one of them ({@code logging.level.<name>}) is left as set: that is the way to see
 * these lines again. The full stack trace of a reported failure is logged at DEBUG by {@code
 * org.springframework.boot.diagnostics.LoggingFailureAnalysisReporter}.
 */
public final class StartPhaseLogging implements GenericApplicationListener {
  static final Map<String, LogLevel> QUIET =
      Map.of(
          "org.springframework.boot.web.server.servlet.context"
              + ".AnnotationConfigServletWebServerApplicationContext",
          LogLevel.ERROR,
          "org.springframework.boot.tomcat.servlet.DeferredServletContainerInitializers",
          LogLevel.OFF,
          "com.zaxxer.hikari.pool.HikariPool",
          LogLevel.OFF);

  /** Logger name → its configured level before the start (null: inherited). */
  private final Map<String, LogLevel> turnedDown = new LinkedHashMap<>();

  private LoggingSystem loggingSystem;

  @Override
  public boolean supportsEventType(ResolvableType eventType) {
    Class<?> type = eventType.getRawClass();
    return type != null
        && (ApplicationEnvironmentPreparedEvent.class.isAssignableFrom(type)
            || ApplicationReadyEvent.class.isAssignableFrom(type)
            || ApplicationFailedEvent.class.isAssignableFrom(type));
  }

  /** After Spring Boot's logging listener has applied {@code logging.level.*}. */
  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE + 21;
  }

  @Override
  public void onApplicationEvent(ApplicationEvent event) {
    if (event instanceof ApplicationEnvironmentPreparedEvent prepared) {
      loggingSystem = LoggingSystem.get(prepared.getSpringApplication().getClassLoader());
      QUIET.forEach(
          (name, level) -> {
            if (prepared.getEnvironment().containsProperty("logging.level." + name)) {
              return;
            }
            LoggerConfiguration current = loggingSystem.getLoggerConfiguration(name);
            turnedDown.put(name, current == null ? null : current.getConfiguredLevel());
            loggingSystem.setLogLevel(name, level);
          });
    } else if (loggingSystem != null) {
      turnedDown.forEach(loggingSystem::setLogLevel);
      turnedDown.clear();
    }
  }
}
