package dev.qinglong.app.store;

import javax.sql.DataSource;

/**
 * Wraps a component's data source after the migrations ran, before the stores and the readiness
 * check use it. Production has none; tests use it to cut the database off or lose a response.
 */
@FunctionalInterface
public interface DataSourceDecorator {
  DataSource decorate(String component, DataSource dataSource);
}
