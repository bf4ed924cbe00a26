package dev.qinglong.testkit;

import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * Counts what a store asks of the database: connections taken and statements executed (every {@code
 * execute…} call on a statement of those connections). Everything else passes through.
 */
public final class CountingDataSource extends InterceptingDataSource {
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger statements = new AtomicInteger();

  public CountingDataSource(DataSource delegate) {
    super(delegate);
  }

  /** Connections asked for so far. */
  public int connections() {
    return connections.get();
  }

  /** Statements executed so far. */
  public int statements() {
    return statements.get();
  }

  @Override
  protected void beforeConnection() {
    connections.incrementAndGet();
  }

  @Override
  protected Object aroundExecute(Statement statement, String sql, Call call) throws Throwable {
    statements.incrementAndGet();
    return call.proceed();
  }
}
