package dev.qinglong.app.platform;

import dev.qinglong.sqlite.SqliteProcessLock.SqliteInUseException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * A second process on the same SQLite file is refused at start (the one-process rule of the
 * embedded store): Spring Boot prints this as "APPLICATION FAILED TO START" with the reason and
 * what to do, instead of a stack trace through the bean factory.
 */
public final class SqliteInUseFailureAnalyzer
    extends AbstractFailureAnalyzer<SqliteInUseException> {
  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, SqliteInUseException cause) {
    return new FailureAnalysis(
        cause.getMessage(),
        "Stop the other process first (the lock is released when it exits, even when it is"
            + " killed), start this one with another qinglong.data-dir, or run several replicas on"
            + " qinglong.store=postgres.",
        cause);
  }
}
