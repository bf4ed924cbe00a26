package dev.qinglong.app.platform;

/**
 * Settings with which this process cannot start, found by our own start-up checks: {@link
 * StartRefusedFailureAnalyzer} prints {@link #description()} and {@link #action()} as Spring Boot's
 * "APPLICATION FAILED TO START" report, without a stack trace.
 */
public class StartRefusedException extends IllegalStateException {
  private final String description;
  private final String action;

  /**
   * @param description what is wrong, naming the property and the value given
   * @param action what to change
   */
  public StartRefusedException(String description, String action) {
    super(description + ". " + action);
    this.description = description;
    this.action = action;
  }

  public String description() {
    return description;
  }

  public String action() {
    return action;
  }
}
