package dev.qinglong.app.platform;

/** Console log formats of {@code qinglong.log-format}. */
public enum LogFormat {
  TEXT,
  JSON
}
