package dev.qinglong.app.support;

import dev.qinglong.testkit.InterceptingDataSource;
import dev.qinglong.testkit.UnreachableDataSource;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import javax.sql.DataSource;

/**
 * A data source a test can cut off (every connection attempt fails, as an unreachable database or
 * an exhausted pool would) and that can lose the response of the next statement whose SQL matches a
 * predicate after executing it to completion (a response lost after commit).
 */
public final class FaultyDataSource extends InterceptingDataSource {
  private volatile boolean down;
  private final AtomicReference<Predicate<String>> loseNext = new AtomicReference<>();
  private final AtomicInteger lost = new AtomicInteger();

  public FaultyDataSource(DataSource delegate) {
    super(delegate);
  }

  public void cut() {
    down = true;
  }

  public void restore() {
    down = false;
  }

  /** Loses the response of the next prepared statement whose SQL satisfies {@code sql}. */
  public void loseNextResponse(Predicate<String> sql) {
    loseNext.set(sql);
  }

  public int lostResponses() {
    return lost.get();
  }

  @Override
  protected void beforeConnection() throws SQLException {
    if (down) {
      throw UnreachableDataSource.failure();
    }
  }

  @Override
  protected Object aroundExecute(Statement statement, String sql, Call call) throws Throwable {
    Predicate<String> predicate = loseNext.get();
    boolean lose = predicate != null && sql != null && predicate.test(sql);
    Object result = call.proceed();
    if (lose && loseNext.compareAndSet(predicate, null)) {
      runToCompletion(statement, result);
      lost.incrementAndGet();
      throw new SQLException("simulated: connection lost before the response", "08006");
    }
    return result;
  }
}
