package dev.qinglong.app.platform;

/** Store kinds of {@code qinglong.store}. */
public enum Store {
  SQLITE,
  POSTGRES
}
