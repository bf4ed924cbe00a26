package dev.qinglong.app.platform;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a {@link StartRefusedException}: its description and action, no stack trace. */
public final class StartRefusedFailureAnalyzer
    extends AbstractFailureAnalyzer<StartRefusedException> {
  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, StartRefusedException cause) {
    return new FailureAnalysis(cause.description(), cause.action(), cause);
  }
}
