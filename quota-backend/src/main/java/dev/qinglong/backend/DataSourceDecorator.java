package dev.qinglong.backend;

import javax.sql.DataSource;

/**
 * Wraps a component's data source after the schema check, before the stores and the readiness
 * probes use it. Production has none ({@link #NONE}); tests use it to cut the database off or lose
 * a response.
 */
@FunctionalInterface
public interface DataSourceDecorator {
  DataSourceDecorator NONE = (component, dataSource) -> dataSource;

  /**
   * @param component the component's name, e.g. {@code package-manager}, {@code reader}, {@code
   *     sqlite}
   */
  DataSource decorate(String component, DataSource dataSource);
}
