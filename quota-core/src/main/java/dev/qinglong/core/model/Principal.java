package dev.qinglong.core.model;

/** An authenticated caller. The user id follows the identifier grammar. */
public record Principal(String userId) {
  public Principal {
    Identifiers.require("userId", userId);
  }
}
