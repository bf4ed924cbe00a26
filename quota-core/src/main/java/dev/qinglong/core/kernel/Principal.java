package dev.qinglong.core.kernel;

/** An authenticated caller. The user id follows the identifier grammar. */
public record Principal(String userId) {
  public Principal {
    Identifiers.require("userId", userId);
  }
}
