package dev.qinglong.app.platform;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import dev.qinglong.backend.DataSourceDecorator;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.SQLException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import javax.sql.DataSource;

/**
 * HikariCP's own Micrometer metrics ({@code hikaricp_connections_*{pool}}: active, idle, pending,
 * timeouts, acquire/usage/creation time) for every pool a store backend opens. The backends build
 * their pools themselves (one per component login), so Spring Boot's data-source metrics never see
 * them; every component pool passes through the backend's {@link DataSourceDecorator} once it is
 * open, and that is where this binds them, before any other decorator. A pool shared by two
 * components (SQLite with AI) is bound once.
 */
final class PoolMetrics {
  private PoolMetrics() {}

  static DataSourceDecorator binding(MeterRegistry registry, DataSourceDecorator next) {
    Set<HikariDataSource> bound = Collections.newSetFromMap(new IdentityHashMap<>());
    return (component, dataSource) -> {
      HikariDataSource pool = hikari(dataSource);
      if (pool != null && bound.add(pool)) {
        pool.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(registry));
      }
      return next.decorate(component, dataSource);
    };
  }

  private static HikariDataSource hikari(DataSource dataSource) {
    if (dataSource instanceof HikariDataSource pool) {
      return pool;
    }
    try {
      return dataSource.isWrapperFor(HikariDataSource.class)
          ? dataSource.unwrap(HikariDataSource.class)
          : null;
    } catch (SQLException e) {
      return null;
    }
  }
}
